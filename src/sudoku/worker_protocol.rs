//! The text protocol between the web app and its CPU Web Workers: plain lines, so no serialisation crate is
//! needed and either side can be tested natively.
//!
//! Request: `LIMIT MAX_GUESSES` on the first line (the count limit and the solver's guess budget, 0 = none),
//! then one share text per puzzle (see [`super::share`]).
//! Reply: one line per puzzle, in order: `S COUNT STOP SOLUTION` (STOP is 0 for a complete count, 1 when it
//! stopped at the limit, 2 when the search gave up; SOLUTION the first solution as one line), `N` (no
//! solution), `G GUESSES` (the search gave up before any solution), or `E message` (the puzzle could not be
//! read).

use std::io::Write;

use super::bands;
use super::grid::Grid;
use super::share;
use super::solver::{Found, Outcome, Solver};
use super::symbols::Symbols;

/// Builds a request for `puzzles`, counting up to `limit` with a guess budget of `max_guesses`.
pub fn request(limit: u64, max_guesses: u64, puzzles: &[&Grid]) -> String {
    share::request_lines(format!("{limit} {max_guesses}"), puzzles)
}

/// Answers a request (the worker's side): the reply's text, as UTF-8 bytes.
pub fn serve(request: &str, solver: &mut Solver) -> Vec<u8> {
    let (head, mut rest) = request.split_once('\n').unwrap_or((request, ""));
    let mut head = head.split_whitespace();
    let mut number = |default| head.next().and_then(|n| n.parse().ok()).unwrap_or(default);
    let limit = number(1);
    solver.max_guesses = number(super::solver::DEFAULT_MAX_GUESSES);
    // One buffer written in place: a line per puzzle, no string of its own for each.
    // A solved line ("S 1 1 " and the cells) is a little longer than its request ("3x3-" and the cells): room
    // for that, so that a large reply is not copied as it grows.
    let mut reply = Vec::with_capacity(request.len() + request.len() / 8);
    // A 9×9 puzzle's values, reused from line to line.
    let mut values = [0u8; 81];
    let mut first = true;
    while !rest.is_empty() {
        if !first {
            reply.push(b'\n');
        }
        first = false;
        // The common case, a 9×9 share text of digits and dots, is known by its length and read as its values
        // (no newline can be among them, so the line's end needs no search); every other line is split as
        // `str::lines` splits.
        let nine = matches!(rest.as_bytes().get(NINE_LINE), None | Some(b'\n'))
            && rest
                .get(..NINE_LINE)
                .is_some_and(|line| share::plain_nine_values(line, &mut values));
        let line;
        (line, rest) = if nine {
            (
                &rest[..NINE_LINE],
                rest.get(NINE_LINE + 1..).unwrap_or_default(),
            )
        } else {
            next_line(rest)
        };
        // The 9×9 is solved as it is, before its givens are checked for clashes: a solution proves them, and
        // only a puzzle without one is read again, strictly, so that a clash is named as the file reader would
        // name it. Its solution is written from the solver's own values (`solve_nine`: no grid made, moved and
        // returned for each puzzle).
        if nine && let Ok(found) = solver.solve_nine(&values, limit) {
            if found.solution.is_none()
                && let Err(e) = share::decode(line)
            {
                // Writing to a Vec cannot fail.
                let _ = write!(reply, "E {e}");
            } else {
                write_found(&mut reply, &found);
            }
            continue;
        }
        // Every other puzzle, and a 9×9 whose first attempt gave up (the solver's restarts take it on).
        match share::decode(line) {
            Ok(puzzle) => {
                let out = solver.solve(&puzzle, limit);
                write_found(&mut reply, &Found::of(&out));
            }
            Err(e) => {
                let _ = write!(reply, "E {e}");
            }
        }
    }
    reply
}

/// The length of a 9×9 share text of digits and dots: "3x3-" and 81 cells.
const NINE_LINE: usize = 85;

/// The first line of `text` and what follows it, as `str::lines` splits: at a newline, less a carriage return
/// before it.
fn next_line(text: &str) -> (&str, &str) {
    match text.split_once('\n') {
        Some((line, rest)) => (line.strip_suffix('\r').unwrap_or(line), rest),
        None => (text, ""),
    }
}

/// One reply line for a puzzle's outcome, written without the formatting machinery (this runs for every
/// puzzle, and in the worker's wasm `write!` costs as much as an easy puzzle's search).
fn write_found(reply: &mut Vec<u8>, out: &Found<'_>) {
    match out.solution {
        None if out.gave_up => {
            reply.extend_from_slice(b"G ");
            push_number(reply, out.guesses);
        }
        None => reply.push(b'N'),
        Some(solution) => {
            let stop = if out.gave_up {
                b'2'
            } else if out.hit_limit {
                b'1'
            } else {
                b'0'
            };
            reply.extend_from_slice(b"S ");
            push_number(reply, out.count);
            reply.extend_from_slice(&[b' ', stop, b' ']);
            Symbols::Standard.extend(reply, solution);
        }
    }
}

/// Writes `n` in decimal.
fn push_number(reply: &mut Vec<u8>, mut n: u64) {
    // A count is nearly always 1 or 2: one byte pushed, where the general way's copy of its digits is a
    // `memory.copy` in the worker's WebAssembly, a call out of the wasm code.
    if n < 10 {
        reply.push(b'0' + n as u8);
        return;
    }
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
    reply.extend_from_slice(&digits[at..]);
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

    /// [`serve`]'s reply as text.
    fn serve_text(request: &str, solver: &mut Solver) -> String {
        String::from_utf8(serve(request, solver)).expect("a reply is UTF-8")
    }

    #[test]
    fn a_round_trip_gives_the_solvers_answers() {
        let shape = BoxShape::for_side(9).unwrap();
        let (unique, solution) = generate::puzzle(shape, 5, 0.6);
        let empty = Grid::empty(shape);
        let dead = share::decode("2x2-123............4").unwrap();
        let puzzles = [&unique, &empty, &dead];
        let reply = serve_text(&request(2, 0, &puzzles), &mut Solver::new());
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
        let reply = serve_text(
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
    fn lines_are_split_as_str_lines_splits_them() {
        let nine = format!("3x3-{}", "1".repeat(81));
        let almost = format!("3x3-{}", "1".repeat(80));
        let texts = [
            String::new(),
            "a".to_string(),
            "a\n".to_string(),
            "a\n\n".to_string(),
            "a\r\nb\r".to_string(),
            "\n\nb".to_string(),
            format!("{nine}\n{almost}\n{nine}\r\n{nine}"),
            format!("{almost}\n{nine}\n"),
        ];
        for text in texts {
            let mut lines = Vec::new();
            let mut rest = text.as_str();
            while !rest.is_empty() {
                let line;
                (line, rest) = next_line(rest);
                lines.push(line);
            }
            assert_eq!(lines, text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn a_nine_by_nine_line_is_told_from_its_neighbours() {
        // 9×9 lines taken by their length, next to lines that are not (a newline inside the first 85 bytes,
        // a carriage return, a longer line, the last line without a newline): the same answers as one by one.
        let shape = BoxShape::for_side(9).unwrap();
        let (puzzle, _) = generate::puzzle(shape, 7, 0.5);
        let nine = share::encode(&puzzle);
        assert_eq!(nine.len(), NINE_LINE);
        let short = format!("3x3-{}", &nine[5..]);
        let long = format!("{nine}1");
        let lines = [
            &nine,
            &short,
            &nine,
            &long,
            &format!("{nine}\r"),
            &nine,
            &"2x2-1234".to_string(),
            &nine,
        ];
        let body = lines.map(String::as_str).join("\n");
        let together = serve_text(&format!("1 0\n{body}"), &mut Solver::new());
        let one_by_one: Vec<String> = body
            .lines()
            .map(|line| serve_text(&format!("1 0\n{line}"), &mut Solver::new()))
            .collect();
        assert_eq!(together, one_by_one.join("\n"));
        // The 9×9 lines, the one before a carriage return and newline among them.
        assert_eq!(
            together.lines().filter(|l| l.starts_with("S ")).count(),
            5,
            "{together}"
        );
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0, 7, 10, 99, 12_345, u64::MAX] {
            let mut text = Vec::new();
            push_number(&mut text, n);
            assert_eq!(text, n.to_string().as_bytes());
        }
    }

    #[test]
    fn the_guess_budget_travels_and_giving_up_comes_back() {
        let open = Grid::empty(BoxShape::for_side(16).unwrap());
        let dead = share::decode("2x2-123............4").unwrap();
        let puzzles = [&open, &dead];
        // One guess allowed: an empty 16×16 needs more before its first solution; the dead 4×4 is settled by
        // reasoning alone, so it still gets its honest "no solution".
        let reply = serve_text(&request(1, 1, &puzzles), &mut Solver::new());
        let outcomes = read_reply(&reply, &puzzles);
        let first = outcomes[0].as_ref().unwrap();
        assert!(first.gave_up && first.solution.is_none(), "{reply}");
        assert!(first.guesses >= 1);
        assert!(!outcomes[1].as_ref().unwrap().gave_up);
        // A count the search gave up on comes back as such.
        let shape = BoxShape::for_side(9).unwrap();
        let (puzzle, _) = generate::puzzle(shape, 3, 0.6);
        let reply = serve_text(&request(2, 0, &[&puzzle]), &mut Solver::new());
        let stopped = reply.replacen(" 0 ", " 2 ", 1);
        let outcome = read_reply(&stopped, &[&puzzle])[0].clone().unwrap();
        assert!(outcome.gave_up && !outcome.hit_limit && outcome.solution.is_some());
    }
}
