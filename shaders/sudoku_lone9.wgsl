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
// pass of `propagate` (a second where the first placed digits, when only a first solution is wanted), or guesses,
// or goes back, as `run` does; then each idle lane takes the branch at the foot of a busy lane's stack (the
// largest subtree waiting), one per busy lane. A dispatch runs at most `budget` rounds and parks every lane as
// `run` does, so a long search (a count of many solutions) goes on in the next.
//
// Splits: a lane that gets stuck while lanes stood idle through the whole round makes up to LONE_SPLIT guesses
// at once (`Bands::cut` in bands.rs, its model and tests) and hands the branches but one straight to those
// lanes, each of which loads the board and applies its own branch. One guess at a time, a single puzzle needed
// eight levels of guesses, each after a few passes, before its 256 lanes were all busy; the model counts the
// forum's hardest in 16 rounds at the median and 30 at most with splits of four, against 26 and 52.

const LONE: u32 = 256u;
// Most guesses one split makes: 2^4 branches, and four 16-bit choices fill `lone_cut`'s vec2.
const LONE_SPLIT: u32 = 4u;

// Idle lanes and branches given in a round. Two of each, by the round's parity: a round resets the next round's
// pair once every lane has passed its first barrier (so has finished reading the pair of the round before).
var<workgroup> lone_idle: array<atomic<u32>, 2>;
var<workgroup> lone_given: array<atomic<u32>, 2>;
// Idle lanes that splits claimed in a round, by parity as above.
var<workgroup> lone_claim: array<atomic<u32>, 2>;
// The frames given in a round, in the order idle lanes take them, and for each its branch of a split (0 for a
// stack's foot, else splitter << 16 | guesses << 8 | branch). Two of each, by the round's parity: splits write
// theirs during the pass, before the round's first barrier, while the takers of the round before may still be
// reading; the round before that is two barriers behind.
var<workgroup> lone_offer: array<array<u32, LONE>, 2>;
var<workgroup> lone_branch: array<array<u32, LONE>, 2>;
// Each lane's last split: its choices, (cell << 4 | digit) in each 16 bits. A lane splits at most every other
// round, so its takers have read this before it is written again.
var<workgroup> lone_cut: array<vec2<u32>, LONE>;
// Set when every lane was idle after a pass: the puzzle has finished.
var<workgroup> lone_over: u32;
// Set when the puzzle is done (its count reached) or overflowed: every branch stops at its next pass. All of a
// puzzle's branches live in its workgroup, so this, and the count of idle lanes, stand in for the lane kernel's
// global `flags` check and `live` count, whose atomics each pass would wait on.
var<workgroup> lone_stop: atomic<u32>;

// Branch `r` of a split's `k` choices on the lane's board: choice j's digit placed (every other digit leaves its
// cell) where bit j of `r` is clear, removed where it is set (`Bands::branch`).
fn lone_apply(cut: vec2<u32>, k: u32, r: u32) {
    for (var j = 0u; j < k; j++) {
        let choice = (cut[j >> 1u] >> (16u * (j & 1u))) & 0xFFFFu;
        let digit = choice & 15u;
        let cell = choice >> 4u;
        var m = splat(0u);
        m[cell / 27u] = 1u << (cell % 27u);
        let place = ((r >> j) & 1u) == 0u;
        for (var d = 0u; d < 9u; d++) {
            cand[d] = select(cand[d] & ~m, cand[d], (d == digit) == place);
        }
    }
}

// On a stuck board with `spare` lanes idle through this round: claims up to 2^LONE_SPLIT − 1 of them, and if it
// got any, makes k guesses at once (2^k − 1 of what it got), stores the board in its split frame `at`, offers
// branches 1.. to the idle lanes and keeps branch 0. Returns the guesses made (0: none, guess as usual).
fn lone_split(me: u32, at: u32, spare: u32, parity: u32) -> u32 {
    let want = min(spare, (1u << LONE_SPLIT) - 1u);
    let before = atomicAdd(&lone_claim[parity], want);
    if before >= spare {
        return 0u;
    }
    let k = firstLeadingBit(min(want, spare - before) + 1u);
    let counts = count_candidates();
    let open = splat(BAND) & ~solved;
    // The k open cells with the fewest candidates, the lowest first; each with its lowest digit.
    var cut = vec2<u32>(0u);
    var made = 0u;
    for (var n = 2u; n <= 9u && made < k; n++) {
        var fewest = open & with_count(counts, n);
        for (var b = 0u; b < 3u && made < k; b++) {
            var w = fewest[b];
            while w != 0u && made < k {
                let bit = countTrailingZeros(w);
                w &= w - 1u;
                var cell = splat(0u);
                cell[b] = 1u << bit;
                let digit = lowest_digit(cell);
                cut[made >> 1u] |= (((b * 27u + bit) << 4u) | digit) << (16u * (made & 1u));
                made++;
            }
        }
    }
    store_frame(at, 0u);
    lone_cut[me] = cut;
    let branches = (1u << made) - 1u;
    let first = atomicAdd(&lone_given[parity], branches);
    for (var r = 1u; r <= branches; r++) {
        lone_offer[parity][first + r - 1u] = at;
        lone_branch[parity][first + r - 1u] = (me << 16u) | (made << 8u) | r;
    }
    lone_apply(cut, made, 0u);
    return made;
}

@compute @workgroup_size(256)
fn lone(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) me: u32) {
    let i = group.x;
    // (The host dispatches one workgroup per puzzle, and only where the lanes hold 256 per puzzle.)
    if i >= params.puzzles || (i + 1u) * LONE > params.lanes {
        return;
    }
    let lane = i * LONE + me;
    // A puzzle not yet started has no branch in any lane, so its lanes' words (which the host does not clear for
    // `lone`) are read only once it has. Every lane reads `started` before lane 0 sets it.
    let fresh = results[i].started == 0u;
    storageBarrier();
    var held = false;
    var depth = 0u;
    var bottom = 0u;
    if !fresh {
        let parked = lanes[lane];
        held = parked.x != 0u;
        depth = parked.y;
        bottom = parked.z;
    }
    let stack = lane * params.depth;
    let ring = params.depth - 1u;
    let park = params.lanes * params.depth + params.pool + lane;
    // The pool's frames, which `lone` leaves unused, hold its splits' boards (the host keeps pool ≥ lanes).
    let split_at = params.lanes * params.depth + lane;
    if held {
        _ = load_frame(park);
    }
    if me == 0u {
        // `started`: 0 before the puzzle starts, 1 while it is searched, 2 once it has finished. Every workgroup
        // runs in the first run, so after it every puzzle counts as claimed as the host reads `next_puzzle`; its
        // `live` is 1 until it finishes (a claimed puzzle with none alive has its final result).
        if fresh {
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
        atomicStore(&lone_claim[me], 0u);
    }
    workgroupBarrier();
    var guesses = 0u;
    var gave = 0u;
    var split = 0u;
    // Lanes idle through the whole round (unknown in a run's first) and the first round this lane may split in.
    var spare = 0u;
    var may_split = 0u;
    for (var round = 0u; round < params.budget; round++) {
        let parity = round & 1u;
        // One pass of this lane's branch (`run`'s, without its pool: a full stack sends the puzzle to the host).
        if held {
            if atomicLoad(&lone_stop) != 0u {
                held = false;
            } else {
                var status = propagate();
                // Looking for a first solution, a pass that placed digits is followed by a second in the same
                // round: the branch that reaches a solution waits on fewer barriers and shares per pass (the
                // model: rounds to a first solution, median 16 → 9). Counting needs every branch ended, and there
                // the shares after each pass paid more (docs/benchmarks.md, "Two passes a round").
                if status == PROGRESS && params.limit == 1u {
                    status = propagate();
                }
                if status == STUCK {
                    if depth - bottom == params.depth {
                        atomicOr(&results[i].flags, OVERFLOW);
                        atomicStore(&lone_stop, 1u);
                        held = false;
                    } else {
                        var made = 0u;
                        if spare != 0u && round >= may_split {
                            made = lone_split(me, split_at, spare, parity);
                        }
                        if made != 0u {
                            may_split = round + 2u;
                            guesses += made;
                            gave += (1u << made) - 1u;
                            split += (1u << made) - 1u;
                        } else {
                            guess(stack + (depth & ring));
                            depth++;
                            guesses++;
                        }
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
            atomicStore(&lone_claim[parity ^ 1u], 0u);
            lone_over = select(0u, 1u, idle == LONE);
            if idle == LONE && results[i].started == 1u {
                // The last branch has ended.
                results[i].started = 2u;
                atomicStore(&results[i].live, 0u);
                atomicAdd(&control.finished, 1u);
            }
        }
        // Busy lanes with a branch waiting give their foot while idle lanes are left, after the splits' branches
        // (those never pass `spare`, so never `idle`). Not from a full stack: its next guess would write the slot
        // given before the taker has read it (no barrier between).
        if held && depth != bottom && depth - bottom < params.depth && idle != 0u {
            let n = atomicAdd(&lone_given[parity], 1u);
            if n < idle {
                lone_offer[parity][n] = stack + (bottom & ring);
                lone_branch[parity][n] = 0u;
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
        spare = idle - given;
        if rank < given {
            _ = load_frame(lone_offer[parity][rank]);
            let branch = lone_branch[parity][rank];
            if branch != 0u {
                lone_apply(lone_cut[branch >> 16u], (branch >> 8u) & 0xFFu, branch & 0xFFu);
            }
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
    if split != 0u {
        atomicAdd(&control.split, split);
    }
}
