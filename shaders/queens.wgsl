// N-Queens, node layer: the host cuts the constellations' searches (`src/queens/constellation.rs`) at a fixed
// row into partial boards (nodes); the GPU counts the solutions below them, each times its constellation's
// orbit size. Only the total: the classes of 2, 4 and 8 follow from it and from two small searches on the host
// (`src/queens/symmetric.rs`), which keeps this loop free of any rule but the queens' own and one mask per row.
// Counts are 64-bit numbers kept as (low, high) u32 pairs: WGSL has no 64-bit integers and a lane's count
// passes 2^32 for large N.
//
// Persistent lanes: each invocation is a lane that takes the next node from a shared counter, searches it with
// an explicit stack (WGSL has no recursion) and takes another when done. A dispatch runs each lane for at most
// `budget` steps, then parks its stack in `lanes` for the next dispatch. So every dispatch is short whatever a
// subtree's size (a browser kills a long one; lavapipe even stops any invocation's loops after 65,535
// iterations), lanes that finish early pick up new work, and the host sees progress between dispatches.
//
// One step tries one candidate, with no branch that lanes could take apart: take the lowest candidate of the
// top frame, count the child if it completes the board, enter it unless it has no candidate, and keep the top
// frame on the stack only while it has candidates left (a frame that runs out is replaced by its child, or by
// the frame below it). The search order (depth first, lowest column first) does not matter to a count.
//
// Layout mirrors `src/gpu/queens.rs` (`QueensParams`, `QueensNode`, `LaneState`, `QueensControl`).

struct Params {
    n: u32,
    nodes: u32,
    // Search steps per lane in one dispatch.
    budget: u32,
    lanes: u32,
}

// A node: the columns still open, the diagonals attacked in its next row, and its constellation.
struct Node {
    open: u32,
    left: u32,
    right: u32,
    constellation: u32,
}

// A lane's parked search: `top` frames, the last of them its top frame (none: the lane holds no node), and
// the constellation of its node.
struct Lane {
    top: u32,
    constellation: u32,
    pad: array<u32, 2>,
    frames: array<vec4<u32>, 32>,
}

struct Control {
    // The next node to hand out.
    next: atomic<u32>,
    // Lanes still searching at the end of the dispatch (each holds one unfinished node, so the host knows
    // `next − busy` nodes are done).
    busy: atomic<u32>,
    // Nodes `split` has given away (it may count past the room for them; the host clamps).
    donated: atomic<u32>,
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> nodes: array<Node>;
@group(0) @binding(2) var<storage, read_write> lanes: array<Lane>;
@group(0) @binding(3) var<storage, read_write> control: Control;
// Two u32 per lane: its weighted solutions as (low, high), over every node it finished.
@group(0) @binding(4) var<storage, read_write> lane_counts: array<u32>;
// 32 words per constellation: word 0 its orbit's size (what each solution below it stands for), word r the
// columns row r may use (`Plan::tables`).
@group(0) @binding(5) var<storage, read> tables: array<u32>;
// Where `split` puts the nodes it takes from busy lanes; the host then hands them out as the next queue.
@group(0) @binding(6) var<storage, read_write> donated: array<Node>;

// Invocations per workgroup: one warp on NVIDIA hardware. The host compiles this file once per stack depth
// (16 or 32 levels), and without row masks (the mirror split: its one table only gives the weight, 2), with them
// read from the constellation's table, or with them worked out from the border queens (`COMPUTED`, see
// `candidates`), replacing the next three lines.
const DEPTH: u32 = 16u;
const ROW_MASKS: bool = true;
const COMPUTED: bool = false;
const GROUP: u32 = 32u;

// The stacks. A frame is one row of a search: its open columns (not yet taken), the columns its diagonals
// attack (`left`, `right`) and its untried candidates. A lane's top frame lives in registers; the frames below
// it live here, level k of lane i at `k × GROUP + i`, so a warp's 32 frames of one level are 512 contiguous
// bytes: one 16-byte load or store per lane and no bank conflict, whatever depth each lane is at. 16 or 32
// levels of 16 bytes for 32 lanes: 8 or 16 KiB, within WebGPU's 16 KiB of workgroup storage.
//
// Why this shape: NVIDIA's Vulkan driver gives a compute pipeline 48 KiB of workgroup memory per GPU core
// (measured on an H100: 6 groups of 8 KiB, 12 of 4 KiB, 24 of 2 KiB run at once), so only six warps per core
// search at a time and each step waits on its own reads. The step therefore reads the frame below the top
// before it knows whether it needs it, while it works on the top from registers, and moves each frame with a
// single 16-byte access (N=20 on the H100: 4.34 s with the top frame in memory and four word arrays, 3.59 s
// with the top in registers, 3.28 s with 16-byte frames).
//
// Level 0 is a dummy (the read below a sentinel top lands there), level 1 a sentinel, real frames start at
// level 2. The sentinel (`sentinel`, set per board) has every candidate and diagonal and every column open
// but the board's sides and bit 31: its candidates never run out within a pass (32 of them, one per step),
// and its child always has none (its `right` covers bits 0..30, where its open columns lie, and no open side
// column makes a forced row's candidate) and never completes a board, so a lane whose node is done idles on
// it without a check between steps. `slot` = (levels in use) × GROUP + the lane's index: the frame below the
// top is at `slot − GROUP`, a frame pushed goes to `slot`. Every index stays in bounds by construction,
// without a mask: frames are pushed only from rows above the last, so a stack of a node r rows from the bottom
// holds at most r − 1 frames above the sentinel, levels 2..r; the host cuts so that r ≤ DEPTH − 1.
const SLOTS: u32 = DEPTH * GROUP;
var<workgroup> stack: array<vec4<u32>, SLOTS>;
var<private> sentinel: vec4<u32>;

// Adds to a 64-bit count kept as (low, high).
fn add(c: vec2<u32>, x: u32) -> vec2<u32> {
    let low = c.x + x;
    return vec2<u32>(low, c.y + select(0u, 1u, low < x));
}

// Constellations without a table read per step (`COMPUTED`). On a table (`Masks::Table`) each step reads
// its child's row mask from the constellation's table: one word, but the 32 lanes of a group may hold nodes of
// as many constellations, so the read may touch as many cache lines; those steps took 1.5 times a mirror step,
// these 1.2 times (docs/benchmarks.md, "The row masks worked out from the border queens"). Here the masks are
// worked out in registers from four numbers a lane loads with its node (the host writes them in place of its
// table, `Masks::Computed`):
// - The bottom queen's column is never open: the bottom row is not searched (a board is full once the row
//   above it is) and a board's last queen needs no step. Its diagonals upward are `attacked`, two shifts.
// - The queens of the left and right columns (rows k and l) attack upward along one diagonal each, towards
//   the board. Those are ordinary diagonal bits that reach column 0 (or n − 1) at row k (or l): the lane puts
//   them into its node's diagonals, where they move as the queens' own do. So every row above k is spared the
//   squares that attack the left queen, as the table's masks spared them.
// - Rows k and l take their queen's column only (the diagonals are not asked: their own bit is there, and no
//   queen above attacks it). The first of the two takes `first_side`, the other the side column left open.
var<private> bottom: u32;       // the bottom queen's column, as a bit
var<private> forced_rows: u32;  // bit c set: the row with c columns open before its queen (n − c) is k or l
var<private> first_side: u32;   // the column of whichever of k and l comes first, as a bit
var<private> sides: u32;        // columns 0 and n − 1
var<private> inner: u32;        // every other column

// The columns the row below a frame may take: the frame's child (`open`, `left`, `right`) with `c` − 1 columns
// open, in row n − c (the bottom row is n − 1 and is not searched: `c` − 1 rows are left below it).
fn candidates(open: u32, left: u32, right: u32, c: u32) -> u32 {
    let d = c - 1u;
    let attacked = (bottom << d) | (bottom >> d);
    let side = open & sides;
    let forced = select(side, first_side, side == sides);
    // `& 31`: WGSL takes a shift's count modulo 32 anyway (a shift by 32 is undefined in SPIR-V); `c` is at
    // most 31.
    return select(open & ~(left | right | attacked) & inner, forced, ((forced_rows >> (c & 31u)) & 1u) != 0u);
}

// One step of a lane (see the header): `top` is its top frame, `slot` addresses its stack, `table` the first
// word of its constellation's table and `weight` that word.
fn step(slot: ptr<function, u32>, top: ptr<function, vec4<u32>>, found: ptr<function, u32>, table: u32, weight: u32) {
    let frame = *top;
    // Needed only when the top runs out without a child to enter; read first so that it arrives meanwhile.
    let below = stack[*slot - GROUP];
    // The child's row follows from the open columns (each placed row took one), so its mask can be asked for
    // before the candidate is chosen: read from the table (`& 31` keeps a full board within it; its child has
    // no candidate whatever the word), or worked out by `candidates` from `c`.
    let c = countOneBits(frame.x);
    var allowed = 0xffffffffu;
    if ROW_MASKS && !COMPUTED {
        allowed = tables[table + ((params.n + 1u - c) & 31u)];
    }
    // The candidates left after the lowest (`w & (w − 1)` clears it), and the lowest.
    let rest = frame.w & (frame.w - 1u);
    let bit = frame.w - rest;
    // The child. Bits that a shift moves past the board's edge never come back (no frame is ever rebuilt from
    // its child), so nothing needs masking: `open` keeps `free` on the board.
    // A candidate is an open column, so taking it is a subtraction; it is not in `left` either, so adding it is
    // an OR (why arithmetic: see `settle`). The one exception is the right queen's own column in its row on
    // computed masks: `left` holds that queen's diagonal there (put in by `node_frame`), the sum carries it
    // out of column n − 1 into column n where the OR would have kept it, and the shift takes it off the board
    // either way.
    let open = frame.x - bit;
    let left = (frame.y + bit) << 1u;
    let right = (frame.z | bit) >> 1u;
    var free = open & ~(left | right) & allowed;
    if COMPUTED {
        free = candidates(open, left, right, c);
    }
    // (The mirror split's weight is the same for every node: the host applies it, and this kernel keeps no
    // weight at all.)
    let child = vec4<u32>(open, left, right, free);
    settle(slot, top, found, frame, below, bit, rest, child, select(1u, weight, ROW_MASKS));
}

// The end of a step: `frame` was the top, `below` the frame under it, `bit` the candidate taken,
// `rest` the candidates left, `child` the board it makes (its candidates in `w`). Counts the child if it
// completes the board, pushes the parent if it keeps candidates and the child is entered, and makes the top the
// child, else the parent, else the frame below.
//
// Why the arithmetic: on NVIDIA's GPUs the step's bit operations, comparisons, shifts and selects all run on
// the integer logic units, while additions and multiplications may run on the multiply-add units beside them,
// and a step's time followed its count of the former (a constellation step as the driver compiles it: 30 of 41
// instructions in the XOR and select form, 28 of 44 in this one). Read as sums and products (the candidate
// taken by subtraction, the solution counted as `weight − weight × min(open, 1)`, the top's open columns as the
// parent's less `bit` when the child is entered) the same step runs 8–9% faster on an H100 (docs/benchmarks.md,
// "Logic moved to the multiply-add units"); more of it in that form was slower, the multiply-add units then
// having too much.
fn settle(slot: ptr<function, u32>, top: ptr<function, vec4<u32>>, found: ptr<function, u32>, frame: vec4<u32>,
          below: vec4<u32>, bit: u32, rest: u32, child: vec4<u32>, weight: u32) {
    let enter = child.w != 0u;
    let keep = rest != 0u;
    let parent = vec4<u32>(frame.xyz, rest);
    if enter && keep {
        stack[*slot] = parent;
    }
    // 1 if the child is entered, else 0.
    let entered = min(child.w, 1u);
    // Every column taken: a solution (and no candidate, so it is not entered).
    *found += weight - weight * min(child.x, 1u);
    // One level up if both the parent stays and the child is entered, one down if neither.
    *slot = *slot - GROUP + (entered + min(rest, 1u)) * GROUP;
    // The parent, where the child is entered too: its open columns less `bit` are the child's.
    let base = select(below, parent, enter || keep);
    *top = vec4<u32>(base.x - bit * entered, select(base.yzw, child.yzw, enter));
}

// A node's first frame on computed masks (see above): its bottom queen's column closed, the diagonals of the
// left and right queens below its row put in, its row's candidates; `free` 0 when it has none.
fn node_frame(node: Node, table: u32) -> vec4<u32> {
    let n = params.n;
    bottom = tables[table + 1u];
    forced_rows = tables[table + 2u];
    first_side = tables[table + 3u];
    let k = tables[table + 4u];
    let l = tables[table + 5u];
    let open = node.open & ~bottom;
    let c = countOneBits(open);
    // Its row: the rows below it to the bottom one, exclusive, are the open columns.
    let row = n - 1u - c;
    // A queen in row 0 of the left or right column is the top queen (placed); k or l is 0 then.
    var right = node.right;
    if k > row {
        right |= 1u << (k - row);
    }
    var left = node.left;
    if l > row {
        left |= 1u << (n - 1u - (l - row));
    }
    return vec4<u32>(open, left, right, candidates(open, left, right, c + 1u));
}

@compute @workgroup_size(32)
fn count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) me: u32) {
    let lane = gid.x;
    if lane >= params.lanes { return; }
    let n = params.n;
    sides = 1u | (1u << (n - 1u));
    inner = ~sides;
    sentinel = vec4<u32>(0x7fffffffu & inner, 0xffffffffu, 0xffffffffu, 0xffffffffu);

    // Unpark: the frames below the top back to their levels, the top to registers.
    stack[GROUP + me] = sentinel;
    let parked = lanes[lane].top;
    var top = sentinel;
    var slot = GROUP + me;
    if parked != 0u {
        for (var k = 0u; k + 1u < parked; k++) {
            stack[(k + 2u) * GROUP + me] = lanes[lane].frames[k];
        }
        top = lanes[lane].frames[parked - 1u];
        slot = (parked + 1u) * GROUP + me;
    }
    var table = lanes[lane].constellation * 32u;
    var weight = tables[table];
    if COMPUTED {
        // A parked lane's constellation's numbers (its frames are in its stack already).
        bottom = tables[table + 1u];
        forced_rows = tables[table + 2u];
        first_side = tables[table + 3u];
    }
    // Weighted solutions found in this dispatch: at most 8 per step, and steps stay below 2^28, so 32 bits
    // hold them; they join the lane's 64-bit count whenever the lane takes a node, and after the loop.
    var found = 0u;
    var total = vec2<u32>(lane_counts[2u * lane], lane_counts[2u * lane + 1u]);
    var steps = 0u;
    loop {
        // Taking a node counts as a step too: a lane may take many small ones in a row.
        if steps >= params.budget { break; }
        steps += 1u;
        if slot < 2u * GROUP {
            // The top is the sentinel: the lane's node is done. Checked first so that idle lanes do not push
            // the counter on and on (it would wrap in a long run).
            if atomicLoad(&control.next) >= params.nodes { break; }
            let index = atomicAdd(&control.next, 1u);
            if index >= params.nodes { break; }
            let node = nodes[index];
            total = add(total, found);
            found = 0u;
            table = node.constellation * 32u;
            weight = tables[table];
            if COMPUTED {
                let first = node_frame(node, table);
                if first.w != 0u {
                    top = first;
                    slot = 2u * GROUP + me;
                }
            } else {
                let row = n - countOneBits(node.open);
                let free = node.open & ~(node.left | node.right) & tables[table + row];
                if free != 0u {
                    top = vec4<u32>(node.open, node.left, node.right, free);
                    slot = 2u * GROUP + me;
                }
            }
            continue;
        }
        // Sixteen steps, written out and with no check between them: a lane that finishes its node on the
        // way idles on the sentinel. Loop checks cost as much as a step (measured for N=20: one step per
        // pass 8.1 s, sixteen 5.6 s; sixteen written out 7% faster than a loop of them; 24 no better).
        steps += 15u;
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
        step(&slot, &top, &found, table, weight);
    }

    total = add(total, found);
    lane_counts[2u * lane] = total.x;
    lane_counts[2u * lane + 1u] = total.y;
    // Park: the frames above the sentinel, then the top; none when the top is the sentinel.
    let frames = select(0u, slot / GROUP - 1u, slot >= 2u * GROUP);
    lanes[lane].top = frames;
    lanes[lane].constellation = table / 32u;
    if frames != 0u {
        atomicAdd(&control.busy, 1u);
        for (var k = 0u; k + 1u < frames; k++) {
            lanes[lane].frames[k] = stack[(k + 2u) * GROUP + me];
        }
        lanes[lane].frames[frames - 1u] = top;
    }
}

// The run's tail: once every node has been handed out, lanes that finish sit idle while the others work through
// their last nodes, the largest of which can take seconds. Between dispatches the host then runs this over the
// parked lanes: each busy lane gives away the untried candidates of its lowest frame (the largest subtrees it
// holds) as nodes of their own, one per candidate, which the idle lanes take as the next queue. A lane with
// frames above that one drops it and goes on with them; a lane whose only frame is its top keeps the next
// candidate and gives the rest. A child of a frame is never a full board here: a frame with frames above it
// lies above the last row, and a lone top frame gives only when more than one column is open.
@compute @workgroup_size(32)
fn split(@builtin(global_invocation_id) gid: vec3<u32>) {
    let lane = gid.x;
    if lane >= params.lanes { return; }
    let frames = lanes[lane].top;
    if frames == 0u { return; }
    let bottom = lanes[lane].frames[0];
    var give = bottom.w;
    if frames == 1u {
        give = select(0u, bottom.w & (bottom.w - 1u), countOneBits(bottom.x) > 1u);
    }
    let count = countOneBits(give);
    if count == 0u { return; }
    let at = atomicAdd(&control.donated, count);
    let room = arrayLength(&donated);
    if at + count > room {
        // No room for this lane's nodes: it keeps its work, and what it was given below the end gets nodes with
        // nothing to search (no open column left free), so the queue has no stale nodes in it.
        for (var k = at; k < min(at + count, room); k++) {
            donated[k] = Node(1u, 1u, 1u, 0u);
        }
        return;
    }
    let constellation = lanes[lane].constellation;
    var rest = give;
    for (var k = 0u; k < count; k++) {
        let bit = rest & (0u - rest);
        rest ^= bit;
        donated[at + k] = Node(bottom.x ^ bit, (bottom.y | bit) << 1u, (bottom.z | bit) >> 1u, constellation);
    }
    if frames == 1u {
        lanes[lane].frames[0] = vec4<u32>(bottom.xyz, bottom.w ^ give);
    } else {
        for (var k = 0u; k + 1u < frames; k++) {
            lanes[lane].frames[k] = lanes[lane].frames[k + 1u];
        }
        lanes[lane].top = frames - 1u;
    }
}
