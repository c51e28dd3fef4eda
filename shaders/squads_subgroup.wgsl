// How a squad's 32 invocations share values, where the adapter's subgroups are exactly 32 wide (the host checks):
// the squad is one subgroup, so every exchange is a shuffle or a reduction, with no barrier. Put in front of
// `shaders/sudoku_squads9.wgsl`; `shaders/squads_shared.wgsl` is the same five functions through workgroup memory.
// (No `enable subgroups;`: naga 30 refuses the directive and takes the functions when the device has the feature.)

// This invocation's index in its squad (its subgroup's invocation index: a workgroup of 32 is one subgroup of 32).
var<private> me: u32;
// The value this invocation offers in the current exchange.
var<private> offered: u32;

// Offers `v` to the squad; `peek(lane)` then reads what `lane` offered, until `shared_done`.
fn share(v: u32) { offered = v; }
fn peek(lane: u32) -> u32 { return subgroupShuffle(offered, lane); }
fn shared_done() {}
// The OR of every invocation's `bits`, the same in all.
fn vote(bits: u32) -> u32 { return subgroupOr(bits); }
// The least of every invocation's `x`, the same in all.
fn lowest(x: u32) -> u32 { return subgroupMin(x); }
// `lane`'s `x`, the same in all.
fn told(x: u32, lane: u32) -> u32 { return subgroupShuffle(x, lane); }
