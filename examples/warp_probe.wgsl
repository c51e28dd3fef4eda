// A probe for the one-hard-puzzle bar (docs/benchmarks.md, "One puzzle searched by many warps"), run by
// `examples/warp_probe.rs`; no part of Forkboard uses it. It needs subgroups of 32 invocations.
//
// One 9x9 puzzle searched by W warps (a workgroup of 32 invocations each), each warp one board. Lane L < 27 holds
// digit d = L / 3 in band b = L % 3: `w`, the band's cells where d may go (bit 9r + c), and `f`, those where it is
// placed. Lanes 27..31 hold nothing but take part in every subgroup operation. A warp propagates by shuffles
// (`sweep`: naked and hidden singles, every unit and cell checked), guesses on the row or box of a digit with
// the fewest places, keeps the branch that places the digit and, when a warp is idle, puts the other in its own
// outbox (a ring of slots in global memory: stores only, no atomic that it waits on), else on its own stack. An
// idle warp's 32 lanes look at 32 warps' outboxes at once and take a board from one with a compare-and-swap.
// The same puzzle is solved `reps` times in one dispatch, the warps meeting between repetitions, so that the time
// a solve takes can be read without a submission's; or (`resident`) the dispatch stays running and takes each
// puzzle the host writes into `link`, one after another, until the host asks it to quit. The puzzle must have a
// solution: nothing here notices that every warp is idle with no board left.
//
// A slot's words carry (index % 31 + 1) << 27, so a warp that took a slot waits until all of its words are the
// ones stored for that index (WGSL's atomics are relaxed, so nothing else orders them).

// `resident` 1: solve requests the host writes into `link` until it asks to quit (`reps` unused).
struct Params { warps: u32, reps: u32, resident: u32, pad: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> start: array<vec2<u32>, 32>;
// The outboxes' slots (64 words each), then each warp's counts of boards handed over and taken (`PUB`, `TOOK`).
@group(0) @binding(2) var<storage, read_write> queue: array<atomic<u32>>;
// Word 32k: 2 idle warps, 3 done (tag), 4 arrived, 5 go (tag), 6 guesses, 7 winner (tag), 8 handed over,
// 9 sweeps, 10 quit (each on a cache line of its own).
@group(0) @binding(4) var<storage, read_write> ctl: array<atomic<u32>, 512>;
// What the host and a resident kernel share, in memory the host has mapped. `link`, device-local where the GPU
// offers such memory to the host (a kernel polls it cheaply, the host writes it over PCIe): word 0 the request's
// number (written after the puzzle), word 1 nonzero to quit, words 32..95 the puzzle as `start` holds it, words
// 128..154 the solution's `f`, each tagged as the outboxes' words are with the request's number. `answer`, in the
// host's memory (the host polls it cheaply, the kernel writes it over PCIe): the same solution, again.
@group(0) @binding(3) var<storage, read_write> link: array<atomic<u32>, 256>;
@group(0) @binding(6) var<storage, read_write> answer: array<atomic<u32>, 256>;
@group(0) @binding(5) var<storage, read_write> out: array<u32, 32>;

const FULL: u32 = 0x7ffffffu;
const BOX0: u32 = 0x1c0e07u;
const DEPTH: u32 = 64u;
const BACKOFF: u32 = 64u;
// Each warp's outbox: RING slots from slot wid × RING; `published` counts its boards handed over (also in
// queue[PUB + 64 wid]), queue[TOOK + 64 wid] those taken. A slot's words carry (index % 31 + 1) << 27.
const RING: u32 = 64u;
const PUB: u32 = 16777216u;
const TOOK: u32 = 16777248u;
var<workgroup> stack: array<vec2<u32>, 2048>;

fn fold(x: u32) -> u32 { return (x | (x >> 9u) | (x >> 18u)) & 0x1ffu; }
fn spread(m: u32) -> u32 { return m | (m << 9u) | (m << 18u); }
// Columns with exactly one cell of the band word.
fn one(x: u32) -> u32 {
    let a = x & 0x1ffu; let b = (x >> 9u) & 0x1ffu; let c = (x >> 18u) & 0x1ffu;
    return (a ^ b ^ c) & ~(a & b & c);
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

var<private> w: u32;
var<private> f: u32;
var<private> lane: u32;
var<private> d: u32;
var<private> b: u32;
var<private> live: bool;
var<private> sweeps: u32;
var<private> published: u32;
var<private> scan: u32;
var<private> guesses: u32;

// One sweep of the warp's board; returns 0 no change, 1 changed, 2 dead.
fn sweep() -> u32 {
    let o1 = d * 3u + (b + 1u) % 3u;
    let o2 = d * 3u + (b + 2u) % 3u;
    // The shuffles are written out: in a loop the driver issued them one after another, each waiting for the last,
    // and a sweep took 1.9 µs on an H200 where this takes 0.39 (docs/benchmarks.md).
    let f0 = subgroupShuffle(f, 0u + b);
    let f1_ = subgroupShuffle(f, 3u + b);
    let f2_ = subgroupShuffle(f, 6u + b);
    let f3 = subgroupShuffle(f, 9u + b);
    let f4 = subgroupShuffle(f, 12u + b);
    let f5 = subgroupShuffle(f, 15u + b);
    let f6 = subgroupShuffle(f, 18u + b);
    let f7 = subgroupShuffle(f, 21u + b);
    let f8 = subgroupShuffle(f, 24u + b);
    let g1 = subgroupShuffle(f, o1);
    let g2 = subgroupShuffle(f, o2);
    // Every other digit's placed cells in this band.
    let taken = ((select(f0, 0u, d == 0u) | select(f1_, 0u, d == 1u)) | (select(f2_, 0u, d == 2u) | select(f3, 0u, d == 3u)))
        | ((select(f4, 0u, d == 4u) | select(f5, 0u, d == 5u)) | (select(f6, 0u, d == 6u) | select(f7, 0u, d == 7u)))
        | select(f8, 0u, d == 8u);
    let x = w & ~taken & ~peers(f) & ~spread(fold(g1 | g2));
    let fr = f & 0x1ffu;
    let fm = (f >> 9u) & 0x1ffu;
    let fb = f >> 18u;
    var dead = (f & ~x) != 0u || countOneBits(fold(f)) != countOneBits(f) || (fold(f) & fold(g1 | g2)) != 0u
        || countOneBits(fr) > 1u || countOneBits(fm) > 1u || countOneBits(fb) > 1u
        || countOneBits(f & BOX0) > 1u || countOneBits(f & (BOX0 << 3u)) > 1u || countOneBits(f & (BOX0 << 6u)) > 1u;
    let v0 = subgroupShuffle(x, 0u + b);
    let v1 = subgroupShuffle(x, 3u + b);
    let v2 = subgroupShuffle(x, 6u + b);
    let v3 = subgroupShuffle(x, 9u + b);
    let v4 = subgroupShuffle(x, 12u + b);
    let v5 = subgroupShuffle(x, 15u + b);
    let v6 = subgroupShuffle(x, 18u + b);
    let v7 = subgroupShuffle(x, 21u + b);
    let v8 = subgroupShuffle(x, 24u + b);
    let x1 = subgroupShuffle(x, o1);
    let x2 = subgroupShuffle(x, o2);
    // Cells with two candidates or more, as a tree of (any, two) pairs.
    let a01 = v0 | v1; let t01 = v0 & v1;
    let a23 = v2 | v3; let t23 = v2 & v3;
    let a45 = v4 | v5; let t45 = v4 & v5;
    let a67 = v6 | v7; let t67 = v6 & v7;
    let a03 = a01 | a23; let t03 = t01 | t23 | (a01 & a23);
    let a47 = a45 | a67; let t47 = t45 | t67 | (a45 & a67);
    let a07 = a03 | a47; let t07 = t03 | t47 | (a03 & a47);
    let any = a07 | v8;
    let two = t07 | (a07 & v8);
    dead = dead || any != FULL;
    var single = x & ~two;
    let r0 = x & 0x1ffu; let r1 = x & (0x1ffu << 9u); let r2 = x & (0x1ffu << 18u);
    let b0 = x & BOX0; let b1 = x & (BOX0 << 3u); let b2 = x & (BOX0 << 6u);
    dead = dead || r0 == 0u || r1 == 0u || r2 == 0u || b0 == 0u || b1 == 0u || b2 == 0u;
    single |= select(0u, r0, countOneBits(r0) == 1u) | select(0u, r1, countOneBits(r1) == 1u)
        | select(0u, r2, countOneBits(r2) == 1u);
    single |= select(0u, b0, countOneBits(b0) == 1u) | select(0u, b1, countOneBits(b1) == 1u)
        | select(0u, b2, countOneBits(b2) == 1u);
    let y = fold(x); let y1 = fold(x1); let y2 = fold(x2);
    dead = dead || (y | y1 | y2) != 0x1ffu;
    single |= x & spread(one(x) & ~y1 & ~y2);
    let placed = single & ~f;
    let changed = placed != 0u || x != w;
    w = x;
    f |= placed;
    if !live { return 0u; }
    return select(select(0u, 1u, changed), 2u, dead);
}

// Propagates to a fixpoint: 0 stuck, 1 solved, 2 dead.
fn settle() -> u32 {
    loop {
        let r = sweep();
        sweeps += 1u;
        if subgroupAny(r == 2u) { return 2u; }
        if !subgroupAny(r == 1u) { break; }
    }
    if subgroupAll(!live || countOneBits(f) == 3u) { return 1u; }
    return 0u;
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) me: u32) {
    let wid = wg.x;
    lane = me;
    live = me < 27u;
    d = select(9u, me / 3u, live);
    b = select(0u, me % 3u, live);
    let warps = params.warps;
    let resident = params.resident == 1u;
    for (var rep = 0u; rep < params.reps || resident; rep++) {
        let tag = rep + 1u;
        var depth = 0u;
        var searching = wid == 0u;
        if searching && resident {
            // Wait for request `tag`, or for the host to say quit (then tell the other warps).
            var quit = 0u;
            if me == 0u {
                loop {
                    if atomicLoad(&link[1]) != 0u { quit = 1u; atomicStore(&ctl[320u], 1u); break; }
                    if atomicLoad(&link[0]) >= tag { break; }
                }
            }
            if subgroupBroadcast(quit, 0u) == 1u { return; }
            w = select(0u, atomicLoad(&link[32u + 2u * me]), live);
            f = select(0u, atomicLoad(&link[33u + 2u * me]), live);
        } else if searching {
            w = select(0u, start[me].x, live);
            f = select(0u, start[me].y, live);
        }
        loop {
            if !searching {
                // Idle: take a board from a warp's outbox (lane i looks at warp wid + i + 32k), or leave when
                // the puzzle is done.
                var finished = 0u;
                if me == 0u {
                    finished = select(0u, 1u, atomicLoad(&ctl[96u]) == tag);
                    finished = select(finished, 2u, atomicLoad(&ctl[320u]) != 0u);
                }
                finished = subgroupBroadcast(finished, 0u);
                if finished == 2u { return; }
                if finished == 1u { break; }
                let victim = (wid + me + 32u * scan) % warps;
                scan += 1u;
                let looks = me < warps;
                var p = 0u;
                var t = 0u;
                if looks {
                    p = atomicLoad(&queue[PUB + victim * 64u]);
                    t = atomicLoad(&queue[TOOK + victim * 64u]);
                }
                let offer = subgroupBallot(looks && p > t).x;
                if offer == 0u {
                    var spin = me + 1u;
                    for (var i = 0u; i < BACKOFF; i++) { spin = spin * 1664525u + 1013904223u; }
                    if spin == 0xdeadbeefu { out[31] = spin; }
                    continue;
                }
                let chosen = firstTrailingBit(offer);
                var won = 0u;
                if me == chosen {
                    won = select(0u, 1u, atomicCompareExchangeWeak(&queue[TOOK + victim * 64u], t, t + 1u).exchanged);
                }
                if subgroupShuffle(won, chosen) == 0u { continue; }
                let owner = subgroupShuffle(victim, chosen);
                let index = subgroupShuffle(t, chosen);
                if me == 0u { atomicSub(&ctl[64u], 1u); }
                let got = owner * RING + index % RING;
                let mark = (index % 31u + 1u) << 27u;
                var a = 0u;
                var c = 0u;
                loop {
                    a = atomicLoad(&queue[got * 64u + 2u * me]);
                    c = atomicLoad(&queue[got * 64u + 2u * me + 1u]);
                    if (a & 0xf8000000u) == mark && (c & 0xf8000000u) == mark { break; }
                }
                w = a & FULL;
                f = c & FULL;
                searching = true;
                depth = 0u;
            }
            // Read now, used at the guess: the loads' latency hides behind the sweeps.
            var seen_idle = 0u;
            var seen_done = 0u;
            var seen_took = 0u;
            if me == 0u {
                seen_idle = atomicLoad(&ctl[64u]);
                seen_done = atomicLoad(&ctl[96u]);
                seen_took = atomicLoad(&queue[TOOK + wid * 64u]);
            }
            var s = settle();
            if s == 0u {
                // Guess: the unfixed row or box of a digit with fewest places.
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
                key = subgroupMin(key);
                let who = (key >> 3u) & 31u;
                let r = key & 3u;
                let unit = select(0x1ffu << (9u * r), BOX0 << (3u * r), (key & 4u) != 0u);
                let cells = w & unit;
                let x0 = cells & (0u - cells);
                let mine = me == who;
                // The other branch: x0 taken out of the chosen digit's unit.
                let bw = select(w, w & ~x0, mine);
                guesses += 1u;
                let stop = subgroupBroadcast(select(0u, 1u, seen_done == tag), 0u);
                // Hand the other branch over when a warp is idle and the outbox has room: stores only.
                let give = subgroupBroadcast(select(0u, 1u, (seen_idle > 0u && published - seen_took < RING)
                    || depth >= DEPTH), 0u) == 1u;
                if give {
                    let slot = wid * RING + published % RING;
                    let mark = (published % 31u + 1u) << 27u;
                    atomicStore(&queue[slot * 64u + 2u * me], bw | mark);
                    atomicStore(&queue[slot * 64u + 2u * me + 1u], f | mark);
                    published += 1u;
                    if me == 0u {
                        atomicStore(&queue[PUB + wid * 64u], published);
                        atomicAdd(&ctl[256u], 1u);
                    }
                } else {
                    stack[depth * 32u + me] = vec2<u32>(bw, f);
                    depth += 1u;
                }
                f = select(f, f | x0, mine);
                // Stop if another warp has finished.
                if stop == 1u { break; }
                continue;
            }
            if s == 1u {
                var claimed = 0u;
                if me == 0u {
                    claimed = select(0u, 1u, atomicMax(&ctl[224u], tag) < tag);
                }
                if subgroupBroadcast(claimed, 0u) == 1u {
                    out[me] = f;
                    if resident {
                        atomicStore(&link[128u + me], f | ((tag % 31u + 1u) << 27u));
                        atomicStore(&answer[me], f | ((tag % 31u + 1u) << 27u));
                    }
                    if me == 0u { atomicStore(&ctl[96u], tag); }
                }
                break;
            }
            // Dead: back to the last branch of our own, else idle.
            if depth > 0u {
                depth -= 1u;
                let top = stack[depth * 32u + me];
                w = top.x;
                f = top.y;
            } else {
                searching = false;
                if me == 0u {
                    atomicAdd(&ctl[64u], 1u);
                }
            }
        }
        // Meet: each warp's outbox emptied, then warp 0 resets the idle count and lets everyone on.
        if me == 0u {
            atomicStore(&queue[TOOK + wid * 64u], published);
            atomicAdd(&ctl[192u], guesses);
            atomicAdd(&ctl[288u], sweeps);
            guesses = 0u;
            sweeps = 0u;
            atomicAdd(&ctl[128u], 1u);
            if wid == 0u {
                while atomicLoad(&ctl[128u]) < warps * tag {}
                atomicStore(&ctl[64u], warps - 1u);
                atomicStore(&ctl[160u], tag);
            } else {
                while atomicLoad(&ctl[160u]) < tag {}
            }
        }
    }
}
