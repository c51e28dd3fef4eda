//! Host side of `shaders/sudoku_lanes.wgsl`: Sudoku of any shape (4×4 to 25×25, rectangular boxes too) with
//! one board per GPU lane, a value per cell. The batch driver sends it every shape but 9×9, which has a kernel
//! of its own ([`super::lane9`]); the shader's header explains the kernel, `super::lanes` the driver. A batch
//! too small to keep the lanes busy goes to the team kernel instead (`super::team_cells`: a workgroup per
//! board), which takes and gives back the same words.
//!
//! A puzzle goes up as its values packed four to a word (one byte each, 0 for an empty cell) and comes back as
//! a count, flags, a live count, its guesses and the first solution packed the same way.

use std::borrow::Borrow;

use super::lanes::{FLAG_OVERFLOW, LaneKernel, LaneLayout, driver_shader};
#[cfg(not(target_arch = "wasm32"))]
use super::pipeline::both;
use super::pipeline::trusted_module;
use super::sudoku_fork::{CellsKernel, ForkConfig, ForkStats, GpuOutcome};
use super::team_cells;
use super::{GpuContext, GpuError};
use crate::sudoku::{BoxShape, Grid};

/// Stack frames per lane by default: large grids at the densities people solve guess rarely, and a deeper
/// search gives its stack's foot to the pool. A 25×25 frame is 1,020 bytes.
const DEFAULT_DEPTH: u32 = 16;
/// Lanes on a hardware adapter natively. A large grid's lane waits on memory more than a 9×9 one: on the
/// H100, 25×25 searches took 43 ms a 100,000 with 131,072 lanes and 80-89 ms with 65,536.
const NATIVE_LANES: u32 = 1 << 17;
/// Words of a result before the solution: count, flags, live, guesses.
const RESULT_HEAD: usize = 4;
/// Batches up to this size go to the team kernel ([`CellsKernel::Auto`]), and larger ones of sides from
/// [`TEAMS_FROM_SIDE`] on: measured on an H100, teams searched 25×25 puzzles faster than lanes at every batch
/// size (a hundred thousand: 13 ms against 43), 12×12 to 20×20 ones level or faster at a hundred thousand and
/// faster below. Smaller shapes were not measured in large batches, and keep their lanes there.
pub const TEAMS_UP_TO: usize = 8192;
/// The side from which every batch goes to the team kernel ([`CellsKernel::Auto`]).
pub const TEAMS_FROM_SIDE: usize = 12;

/// How the kernel lays out a batch of `shape`.
fn layout(shape: BoxShape) -> LaneLayout {
    let side = shape.side() as u32;
    let packed = shape.cells().div_ceil(4);
    LaneLayout {
        side,
        box_rows: shape.rows() as u32,
        box_cols: shape.cols() as u32,
        puzzle_words: packed,
        result_words: RESULT_HEAD + packed,
        // The packed values, the unit masks, the open cells, the guessed cell, its untried digits, a tag.
        frame_words: frame_words(shape),
        default_depth: DEFAULT_DEPTH,
        native_lanes: NATIVE_LANES,
        // Two sweeps over the cells, the unit tallies, a frame stored and loaded.
        pass_iterations: 3 * side * side + 2 * frame_words(shape),
        invocations_per_lane: 1,
    }
}

/// Words of a stack frame: the packed values, the unit masks, the open cells (a bit each), the guessed cell,
/// its untried digits, a tag.
fn frame_words(shape: BoxShape) -> u32 {
    (shape.cells().div_ceil(4) + 3 * shape.side() + shape.cells().div_ceil(32) + 3) as u32
}

/// Packs values four to a word, the first in the lowest byte (the shader's layout), into `words`: a word is
/// four values read as a little-endian number (a batch of a thousand 25×25 puzzles packs in a fraction of the
/// time a byte at a time took).
fn pack(values: &[u8], words: &mut [u32]) {
    let fours = values.chunks_exact(4);
    let rest = fours.remainder();
    let whole = values.len() / 4;
    for (word, four) in words.iter_mut().zip(fours) {
        *word = u32::from_le_bytes([four[0], four[1], four[2], four[3]]);
    }
    if !rest.is_empty() {
        let mut last = [0u8; 4];
        last[..rest.len()].copy_from_slice(rest);
        words[whole] = u32::from_le_bytes(last);
    }
}

/// The first `cells` values of packed `words`, handed to `take`. On a little-endian host (every target we
/// build for) a word's bytes lie in memory in the values' order, so they are lent where they lie: a grid is
/// then made with one copy, where collecting them byte by byte took longer than checking the answer (25×25:
/// 230 ns against 98 for the grid on the development VM).
fn unpack<T>(words: &[u32], cells: usize, take: impl FnOnce(&[u8]) -> T) -> T {
    if cfg!(target_endian = "little") {
        take(&bytemuck::cast_slice(words)[..cells])
    } else {
        let values: Vec<u8> = words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take(cells)
            .collect();
        take(&values)
    }
}

/// The compiled kernels (a board per lane, a board per team), and each one's last batch's buffers.
pub struct LaneCellsKernel {
    lanes: LaneKernel,
    teams: LaneKernel,
}

impl LaneCellsKernel {
    /// Compiles the shader; validation errors come back as [`GpuError::Api`].
    pub async fn new(ctx: &GpuContext) -> Result<Self, GpuError> {
        let source = driver_shader(
            "sudoku_lanes",
            &[include_str!("../../shaders/sudoku_lanes.wgsl")],
        );
        // SAFETY: every index in the shader is in bounds by construction. Puzzle and result indexes are below
        // `params.puzzles` (claims past it are refused before use): puzzle words `i × packed + w` and result
        // words `i × result_words + k` with `w < packed`, `k < result_words`, the sizes the driver gives the
        // `puzzles` and `results` buffers. Lane indexes are below `params.lanes`. Frame indexes are the 9×9
        // kernel's (stack, pool and parking slots below `lanes::Plan::frames`), times `frame_words`, plus a word
        // below `frame_words`. The private arrays are sized for 25×25 (`BoxShape` allows no larger side): value
        // words below ⌈N²/4⌉ ≤ 157, open-cell words below ⌈N²/32⌉ ≤ 20 (cell indexes come from their bits or
        // from rows and columns below N), unit indexes below 3N ≤ 75, tally indexes below 2N ≤ 50. Every loop
        // ends: a lane loops at most `budget` times, the inner loops over cells, units or a mask's bits.
        let lanes = || {
            LaneKernel::compile(
                ctx,
                "sudoku_lanes",
                "the Sudoku kernel for large and odd shapes",
                false,
                || unsafe { trusted_module(ctx, source) },
            )
        };
        // Natively the two kernels are made at once (`super::pipeline::made_at_once` says why).
        #[cfg(not(target_arch = "wasm32"))]
        let (lanes, teams) = both(
            || pollster::block_on(lanes()),
            || pollster::block_on(team_cells::compile(ctx)),
        );
        #[cfg(not(target_arch = "wasm32"))]
        let (lanes, teams) = (lanes?, teams?);
        #[cfg(target_arch = "wasm32")]
        let (lanes, teams) = (lanes().await?, team_cells::compile(ctx).await?);
        let kernel = Self { lanes, teams };
        // Drivers may finish compiling on the first dispatch: one puzzle on each now keeps that out of the
        // first batch.
        let warm_up = Grid::empty("2x2".parse().expect("a valid shape"));
        for cells_kernel in [CellsKernel::Lanes, CellsKernel::Teams] {
            let config = ForkConfig {
                cells_kernel,
                ..ForkConfig::default()
            };
            kernel
                .solve(ctx, &[&warm_up], 1, config, &mut |_, _| true)
                .await?;
        }
        Ok(kernel)
    }

    /// Solves a batch of puzzles of one shape (any other panics), counting up to `limit` solutions each.
    /// Givens that clash come back without a solution. A puzzle the kernel hands back (its stack and the pool
    /// full at once, or more than `config.max_guesses` guesses) comes back `overflow`. `progress(finished,
    /// total)` is called after each submission; returning false cancels.
    pub async fn solve<P: Borrow<Grid> + Sync>(
        &self,
        ctx: &GpuContext,
        puzzles: &[P],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Result<(Vec<GpuOutcome>, ForkStats), GpuError> {
        self.solve_each(ctx, puzzles, limit, config, progress, |_, result| {
            let overflow = result.overflowed();
            let count = u64::from(result.count()).min(limit);
            GpuOutcome {
                count: if overflow { 0 } else { count },
                solution: result.solution(),
                hit_limit: !overflow && count >= limit,
                overflow,
            }
        })
        .await
    }

    /// [`LaneCellsKernel::solve`], handing each puzzle's result to `each(index, result)` where the read-back
    /// lies (on every core natively) and returning what it makes of them, in order.
    pub async fn solve_each<P: Borrow<Grid> + Sync, T: Send>(
        &self,
        ctx: &GpuContext,
        puzzles: &[P],
        limit: u64,
        config: ForkConfig,
        progress: &mut dyn FnMut(usize, usize) -> bool,
        each: impl Fn(usize, LaneCellsResult) -> T + Sync + Send,
    ) -> Result<(Vec<T>, ForkStats), GpuError> {
        let Some(first) = puzzles.first() else {
            return Ok((Vec::new(), ForkStats::default()));
        };
        let shape = first.borrow().shape();
        // (Checked only in debug builds, as the 9×9 kernel's: the batch driver has seen to it.)
        debug_assert!(
            puzzles.iter().all(|p| p.borrow().shape() == shape),
            "a batch of the lane kernel holds one shape"
        );
        let on_teams = match config.cells_kernel {
            CellsKernel::Auto => puzzles.len() <= TEAMS_UP_TO || shape.side() >= TEAMS_FROM_SIDE,
            CellsKernel::Lanes => false,
            CellsKernel::Teams => true,
        };
        let (kernel, layout) = if on_teams {
            (&self.teams, team_cells::layout(shape))
        } else {
            (&self.lanes, layout(shape))
        };
        kernel
            .solve_each(
                ctx,
                &layout,
                puzzles,
                limit,
                config,
                progress,
                |puzzle, words| pack(puzzle.cells(), words),
                |i, words| each(i, LaneCellsResult { words, shape }),
            )
            .await
    }
}

/// One puzzle's result words, as the kernel left them.
#[derive(Clone, Copy, Debug)]
pub struct LaneCellsResult<'a> {
    words: &'a [u32],
    shape: BoxShape,
}

impl LaneCellsResult<'_> {
    /// Solutions found (may pass the limit by a few).
    pub fn count(&self) -> u32 {
        self.words[0]
    }

    /// The kernel handed the puzzle back: the caller must solve it itself.
    pub fn overflowed(&self) -> bool {
        self.words[1] & FLAG_OVERFLOW != 0
    }

    /// The first solution, when one was found (unchecked: the caller checks it).
    pub fn solution(&self) -> Option<Grid> {
        if self.count() == 0 || self.overflowed() {
            return None;
        }
        unpack(&self.words[RESULT_HEAD..], self.shape.cells(), |values| {
            Grid::new(self.shape, values)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_pack_four_to_a_word_and_back() {
        let values: Vec<u8> = (0..625).map(|i| (i % 26) as u8).collect();
        let mut words = vec![0; 157];
        pack(&values, &mut words);
        assert_eq!(words[0], 0x0302_0100);
        // The last word holds one value (625 = 4 × 156 + 1), the rest of it zero.
        assert_eq!(words[156], 624 % 26);
        assert_eq!(unpack(&words, 625, <[u8]>::to_vec), values);
    }

    #[test]
    fn layouts_match_the_shader_and_its_private_arrays() {
        let wgsl = include_str!("../../shaders/sudoku_lanes.wgsl");
        assert!(wgsl.contains("var<private> values: array<u32, 157>"));
        assert!(wgsl.contains("var<private> open_cells: array<u32, 20>"));
        assert!(wgsl.contains("var<private> used: array<u32, 75>"));
        // A result's solution follows its head (the driver's shader names the words).
        let driver = super::super::lanes::DRIVER_WGSL;
        assert!(driver.contains(&format!("const SOLUTION: u32 = {RESULT_HEAD}u;")));
        let large = layout("5x5".parse().unwrap());
        assert_eq!(
            (large.puzzle_words, large.frame_words, large.result_words),
            (157, 255, 161)
        );

        let odd = layout("2x3".parse().unwrap());
        assert_eq!((odd.side, odd.box_rows, odd.box_cols), (6, 2, 3));
        assert_eq!(odd.frame_words, 9 + 18 + 2 + 3);
    }
}
