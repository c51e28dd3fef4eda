// 9×9 Sudoku, a workgroup per puzzle: the latency kernel, for a batch of a few puzzles (host side
// `src/gpu/lane9.rs` and `src/gpu/lanes.rs`, model `examples/lone_model.rs`). The host appends this file to
// `sudoku_lane9.wgsl`: the board, its passes, the frames, the results and the bindings are that kernel's.
//
// Why a kernel of its own: the lane kernel hands a busy lane's branches to idle lanes only between runs, since
// WGSL orders nothing between workgroups inside one dispatch and `publish` needs a dispatch of its own. A single
// hard puzzle therefore spread over the lanes one run at a time, and took some 30 runs (about 0.5 ms on an H200)
// however few passes its search needed. Inside one workgroup barriers do order memory, so here a puzzle's 256
// lanes share its branches after every pass, with no dispatch in between. The model counts every puzzle of the
// forum's hardest solved within 55 such rounds (73 counting to 2), where one lane alone needs up to 9,000 passes.
//
// Workgroup w searches puzzle w. Its lane k is the lane kernel's lane 256·w + k, with that lane's stack, parking
// frame and state word, so one set of buffers serves both kernels. A round: every lane holding a branch runs one
// pass of `propagate` (or guesses, or goes back, as `run` does); then each idle lane takes the branch at the foot
// of a busy lane's stack (the largest subtree waiting), one per busy lane. A dispatch runs at most `budget`
// rounds and parks every lane as `run` does, so a long search (a count of many solutions) goes on in the next.

const LONE: u32 = 256u;

// Idle lanes and branches given in a round. Two of each, by the round's parity: a round resets the next round's
// pair once every lane has passed its first barrier (so has finished reading the pair of the round before).
var<workgroup> lone_idle: array<atomic<u32>, 2>;
var<workgroup> lone_given: array<atomic<u32>, 2>;
// The stack frames given in this round, in the order idle lanes take them.
var<workgroup> lone_offer: array<u32, LONE>;
// Set when every lane was idle after a pass: the puzzle has finished.
var<workgroup> lone_over: u32;
// Set when the puzzle is done (its count reached) or overflowed: every branch stops at its next pass. All of a
// puzzle's branches live in its workgroup, so this, and the count of idle lanes, stand in for the lane kernel's
// global `flags` check and `live` count, whose atomics each pass would wait on.
var<workgroup> lone_stop: atomic<u32>;

@compute @workgroup_size(256)
fn lone(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) me: u32) {
    let i = group.x;
    // (The host dispatches one workgroup per puzzle, and only where the lanes hold 256 per puzzle.)
    if i >= params.puzzles || (i + 1u) * LONE > params.lanes {
        return;
    }
    let lane = i * LONE + me;
    let parked = lanes[lane];
    var held = parked.x != 0u;
    var depth = parked.y;
    var bottom = parked.z;
    let stack = lane * params.depth;
    let ring = params.depth - 1u;
    let park = params.lanes * params.depth + params.pool + lane;
    if held {
        _ = load_frame(park);
    }
    if me == 0u {
        // `started`: 0 before the puzzle starts, 1 while it is searched, 2 once it has finished. Every workgroup
        // runs in the first run, so after it every puzzle counts as claimed as the host reads `next_puzzle`; its
        // `live` is 1 until it finishes (a claimed puzzle with none alive has its final result).
        if results[i].started == 0u {
            results[i].started = 1u;
            atomicAdd(&control.next_puzzle, 1u);
            atomicStore(&results[i].live, 1u);
            start(i);
            held = true;
            depth = 0u;
            bottom = 0u;
        }
        atomicStore(&lone_stop, atomicLoad(&results[i].flags));
    }
    if me < 2u {
        atomicStore(&lone_idle[me], 0u);
        atomicStore(&lone_given[me], 0u);
    }
    workgroupBarrier();
    var guesses = 0u;
    var gave = 0u;
    for (var round = 0u; round < params.budget; round++) {
        let parity = round & 1u;
        // One pass of this lane's branch (`run`'s, without its pool: a full stack sends the puzzle to the host).
        if held {
            if atomicLoad(&lone_stop) != 0u {
                held = false;
            } else {
                let status = propagate();
                if status == STUCK {
                    if depth - bottom == params.depth {
                        atomicOr(&results[i].flags, OVERFLOW);
                        atomicStore(&lone_stop, 1u);
                        held = false;
                    } else {
                        guess(stack + (depth & ring));
                        depth++;
                        guesses++;
                    }
                } else if status != PROGRESS {
                    if status == SOLVED && count_solution(i) {
                        atomicStore(&lone_stop, 1u);
                        held = false;
                    } else if depth != bottom {
                        // Dead, or solved with more to count: back to the last branch waiting.
                        depth--;
                        _ = load_frame(stack + (depth & ring));
                    } else {
                        held = false;
                    }
                }
            }
        }
        // Idle lanes line up.
        var rank = LONE;
        if !held {
            rank = atomicAdd(&lone_idle[parity], 1u);
        }
        workgroupBarrier();
        let idle = atomicLoad(&lone_idle[parity]);
        if me == 0u {
            atomicStore(&lone_idle[parity ^ 1u], 0u);
            atomicStore(&lone_given[parity ^ 1u], 0u);
            lone_over = select(0u, 1u, idle == LONE);
            if idle == LONE && results[i].started == 1u {
                // The last branch has ended.
                results[i].started = 2u;
                atomicStore(&results[i].live, 0u);
                atomicAdd(&control.finished, 1u);
            }
        }
        // Busy lanes with a branch waiting give their foot while idle lanes are left. Not from a full stack:
        // its next guess would write the slot given before the taker has read it (no barrier between).
        if held && depth != bottom && depth - bottom < params.depth && idle != 0u {
            let n = atomicAdd(&lone_given[parity], 1u);
            if n < idle {
                lone_offer[n] = stack + (bottom & ring);
                bottom++;
                gave++;
            }
        }
        // The frames given were written in earlier rounds, to storage: both kinds of memory are ordered here.
        storageBarrier();
        if workgroupUniformLoad(&lone_over) != 0u {
            break;
        }
        let given = min(atomicLoad(&lone_given[parity]), idle);
        if rank < given {
            _ = load_frame(lone_offer[rank]);
            held = true;
            depth = 0u;
            bottom = 0u;
        }
    }
    lanes[lane] = vec4<u32>(select(0u, i + 1u, held), depth, bottom, 0u);
    if held {
        store_frame(park, 0u);
    }
    if guesses != 0u {
        atomicAdd(&control.guesses, guesses);
    }
    if gave != 0u {
        atomicAdd(&control.donated, gave);
    }
}
