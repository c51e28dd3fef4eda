// The bitmask fork kernel: a pool of board slots, one workgroup per slot, boards forking into free slots.
//
// A board is N² candidate masks (bit v-1 set <=> value v still possible; a filled cell has one bit). A round is
// four dispatches, in this order:
//   step    one workgroup per slot: propagate singles to a fixed point, then end the board (dead or solved) or
//           fork it on its cell with the fewest candidates: the first candidate stays, each other one is copied
//           into a free slot taken from `free_list` (claimed with an atomic counter). Children are PENDING, so
//           no workgroup of this dispatch can see a half-written board.
//   refill  one invocation per slot: PENDING children become ACTIVE, and the free slots the forks left (beyond a
//           reserve kept for forks) take the next puzzles of the batch.
//   reset   one invocation: zero the free-list counters.
//   collect one invocation per slot: list the free slots for the next round.
// A fork that finds too few free slots keeps its board and tries again next round; after `max_stalls` rounds it
// flags its puzzle OVERFLOW instead (the host solves that puzzle on the CPU), so the pool can never deadlock
// and no branch is ever lost. Every solution is checked on the host before it is used.
//
// Struct twins in Rust: src/gpu/sudoku_fork.rs (ForkParams, SlotInfo, PuzzleState, Control). Keep in sync.

struct Params {
    side: u32,        // N
    box_rows: u32,    // R (box height)
    box_cols: u32,    // C (box width)
    cells: u32,       // N * N
    slots: u32,       // pool size
    puzzles: u32,     // puzzles in this batch
    limit: u32,       // solutions wanted per puzzle (1: the first)
    reserve: u32,     // free slots refill leaves for forks
    max_stalls: u32,  // failed forks before a puzzle goes to the CPU
    grid_width: u32,  // workgroups per row of a 2-D step dispatch
    _pad0: u32,
    _pad1: u32,
}

struct SlotInfo {
    puzzle: u32,
    state: u32,       // FREE, ACTIVE or PENDING
    stalls: u32,
    _pad: u32,
}

struct PuzzleState {
    live: atomic<u32>,   // slots holding a branch of this puzzle
    count: atomic<u32>,  // solutions found (may pass the limit by a few; the host clamps)
    flags: atomic<u32>,  // DONE, OVERFLOW
    _pad: u32,
}

struct Control {
    free_count: atomic<u32>,  // entries in free_list
    alloc: atomic<u32>,       // entries taken by forks (may pass free_count: failed claims)
    next_puzzle: atomic<u32>, // puzzles of the batch loaded into slots so far
    finished: atomic<u32>,    // puzzles whose last branch has ended
    forks: atomic<u32>,       // successful forks (statistics)
    stalls: atomic<u32>,      // failed fork attempts (statistics)
    _pad0: u32,
    _pad1: u32,
}

const FREE: u32 = 0u;
const ACTIVE: u32 = 1u;
const PENDING: u32 = 2u;
const DONE: u32 = 1u;
const OVERFLOW: u32 = 2u;

const WG: u32 = 64u;
const MAX_CELLS: u32 = 625u;
const MAX_UNITS: u32 = 75u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> boards: array<u32>;
@group(0) @binding(2) var<storage, read_write> slot_info: array<SlotInfo>;
@group(0) @binding(3) var<storage, read> puzzles: array<u32>;
@group(0) @binding(4) var<storage, read_write> results: array<PuzzleState>;
@group(0) @binding(5) var<storage, read_write> solutions: array<u32>;
@group(0) @binding(6) var<storage, read_write> control: Control;
@group(0) @binding(7) var<storage, read_write> free_list: array<u32>;
// Lookup tables of the shape, built on the host: first the cells of each unit (3N units of N cells), then for
// each cell its row, column and box unit packed as r | c << 8 | b << 16. Integer division by a runtime value
// is slow on GPUs, and the step needs these in every round.
@group(0) @binding(8) var<storage, read> tables: array<u32>;

var<workgroup> cand: array<u32, MAX_CELLS>;
var<workgroup> placed: array<u32, MAX_UNITS>;  // values filled in each unit
var<workgroup> lone: array<u32, MAX_UNITS>;    // values with exactly one open cell in the unit, not yet placed
var<workgroup> dead: atomic<u32>;
var<workgroup> changed: atomic<u32>;
var<workgroup> open_cells: atomic<u32>;
var<workgroup> best: atomic<u32>;                      // (candidate count << 16) | cell, minimised
// Plain copies of the atomics above, read with workgroupUniformLoad so every invocation branches alike.
var<workgroup> wg_dead: u32;
var<workgroup> wg_changed: u32;
var<workgroup> wg_open: u32;
var<workgroup> wg_best: u32;
var<workgroup> fork_base: u32;
var<workgroup> fork_ok: u32;
var<workgroup> wg_slot: u32;
var<workgroup> wg_skip: u32;

fn full_mask() -> u32 {
    return (1u << params.side) - 1u;
}

fn is_single(m: u32) -> bool {
    return (m & (m - 1u)) == 0u;
}

// The row, column and box unit indexes of a cell: rows 0..N, columns N..2N, boxes 2N..3N.
fn units_of(cell: u32) -> vec3<u32> {
    let packed = tables[3u * params.cells + cell];
    return vec3<u32>(packed & 0xFFu, (packed >> 8u) & 0xFFu, packed >> 16u);
}

// The k-th cell of unit u (rows, then columns, then boxes, as in `units_of`).
fn unit_cell(u: u32, k: u32) -> u32 {
    return tables[u * params.side + k];
}

// Ends a branch: frees its slot and, if it was the puzzle's last, counts the puzzle finished.
fn end_branch(slot: u32, puzzle: u32) {
    slot_info[slot].state = FREE;
    let before = atomicSub(&results[puzzle].live, 1u);
    if before == 1u {
        atomicAdd(&control.finished, 1u);
    }
}

@compute @workgroup_size(64)
fn step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        let slot = wid.x + wid.y * params.grid_width;
        wg_slot = slot;
        wg_skip = 0u;
        if slot >= params.slots || slot_info[slot].state != ACTIVE {
            wg_skip = 1u;
        } else {
            let puzzle = slot_info[slot].puzzle;
            // Another branch already finished this puzzle (limit reached, or it went to the CPU).
            if atomicLoad(&results[puzzle].flags) != 0u {
                end_branch(slot, puzzle);
                wg_skip = 1u;
            }
        }
    }
    if workgroupUniformLoad(&wg_skip) != 0u {
        return;
    }
    let slot = wg_slot;
    let puzzle = slot_info[slot].puzzle;
    let cells = params.cells;
    let units = 3u * params.side;
    let full = full_mask();
    let base = slot * cells;
    for (var c = lid; c < cells; c += WG) {
        cand[c] = boards[base + c];
    }

    // Singles to a fixed point. Each round has two phases, without atomics on hot words:
    //  1. one invocation per unit folds its cells: values placed (a clash kills the board), values seen in
    //     one open cell only (`lone`), and whether every value still has a place;
    //  2. one invocation per cell narrows it by the values placed around it (naked singles follow) and to a
    //     value it alone holds in one of its units (hidden single).
    // (A first version folded cell by cell with atomicOr on the unit words: nine contended atomics per open
    // cell per round.)
    loop {
        if lid == 0u {
            atomicStore(&changed, 0u);
            atomicStore(&open_cells, 0u);
            atomicStore(&dead, 0u);
        }
        workgroupBarrier();
        for (var u = lid; u < units; u += WG) {
            var p = 0u;
            var seen_once = 0u;
            var seen_twice = 0u;
            var open = 0u;
            var clash = 0u;
            for (var k = 0u; k < params.side; k += 1u) {
                let m = cand[unit_cell(u, k)];
                if is_single(m) {
                    clash |= p & m;
                    p |= m;
                } else {
                    seen_twice |= seen_once & m;
                    seen_once |= m;
                    open += 1u;
                }
            }
            placed[u] = p;
            lone[u] = seen_once & ~seen_twice & ~p;
            // A value placed twice, or neither placed nor possible anywhere in the unit: no solution here.
            if clash != 0u || (seen_once | p) != full {
                atomicStore(&dead, 1u);
            }
            if u < params.side && open != 0u {
                atomicAdd(&open_cells, open);  // rows only: each open cell counted once
            }
        }
        workgroupBarrier();
        var any_change = false;
        for (var c = lid; c < cells; c += WG) {
            let old = cand[c];
            if is_single(old) {
                continue;
            }
            let us = units_of(c);
            var m = old & ~(placed[us.x] | placed[us.y] | placed[us.z]);
            let hidden = m & (lone[us.x] | lone[us.y] | lone[us.z]);
            if hidden != 0u {
                // Two different values that must both be here: a contradiction.
                m = select(0u, hidden, is_single(hidden));
            }
            if m != old {
                cand[c] = m;
                any_change = true;
            }
        }
        if any_change {
            atomicStore(&changed, 1u);
        }
        workgroupBarrier();
        if lid == 0u {
            wg_dead = atomicLoad(&dead);
            wg_changed = atomicLoad(&changed);
            wg_open = atomicLoad(&open_cells);
        }
        let is_dead = workgroupUniformLoad(&wg_dead);
        let some_change = workgroupUniformLoad(&wg_changed);
        if is_dead != 0u || some_change == 0u {
            break;
        }
    }
    // `wg_open` and `wg_dead` describe the final state: the last round changed nothing (or found it dead).
    let is_dead = workgroupUniformLoad(&wg_dead);
    let open = workgroupUniformLoad(&wg_open);
    if is_dead != 0u {
        if lid == 0u {
            end_branch(slot, puzzle);
        }
        return;
    }
    if open == 0u {
        if lid == 0u {
            let found = atomicAdd(&results[puzzle].count, 1u);
            if found + 1u >= params.limit {
                atomicOr(&results[puzzle].flags, DONE);
            }
            // The first solution of each puzzle is kept; the host checks it.
            wg_skip = select(0u, 1u, found == 0u);
        }
        if workgroupUniformLoad(&wg_skip) != 0u {
            for (var c = lid; c < cells; c += WG) {
                solutions[puzzle * cells + c] = firstTrailingBit(cand[c]) + 1u;
            }
        }
        workgroupBarrier();
        if lid == 0u {
            end_branch(slot, puzzle);
        }
        return;
    }

    // Stuck: fork on the open cell with the fewest candidates, the lowest index on ties.
    if lid == 0u {
        atomicStore(&best, 0xFFFFFFFFu);
    }
    workgroupBarrier();
    for (var c = lid; c < cells; c += WG) {
        let m = cand[c];
        if !is_single(m) {
            atomicMin(&best, (countOneBits(m) << 16u) | c);
        }
    }
    workgroupBarrier();
    if lid == 0u {
        wg_best = atomicLoad(&best);
    }
    let chosen = workgroupUniformLoad(&wg_best) & 0xFFFFu;
    let mask = cand[chosen];
    let extra = countOneBits(mask) - 1u;
    if lid == 0u {
        let claim = atomicAdd(&control.alloc, extra);
        fork_base = claim;
        fork_ok = select(0u, 1u, claim + extra <= atomicLoad(&control.free_count));
    }
    let ok = workgroupUniformLoad(&fork_ok);
    if ok == 0u {
        if lid == 0u {
            atomicAdd(&control.stalls, 1u);
            slot_info[slot].stalls += 1u;
            if slot_info[slot].stalls >= params.max_stalls {
                atomicOr(&results[puzzle].flags, OVERFLOW);
                end_branch(slot, puzzle);
            }
        }
        // Keep what propagation found, so the next try starts from there.
        for (var c = lid; c < cells; c += WG) {
            boards[base + c] = cand[c];
        }
        return;
    }
    // Each other candidate, lowest first, into the claimed free slots; the first stays here.
    var rest = mask & (mask - 1u);
    var child = 0u;
    loop {
        if rest == 0u {
            break;
        }
        let bit = rest & (~rest + 1u);
        rest = rest & (rest - 1u);
        let dest = free_list[fork_base + child];
        for (var c = lid; c < cells; c += WG) {
            boards[dest * cells + c] = select(cand[c], bit, c == chosen);
        }
        if lid == 0u {
            slot_info[dest].puzzle = puzzle;
            slot_info[dest].stalls = 0u;
            slot_info[dest].state = PENDING;
        }
        child += 1u;
    }
    if lid == 0u {
        atomicAdd(&results[puzzle].live, extra);
        atomicAdd(&control.forks, 1u);
        slot_info[slot].stalls = 0u;
    }
    for (var c = lid; c < cells; c += WG) {
        boards[base + c] = select(cand[c], mask & (~mask + 1u), c == chosen);
    }
}

@compute @workgroup_size(64)
fn refill(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= params.slots {
        return;
    }
    if slot_info[i].state == PENDING {
        slot_info[i].state = ACTIVE;
    }
    // The free slots the forks did not take, less a reserve for next round's forks, take new puzzles in order.
    let free = atomicLoad(&control.free_count);
    let used = min(atomicLoad(&control.alloc), free);
    let spare = free - used;
    if spare <= params.reserve || i >= spare - params.reserve {
        return;
    }
    let puzzle = atomicAdd(&control.next_puzzle, 1u);
    if puzzle >= params.puzzles {
        return;
    }
    let slot = free_list[used + i];
    let cells = params.cells;
    let full = full_mask();
    for (var c = 0u; c < cells; c += 1u) {
        let v = puzzles[puzzle * cells + c];
        boards[slot * cells + c] = select(1u << (v - 1u), full, v == 0u);
    }
    atomicStore(&results[puzzle].live, 1u);
    slot_info[slot].puzzle = puzzle;
    slot_info[slot].stalls = 0u;
    slot_info[slot].state = ACTIVE;
}

@compute @workgroup_size(1)
fn reset() {
    atomicStore(&control.free_count, 0u);
    atomicStore(&control.alloc, 0u);
}

@compute @workgroup_size(64)
fn collect(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i < params.slots && slot_info[i].state == FREE {
        free_list[atomicAdd(&control.free_count, 1u)] = i;
    }
}
