//! The 9×9 board as the GPU's lane kernel holds it (`shaders/sudoku_lane9.wgsl`), and the search it runs: a
//! model in plain Rust, step for step the same, so the kernel's logic is tested here and its cost (passes,
//! guesses, stack depth) can be counted on any set without a GPU.
//! The CPU's 9×9 fast path (`nine.rs`) holds its board in the same layout and uses the word helpers here.
//!
//! ## Layout
//! One board per digit: the cells where the digit may still go. 81 bits do not fit a word, so each board is
//! three *bands* of three rows, 27 bits each (bit `9·r + c` for row `r` of the band, column `c`):
//!
//! ```text
//! band word:  bits 26..18  row 2 | bits 17..9  row 1 | bits 8..0  row 0     (column c = bit c of its row)
//! cand[d]:    [band 0, band 1, band 2]   cells where digit d+1 may go
//! solved:     [band 0, band 1, band 2]   cells whose digit is settled (a solved cell is in one cand[d] only)
//! ```
//!
//! A row is 9 bits of a word, a column is bit `c` of the nine rows, a box is three 3-bit pieces of one band.
//! Every test below works on whole words: nine digits × three bands, no per-cell loop, which is what lets one
//! GPU lane carry a board in 30 registers.
//!
//! ## One pass ([`Bands::propagate`])
//! 1. Count each cell's candidates to two, bit-sliced over the nine digits: a cell with none kills the board;
//!    an unsolved cell with one is a naked single.
//! 2. Digit by digit: the places left in each row, column and box. A unit with none kills the board; a unit
//!    with one is a hidden single. The digit's new cells (hidden, or naked singles of this digit) are placed at
//!    once: they leave every other cell of their rows, columns and boxes (two of them in one unit: dead), and
//!    every other digit's board (later digits at once, earlier ones after the loop).
//! 3. Nothing placed: stuck. The search then guesses ([`Bands::guess`]) on the unsolved cell with the fewest
//!    candidates, among those the one with the most unsolved cells in its row, column and box (the lowest on
//!    ties), its lowest digit first; the other branch (the same board without that
//!    digit there) waits on a stack.
//!
//! ## A split ([`Bands::cut`])
//! Where lanes stand idle, a stuck board can make several guesses at once instead of one (the `lone` kernel,
//! `shaders/sudoku_lone9.wgsl`): it picks `k` unsolved cells with the fewest candidates (lowest first on ties),
//! each with its lowest digit, and branch `r` of the `2^k` places choice `j`'s digit where bit `j` of `r` is
//! clear and removes it where the bit is set. Every solution keeps or drops each choice, so each lies in exactly
//! one branch: counts stay exact. Two branches may place one digit twice in a unit; their first pass finds them
//! dead.
//!
//! ## Transfer format
//! Puzzles go to the GPU and solutions come back as four bit-planes of the cell values (plane `k` holds bit
//! `k` of each cell's value, 0 for empty), in the band layout: 12 words, 48 bytes for 81 cells.

use super::grid::Grid;
use super::shape::BoxShape;

/// The 27 bits of a band.
pub const BAND: u32 = 0x7FF_FFFF;
/// One row of a band.
pub(super) const ROW: u32 = 0x1FF;
/// Copies a 9-bit row into all three rows of a band (1 + 2⁹ + 2¹⁸).
pub(super) const SPREAD: u32 = 0x4_0201;
/// The first box of a band: columns 0–2 of its three rows (7 · SPREAD).
pub(super) const BOX: u32 = 0x1C_0E07;
/// Bit 0 of each box's three columns within a row (columns 0, 3, 6).
const GROUP: u32 = 0x49;

/// Three band words.
pub(super) type Band3 = [u32; 3];

fn or(a: Band3, b: Band3) -> Band3 {
    [a[0] | b[0], a[1] | b[1], a[2] | b[2]]
}

fn and(a: Band3, b: Band3) -> Band3 {
    [a[0] & b[0], a[1] & b[1], a[2] & b[2]]
}

fn and_not(a: Band3, b: Band3) -> Band3 {
    [a[0] & !b[0], a[1] & !b[1], a[2] & !b[2]]
}

fn is_empty(a: Band3) -> bool {
    a == [0; 3]
}

fn ones(a: Band3) -> u32 {
    a.iter().map(|w| w.count_ones()).sum()
}

/// Per band, the columns (9 bits) where the board has a cell.
pub(super) fn columns_any(w: u32) -> u32 {
    (w | (w >> 9) | (w >> 18)) & ROW
}

/// Per band, the columns where the board has two or three cells.
pub(super) fn columns_two(w: u32) -> u32 {
    let (a, b, c) = (w & ROW, (w >> 9) & ROW, w >> 18);
    (a & b) | (a & c) | (b & c)
}

/// The hidden singles of one digit's board `x`, and whether some row, column or box has no place left for it.
fn hidden_singles(x: Band3) -> (Band3, bool) {
    let mut single = [0; 3];
    let mut empty = false;
    // Rows: nine 9-bit fields; one bit set is the only place in its row.
    for (b, &w) in x.iter().enumerate() {
        for k in [0, 9, 18] {
            let f = (w >> k) & ROW;
            empty |= f == 0;
            if f & f.wrapping_sub(1) == 0 {
                single[b] |= f << k;
            }
        }
    }
    // Columns: count each column's cells to two over the three bands.
    let any = x.map(columns_any);
    let two = x.map(columns_two);
    let all = any[0] | any[1] | any[2];
    let many = two[0] | two[1] | two[2] | (any[0] & any[1]) | (any[0] & any[2]) | (any[1] & any[2]);
    empty |= all != ROW;
    let lone_columns = (all & !many) * SPREAD;
    // Boxes: within a band, a box's three columns (a, b, c) of the band's column summary.
    for b in 0..3 {
        let (p, q, r) = (any[b] & GROUP, (any[b] >> 1) & GROUP, (any[b] >> 2) & GROUP);
        let doubled = (two[b] | (two[b] >> 1) | (two[b] >> 2)) & GROUP;
        let some = p | q | r;
        let more = (p & q) | (p & r) | (q & r) | doubled;
        empty |= some != GROUP;
        // A group bit at 3g times BOX lights box g's nine cells.
        single[b] |= x[b] & (lone_columns | ((some & !more) * BOX));
    }
    (single, empty)
}

/// The cells that see some cell of `m` (its rows, columns and boxes, `m` included), and whether two cells of
/// `m` see each other.
#[inline(always)]
pub(super) fn cover(m: Band3) -> (Band3, bool) {
    let any = m.map(columns_any);
    let columns = any[0] | any[1] | any[2];
    let mut cells = [0; 3];
    let (mut rows, mut boxes) = (0, 0);
    for b in 0..3 {
        let mut lines = 0;
        for k in [0, 9, 18] {
            if (m[b] >> k) & ROW != 0 {
                lines |= ROW << k;
                rows += 1;
            }
        }
        let groups = (any[b] | (any[b] >> 1) | (any[b] >> 2)) & GROUP;
        boxes += groups.count_ones();
        cells[b] = lines | (columns * SPREAD) | (groups * BOX);
    }
    // n cells in n distinct rows, columns and boxes each, or two of them share a unit.
    let n = ones(m);
    (cells, n != rows || n != columns.count_ones() || n != boxes)
}

/// What one pass found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Something was placed.
    Progress,
    /// Nothing to place: a guess is needed.
    Stuck,
    /// A contradiction: this branch has no solution.
    Dead,
    /// Every cell is settled: a solution.
    Solved,
}

/// A 9×9 board of candidates in the band layout (see the module header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bands {
    /// Where each digit may go.
    pub cand: [Band3; 9],
    /// Cells whose digit is settled.
    pub solved: Band3,
}

impl Bands {
    /// The board of a puzzle given as value planes ([`pack`]), its givens placed; `None` when two givens clash.
    pub fn from_planes(planes: &[u32; 12]) -> Option<Self> {
        let mut board = Self {
            cand: [[BAND; 3]; 9],
            solved: [0; 3],
        };
        let plane = |k: usize| [planes[3 * k], planes[3 * k + 1], planes[3 * k + 2]];
        let mut taken = [0; 3];
        let mut clash = false;
        for d in 0..9 {
            // The cells whose value is d + 1: each plane taken as is where the value has that bit, else inverted.
            let value = d as u32 + 1;
            let mut m = [BAND; 3];
            for k in 0..4 {
                let p = plane(k);
                m = if value >> k & 1 == 1 {
                    and(m, p)
                } else {
                    and_not(m, p)
                };
            }
            let (seen, two_in_a_unit) = cover(m);
            clash |= two_in_a_unit;
            board.cand[d] = or(and_not(and_not(board.cand[d], taken), seen), m);
            taken = or(taken, m);
        }
        board.drop_taken_from_earlier(taken);
        board.solved = taken;
        (!clash).then_some(board)
    }

    /// After a pass placed `taken` digit by digit, each placed cell leaves the boards of the digits before its
    /// own (later digits' boards never saw it). Walking back from the last digit, `later` is what the digits
    /// after `d` placed.
    fn drop_taken_from_earlier(&mut self, taken: Band3) {
        let mut later = [0; 3];
        for d in (0..9).rev() {
            self.cand[d] = and_not(self.cand[d], later);
            later = or(later, and(self.cand[d], taken));
        }
    }

    /// One pass of singles (see the module header).
    pub fn propagate(&mut self) -> Pass {
        let (mut one, mut two) = ([0; 3], [0; 3]);
        for x in &self.cand {
            two = or(two, and(one, *x));
            one = or(one, *x);
        }
        if one != [BAND; 3] {
            return Pass::Dead;
        }
        if self.solved == [BAND; 3] {
            return Pass::Solved;
        }
        let naked = and_not(and_not([BAND; 3], two), self.solved);
        let mut taken = [0; 3];
        let mut dead = false;
        for d in 0..9 {
            let mut x = and_not(self.cand[d], taken);
            let (single, empty) = hidden_singles(x);
            dead |= empty;
            let m = and_not(or(single, and(naked, x)), self.solved);
            if !is_empty(m) {
                let (seen, clash) = cover(m);
                dead |= clash;
                x = or(and_not(x, seen), m);
                taken = or(taken, m);
                self.solved = or(self.solved, m);
            }
            self.cand[d] = x;
        }
        self.drop_taken_from_earlier(taken);
        if dead {
            Pass::Dead
        } else if is_empty(taken) {
            Pass::Stuck
        } else {
            Pass::Progress
        }
    }

    /// On a stuck board: keeps the first branch of a guess here and returns the other. The cell is the unsolved
    /// one with the fewest candidates, among those the one that sees the most unsolved cells (its row, column
    /// and box; the lowest on ties): its digit, once settled, leaves the most cells; this board keeps its
    /// lowest digit, the returned one keeps the rest.
    pub fn guess(&mut self) -> Self {
        // Candidates per cell, counted in four bit-planes (a ripple-carry add of each digit's board).
        let mut count = [[0u32; 3]; 4];
        for x in &self.cand {
            let mut carry = *x;
            for plane in &mut count {
                let next = and(*plane, carry);
                *plane = [
                    plane[0] ^ carry[0],
                    plane[1] ^ carry[1],
                    plane[2] ^ carry[2],
                ];
                carry = next;
            }
        }
        let open = and_not([BAND; 3], self.solved);
        let mut fewest = [0; 3];
        for n in 2..=9u32 {
            fewest = open;
            for (k, plane) in count.iter().enumerate() {
                fewest = if n >> k & 1 == 1 {
                    and(fewest, *plane)
                } else {
                    and_not(fewest, *plane)
                };
            }
            if !is_empty(fewest) {
                break;
            }
        }
        let mut cell = [0; 3];
        let mut most = 0;
        for (b, &w) in fewest.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                let p = w.trailing_zeros();
                w &= w - 1;
                let column = p % 9;
                let mut peers = [(1 << column) * SPREAD; 3];
                peers[b] |= (ROW << (p - column)) | (BOX << (column - column % 3));
                let seen = ones(and(open, peers));
                if seen > most {
                    most = seen;
                    cell = [0; 3];
                    cell[b] = 1 << p;
                }
            }
        }
        let digit = self
            .cand
            .iter()
            .position(|x| !is_empty(and(*x, cell)))
            .unwrap_or(0);
        let mut other = *self;
        other.cand[digit] = and_not(other.cand[digit], cell);
        for (d, x) in self.cand.iter_mut().enumerate() {
            if d != digit {
                *x = and_not(*x, cell);
            }
        }
        other
    }

    /// The value planes of a solved board (see [`unpack`]).
    pub fn planes(&self) -> [u32; 12] {
        let mut planes = [0; 12];
        for (d, x) in self.cand.iter().enumerate() {
            let value = d + 1;
            for k in 0..4 {
                if value >> k & 1 == 1 {
                    for b in 0..3 {
                        planes[3 * k + b] |= x[b];
                    }
                }
            }
        }
        planes
    }
}

/// The low bit of each byte of a word.
const BYTE_LOW_BITS: u64 = 0x0101_0101_0101_0101;
/// Multiplying a word whose bytes are 0 or 1 by this moves byte i's bit to bit 56 + i: the products land on
/// distinct bits (8i + 7j + 7 for i, j < 8 never repeats), so no carry disturbs the top byte.
const GATHER: u64 = 0x0102_0408_1020_4080;

/// The 8 bits of `byte` spread to the low bits of the 8 bytes of a word (bit i → byte i).
fn spread(byte: u32) -> u64 {
    // Copy the byte into every byte, keep bit i in byte i, then turn each nonzero byte into 1 (adding 0x7F sets
    // bit 7 exactly when the byte is nonzero, with no carry out of it).
    let x = u64::from(byte).wrapping_mul(BYTE_LOW_BITS) & 0x8040_2010_0804_0201;
    ((x + 0x7F7F_7F7F_7F7F_7F7F) >> 7) & BYTE_LOW_BITS
}

/// A 9×9 grid (3×3 boxes; any other shape panics) as value planes: word `3k + b` holds bit `k` of the values
/// of band `b`'s cells. Eight cells at a time (this runs on every puzzle sent to the GPU).
pub fn pack(grid: &Grid) -> [u32; 12] {
    // 81 cells can only be 9×9 with 3×3 boxes.
    let values: &[u8; 81] = grid
        .cells()
        .try_into()
        .expect("value planes hold 9×9 grids");
    pack_values(values)
}

/// [`pack`] for a 9×9 grid's values (0 for an empty cell, else 1 to 9), row-major, wherever they are kept.
pub fn pack_values(values: &[u8; 81]) -> [u32; 12] {
    let mut planes = [0u32; 12];
    for (band, values) in values.chunks_exact(27).enumerate() {
        let mut bytes = [0u8; 32];
        bytes[..27].copy_from_slice(values);
        for (q, eight) in bytes.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
            for k in 0..4 {
                let bits = ((x >> k) & BYTE_LOW_BITS).wrapping_mul(GATHER) >> 56;
                planes[3 * k + band] |= (bits as u32) << (8 * q);
            }
        }
    }
    planes
}

/// The cell values of value planes, row-major; the inverse of [`pack`], eight cells at a time.
pub fn unpack(planes: &[u32; 12]) -> [u8; 81] {
    let mut cells = [0u8; 81];
    for (band, values) in cells.chunks_exact_mut(27).enumerate() {
        let mut bytes = [0u8; 32];
        for (q, eight) in bytes.chunks_exact_mut(8).enumerate() {
            let x = (0..4).fold(0u64, |x, k| {
                x | spread((planes[3 * k + band] >> (8 * q)) & 0xFF) << k
            });
            eight.copy_from_slice(&x.to_le_bytes());
        }
        values.copy_from_slice(&bytes[..27]);
    }
    cells
}

/// The shape the band layout is for: 9×9 with 3×3 boxes.
pub fn nine() -> BoxShape {
    BoxShape::new(3, 3).expect("3×3 boxes exist")
}

/// What a depth-first search on [`Bands`] did: the kernel's work for one puzzle on one lane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Search {
    /// Solutions found, at most the limit.
    pub count: u64,
    /// The first solution, as value planes.
    pub first: Option<[u32; 12]>,
    /// Passes run (each a call of [`Bands::propagate`]).
    pub passes: u64,
    /// Guesses made.
    pub guesses: u64,
    /// The most branches waiting on the stack at once.
    pub depth: usize,
}

/// Most guesses one [`Cut`] makes (the kernel packs each choice in 16 bits of a `vec2<u32>`).
pub const MOST_CUT: usize = 4;

/// Several guesses made at once on a stuck board ([`Bands::cut`]): up to [`MOST_CUT`] cells (0..81, row-major)
/// with the digit (0..9) each one keeps or loses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cut {
    /// `(cell, digit)` of each choice; the first `len` are used.
    pub choices: [(u8, u8); MOST_CUT],
    /// Choices made: the cut has `2^len` branches.
    pub len: usize,
}

impl Bands {
    /// Up to `k` (at most [`MOST_CUT`]) unsolved cells with the fewest candidates, two or more (the lowest
    /// cell first on ties), each with its lowest digit: the choices of a split. On a stuck board every unsolved
    /// cell has two or more, so a cut of `k ≥ 1` makes at least one choice.
    pub fn cut(&self, k: usize) -> Cut {
        let mut cut = Cut::default();
        let k = k.min(MOST_CUT);
        for n in 2..=9 {
            for cell in 0..81 {
                let (band, bit) = (cell / 27, cell % 27);
                if cut.len == k || self.solved[band] >> bit & 1 == 1 {
                    continue;
                }
                let mut digits = (0..9).filter(|&d| self.cand[d][band] >> bit & 1 == 1);
                let lowest = digits.next();
                if let Some(digit) = lowest.filter(|_| 1 + digits.count() == n) {
                    cut.choices[cut.len] = (cell as u8, digit as u8);
                    cut.len += 1;
                }
            }
        }
        cut
    }

    /// Branch `r` of `cut` (`r < 2^cut.len`): choice `j`'s digit placed where bit `j` of `r` is clear, removed
    /// where it is set. Branch 0 places every choice.
    pub fn branch(&self, cut: &Cut, r: usize) -> Self {
        let mut board = *self;
        for (j, &(cell, digit)) in cut.choices[..cut.len].iter().enumerate() {
            let (band, bit) = (usize::from(cell) / 27, u32::from(cell) % 27);
            let place = r >> j & 1 == 0;
            for (d, x) in board.cand.iter_mut().enumerate() {
                if (d == usize::from(digit)) != place {
                    x[band] &= !(1 << bit);
                }
            }
        }
        board
    }
}

/// Searches a puzzle given as value planes the way one GPU lane does, counting solutions up to `limit`.
pub fn search(planes: &[u32; 12], limit: u64) -> Search {
    match Bands::from_planes(planes) {
        Some(board) => search_board(board, limit),
        None => Search::default(),
    }
}

/// Searches `board` depth first, one lane's way, counting solutions up to `limit`.
pub fn search_board(mut board: Bands, limit: u64) -> Search {
    let mut out = Search::default();
    let mut stack = Vec::new();
    loop {
        out.passes += 1;
        match board.propagate() {
            Pass::Progress => continue,
            Pass::Stuck => {
                stack.push(board.guess());
                out.guesses += 1;
                out.depth = out.depth.max(stack.len());
                continue;
            }
            Pass::Solved => {
                out.count += 1;
                out.first.get_or_insert(board.planes());
                if out.count >= limit {
                    return out;
                }
            }
            Pass::Dead => {}
        }
        match stack.pop() {
            Some(next) => board = next,
            None => return out,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::grid::nine_from_line as grid;
    use crate::sudoku::{Solver, generate, verify};

    #[test]
    fn planes_round_trip_every_cell_and_match_the_plain_layout() {
        for seed in 0..20 {
            let (puzzle, solution) = generate::puzzle(nine(), seed, 0.6);
            for g in [&puzzle, &solution] {
                let planes = pack(g);
                assert_eq!(&unpack(&planes)[..], g.cells());
                // The layout, cell by cell: bit k of cell i's value at bit i % 27 of word 3k + i / 27.
                let mut plain = [0u32; 12];
                for (i, &v) in g.cells().iter().enumerate() {
                    for k in 0..4 {
                        plain[3 * k + i / 27] |= u32::from(v >> k & 1) << (i % 27);
                    }
                }
                assert_eq!(planes, plain);
            }
        }
    }

    #[test]
    fn givens_that_clash_are_refused_and_others_placed() {
        assert!(Bands::from_planes(&pack(&grid(&format!("11{}", ".".repeat(79))))).is_none());
        let board = Bands::from_planes(&pack(&grid(&format!("1{}", ".".repeat(80))))).unwrap();
        assert_eq!(board.solved, [1, 0, 0]);
        assert_eq!(board.cand[0][0] & ROW, 1, "1 leaves the rest of row 1");
        assert_eq!(board.cand[1][0] & 1, 0, "r1c1 is no longer open to 2");
        assert_eq!(board.cand[0][1] & 1, 0, "nor column 1 below");
    }

    #[test]
    fn a_hidden_single_in_a_box_is_found() {
        // Digit board with one place in box 1 of band 0 (column 4, row 1), other boxes full.
        let mut x = [BAND; 3];
        x[0] &= !(BOX << 3);
        x[0] |= 1 << (9 + 4);
        let (single, empty) = hidden_singles(x);
        assert!(!empty);
        assert_eq!(single[0] & (BOX << 3), 1 << 13);
    }

    #[test]
    fn two_placements_in_one_unit_clash() {
        assert!(cover([0b11, 0, 0]).1, "one row");
        assert!(cover([1 | (1 << 18), 0, 0]).1, "one column and box");
        assert!(cover([1, 1 << 9, 0]).1, "one column");
        assert!(!cover([1, 1 << 12, 1 << 24]).1, "three independent cells");
        assert_eq!(cover([1, 0, 0]).0, [ROW | BOX, SPREAD, SPREAD]);
    }

    #[test]
    fn the_search_agrees_with_the_cpu_solver() {
        let mut cpu = Solver::new();
        for seed in 0..60 {
            let puzzle = generate::mixed_nine(seed);
            for limit in [1, 2, 10] {
                let want = cpu.solve(&puzzle, limit);
                let got = search(&pack(&puzzle), limit);
                assert_eq!(got.count, want.count, "seed {seed} limit {limit}");
                let first = Grid::new(nine(), &unpack(&got.first.unwrap())).unwrap();
                assert!(verify::is_solution(&puzzle, &first));
            }
        }
        // An empty grid has solutions; a contradiction has none.
        let empty = search(&pack(&Grid::empty(nine())), 3);
        assert_eq!(empty.count, 3);
        let none = grid(&format!("12345678.{}9{}", ".".repeat(8), ".".repeat(63)));
        assert_eq!(search(&pack(&none), 1).count, 0);
    }

    #[test]
    fn a_cut_partitions_the_solutions_among_its_branches() {
        // Boards with a few hundred solutions at most, taken where they first get stuck: the branches' counts
        // add up to the board's, for every width of cut.
        const LIMIT: u64 = 100_000;
        let mut several = 0;
        for seed in 0..40 {
            // A unique puzzle with a few more givens taken out.
            let (unique, _) = generate::puzzle(nine(), seed, 0.55);
            let mut cells = unique.cells().to_vec();
            let givens: Vec<usize> = (0..81).filter(|&i| cells[i] != 0).collect();
            for (n, &i) in givens.iter().enumerate() {
                if n as u64 % 7 == seed % 7 {
                    cells[i] = 0;
                }
            }
            let puzzle = Grid::new(nine(), &cells).unwrap();
            let mut board = Bands::from_planes(&pack(&puzzle)).unwrap();
            let pass = loop {
                match board.propagate() {
                    Pass::Progress => continue,
                    other => break other,
                }
            };
            let whole = search_board(board, LIMIT).count;
            if pass != Pass::Stuck || whole >= LIMIT {
                continue;
            }
            several += usize::from(whole > 1);
            for k in 1..=MOST_CUT {
                let cut = board.cut(k);
                assert_eq!(cut.len, k, "a stuck board has open cells");
                for &(cell, digit) in &cut.choices[..k] {
                    let (band, bit) = (usize::from(cell) / 27, u32::from(cell) % 27);
                    assert_eq!(board.cand[usize::from(digit)][band] >> bit & 1, 1);
                    assert_eq!(board.solved[band] >> bit & 1, 0);
                }
                let parts: u64 = (0..1 << k)
                    .map(|r| search_board(board.branch(&cut, r), LIMIT).count)
                    .sum();
                assert_eq!(parts, whole, "seed {seed} k {k}");
            }
        }
        assert!(several >= 8, "{several} boards with several solutions");
    }
}
