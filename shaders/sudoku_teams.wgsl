// Sudoku of every shape but 9×9, one board per workgroup (a team of TEAM invocations).
//
// The lane kernel of cells (`sudoku_lanes.wgsl`) gives each board one invocation. That fills a GPU only with tens
// of thousands of boards; a batch of a thousand 25×25 puzzles leaves most of the chip idle and lasts as long as
// its slowest board's search on one invocation (17 ms on an H100). Here a team shares each pass of one board:
// every invocation looks at a slice of the cells (naked singles), of the units (hidden singles) and of the
// segments where a line meets a box (locked candidates), and the team applies what they found together. A
// board is searched as the lane kernel searches it — the same stack of saved boards, pool of branches for idle
// teams, guess budget and dropped stack feet, digits tried lowest first — only each pass is spread over the
// team and also finds locked candidates, which the lane kernel does not, and the guess breaks ties between the
// cells of fewest candidates by taking the one whose units have the most open cells (together, on the puzzles
// `forkboard generate` makes, about a tenth of the passes of singles alone, a sixteenth on 16×16 counted to 2).
// The host's driver (`src/gpu/lanes.rs`) runs it unchanged, a team standing for a lane.
//
// An open cell's word keeps its candidates from pass to pass, so that a digit banned once stays off while the
// board only gains digits. Frames keep only the values: a board loaded from one starts with every digit open in
// each open cell, and the passes find its bans again.
//
// One pass, in four steps with a barrier after each:
// 1. Candidates. Each invocation takes its units' placed digits off the candidates of a slice of the open cells,
//    noting naked singles, dead cells, open cells and the open cell with fewest candidates; and it ORs each
//    cell's candidates into its three units' tallies (`once`, and `twice` for the digits the OR's old value
//    already had), so that no invocation walks a unit's cells one after another, and into its two segments'.
// 2. Hidden singles and locked candidates. Each invocation turns a slice of the units' tallies into the digits
//    one cell of the unit may take (`lone`), and clears the tallies; a digit that no cell may take, in a unit
//    that lacks it, is a dead end. And it compares a slice of the segments with their line's and their box's
//    other segments, banning a locked digit from the segments it must leave. Steps 1 and 2 only read the board
//    as it stood, so no invocation sees another's half-done work.
// 3. Ban and place. Each open cell loses its segments' banned digits; then, if it is a naked single or may take
//    one of its units' lone digits, it takes it, and ORs it into its three units' masks (`used`, atomics).
//    Everything found in steps 1 and 2 follows from the same board, so findings that disagree — a cell banned
//    of every digit or given two, a unit given one digit twice (the OR's old value already has it) — mean it
//    was dead.
// 4. Judge. Invocation 0 turns the flags into the pass's verdict, which the team reads with
//    `workgroupUniformLoad` (its value is uniform, so the team's control flow stays uniform, as barriers need).
//
// Steps 1 and 3 take the cells in diagonal order (slot s is row s mod N, column (s div N + s mod N) mod N), so
// that the 32 invocations of a warp hold cells of different rows and columns, and their atomics on one unit's
// tally seldom wait on each other.
//
// Control (claiming work, the pool, results' atomics) is done by invocation 0 alone and broadcast the same way.
// Frames in storage memory are copied by every invocation over one partition of their words (word j by
// invocation j mod TEAM), so each word is written and later read by the same invocation within a run; the three
// words after the board (guessed cell, untried digits, tag) belong to invocation 0. Between runs, and from one
// team to another through the pool, the end of a dispatch makes the writes visible, as in the lane kernels.
//
// The run's parameters, the shared counters, a result's words and `publish` are `sudoku_driver.wgsl`'s, which
// the host puts in front of this file. Layout mirrors `src/gpu/team_cells.rs`. A frame is the
// values packed four to a word (a byte each, 0 for an empty cell), the 3N unit masks, then the guessed cell, its
// untried digits and a tag (a pooled frame's puzzle). A result is count, flags, live, guesses, then the first
// solution packed like the values.

@group(0) @binding(1) var<storage, read> puzzles: array<u32>;            // packed values, `value_words()` each
@group(0) @binding(2) var<storage, read_write> results: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> frames: array<u32>;

// Invocations per team. The host dispatches one workgroup per team (`lanes_per_group` 1 in its layout).
const TEAM: u32 = 128u;

// The team's board: per cell, PLACED and its digit as a bit once placed, else its candidates as step 1 of the
// last pass found them (one word serves both, which keeps a team's workgroup memory under 4 KB for 25×25);
// per unit (rows, then columns, then boxes), the digits placed in it. 25 × 25 cells and 3 × 25 units at most
// (`BoxShape` allows no larger side).
const PLACED: u32 = 0x80000000u;
var<workgroup> cell: array<u32, 625>;
var<workgroup> used: array<atomic<u32>, 75>;
// Step 1's tallies per unit: the digits some open cell of it may take, and those two or more may (step 2 reads
// and clears them); step 2's finding per unit: the digits exactly one open cell of it may take.
var<workgroup> once: array<atomic<u32>, 75>;
var<workgroup> twice: array<atomic<u32>, 75>;
var<workgroup> lone: array<u32, 75>;
// Locked candidates. A segment is where a line meets a box: row r's segments are r·R + k for the R boxes across
// it (k = c div C), column c's are N·R + c·C + k for the C boxes down it (k = r div R); N·(R + C) ≤ 336 for
// every shape (2×12 and 12×2 have the most). Step 1 ORs each open cell's candidates into its two segments
// (`seg_may`); step 2 finds digits locked in a segment — a box's digit whose cells all lie on one line, or a
// line's whose cells all lie in one box — and ORs them into the segments they leave (`seg_ban`); step 3 takes
// the bans off the cells' candidates. Step 3 clears `seg_may`, step 1 `seg_ban`.
const SEGMENTS: u32 = 336u;
var<workgroup> seg_may: array<atomic<u32>, 336>;
var<workgroup> seg_ban: array<atomic<u32>, 336>;
// Step 1's flags: a dead end seen, a digit found, an open cell seen, the open cell to guess on as
// (candidates << 17) | (its units' placed digits << 10) | cell: fewest candidates, then most open neighbours.
var<workgroup> dead: atomic<u32>;
var<workgroup> moved: atomic<u32>;
var<workgroup> any_open: atomic<u32>;
var<workgroup> fewest: atomic<u32>;
// Words invocation 0 broadcasts with `workgroupUniformLoad` (a verdict, a claim, a decision).
var<workgroup> order: vec4<u32>;

// This invocation's index in its team.
var<private> me: u32;
// ⌈2^16 / x⌉ for x = N, R, C and N / C (set by `run`): for the x ≤ 25 and the i < 625 met here, (i · m) >> 16
// is i / x exactly (the rounding adds less than 625 / 2^16 to a quotient whose fraction is at most 24/25).
var<private> by_side: u32;
var<private> by_box_rows: u32;
var<private> by_box_cols: u32;
var<private> by_across: u32;

fn all_digits() -> u32 {
    return (1u << params.side) - 1u;
}

fn value_words() -> u32 {
    return (params.side * params.side + 3u) / 4u;
}

// Frame words of the board (values and unit masks); the guessed cell, untried digits and tag follow.
fn board_words() -> u32 {
    return value_words() + 3u * params.side;
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

// Unit `u`'s cells are `first + a·N + b` for a·width + b < N, b < width: a row is one line of N, a column N
// lines of one, a box R lines of C.
fn unit_first(u: u32) -> u32 {
    let n = params.side;
    if u < n {
        return u * n;
    }
    if u < 2u * n {
        return u - n;
    }
    let b = u - 2u * n;
    let band = (b * by_across) >> 16u;
    let across = n / params.box_cols;
    return band * params.box_rows * n + (b - band * across) * params.box_cols;
}

fn unit_width(u: u32) -> u32 {
    let n = params.side;
    if u < n {
        return n;
    }
    if u < 2u * n {
        return 1u;
    }
    return params.box_cols;
}

// Places `bit` in cell `i` (invocation 0, between barriers).
fn place(i: u32, bit: u32) {
    let u = units_of(i);
    let n = params.side;
    cell[i] = PLACED | bit;
    atomicOr(&used[u.row], bit);
    atomicOr(&used[n + u.column], bit);
    atomicOr(&used[2u * n + u.box], bit);
}

// The digits placed in unit `u`'s cells, seen at least once and at least twice: (once, twice).
fn tally_unit(u: u32) -> vec2<u32> {
    let n = params.side;
    let first = unit_first(u);
    let width = unit_width(u);
    var once = 0u;
    var twice = 0u;
    var line = 0u;
    var along = 0u;
    for (var k = 0u; k < n; k++) {
        let word = cell[first + line + along];
        let m = select(0u, word & ~PLACED, (word & PLACED) != 0u);
        twice |= once & m;
        once |= m;
        along++;
        if along == width {
            along = 0u;
            line += n;
        }
    }
    return vec2<u32>(once, twice);
}

// A cell of a pass's slices: its index, its three units' indexes (row, N + column, 2N + box) and its two
// segments' (row's, column's).
struct Slot {
    cell: u32,
    row: u32,
    column: u32,
    box: u32,
    row_segment: u32,
    column_segment: u32,
}

// Slot `s` of a pass's slices (steps 1 and 3) in diagonal order.
fn diagonal(s: u32) -> Slot {
    let n = params.side;
    let q = (s * by_side) >> 16u;
    let r = s - q * n;
    var c = q + r;
    if c >= n {
        c -= n;
    }
    let band = (r * by_box_rows) >> 16u;
    let stack = (c * by_box_cols) >> 16u;
    let across = params.box_rows;  // boxes across a row: N / C = R
    return Slot(
        r * n + c,
        r,
        n + c,
        2u * n + band * across + stack,
        r * across + stack,
        n * across + c * params.box_cols + band,
    );
}

// Segment `g`'s locked digits (step 2), ORed into the segments of its line and of its box they leave. A row
// segment lies with R − 1 others in its row and R − 1 others in its box (the box's other rows); a column
// segment with C − 1 and C − 1.
fn lock_segment(g: u32) {
    let mine = atomicLoad(&seg_may[g]);
    if mine == 0u {
        return;
    }
    // A box holds as many lines of a kind as a line crosses boxes (R rows, and a row crosses N / C = R boxes;
    // C columns likewise), so `width` counts both; a line's segments lie `width` after the last line's.
    let rows = params.side * params.box_rows;
    var base = 0u;            // the first segment of this kind
    var width = 0u;           // segments per line, and lines per box
    var line = 0u;            // the line's index among its kind
    var box_first_line = 0u;  // the first line of the segment's box
    if g < rows {
        width = params.box_rows;
        line = (g * by_box_rows) >> 16u;
        box_first_line = ((line * by_box_rows) >> 16u) * width;
    } else {
        base = rows;
        width = params.box_cols;
        line = ((g - rows) * by_box_cols) >> 16u;
        box_first_line = ((line * by_box_cols) >> 16u) * width;
    }
    let first = base + line * width;  // the line's first segment
    let k = g - first;                // the segment's place along its line
    var along = 0u;  // the line's other segments
    var in_box = 0u; // the box's other lines' segments
    for (var j = 0u; j < width; j++) {
        if j != k {
            along |= atomicLoad(&seg_may[first + j]);
        }
    }
    for (var j = 0u; j < width; j++) {
        let other = box_first_line + j;
        if other != line {
            in_box |= atomicLoad(&seg_may[base + other * width + k]);
        }
    }
    // A digit of the box only on this line leaves the line's other boxes; a digit of the line only in this box
    // leaves the box's other lines.
    let off_line = mine & ~in_box & along;
    if off_line != 0u {
        for (var j = 0u; j < width; j++) {
            if j != k {
                atomicOr(&seg_ban[first + j], off_line);
            }
        }
    }
    let off_box = mine & ~along & in_box;
    if off_box != 0u {
        for (var j = 0u; j < width; j++) {
            let other = box_first_line + j;
            if other != line {
                atomicOr(&seg_ban[base + other * width + k], off_box);
            }
        }
    }
}

// Adds an open cell's candidates `m` to unit `u`'s tallies (step 1).
fn tally(u: u32, m: u32) {
    let seen = atomicOr(&once[u], m) & m;
    if seen != 0u {
        atomicOr(&twice[u], seen);
    }
}

// One pass over the board (the header's four steps). Returns (status, fewest, stop, 0): `fewest` the open cell
// to guess on as (candidates << 17) | (its units' placed digits << 10) | cell, `stop` set when the branch is forked (`forked`) and its
// puzzle `i` has been finished or handed back by another branch (invocation 0 has then ended this branch).
fn propagate(i: u32, forked: u32) -> vec4<u32> {
    let n = params.side;
    let cells = n * n;
    workgroupBarrier();
    // 1. Candidates, naked singles and the units' tallies over a slice of the cells.
    var open = 0u;
    var best = 0xFFFFFFFFu;
    for (var s = me; s < cells; s += TEAM) {
        let at = diagonal(s);
        let c = at.cell;
        let word = cell[c];
        if (word & PLACED) == 0u {
            open = 1u;
            // The cell's word keeps the candidates the last passes left it (bans included); placed digits of its
            // units come off.
            let row_used = atomicLoad(&used[at.row]);
            let column_used = atomicLoad(&used[at.column]);
            let box_used = atomicLoad(&used[at.box]);
            let m = word & ~(row_used | column_used | box_used);
            cell[c] = m;
            if m == 0u {
                atomicStore(&dead, 1u);
            } else {
                if (m & (m - 1u)) == 0u {
                    atomicStore(&moved, 1u);
                } else {
                    // Fewest candidates first; among those, the cell whose three units have the most open cells
                    // (each unit's open cells are N less its placed digits); then the lowest index.
                    let placed = countOneBits(row_used) + countOneBits(column_used) + countOneBits(box_used);
                    best = min(best, (countOneBits(m) << 17u) | (placed << 10u) | c);
                }
                tally(at.row, m);
                tally(at.column, m);
                tally(at.box, m);
                atomicOr(&seg_may[at.row_segment], m);
                atomicOr(&seg_may[at.column_segment], m);
            }
        }
    }
    let segments = n * (params.box_rows + params.box_cols);
    for (var g = me; g < segments; g += TEAM) {
        atomicStore(&seg_ban[g], 0u);
    }
    if open != 0u {
        atomicStore(&any_open, 1u);
    }
    if best != 0xFFFFFFFFu {
        atomicMin(&fewest, best);
    }
    workgroupBarrier();
    // 2. Hidden singles over a slice of the units, locked candidates over a slice of the segments. (An open
    // cell's candidates avoid its units' placed digits.)
    for (var g = me; g < segments; g += TEAM) {
        lock_segment(g);
    }
    for (var u = me; u < 3u * n; u += TEAM) {
        let may = atomicLoad(&once[u]);
        let again = atomicLoad(&twice[u]);
        atomicStore(&once[u], 0u);
        atomicStore(&twice[u], 0u);
        let have = atomicLoad(&used[u]);
        if ((may | have) & all_digits()) != all_digits() {
            atomicStore(&dead, 1u);
        }
        let single = may & ~again;
        lone[u] = single;
        if single != 0u {
            atomicStore(&moved, 1u);
        }
    }
    workgroupBarrier();
    // 3. Bans and placements (the same slice of cells as step 1): the cell's candidates lose its segments'
    // banned digits; then it takes a naked single, or a lone digit of one of its units. A ban that empties a
    // cell means the board was dead; one that only narrows it is progress (the next pass builds on it).
    for (var s = me; s < cells; s += TEAM) {
        let at = diagonal(s);
        let c = at.cell;
        let was = cell[c];
        if (was & PLACED) == 0u && was != 0u {
            let m = was & ~(atomicLoad(&seg_ban[at.row_segment]) | atomicLoad(&seg_ban[at.column_segment]));
            if m != was {
                cell[c] = m;
                atomicStore(&moved, 1u);
            }
            var p = m & (lone[at.row] | lone[at.column] | lone[at.box]);
            if (m & (m - 1u)) == 0u {
                p |= m;
            }
            if m == 0u || (p & (p - 1u)) != 0u {
                atomicStore(&dead, 1u);
            } else if p != 0u {
                cell[c] = PLACED | p;
                let before = atomicOr(&used[at.row], p) | atomicOr(&used[at.column], p) | atomicOr(&used[at.box], p);
                if (before & p) != 0u {
                    atomicStore(&dead, 1u);
                }
            }
        }
    }
    for (var g = me; g < segments; g += TEAM) {
        atomicStore(&seg_may[g], 0u);
    }
    workgroupBarrier();
    // 4. Judge.
    if me == 0u {
        var status = STUCK;
        if atomicLoad(&dead) != 0u {
            status = DEAD;
        } else if atomicLoad(&moved) != 0u {
            status = PROGRESS;
        } else if atomicLoad(&any_open) == 0u {
            status = SOLVED;
        }
        var stop = 0u;
        if forked != 0u && (atomicLoad(&results[result_word(i, FLAGS)]) & (DONE | OVERFLOW)) != 0u {
            end_branch(i);
            stop = 1u;
        }
        order = vec4<u32>(status, atomicLoad(&fewest), stop, 0u);
        atomicStore(&dead, 0u);
        atomicStore(&moved, 0u);
        atomicStore(&any_open, 0u);
        atomicStore(&fewest, 0xFFFFFFFFu);
    }
    return workgroupUniformLoad(&order);
}

// The values of cells 4w..4w+3 packed a byte each (0 for an open cell).
fn packed_values(w: u32) -> u32 {
    let cells = params.side * params.side;
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        let at = 4u * w + k;
        if at < cells && (cell[at] & PLACED) != 0u {
            word |= (firstTrailingBit(cell[at] & ~PLACED) + 1u) << (8u * k);
        }
    }
    return word;
}

// Unpacks values word `w` onto the board's cells.
fn unpack_values(w: u32, word: u32) {
    let cells = params.side * params.side;
    for (var k = 0u; k < 4u; k++) {
        let at = 4u * w + k;
        if at < cells {
            // A value v becomes PLACED and bit v − 1; 0 (open) becomes every digit (step 1 takes its units' placed
            // digits off; bans found before the board was stored are found again).
            let v = (word >> (8u * k)) & 0xFFu;
            cell[at] = select(all_digits(), PLACED | (1u << (v - 1u)), v != 0u);
        }
    }
}

// The team's board into frame `at` (board words only).
fn store_board(at: u32) {
    workgroupBarrier();
    let base = at * params.frame_words;
    let values = value_words();
    for (var j = me; j < board_words(); j += TEAM) {
        if j < values {
            frames[base + j] = packed_values(j);
        } else {
            frames[base + j] = atomicLoad(&used[j - values]);
        }
    }
    workgroupBarrier();
}

// The team's board from frame `at`.
fn load_board(at: u32) {
    workgroupBarrier();
    let base = at * params.frame_words;
    let values = value_words();
    for (var j = me; j < board_words(); j += TEAM) {
        if j < values {
            unpack_values(j, frames[base + j]);
        } else {
            atomicStore(&used[j - values], frames[base + j]);
        }
    }
    workgroupBarrier();
}

// Frame `source_frame`'s board and guess words into frame `dest_frame` (the tag is the caller's).
fn copy_frame(source_frame: u32, dest_frame: u32) {
    let source = source_frame * params.frame_words;
    let dest = dest_frame * params.frame_words;
    for (var j = me; j < board_words(); j += TEAM) {
        frames[dest + j] = frames[source + j];
    }
    if me == 0u {
        let g = board_words();
        frames[dest + g] = frames[source + g];
        frames[dest + g + 1u] = frames[source + g + 1u];
    }
}

// On a stuck board: cell `guessed` takes its lowest candidate; the board before it, with the others untried,
// goes to frame `at`.
fn guess(at: u32, guessed: u32) {
    store_board(at);
    if me == 0u {
        let open = cell[guessed];  // a stuck pass's candidates: step 3 changed none
        let bit = open & (~open + 1u);
        let g = at * params.frame_words + board_words();
        frames[g] = guessed;
        frames[g + 1u] = open ^ bit;
        frames[g + 2u] = 0u;
        place(guessed, bit);
    }
}

// Back to frame `at`: its board, with its guessed cell given the next untried digit. Returns whether that was
// the last one (the frame is then used up); otherwise the frame keeps the digits still untried.
fn resume(at: u32) -> bool {
    load_board(at);
    if me == 0u {
        let g = at * params.frame_words + board_words();
        let guessed = frames[g];
        let untried = frames[g + 1u];
        let bit = untried & (~untried + 1u);
        let left = untried ^ bit;
        if left != 0u {
            frames[g + 1u] = left;
        }
        place(guessed, bit);
        order = vec4<u32>(select(0u, 1u, left == 0u), 0u, 0u, 0u);
    }
    return workgroupUniformLoad(&order).x != 0u;
}

// The board of puzzle `i`: its givens placed. Givens that clash (the host never sends such a puzzle) leave the
// board dead at the first pass.
fn start(i: u32) {
    let n = params.side;
    let base = i * value_words();
    workgroupBarrier();
    for (var w = me; w < value_words(); w += TEAM) {
        unpack_values(w, puzzles[base + w]);
    }
    workgroupBarrier();
    for (var u = me; u < 3u * n; u += TEAM) {
        let seen = tally_unit(u);
        atomicStore(&used[u], seen.x);
        if seen.y != 0u {
            atomicStore(&dead, 1u);
        }
    }
}

// Puzzle `i`'s first solution, packed like its values.
fn write_solution(i: u32) {
    workgroupBarrier();
    let base = i * params.result_words + SOLUTION;
    for (var w = me; w < value_words(); w += TEAM) {
        atomicStore(&results[base + w], packed_values(w));
    }
}

fn result_word(i: u32, word: u32) -> u32 {
    return i * params.result_words + word;
}

// Ends one branch of puzzle `i` (invocation 0); the last one finishes the puzzle. A puzzle that dropped a branch
// and did not reach its count is not answered: it goes to the host.
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
    if me == 0u {
        var slot = 0u;
        var room = 0u;
        if atomicLoad(&control.pool_claim) < control.write_limit {
            slot = atomicAdd(&control.pool_claim, 1u);
            room = select(0u, 1u, slot < control.write_limit);
        }
        order = vec4<u32>(room, slot, 0u, 0u);
    }
    let claim = workgroupUniformLoad(&order);
    if claim.x == 0u {
        return false;
    }
    let slot = pool_frame(claim.y);
    copy_frame(source, slot);
    if me == 0u {
        frames[slot * params.frame_words + board_words() + 2u] = i;
        atomicAdd(&results[result_word(i, LIVE)], 1u);
        atomicAdd(&control.donated, 1u);
    }
    return true;
}

// New work for an idle team (invocation 0): a pooled branch first (its puzzle is under way), else the next
// puzzle. Returns (puzzle + 1 or 0 when there is none, the pool slot, 1 for a pooled branch, 0).
fn claim_work() -> vec4<u32> {
    if atomicLoad(&control.pool_head) < control.pool_tail {
        let n = atomicAdd(&control.pool_head, 1u);
        if n < control.pool_tail {
            let tag = frames[pool_frame(n) * params.frame_words + board_words() + 2u];
            return vec4<u32>(tag + 1u, n, 1u, 0u);
        }
    }
    if atomicLoad(&control.next_puzzle) < params.puzzles {
        let i = atomicAdd(&control.next_puzzle, 1u);
        if i < params.puzzles {
            atomicStore(&results[result_word(i, LIVE)], 1u);
            return vec4<u32>(i + 1u, 0u, 0u, 0u);
        }
    }
    return vec4<u32>(0u);
}

@compute @workgroup_size(128)
fn run(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) index: u32) {
    let team = group.x;
    if team >= params.lanes {
        return;
    }
    me = index;
    let n = params.side;
    by_side = (65535u + n) / n;
    by_box_rows = (65535u + params.box_rows) / params.box_rows;
    by_box_cols = (65535u + params.box_cols) / params.box_cols;
    let across = n / params.box_cols;
    by_across = (65535u + across) / across;
    for (var u = me; u < 3u * n; u += TEAM) {
        atomicStore(&once[u], 0u);
        atomicStore(&twice[u], 0u);
    }
    for (var g = me; g < SEGMENTS; g += TEAM) {
        atomicStore(&seg_may[g], 0u);
    }
    if me == 0u {
        atomicStore(&dead, 0u);
        atomicStore(&moved, 0u);
        atomicStore(&any_open, 0u);
        atomicStore(&fewest, 0xFFFFFFFFu);
        order = lanes[team];
    }
    let parked = workgroupUniformLoad(&order);
    if me == 0u {
        order = vec4<u32>(control.quota, 0u, 0u, 0u);
    }
    var quota = workgroupUniformLoad(&order).x;
    var held = parked.x;
    var depth = parked.y;
    var bottom = parked.z;
    var forked = parked.w;
    let stack = team * params.depth;
    let ring = params.depth - 1u;
    let park = params.lanes * params.depth + params.pool + team;
    if held != 0u {
        load_board(park);
    }
    var guesses = 0u;
    for (var step = 0u; step < params.budget; step++) {
        if held == 0u {
            if me == 0u {
                order = claim_work();
            }
            let claim = workgroupUniformLoad(&order);
            if claim.x == 0u {
                break;
            }
            held = claim.x;
            depth = 0u;
            bottom = 0u;
            forked = claim.z;
            if forked != 0u {
                copy_frame(pool_frame(claim.y), stack);
                if !resume(stack) {
                    depth = 1u;
                }
            } else {
                start(held - 1u);
            }
        }
        let i = held - 1u;
        // Teams are idling: the branch at the foot of the stack goes to them.
        if quota != 0u && depth != bottom {
            if donate(stack + (bottom & ring), i) {
                bottom++;
                quota--;
                forked = 1u;
            } else {
                quota = 0u;
            }
        }
        let verdict = propagate(i, forked);
        if verdict.z != 0u {
            // Another branch finished the puzzle (or sent it to the host): this one has stopped.
            held = 0u;
            continue;
        }
        let status = verdict.x;
        if status == PROGRESS {
            continue;
        }
        if status == STUCK {
            // Past the guess budget the host takes the puzzle over (and gives up on it as the CPU would).
            if me == 0u {
                let over = atomicAdd(&results[result_word(i, GUESSES)], 1u) >= params.max_guesses;
                if over {
                    atomicOr(&results[result_word(i, FLAGS)], OVERFLOW);
                    end_branch(i);
                }
                order = vec4<u32>(select(0u, 1u, over), 0u, 0u, 0u);
            }
            if workgroupUniformLoad(&order).x != 0u {
                held = 0u;
                continue;
            }
            if depth - bottom == params.depth {
                // A full stack: its foot goes to the pool, or is dropped (see the lane kernel's note).
                if donate(stack + (bottom & ring), i) {
                    forked = 1u;
                } else if me == 0u {
                    atomicOr(&results[result_word(i, FLAGS)], PRUNED);
                }
                bottom++;
            }
            guess(stack + (depth & ring), verdict.y & 0x3FFu);
            depth++;
            guesses++;
            continue;
        }
        if status == SOLVED {
            if me == 0u {
                let found = atomicAdd(&results[result_word(i, COUNT)], 1u);
                order = vec4<u32>(found, 0u, 0u, 0u);
            }
            let found = workgroupUniformLoad(&order).x;
            if found == 0u {
                write_solution(i);
            }
            if found + 1u >= params.limit {
                if me == 0u {
                    atomicOr(&results[result_word(i, FLAGS)], DONE);
                    end_branch(i);
                }
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
            if me == 0u {
                end_branch(i);
            }
            held = 0u;
        }
    }
    if me == 0u {
        lanes[team] = vec4<u32>(held, depth, bottom, forked);
        if held != 0u {
            atomicAdd(&control.busy, 1u);
        }
        if guesses != 0u {
            atomicAdd(&control.guesses, guesses);
        }
    }
    if held != 0u {
        store_board(park);
    }
}
