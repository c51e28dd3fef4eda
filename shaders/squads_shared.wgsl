// How a squad's 32 invocations share values on any adapter: through workgroup memory, with barriers (a squad is
// a workgroup of 32). Put in front of `shaders/sudoku_squads9.wgsl`; `shaders/squads_subgroup.wgsl` is the same five
// functions as subgroup operations. Every result a branch depends on comes through `workgroupUniformLoad`, so
// the kernel's barriers all stand in uniform control flow.

// This invocation's index in its squad.
var<private> me: u32;
// The words offered in the current exchange, one an invocation.
var<workgroup> board: array<u32, 32>;
// A vote's OR, and a minimum's complement (workgroup memory starts at zero, so its reset value is 0 too).
var<workgroup> tally: atomic<u32>;
var<workgroup> least: atomic<u32>;
// A result handed to every invocation. Each function below writes it only after a barrier that every
// invocation passes after its last read of it.
var<workgroup> said: u32;

// Offers `v` to the squad; `peek(lane)` then reads what `lane` offered, until `shared_done`.
fn share(v: u32) {
    board[me] = v;
    workgroupBarrier();
}
fn peek(lane: u32) -> u32 { return board[lane]; }
fn shared_done() { workgroupBarrier(); }

// The OR of every invocation's `bits`, the same in all.
fn vote(bits: u32) -> u32 {
    if bits != 0u { atomicOr(&tally, bits); }
    workgroupBarrier();
    if me == 0u { said = atomicExchange(&tally, 0u); }
    return workgroupUniformLoad(&said);
}

// The least of every invocation's `x`, the same in all.
fn lowest(x: u32) -> u32 {
    atomicMax(&least, ~x);
    workgroupBarrier();
    if me == 0u { said = ~atomicExchange(&least, 0u); }
    return workgroupUniformLoad(&said);
}

// `lane`'s `x`, the same in all.
fn told(x: u32, lane: u32) -> u32 {
    workgroupBarrier();
    if me == lane { said = x; }
    return workgroupUniformLoad(&said);
}
