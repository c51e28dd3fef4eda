//! Share links: a puzzle (box shape and givens) as a short URL-safe text, and back.
//!
//! `3x3-4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......` — the box shape,
//! a dash, then the N² cells in standard symbols with `.` for empty. Every character is URL-safe, so the text
//! goes into a query parameter as it is; a 9×9 link stays under 100 characters. Decoding goes through the same
//! checks as a file, and a link is only ever data: nothing from it is rendered as HTML.

use thiserror::Error;

use super::format::{ErrorKind, Format, ReadOptions, Reader, check_givens};
use super::grid::Grid;
use super::shape::BoxShape;
use super::symbols::Symbols;

/// The longest share text accepted (a 25×25 is 4 + 1 + 625 characters).
const MAX_LEN: usize = 700;

/// Why a share link could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ShareError {
    /// Not `RxC-cells`.
    #[error(
        "this link does not hold a puzzle (expected a box shape like 3x3, a dash, then the cells)"
    )]
    Malformed,
    /// Longer than any puzzle.
    #[error("this link is too long to be a puzzle")]
    TooLong,
    /// The shape part is wrong.
    #[error("this link's box shape is wrong: {0}")]
    Shape(String),
    /// The cells part is wrong (length, symbols, clashing givens).
    #[error("this link's puzzle is wrong: {0}")]
    Cells(ErrorKind),
}

/// The share text of a puzzle.
pub fn encode(puzzle: &Grid) -> String {
    format!("{}-{}", puzzle.shape(), puzzle.to_line(Symbols::Standard))
}

/// A request of the workers' protocols: a first line, then one share text per puzzle.
pub fn request_lines(head: String, puzzles: &[&Grid]) -> String {
    let mut text = head;
    for p in puzzles {
        text.push('\n');
        text.push_str(&encode(p));
    }
    text
}

/// The puzzle of a share text, checked as strictly as a file.
pub fn decode(text: &str) -> Result<Grid, ShareError> {
    if let Some(grid) = plain_nine(text) {
        return Ok(grid);
    }
    if text.len() > MAX_LEN {
        return Err(ShareError::TooLong);
    }
    let (shape, cells) = text.split_once('-').ok_or(ShareError::Malformed)?;
    let shape: BoxShape = shape
        .parse()
        .map_err(|e: super::shape::ShapeError| ShareError::Shape(e.to_string()))?;
    if cells.len() != shape.cells() {
        return Err(ShareError::Cells(ErrorKind::Length(cells.len())));
    }
    let options = ReadOptions {
        format: Some(Format::Line),
        symbols: Symbols::Standard,
        shape: Some(shape),
    };
    let record = Reader::new(cells.as_bytes(), options)
        .next()
        .ok_or(ShareError::Malformed)?;
    let grid = record.puzzle.map_err(|e| ShareError::Cells(e.kind))?;
    check_givens(&grid).map_err(ShareError::Cells)?;
    Ok(grid)
}

/// The pencil marks of a shared position, for the link's `m` parameter: each cell's candidate mask (bit
/// `d - 1` for digit `d`) in base 32 with a fixed width of ⌈N/5⌉ characters (two for a 9×9, so 162 in all).
/// Filled cells are written as zeros.
pub fn encode_marks(puzzle: &Grid, marks: &[u32]) -> String {
    let width = puzzle.side().div_ceil(5);
    let mut text = String::with_capacity(width * marks.len());
    for (&value, &mask) in puzzle.cells().iter().zip(marks) {
        let mask = if value == 0 { mask } else { 0 };
        for k in (0..width).rev() {
            let digit = (mask >> (5 * k)) & 31;
            text.push(char::from_digit(digit, 32).expect("below 32"));
        }
    }
    text
}

/// The pencil marks of a link's `m` parameter for `puzzle`: each empty cell's candidates, `None` in filled
/// cells; an error naming the first cell that is wrong.
pub fn decode_marks(puzzle: &Grid, text: &str) -> Result<Vec<Option<u32>>, String> {
    let (side, cells) = (puzzle.side(), puzzle.cells());
    let width = side.div_ceil(5);
    if text.len() != width * cells.len() {
        return Err(format!(
            "the pencil marks hold {} characters where a {side}×{side} needs {}",
            text.len(),
            width * cells.len()
        ));
    }
    let all = (1u64 << side) - 1;
    text.as_bytes()
        .chunks(width)
        .zip(cells)
        .enumerate()
        .map(|(c, (chunk, &value))| {
            let mask = chunk.iter().try_fold(0u64, |m, &b| {
                char::from(b).to_digit(32).map(|d| (m << 5) | u64::from(d))
            });
            match mask {
                Some(m) if m <= all => Ok((value == 0).then_some(m as u32)),
                _ => Err(format!(
                    "the pencil marks of r{}c{} (`{}`) are not candidates of a {side}×{side}",
                    c / side + 1,
                    c % side + 1,
                    String::from_utf8_lossy(chunk)
                )),
            }
        })
        .collect()
}

/// The common case without the file reader's machinery: a 9×9 of digits and dots whose givens do not clash
/// (the CPU workers get every puzzle of a batch this way, and the reader's allocations per line cost more than
/// an easy puzzle's search in wasm). Anything else, errors included, goes the general way.
fn plain_nine(text: &str) -> Option<Grid> {
    nine_cells_unchecked(text.strip_prefix("3x3-")?.as_bytes())
        .filter(|grid| !super::verify::has_repeats(grid))
}

/// The 81 cells of [`plain_nine`]'s text, digits and dots, without the shape before them, as a grid whose
/// givens are not checked for clashes.
pub(crate) fn nine_cells_unchecked(cells: &[u8]) -> Option<Grid> {
    let mut values = [0u8; 81];
    if !nine_values(cells, &mut values) {
        return None;
    }
    Grid::new(BoxShape::new(3, 3).ok()?, &values)
}

/// [`plain_nine`]'s text into `values` (81 of them, row-major, 0 for a dot), its givens not checked for
/// clashes: for a caller that solves them as they are, finds a clash another way (a search finds no solution)
/// and then decodes the text again for its message; `false`, `values` then left half written, if `text` is not
/// such a share text.
pub(crate) fn plain_nine_values(text: &str, values: &mut [u8; 81]) -> bool {
    text.strip_prefix("3x3-")
        .is_some_and(|cells| nine_values(cells.as_bytes(), values))
}

/// The values of 81 cells written as digits and dots, into `values`; `false` if `cells` is anything else.
fn nine_values(cells: &[u8], values: &mut [u8; 81]) -> bool {
    if cells.len() != 81 {
        return false;
    }
    // Without an early exit, so the compiler checks and converts many cells at once.
    let mut valid = true;
    for (v, &b) in values.iter_mut().zip(cells) {
        let digit = b.wrapping_sub(b'0');
        let dot = b == b'.';
        valid &= dot | (1..=9).contains(&digit);
        *v = if dot { 0 } else { digit };
    }
    valid
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::generate;

    #[test]
    fn round_trips_every_shape_and_stays_short_for_9x9() {
        for shape in ["2x2", "2x3", "3x2", "3x3", "3x4", "4x3", "4x4", "5x5"] {
            let shape: BoxShape = shape.parse().unwrap();
            let (puzzle, _) = generate::puzzle(shape, 3, 0.4);
            let text = encode(&puzzle);
            assert_eq!(decode(&text), Ok(puzzle), "{shape}");
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
            );
            if shape.side() == 9 {
                assert!(text.len() < 100);
            }
        }
    }

    #[test]
    fn a_request_is_its_puzzles_share_texts_line_by_line() {
        // Runs of one shape and changes of shape, as a request may hold them.
        let grids: Vec<Grid> = ["3x3", "3x3", "2x3", "3x3", "5x5", "5x5"]
            .iter()
            .enumerate()
            .map(|(k, shape)| generate::puzzle(shape.parse().unwrap(), k as u64, 0.5).0)
            .collect();
        let puzzles: Vec<&Grid> = grids.iter().collect();
        let lines: Vec<String> = grids.iter().map(encode).collect();
        assert_eq!(
            request_lines("2 0".into(), &puzzles),
            format!("2 0\n{}", lines.join("\n"))
        );
        assert_eq!(request_lines("1 5".into(), &[]), "1 5");
    }

    #[test]
    fn pencil_marks_travel_in_links_of_every_size() {
        for shape in ["2x2", "3x3", "4x4", "5x5"] {
            let shape: BoxShape = shape.parse().unwrap();
            let (puzzle, _) = generate::puzzle(shape, 7, 0.5);
            let board = crate::sudoku::logic::Board::new(&puzzle);
            let text = encode_marks(&puzzle, board.candidate_masks());
            assert!(text.bytes().all(|b| b.is_ascii_alphanumeric()));
            let back = decode_marks(&puzzle, &text).unwrap();
            for (c, mark) in back.iter().enumerate() {
                let expected = (puzzle.cells()[c] == 0).then(|| board.candidates(c));
                assert_eq!(*mark, expected, "{shape} cell {c}");
            }
            if shape.side() == 9 {
                assert_eq!(text.len(), 162);
            }
        }
        let (puzzle, _) = generate::puzzle(BoxShape::new(2, 2).unwrap(), 7, 0.5);
        assert!(
            decode_marks(&puzzle, "00")
                .unwrap_err()
                .contains("2 characters")
        );
        let empty = puzzle.cells().iter().position(|&v| v == 0).unwrap();
        let mut bad = vec![b'0'; 16];
        bad[empty] = b'v';
        let e = decode_marks(&puzzle, std::str::from_utf8(&bad).unwrap()).unwrap_err();
        assert!(e.contains("(`v`) are not candidates of a 4×4"), "{e}");
    }

    #[test]
    fn broken_and_tampered_links_say_what_is_wrong() {
        assert_eq!(decode(""), Err(ShareError::Malformed));
        assert_eq!(decode("garbage"), Err(ShareError::Malformed));
        assert!(matches!(decode("3y3-1"), Err(ShareError::Shape(_))));
        assert!(matches!(
            decode("3x3-123"),
            Err(ShareError::Cells(ErrorKind::Length(3)))
        ));
        let clash = format!("2x2-11{}", ".".repeat(14));
        assert!(matches!(
            decode(&clash),
            Err(ShareError::Cells(ErrorKind::Conflicts(_)))
        ));
        let script = format!("2x2-<script>{}", ".".repeat(8));
        assert!(matches!(
            decode(&script),
            Err(ShareError::Cells(ErrorKind::BadSymbol { .. }))
        ));
        assert_eq!(decode(&"x".repeat(5000)), Err(ShareError::TooLong));
    }

    #[test]
    fn plain_nine_by_nine_links_take_the_short_way_with_the_same_answers() {
        let (puzzle, _) = generate::puzzle(BoxShape::new(3, 3).unwrap(), 5, 0.6);
        let text = encode(&puzzle);
        assert_eq!(plain_nine(&text), Some(puzzle.clone()));
        // `0` for empty is read too, the general way.
        assert_eq!(plain_nine(&text.replace('.', "0")), None);
        assert_eq!(decode(&text.replace('.', "0")), Ok(puzzle));
        // A clash, a bad symbol and a short 9×9 are left to the general way, which names them.
        let clash = format!("3x3-11{}", ".".repeat(79));
        assert_eq!(plain_nine(&clash), None);
        assert!(matches!(
            decode(&clash),
            Err(ShareError::Cells(ErrorKind::Conflicts(_)))
        ));
        let bad = format!("3x3-1<{}", ".".repeat(79));
        assert_eq!(plain_nine(&bad), None);
        assert!(matches!(
            decode(&bad),
            Err(ShareError::Cells(ErrorKind::BadSymbol { .. }))
        ));
        assert!(plain_nine(&format!("3x3-{}", ".".repeat(80))).is_none());
    }
}
