// What the three Sudoku kernels of lanes (`sudoku_lane9.wgsl`, `sudoku_lanes.wgsl`, `sudoku_teams.wgsl`) share
// with their driver, `src/gpu/lanes.rs`, and with each other: the run's parameters, the counters every lane
// shares, a result's flags, what a pass ends in, the bindings all three declare alike, and `publish`, the step
// between two runs. The host puts this file in front of each kernel's own (`lanes::driver_shader`). In the team
// kernel a team of invocations stands for a lane.
//
// Layout mirrors `src/gpu/lanes.rs` (LaneParams, LaneControl). Bindings 1, 2 and 5 (the puzzles, the results
// and the frames) are each kernel's own: their element types differ.

struct Params {
    puzzles: u32,      // puzzles in the batch
    limit: u32,        // solutions wanted per puzzle (1: the first)
    lanes: u32,        // lanes that work (teams, one workgroup each, in the team kernel)
    depth: u32,        // stack frames per lane, a power of two
    pool: u32,         // frames in the shared pool, a power of two
    budget: u32,       // passes per lane in one dispatch
    // Read by the kernels of other shapes only (the 9×9 kernel's shape is built in).
    side: u32,         // N, at most 25
    box_rows: u32,     // R
    box_cols: u32,     // C
    frame_words: u32,  // words in a frame
    result_words: u32, // words in a result
    max_guesses: u32,  // guesses per puzzle before it goes to the host
}

struct Control {
    next_puzzle: atomic<u32>,  // puzzles handed out (claims may run past `puzzles`)
    finished: atomic<u32>,     // puzzles whose last branch has ended
    pool_head: atomic<u32>,    // next pooled frame to take (claims may run past pool_tail; publish clamps)
    pool_claim: atomic<u32>,   // next pool slot to fill (claims may run past write_limit; publish clamps)
    pool_tail: u32,            // frames below this may be taken in this dispatch
    write_limit: u32,          // slots below this may be filled in this dispatch (pool_head + pool at publish)
    quota: u32,                // branches each lane may give away in this dispatch
    busy: atomic<u32>,         // lanes that parked a board at the end of the last run
    guesses: atomic<u32>,      // statistics (the host resets it before each submission)
    donated: atomic<u32>,      // statistics: branches given to the pool
    split: atomic<u32>,        // statistics: branches the 9×9 kernel's `lone` handed to idle lanes
    pad: u32,
}

// A result's flags.
const DONE: u32 = 1u;
const OVERFLOW: u32 = 2u;
// Set by the kernels of other shapes only: a branch was dropped for want of room; unless the count is reached,
// the host re-solves.
const PRUNED: u32 = 4u;

// The words of a result in the kernels of other shapes (the 9×9 kernel's results are `Result` structs).
const COUNT: u32 = 0u;
const FLAGS: u32 = 1u;
const LIVE: u32 = 2u;
const GUESSES: u32 = 3u;
const SOLUTION: u32 = 4u;

// What a pass ends in.
const PROGRESS: u32 = 0u;
const STUCK: u32 = 1u;
const DEAD: u32 = 2u;
const SOLVED: u32 = 3u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read_write> control: Control;
@group(0) @binding(4) var<storage, read_write> lanes: array<vec4<u32>>;  // per lane: (puzzle + 1 or 0, depth, bottom, forked)

// Between two runs: the pool's boundaries move (branches given in the last run may now be taken), and busy
// lanes get a quota of branches to give once the puzzles not yet started and the pooled branches together are
// fewer than the lanes (some lanes would idle: from the first run on for a single puzzle).
@compute @workgroup_size(1)
fn publish() {
    var head = min(atomicLoad(&control.pool_head), control.pool_tail);
    var tail = min(atomicLoad(&control.pool_claim), control.write_limit);
    // Whole turns of the ring drop out of the counters, so they never wrap.
    let turns = head & ~(params.pool - 1u);
    head -= turns;
    tail -= turns;
    atomicStore(&control.pool_head, head);
    atomicStore(&control.pool_claim, tail);
    control.pool_tail = tail;
    control.write_limit = head + params.pool;
    let waiting = tail - head;
    let busy = atomicLoad(&control.busy);
    atomicStore(&control.busy, 0u);
    let unstarted = params.puzzles - min(atomicLoad(&control.next_puzzle), params.puzzles);
    var quota = 0u;
    if unstarted + waiting < params.lanes {
        quota = clamp((params.lanes - unstarted - waiting) / max(busy, 1u), 1u, 16u);
    }
    control.quota = quota;
}
