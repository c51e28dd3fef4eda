//! How a GPU Sudoku batch runs and what it reports, the same for both lane kernels ([`super::lane9`] for 9×9,
//! [`super::lane_cells`] for every other shape). The module keeps the name of the seed's "bitmask fork" kernel,
//! which the lane kernels replaced: a stuck board still forks, into idle lanes.

use crate::sudoku::Grid;

/// How a batch runs (on either Sudoku kernel).
#[derive(Clone, Copy, Debug)]
pub struct ForkConfig {
    /// Boards in flight: the lanes (one board each); 0 picks a number from the adapter and the device's
    /// limits.
    pub slots: u32,
    /// Stack frames per lane (rounded up to a power of two; 0: the kernel's default).
    pub stack_depth: u32,
    /// The guess budget of a puzzle: the kernel of large and odd shapes hands a puzzle past it to the CPU, whose
    /// budget it is too (see [`crate::sudoku::solver::Solver::max_guesses`]).
    pub max_guesses: u64,
    /// Which kernel searches shapes other than 9×9.
    pub cells_kernel: CellsKernel,
    /// Which kernel searches 9×9.
    pub nine_kernel: NineKernel,
}

impl Default for ForkConfig {
    fn default() -> Self {
        Self {
            slots: 0,
            stack_depth: 0,
            max_guesses: crate::sudoku::solver::DEFAULT_MAX_GUESSES,
            cells_kernel: CellsKernel::Auto,
            nine_kernel: NineKernel::Auto,
        }
    }
}

/// Which kernel searches a batch of a shape other than 9×9 ([`super::lane_cells`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CellsKernel {
    /// Teams for a batch too small to keep the lanes busy, lanes for a larger one.
    #[default]
    Auto,
    /// One board per invocation (`shaders/sudoku_lanes.wgsl`): the most boards at once.
    Lanes,
    /// One board per workgroup (`shaders/sudoku_teams.wgsl`): each board searched soonest.
    Teams,
}

/// Which kernel searches a batch of 9×9 puzzles ([`super::lane9`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NineKernel {
    /// Squads of 32 invocations sharing one puzzle's search for a batch of one
    /// (`shaders/sudoku_squads9.wgsl`, [`super::squad9`]); a workgroup per puzzle for a batch of a few; lanes
    /// for a larger one.
    #[default]
    Auto,
    /// One board per invocation (`shaders/sudoku_lane9.wgsl`), branches shared between runs.
    Lanes,
    /// A workgroup of 256 invocations per puzzle (`shaders/sudoku_lone9.wgsl`), branches shared after every
    /// pass, wherever the lanes hold 256 per puzzle (else the lane kernel).
    Lone,
}

/// What the GPU found for one puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuOutcome {
    /// Solutions counted, clamped to the limit.
    pub count: u64,
    /// The first solution found (unchecked: the caller checks it).
    pub solution: Option<Grid>,
    /// The count reached the limit.
    pub hit_limit: bool,
    /// The kernel handed the puzzle back (no room for its search, or past its guess budget): the caller must
    /// solve it itself.
    pub overflow: bool,
}

/// Counters of one batch (on either Sudoku kernel).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ForkStats {
    /// Runs of the kernel (each lane searching for a budget of passes).
    pub rounds: u64,
    /// Submissions (each followed by a small read-back).
    pub submissions: u64,
    /// Branches given to idle lanes.
    pub forks: u64,
    /// Of those, branches that splits (several guesses at once, the 9×9 `lone` kernel) handed out.
    pub split: u64,
    /// Guesses.
    pub guesses: u64,
    /// Puzzles handed back for the CPU.
    pub overflowed: u64,
    /// Puzzles answered on the host while the GPU still searched others (a small batch's first submission
    /// is read back in two parts).
    pub answered_early: u64,
    /// The lanes used.
    pub slots: u32,
    /// Seconds packing and uploading the batch.
    pub upload_seconds: f64,
    /// Seconds from the first submission until every puzzle had finished (with a small batch's puzzles
    /// answered during the search).
    pub search_seconds: f64,
    /// Seconds reading the results back and handing them on.
    pub download_seconds: f64,
    /// Of those, the seconds until the results were mapped on the host.
    pub transfer_seconds: f64,
}

impl ForkStats {
    /// Adds another batch's counters (the pool size kept is the largest).
    pub fn add(&mut self, more: &ForkStats) {
        self.rounds += more.rounds;
        self.submissions += more.submissions;
        self.forks += more.forks;
        self.split += more.split;
        self.guesses += more.guesses;
        self.overflowed += more.overflowed;
        self.answered_early += more.answered_early;
        self.upload_seconds += more.upload_seconds;
        self.search_seconds += more.search_seconds;
        self.download_seconds += more.download_seconds;
        self.transfer_seconds += more.transfer_seconds;
        self.slots = self.slots.max(more.slots);
    }
}
