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

use super::bands;
use super::grid::Grid;
use super::shape::MAX_CELLS;
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
    // A solved line ("S 1 1 " and the cells) is a little longer than its request ("3x3-" and the cells): room
    // for that, so that a large reply is not copied as it grows.
    let mut reply = String::with_capacity(request.len() + request.len() / 8);
    for (i, line) in lines.enumerate() {
        if i > 0 {
            reply.push('\n');
        }
        // The common case, a 9×9 share text of digits and dots, is solved before its givens are checked for
        // clashes: a solution proves them, and only a puzzle without one is read again, strictly, so that a
        // clash is named as the file reader would name it.
        let quick = share::plain_nine_unchecked(line);
        let unchecked = quick.is_some();
        let puzzle = match quick {
            Some(puzzle) => puzzle,
            None => match share::decode(line) {
                Ok(puzzle) => puzzle,
                Err(e) => {
                    // Writing to a String cannot fail.
                    let _ = write!(reply, "E {e}");
                    continue;
                }
            },
        };
        let out = solver.solve(&puzzle, limit);
        if out.solution.is_none()
            && unchecked
            && let Err(e) = share::decode(line)
        {
            let _ = write!(reply, "E {e}");
            continue;
        }
        write_outcome(&mut reply, &out);
    }
    reply
}

/// One reply line for a puzzle's outcome, written without the formatting machinery (this runs for every
/// puzzle, and in the worker's wasm `write!` costs as much as an easy puzzle's search).
fn write_outcome(reply: &mut String, out: &Outcome) {
    match &out.solution {
        None if out.gave_up => {
            let _ = write!(reply, "G {}", out.guesses);
        }
        None => reply.push('N'),
        Some(solution) => {
            let stop = if out.gave_up {
                b'2'
            } else if out.hit_limit {
                b'1'
            } else {
                b'0'
            };
            reply.push_str("S ");
            push_number(reply, out.count);
            reply.push(' ');
            reply.push(char::from(stop));
            reply.push(' ');
            let cells = solution.cells();
            let mut text = [0u8; MAX_CELLS];
            for (c, &v) in text.iter_mut().zip(cells) {
                *c = Symbols::Standard.write(v);
            }
            reply.push_str(std::str::from_utf8(&text[..cells.len()]).expect("symbols are ASCII"));
        }
    }
}

/// Writes `n` in decimal.
fn push_number(reply: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    reply.push_str(std::str::from_utf8(&digits[at..]).expect("digits are ASCII"));
}

/// Reads a reply back into outcomes (the page's side), one per puzzle sent; `None` for a reply line that does
/// not parse, which the caller answers itself. Solutions come back unchecked: the caller checks each against
/// its puzzle, as it checks every engine's.
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
                    let cells = parts.next()?;
                    // A 9×9's solution is read without the file reader and without looking for repeats: the
                    // caller checks every solution against its puzzle (`answer::from_outcome`) anyway.
                    let solution = if puzzle.shape() == bands::nine() {
                        share::nine_cells_unchecked(cells.as_bytes())?
                    } else {
                        share::decode(&format!("{}-{cells}", puzzle.shape())).ok()?
                    };
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
    fn a_clash_found_by_the_search_is_named_as_the_reader_names_it() {
        // Two 1s in row 1: the quick 9×9 way solves first and finds nothing; the line is then read strictly.
        let clash = format!("3x3-1.1{}", ".".repeat(78));
        let dead = format!("3x3-12345678.{}9{}", ".".repeat(8), ".".repeat(63));
        let bad = format!("3x3-x{}", ".".repeat(80));
        let reply = serve(
            &format!("2 0\n{clash}\n{dead}\n{bad}\n3x3-{}", ".".repeat(81)),
            &mut Solver::new(),
        );
        let lines: Vec<&str> = reply.lines().collect();
        assert_eq!(lines.len(), 4, "{reply}");
        assert_eq!(
            lines[0],
            format!("E {}", share::decode(&clash).unwrap_err())
        );
        assert!(lines[0].contains("r1c3"), "{reply}");
        // No clash, yet no solution (r1c9 has no digit left): an honest "no solution".
        assert_eq!(lines[1], "N");
        assert_eq!(lines[2], format!("E {}", share::decode(&bad).unwrap_err()));
        assert!(lines[3].starts_with("S 2 1 "), "{reply}");
        assert_eq!(lines[3].len(), "S 2 1 ".len() + 81);
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0, 7, 10, 99, 12_345, u64::MAX] {
            let mut text = String::new();
            push_number(&mut text, n);
            assert_eq!(text, n.to_string());
        }
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
