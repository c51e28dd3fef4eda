// The squads kernel's resident side, put after `shaders/sudoku_squads9.wgsl` (whose search writes a resident
// run's answer as soon as it has it: `publish`).
//
// A run that is already on the GPU when its puzzle comes (`src/gpu/squad9/resident.rs`): squad 0 watches `link`,
// memory the host has mapped, for a request newer than the last answered, while the others wait for its word
// (`GO`); all search it; the last squad to leave writes the answer into `link`, then readies the state for the
// next search (`READY`), and the run waits for the next request, up to `params.requests` of them. It leaves when
// the host parks it (`PARK` reaches its ticket: other work wants the queue) or after `params.wait` looks without
// a request (it marks `EXPIRED` with its ticket, so that the host knows to put a new run on the queue).
@group(0) @binding(3) var<storage, read_write> link: array<atomic<u32>>;

// `link`'s words (each on a line of its own but the puzzle's and the answer's, which the host moves in 16-byte
// pieces). The puzzle's words and the answer's carry (request % 31 + 1) << 27, as a slot's do.
const ASKED: u32 = 0u;
const ANSWERED: u32 = 32u;
const PARK: u32 = 64u;
const EXPIRED: u32 = 96u;
// The request's 12 value planes.
const PUZZLE_IN: u32 = 128u;
// The ticket of the run that answered.
const ANSWER_TICKET: u32 = 160u;
// The answer: count, overflow, guesses, boards handed over, then the first solution's 12 value planes.
const ANSWER_OUT: u32 = 192u;
// In `state`: squads' leavings of searches, the request being searched (0: none), squad 0's word to the others
// (the number of the search to start, or LEAVE), and the searches whose state is ready again.
const EXITED: u32 = 288u;
const SERVING: u32 = 320u;
const GO: u32 = 352u;
const READY: u32 = 384u;
// Whether the answer was written already (by the squad that found the first solution).
const PUBLISHED: u32 = 416u;
const LEAVE: u32 = 0xffffffffu;

// The answer of the request `asked` written into `link`, then marked answered: the count and overflow from
// `state`, and the first solution, whose `f` words this squad holds in `first` (invocation 3d + b: digit d's
// cells in band b), as value planes (16 words in all: four reads over PCIe for the host, where the words took
// eight).
fn publish(asked: u32, first: u32) {
    let mark = (asked % 31u + 1u) << 27u;
    // Plane 3k + b is bit k of band b's values: the cells of the digits d whose d + 1 has bit k.
    share(first);
    let k = me / 3u;
    let band = me % 3u;
    var plane = 0u;
    for (var d = 0u; d < 9u; d++) {
        plane |= select(0u, peek(3u * d + band), (((d + 1u) >> k) & 1u) == 1u);
    }
    shared_done();
    if me < 12u {
        atomicStore(&link[ANSWER_OUT + 4u + me], plane | mark);
    }
    if me == 0u {
        atomicStore(&link[ANSWER_OUT], min(atomicLoad(&state[COUNT]), FULL) | mark);
        atomicStore(&link[ANSWER_OUT + 1u], atomicLoad(&state[OVERFLOW]) | mark);
        atomicStore(&link[ANSWER_OUT + 2u], min(atomicLoad(&state[GUESSES]), FULL) | mark);
        atomicStore(&link[ANSWER_OUT + 3u], min(atomicLoad(&state[HANDED]), FULL) | mark);
        atomicStore(&link[ANSWER_TICKET], params.ticket);
    }
    storageBarrier();
    if me == 0u {
        atomicStore(&link[ANSWERED], asked);
    }
}

// Every control word back to its start for the next search, by the last squad to leave this one. The outbox
// counts keep growing (their tags come from them), but boards left in an outbox count as taken and read.
fn ready_again(squads: u32) {
    if me == 0u {
        atomicStore(&state[WORK], 0u);
        atomicStore(&state[IDLE], 0u);
        atomicStore(&state[STOP], 0u);
        atomicStore(&state[COUNT], 0u);
        atomicStore(&state[GUESSES], 0u);
        atomicStore(&state[SWEEPS], 0u);
        atomicStore(&state[HANDED], 0u);
        atomicStore(&state[OVERFLOW], 0u);
        atomicStore(&state[SERVING], 0u);
        atomicStore(&state[PUBLISHED], 0u);
    }
    for (var s = me; s < squads; s += 32u) {
        let handed = atomicLoad(&state[OUTBOX + 96u * s]);
        atomicStore(&state[OUTBOX + 96u * s + 32u], handed);
        atomicStore(&state[OUTBOX + 96u * s + 64u], handed);
    }
}

// Squad 0's watch for a request: 1 asked (its number in `asked`, its planes in `p`), 2 parked or waited too
// long, 3 asked but its words did not come (the answer says overflow).
fn watch(asked: ptr<function, u32>, p: ptr<function, vec4<u32>>) -> u32 {
    var got = 0u;
    var number = 0u;
    if me == 0u {
        let answered = atomicLoad(&link[ANSWERED]);
        var looks = 0u;
        loop {
            number = atomicLoad(&link[ASKED]);
            if number != answered {
                got = 1u;
                break;
            }
            if atomicLoad(&link[PARK]) >= params.ticket {
                got = 2u;
                break;
            }
            looks += 1u;
            spent += 1u + params.backoff;
            if looks > params.wait {
                got = 3u;
                break;
            }
            back_off(1u);
        }
        if got == 3u {
            atomicStore(&link[EXPIRED], params.ticket);
        }
    }
    got = told(got, 0u);
    *asked = told(number, 0u);
    if got != 1u {
        return 2u;
    }
    // The puzzle's words, each once it carries this request's tag (the host writes them before `ASKED`, but
    // nothing orders its writes and these reads).
    let mark = (*asked % 31u + 1u) << 27u;
    var late = false;
    for (var k = 0u; k < 4u; k++) {
        loop {
            let x = atomicLoad(&link[PUZZLE_IN + 3u * k + b]);
            if (x & 0xf8000000u) == mark {
                (*p)[k] = x & FULL;
                break;
            }
            spent += 1u;
            if spent > params.budget {
                late = true;
                break;
            }
        }
    }
    if vote(select(0u, 1u, late)) != 0u {
        return 3u;
    }
    return 1u;
}

@compute @workgroup_size(32)
fn serve(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) index: u32) {
    enter(index);
    let squad = group.x;
    let squads = params.squads;
    var served = 0u;
    loop {
        // 1: search; 2: leave; 3: answer overflow without a search.
        var go = 0u;
        var p = vec4<u32>();
        // The request's number, which every squad needs to write the answer when it finds it.
        var asked = 0u;
        if squad == 0u {
            go = watch(&asked, &p);
            if me == 0u && go != 2u {
                atomicStore(&state[SERVING], asked);
                if go == 3u {
                    atomicStore(&state[OVERFLOW], 1u);
                    atomicStore(&state[STOP], 1u);
                }
            }
            storageBarrier();
            if me == 0u {
                atomicStore(&state[GO], select(served + 1u, LEAVE, go == 2u));
            }
        } else {
            var word = 0u;
            if me == 0u {
                loop {
                    word = atomicLoad(&state[GO]);
                    if word == LEAVE || word > served {
                        break;
                    }
                    back_off(1u);
                }
            }
            go = select(1u, 2u, told(word, 0u) == LEAVE);
            storageBarrier();
            var serving = 0u;
            if me == 0u {
                serving = atomicLoad(&state[SERVING]);
            }
            asked = told(serving, 0u);
        }
        if go == 2u {
            break;
        }
        if go == 1u {
            search(squad, p, asked);
        }
        served += 1u;
        add_counters();
        guesses = 0u;
        sweeps = 0u;
        // The last squad to leave answers: every squad's writes are ordered before its count of leaving, and the
        // last one's reads after it. Then it readies the state, and the others wait for that.
        storageBarrier();
        var last = 0u;
        if me == 0u {
            last = select(0u, 1u, atomicAdd(&state[EXITED], 1u) == squads * served - 1u);
        }
        if told(last, 0u) == 1u {
            storageBarrier();
            var serving = 0u;
            if me == 0u {
                serving = atomicLoad(&state[SERVING]);
            }
            serving = told(serving, 0u);
            var written = 0u;
            if me == 0u {
                written = atomicLoad(&state[PUBLISHED]);
            }
            // (The solution's words from `state`: invocation L holds word L, as its finder held them.)
            var first = 0u;
            if live {
                first = atomicLoad(&state[SOLUTION + me]);
            }
            if serving != 0u && told(written, 0u) == 0u {
                publish(serving, first);
            }
            ready_again(squads);
            storageBarrier();
            if me == 0u {
                atomicStore(&state[READY], served);
            }
        }
        if me == 0u {
            loop {
                if atomicLoad(&state[READY]) >= served {
                    break;
                }
            }
        }
        storageBarrier();
        if served >= params.requests {
            break;
        }
    }
}
