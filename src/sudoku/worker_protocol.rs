//! The text protocol between the web app and its CPU Web Workers: plain lines, so no serialisation crate is
//! needed and either side can be tested natively.
//!
//! Request: `LIMIT MAX_GUESSES` on the first line (the count limit and the solver's guess budget, 0 = none),
//! then one share text per puzzle (see [`super::share`]).
//! Reply: one line per puzzle, in order: `S COUNT STOP SOLUTION` (STOP is 0 for a complete count, 1 when it
//! stopped at the limit, 2 when the search gave up; SOLUTION the first solution as one line), `N` (no
//! solution), `G GUESSES` (the search gave up before any solution), or `E message` (the puzzle could not be
//! read).

use std::fmt::Write;

use super::grid::Grid;
use super::share;
use super::solver::{Outcome, Solver};
use super::symbols::Symbols;

/// Builds a request for `puzzles`, counting up to `limit` with a guess budget of `max_guesses`.
pub fn request(limit: u64, max_guesses: u64, puzzles: &[&Grid]) -> String {
    share::request_lines(format!("{limit} {max_guesses}"), puzzles)
}

/// Answers a request (the worker's side).
pub fn serve(request: &str, solver: &mut Solver) -> String {
    let mut lines = request.lines();
    let mut head = lines.next().unwrap_or_default().split_whitespace();
    let mut number = |default| head.next().and_then(|n| n.parse().ok()).unwrap_or(default);
    let limit = number(1);
    solver.max_guesses = number(super::solver::DEFAULT_MAX_GUESSES);
    // One string written in place: a line per puzzle, no string of its own for each.
    let mut reply = String::new();
    for (i, line) in lines.enumerate() {
        if i > 0 {
            reply.push('\n');
        }
        // Writing to a String cannot fail.
        let _ = match share::decode(line) {
            Err(e) => write!(reply, "E {e}"),
            Ok(puzzle) => {
                let out = solver.solve(&puzzle, limit);
                let stop = if out.gave_up {
                    2
                } else {
                    u8::from(out.hit_limit)
                };
                match out.solution {
                    None if out.gave_up => write!(reply, "G {}", out.guesses),
                    None => write!(reply, "N"),
                    Some(s) => {
                        let _ = write!(reply, "S {} {stop} ", out.count);
                        reply.extend(
                            s.cells()
                                .iter()
                                .map(|&v| char::from(Symbols::Standard.write(v))),
                        );
                        Ok(())
                    }
                }
            }
        };
    }
    reply
}

/// Reads a reply back into outcomes (the page's side), one per puzzle sent; `None` for a reply line that does
/// not parse, which the caller answers itself.
pub fn read_reply(reply: &str, puzzles: &[&Grid]) -> Vec<Option<Outcome>> {
    let mut lines = reply.lines();
    puzzles
        .iter()
        .map(|puzzle| {
            let line = lines.next()?;
            let mut parts = line.split(' ');
            match parts.next()? {
                "N" => Some(Outcome {
                    count: 0,
                    solution: None,
                    hit_limit: false,
                    guesses: 0,
                    gave_up: false,
                }),
                "G" => Some(Outcome {
                    count: 0,
                    solution: None,
                    hit_limit: false,
                    guesses: parts.next()?.parse().ok()?,
                    gave_up: true,
                }),
                "S" => {
                    let count = parts.next()?.parse().ok()?;
                    let stop = parts.next()?;
                    let text = format!("{}-{}", puzzle.shape(), parts.next()?);
                    let solution = share::decode(&text).ok()?;
                    Some(Outcome {
                        count,
                        solution: Some(solution),
                        hit_limit: stop == "1",
                        guesses: 0,
                        gave_up: stop == "2",
                    })
                }
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::{BoxShape, generate};

    #[test]
    fn a_round_trip_gives_the_solvers_answers() {
        let shape = BoxShape::for_side(9).unwrap();
        let (unique, solution) = generate::puzzle(shape, 5, 0.6);
        let empty = Grid::empty(shape);
        let dead = share::decode("2x2-123............4").unwrap();
        let puzzles = [&unique, &empty, &dead];
        let reply = serve(&request(2, 0, &puzzles), &mut Solver::new());
        let outcomes = read_reply(&reply, &puzzles);
        assert_eq!(
            outcomes[0].as_ref().unwrap().solution.as_ref(),
            Some(&solution)
        );
        assert_eq!(outcomes[0].as_ref().unwrap().count, 1);
        assert!(outcomes[1].as_ref().unwrap().hit_limit);
        assert_eq!(outcomes[2].as_ref().unwrap().count, 0);
        // A truncated reply leaves the rest for the caller.
        assert_eq!(read_reply("N", &puzzles)[1], None);
    }

    #[test]
    fn the_guess_budget_travels_and_giving_up_comes_back() {
        let open = Grid::empty(BoxShape::for_side(16).unwrap());
        let dead = share::decode("2x2-123............4").unwrap();
        let puzzles = [&open, &dead];
        // One guess allowed: an empty 16×16 needs more before its first solution; the dead 4×4 is settled by
        // reasoning alone, so it still gets its honest "no solution".
        let reply = serve(&request(1, 1, &puzzles), &mut Solver::new());
        let outcomes = read_reply(&reply, &puzzles);
        let first = outcomes[0].as_ref().unwrap();
        assert!(first.gave_up && first.solution.is_none(), "{reply}");
        assert!(first.guesses >= 1);
        assert!(!outcomes[1].as_ref().unwrap().gave_up);
        // A count the search gave up on comes back as such.
        let shape = BoxShape::for_side(9).unwrap();
        let (puzzle, _) = generate::puzzle(shape, 3, 0.6);
        let reply = serve(&request(2, 0, &[&puzzle]), &mut Solver::new());
        let stopped = reply.replacen(" 0 ", " 2 ", 1);
        let outcome = read_reply(&stopped, &[&puzzle])[0].clone().unwrap();
        assert!(outcome.gave_up && !outcome.hit_limit && outcome.solution.is_some());
    }
}
