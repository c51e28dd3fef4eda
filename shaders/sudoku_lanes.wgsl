// Sudoku of every shape but 9×9 (4×4 to 25×25, rectangular boxes too), one board per lane.
//
// The 9×9 kernel (`sudoku_lane9.wgsl`) holds a board in 30 registers; a 25×25 board has 625 cells and cannot.
// Here a lane keeps a value per cell and, per unit (row, column, box), the digits already placed in it; a
// cell's candidates are the digits none of its three units holds, worked out where they are needed instead of
// kept. So placing a digit costs three ORs, and a board is saved as its packed values and its 3N unit masks
// (235 words for 25×25). The lane searches depth first: a pass of naked singles (placed as they are found),
// then, when none is left, a pass of hidden singles; a guess on the open cell with the fewest candidates when
// stuck. A guess saves the board on the lane's stack with the guessed cell and its untried digits, and going
// back takes the next untried digit from the top frame (the frame stays while digits remain).
//
// Everything else is the 9×9 kernel's (read its header): persistent lanes pulling puzzles from a counter, runs
// of `budget` passes with the board parked between them, the foot of a busy lane's stack given to a shared
// pool once lanes idle, `publish` moving the pool's boundaries between runs, `live` counting each puzzle's
// branches. Two things more: a puzzle counts its guesses, and one that passes `max_guesses` goes to the host,
// as the CPU engine would give up on it; and a full stack that the pool cannot take drops its foot (below, at
// `PRUNED`), so a deep search goes on and is sent to the host only if it then falls short of its count.
//
// The run's parameters, the shared counters, a result's words and `publish` are `sudoku_driver.wgsl`'s, which
// the host puts in front of this file. Layout mirrors `src/gpu/lane_cells.rs`. A frame is
// `frame_words` words: the values packed four to a word (one byte each, 0 for an empty cell), the unit masks
// (rows, columns, boxes), the open cells (a bit each), the guessed cell, its untried digits, a tag (a pooled
// frame's puzzle). A result is
// `result_words` words: count, flags, live, guesses, then the first solution packed like the values.

@group(0) @binding(1) var<storage, read> puzzles: array<u32>;            // packed values, `value_words()` each
@group(0) @binding(2) var<storage, read_write> results: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> frames: array<u32>;

// The lane's board, kept small enough that the hot part (open cells and unit masks, 95 words for 25×25) stays
// in the core's cache: private arrays indexed at run time live in per-lane memory, and a pass that misses
// the cache waits on memory at every cell.
var<private> values: array<u32, 157>;    // values 1..N, four to a word, 0 for an empty cell: 25 × 25 / 4, rounded up
var<private> open_cells: array<u32, 20>; // bit i of the whole array: cell i (row-major) is empty
var<private> used: array<u32, 75>;       // digits placed per unit (bit d − 1): rows, then columns, then boxes
// Hidden singles' tallies of the columns (0..N) and boxes (N..2N): digits open in at least one, two cells.
var<private> once: array<u32, 50>;
var<private> twice: array<u32, 50>;
// Set by a pass that finds the board stuck: the open cell with the fewest candidates, and those candidates.
var<private> pick_cell: u32;
var<private> pick_open: u32;
// Digits placed since the lane started (wraps; only differences are read).
var<private> placements: u32;
// ⌈2^16 / x⌉ for x = N, R and C (set by `run`): for the x ≤ 25 and the i < 625 met here, (i · m) >> 16 is
// i / x exactly (the rounding adds less than 625 / 2^16 to a quotient whose fraction is at most 24/25), and
// a multiply is far cheaper than a division.
var<private> by_side: u32;
var<private> by_box_rows: u32;
var<private> by_box_cols: u32;

fn all_digits() -> u32 {
    return (1u << params.side) - 1u;
}

fn value_words() -> u32 {
    return (params.side * params.side + 3u) / 4u;
}

fn open_words() -> u32 {
    return (params.side * params.side + 31u) / 32u;
}

// The frame word holding the guessed cell; its untried digits and the tag follow.
fn guess_word() -> u32 {
    return value_words() + 3u * params.side + open_words();
}

struct Units {
    row: u32,
    column: u32,
    box: u32,
}

fn units_of(i: u32) -> Units {
    let r = (i * by_side) >> 16u;
    let c = i - r * params.side;
    let b = ((r * by_box_rows) >> 16u) * (params.side / params.box_cols) + ((c * by_box_cols) >> 16u);
    return Units(r, c, b);
}

// The digits a cell in these units may still take.
fn open_in(u: Units) -> u32 {
    let n = params.side;
    return all_digits() & ~(used[u.row] | used[n + u.column] | used[2u * n + u.box]);
}

fn is_open(i: u32) -> bool {
    return (open_cells[i >> 5u] & (1u << (i & 31u))) != 0u;
}

fn place(i: u32, u: Units, bit: u32) {
    let n = params.side;
    open_cells[i >> 5u] &= ~(1u << (i & 31u));
    values[i >> 2u] |= (firstTrailingBit(bit) + 1u) << (8u * (i & 3u));
    used[u.row] |= bit;
    used[n + u.column] |= bit;
    used[2u * n + u.box] |= bit;
    placements++;
}

// Naked singles, placed as they are found (the cells after them see them at once). Also notes the open cell
// with the fewest candidates, for a guess if nothing else moves. Only open cells are visited, a word of the
// open set at a time.
fn naked_singles() -> u32 {
    var placed = false;
    var any_open = false;
    var fewest = 33u;
    for (var w = 0u; w < open_words(); w++) {
        var bits = open_cells[w];
        any_open = any_open || bits != 0u;
        while bits != 0u {
            let i = 32u * w + firstTrailingBit(bits);
            bits &= bits - 1u;
            let u = units_of(i);
            let m = open_in(u);
            if m == 0u {
                return DEAD;
            }
            if (m & (m - 1u)) == 0u {
                place(i, u, m);
                placed = true;
            } else {
                let count = countOneBits(m);
                if count < fewest {
                    fewest = count;
                    pick_cell = i;
                    pick_open = m;
                }
            }
        }
    }
    if placed {
        return PROGRESS;
    }
    if !any_open {
        return SOLVED;
    }
    return STUCK;
}

// Places `bit` in the one open cell of a line (row or column: N cells from `first`, `stride` apart) that may
// take it; false when none may (a placement of this pass took the cell).
fn settle_in_line(first: u32, stride: u32, bit: u32) -> bool {
    for (var k = 0u; k < params.side; k++) {
        let i = first + k * stride;
        let u = units_of(i);
        if is_open(i) && (open_in(u) & bit) != 0u {
            place(i, u, bit);
            return true;
        }
    }
    return false;
}

fn settle_in_box(b: u32, bit: u32) -> bool {
    let n = params.side;
    let across = n / params.box_cols;
    let top = (b / across) * params.box_rows;
    let left = (b % across) * params.box_cols;
    for (var dr = 0u; dr < params.box_rows; dr++) {
        for (var dc = 0u; dc < params.box_cols; dc++) {
            let i = (top + dr) * n + left + dc;
            let u = Units(top + dr, left + dc, b);
            if is_open(i) && (open_in(u) & bit) != 0u {
                place(i, u, bit);
                return true;
            }
        }
    }
    return false;
}

// A row's hidden singles, once all its open cells are tallied; false when the row is dead.
fn finish_row(r: u32, row_once: u32, row_twice: u32) -> bool {
    if (row_once | used[r]) != all_digits() {
        return false;
    }
    var lone = row_once & ~row_twice;
    while lone != 0u {
        let bit = lone & (~lone + 1u);
        lone ^= bit;
        if !settle_in_line(r * params.side, 1u, bit) {
            return false;
        }
    }
    return true;
}

// Hidden singles: a digit open in one cell of a unit goes there; a digit neither placed in a unit nor open in
// any of its cells leaves the board dead. One sweep over the open cells tallies every unit (a row with no open
// cell holds every digit). A row's singles are placed as soon as the row is tallied, so the tallies of columns
// and boxes are of candidates at the time each cell was seen: supersets of the candidates left. That keeps
// both conclusions sound: a digit seen in at most one cell of a unit is open in at most one now (and is placed
// only where it still is), and a digit seen nowhere is open nowhere. A unit whose digit has no cell left (this
// pass gave the cell to another digit) is dead.
fn hidden_singles() -> u32 {
    let n = params.side;
    let every = all_digits();
    for (var j = 0u; j < 2u * n; j++) {
        once[j] = 0u;
        twice[j] = 0u;
    }
    let before = placements;
    var row = n;
    var row_once = 0u;
    var row_twice = 0u;
    for (var w = 0u; w < open_words(); w++) {
        var bits = open_cells[w];
        while bits != 0u {
            let i = 32u * w + firstTrailingBit(bits);
            bits &= bits - 1u;
            let u = units_of(i);
            if u.row != row {
                if row != n && !finish_row(row, row_once, row_twice) {
                    return DEAD;
                }
                row = u.row;
                row_once = 0u;
                row_twice = 0u;
            }
            // (Candidates as they are now: the rows finished before this one may have placed digits.)
            let m = open_in(u);
            row_twice |= row_once & m;
            row_once |= m;
            twice[u.column] |= once[u.column] & m;
            once[u.column] |= m;
            twice[n + u.box] |= once[n + u.box] & m;
            once[n + u.box] |= m;
        }
    }
    if row != n && !finish_row(row, row_once, row_twice) {
        return DEAD;
    }
    for (var j = 0u; j < 2u * n; j++) {
        let unit = used[n + j];
        if (once[j] | unit) != every {
            return DEAD;
        }
        var lone = once[j] & ~twice[j] & ~unit;
        while lone != 0u {
            let bit = lone & (~lone + 1u);
            lone ^= bit;
            var settled: bool;
            if j < n {
                settled = settle_in_line(j, params.side, bit);
            } else {
                settled = settle_in_box(j - n, bit);
            }
            if !settled {
                return DEAD;
            }
        }
    }
    if placements != before {
        return PROGRESS;
    }
    return STUCK;
}

// One pass: naked singles, and hidden singles once no naked one is left.
fn propagate() -> u32 {
    let status = naked_singles();
    if status != STUCK {
        return status;
    }
    return hidden_singles();
}

// Frame `at` from the lane's board, with a guessed cell, its untried digits and a tag.
fn store_frame(at: u32, guessed: u32, untried: u32, tag: u32) {
    var to = at * params.frame_words;
    for (var w = 0u; w < value_words(); w++) {
        frames[to + w] = values[w];
    }
    to += value_words();
    for (var u = 0u; u < 3u * params.side; u++) {
        frames[to + u] = used[u];
    }
    to += 3u * params.side;
    for (var w = 0u; w < open_words(); w++) {
        frames[to + w] = open_cells[w];
    }
    to += open_words();
    frames[to] = guessed;
    frames[to + 1u] = untried;
    frames[to + 2u] = tag;
}

// The lane's board from frame `at`.
fn load_frame(at: u32) {
    var from_word = at * params.frame_words;
    for (var w = 0u; w < value_words(); w++) {
        values[w] = frames[from_word + w];
    }
    from_word += value_words();
    for (var u = 0u; u < 3u * params.side; u++) {
        used[u] = frames[from_word + u];
    }
    from_word += 3u * params.side;
    for (var w = 0u; w < open_words(); w++) {
        open_cells[w] = frames[from_word + w];
    }
}

// On a stuck board: the picked cell takes its lowest candidate; the board before it, with the others untried,
// goes to frame `at`.
fn guess(at: u32) {
    let bit = pick_open & (~pick_open + 1u);
    store_frame(at, pick_cell, pick_open ^ bit, 0u);
    place(pick_cell, units_of(pick_cell), bit);
}

// Back to frame `at`: its board, with its guessed cell given the next untried digit. Returns whether that was
// the last one (the frame is then used up); otherwise the frame keeps the digits still untried.
fn resume(at: u32) -> bool {
    load_frame(at);
    let g = at * params.frame_words + guess_word();
    let guessed = frames[g];
    let untried = frames[g + 1u];
    let bit = untried & (~untried + 1u);
    let left = untried ^ bit;
    if left != 0u {
        frames[g + 1u] = left;
    }
    place(guessed, units_of(guessed), bit);
    return left == 0u;
}

// The board of puzzle `i`: its givens placed. Givens that clash leave a board whose first cell is open with no
// digit left, which the first pass finds dead (the host never sends such a puzzle).
fn start(i: u32) {
    let n = params.side;
    let cells = n * n;
    for (var u = 0u; u < 3u * n; u++) {
        used[u] = 0u;
    }
    for (var w = 0u; w < open_words(); w++) {
        open_cells[w] = 0u;
    }
    let base = i * value_words();
    var clash = false;
    for (var w = 0u; w < value_words(); w++) {
        let packed = puzzles[base + w];
        values[w] = 0u;
        for (var k = 0u; k < 4u; k++) {
            let at = 4u * w + k;
            let v = (packed >> (8u * k)) & 0xFFu;
            if at < cells {
                if v == 0u {
                    open_cells[at >> 5u] |= 1u << (at & 31u);
                } else {
                    let bit = 1u << (v - 1u);
                    let u = units_of(at);
                    clash = clash || (bit & ~open_in(u)) != 0u;
                    place(at, u, bit);
                }
            }
        }
    }
    if clash {
        open_cells[0] |= 1u;
        used[0] = all_digits();
    }
}

// Puzzle `i`'s first solution, packed like its values.
fn write_solution(i: u32) {
    let base = i * params.result_words + SOLUTION;
    for (var w = 0u; w < value_words(); w++) {
        atomicStore(&results[base + w], values[w]);
    }
}

fn result_word(i: u32, word: u32) -> u32 {
    return i * params.result_words + word;
}

// Ends one branch of puzzle `i`; the last one finishes the puzzle. A puzzle that dropped a branch and did not
// reach its count is not answered: it goes to the host.
fn end_branch(i: u32) {
    if atomicSub(&results[result_word(i, LIVE)], 1u) == 1u {
        if (atomicLoad(&results[result_word(i, FLAGS)]) & (PRUNED | DONE)) == PRUNED {
            atomicOr(&results[result_word(i, FLAGS)], OVERFLOW);
        }
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
    let target_base = pool_frame(n) * params.frame_words;
    let source_base = source * params.frame_words;
    let tag = guess_word() + 2u;
    for (var w = 0u; w < tag; w++) {
        frames[target_base + w] = frames[source_base + w];
    }
    frames[target_base + tag] = i;
    atomicAdd(&results[result_word(i, LIVE)], 1u);
    atomicAdd(&control.donated, 1u);
    return true;
}

// Set by `take_work`: the branch taken is one of several of its puzzle.
var<private> took_forked: u32;

// New work for an idle lane: a pooled branch first (its puzzle is under way), copied to the foot of the lane's
// stack (`stack`) for the caller to resume; else the next puzzle, started on the lane's board. Returns the
// puzzle + 1, or 0 when there is none.
fn take_work(stack: u32) -> u32 {
    if atomicLoad(&control.pool_head) < control.pool_tail {
        let n = atomicAdd(&control.pool_head, 1u);
        if n < control.pool_tail {
            let source_base = pool_frame(n) * params.frame_words;
            let target_base = stack * params.frame_words;
            let tag = guess_word() + 2u;
            for (var w = 0u; w < tag; w++) {
                frames[target_base + w] = frames[source_base + w];
            }
            took_forked = 1u;
            return frames[source_base + tag] + 1u;
        }
    }
    if atomicLoad(&control.next_puzzle) < params.puzzles {
        let i = atomicAdd(&control.next_puzzle, 1u);
        if i < params.puzzles {
            atomicStore(&results[result_word(i, LIVE)], 1u);
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
    by_side = (65535u + params.side) / params.side;
    by_box_rows = (65535u + params.box_rows) / params.box_rows;
    by_box_cols = (65535u + params.box_cols) / params.box_cols;
    if held != 0u {
        load_frame(park);
    }
    var quota = control.quota;
    var guesses = 0u;
    for (var step = 0u; step < params.budget; step++) {
        if held == 0u {
            held = take_work(stack);
            if held == 0u {
                break;
            }
            depth = 0u;
            bottom = 0u;
            forked = took_forked;
            if forked != 0u && !resume(stack) {
                depth = 1u;
            }
        }
        let i = held - 1u;
        // Another branch may have finished this puzzle (or sent it to the host): then this one stops.
        if forked != 0u && (atomicLoad(&results[result_word(i, FLAGS)]) & (DONE | OVERFLOW)) != 0u {
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
            // Past the guess budget the host takes the puzzle over (and gives up on it as the CPU would).
            if atomicAdd(&results[result_word(i, GUESSES)], 1u) >= params.max_guesses {
                atomicOr(&results[result_word(i, FLAGS)], OVERFLOW);
                end_branch(i);
                held = 0u;
                continue;
            }
            if depth - bottom == params.depth {
                // A full stack: its foot goes to the pool, or is dropped. A large grid's first descent can be
                // far deeper than a stack (an empty 25×25 grid's is); it often ends in the solutions wanted,
                // and then nothing dropped mattered. Otherwise `end_branch` sends the puzzle to the host.
                if donate(stack + (bottom & ring), i) {
                    forked = 1u;
                } else {
                    atomicOr(&results[result_word(i, FLAGS)], PRUNED);
                }
                bottom++;
            }
            guess(stack + (depth & ring));
            depth++;
            guesses++;
            continue;
        }
        if status == SOLVED {
            let found = atomicAdd(&results[result_word(i, COUNT)], 1u);
            if found == 0u {
                write_solution(i);
            }
            if found + 1u >= params.limit {
                atomicOr(&results[result_word(i, FLAGS)], DONE);
                end_branch(i);
                held = 0u;
                continue;
            }
        }
        // Dead, or solved with more to count: back to the last branch waiting.
        if depth != bottom {
            if resume(stack + ((depth - 1u) & ring)) {
                depth--;
            }
        } else {
            end_branch(i);
            held = 0u;
        }
    }
    lanes[lane] = vec4<u32>(held, depth, bottom, forked);
    if held != 0u {
        store_frame(park, 0u, 0u, 0u);
        atomicAdd(&control.busy, 1u);
    }
    if guesses != 0u {
        atomicAdd(&control.guesses, guesses);
    }
}
