// N-Queens, node layer: the host cuts the search at a fixed row into partial boards (nodes); the GPU finishes
// them and sorts what it finds into classes of 2, 4 and 8 under the board's symmetries, exactly as
// `src/queens/counter.rs` does. Counts are 64-bit numbers kept as (low, high) u32 pairs: WGSL has no 64-bit
// integers and a count can pass 2^32 for large N.
//
// Persistent lanes: each invocation is a lane that takes the next node from a shared counter, searches it with
// an explicit stack (WGSL has no recursion) and takes another when done. A dispatch runs each lane for at most
// `budget` steps, then parks its search in `lanes` for the next dispatch. So every dispatch is short whatever a
// subtree's size (a browser kills a long one; lavapipe even stops any invocation's loops after 65,535
// iterations), lanes that finish early pick up new work, and the host sees progress between dispatches.
//
// Layout mirrors `src/gpu/queens.rs` (`QueensParams`, `QueensNode`, `LaneState`, `QueensControl`).

struct Params {
    n: u32,
    nodes: u32,
    // Search steps per lane in one dispatch.
    budget: u32,
    lanes: u32,
}

struct Node {
    row: u32,
    left: u32,
    down: u32,
    right: u32,
    // bit 31: corner branch; low byte: bound1.
    branch: u32,
    // The columns of the placed rows, one byte each (at most 16 rows).
    board: array<u32, 4>,
}

// A lane's parked search.
struct Lane {
    // 0: idle (takes a node next), 1: searching.
    busy: u32,
    branch: u32,
    start: u32,
    row: u32,
    left: u32,
    down: u32,
    right: u32,
    spilled_left: u32,
    spilled_right: u32,
    pad: array<u32, 3>,
    stack: array<u32, 32>,
    board: array<u32, 32>,
}

struct Control {
    // The next node to hand out.
    next: atomic<u32>,
    // Nodes finished.
    finished: atomic<u32>,
    // Lanes still searching at the end of the dispatch.
    busy: atomic<u32>,
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> nodes: array<Node>;
@group(0) @binding(2) var<storage, read_write> lanes: array<Lane>;
@group(0) @binding(3) var<storage, read_write> control: Control;
// Six u32 per lane: (c2, c4, c8) as (low, high) pairs, over every node the lane finished.
@group(0) @binding(4) var<storage, read_write> lane_counts: array<u32>;

// Per invocation, one word per row: `boards`, the row's queen (one bit); `stacks`, the row's candidates not yet
// tried. Private arrays, dynamically indexed: the compiler places them in per-thread local memory (cached). An
// earlier layout kept them in workgroup memory, 64 invocations interleaved to avoid bank conflicts, on the
// theory that local memory is slow; measured on an H100, the private arrays are 10-12% faster (N=19 2.37 s
// against 2.63 s, N=20 16.6 s against 19.0 s) and leave WebGPU's 16 KiB of workgroup storage unused.
var<private> boards: array<u32, 32>;
var<private> stacks: array<u32, 32>;

// Where row r's word is. Masking the row keeps every access in bounds by construction.
fn at(r: u32) -> u32 {
    return r & 31u;
}

// The branch's pruning constants (see `Branch` in counter.rs).
struct Rules {
    corner: bool,
    bound1: u32,
    bound2: u32,
    sidemask: u32,
    lastmask: u32,
    endbit: u32,
    topbit: u32,
    last: u32,
}

fn prune(r: Rules, row: u32, down: u32, free: u32) -> u32 {
    if r.corner {
        if row < r.bound1 { return free & ~2u; }
        return free;
    }
    if row < r.bound1 { return free & ~r.sidemask; }
    if row == r.bound2 {
        let taken = down & r.sidemask;
        if taken == 0u { return 0u; }
        if taken != r.sidemask { return free & r.sidemask; }
    }
    return free;
}

// 0: skip (a rotation is smaller), 1: class of 2, 2: class of 4, 3: class of 8. The board's last row is set.
fn classify(r: Rules) -> u32 {
    let last = r.last;
    if boards[at(r.bound2)] == 1u {
        var own = 1u;
        var ptn = 2u;
        loop {
            if own > last { return 1u; }
            var bit = 1u;
            var you = last;
            while boards[at(you)] != ptn && boards[at(own)] >= bit {
                bit <<= 1u;
                you -= 1u;
            }
            if boards[at(own)] > bit { return 0u; }
            if boards[at(own)] < bit { break; }
            own += 1u;
            ptn <<= 1u;
        }
    }
    if boards[at(last)] == r.endbit {
        var own = 1u;
        var you = last - 1u;
        loop {
            if own > last { return 2u; }
            var bit = 1u;
            var ptn = r.topbit;
            while ptn != boards[at(you)] && boards[at(own)] >= bit {
                bit <<= 1u;
                ptn >>= 1u;
            }
            if boards[at(own)] > bit { return 0u; }
            if boards[at(own)] < bit { break; }
            own += 1u;
            you -= 1u;
        }
    }
    if boards[at(r.bound1)] == r.topbit {
        var own = 1u;
        var ptn = r.topbit >> 1u;
        loop {
            if own > last { break; }
            var bit = 1u;
            var you = 0u;
            while boards[at(you)] != ptn && boards[at(own)] >= bit {
                bit <<= 1u;
                you += 1u;
            }
            if boards[at(own)] > bit { return 0u; }
            if boards[at(own)] < bit { break; }
            own += 1u;
            ptn >>= 1u;
        }
    }
    return 3u;
}

// Adds one to a 64-bit count kept as (low, high).
fn bump(c: vec2<u32>) -> vec2<u32> {
    let low = c.x + 1u;
    return vec2<u32>(low, c.y + select(0u, 1u, low == 0u));
}

fn rules_of(n: u32, branch: u32) -> Rules {
    let last = n - 1u;
    let topbit = 1u << last;
    var r: Rules;
    r.corner = (branch >> 31u) != 0u;
    r.bound1 = branch & 0xffu;
    r.bound2 = last - r.bound1;
    r.sidemask = topbit | 1u;
    r.topbit = topbit;
    r.last = last;
    r.endbit = topbit >> r.bound1;
    // The bound1 outermost columns on each side.
    let low = (1u << r.bound1) - 1u;
    r.lastmask = low | (reverseBits(low) >> (32u - n));
    return r;
}

@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) gid: vec3<u32>) {
    let lane = gid.x;
    if lane >= params.lanes { return; }
    let n = params.n;
    let last = n - 1u;
    // 1 << 32 does not exist in u32: a full 32-wide row is all ones.
    let mask = select((1u << n) - 1u, 0xffffffffu, n == 32u);

    var busy = lanes[lane].busy;
    var branch = lanes[lane].branch;
    var start = lanes[lane].start;
    var row = lanes[lane].row;
    var left = lanes[lane].left;
    var down = lanes[lane].down;
    var right = lanes[lane].right;
    // Bit r: the bit that moving from row r to r + 1 shifted out of `left` (bit 31) or `right` (bit 0).
    var spilled_left = lanes[lane].spilled_left;
    var spilled_right = lanes[lane].spilled_right;
    // Three scalars pairs, not an array: a dynamically indexed array would live in slow local memory.
    let base = lane * 6u;
    var c2 = vec2<u32>(lane_counts[base], lane_counts[base + 1u]);
    var c4 = vec2<u32>(lane_counts[base + 2u], lane_counts[base + 3u]);
    var c8 = vec2<u32>(lane_counts[base + 4u], lane_counts[base + 5u]);
    if busy != 0u {
        for (var r = 0u; r <= row; r++) {
            stacks[at(r)] = lanes[lane].stack[r];
            boards[at(r)] = lanes[lane].board[r];
        }
    }
    var rules = rules_of(n, branch);
    // The current row's untried candidates live in a register; `stacks` holds only the rows above it (and this
    // row's, while the lane is parked), so a step forward only stores to them.
    var free = 0u;
    if busy != 0u { free = stacks[at(row)]; }
    var steps = 0u;
    loop {
        if busy == 0u {
            // Checked first so that idle lanes do not push the counter on and on (it would wrap in a long run).
            if atomicLoad(&control.next) >= params.nodes { break; }
            let index = atomicAdd(&control.next, 1u);
            if index >= params.nodes { break; }
            let node = nodes[index];
            branch = node.branch;
            rules = rules_of(n, branch);
            for (var r = 0u; r < node.row; r++) {
                let column = (node.board[r / 4u] >> ((r % 4u) * 8u)) & 0xffu;
                boards[at(r)] = 1u << column;
            }
            start = node.row;
            row = start;
            left = node.left;
            down = node.down;
            right = node.right;
            spilled_left = 0u;
            spilled_right = 0u;
            free = prune(rules, row, down, mask & ~(left | down | right));
            busy = 1u;
        }
        if steps >= params.budget { break; }
        steps += 1u;
        if free == 0u {
            if row == start {
                busy = 0u;
                atomicAdd(&control.finished, 1u);
                continue;
            }
            // Back up a row: undo its queen and shift the diagonals back, restoring the bit each shift pushed
            // out of the word. A lost bit would not matter to this row's children, but after further back-ups
            // it would shift back onto the board.
            row -= 1u;
            free = stacks[at(row)];
            let bit = boards[at(row)];
            down ^= bit;
            left = ((left >> 1u) | (((spilled_left >> row) & 1u) << 31u)) & ~bit;
            right = ((right << 1u) | ((spilled_right >> row) & 1u)) & ~bit;
            continue;
        }
        if row + 1u == last {
            // The row before the last: each candidate leaves the last row at most one square, so all of this
            // row's candidates are tried in this one step, with no stack traffic.
            var rest = free;
            loop {
                if rest == 0u { break; }
                let bit = rest & (~rest + 1u);
                rest ^= bit;
                let last_free = mask & ~(((left | bit) << 1u) | (down | bit) | ((right | bit) >> 1u));
                if last_free == 0u { continue; }
                if rules.corner {
                    c8 = bump(c8);
                } else if (last_free & rules.lastmask) == 0u {
                    boards[at(row)] = bit;
                    boards[at(last)] = last_free;
                    let kind = classify(rules);
                    if kind == 1u {
                        c2 = bump(c2);
                    } else if kind == 2u {
                        c4 = bump(c4);
                    } else if kind == 3u {
                        c8 = bump(c8);
                    }
                }
            }
            free = 0u;
            continue;
        }
        // The lowest candidate (two's complement isolates it).
        let bit = free & (~free + 1u);
        stacks[at(row)] = free ^ bit;
        boards[at(row)] = bit;
        let row_bit = 1u << row;
        spilled_left = (spilled_left & ~row_bit) | (((left | bit) >> 31u) << row);
        spilled_right = (spilled_right & ~row_bit) | (((right | bit) & 1u) << row);
        row += 1u;
        left = (left | bit) << 1u;
        down = down | bit;
        right = (right | bit) >> 1u;
        free = prune(rules, row, down, mask & ~(left | down | right));
    }

    lanes[lane].busy = busy;
    lane_counts[base] = c2.x;
    lane_counts[base + 1u] = c2.y;
    lane_counts[base + 2u] = c4.x;
    lane_counts[base + 3u] = c4.y;
    lane_counts[base + 4u] = c8.x;
    lane_counts[base + 5u] = c8.y;
    if busy != 0u {
        stacks[at(row)] = free;
        atomicAdd(&control.busy, 1u);
        lanes[lane].branch = branch;
        lanes[lane].start = start;
        lanes[lane].row = row;
        lanes[lane].left = left;
        lanes[lane].down = down;
        lanes[lane].right = right;
        lanes[lane].spilled_left = spilled_left;
        lanes[lane].spilled_right = spilled_right;
        for (var r = 0u; r <= row; r++) {
            lanes[lane].stack[r] = stacks[at(r)];
            lanes[lane].board[r] = boards[at(r)];
        }
    }
}
