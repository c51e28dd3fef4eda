//! A puzzle's grade from its logical path: the hardest technique it needs, raised a grade for every threshold its
//! score passes (a long path of medium steps is harder than a short one).

use super::super::format::GradeColumn;
use super::super::grid::Grid;
use super::super::solver::{DEFAULT_MAX_GUESSES, with_thread_solver};
use super::super::symbols::Symbols;
use super::technique::{Grade, Technique};
use super::{End, Path};

/// A puzzle's grade and what it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rating {
    /// The grade.
    pub grade: Grade,
    /// The sum of every step's points.
    pub score: u32,
    /// The hardest technique on the path (by grade, then points), `None` for a puzzle given full.
    pub hardest: Option<Technique>,
    /// Steps on the path.
    pub steps: usize,
}

impl Rating {
    /// A puzzle's rating when it has exactly one solution (a grade of a puzzle with several or none would say
    /// nothing); otherwise why not. The count uses this thread's solver and lets it go before the logical
    /// solution, whose guesses need it again.
    pub fn of_unique(puzzle: &Grid) -> Result<Self, String> {
        let counted = with_thread_solver(DEFAULT_MAX_GUESSES, |s| s.solve(puzzle, 2));
        match counted.count {
            _ if counted.gave_up => Err("the search gave up before it could tell".into()),
            0 => Err("no solution".into()),
            1 => Self::of(&super::solve_unique(puzzle, Symbols::Standard))
                .ok_or_else(|| "no logical path".to_string()),
            _ => Err("more than one solution".into()),
        }
    }

    /// A graded CSV's columns for a puzzle (see [`Rating::of_unique`]).
    pub fn column(puzzle: &Grid) -> GradeColumn {
        Self::of_unique(puzzle).map(|r| (r.grade.name(), r.score))
    }

    /// The rating of a path that ended solved; `None` when the position has no solution.
    pub fn of(path: &Path) -> Option<Self> {
        if path.end != End::Solved {
            return None;
        }
        let score = path.steps.iter().map(|s| s.technique.score()).sum();
        let hardest = path
            .steps
            .iter()
            .map(|s| s.technique)
            .max_by_key(|t| (t.grade(), t.score()));
        let mut grade = hardest.map_or(Grade::Easy, Technique::grade);
        while grade < Grade::Extreme && score > grade.max_score() {
            grade = Grade::ALL[grade as usize + 1];
        }
        Some(Self {
            grade,
            score,
            hardest,
            steps: path.steps.len(),
        })
    }
}
