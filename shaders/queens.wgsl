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
// top frame, drop the frame when that was its last, count the child if it completes the board, and push it
// unless it has no candidate. Some twenty instructions that every lane of a warp runs together; the search
// order (depth first, lowest column first) does not matter to a count.
//
// Layout mirrors `src/gpu/queens.rs` (`QueensParams`, `QueensNode`, `LaneState`, `QueensControl`).

struct Params {
    n: u32,
    nodes: u32,
    // Search steps per lane in one dispatch.
    budget: u32,
    lanes: u32,
}

// A node: the columns taken and the diagonals attacked in its next row.
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
    // Lanes still searching at the end of the dispatch (each holds one unfinished node, so the host knows
    // `next − busy` nodes are done).
    busy: atomic<u32>,
    pad: array<u32, 2>,
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

// The stacks. A frame is one row of a search: its open columns (not yet taken), the columns its diagonals
// attack (`left`, `right`) and its untried candidates. The four words live in four arrays, frame k of every
// lane of the group side by side: each access is one word per lane and lane i always hits bank i, so lanes at
// different depths never wait on each other (measured: 7% faster than one array of vec4). 16 or 32 frames of
// 16 bytes for 32 lanes: 8 or 16 KiB, within WebGPU's 16 KiB of workgroup storage.
//
// A lane addresses its frames by `slot` = frames × GROUP + its index in the group: the top frame is at
// `slot − GROUP` and the next free one at `slot`, one subtraction from the address. Every index stays below
// SLOTS by construction, without a mask (measured: masking cost 9%): the host cuts the search so that a stack
// holds at most DEPTH − 1 frames (one per row left, the last row's included), a step writes at most one slot
// above the top, and a step runs only on a stack that holds a frame.
const SLOTS: u32 = DEPTH * GROUP;
var<workgroup> opens: array<u32, SLOTS>;
var<workgroup> lefts: array<u32, SLOTS>;
var<workgroup> rights: array<u32, SLOTS>;
var<workgroup> frees: array<u32, SLOTS>;

// (open, left, right, free) of the frame at `slot`.
fn load(slot: u32) -> vec4<u32> {
    return vec4<u32>(opens[slot], lefts[slot], rights[slot], frees[slot]);
}

fn store(slot: u32, frame: vec4<u32>) {
    opens[slot] = frame.x;
    lefts[slot] = frame.y;
    rights[slot] = frame.z;
    frees[slot] = frame.w;
}

// Adds to a 64-bit count kept as (low, high).
fn add(c: vec2<u32>, x: u32) -> vec2<u32> {
    let low = c.x + x;
    return vec2<u32>(low, c.y + select(0u, 1u, low < x));
}

// One step of a lane whose stack holds a frame (see the header).
fn step(slot: ptr<function, u32>, found: ptr<function, u32>) {
    let frame = load(*slot - GROUP);
    // The lowest candidate (two's complement isolates it); the frame keeps the others and goes when empty.
    let bit = frame.w & (0u - frame.w);
    let rest = frame.w ^ bit;
    frees[*slot - GROUP] = rest;
    let open = frame.x ^ bit;
    // Bits that a shift moves past the board's edge never come back (no frame is ever rebuilt from its child),
    // so nothing needs masking: `open` keeps `free` on the board.
    let left = (frame.y | bit) << 1u;
    let right = (frame.z | bit) >> 1u;
    let free = open & ~(left | right);
    // Every column taken: a solution (and no candidate, so it is not pushed).
    *found += select(0u, 1u, open == 0u);
    let top = *slot - select(0u, GROUP, rest == 0u);
    // Written whether or not it is pushed: a frame above the top is never read.
    store(top, vec4<u32>(open, left, right, free));
    *slot = top + select(0u, GROUP, free != 0u);
}

@compute @workgroup_size(32)
fn count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) me: u32) {
    let lane = gid.x;
    if lane >= params.lanes { return; }
    let n = params.n;
    // 1 << 32 does not exist in u32: a full 32-wide row is all ones.
    let mask = select((1u << n) - 1u, 0xffffffffu, n == 32u);

    var slot = lanes[lane].top * GROUP + me;
    for (var k = 0u; k < lanes[lane].top; k++) {
        store(k * GROUP + me, lanes[lane].frames[k]);
    }
    // Solutions found in this dispatch: at most one per step, and steps stay below 2^32, so 32 bits hold
    // them; they join the lane's 64-bit count once, after the loop.
    var found = 0u;
    var steps = 0u;
    loop {
        // Taking a node counts as a step too: a lane may take many small ones in a row.
        if steps >= params.budget { break; }
        steps += 1u;
        if slot < GROUP {
            // An empty stack. Checked first so that idle lanes do not push the counter on and on (it would
            // wrap in a long run).
            if atomicLoad(&control.next) >= params.nodes { break; }
            let index = atomicAdd(&control.next, 1u);
            if index >= params.nodes { break; }
            let node = nodes[index];
            let open = mask & ~node.down;
            let free = open & ~(node.left | node.right);
            if free != 0u {
                store(slot, vec4<u32>(open, node.left, node.right, free));
                slot += GROUP;
            }
            continue;
        }
        // Sixteen steps in a row, each after the first only while the stack holds a frame: the loop's own
        // checks and the empty-stack test cost as much as a step (measured for N=20 with masked indices: one
        // step per pass 8.1 s, two 7.3 s, four 6.4 s, eight 6.0 s, sixteen 5.6 s, written out or as this loop
        // alike; unmasked, the written-out form measured 4.41 s in one run and this loop 4.75 s in another).
        step(&slot, &found);
        for (var k = 0u; k < 15u; k++) {
            if slot < GROUP { break; }
            step(&slot, &found);
        }
        steps += 15u;
    }

    let total = add(vec2<u32>(lane_counts[2u * lane], lane_counts[2u * lane + 1u]), found);
    lane_counts[2u * lane] = total.x;
    lane_counts[2u * lane + 1u] = total.y;
    let top = slot / GROUP;
    lanes[lane].top = top;
    if top != 0u {
        atomicAdd(&control.busy, 1u);
        for (var k = 0u; k < top; k++) {
            lanes[lane].frames[k] = load(k * GROUP + me);
        }
    }
}
