//! From a record read to the answer written: check the givens, solve, check the solution. The one path every
//! engine's results go through before anyone sees them.

use super::bands;
use super::format::{Answer, ErrorKind, PuzzleError, Record, check_givens};
use super::grid::Grid;
use super::solver::{Outcome, Solver};
use super::verify;

/// What to find for each puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The first solution only.
    First,
    /// Count solutions up to this limit (2 is the uniqueness check).
    Count(u64),
}

impl Mode {
    /// How many solutions the solver must look for.
    pub fn limit(self) -> u64 {
        match self {
            Mode::First => 1,
            Mode::Count(n) => n.max(1),
        }
    }

    /// The count an answer in this mode shows: none for a first solution; else the solutions found, and
    /// whether the search stopped short of the whole count (at the limit, or given up: written "1+").
    pub fn shown_count(self, found: u64, stopped_short: bool) -> Option<(u64, bool)> {
        match self {
            Mode::First => None,
            Mode::Count(_) => Some((found, stopped_short)),
        }
    }
}

/// Running totals of answers, for summaries (the CLI's `--stats`, the web app's Batch page).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Puzzles answered.
    pub puzzles: u64,
    /// Puzzles with a solution.
    pub solved: u64,
    /// Counting mode: exactly one solution.
    pub unique: u64,
    /// Counting mode: more than one.
    pub multiple: u64,
    /// Valid puzzles without a solution.
    pub no_solution: u64,
    /// Puzzles that could not be read or whose givens clash.
    pub invalid: u64,
    /// Puzzles whose search gave up (the guess budget ran out) before a solution, or, counting, before telling
    /// whether the one solution found is the only one.
    pub gave_up: u64,
}

impl Tally {
    /// Counts one answer.
    pub fn add(&mut self, answer: &Answer) {
        match answer {
            Answer::Solved { count, gave_up, .. } => return self.add_solved(*count, *gave_up),
            Answer::NoSolution => self.no_solution += 1,
            Answer::GaveUp { .. } => self.gave_up += 1,
            Answer::Invalid(_) => self.invalid += 1,
        }
        self.puzzles += 1;
    }

    /// Counts one solved puzzle (an [`Answer::Solved`] with this `count` and `gave_up`), for answers written
    /// without making an [`Answer`].
    pub fn add_solved(&mut self, count: Option<(u64, bool)>, gave_up: bool) {
        self.puzzles += 1;
        self.solved += 1;
        match (count, gave_up) {
            (Some((1, _)), true) => self.gave_up += 1,
            (Some((1, false)), false) => self.unique += 1,
            // A limit of one: whether there are more was not asked.
            (Some((1, true)), false) | (None, _) => {}
            (Some(_), _) => self.multiple += 1,
        }
    }

    /// Adds another tally's counts (of answers counted elsewhere, e.g. on another thread).
    pub fn merge(&mut self, other: &Tally) {
        self.puzzles += other.puzzles;
        self.solved += other.solved;
        self.unique += other.unique;
        self.multiple += other.multiple;
        self.no_solution += other.no_solution;
        self.invalid += other.invalid;
        self.gave_up += other.gave_up;
    }

    /// True when every puzzle was solved.
    pub fn all_solved(&self) -> bool {
        self.no_solution == 0 && self.invalid == 0 && self.gave_up == 0
    }
}

/// Answers one record on the CPU.
pub fn answer(record: &Record, solver: &mut Solver, mode: Mode) -> Answer {
    let puzzle = match &record.puzzle {
        Ok(puzzle) => puzzle,
        Err(e) => return Answer::Invalid(e.clone()),
    };
    // A 9×9 is searched before its givens are checked (its search copes with clashing ones): a solution that
    // passes the independent check keeps every given and repeats no value, which proves them. Any other outcome
    // has them checked, so a clash is named as before. Other shapes are checked first.
    let searched_first = puzzle.shape() == bands::nine();
    if !searched_first && let Err(kind) = check_givens(puzzle) {
        return invalid(record.line, kind);
    }
    let answer = from_outcome(
        record.line,
        puzzle,
        solver.solve(puzzle, mode.limit()),
        mode,
    );
    match answer {
        Answer::Solved { .. } => answer,
        _ if searched_first => {
            check_givens(puzzle).map_or_else(|kind| invalid(record.line, kind), |()| answer)
        }
        _ => answer,
    }
}

/// The puzzle of a record when it can go to a solver (any engine), or its answer when it cannot: unreadable,
/// or givens that clash.
#[allow(
    clippy::result_large_err,
    reason = "the error is the record's answer, moved once to its place among the answers (boxing it would \
              allocate for every invalid record); `allow`, not `expect`: on wasm32 it is under the lint's size"
)]
pub fn ready_for_solver(record: &Record) -> Result<&Grid, Answer> {
    let puzzle = record
        .puzzle
        .as_ref()
        .map_err(|e| Answer::Invalid(e.clone()))?;
    check_givens(puzzle).map_err(|kind| invalid(record.line, kind))?;
    Ok(puzzle)
}

/// Another engine's result for a puzzle, checked like any other; a missing result, or one the independent
/// check rejects, is solved again on the CPU. Also says whether the CPU had to step in.
pub fn checked_or_solved(
    line: usize,
    puzzle: &Grid,
    outcome: Option<Outcome>,
    mode: Mode,
    cpu: &mut Solver,
) -> (Answer, bool) {
    match outcome.map(|o| from_outcome(line, puzzle, o, mode)) {
        Some(answer) if !matches!(answer, Answer::Invalid(_)) => (answer, false),
        _ => (
            from_outcome(line, puzzle, cpu.solve(puzzle, mode.limit()), mode),
            true,
        ),
    }
}

/// [`checked_or_solved`] for a puzzle handed over before its givens were checked, as [`answer`] does for a
/// 9×9: a solution that passes the independent check proves them; any other result has them checked first, so
/// a clash is named as [`ready_for_solver`] names it.
pub fn checked_or_solved_unchecked(
    line: usize,
    puzzle: &Grid,
    outcome: Option<Outcome>,
    mode: Mode,
    cpu: &mut Solver,
) -> (Answer, bool) {
    let outcome = match outcome {
        Some(found) if found.solution.is_some() => match from_outcome(line, puzzle, found, mode) {
            answer @ Answer::Solved { .. } => return (answer, false),
            // A solution the check rejects: solved again below, once the givens are known to be sound.
            _ => None,
        },
        other => other,
    };
    if let Err(kind) = check_givens(puzzle) {
        return (invalid(line, kind), false);
    }
    checked_or_solved(line, puzzle, outcome, mode, cpu)
}

/// Turns a solver's outcome (from any engine) into an answer, after checking its solution independently.
pub fn from_outcome(line: usize, puzzle: &Grid, outcome: Outcome, mode: Mode) -> Answer {
    let Some(solution) = outcome.solution else {
        return if outcome.gave_up {
            Answer::GaveUp {
                guesses: outcome.guesses,
            }
        } else {
            Answer::NoSolution
        };
    };
    if !verify::is_solution(puzzle, &solution) {
        return invalid(
            line,
            ErrorKind::Internal(
                "the solver returned a grid that is not a solution; please report this puzzle"
                    .into(),
            ),
        );
    }
    // A count the search gave up on is a lower bound, written like one cut at the limit ("1+").
    let count = mode.shown_count(outcome.count, outcome.hit_limit || outcome.gave_up);
    let note = if outcome.gave_up && count.is_some() {
        Some(format!(
            "the search gave up after {} guesses",
            outcome.guesses
        ))
    } else {
        (outcome.count > 1)
            .then(|| why_not_unique(puzzle))
            .flatten()
    };
    Answer::Solved {
        solution,
        count,
        note,
        gave_up: outcome.gave_up,
    }
}

/// True when the search behind `answer` gave up (the guess budget ran out): no solution found, or a count cut
/// short.
pub fn gave_up(answer: &Answer) -> bool {
    matches!(
        answer,
        Answer::GaveUp { .. } | Answer::Solved { gave_up: true, .. }
    )
}

/// A plain reason a puzzle cannot be unique, when one is visible from the givens alone.
pub fn why_not_unique(puzzle: &Grid) -> Option<String> {
    let n = puzzle.side();
    let distinct = puzzle.distinct_values();
    if distinct + 2 <= n {
        return Some(format!(
            "only {distinct} of the {n} values are given: any two missing ones can swap"
        ));
    }
    let clues = puzzle.clues();
    (n == 9 && clues < 17)
        .then(|| format!("{clues} clues: a 9×9 needs at least 17 to have one solution"))
}

/// The answer for a puzzle that is wrong as given, at its line.
pub fn invalid(line: usize, kind: ErrorKind) -> Answer {
    Answer::Invalid(PuzzleError { line, kind })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::symbols::Symbols;
    use crate::sudoku::{BoxShape, generate};

    #[test]
    fn a_first_solution_shows_no_count_and_a_count_shows_whether_it_stopped_short() {
        assert_eq!(Mode::First.shown_count(1, true), None);
        assert_eq!(Mode::Count(2).shown_count(1, false), Some((1, false)));
        assert_eq!(Mode::Count(2).shown_count(2, true), Some((2, true)));
    }

    #[test]
    fn a_count_cut_short_is_neither_unique_nor_multiple() {
        let (puzzle, solution) = generate::puzzle(BoxShape::for_side(9).unwrap(), 7, 0.6);
        let outcome = |count, hit_limit, gave_up| Outcome {
            count,
            solution: Some(solution.clone()),
            hit_limit,
            guesses: 10,
            gave_up,
        };
        let cut = from_outcome(1, &puzzle, outcome(1, false, true), Mode::Count(2));
        assert!(gave_up(&cut));
        assert_eq!(
            cut.status(),
            "1+ solutions (the search gave up after 10 guesses)"
        );
        let mut tally = Tally::default();
        tally.add(&cut);
        tally.add(&from_outcome(
            2,
            &puzzle,
            outcome(1, false, false),
            Mode::Count(2),
        ));
        tally.add(&from_outcome(
            3,
            &puzzle,
            outcome(1, true, false),
            Mode::Count(1),
        ));
        tally.add(&from_outcome(
            4,
            &puzzle,
            outcome(2, true, false),
            Mode::Count(2),
        ));
        assert_eq!(
            (tally.solved, tally.gave_up, tally.unique, tally.multiple),
            (4, 1, 1, 1)
        );
        assert!(!tally.all_solved());
        let nothing = Outcome {
            solution: None,
            ..outcome(0, false, true)
        };
        assert_eq!(
            from_outcome(5, &puzzle, nothing, Mode::First),
            Answer::GaveUp { guesses: 10 }
        );
    }

    #[test]
    fn clashing_givens_are_named_though_a_nine_is_searched_first() {
        let nine = BoxShape::for_side(9).unwrap();
        let (puzzle, _) = generate::puzzle(nine, 3, 0.6);
        let mut solver = Solver::new();
        // A given's value copied into an empty cell of its row: a clash the search may meet at once or only
        // after guessing, depending on the cell.
        let empty = (0..81).filter(|&c| puzzle.cells()[c] == 0).take(40);
        for (k, cell) in empty.enumerate() {
            let mut row = cell / 9 * 9..cell / 9 * 9 + 9;
            let Some(given) = row.find(|&c| puzzle.cells()[c] != 0) else {
                continue;
            };
            let mut cells = puzzle.cells().to_vec();
            cells[cell] = cells[given];
            let record = Record {
                line: k + 1,
                puzzle: Ok(Grid::new(nine, &cells).unwrap()),
                given_solution: None,
            };
            for mode in [Mode::First, Mode::Count(2)] {
                let strict = match ready_for_solver(&record) {
                    Err(clash) => clash,
                    Ok(p) => from_outcome(record.line, p, solver.solve(p, mode.limit()), mode),
                };
                assert!(matches!(strict, Answer::Invalid(_)), "cell {cell}");
                assert_eq!(answer(&record, &mut solver, mode), strict, "cell {cell}");
            }
        }
    }

    #[test]
    fn another_engines_results_for_unchecked_givens_are_checked_as_before() {
        use crate::sudoku::worker_protocol::{read_reply, request, serve};
        let mut solver = Solver::new();
        let mut answers = |puzzle: &Grid, reply: &str, mode: Mode| {
            let outcome = read_reply(reply, &[puzzle]).remove(0);
            checked_or_solved_unchecked(4, puzzle, outcome, mode, &mut solver)
        };
        for side in [9, 6] {
            let shape = BoxShape::for_side(side).unwrap();
            let (puzzle, solution) = generate::puzzle(shape, 11, 0.5);
            let mode = Mode::Count(2);
            // What a worker says, taken as it comes.
            let reply =
                String::from_utf8(serve(&request(2, 0, &[&puzzle]), &mut Solver::new())).unwrap();
            let (answer, on_page) = answers(&puzzle, &reply, mode);
            assert!(!on_page);
            assert!(matches!(answer, Answer::Solved { solution: ref s, .. } if *s == solution));
            // A wrong solution (two digits swapped) is rejected and the puzzle solved here; none at all too.
            let mut wrong = solution.cells().to_vec();
            wrong.swap(0, 1);
            let wrong = Grid::new(shape, &wrong).unwrap().to_line(Symbols::Standard);
            for reply in [format!("S 1 0 {wrong}"), "garbled".to_string()] {
                let (again, on_page) = answers(&puzzle, &reply, mode);
                assert!(on_page, "{reply}");
                assert_eq!(again, answer, "{reply}");
            }
            // Clashing givens: named as the strict path names them, whatever came back.
            let mut cells = puzzle.cells().to_vec();
            let given = (0..side).find(|&c| cells[c] != 0).unwrap();
            let empty = (0..side).find(|&c| cells[c] == 0).unwrap();
            cells[empty] = cells[given];
            let clashing = Grid::new(shape, &cells).unwrap();
            let record = Record {
                line: 4,
                puzzle: Ok(clashing.clone()),
                given_solution: None,
            };
            let strict = ready_for_solver(&record).unwrap_err();
            let reply =
                String::from_utf8(serve(&request(2, 0, &[&clashing]), &mut Solver::new())).unwrap();
            for reply in [reply.as_str(), "N", "garbled"] {
                assert_eq!(
                    answers(&clashing, reply, mode),
                    (strict.clone(), false),
                    "{reply}"
                );
            }
        }
    }
}
