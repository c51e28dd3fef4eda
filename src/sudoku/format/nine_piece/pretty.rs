//! Plain pretty grids (`5 3 . | . 7 . | . . .`, a rule between bands): what one looks like, a template that
//! recognises a file's grids many bytes at a time, and a solution written as one.

use super::{CELLS, SIDE, is_cell};
use crate::sudoku::symbols::Symbols;

/// Bytes of a pretty row or rule before its line end (and the one space it may have there).
pub(super) const PRETTY_WIDTH: usize = 21;
/// A pretty row: 0 where a cell's symbol stands, elsewhere the byte that must.
pub(super) const PRETTY_ROW: &[u8; PRETTY_WIDTH] = b"\0 \0 \0 | \0 \0 \0 | \0 \0 \0";
/// The rule between a pretty grid's bands.
pub(super) const PRETTY_RULE: &[u8; PRETTY_WIDTH] = b"------+-------+------";
/// Where a pretty row's nine cells stand.
pub(super) const PRETTY_CELLS: [usize; SIDE] = [0, 2, 4, 8, 10, 12, 16, 18, 20];
/// Lines of a pretty grid: nine rows and two rules.
pub(in crate::sudoku::format) const PRETTY_LINES: usize = 11;

/// How the lines of plain pretty grids end: bytes of a row and of a rule, their line ends included, and the
/// line end itself.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct PrettyLines {
    pub(super) row: usize,
    pub(super) rule: usize,
    pub(super) end: &'static [u8],
}

impl PrettyLines {
    /// The line ends of the pretty grid `text` starts with (its first row's and first rule's), when they are
    /// one of the plain ones; nothing else is checked.
    pub(super) fn of(text: &[u8]) -> Option<Self> {
        let (row, end) = line_end(text)?;
        let (rule, rule_end) = line_end(text.get(3 * row..)?)?;
        (end == rule_end).then_some(Self { row, rule, end })
    }

    /// Bytes of a grid's nine rows and two rules.
    pub(super) fn grid(self) -> usize {
        SIDE * self.row + 2 * self.rule
    }

    /// Where row `r` of a grid starts.
    fn row_at(self, r: usize) -> usize {
        r * self.row + r / 3 * self.rule
    }
}

/// A pretty row's or rule's length with its line end, and its line end: 21 symbols, perhaps a space, then `\n`
/// or `\r\n`.
fn line_end(line: &[u8]) -> Option<(usize, &'static [u8])> {
    let at = PRETTY_WIDTH + usize::from(line.get(PRETTY_WIDTH) == Some(&b' '));
    match (line.get(at), line.get(at + 1)) {
        (Some(b'\n'), _) => Some((at + 1, b"\n")),
        (Some(b'\r'), Some(b'\n')) => Some((at + 2, b"\r\n")),
        _ => None,
    }
}

/// For each byte: true for a plain cell's symbol ([`is_cell`]).
const CELL: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = is_cell(b as u8);
        b += 1;
    }
    t
};

/// Plain pretty grids whose lines end one way, as a template that a grid is checked against eight bytes at a
/// time (every line of a file of a million grids comes here, on the splitter's one thread).
pub(super) struct PrettyTemplate {
    lines: PrettyLines,
    /// For each eight bytes of a grid: the bytes that must stand there, and which of them are fixed (a cell's
    /// is not).
    words: Vec<(u64, u64)>,
    /// The same for the grid's last eight bytes (which overlap the last word when its length is no multiple of
    /// eight).
    tail: (u64, u64),
    /// Where each row starts.
    rows: [usize; SIDE],
    /// For each sixteen bytes of a grid (the last sixteen overlapping): the bytes that must stand there, and
    /// which are cells (for the check sixteen bytes at a time, `PrettyTemplate::is_grid_sse2`).
    #[cfg(target_arch = "x86_64")]
    chunks: Vec<(u128, u128)>,
}

impl PrettyTemplate {
    pub(super) fn new(lines: PrettyLines) -> Self {
        let mut want = Vec::with_capacity(lines.grid());
        for r in 0..SIDE {
            if r == 3 || r == 6 {
                want.extend_from_slice(PRETTY_RULE);
                want.resize(
                    want.len() + lines.rule - PRETTY_WIDTH - lines.end.len(),
                    b' ',
                );
                want.extend_from_slice(lines.end);
            }
            want.extend_from_slice(PRETTY_ROW);
            want.resize(
                want.len() + lines.row - PRETTY_WIDTH - lines.end.len(),
                b' ',
            );
            want.extend_from_slice(lines.end);
        }
        debug_assert_eq!(want.len(), lines.grid());
        let mask: Vec<u8> = want
            .iter()
            .map(|&b| if b == 0 { 0 } else { 0xFF })
            .collect();
        let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
        let last = want.len() - 8;
        Self {
            lines,
            words: want
                .chunks_exact(8)
                .zip(mask.chunks_exact(8))
                .map(|(want, mask)| (word(want), word(mask)))
                .collect(),
            tail: (word(&want[last..]), word(&mask[last..])),
            rows: std::array::from_fn(|r| lines.row_at(r)),
            #[cfg(target_arch = "x86_64")]
            chunks: {
                let wide = |bytes: &[u8]| u128::from_le_bytes(bytes.try_into().expect("16 bytes"));
                let cells: Vec<u8> = mask.iter().map(|&m| !m).collect();
                let last = want.len() - 16;
                (0..last)
                    .step_by(16)
                    .chain([last])
                    .map(|at| (wide(&want[at..at + 16]), wide(&cells[at..at + 16])))
                    .collect()
            },
        }
    }

    /// [`PrettyTemplate::is_grid`] sixteen bytes at a time, for grids whose cells are digits and `.` (the
    /// others are left to the word-by-word check): on the splitter's thread this is a pretty grid file's pace.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2")]
    fn is_grid_sse2(&self, grid: &[u8]) -> bool {
        use std::arch::x86_64::*;
        let last = grid.len() - 16;
        let at = (0..last).step_by(16).chain([last]);
        let mut bad = _mm_setzero_si128();
        for (at, &(want, cells)) in at.zip(&self.chunks) {
            let chunk: &[u8; 16] = grid[at..at + 16].try_into().expect("16 bytes");
            // SAFETY: unaligned loads of sixteen bytes from a 16-byte array and from `u128`s.
            let (have, want, cells) = unsafe {
                (
                    _mm_loadu_si128(chunk.as_ptr().cast()),
                    _mm_loadu_si128((&raw const want).cast()),
                    _mm_loadu_si128((&raw const cells).cast()),
                )
            };
            // A cell: a digit (its distance from `0`, unsigned, at most 9) or a dot; elsewhere, the byte wanted.
            let from_zero = _mm_sub_epi8(have, _mm_set1_epi8(b'0' as i8));
            let digit = _mm_cmpeq_epi8(_mm_min_epu8(from_zero, _mm_set1_epi8(9)), from_zero);
            let dot = _mm_cmpeq_epi8(have, _mm_set1_epi8(b'.' as i8));
            let cell = _mm_and_si128(cells, _mm_or_si128(digit, dot));
            let fixed = _mm_andnot_si128(cells, _mm_cmpeq_epi8(have, want));
            bad = _mm_or_si128(
                bad,
                _mm_xor_si128(_mm_or_si128(cell, fixed), _mm_set1_epi8(-1)),
            );
        }
        _mm_movemask_epi8(bad) == 0
    }

    /// True when `text` starts with a plain pretty grid's eleven lines ending this way.
    pub(super) fn is_grid(&self, text: &[u8]) -> bool {
        let Some(grid) = text.get(..self.lines.grid()) else {
            return false;
        };
        // SAFETY: every x86-64 processor has SSE2.
        #[cfg(target_arch = "x86_64")]
        if unsafe { self.is_grid_sse2(grid) } {
            return true;
        }
        self.is_grid_words(grid)
    }

    /// [`PrettyTemplate::is_grid`] eight bytes at a time, for `grid` of a grid's length.
    fn is_grid_words(&self, grid: &[u8]) -> bool {
        let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
        let fits = |have: u64, (want, mask): (u64, u64)| (have ^ want) & mask == 0;
        // Every byte compared, with no early exit.
        let fixed = grid
            .chunks_exact(8)
            .zip(&self.words)
            .fold(true, |plain, (have, &template)| {
                plain & fits(word(have), template)
            });
        let tail = fits(word(&grid[grid.len() - 8..]), self.tail);
        let cells = self.rows.iter().fold(true, |plain, &at| {
            let row: &[u8; PRETTY_WIDTH] = grid[at..at + PRETTY_WIDTH].try_into().expect("a row");
            PRETTY_CELLS
                .iter()
                .fold(plain, |plain, &c| plain & CELL[usize::from(row[c])])
        });
        fixed & tail & cells
    }
}

/// Finds plain pretty grids ([`super::NineLayout::Pretty`]) for the splitter, which steps over each at once: a reader
/// takes such a grid as nine rows of nine cells whatever comes before or after it (no row of it is a rule, a
/// comment or a blank line). Keeps the template of the last grid's line ends.
#[derive(Default)]
pub(in crate::sudoku::format) struct PrettyGrids(Option<PrettyTemplate>);

impl PrettyGrids {
    /// The length of the plain pretty grid's eleven lines that `text` starts with, if it does.
    pub(in crate::sudoku::format) fn at_start(&mut self, text: &[u8]) -> Option<usize> {
        // The last grid's line ends first: a file's grids nearly always end theirs alike.
        if let Some(template) = &self.0
            && template.is_grid(text)
        {
            return Some(template.lines.grid());
        }
        let lines = PrettyLines::of(text)?;
        if self
            .0
            .as_ref()
            .is_some_and(|template| template.lines == lines)
        {
            return None;
        }
        let template = self.0.insert(PrettyTemplate::new(lines));
        template.is_grid(text).then_some(lines.grid())
    }
}

/// A solution as the pretty grid [`crate::sudoku::format::Writer`] writes: [`PRETTY_ROW`]s with the cells filled in, [`PRETTY_RULE`]s
/// between bands.
pub(super) fn write_pretty(values: &[u8; CELLS], symbols: Symbols, out: &mut Vec<u8>) {
    for (r, row) in values.chunks_exact(SIDE).enumerate() {
        if r == 3 || r == 6 {
            out.extend_from_slice(PRETTY_RULE);
            out.push(b'\n');
        }
        let mut line = *PRETTY_ROW;
        for (&c, &value) in PRETTY_CELLS.iter().zip(row) {
            line[c] = symbols.write(value);
        }
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::super::pretty_of;
    use super::*;

    /// A puzzle to lay out as grids (any 81 cells do).
    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn pretty_grids_checked_many_bytes_at_a_time_agree_with_a_byte_by_byte_check() {
        // Every way a grid's lines may end; bytes changed at random, to what a grid holds and to what it does not.
        let bytes = b"0159.|+- \n\r\0_*A#:";
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for (row_end, rule_end) in [("\n", "\n"), (" \n", "\n"), ("\r\n", " \r\n")] {
            let grid = pretty_of(PUZZLE, row_end, rule_end).into_bytes();
            let template = PrettyTemplate::new(PrettyLines::of(&grid).unwrap());
            let want = pretty_of(&"x".repeat(CELLS), row_end, rule_end).into_bytes();
            let by_bytes = |g: &[u8]| {
                g.iter()
                    .zip(&want)
                    .all(|(&b, &w)| if w == b'x' { is_cell(b) } else { b == w })
            };
            for _ in 0..3000 {
                let mut changed = grid.clone();
                for _ in 0..1 + next(3) {
                    let at = next(changed.len());
                    changed[at] = bytes[next(bytes.len())];
                }
                let expected = by_bytes(&changed);
                assert_eq!(
                    template.is_grid(&changed),
                    expected,
                    "{:?}",
                    String::from_utf8_lossy(&changed)
                );
                assert_eq!(template.is_grid_words(&changed), expected);
                #[cfg(target_arch = "x86_64")]
                {
                    // SAFETY: every x86-64 processor has SSE2.
                    let sse2 = unsafe { template.is_grid_sse2(&changed) };
                    // Digits and dots only: the others are left to the words.
                    let plain = changed
                        .iter()
                        .zip(&want)
                        .all(|(&b, &w)| w != b'x' || b.is_ascii_digit() || b == b'.');
                    assert_eq!(
                        sse2,
                        expected && plain,
                        "{:?}",
                        String::from_utf8_lossy(&changed)
                    );
                }
            }
        }
    }
}
