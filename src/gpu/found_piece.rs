//! The GPU's results for a piece of plain 9×9 puzzles, checked and written on a CPU Web Worker: the Batch
//! page's GPU way hands each piece's results to a worker with the piece's own request
//! ([`crate::sudoku::piece_protocol`]), so that checking the solutions, unpacking them and writing both outputs
//! happen on every core rather than on the page's one thread (about half a second a million puzzles there, in
//! Chromium on the H100 machine, beside 0.2 s of the GPU's own work).
//!
//! Request: `!found COUNT` and a line end, then COUNT results as the kernel wrote them ([`Lane9Result`], 64
//! bytes each, little-endian), then the piece's request. The reply is a piece's reply
//! ([`piece_protocol::write_reply`]): the page reads it as it reads the CPU workers'.

use super::lane9::Lane9Result;
use super::nine_batch::answer_nine;
use crate::sudoku::format::ReadOptions;
use crate::sudoku::piece_protocol::{self, AnsweredPiece};

/// How a request of results starts.
pub const PREFIX: &[u8] = b"!found ";

/// True when `request` carries the GPU's results for a piece.
pub fn is_found(request: &[u8]) -> bool {
    request.starts_with(PREFIX)
}

/// The request for a piece's `results`, in its puzzles' order, and the piece's own request
/// ([`piece_protocol::request`]).
pub fn request(results: &[Lane9Result], piece_request: &[u8]) -> Vec<u8> {
    let head = format!("{}\n", results.len());
    let bytes: &[u8] = bytemuck::cast_slice(results);
    let mut out = Vec::with_capacity(PREFIX.len() + head.len() + bytes.len() + piece_request.len());
    out.extend_from_slice(PREFIX);
    out.extend_from_slice(head.as_bytes());
    out.extend_from_slice(bytes);
    out.extend_from_slice(piece_request);
    out
}

/// Answers a request: each result checked against its puzzle ([`answer_nine`]; a puzzle without a checked
/// solution is solved on this thread with the job's guess budget), both outputs written.
pub fn answer(request: &[u8]) -> Result<AnsweredPiece, String> {
    let rest = request
        .strip_prefix(PREFIX)
        .ok_or("not a request of GPU results")?;
    let end = rest
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("a request of GPU results without its first line")?;
    let count: usize = std::str::from_utf8(&rest[..end])
        .ok()
        .and_then(|n| n.parse().ok())
        .ok_or("a request of GPU results whose count does not read")?;
    let rest = &rest[end + 1..];
    let bytes = count
        .checked_mul(size_of::<Lane9Result>())
        .filter(|&b| b <= rest.len())
        .ok_or_else(|| format!("a request of {count} GPU results that holds fewer"))?;
    // Copied out rather than cast in place: the results need not lie 4-byte aligned in the request.
    let mut results = vec![Lane9Result::default(); count];
    bytemuck::cast_slice_mut(&mut results).copy_from_slice(&rest[..bytes]);
    let (job, piece) = piece_protocol::read_request(&rest[bytes..])?;
    let nines = piece
        .into_nine_piece(ReadOptions::default())
        .map_err(|_| "GPU results for a piece that is not plain 9×9 puzzles")?;
    if nines.len() != count {
        return Err(format!(
            "{count} GPU results for a piece of {} puzzles",
            nines.len()
        ));
    }
    Ok(piece_protocol::answer_nines_with(&job, &nines, |i| {
        answer_nine(&nines, i, &results[i], job.mode, job.max_guesses).0
    }))
}

/// Answers a request (the worker's side); one that does not read gets a reply of no puzzles and its reason as
/// the only message, which the page reports.
pub fn serve(request: &[u8]) -> Vec<u8> {
    let done = answer(request).unwrap_or_else(|why| AnsweredPiece {
        messages: vec![format!("the worker could not read its GPU results: {why}")],
        ..AnsweredPiece::default()
    });
    piece_protocol::write_reply(&done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::Solver;
    use crate::sudoku::answer::Mode;
    use crate::sudoku::bands;
    use crate::sudoku::format::{Format, Splitter};
    use crate::sudoku::piece_protocol::PieceJob;

    const EASY: &str =
        "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..";
    const SOLVED: &str =
        "483921657967345821251876493548132976729564138136798245372689514814253769695417382";

    /// The pieces of `text`, as the page cuts them.
    fn piece_of(text: &str) -> crate::sudoku::format::Piece {
        let mut splitter = Splitter::new(text.as_bytes(), ReadOptions::default());
        splitter.next_piece(1 << 20).expect("a piece")
    }

    fn job(format: Format) -> PieceJob {
        PieceJob {
            mode: Mode::First,
            max_guesses: 0,
            format,
            graded: false,
        }
    }

    /// A kernel result holding `solution`, done.
    fn found(solution: &str) -> Lane9Result {
        let values: Vec<u8> = solution.bytes().map(|b| b - b'0').collect();
        Lane9Result {
            count: 1,
            flags: 1,
            planes: bands::pack_values(&values.try_into().expect("81 cells")),
            ..Lane9Result::default()
        }
    }

    #[test]
    fn results_are_checked_and_written_as_the_cpu_writes_them() {
        let text = format!("{EASY}\n{EASY}\n{EASY}\n");
        let piece = piece_of(&text);
        let job = job(Format::Line);
        let piece_request = piece_protocol::request(&job, &piece).expect("a piece of text");
        // The second result is wrong (its first two values swapped): the check refuses it and the CPU solves
        // that puzzle; the third was handed back (its search overflowed), and the CPU solves it too.
        let swapped = format!("84{}", &SOLVED[2..]);
        let handed_back = Lane9Result {
            flags: 2,
            ..Lane9Result::default()
        };
        let results = [found(SOLVED), found(&swapped), handed_back];
        let request = request(&results, &piece_request);
        assert!(is_found(&request));
        let done = answer(&request).expect("a request that reads");
        let cpu = piece_protocol::answer_piece(&job, piece, &mut Solver::new());
        assert_eq!(
            done.out,
            format!("{SOLVED}\n{SOLVED}\n{SOLVED}\n").into_bytes()
        );
        assert_eq!(done, cpu);
        assert_eq!(done.tally.solved, 3);
    }

    #[test]
    fn a_request_that_does_not_read_is_a_message_not_a_panic() {
        let piece = piece_of(&format!("{EASY}\n{EASY}\n"));
        let job = job(Format::Line);
        let piece_request = piece_protocol::request(&job, &piece).expect("a piece of text");
        let one = request(&[found(SOLVED)], &piece_request);
        let why = answer(&one).expect_err("one result for two puzzles");
        assert_eq!(why, "1 GPU results for a piece of 2 puzzles");
        let mut short = request(&[found(SOLVED), found(SOLVED)], &piece_request);
        short.truncate(PREFIX.len() + 2 + 64);
        assert!(answer(&short).is_err());
        let reply = serve(b"!found x\n");
        let layout = piece_protocol::reply_layout(&reply, reply.len());
        assert!(layout.is_ok(), "a reply the page reads: {layout:?}");
        assert!(String::from_utf8_lossy(&reply).contains("could not read its GPU results"));
    }
}
