//! The text protocol between the web app and its CPU Web Workers: plain lines, so no serialisation crate is
//! needed and either side can be tested natively.
//!
//! Request: `LIMIT` on the first line, then one share text per puzzle (see [`super::share`]).
//! Reply: one line per puzzle, in order: `S COUNT HIT SOLUTION` (HIT is 1 when the count stopped at the limit,
//! SOLUTION the first solution as one line), `N` (no solution), or `E message` (the puzzle could not be read).

use super::grid::Grid;
use super::share;
use super::solver::{Outcome, Solver};

/// Builds a request for `puzzles`, counting up to `limit`.
pub fn request(limit: u64, puzzles: &[&Grid]) -> String {
    let mut text = limit.to_string();
    for p in puzzles {
        text.push('\n');
        text.push_str(&share::encode(p));
    }
    text
}

/// Answers a request (the worker's side).
pub fn serve(request: &str, solver: &mut Solver) -> String {
    let mut lines = request.lines();
    let limit = lines
        .next()
        .and_then(|l| l.trim().parse::<u64>().ok())
        .unwrap_or(1);
    let replies: Vec<String> = lines
        .map(|line| match share::decode(line) {
            Err(e) => format!("E {e}"),
            Ok(puzzle) => {
                let out = solver.solve(&puzzle, limit);
                match out.solution {
                    None => "N".to_string(),
                    Some(s) => format!("S {} {} {s}", out.count, u8::from(out.hit_limit)),
                }
            }
        })
        .collect();
    replies.join("\n")
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
                }),
                "S" => {
                    let count = parts.next()?.parse().ok()?;
                    let hit_limit = parts.next()? == "1";
                    let text = format!("{}-{}", puzzle.shape(), parts.next()?);
                    let solution = share::decode(&text).ok()?;
                    Some(Outcome {
                        count,
                        solution: Some(solution),
                        hit_limit,
                        guesses: 0,
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
        let reply = serve(&request(2, &puzzles), &mut Solver::new());
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
}
