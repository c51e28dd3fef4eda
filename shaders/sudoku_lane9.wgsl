// 9×9 Sudoku, one board per lane: the throughput kernel.
//
// A lane is one invocation that holds a whole board in registers and searches it depth first: singles to a
// fixed point, a guess when stuck (the other branch waits on the lane's own stack in `frames`), back to the
// last waiting branch on a contradiction. Lanes persist: when a search ends the lane takes the next puzzle
// from a shared counter, and a dispatch runs each lane for `budget` passes, then parks its board for the next
// dispatch (so every dispatch is short: browsers kill long ones, lavapipe stops long loops).
//
// The board is the band layout of `src/sudoku/bands.rs`, the Rust model of this file (same functions, same
// order; its tests are this kernel's logic tests): for each digit, the cells where it may still go, as three
// 27-bit band words (rows 3b..3b+2, bit 9·row + column), kept here as one vec3<u32> per digit. Every test is
// a handful of word operations over the nine digits; no loop runs over cells.
//
// Forking: a batch's last puzzles, or a single hard one, would leave most lanes idle. Once fewer puzzles wait
// than there are lanes, `publish` gives busy lanes a quota of branches to give away: a lane hands the branch at
// the foot of its stack (the largest waiting subtree) to a shared pool, and idle lanes take branches from the
// pool before new puzzles. WGSL orders nothing between workgroups inside one dispatch, so branches given away in a
// dispatch are taken only in a later one: `publish`, one invocation between two runs, moves the pool's
// boundaries. `live` counts each puzzle's branches (lanes and pooled frames); the last one to end finishes the
// puzzle.
//
// The run's parameters, the shared counters and `publish` are `sudoku_driver.wgsl`'s, which the host puts in
// front of this file. Layout mirrors `src/gpu/lane9.rs` (Lane9Result). Frames are 8 vec4 (the nine digit
// boards, `solved`, a tag): the lanes' stacks first (`depth` each, a ring), then the pool, then one parking
// frame per lane.

struct Result {
    count: atomic<u32>,          // solutions found (may pass the limit by a few; the host clamps)
    flags: atomic<u32>,          // DONE, OVERFLOW
    live: atomic<u32>,           // branches of this puzzle in lanes or in the pool
    started: u32,                // `lone` (sudoku_lone9.wgsl): 0 not started, 1 searching, 2 finished
    planes: array<vec4<u32>, 3>, // the first solution, as value planes (the host's layout, see bands.rs)
}

const BAND: u32 = 0x7FFFFFFu;  // the 27 bits of a band
const ROW: u32 = 0x1FFu;       // one row of a band
const SPREAD: u32 = 0x40201u;  // copies a 9-bit row into the band's three rows
const BOX: u32 = 0x1C0E07u;    // columns 0-2 of a band's three rows (7 · SPREAD)
const GROUP: u32 = 0x49u;      // bit 0 of each box's columns within a row (columns 0, 3, 6)

@group(0) @binding(1) var<storage, read> puzzles: array<vec4<u32>>;     // 3 per puzzle: its value planes
@group(0) @binding(2) var<storage, read_write> results: array<Result>;
@group(0) @binding(5) var<storage, read_write> frames: array<vec4<u32>>;

// The lane's board: where each digit may go, and the settled cells.
var<private> cand: array<vec3<u32>, 9>;
var<private> solved: vec3<u32>;

fn splat(v: u32) -> vec3<u32> {
    return vec3<u32>(v);
}

fn sum3(v: vec3<u32>) -> u32 {
    return v.x + v.y + v.z;
}

// Per band, the columns (9 bits) where the board has a cell.
fn columns_any(w: vec3<u32>) -> vec3<u32> {
    return (w | (w >> splat(9u)) | (w >> splat(18u))) & splat(ROW);
}

// Per band, the columns where the board has two or three cells.
fn columns_two(w: vec3<u32>) -> vec3<u32> {
    let a = w & splat(ROW);
    let b = (w >> splat(9u)) & splat(ROW);
    let c = w >> splat(18u);
    return (a & b) | (a & c) | (b & c);
}

struct Singles {
    cells: vec3<u32>,
    empty: bool,
}

// The hidden singles of one digit's board `x`, and whether some unit has no place left for the digit.
fn hidden_singles(x: vec3<u32>) -> Singles {
    var single = splat(0u);
    var empty = false;
    // Rows: a 9-bit field with one bit is the only place in its row.
    for (var k = 0u; k < 27u; k += 9u) {
        let f = (x >> splat(k)) & splat(ROW);
        empty = empty | any(f == splat(0u));
        single |= select(splat(0u), f << splat(k), (f & (f - splat(1u))) == splat(0u));
    }
    // Columns: each column's cells counted to two over the three bands.
    let a = columns_any(x);
    let t = columns_two(x);
    let all = a.x | a.y | a.z;
    let many = t.x | t.y | t.z | (a.x & a.y) | (a.x & a.z) | (a.y & a.z);
    empty = empty | (all != ROW);
    let lone_columns = splat((all & ~many) * SPREAD);
    // Boxes: a box's three columns of the band's column summary, counted to two.
    let p = a & splat(GROUP);
    let q = (a >> splat(1u)) & splat(GROUP);
    let r = (a >> splat(2u)) & splat(GROUP);
    let doubled = (t | (t >> splat(1u)) | (t >> splat(2u))) & splat(GROUP);
    let some = p | q | r;
    let more = (p & q) | (p & r) | (q & r) | doubled;
    empty = empty | any(some != splat(GROUP));
    // A group bit at 3g times BOX lights box g's nine cells.
    single |= x & (lone_columns | ((some & ~more) * BOX));
    return Singles(single, empty);
}

struct Cover {
    cells: vec3<u32>,
    clash: bool,
}

// The cells that see some cell of `m` (its rows, columns and boxes), and whether two cells of `m` share a unit.
fn cover(m: vec3<u32>) -> Cover {
    let a = columns_any(m);
    let columns = a.x | a.y | a.z;
    var lines = splat(0u);
    var rows = splat(0u);
    for (var k = 0u; k < 27u; k += 9u) {
        let hit = ((m >> splat(k)) & splat(ROW)) != splat(0u);
        lines |= select(splat(0u), splat(ROW << k), hit);
        rows += select(splat(0u), splat(1u), hit);
    }
    let groups = (a | (a >> splat(1u)) | (a >> splat(2u))) & splat(GROUP);
    // n cells in n distinct rows, columns and boxes each, or two of them share a unit.
    let n = sum3(countOneBits(m));
    let clash = (n != sum3(rows)) | (n != countOneBits(columns)) | (n != sum3(countOneBits(groups)));
    return Cover(lines | splat(columns * SPREAD) | (groups * BOX), clash);
}

// After a pass placed `taken` digit by digit, each placed cell leaves the boards of the digits before its own.
fn drop_taken_from_earlier(taken: vec3<u32>) {
    var later = splat(0u);
    for (var e = 0u; e < 9u; e++) {
        let d = 8u - e;
        cand[d] &= ~later;
        later |= cand[d] & taken;
    }
}

// One pass of naked and hidden singles (src/sudoku/bands.rs, `Bands::propagate`).
fn propagate() -> u32 {
    var one = splat(0u);
    var two = splat(0u);
    for (var d = 0u; d < 9u; d++) {
        two |= one & cand[d];
        one |= cand[d];
    }
    if any(one != splat(BAND)) {
        return DEAD;
    }
    if all(solved == splat(BAND)) {
        return SOLVED;
    }
    let naked = splat(BAND) & ~two & ~solved;
    var taken = splat(0u);
    var dead = false;
    for (var d = 0u; d < 9u; d++) {
        var x = cand[d] & ~taken;
        let s = hidden_singles(x);
        dead = dead | s.empty;
        let m = (s.cells | (naked & x)) & ~solved;
        if any(m != splat(0u)) {
            let c = cover(m);
            dead = dead | c.clash;
            x = (x & ~c.cells) | m;
            taken |= m;
            solved |= m;
        }
        cand[d] = x;
    }
    drop_taken_from_earlier(taken);
    if dead {
        return DEAD;
    }
    if all(taken == splat(0u)) {
        return STUCK;
    }
    return PROGRESS;
}

// Frame `at` of `frames` from the lane's board, with a tag (a pooled frame's puzzle).
fn store_frame(at: u32, tag: u32) {
    let i = at * 8u;
    frames[i] = vec4<u32>(cand[0], cand[1].x);
    frames[i + 1u] = vec4<u32>(cand[1].yz, cand[2].xy);
    frames[i + 2u] = vec4<u32>(cand[2].z, cand[3]);
    frames[i + 3u] = vec4<u32>(cand[4], cand[5].x);
    frames[i + 4u] = vec4<u32>(cand[5].yz, cand[6].xy);
    frames[i + 5u] = vec4<u32>(cand[6].z, cand[7]);
    frames[i + 6u] = vec4<u32>(cand[8], solved.x);
    frames[i + 7u] = vec4<u32>(solved.yz, tag, 0u);
}

// The lane's board from frame `at`; returns the frame's tag.
fn load_frame(at: u32) -> u32 {
    let i = at * 8u;
    let a = frames[i];
    let b = frames[i + 1u];
    let c = frames[i + 2u];
    let d = frames[i + 3u];
    let e = frames[i + 4u];
    let f = frames[i + 5u];
    let g = frames[i + 6u];
    let h = frames[i + 7u];
    cand[0] = a.xyz;
    cand[1] = vec3<u32>(a.w, b.xy);
    cand[2] = vec3<u32>(b.zw, c.x);
    cand[3] = c.yzw;
    cand[4] = d.xyz;
    cand[5] = vec3<u32>(d.w, e.xy);
    cand[6] = vec3<u32>(e.zw, f.x);
    cand[7] = f.yzw;
    cand[8] = g.xyz;
    solved = vec3<u32>(g.w, h.xy);
    return h.z;
}

// Each cell's count of candidates, in four bit-planes (bit k of the count): a ripple-carry add of the digits'
// boards.
fn count_candidates() -> array<vec3<u32>, 4> {
    var c0 = splat(0u);
    var c1 = splat(0u);
    var c2 = splat(0u);
    var c3 = splat(0u);
    for (var d = 0u; d < 9u; d++) {
        var carry = cand[d];
        var next = c0 & carry;
        c0 ^= carry;
        carry = next;
        next = c1 & carry;
        c1 ^= carry;
        carry = next;
        next = c2 & carry;
        c2 ^= carry;
        carry = next;
        c3 ^= carry;
    }
    return array<vec3<u32>, 4>(c0, c1, c2, c3);
}

// The cells whose count of candidates (`count_candidates`) is `n`.
fn with_count(c: array<vec3<u32>, 4>, n: u32) -> vec3<u32> {
    return select(~c[0], c[0], (n & 1u) != 0u) & select(~c[1], c[1], (n & 2u) != 0u)
        & select(~c[2], c[2], (n & 4u) != 0u) & select(~c[3], c[3], (n & 8u) != 0u);
}

// The lowest digit that may still go in the cells of `cell` (one cell: its lowest candidate).
fn lowest_digit(cell: vec3<u32>) -> u32 {
    var digit = 0u;
    for (var e = 0u; e < 9u; e++) {
        let d = 8u - e;
        digit = select(digit, d, any((cand[d] & cell) != splat(0u)));
    }
    return digit;
}

// On a stuck board: the unsolved cell with the fewest candidates, among those the one that sees the most
// unsolved cells (its row, column and box; the lowest on ties), keeps its lowest digit here; the other branch,
// the board without that digit there, goes to frame `at` (`Bands::guess`). Settling a cell that sees many open
// cells takes its digit from the most of them (on the forum's hardest, a third fewer passes in the model).
fn guess(at: u32) {
    let counts = count_candidates();
    let open = splat(BAND) & ~solved;
    var fewest = splat(0u);
    for (var n = 2u; n <= 9u; n++) {
        fewest = open & with_count(counts, n);
        if any(fewest != splat(0u)) {
            break;
        }
    }
    var cell = splat(0u);
    var most = 0u;
    for (var b = 0u; b < 3u; b++) {
        var w = fewest[b];
        while w != 0u {
            let p = countTrailingZeros(w);
            w &= w - 1u;
            // Bit p is row p / 9 of the band, column p % 9: its row, its column in every band, its box.
            let column = p % 9u;
            var peers = splat((1u << column) * SPREAD);
            peers[b] |= (ROW << (p - column)) | (BOX << (column - column % 3u));
            let seen = sum3(countOneBits(open & peers));
            if seen > most {
                most = seen;
                cell = splat(0u);
                cell[b] = 1u << p;
            }
        }
    }
    let digit = lowest_digit(cell);
    for (var d = 0u; d < 9u; d++) {
        cand[d] = select(cand[d], cand[d] & ~cell, d == digit);
    }
    store_frame(at, 0u);
    for (var d = 0u; d < 9u; d++) {
        cand[d] = select(cand[d] & ~cell, cand[d] | cell, d == digit);
    }
}

// The board of puzzle `i` with its givens placed (`Bands::from_planes`); givens that clash leave a board with
// no candidate at all, which the first pass finds dead (the host never sends such a puzzle).
fn start(i: u32) {
    let a = puzzles[3u * i];
    let b = puzzles[3u * i + 1u];
    let c = puzzles[3u * i + 2u];
    let q0 = a.xyz;
    let q1 = vec3<u32>(a.w, b.xy);
    let q2 = vec3<u32>(b.zw, c.x);
    let q3 = c.yzw;
    var taken = splat(0u);
    var clash = false;
    for (var d = 0u; d < 9u; d++) {
        // The cells whose value is d + 1: each plane as is where the value has that bit, else inverted.
        let v = d + 1u;
        let m = splat(BAND) & select(~q0, q0, (v & 1u) != 0u) & select(~q1, q1, (v & 2u) != 0u)
            & select(~q2, q2, (v & 4u) != 0u) & select(~q3, q3, (v & 8u) != 0u);
        let seen = cover(m);
        clash = clash | seen.clash;
        cand[d] = (splat(BAND) & ~taken & ~seen.cells) | m;
        taken |= m;
    }
    drop_taken_from_earlier(taken);
    solved = taken;
    if clash {
        for (var d = 0u; d < 9u; d++) {
            cand[d] = splat(0u);
        }
    }
}

// Puzzle `i`'s first solution, as value planes.
fn write_solution(i: u32) {
    var q0 = splat(0u);
    var q1 = splat(0u);
    var q2 = splat(0u);
    var q3 = splat(0u);
    for (var d = 0u; d < 9u; d++) {
        let v = d + 1u;
        q0 |= select(splat(0u), cand[d], (v & 1u) != 0u);
        q1 |= select(splat(0u), cand[d], (v & 2u) != 0u);
        q2 |= select(splat(0u), cand[d], (v & 4u) != 0u);
        q3 |= select(splat(0u), cand[d], (v & 8u) != 0u);
    }
    results[i].planes[0] = vec4<u32>(q0, q1.x);
    results[i].planes[1] = vec4<u32>(q1.yz, q2.xy);
    results[i].planes[2] = vec4<u32>(q2.z, q3);
}

// Counts a solution of puzzle `i` on the lane's board, keeping the first; true once the count reaches the limit,
// the puzzle then marked DONE.
fn count_solution(i: u32) -> bool {
    let found = atomicAdd(&results[i].count, 1u);
    if found == 0u {
        write_solution(i);
    }
    if found + 1u >= params.limit {
        atomicOr(&results[i].flags, DONE);
        return true;
    }
    return false;
}

// Ends one branch of puzzle `i`; the last one finishes the puzzle.
fn end_branch(i: u32) {
    if atomicSub(&results[i].live, 1u) == 1u {
        atomicAdd(&control.finished, 1u);
    }
}

fn pool_frame(n: u32) -> u32 {
    return params.lanes * params.depth + (n & (params.pool - 1u));
}

// Gives the stack frame `source` (a branch of puzzle `i`) to the pool, if the pool has room.
fn donate(source: u32, i: u32) -> bool {
    if atomicLoad(&control.pool_claim) >= control.write_limit {
        return false;
    }
    let n = atomicAdd(&control.pool_claim, 1u);
    if n >= control.write_limit {
        return false;
    }
    let to = pool_frame(n) * 8u;
    for (var k = 0u; k < 7u; k++) {
        frames[to + k] = frames[source * 8u + k];
    }
    let last = frames[source * 8u + 7u];
    frames[to + 7u] = vec4<u32>(last.xy, i, 0u);
    atomicAdd(&results[i].live, 1u);
    atomicAdd(&control.donated, 1u);
    return true;
}

// Set by `take_work`: the branch taken is one of several of its puzzle.
var<private> took_forked: u32;

// New work for an idle lane, loaded as its board: a pooled branch first (its puzzle is under way), else the
// next puzzle. Returns the puzzle + 1, or 0 when there is none.
fn take_work() -> u32 {
    if atomicLoad(&control.pool_head) < control.pool_tail {
        let n = atomicAdd(&control.pool_head, 1u);
        if n < control.pool_tail {
            took_forked = 1u;
            return load_frame(pool_frame(n)) + 1u;
        }
    }
    if atomicLoad(&control.next_puzzle) < params.puzzles {
        let i = atomicAdd(&control.next_puzzle, 1u);
        if i < params.puzzles {
            atomicStore(&results[i].live, 1u);
            start(i);
            took_forked = 0u;
            return i + 1u;
        }
    }
    return 0u;
}

@compute @workgroup_size(64)
fn run(@builtin(global_invocation_id) gid: vec3<u32>) {
    let lane = gid.x;
    if lane >= params.lanes {
        return;
    }
    let parked = lanes[lane];
    var held = parked.x;
    var depth = parked.y;
    var bottom = parked.z;
    var forked = parked.w;
    let stack = lane * params.depth;
    let ring = params.depth - 1u;
    let park = params.lanes * params.depth + params.pool + lane;
    if held != 0u {
        _ = load_frame(park);
    }
    var quota = control.quota;
    var guesses = 0u;
    for (var step = 0u; step < params.budget; step++) {
        if held == 0u {
            held = take_work();
            if held == 0u {
                break;
            }
            depth = 0u;
            bottom = 0u;
            forked = took_forked;
        }
        let i = held - 1u;
        // Another branch may have finished this puzzle (or sent it to the CPU): then this one stops.
        if forked != 0u && atomicLoad(&results[i].flags) != 0u {
            end_branch(i);
            held = 0u;
            continue;
        }
        // Lanes are idling: the branch at the foot of the stack goes to them.
        if quota != 0u && depth != bottom {
            if donate(stack + (bottom & ring), i) {
                bottom++;
                quota--;
                forked = 1u;
            } else {
                quota = 0u;
            }
        }
        let status = propagate();
        if status == PROGRESS {
            continue;
        }
        if status == STUCK {
            if depth - bottom == params.depth {
                // A full stack: its foot goes to the pool, or the puzzle to the CPU (never lost).
                if donate(stack + (bottom & ring), i) {
                    bottom++;
                    forked = 1u;
                } else {
                    atomicOr(&results[i].flags, OVERFLOW);
                    end_branch(i);
                    held = 0u;
                    continue;
                }
            }
            guess(stack + (depth & ring));
            depth++;
            guesses++;
            continue;
        }
        if status == SOLVED && count_solution(i) {
            end_branch(i);
            held = 0u;
            continue;
        }
        // Dead, or solved with more to count: back to the last branch waiting.
        if depth != bottom {
            depth--;
            _ = load_frame(stack + (depth & ring));
        } else {
            end_branch(i);
            held = 0u;
        }
    }
    lanes[lane] = vec4<u32>(held, depth, bottom, forked);
    if held != 0u {
        store_frame(park, 0u);
        atomicAdd(&control.busy, 1u);
    }
    if guesses != 0u {
        atomicAdd(&control.guesses, guesses);
    }
}
