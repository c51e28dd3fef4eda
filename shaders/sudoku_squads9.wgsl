// One 9×9 puzzle searched by many squads at once: the GPU's answer to a single hard puzzle (`src/gpu/squad9.rs`).
// Put after `shaders/squads_subgroup.wgsl` or `shaders/squads_shared.wgsl`, which say how a squad's invocations
// share values (`share`/`peek`, `vote`, `lowest`, `told`), and before `shaders/squads_serve.wgsl`, the resident
// runs' side.
//
// A squad is a workgroup of 32 invocations holding one board. Invocation L < 27 holds digit d = L / 3 in band
// b = L % 3 as two 27-bit words (bit 9r + c: row r of the band, column c): `w`, the cells where d may still go,
// and `f`, those where it is placed; invocations 27..31 hold nothing and only take part in the exchanges. A
// sweep (`sweep`) takes two exchanges of eleven words: each invocation sees its band's other digits and its
// digit's other bands, and finds naked and hidden singles, empty cells and units, and clashes, in some 150 bit
// operations. A squad sweeps until nothing changes, then guesses on the row or box of a digit with the fewest
// places: it keeps "the digit goes in its first place" and pushes "it does not" on its own stack, or, when a
// squad is idle, puts it in its own outbox (a ring of slots in `state`: stores only, no atomic the giver waits
// on). An idle squad's 32 invocations look at 32 squads' outboxes at once and take a board with a
// compare-and-swap. Measured on an H200 with subgroups (docs/benchmarks.md, "One puzzle searched by many
// warps"): a sweep 0.39 µs, and 128 squads answer the forum's hardest puzzles in 22–51 µs inside the dispatch.
//
// The search ends when the solutions counted reach `params.limit`, or when no board is left anywhere: `WORK`
// counts the squads holding a board and the boards in outboxes (a giver adds one before its board can be seen,
// a squad whose board and stack have run out takes one away; whoever takes it to zero ends the search). A
// search that outgrows its stack and outbox, or runs past `params.budget` loop iterations (lavapipe stops an
// invocation's loops after 65,535), sets `OVERFLOW`: the host solves the puzzle itself.
//
// A slot's words carry (index % 31 + 1) << 27, so a squad that took a slot waits until every word is the one
// stored for that index (WGSL's atomics are relaxed); the host clears `state` before each search, so no word of
// an earlier search matches. The taker counts the slot released once read: a giver reuses only released slots.

struct Params {
    // Squads in the dispatch (at most MOST_SQUADS).
    squads: u32,
    // Solutions wanted.
    limit: u32,
    // Loop iterations an invocation may run before the search is handed to the host.
    budget: u32,
    // Idle squads wait this many steps of a counter between looks at the outboxes.
    backoff: u32,
    // `serve` only: the run's number, its looks for a request before it leaves unasked, and the requests it
    // answers at most.
    ticket: u32,
    wait: u32,
    requests: u32,
    pad: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
// The puzzle as value planes (`src/sudoku/bands.rs`, `pack_values`): plane 3k + b holds bit k of band b's values.
@group(0) @binding(1) var<storage, read> puzzle: array<u32, 12>;
// Control words (each on a 128-byte line of its own), the first solution, each squad's outbox counts, the slots.
@group(0) @binding(2) var<storage, read_write> state: array<atomic<u32>>;

const FULL: u32 = 0x7ffffffu;
// The first box of a band's word: columns 0..2 of its three rows.
const BOX0: u32 = 0x1c0e07u;
// Frames of a squad's own stack. A 9×9 search is at most 64 guesses deep (17 givens at least for one solution;
// fewer givens end sooner in a count), and DEPTH + RING is 64.
const DEPTH: u32 = 48u;
const RING: u32 = 16u;
const MOST_SQUADS: u32 = 128u;
const WORK: u32 = 0u;
const IDLE: u32 = 32u;
const STOP: u32 = 64u;
const COUNT: u32 = 96u;
const GUESSES: u32 = 128u;
const SWEEPS: u32 = 160u;
const HANDED: u32 = 192u;
const OVERFLOW: u32 = 224u;
const SINK: u32 = 240u;
// The first solution's 27 `f` words.
const SOLUTION: u32 = 256u;
// Squad s's boards handed over (`OUTBOX + 96 s`), taken (+ 32) and read by their takers (+ 64).
const OUTBOX: u32 = 512u;
// Slot k of squad s: 64 words from SLOTS + 64 (s RING + k), `w` and `f` of invocation L at 2L and 2L + 1.
const SLOTS: u32 = OUTBOX + 96u * MOST_SQUADS;

var<workgroup> stack: array<vec2<u32>, 1536>; // DEPTH × 32

var<private> w: u32;
var<private> f: u32;
var<private> d: u32;
var<private> b: u32;
var<private> live: bool;
var<private> sweeps: u32;
var<private> guesses: u32;
// Loop iterations so far (see `params.budget`).
var<private> spent: u32;
// Boards this squad has put in its outbox, over every search of the dispatch: a slot's tag comes from it, so it
// never goes back.
var<private> published: u32;

// A band word's columns: bit c set where any of the three rows has bit c.
fn fold(x: u32) -> u32 { return (x | (x >> 9u) | (x >> 18u)) & 0x1ffu; }
fn spread(m: u32) -> u32 { return m | (m << 9u) | (m << 18u); }
// Columns with exactly one cell of the band word.
fn one(x: u32) -> u32 {
    let a = x & 0x1ffu;
    let b1 = (x >> 9u) & 0x1ffu;
    let c = (x >> 18u) & 0x1ffu;
    return (a ^ b1 ^ c) & ~(a & b1 & c);
}
// A digit's cells in the band that see a placed cell of its own (rows, boxes, columns), the placed ones left.
fn peers(f: u32) -> u32 {
    var p = spread(fold(f));
    p |= select(0u, 0x1ffu, (f & 0x1ffu) != 0u) | select(0u, 0x1ffu << 9u, (f & (0x1ffu << 9u)) != 0u)
        | select(0u, 0x1ffu << 18u, (f & (0x1ffu << 18u)) != 0u);
    p |= select(0u, BOX0, (f & BOX0) != 0u) | select(0u, BOX0 << 3u, (f & (BOX0 << 3u)) != 0u)
        | select(0u, BOX0 << 6u, (f & (BOX0 << 6u)) != 0u);
    return p & ~f;
}

// The givens placed, every other cell open to every digit. `p` holds bits 0..3 of the values of this
// invocation's band (planes b, 3 + b, 6 + b and 9 + b).
fn start(p: vec4<u32>) {
    let v = d + 1u;
    let given = p.x | p.y | p.z | p.w;
    var mine = FULL;
    for (var k = 0u; k < 4u; k++) {
        mine &= select(~p[k], p[k], ((v >> k) & 1u) == 1u);
    }
    f = select(0u, mine & FULL, live);
    w = select(0u, (FULL & ~given) | f, live);
}

// One sweep of the squad's board: this invocation's bit 0 if its words changed, bit 1 if the board is dead.
fn sweep() -> u32 {
    let o1 = d * 3u + (b + 1u) % 3u;
    let o2 = d * 3u + (b + 2u) % 3u;
    // Eleven reads written out: in a loop the driver issued the shuffles one after another, each waiting for the
    // last, and a sweep took 1.9 µs on an H200 where this takes 0.39 (docs/benchmarks.md).
    share(f);
    let f0 = peek(b);
    let f1 = peek(3u + b);
    let f2 = peek(6u + b);
    let f3 = peek(9u + b);
    let f4 = peek(12u + b);
    let f5 = peek(15u + b);
    let f6 = peek(18u + b);
    let f7 = peek(21u + b);
    let f8 = peek(24u + b);
    let g1 = peek(o1);
    let g2 = peek(o2);
    shared_done();
    // Every other digit's placed cells in this band.
    let taken = ((select(f0, 0u, d == 0u) | select(f1, 0u, d == 1u)) | (select(f2, 0u, d == 2u) | select(f3, 0u, d == 3u)))
        | ((select(f4, 0u, d == 4u) | select(f5, 0u, d == 5u)) | (select(f6, 0u, d == 6u) | select(f7, 0u, d == 7u)))
        | select(f8, 0u, d == 8u);
    let x = w & ~taken & ~peers(f) & ~spread(fold(g1 | g2));
    var dead = (f & ~x) != 0u || countOneBits(fold(f)) != countOneBits(f) || (fold(f) & fold(g1 | g2)) != 0u
        || countOneBits(f & 0x1ffu) > 1u || countOneBits((f >> 9u) & 0x1ffu) > 1u || countOneBits(f >> 18u) > 1u
        || countOneBits(f & BOX0) > 1u || countOneBits(f & (BOX0 << 3u)) > 1u || countOneBits(f & (BOX0 << 6u)) > 1u;
    share(x);
    let v0 = peek(b);
    let v1 = peek(3u + b);
    let v2 = peek(6u + b);
    let v3 = peek(9u + b);
    let v4 = peek(12u + b);
    let v5 = peek(15u + b);
    let v6 = peek(18u + b);
    let v7 = peek(21u + b);
    let v8 = peek(24u + b);
    let x1 = peek(o1);
    let x2 = peek(o2);
    shared_done();
    // Cells with two candidates or more, as a tree of (any, two) pairs over the band's nine digits.
    let a01 = v0 | v1;
    let t01 = v0 & v1;
    let a23 = v2 | v3;
    let t23 = v2 & v3;
    let a45 = v4 | v5;
    let t45 = v4 & v5;
    let a67 = v6 | v7;
    let t67 = v6 & v7;
    let a03 = a01 | a23;
    let t03 = t01 | t23 | (a01 & a23);
    let a47 = a45 | a67;
    let t47 = t45 | t67 | (a45 & a67);
    let a07 = a03 | a47;
    let t07 = t03 | t47 | (a03 & a47);
    let any = a07 | v8;
    let two = t07 | (a07 & v8);
    dead = dead || any != FULL;
    // Naked singles, then the digit's hidden singles in its rows, boxes and columns.
    var single = x & ~two;
    let r0 = x & 0x1ffu;
    let r1 = x & (0x1ffu << 9u);
    let r2 = x & (0x1ffu << 18u);
    let b0 = x & BOX0;
    let b1 = x & (BOX0 << 3u);
    let b2 = x & (BOX0 << 6u);
    dead = dead || r0 == 0u || r1 == 0u || r2 == 0u || b0 == 0u || b1 == 0u || b2 == 0u;
    single |= select(0u, r0, countOneBits(r0) == 1u) | select(0u, r1, countOneBits(r1) == 1u)
        | select(0u, r2, countOneBits(r2) == 1u);
    single |= select(0u, b0, countOneBits(b0) == 1u) | select(0u, b1, countOneBits(b1) == 1u)
        | select(0u, b2, countOneBits(b2) == 1u);
    let y1 = fold(x1);
    let y2 = fold(x2);
    dead = dead || (fold(x) | y1 | y2) != 0x1ffu;
    single |= x & spread(one(x) & ~y1 & ~y2);
    let placed = single & ~f;
    let changed = placed != 0u || x != w;
    w = x;
    f |= placed;
    // (No early return for invocations 27..31: a return in non-uniform control flow would leave the caller's
    // barriers in it, as WGSL's uniformity analysis sees it.)
    return select(0u, select(0u, 1u, changed) | select(0u, 2u, dead), live);
}

// Waits `params.backoff` steps of a counter started at `seed`, between two looks at words other squads write.
fn back_off(seed: u32) {
    var spin = seed;
    for (var i = 0u; i < params.backoff; i++) {
        spin = spin * 1664525u + 1013904223u;
    }
    // Never true in practice; it keeps the wait from being optimised away.
    if spin == 0u {
        atomicAdd(&state[SINK], 1u);
    }
}

// Sweeps to a fixpoint: 0 stuck, 1 solved, 2 dead, 3 past the budget.
fn settle() -> u32 {
    loop {
        spent += 1u;
        let r = vote(sweep() | select(0u, 4u, spent > params.budget));
        sweeps += 1u;
        if (r & 4u) != 0u {
            return 3u;
        }
        if (r & 2u) != 0u {
            return 2u;
        }
        if (r & 1u) == 0u {
            break;
        }
    }
    if vote(select(1u, 0u, !live || countOneBits(f) == 3u)) == 0u {
        return 1u;
    }
    return 0u;
}

// Ends the search for every squad; with `overflow`, the host finishes the puzzle.
fn stop_all(overflow: bool) {
    if me == 0u {
        if overflow {
            atomicStore(&state[OVERFLOW], 1u);
        }
        atomicStore(&state[STOP], 1u);
    }
}

// This invocation's place in its squad.
fn enter(index: u32) {
    me = index;
    live = me < 27u;
    d = select(9u, me / 3u, live);
    b = select(0u, me % 3u, live);
}

// The search of one puzzle by every squad, until it stops (see the top of this file). Squad 0 starts with the
// puzzle of value planes `p` (see `start`); the others start idle. `serving`: the request a resident run is
// answering (0 for none).
fn search(squad: u32, p: vec4<u32>, serving: u32) {
    let squads = params.squads;
    // Squad 0 starts with the puzzle; the others start idle.
    var searching = squad == 0u;
    var depth = 0u;
    var scan = 0u;
    if searching {
        start(p);
        // The other squads start idle: counted so now, so that the first guesses are handed over already.
        if me == 0u {
            atomicAdd(&state[WORK], 1u);
            atomicAdd(&state[IDLE], squads - 1u);
        }
    }
    loop {
        if !searching {
            // Idle: take a board from a squad's outbox (invocation i looks at squad + i + 32 scan), or leave once
            // the search has stopped.
            spent += 1u + params.backoff;
            var stop = 0u;
            if me == 0u {
                stop = atomicLoad(&state[STOP]);
            }
            let victim = (squad + me + 32u * scan) % squads;
            scan += 1u;
            let looks = me < squads;
            var handed = 0u;
            var taken = 0u;
            if looks {
                handed = atomicLoad(&state[OUTBOX + 96u * victim]);
                taken = atomicLoad(&state[OUTBOX + 96u * victim + 32u]);
            }
            let offer = vote(select(0u, 1u << me, looks && handed > taken));
            let over = spent > params.budget;
            if told(select(0u, 1u, stop != 0u || over), 0u) == 1u {
                if over {
                    stop_all(true);
                }
                break;
            }
            if offer == 0u {
                back_off(me + 1u);
                continue;
            }
            let chosen = firstTrailingBit(offer);
            var won = 0u;
            if me == chosen {
                won = select(0u, 1u, atomicCompareExchangeWeak(&state[OUTBOX + 96u * victim + 32u], taken, taken + 1u).exchanged);
            }
            if told(won, chosen) == 0u {
                continue;
            }
            let owner = told(victim, chosen);
            let at = told(taken, chosen);
            if me == 0u {
                atomicSub(&state[IDLE], 1u);
            }
            let slot = SLOTS + 64u * (owner * RING + at % RING);
            let mark = (at % 31u + 1u) << 27u;
            var a = mark;
            var c = mark;
            var late = false;
            if live {
                loop {
                    a = atomicLoad(&state[slot + 2u * me]);
                    c = atomicLoad(&state[slot + 2u * me + 1u]);
                    if (a & 0xf8000000u) == mark && (c & 0xf8000000u) == mark {
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
                stop_all(true);
                break;
            }
            w = a & FULL;
            f = c & FULL;
            if me == 0u {
                atomicAdd(&state[OUTBOX + 96u * owner + 64u], 1u);
            }
            searching = true;
            depth = 0u;
        }
        // Read now, used at the guess: the loads' latency hides behind the sweeps.
        var seen_idle = 0u;
        var seen_stop = 0u;
        var seen_read = 0u;
        if me == 0u {
            seen_idle = atomicLoad(&state[IDLE]);
            seen_stop = atomicLoad(&state[STOP]);
            seen_read = atomicLoad(&state[OUTBOX + 96u * squad + 64u]);
        }
        let s = settle();
        if s == 3u {
            stop_all(true);
            break;
        }
        if s == 0u {
            // Guess: the unfixed row or box of a digit with the fewest places, the lowest invocation on a tie.
            var key = 0xffffffffu;
            if live {
                for (var r = 0u; r < 3u; r++) {
                    let row = w & (0x1ffu << (9u * r));
                    if (row & f) == 0u {
                        key = min(key, (countOneBits(row) << 10u) | (me << 3u) | r);
                    }
                    let bx = w & (BOX0 << (3u * r));
                    if (bx & f) == 0u {
                        key = min(key, (countOneBits(bx) << 10u) | (me << 3u) | 4u | r);
                    }
                }
            }
            key = lowest(key);
            let who = (key >> 3u) & 31u;
            let r = key & 3u;
            let unit = select(0x1ffu << (9u * r), BOX0 << (3u * r), (key & 4u) != 0u);
            let cells = w & unit;
            let first = cells & (0u - cells);
            let mine = me == who;
            // The other branch: the first place taken out of the chosen digit's unit.
            let other = select(w, w & ~first, mine);
            guesses += 1u;
            // Counted as they are made, so that an answer written before the squads leave has them.
            if me == 0u {
                atomicAdd(&state[GUESSES], 1u);
            }
            // 1: stop; 2: hand the other branch over (a squad is idle and the outbox has room); 4: push it; 0: no
            // room anywhere.
            var plan = 0u;
            if me == 0u {
                let room = published - seen_read < RING;
                if seen_stop != 0u {
                    plan = 1u;
                } else if room && (seen_idle > 0u || depth >= DEPTH) {
                    plan = 2u;
                } else if depth < DEPTH {
                    plan = 4u;
                }
            }
            plan = told(plan, 0u);
            if plan == 1u {
                break;
            }
            if plan == 0u {
                stop_all(true);
                break;
            }
            if plan == 2u {
                // The board counts as work before any squad can see it (see WORK above).
                if me == 0u {
                    atomicAdd(&state[WORK], 1u);
                }
                storageBarrier();
                let slot = SLOTS + 64u * (squad * RING + published % RING);
                let mark = (published % 31u + 1u) << 27u;
                if live {
                    atomicStore(&state[slot + 2u * me], other | mark);
                    atomicStore(&state[slot + 2u * me + 1u], f | mark);
                }
                storageBarrier();
                published += 1u;
                if me == 0u {
                    atomicStore(&state[OUTBOX + 96u * squad], published);
                    atomicAdd(&state[HANDED], 1u);
                }
            } else {
                stack[depth * 32u + me] = vec2<u32>(other, f);
                depth += 1u;
            }
            f = select(f, f | first, mine);
            continue;
        }
        if s == 1u {
            // Solved: count it; the first keeps its grid. Past the limit everyone stops, else search on.
            var n = 0u;
            if me == 0u {
                n = atomicAdd(&state[COUNT], 1u);
            }
            n = told(n, 0u);
            if n == 0u && live {
                atomicStore(&state[SOLUTION + me], f);
            }
            if n + 1u >= params.limit {
                // A resident run's first solution, where one is all that is wanted, is the answer: written now
                // rather than once every squad has left.
                if serving != 0u && n == 0u {
                    if me == 0u {
                        atomicStore(&state[PUBLISHED], 1u);
                    }
                    publish(serving, f);
                }
                stop_all(false);
                break;
            }
        }
        // Dead (or counted): back to the last branch of our own, else idle.
        if depth > 0u {
            depth -= 1u;
            let top = stack[depth * 32u + me];
            w = top.x;
            f = top.y;
        } else {
            searching = false;
            if me == 0u {
                atomicAdd(&state[IDLE], 1u);
                if atomicSub(&state[WORK], 1u) == 1u {
                    atomicStore(&state[STOP], 1u);
                }
            }
        }
    }
}

// This squad's counters added to the search's.
fn add_counters() {
    if me == 0u {
        atomicAdd(&state[SWEEPS], sweeps);
    }
}

// One search of the puzzle in `puzzle`, its results left in `state` for the host to copy.
@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) index: u32) {
    enter(index);
    search(group.x, vec4<u32>(puzzle[b], puzzle[3u + b], puzzle[6u + b], puzzle[9u + b]), 0u);
    add_counters();
}
