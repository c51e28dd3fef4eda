// N-Queens, node layer: the host cuts the mirror split (`src/queens/mirror.rs`) at a fixed row into partial
// boards (nodes); the GPU counts the solutions below them. Only the total: the classes of 2, 4 and 8 follow
// from it and from two small searches on the host (`src/queens/symmetric.rs`), which keeps this loop free of
// any rule but the queens' own. Counts are 64-bit numbers kept as (low, high) u32 pairs: WGSL has no 64-bit
// integers and a lane's count passes 2^32 for large N.
//
// Persistent lanes: each invocation is a lane that takes the next node from a shared counter, searches it with
// an explicit stack (WGSL has no recursion) and takes another when done. A dispatch runs each lane for at most
// `budget` steps, then parks its stack in `lanes` for the next dispatch. So every dispatch is short whatever a
// subtree's size (a browser kills a long one; lavapipe even stops any invocation's loops after 65,535
// iterations), lanes that finish early pick up new work, and the host sees progress between dispatches.
//
// One step tries one candidate, with no branch that lanes could take apart: take the lowest candidate of the
// top frame, drop the frame when that was its last, and push the child frame unless it is a dead end or the
// last row (whose one square, if free, is a solution). A step is about thirty instructions that every lane of a
// warp runs together; the search order (depth first, lowest column first) does not matter to a count.
//
// Layout mirrors `src/gpu/queens.rs` (`QueensParams`, `QueensNode`, `LaneState`, `QueensControl`).

struct Params {
    n: u32,
    nodes: u32,
    // Search steps per lane in one dispatch.
    budget: u32,
    lanes: u32,
}

// A frame: (down, left, right, free) of one row; the row itself is the number of queens in `down`.
struct Node {
    down: u32,
    left: u32,
    right: u32,
    pad: u32,
}

// A lane's parked stack.
struct Lane {
    top: u32,
    pad: array<u32, 3>,
    frames: array<vec4<u32>, 32>,
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
// Two u32 per lane: its solutions as (low, high), over every node it finished.
@group(0) @binding(4) var<storage, read_write> lane_counts: array<u32>;

// Invocations per workgroup: one warp on NVIDIA hardware. The host compiles this file once per stack depth
// (16 or 32 frames), replacing the next line.
const DEPTH: u32 = 16u;
const GROUP: u32 = 32u;

// The stacks, frame k of every lane of the group side by side: lanes at different depths still touch
// different banks (lane i always bank i), so no access waits on another. 16 or 32 frames of 16 bytes for 32
// lanes: 8 or 16 KiB, within WebGPU's 16 KiB of workgroup storage.
var<workgroup> stacks: array<array<vec4<u32>, GROUP>, DEPTH>;

// Where frame k is. Masking keeps every access in bounds by construction; the host cuts the search so that a
// stack never holds more than DEPTH − 1 frames.
fn at(k: u32) -> u32 {
    return k & (DEPTH - 1u);
}

// Adds a small number to a 64-bit count kept as (low, high).
fn add(c: vec2<u32>, x: u32) -> vec2<u32> {
    let low = c.x + x;
    return vec2<u32>(low, c.y + select(0u, 1u, low < x));
}

@compute @workgroup_size(32)
fn count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) me: u32) {
    let lane = gid.x;
    if lane >= params.lanes { return; }
    let n = params.n;
    // 1 << 32 does not exist in u32: a full 32-wide row is all ones.
    let mask = select((1u << n) - 1u, 0xffffffffu, n == 32u);

    var top = lanes[lane].top;
    for (var k = 0u; k < top; k++) {
        stacks[at(k)][me] = lanes[lane].frames[k];
    }
    var found = vec2<u32>(lane_counts[2u * lane], lane_counts[2u * lane + 1u]);
    var steps = 0u;
    loop {
        // Taking a node counts as a step too: a lane may take many small ones in a row.
        if steps >= params.budget { break; }
        steps += 1u;
        if top == 0u {
            // Checked first so that idle lanes do not push the counter on and on (it would wrap in a long run).
            if atomicLoad(&control.next) >= params.nodes { break; }
            let index = atomicAdd(&control.next, 1u);
            if index >= params.nodes { break; }
            let node = nodes[index];
            let free = mask & ~(node.left | node.down | node.right);
            if countOneBits(node.down) + 1u >= n {
                // Cut at the last row (tiny boards): its free square, if any, is the one solution.
                found = add(found, countOneBits(free));
            } else if free != 0u {
                stacks[0][me] = vec4<u32>(node.down, node.left, node.right, free);
                top = 1u;
            }
            if top == 0u { atomicAdd(&control.finished, 1u); }
            continue;
        }
        let frame = stacks[at(top - 1u)][me];
        // The lowest candidate (two's complement isolates it); the frame keeps the others and goes when empty.
        let bit = frame.w & (0u - frame.w);
        let rest = frame.w ^ bit;
        stacks[at(top - 1u)][me].w = rest;
        top -= select(0u, 1u, rest == 0u);
        let down = frame.x | bit;
        let left = (frame.y | bit) << 1u;
        let right = (frame.z | bit) >> 1u;
        let free = mask & ~(left | down | right);
        // The child's row: a full board but one means `free` holds the last queen's square or nothing.
        let last = countOneBits(down) + 1u == n;
        found = add(found, select(0u, countOneBits(free), last));
        // Written whether or not it is pushed: a frame above the top is never read.
        stacks[at(top)][me] = vec4<u32>(down, left, right, free);
        top += select(0u, 1u, !last && free != 0u);
        if top == 0u { atomicAdd(&control.finished, 1u); }
    }

    lane_counts[2u * lane] = found.x;
    lane_counts[2u * lane + 1u] = found.y;
    lanes[lane].top = top;
    if top != 0u {
        atomicAdd(&control.busy, 1u);
        for (var k = 0u; k < top; k++) {
            lanes[lane].frames[k] = stacks[at(k)][me];
        }
    }
}
