//! Telling the layout of a file from its first lines.

use super::Format;
use crate::sudoku::shape::BoxShape;

/// Column names that hold puzzles in a CSV header.
pub(super) const PUZZLE_COLUMNS: [&str; 6] = [
    "quizzes", "quiz", "puzzle", "puzzles", "question", "problem",
];
/// Column names that hold solutions in a CSV header.
pub(super) const SOLUTION_COLUMNS: [&str; 4] = ["solutions", "solution", "answer", "answers"];

/// How many lines detection looks at (enough for one 25×25 block).
pub(super) const SAMPLE_LINES: usize = 40;

/// Guesses the layout from the first lines of a file (comments and blank lines are passed over).
///
/// - a header with a `quizzes`/`puzzle` column: CSV;
/// - `|` or `+` in a line, a line of dashes, or cells separated by spaces: a pretty grid;
/// - a first line of N symbols followed by N - 1 more of the same length (and then a blank line or the end,
///   which tells a 16×16 block from 4×4 one-liners): the block layout;
/// - anything else is read one puzzle per line, so a bad line gets its own message.
pub fn detect<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Format {
    // Blank lines matter for blocks; comments never do.
    let lines: Vec<&[u8]> = lines
        .into_iter()
        .map(<[u8]>::trim_ascii)
        .filter(|l| l.first() != Some(&b'#'))
        .collect();
    let Some(start) = lines.iter().position(|l| !l.is_empty()) else {
        return Format::Line;
    };
    if is_csv_header(lines[start]) {
        return Format::Csv;
    }
    let content: Vec<&[u8]> = lines[start..]
        .iter()
        .copied()
        .filter(|l| !l.is_empty())
        .collect();
    if content.iter().take(4).any(|l| looks_pretty(l)) {
        return Format::Grid;
    }
    // Blocks and one-liners: the first line whose length is a grid side or a cell count decides, so one
    // malformed puzzle at the top does not change how the rest of the file is read.
    for (i, line) in lines.iter().enumerate().skip(start).take(SAMPLE_LINES) {
        let (side, rows) = (line.len(), &lines[i..]);
        if line.is_empty() || line.iter().any(u8::is_ascii_whitespace) {
            continue;
        }
        if BoxShape::for_side(side).is_ok() {
            let block = rows.len() >= side
                && rows[..side].iter().all(|l| l.len() == side)
                && rows.get(side).is_none_or(|l| l.is_empty());
            if block || BoxShape::for_cell_count(side).is_none() {
                return Format::Block;
            }
        }
        if BoxShape::for_cell_count(side).is_some() {
            return Format::Line;
        }
    }
    Format::Line
}

/// Whether the first lines of an input that paused (a terminal, a slow pipe) already settle its layout as
/// [`detect`] would tell it, so that its first puzzles need not wait for [`SAMPLE_LINES`] lines: a CSV header, a
/// line of a pretty grid, or a puzzle on one line whose length is no grid's side (a line as long as a side may
/// be a block's first row, and only the rows after it tell). The lines after may in rare files have decided
/// otherwise (a pretty line among the first four after a one-line puzzle); detection from a pause does not wait
/// for them.
pub fn decided_early<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> bool {
    let mut content = lines
        .into_iter()
        .map(<[u8]>::trim_ascii)
        .filter(|l| !l.is_empty() && l.first() != Some(&b'#'))
        .peekable();
    if content.peek().is_some_and(|first| is_csv_header(first)) {
        return true;
    }
    for line in content {
        if looks_pretty(line) {
            return true;
        }
        if line.iter().any(u8::is_ascii_whitespace) {
            continue;
        }
        if BoxShape::for_side(line.len()).is_ok() {
            return false;
        }
        if BoxShape::for_cell_count(line.len()).is_some() {
            return true;
        }
    }
    false
}

/// A first line that names a puzzle column, e.g. `quizzes,solutions` (or `puzzle` alone).
pub(super) fn is_csv_header(line: &[u8]) -> bool {
    split_fields(line).any(|f| {
        PUZZLE_COLUMNS
            .iter()
            .any(|name| f.eq_ignore_ascii_case(name.as_bytes()))
    })
}

/// CSV fields, unquoted and trimmed (puzzle files have no commas inside fields).
pub(super) fn split_fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b',').map(|f| {
        let f = f.trim_ascii();
        f.strip_prefix(b"\"")
            .and_then(|f| f.strip_suffix(b"\""))
            .unwrap_or(f)
    })
}

/// A line that belongs to a pretty grid: box separators, or cells spaced out (`5 3 . . 7`).
fn looks_pretty(line: &[u8]) -> bool {
    if line.iter().any(|&b| b == b'|' || b == b'+') || is_rule(line, None) {
        return true;
    }
    // Spaced cells, unless the first token is itself a whole one-line puzzle followed by other fields. Every
    // token must look like cells (symbols and empties, at most a row of 25): a line of markup or other
    // punctuation with spaces in it is a bad one-line puzzle, not a grid that would swallow the lines after it.
    let looks_like_cells = |t: &[u8]| {
        t.len() <= 25
            && t.iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'*' | b'_' | b'-'))
    };
    let mut tokens = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty());
    let first = tokens.next().unwrap_or_default();
    let mut rest = tokens.peekable();
    rest.peek().is_some()
        && BoxShape::for_cell_count(first.len()).is_none()
        && looks_like_cells(first)
        && rest.all(looks_like_cells)
}

/// A separator line of a pretty grid (`------+-------+------`, `=====`), as opposed to a row of `-` empties.
/// `side`, when known, tells a row of exactly N dashes from a rule.
pub(super) fn is_rule(line: &[u8], side: Option<usize>) -> bool {
    // One pass (every line of a pretty-grid file comes here, on the splitter's one thread): whether every byte
    // may stand in a rule, the dashes, the longest run of them, and whether a `+` or `=` shows.
    let (mut dashes, mut run, mut longest_run, mut joint) = (0, 0, 0, false);
    for &b in line {
        if !(matches!(b, b'-' | b'=' | b'+' | b'|' | b':') || b.is_ascii_whitespace()) {
            return false;
        }
        if b == b'-' {
            dashes += 1;
            run += 1;
            longest_run = longest_run.max(run);
        } else {
            run = 0;
        }
        joint |= b == b'+' || b == b'=';
    }
    !line.is_empty() && (joint || (side != Some(dashes) && (longest_run >= 6 || dashes == 0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_lines_settle_the_layout_only_where_the_rest_cannot_change_it() {
        let hard: &[u8] =
            b"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
        let settled: [&[&[u8]]; 5] = [
            &[hard],
            &[b"# a comment", b"", hard],
            &[b"quizzes,solutions"],
            &[b"4 . . | . . . | 8 . 5"],
            &[b"bad line", hard],
        ];
        for lines in settled {
            assert!(decided_early(lines.iter().copied()), "{lines:?}");
        }
        // A row as long as a side may begin a block (or be a 4×4 on one line: 16 cells), and nothing yet says
        // anything.
        let open: [&[&[u8]]; 4] = [
            &[b"400000805"],
            &[b"1..............."],
            &[b"# only a comment"],
            &[],
        ];
        for lines in open {
            assert!(!decided_early(lines.iter().copied()), "{lines:?}");
        }
    }

    #[test]
    fn markup_with_spaces_is_not_a_grid() {
        let file: [&[u8]; 2] = [
            br#"<img src=x onerror="alert(1)">"#,
            b"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
        ];
        assert_eq!(detect(file), Format::Line);
        let grid: [&[u8]; 1] = [b"5 3 . . 7 . . . ."];
        assert_eq!(detect(grid), Format::Grid);
    }

    fn det(text: &str) -> Format {
        detect(text.lines().map(str::as_bytes))
    }

    #[test]
    fn tells_the_layouts_apart() {
        let top95 = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/sudoku/top95.in"
        ))
        .unwrap();
        assert_eq!(det(&top95), Format::Block);
        assert_eq!(
            det(
                "# a comment\n4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
            ),
            Format::Line
        );
        assert_eq!(det("quizzes,solutions\n0043,1234"), Format::Csv);
        assert_eq!(
            det("5 3 . | . 7 . | . . .\n6 . . | 1 9 5 | . . ."),
            Format::Grid
        );
        assert_eq!(det("------+-------+------\n53.|.7.|..."), Format::Grid);
        assert_eq!(det("5 3 . . 7 . . . .\n"), Format::Grid);
        assert_eq!(det("1234\n3412\n2143\n4321\n"), Format::Block);
        // Sixteen 16-character lines then more: 4×4 one-liners, not one 16×16 block.
        let one_liners = "1234341221434321\n".repeat(17);
        assert_eq!(det(&one_liners), Format::Line);
        assert_eq!(det(&"123456789ABCDEFG\n".repeat(16)), Format::Block);
        assert_eq!(det("4.....8.5 hard 3.2"), Format::Grid);
        assert_eq!(det("1234341221434321 extra"), Format::Line);
        assert_eq!(det(""), Format::Line);
        assert_eq!(det("123\n\n1234\n3412\n2143\n4321\n"), Format::Block);
    }

    #[test]
    fn rules_are_not_rows_of_dashes() {
        assert!(is_rule(b"------+-------+------", None));
        assert!(is_rule(b"=========", None));
        assert!(!is_rule(b"- - - | - - - | - - -", Some(9)));
        assert!(!is_rule(b"---|---|---", Some(9)));
        assert!(!is_rule(b"5 3 -", None));
    }
}
