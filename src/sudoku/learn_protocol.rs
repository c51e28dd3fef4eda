//! The text protocol for the learning work the page hands its CPU workers: making puzzles and rating them,
//! which can take seconds (a 16×16 puzzle, a hard rating) and so never runs on the page's thread.
//!
//! Requests start with `learn`:
//! - `learn generate SHAPE GRADE SYMMETRIC SEED COUNT ATTEMPTS` (GRADE `any` or a grade's name with dashes,
//!   SYMMETRIC `0`/`1`): COUNT puzzles, each from its own seed drawn from SEED. Reply: one line per puzzle,
//!   `P<TAB>PUZZLE<TAB>SOLUTION<TAB>GRADE<TAB>SCORE` (share texts), or `X` where no puzzle reached the grade.
//! - `learn rate`, then one share text per line. Reply: one line per puzzle, `R<TAB>GRADE<TAB>SCORE<TAB>HARDEST`,
//!   or `E<TAB>why` (unreadable, no solution, several solutions).
//! - `learn path`, then a position's share text and its pencil marks (as a link's `m`): its logical solution.
//!   Reply: `S<TAB>GUESSES` (solved, with the search's guesses) or `N<TAB>why` (no solution), then one line per
//!   step, `TECHNIQUE<TAB>PLACEMENTS<TAB>ELIMINATIONS<TAB>BASIS<TAB>SENTENCE` (the technique by its place in
//!   [`Technique::ORDER`], marks as `cell.digit` separated by spaces).

use std::fmt::Write as _;

use super::generator::{self, Request};
use super::grid::Grid;
use super::logic::{self, Board, End, Grade, Mark, Path, Rating, Step, Technique};
use super::rng::SplitMix;
use super::share;
use super::solver::DEFAULT_MAX_GUESSES;

/// The first word of every learning request.
const HEAD: &str = "learn";

/// True for a request of this protocol.
pub fn is_learning(request: &str) -> bool {
    request.split_whitespace().next() == Some(HEAD)
}

/// A puzzle made by a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MadePuzzle {
    /// The puzzle.
    pub puzzle: Grid,
    /// Its one solution.
    pub solution: Grid,
    /// Its grade.
    pub grade: Grade,
    /// Its score.
    pub score: u32,
}

/// What a rating request says about one puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rated {
    /// Its grade, score and hardest technique.
    Graded {
        /// The grade.
        grade: Grade,
        /// The score.
        score: u32,
        /// The hardest technique's name (`none` for a puzzle the givens already fill).
        hardest: String,
    },
    /// Not rated, and why.
    Unrated(String),
}

/// The request for `count` puzzles of `request`'s kind.
pub fn generate_request(request: &Request, seed: u64, count: usize, attempts: u32) -> String {
    let grade = request
        .grade
        .map_or("any".to_string(), |g| g.name().replace(' ', "-"));
    format!(
        "{HEAD} generate {} {grade} {} {seed} {count} {attempts}",
        request.shape,
        u8::from(request.symmetric)
    )
}

/// The request to rate `puzzles`.
pub fn rate_request(puzzles: &[&Grid]) -> String {
    share::request_lines(format!("{HEAD} rate"), puzzles)
}

/// Answers a request (the worker's side).
pub fn serve(request: &str) -> String {
    let mut lines = request.lines();
    let head: Vec<&str> = lines
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    match head.as_slice() {
        [
            HEAD,
            "generate",
            shape,
            grade,
            symmetric,
            seed,
            count,
            attempts,
        ] => serve_generate([shape, grade, symmetric, seed, count, attempts])
            .unwrap_or_else(|why| format!("E\t{why}")),
        [HEAD, "rate"] => lines.map(rate_line).collect::<Vec<_>>().join("\n"),
        [HEAD, "path"] => {
            let (puzzle, marks) = (
                lines.next().unwrap_or_default(),
                lines.next().unwrap_or_default(),
            );
            serve_path(puzzle, marks).unwrap_or_else(|why| format!("E\t{why}"))
        }
        _ => "E\tnot a learning request".to_string(),
    }
}

fn serve_generate(fields: [&&str; 6]) -> Result<String, String> {
    let [shape, grade, symmetric, seed, count, attempts] = fields;
    let shape = shape.parse().map_err(|e| format!("{e}"))?;
    let grade = match *grade {
        "any" => None,
        g => Some(Grade::parse(g).ok_or_else(|| format!("unknown grade `{g}`"))?),
    };
    let number = |text: &str| {
        text.parse::<u64>()
            .map_err(|_| format!("`{text}` is no number"))
    };
    let request = Request {
        shape,
        grade,
        symmetric: *symmetric == "1",
    };
    let (seed, count, attempts) = (number(seed)?, number(count)?, number(attempts)?);
    let mut seeds = SplitMix(seed);
    let mut reply = String::new();
    for i in 0..count {
        if i > 0 {
            reply.push('\n');
        }
        match generator::make(&request, seeds.next_u64(), attempts as u32) {
            Some(made) => {
                let _ = write!(
                    reply,
                    "P\t{}\t{}\t{}\t{}",
                    share::encode(&made.puzzle),
                    share::encode(&made.solution),
                    made.rating.grade.name().replace(' ', "-"),
                    made.rating.score
                );
            }
            None => reply.push('X'),
        }
    }
    Ok(reply)
}

/// Rates one share text: the puzzle must have exactly one solution.
fn rate_line(line: &str) -> String {
    let puzzle = match share::decode(line) {
        Ok(p) => p,
        Err(e) => return format!("E\t{e}"),
    };
    match Rating::of_unique(&puzzle) {
        Ok(r) => format!(
            "R\t{}\t{}\t{}",
            r.grade.name().replace(' ', "-"),
            r.score,
            r.hardest.map_or("none", Technique::name)
        ),
        Err(why) => format!("E\t{why}"),
    }
}

/// The request for the logical solution from `board`'s position (its values and candidates).
pub fn path_request(board: &Board) -> String {
    let grid = board.grid();
    format!(
        "{HEAD} path\n{}\n{}",
        share::encode(&grid),
        share::encode_marks(&grid, board.candidate_masks())
    )
}

/// Solves a position logically, with the uniqueness techniques where it has exactly one solution.
fn serve_path(puzzle: &str, marks: &str) -> Result<String, String> {
    let grid = share::decode(puzzle).map_err(|e| e.to_string())?;
    let keep: Vec<u32> = share::decode_marks(&grid, marks)?
        .into_iter()
        .map(|m| m.unwrap_or(u32::MAX))
        .collect();
    let mut board = Board::with_candidates(&grid, &keep);
    if logic::has_one_solution(&grid, DEFAULT_MAX_GUESSES) {
        board = board.assuming_unique();
    }
    let path = logic::solve_from(board);
    let mut reply = match &path.end {
        End::Solved => format!("S\t{}", path.search_guesses),
        End::NoSolution(why) => format!("N\t{why}"),
    };
    let marks = |list: &[Mark]| {
        list.iter()
            .map(|m| format!("{}.{}", m.cell, m.digit))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for step in &path.steps {
        let index = Technique::ORDER
            .iter()
            .position(|&t| t == step.technique)
            .expect("every technique is in the order");
        let _ = write!(
            reply,
            "\n{index}\t{}\t{}\t{}\t{}",
            marks(&step.placements),
            marks(&step.eliminations),
            marks(&step.basis),
            step.sentence
        );
    }
    Ok(reply)
}

/// Reads a path reply back; an error when it does not parse.
pub fn read_path(reply: &str) -> Result<Path, String> {
    let mut lines = reply.lines();
    let head = lines.next().unwrap_or_default();
    let (kind, rest) = head.split_once('\t').ok_or("an empty reply")?;
    let (end, search_guesses) = match kind {
        "S" => (End::Solved, rest.parse().map_err(|_| "a bad guess count")?),
        "N" => (End::NoSolution(rest.to_string()), 0),
        _ => return Err(rest.to_string()),
    };
    let marks = |field: &str| -> Result<Vec<Mark>, String> {
        field
            .split_whitespace()
            .map(|m| {
                let (cell, digit) = m.split_once('.').ok_or("a bad mark")?;
                match (cell.parse::<usize>(), digit.parse()) {
                    (Ok(c), Ok(d)) => Ok(Mark::new(c, d)),
                    _ => Err(format!("a bad mark `{m}`")),
                }
            })
            .collect()
    };
    let steps = lines
        .map(|line| {
            let fields: Vec<&str> = line.splitn(5, '\t').collect();
            let [index, placements, eliminations, basis, sentence] = fields[..] else {
                return Err(format!("a step that does not parse: {line}"));
            };
            let technique = index
                .parse::<usize>()
                .ok()
                .and_then(|i| Technique::ORDER.get(i).copied())
                .ok_or("an unknown technique")?;
            Ok(Step {
                technique,
                placements: marks(placements)?,
                eliminations: marks(eliminations)?,
                basis: marks(basis)?,
                sentence: sentence.to_string(),
            })
        })
        .collect::<Result<Vec<Step>, String>>()?;
    Ok(Path {
        steps,
        end,
        search_guesses,
    })
}

/// Reads a generate reply back: one entry per puzzle asked (`None` where none reached the grade); an error when
/// the reply does not parse.
pub fn read_generated(reply: &str) -> Result<Vec<Option<MadePuzzle>>, String> {
    reply
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
                ["X"] => Ok(None),
                ["P", puzzle, solution, grade, score] => Ok(Some(MadePuzzle {
                    puzzle: share::decode(puzzle).map_err(|e| e.to_string())?,
                    solution: share::decode(solution).map_err(|e| e.to_string())?,
                    grade: Grade::parse(grade).ok_or("an unknown grade")?,
                    score: score.parse().map_err(|_| "a bad score")?,
                })),
                ["E", why] => Err(why.to_string()),
                _ => Err(format!("a reply line that does not parse: {line}")),
            }
        })
        .collect()
}

/// Reads a rate reply back, one entry per puzzle sent (missing lines are unrated).
pub fn read_rated(reply: &str, sent: usize) -> Vec<Rated> {
    let mut lines = reply.lines();
    (0..sent)
        .map(|_| {
            let fields: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
            match fields.as_slice() {
                ["R", grade, score, hardest] => match (Grade::parse(grade), score.parse()) {
                    (Some(grade), Ok(score)) => Rated::Graded {
                        grade,
                        score,
                        hardest: hardest.to_string(),
                    },
                    _ => Rated::Unrated("a reply that does not parse".into()),
                },
                ["E", why] => Rated::Unrated(why.to_string()),
                _ => Rated::Unrated("no reply".into()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::logic;
    use crate::sudoku::symbols::Symbols;
    use crate::sudoku::{BoxShape, Solver};

    #[test]
    fn generated_puzzles_come_back_unique_and_of_the_asked_grade() {
        let request = Request {
            shape: BoxShape::for_side(9).unwrap(),
            grade: Some(Grade::Medium),
            symmetric: true,
        };
        let text = generate_request(&request, 11, 3, 200);
        assert!(is_learning(&text));
        let reply = serve(&text);
        let made = read_generated(&reply).unwrap();
        assert_eq!(made.len(), 3);
        let mut solver = Solver::new();
        for m in made.into_iter().map(Option::unwrap) {
            assert_eq!(m.grade, Grade::Medium);
            let out = solver.solve(&m.puzzle, 2);
            assert_eq!((out.count, out.solution), (1, Some(m.solution.clone())));
        }
        // The same seed, the same puzzles.
        assert_eq!(serve(&text), reply);
    }

    #[test]
    fn ratings_come_back_for_unique_puzzles_and_reasons_for_the_rest() {
        let shape = BoxShape::for_side(9).unwrap();
        let (unique, _) = crate::sudoku::generate::puzzle(shape, 4, 0.55);
        let open = Grid::empty(shape);
        let text = format!("{}\n3x3-11", rate_request(&[&unique, &open]));
        let rated = read_rated(&serve(&text), 4);
        let expected = Rating::of(&logic::solve_unique(&unique, Symbols::Standard)).unwrap();
        assert_eq!(
            rated[0],
            Rated::Graded {
                grade: expected.grade,
                score: expected.score,
                hardest: expected.hardest.map_or("none", Technique::name).into()
            }
        );
        assert_eq!(rated[1], Rated::Unrated("more than one solution".into()));
        assert!(matches!(&rated[2], Rated::Unrated(why) if why.contains("puzzle is wrong")));
        assert_eq!(rated[3], Rated::Unrated("no reply".into()));
    }

    #[test]
    fn a_path_comes_back_step_for_step() {
        let puzzle = share::decode(
            "3x3-7.5.....2...4.1...3.........1.6..4..2...5...........9....37.....8....6...9.....8.",
        )
        .unwrap();
        let mut board = Board::new(&puzzle);
        // A pencil mark struck by hand travels too: r1c5 without 6.
        board.eliminate(Mark::new(4, 6));
        let reply = serve(&path_request(&board));
        let path = read_path(&reply).unwrap();
        let here = logic::solve_from(board.assuming_unique());
        assert_eq!(path.steps, here.steps);
        assert!(Rating::of(&path).is_some());
        assert_eq!(
            (path.end, path.search_guesses),
            (here.end, here.search_guesses)
        );
        // A position without a solution says so.
        let dead = share::decode("2x2-123............4").unwrap();
        let path = read_path(&serve(&path_request(&Board::new(&dead)))).unwrap();
        assert!(matches!(path.end, End::NoSolution(_)));
        assert!(read_path("E\tbroken").is_err());
    }

    #[test]
    fn bad_requests_say_so() {
        let reply = serve("learn generate 3y3 any 0 1 1 1");
        assert!(read_generated(&reply).is_err());
        let reply = serve("learn generate 3x3 silly 0 1 1 1");
        assert_eq!(read_generated(&reply), Err("unknown grade `silly`".into()));
        assert!(!is_learning("2 0\n3x3-1"));
    }
}
