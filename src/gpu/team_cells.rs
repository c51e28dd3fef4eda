//! Host side of `shaders/sudoku_teams.wgsl`: Sudoku of any shape but 9×9 with one board per workgroup, a team
//! of [`TEAM`] invocations sharing each pass. The lane driver ([`super::lanes`]) runs it as it runs the lane
//! kernels, a team standing for a lane; puzzles and results are packed as for the lane kernel of cells
//! ([`super::lane_cells`], which picks between the two).

use super::lanes::{LaneKernel, LaneLayout, driver_shader};
use super::pipeline::trusted_module;
use super::{GpuContext, GpuError};
use crate::sudoku::BoxShape;

/// Invocations per team (`TEAM` and `@workgroup_size` in the shader).
pub(crate) const TEAM: u32 = 128;
/// Stack frames per team by default. A search deeper than this gives its stack's foot to the pool, and once the
/// pool is full drops it and hands its puzzle to the CPU. The puzzles `forkboard generate` makes (16×16 about
/// 63% empty, 25×25 about half) search 20 and more guesses deep on singles alone: at 16 frames a thousand of them
/// sent about 9% (first solution) and 27% (counted to 2) to the CPU; at 32, none and 4 in 8,000 respectively
/// (docs/benchmarks.md, "Puzzles from `forkboard generate`"); 64 and 128 did no better. With locked candidates
/// the searches are shallower, but at 16 frames 371 of 4,000 counted to 2 still went to the CPU. A 25×25 frame is
/// 940 bytes: 62 MB for 2,048 teams.
const DEFAULT_DEPTH: u32 = 32;
/// Teams on a hardware adapter natively: an H100 runs 132 cores × (2,048 invocations ÷ 128) = 2,112 teams at
/// most, fewer for the workgroup memory each takes (under 4 KB for 25×25). Measured there on a thousand 25×25
/// puzzles: 1,024, 2,048 and 4,096 teams within noise of each other.
const NATIVE_TEAMS: u32 = 2048;
/// Words of a result before the solution: count, flags, live, guesses (as the lane kernel of cells).
const RESULT_HEAD: usize = 4;

/// How the team kernel lays out a batch of `shape`.
pub(crate) fn layout(shape: BoxShape) -> LaneLayout {
    let side = shape.side() as u32;
    let cells = shape.cells() as u32;
    let packed = cells.div_ceil(4);
    let board = packed + 3 * side;
    // Where a row or a column meets a box: N·R row segments and N·C column segments.
    let segments = side * (shape.rows() + shape.cols()) as u32;
    LaneLayout {
        side,
        box_rows: shape.rows() as u32,
        box_cols: shape.cols() as u32,
        puzzle_words: packed as usize,
        result_words: RESULT_HEAD + packed as usize,
        // The packed values, the unit masks, the guessed cell, its untried digits, a tag.
        frame_words: board + 3,
        default_depth: DEFAULT_DEPTH,
        native_lanes: NATIVE_TEAMS,
        // Per invocation and pass, at most: two slices of the cells, a slice of the units and of the segments
        // (two sweeps of N each, an upper bound: a pass reads each unit's tallies and a segment's 2(R − 1) or
        // 2(C − 1) neighbours twice over, a new puzzle sweeps its units once), two slices of the segments
        // cleared, a board stored or loaded (four cells a word), and a few more.
        pass_iterations: 2 * cells.div_ceil(TEAM)
            + (3 * side + segments).div_ceil(TEAM) * 2 * side
            + 2 * segments.div_ceil(TEAM)
            + 8 * board.div_ceil(TEAM)
            + 16,
        invocations_per_lane: TEAM,
    }
}

/// Compiles the team kernel; validation errors come back as [`GpuError::Api`].
pub(crate) async fn compile(ctx: &GpuContext) -> Result<LaneKernel, GpuError> {
    let source = driver_shader(
        "sudoku_teams",
        &[include_str!("../../shaders/sudoku_teams.wgsl")],
    );
    // SAFETY: every index in the shader is in bounds by construction. Puzzle and result indexes are below
    // `params.puzzles` (claims past it are refused before use), times the word counts the driver sizes the
    // `puzzles` and `results` buffers with, plus a word below them. Team indexes are below `params.lanes` (the
    // driver dispatches that many workgroups; `run` returns at once in any other). Frame indexes are the lane
    // kernels' (stack, pool and parking slots below `lanes::Plan::frames`), times `frame_words`, plus a word
    // below `frame_words`. The workgroup arrays are sized for 25×25 (`BoxShape` allows no larger side): cell
    // indexes below N² ≤ 625 (slices stop at N²; a unit's cells are `first + a·N + b` inside the grid), unit
    // indexes below 3N ≤ 75, segment indexes below N·(R + C) ≤ 336 (a line's segments are its first plus
    // fewer than R or C; the test below checks the bound over every shape). Every loop ends: a team loops at
    // most `budget` times, the inner loops over slices, a unit's N cells or a line's R or C segments, or a
    // word's four values.
    LaneKernel::compile(
        ctx,
        "sudoku_teams",
        "the Sudoku kernel of teams",
        false,
        || unsafe { trusted_module(ctx, source) },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_shader() {
        let wgsl = include_str!("../../shaders/sudoku_teams.wgsl");
        assert!(wgsl.contains(&format!("const TEAM: u32 = {TEAM}u;")));
        assert!(wgsl.contains(&format!("@workgroup_size({TEAM})")));
        assert!(wgsl.contains("var<workgroup> cell: array<u32, 625>"));
        assert!(wgsl.contains("var<workgroup> used: array<atomic<u32>, 75>"));
        // A result's solution follows its head (the driver's shader names the words).
        let driver = super::super::lanes::DRIVER_WGSL;
        assert!(driver.contains(&format!("const SOLUTION: u32 = {RESULT_HEAD}u;")));
        // The segment arrays hold the most segments of any shape (2×12 and 12×2: 24 × 14).
        let most = (2..=25)
            .flat_map(|rows| (2..=25).map(move |cols| (rows, cols)))
            .filter_map(|(rows, cols)| BoxShape::new(rows, cols).ok())
            .map(|shape| shape.side() * (shape.rows() + shape.cols()))
            .max()
            .unwrap();
        assert_eq!(most, 336);
        assert!(wgsl.contains("const SEGMENTS: u32 = 336u;"));
        assert!(wgsl.contains("var<workgroup> seg_may: array<atomic<u32>, 336>"));
        assert!(wgsl.contains("var<workgroup> seg_ban: array<atomic<u32>, 336>"));
        let large = layout("5x5".parse().unwrap());
        assert_eq!(
            (large.puzzle_words, large.frame_words, large.result_words),
            (157, 157 + 75 + 3, 161)
        );
        let odd = layout("2x3".parse().unwrap());
        assert_eq!((odd.side, odd.box_rows, odd.box_cols), (6, 2, 3));
        assert_eq!(odd.frame_words, 9 + 18 + 3);
        // A run on a software adapter stays within lavapipe's loop limit for at least one pass.
        assert!(large.pass_iterations < 40_000 / 16, "{large:?}");
    }
}
