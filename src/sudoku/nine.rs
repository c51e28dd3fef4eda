//! The 9×9 fast path of the CPU solver (3×3 boxes only): the board held digit by digit in band words, as the
//! GPU's lane kernel holds it ([`super::bands`]), but updated incrementally and with the band's own logic, so
//! that one step costs a few table lookups on the one word that changed.
//!
//! ## Layout
//! ```text
//! cand[9b + d]:  band b of digit d+1: 27 bits, bit 9r + c for row r of the band, column c (a band's nine
//!                digits side by side, so that a placement leaves them all in one vector operation)
//! open[b]:       the band's cells with no digit placed yet
//! rows_open[b]:  bit 3d + r: digit d+1 not yet placed in row r of band b
//! dirty:         bit 9b + d: cand[9b + d] changed since its last update
//! tri[9u + d]:   digit d+1's triads in unit u (bands 0–2, stacks 3–5), as of the last update (TRIAD_SUMMARY)
//! tri_changed:   bit u: some digit's triads in unit u changed since the last triad rules
//! ```
//!
//! ## The band update ([`Board::update`])
//! Within one band a digit takes one cell in each of its three rows and one in each of its three boxes, so the
//! rows it occupies and the boxes it occupies are matched by a permutation. The word is summarised as nine
//! *triads* (row r meets box k: bit 3r + k when the digit may go there), and a table keeps only the triads that
//! lie on some permutation inside the summary. That one lookup covers pointing and claiming (locked candidates)
//! within the band, and a row or box with no place left (no permutation: dead). A row left with one cell is
//! then a placement: the cell leaves every other digit, and its column leaves the digit's other two bands.
//! Each change marks the word it touched dirty, and the updates run until none is.
//!
//! ## Two builds
//! [`Search::run_values`] takes the search compiled for BMI2 and AVX2 where the CPU has them (and runs `pext` in
//! hardware), the plain one elsewhere and in WebAssembly. The two differ only where [`BandOps`] says: how a
//! word's triads are read and how a placement leaves a band's nine digits. On Intel's cores the first goes
//! without the update's branch on whether it placed anything, a coin toss that costs those cores more when
//! mispredicted than the steps it skips, except in a puzzle's first settle, where updates mostly place nothing.
//!
//! ## Between updates
//! When no word is dirty:
//! 1. Naked singles (a cell with one digit), over whole bands with bit-sliced counts.
//! 2. For each digit whose words changed since the last such pass, the columns: a column with one cell left is
//!    a hidden single, and the *stacks* get the band update's reasoning turned sideways (within a stack, its
//!    three columns and the three bands are matched one to one), which covers locked candidates between boxes
//!    and columns.
//! 3. The triad rules, in every band and stack whose triads changed since the last time. A triad (the three
//!    cells of a row, or of a column, in one box) holds three different digits: where only three digits may
//!    go, each of them must, and where three must, no other may; fewer than three possible, or four that
//!    must, is a dead end. Both updates keep each digit's triads (the union of its permutations, the triads on
//!    all of them, and how many there are, from one table), so the rules are bit-sliced counts of nine words.
//!
//! A single is applied by clearing the digit's row and box around the cell, which the band update then turns
//! into a placement.
//!
//! ## The guess
//! Stuck, the search branches on a digit's *configuration* in a band or stack: which of the permutations left
//! to it there it takes. It chooses the band or stack not yet fixed with the fewest digits left to fix, where
//! one has six or fewer, else the one with the fewest configurations over its nine digits (as tdoku chooses),
//! and there the first digit with the fewest configurations (two where there is one). Every configuration is
//! a branch of its own, so counts stay exact; each is tried on a copy of the board in the slot above it, and
//! the last on the board itself. One configuration places the digit in three triads at once, and with the
//! triad rules behind it this took a third fewer guesses on the forum's hardest than branching on the cell
//! with two candidates that had the most such peers (64.9 against 100.2 for a first solution; without the
//! triad rules it thrashes on open grids, which nothing else tells that a triad has been promised four
//! digits); the nearly fixed unit first takes it to 59.1.

mod band_ops;
mod tables;
mod value_cells;

use super::bands::{BAND, ROW, SPREAD, columns_any, columns_two, cover};
use super::solver::Found;
use band_ops::{BandOps, Portable, Skipping, cut_word};
#[cfg(target_arch = "x86_64")]
use band_ops::{BmiAvx2, Build, build};
use tables::{PERMS, PERMUTATION_CELLS, PERMUTATIONS, ROW_BOX_PEERS, TRIAD_CELLS, TRIAD_SUMMARY};
use value_cells::ValueCells;

/// The index of band `b` of digit `d + 1` in [`Board::cand`] (and its dirty bit).
const fn word(d: usize, b: usize) -> usize {
    9 * b + d
}

/// What [`Board::update`] returns for a dead board (dirty bits use the low 27).
const DEAD: u32 = 1 << 31;

/// A 9×9 board in the band layout (see the module header).
#[derive(Clone, Copy)]
struct Board {
    cand: [u32; 27],
    /// Each digit's triads in each unit as of the last update, as [`TRIAD_SUMMARY`] gives them: index 9b + d
    /// for band b (bit 3r + k: row r of the band in box k), 9(3 + s) + d for stack s (bit 3b + c: band b in
    /// column c of the stack).
    tri: [u32; 54],
    /// Bit u: some digit's triads in unit u (0..3 bands, 3..6 stacks) changed since the last triad rules.
    tri_changed: u32,
    open: [u32; 3],
    rows_open: [u32; 3],
    dirty: u32,
}

/// Where settling a board ended.
enum Settled {
    Solved,
    Dead,
    /// A guess over the configurations of digit `d` in unit `u` (0..3 bands, 3..6 stacks), its summary.
    Configs(usize, usize, u32),
}

impl Board {
    /// A board with nothing on it, to fill the search's slots before they are used.
    const EMPTY: Self = Self {
        cand: [0; 27],
        tri: [0; 54],
        tri_changed: 0,
        open: [0; 3],
        rows_open: [0; 3],
        dirty: 0,
    };

    /// Sets this board to a 9×9 puzzle with its givens applied, where it lies (the search's first slot: no
    /// copy per puzzle); `false` when two givens clash, the board then left half made.
    ///
    /// Field by field rather than as a whole new board: in the worker's WebAssembly a whole-board write is a
    /// `memory.fill`, which V8 runs as a call out of the wasm code, a few per puzzle on what an easy puzzle
    /// costs (docs/benchmarks.md). `tri` keeps the previous puzzle's summaries: every unit starts marked
    /// changed, the first settle's updates and column pass write every entry before the triad rules or a
    /// guess read one, and a board that goes dead first is never read.
    #[inline(always)]
    fn load(&mut self, cells: &[u8]) -> bool {
        // The cells of each value, band by band (value 0: the open cells).
        let values = ValueCells::new(cells);
        let open = values.of(0);
        self.tri_changed = 0x3F;
        self.open = open;
        self.dirty = BAND;
        self.rows_open = [0; 3];
        for d in 0..9 {
            let m = values.of(d as u8 + 1);
            // The givens' rows, columns and boxes leave the digit's open cells; two givens in one unit clash.
            let (seen, clash) = cover(m);
            if clash {
                return false;
            }
            for b in 0..3 {
                self.cand[word(d, b)] = (open[b] & !seen[b]) | m[b];
                let open_rows = (0..3).fold(0, |rows, r| {
                    rows | u32::from((m[b] >> (9 * r)) & ROW == 0) << r
                });
                self.rows_open[b] |= open_rows << (3 * d);
            }
        }
        true
    }

    /// Clears `mask` from word `i`; returns its dirty bit if that changed it (no branch: this runs for every
    /// digit of every placement, and whether it changes anything is a coin toss).
    #[inline(always)]
    fn cut(&mut self, i: usize, mask: u32) -> u32 {
        cut_word(&mut self.cand, i, mask)
    }

    /// [`Board::cut`], the word marked dirty on the board (for changes made between settles: a guess).
    fn clear(&mut self, i: usize, mask: u32) {
        self.dirty |= self.cut(i, mask);
    }

    /// The band update of word `i` (see the module header): the words it changed as dirty bits, or [`DEAD`].
    #[inline(always)]
    fn update<T: BandOps>(&mut self, i: usize) -> u32 {
        let (d, b) = (i % 9, i / 9);
        let mut w = self.cand[i];
        let triads = T::triads(w);
        let allowed = PERMUTATION_CELLS[triads];
        if allowed == 0 {
            return DEAD;
        }
        let summary = TRIAD_SUMMARY[triads];
        self.tri_changed |= u32::from(self.tri[9 * b + d] != summary) << b;
        self.tri[9 * b + d] = summary;
        w &= allowed;
        let rows = (self.rows_open[b] >> (3 * d)) & 7;
        // Rows still open with one cell left (`f & (f - 1) == 0`; no row is empty here), without branches.
        let mut placed = 0;
        let mut placed_rows = 0;
        for r in 0..3 {
            let f = (w >> (9 * r)) & ROW;
            let single = u32::from(f & (f - 1) == 0) & (rows >> r);
            placed |= (f & single.wrapping_neg()) << (9 * r);
            placed_rows |= single << r;
        }
        // The word is stored only now or after the cut below: a store just before the cut's wide load of the
        // same words could not be forwarded to it, and the load would wait for the store to reach the cache.
        // Without the branch, nothing placed goes through the steps below, which then change nothing and
        // make no word dirty.
        if T::SKIP_UNPLACED && placed == 0 {
            self.cand[i] = w;
            return 0;
        }
        self.rows_open[b] &= !(placed_rows << (3 * d));
        self.open[b] &= !placed;
        // The cells leave every digit's word of this band, then this one gets them back (not dirty: it is
        // being updated now).
        let mut dirty = T::cut_band(&mut self.cand, b, placed);
        self.cand[i] = w;
        let cols = columns_any(placed) * SPREAD;
        dirty |= self.cut(word(d, (b + 1) % 3), cols);
        dirty |= self.cut(word(d, (b + 2) % 3), cols);
        dirty & !(1 << i)
    }

    /// Applies updates and singles until a solution, a contradiction or a guess.
    #[inline(always)]
    fn settle<T: BandOps>(&mut self) -> Settled {
        // Kept in a register here; the board's own is only for changes made between settles.
        let mut dirty = std::mem::take(&mut self.dirty);
        // The words updated since the last column pass: a digit none of whose words changed has nothing new
        // for it (every change since the parent's last pass is dirty when a node starts).
        let mut touched = 0u32;
        loop {
            while dirty != 0 {
                // The words dirty now, as a wave: which word comes next is known before the update in hand
                // ends, so the core starts it early. (Taking the next word from `dirty` itself made each
                // update's first load wait for the previous update's last result.) A word made dirty and then
                // updated in the same wave leaves `dirty`; one updated earlier stays for the next wave.
                let mut wave = dirty;
                touched |= wave;
                while wave != 0 {
                    let i = wave.trailing_zeros() as usize;
                    wave &= wave - 1;
                    let more = self.update::<T>(i);
                    if more == DEAD {
                        return Settled::Dead;
                    }
                    dirty = (dirty & !(1 << i)) | more;
                }
            }
            if self.open == [0; 3] {
                return Settled::Solved;
            }
            // Naked singles, band by band: cells open to one digit (`two` = open to two or more).
            for b in 0..3 {
                let (mut one, mut two) = (0, 0);
                for d in 0..9 {
                    let x = self.cand[word(d, b)];
                    two |= one & x;
                    one |= x;
                }
                let open = self.open[b];
                if open & !one != 0 {
                    return Settled::Dead;
                }
                let singles = open & !two;
                if singles != 0 {
                    for d in 0..9 {
                        let mut s = singles & self.cand[word(d, b)];
                        while s != 0 {
                            let p = s.trailing_zeros() as usize;
                            s &= s - 1;
                            dirty |= self.cut(word(d, b), ROW_BOX_PEERS[p]);
                        }
                    }
                }
            }
            if dirty != 0 {
                continue;
            }
            // Hidden singles in columns: a digit's column with one cell over the three bands. The digits are
            // taken as the set bits of a mask: a test per digit of whether it was touched is close to a coin
            // toss (58% of them are not, on the forum's hardest), where the loop over set bits mispredicts
            // about once, at its end.
            let mut digits = (touched | touched >> 9 | touched >> 18) & 0x1FF;
            while digits != 0 {
                let d = digits.trailing_zeros() as usize;
                digits &= digits - 1;
                let x = [0, 1, 2].map(|b| self.cand[word(d, b)]);
                let any = x.map(columns_any);
                let many = columns_two(x[0])
                    | columns_two(x[1])
                    | columns_two(x[2])
                    | (any[0] & any[1])
                    | (any[0] & any[2])
                    | (any[1] & any[2]);
                let all = any[0] | any[1] | any[2];
                if all != ROW {
                    return Settled::Dead;
                }
                let lone = (all & !many) * SPREAD;
                // The stacks: within each, the three columns and the three bands are matched one to one.
                let mut keep = [0u32; 3];
                for s in 0..3 {
                    let summary = ((any[0] >> (3 * s)) & 7)
                        | ((any[1] >> (3 * s)) & 7) << 3
                        | ((any[2] >> (3 * s)) & 7) << 6;
                    let counted = TRIAD_SUMMARY[summary as usize];
                    if counted == 0 {
                        return Settled::Dead;
                    }
                    let at = 9 * (3 + s) + d;
                    self.tri_changed |= u32::from(self.tri[at] != counted) << (3 + s);
                    self.tri[at] = counted;
                    let allowed = counted & 0x1FF;
                    for (b, k) in keep.iter_mut().enumerate() {
                        *k |= ((allowed >> (3 * b)) & 7) << (3 * s);
                    }
                }
                for (b, k) in keep.iter().enumerate() {
                    dirty |= self.cut(word(d, b), !(k * SPREAD));
                }
                for (b, w) in x.iter().enumerate() {
                    let mut s = w & lone & self.open[b];
                    while s != 0 {
                        let p = s.trailing_zeros() as usize;
                        s &= s - 1;
                        dirty |= self.cut(word(d, b), ROW_BOX_PEERS[p]);
                    }
                }
            }
            touched = 0;
            if dirty != 0 {
                continue;
            }
            dirty = self.triad_rules();
            if dirty == DEAD {
                return Settled::Dead;
            }
            if dirty == 0 {
                return self.branch();
            }
        }
    }

    /// The triad rules over every band and stack: a triad (three cells of a row or column in one box) holds
    /// three digits, so where only three may go they must, and where three must no other may. The dirty bits
    /// of what changed, or [`DEAD`].
    #[inline(always)]
    fn triad_rules(&mut self) -> u32 {
        let mut dirty = 0;
        let mut units = std::mem::take(&mut self.tri_changed);
        while units != 0 {
            let u = units.trailing_zeros() as usize;
            units &= units - 1;
            let t: [u32; 9] = std::array::from_fn(|d| self.tri[9 * u + d]);
            // Bit-sliced counts of the possible triads (low half) and the forced ones (high half) at once.
            let (mut one, mut two, mut three, mut four) = (0u32, 0u32, 0u32, 0u32);
            for &x in &t {
                let x = x & 0x1FF_01FF;
                four |= three & x;
                three |= two & x;
                two |= one & x;
                one |= x;
            }
            if !three & 0x1FF != 0 || four >> 16 != 0 {
                return DEAD;
            }
            let exact = three & !four & 0x1FF;
            let full = three >> 16;
            if exact | full == 0 {
                continue;
            }
            for (d, &x) in t.iter().enumerate() {
                let (may, must) = (x & 0x1FF, x >> 16 & 0x1FF);
                let forced = may & exact & !must;
                let banned = may & full & !must;
                if forced | banned == 0 {
                    continue;
                }
                let mut keep = may & !banned;
                let mut f = forced;
                while f != 0 {
                    let m = f.trailing_zeros();
                    f &= f - 1;
                    keep &= !((7 << (m / 3 * 3)) | (0o111 << (m % 3))) | 1 << m;
                }
                let allowed = u32::from(PERMUTATIONS[keep as usize]);
                if allowed == 0 {
                    return DEAD;
                }
                if u < 3 {
                    dirty |= self.cut(word(d, u), !TRIAD_CELLS[allowed as usize] & BAND);
                } else {
                    let s = u - 3;
                    for b in 0..3 {
                        let gone = (7 & !(allowed >> (3 * b))) << (3 * s);
                        dirty |= self.cut(word(d, b), gone * SPREAD);
                    }
                }
            }
        }
        dirty
    }

    /// The guess on a stuck board (see the module header): the band or stack not yet fixed with the fewest
    /// digits left to fix, where one has six or fewer, else the one with the fewest configurations over its
    /// nine digits; there, the first digit with the fewest configurations (at least two).
    fn branch(&self) -> Settled {
        // Both choices are minimums of keys (the unit's, then the index: the first of the fewest wins), with
        // no branch to mispredict; a fixed unit (total 9) or digit (1) gets a key above every other. A unit's
        // key is its digits left to fix, counted as 7 from seven on, then its total: so a unit with six or
        // fewer wins by that count, and among the rest the total decides. Fixing a nearly fixed unit settles
        // much of the board: on the hard sets this takes fewer guesses (the forum's hardest 9% fewer, top1465
        // 5%). On open boards the count alone was a poorer guide than the total (17-clue: 18% more guesses
        // with the count deciding everywhere, 13% more with it kept to six or fewer, 1–2% slower).
        let unit = (0..6)
            .map(|u| {
                let t = &self.tri[9 * u..9 * u + 9];
                let total: u32 = t.iter().map(|&x| x >> 28).sum();
                let unfixed: u32 = t.iter().map(|&x| u32::from(x >> 28 > 1)).sum();
                let key = if total > 9 {
                    unfixed.min(7) << 6 | total
                } else {
                    0xFFF
                };
                key << 3 | u as u32
            })
            .min()
            .expect("six units");
        // A stuck board has one: a digit's row with two cells left lies in one triad if its band is fixed,
        // and then the stack of that box has two columns for it in this band, so two configurations.
        assert!(
            unit >> 3 != 0xFFF,
            "a stuck board has a unit with two configurations"
        );
        let unit = (unit & 7) as usize;
        let t = &self.tri[9 * unit..9 * unit + 9];
        let digit = t
            .iter()
            .enumerate()
            .map(|(d, &x)| {
                let c = x >> 28;
                let c = if c >= 2 { c } else { 0xFF };
                c << 4 | d as u32
            })
            .min()
            .expect("nine digits");
        let digit = (digit & 0xF) as usize;
        Settled::Configs(digit, unit, t[digit] & 0x1FF)
    }

    /// Restricts digit `d` in unit `u` to the permutation `perm` (a triad mask).
    fn apply_config(&mut self, d: usize, u: usize, perm: u16) {
        let perm = u32::from(perm);
        if u < 3 {
            self.clear(word(d, u), !TRIAD_CELLS[perm as usize] & BAND);
        } else {
            let s = u - 3;
            for b in 0..3 {
                let c = ((perm >> (3 * b)) & 7).trailing_zeros() as usize;
                let cut = ((7u32 << (3 * s)) & !(1u32 << (3 * s + c))) * SPREAD;
                self.clear(word(d, b), cut);
            }
        }
    }

    /// Writes the values of a solved board into `cells`, row-major. A solved board has one digit in each
    /// cell, so every byte is written and `cells` needs no clearing first.
    fn values_into(&self, cells: &mut [u8]) {
        for d in 0..9 {
            for b in 0..3 {
                let mut w = self.cand[word(d, b)];
                while w != 0 {
                    cells[27 * b + w.trailing_zeros() as usize] = d as u8 + 1;
                    w &= w - 1;
                }
            }
        }
    }
}

/// The boards a search keeps to begin with: a configuration fixes its digit in its unit for the rest of the
/// path (a digit's configurations only ever go down), and there are 54 digits in units, so a path holds at
/// most 54 guesses, and the board being settled makes 55.
const DEPTH: usize = 55;

/// The depth-first search of the 9×9 fast path, with its reusable boards.
#[derive(Default)]
pub(crate) struct Search {
    /// The path: `boards[top]` is the board being settled, each one below it waits at a guess, with the
    /// configurations still to try on it in `pending` (bits 0–5 over [`PERMS`], the digit in bits 8–11, the
    /// unit from bit 12). Boards are settled where they lie, so a guess costs one copy (none for its last
    /// configuration) rather than a board moved in and out of a stack.
    boards: Vec<Board>,
    pending: Vec<u32>,
    /// The last search's first solution, row-major (81 values once a 9×9 was searched).
    first: Vec<u8>,
}

/// A search's result before its solution is borrowed ([`Found`] without the values).
#[derive(Clone, Copy, Default)]
struct Tally {
    count: u64,
    solved: bool,
    hit_limit: bool,
    guesses: u64,
    gave_up: bool,
}

impl Search {
    /// Counts the solutions of a 9×9 puzzle with 3×3 boxes, given as its 81 values (row-major, 0 for an empty
    /// cell, 1..=9 placed; the givens need not be checked for clashes: a puzzle with one has no solution), up
    /// to `limit`, giving up after `budget` guesses in a row without a new solution. Guesses are counted as in
    /// the general solver: every branch tried (here, every configuration).
    pub(crate) fn run_values(&mut self, cells: &[u8], limit: u64, budget: u64) -> Found<'_> {
        let tally = self.dispatch(cells, limit, budget);
        Found {
            count: tally.count,
            solution: tally.solved.then_some(&self.first[..]),
            hit_limit: tally.hit_limit,
            guesses: tally.guesses,
            gave_up: tally.gave_up,
        }
    }

    /// The search, in the build this CPU takes.
    fn dispatch(&mut self, cells: &[u8], limit: u64, budget: u64) -> Tally {
        #[cfg(target_arch = "x86_64")]
        if let Build::BmiAvx2 { skip_unplaced } = build() {
            // SAFETY: `run_with_bmi_avx2` needs BMI1, BMI2, LZCNT and AVX2, which this CPU was found to have.
            return unsafe {
                if skip_unplaced {
                    self.run_with_bmi_avx2::<true>(cells, limit, budget)
                } else {
                    self.run_with_bmi_avx2::<false>(cells, limit, budget)
                }
            };
        }
        self.search::<Portable>(cells, limit, budget)
    }

    /// [`Search::run_values`] compiled for x86-64's bit-manipulation instructions and AVX2 (2013 onwards; the
    /// build's baseline is x86-64-v2). The search shifts by amounts held in registers at every step (a
    /// digit's word index, a band's row), and a baseline shift by `cl` is two or three micro-operations on
    /// Intel cores where BMI2's `shlx` is one; `tzcnt` and `andn` save a few more; the band update finds a
    /// word's triads with one `pext` instead of three dependent table lookups, and a placement leaves the
    /// band's digits in one AVX2 operation. What it gains is in docs/benchmarks.md. `SKIP_UNPLACED`: see
    /// [`BandOps::SKIP_UNPLACED`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2,lzcnt,popcnt,avx2")]
    fn run_with_bmi_avx2<const SKIP_UNPLACED: bool>(
        &mut self,
        cells: &[u8],
        limit: u64,
        budget: u64,
    ) -> Tally {
        self.search::<BmiAvx2<SKIP_UNPLACED>>(cells, limit, budget)
    }

    /// The search itself, inlined into each of [`Search::run_values`]'s builds so that each gets its own code.
    #[inline(always)]
    fn search<T: BandOps>(&mut self, cells: &[u8], limit: u64, budget: u64) -> Tally {
        assert_eq!(cells.len(), 81, "a 9×9 puzzle has 81 cells");
        let mut outcome = Tally::default();
        if self.boards.is_empty() {
            // Made for the first 9×9 puzzle, so that a solver that never meets one costs nothing.
            self.boards = vec![Board::EMPTY; DEPTH];
            self.pending = vec![0; DEPTH];
            self.first = vec![0; 81];
        }
        if !self.boards[0].load(cells) {
            return outcome;
        }
        let mut top = 0;
        let mut fruitless = 0u64;
        loop {
            // A build without the branch on an update that placed nothing (Intel's cores) still takes it in the
            // puzzle's first settle, from its givens, whose updates mostly place nothing (all 27 on the forum's
            // hardest, 62% of 108 on 17-clue, against the search's 48%): measured 5% faster there on every set
            // but kaggle (docs/benchmarks.md). A constant test: the other builds compile to the plain call.
            let settled = if !T::SKIP_UNPLACED && top == 0 && outcome.guesses == 0 {
                self.boards[0].settle::<Skipping<T>>()
            } else {
                self.boards[top].settle::<T>()
            };
            match settled {
                Settled::Solved => {
                    outcome.count += 1;
                    if !outcome.solved {
                        self.boards[top].values_into(&mut self.first);
                        outcome.solved = true;
                    }
                    if outcome.count >= limit {
                        outcome.hit_limit = true;
                        return outcome;
                    }
                    fruitless = 0;
                }
                Settled::Configs(d, u, summary) => {
                    if fruitless >= budget {
                        outcome.gave_up = true;
                        return outcome;
                    }
                    fruitless += 1;
                    outcome.guesses += 1;
                    // The configurations inside the summary, as bits over PERMS; the first is tried on a copy
                    // above, the others wait on this board.
                    let mut inside = 0;
                    for (k, &p) in PERMS.iter().enumerate() {
                        inside |= u32::from(u32::from(p) & !summary == 0) << k;
                    }
                    let first = inside.trailing_zeros() as usize;
                    self.pending[top] = inside & (inside - 1) | (d << 8 | u << 12) as u32;
                    self.copy_up(top);
                    top += 1;
                    self.boards[top].apply_config(d, u, PERMS[first]);
                    continue;
                }
                Settled::Dead => {}
            }
            // Back to the nearest board still waiting (every board below the top waits on one at least).
            if top == 0 {
                return outcome;
            }
            top -= 1;
            if fruitless >= budget {
                outcome.gave_up = true;
                return outcome;
            }
            fruitless += 1;
            outcome.guesses += 1;
            let pending = self.pending[top];
            let (d, u) = ((pending >> 8 & 0xF) as usize, (pending >> 12) as usize);
            let k = pending.trailing_zeros() as usize;
            let rest = pending & (pending - 1);
            if rest & 0x3F != 0 {
                // More wait on this board: this one is tried on a copy above it.
                self.pending[top] = rest;
                self.copy_up(top);
                top += 1;
            }
            self.boards[top].apply_config(d, u, PERMS[k]);
        }
    }

    /// Copies `boards[top]` to the slot above it (made if the path ever outgrows [`DEPTH`]).
    fn copy_up(&mut self, top: usize) {
        if top + 1 == self.boards.len() {
            self.boards.push(Board::EMPTY);
            self.pending.push(0);
        }
        let (below, above) = self.boards.split_at_mut(top + 1);
        above[0] = below[top];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::bands::{BOX, nine};
    use crate::sudoku::grid::nine_from_line as grid;
    use crate::sudoku::solver::Outcome;
    use crate::sudoku::{Grid, bands, generate, verify};
    #[cfg(target_arch = "x86_64")]
    use band_ops::has_bmi_avx2;

    impl Search {
        /// The search on a grid, its result as the solver gives it.
        fn run(&mut self, puzzle: &Grid, limit: u64, budget: u64) -> Outcome {
            self.run_values(puzzle.cells(), limit, budget)
                .outcome(puzzle.shape())
        }
    }

    /// An empty board's settled state after each `(word, cells)` of `cuts` is cleared (word 3d + b: band b
    /// of digit d+1).
    fn settled_after(cuts: &[(usize, u32)]) -> Board {
        let mut board = Board::EMPTY;
        assert!(board.load(&[0; 81]));
        for &(i, cells) in cuts {
            board.clear(i, cells);
        }
        assert!(matches!(board.settle::<Portable>(), Settled::Configs(..)));
        board
    }

    #[test]
    fn the_triad_rules_force_and_ban_what_nothing_else_finds() {
        // Only digits 1–3 may go in r1c1–r1c3: they must, so they leave the rest of row 1 and of box 1.
        let cuts: Vec<(usize, u32)> = (3..9).map(|d| (word(d, 0), 0b111)).collect();
        let board = settled_after(&cuts);
        for d in 0..3 {
            assert_eq!(board.cand[word(d, 0)] & ROW, 0b111, "digit {}", d + 1);
            assert_eq!(board.cand[word(d, 0)] & BOX & !ROW, 0, "digit {}", d + 1);
        }
        assert_eq!(board.cand[word(3, 0)] & ROW, ROW & !0b111);
        // Digits 1–3 kept out of the rest of row 1 must go in r1c1–r1c3: every other digit leaves them.
        let cuts: Vec<(usize, u32)> = (0..3).map(|d| (word(d, 0), ROW & !0b111)).collect();
        let board = settled_after(&cuts);
        for d in 3..9 {
            assert_eq!(board.cand[word(d, 0)] & 0b111, 0, "digit {}", d + 1);
        }
        // The same sideways: digits 1–3 kept out of the rest of column 1 in stack 1.
        let column = |c: u32| SPREAD << c;
        let cuts: Vec<(usize, u32)> = (0..3)
            .flat_map(|d| [(word(d, 1), column(0)), (word(d, 2), column(0))])
            .collect();
        let board = settled_after(&cuts);
        for d in 3..9 {
            assert_eq!(board.cand[word(d, 0)] & column(0), 0, "digit {}", d + 1);
        }
        // Four digits that must go in one triad: dead.
        let mut board = Board::EMPTY;
        assert!(board.load(&[0; 81]));
        for d in 0..4 {
            board.clear(word(d, 0), ROW & !0b111);
        }
        assert!(matches!(board.settle::<Portable>(), Settled::Dead));
    }

    #[test]
    fn counts_agree_with_the_lane_model_and_solutions_are_valid() {
        // The GPU lane kernel's model (`bands`) is a separate implementation of the same counts.
        let mut search = Search::default();
        for seed in 0..120 {
            let puzzle = generate::mixed_nine(seed);
            for limit in [1, 2, 50] {
                let got = search.run(&puzzle, limit, u64::MAX);
                let want = bands::search(&bands::pack(&puzzle), limit);
                assert_eq!(got.count, want.count, "seed {seed} limit {limit}");
                assert_eq!(got.hit_limit, got.count == limit);
                assert!(!got.gave_up);
                assert!(verify::is_solution(&puzzle, &got.solution.unwrap()));
            }
        }
        assert_eq!(search.run(&Grid::empty(nine()), 1000, u64::MAX).count, 1000);
        // No path went deeper than the 54 guesses the boards were sized for (see DEPTH).
        assert_eq!(search.boards.len(), DEPTH);
    }

    #[test]
    fn the_plain_build_and_the_dispatched_one_agree() {
        // `search` called from here is the plain build; the others are called as `run` would where the CPU has
        // fast `pext`, with and without the branch on an update that placed nothing (every x86-64 CPU these
        // tests run on has the instructions, fast or not). Same counts, guesses and solutions on hard and open
        // grids.
        #[cfg(target_arch = "x86_64")]
        assert!(has_bmi_avx2(), "this test compares the two builds");
        let (mut plain, mut chosen, mut branch_free) =
            (Search::default(), Search::default(), Search::default());
        let puzzles = (0..60).map(generate::mixed_nine).chain([
            Grid::empty(nine()),
            grid(
                "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6",
            ),
        ]);
        for puzzle in puzzles {
            for limit in [1, 2, 30] {
                let a = plain.search::<Portable>(puzzle.cells(), limit, u64::MAX);
                #[cfg(target_arch = "x86_64")]
                // SAFETY: BMI1, BMI2, LZCNT and AVX2 were found above.
                let (b, c) = unsafe {
                    (
                        chosen.run_with_bmi_avx2::<true>(puzzle.cells(), limit, u64::MAX),
                        branch_free.run_with_bmi_avx2::<false>(puzzle.cells(), limit, u64::MAX),
                    )
                };
                #[cfg(not(target_arch = "x86_64"))]
                let (b, c) = (
                    chosen.dispatch(puzzle.cells(), limit, u64::MAX),
                    branch_free.dispatch(puzzle.cells(), limit, u64::MAX),
                );
                for (b, other) in [(b, &chosen), (c, &branch_free)] {
                    assert_eq!(
                        (a.count, a.guesses, a.hit_limit, a.solved),
                        (b.count, b.guesses, b.hit_limit, b.solved)
                    );
                    if a.solved {
                        assert_eq!(plain.first, other.first);
                    }
                }
            }
        }
    }

    #[test]
    fn clashing_givens_and_dead_grids_have_no_solution() {
        let mut search = Search::default();
        let dots = |n: usize| ".".repeat(n);
        for line in [
            format!("11{}", dots(79)),                        // a row
            format!("1{}1{}", dots(8), dots(71)), // a column across bands... of one band
            format!("1{}1{}", dots(26), dots(53)), // a column across bands
            format!("1{}1{}", dots(9), dots(70)), // a box
            format!("12345678.{}9{}", dots(8), dots(63)), // r1c9 has no digit left
            format!("{}1{}1{}", dots(60), dots(9), dots(10)), // a box of the last band
        ] {
            let out = search.run(&grid(&line), 2, u64::MAX);
            assert_eq!(out.count, 0, "{line}");
            assert!(out.solution.is_none() && !out.gave_up);
        }
    }

    #[test]
    fn the_guard_stops_a_count_without_new_solutions() {
        // An empty grid has solutions at most leaves: a budget of 100 guesses is never exhausted while they come.
        let mut search = Search::default();
        let many = search.run(&Grid::empty(nine()), 20, 100);
        assert_eq!((many.count, many.gave_up), (20, false));
        // Two givens that leave r1c1 nothing, deep enough to need guesses before the dead end is met: the
        // guard stops it.
        let hopeless = grid(&format!("{}{}", ".".repeat(80), "1"));
        let mut cells = hopeless.cells().to_vec();
        cells[9] = 2;
        cells[11] = 3;
        let out = search.run(&Grid::new(nine(), &cells).unwrap(), 1, 0);
        assert!(out.gave_up && out.count == 0, "{out:?}");
    }

    #[test]
    fn hard_puzzles_solve_to_their_unique_solution() {
        let mut search = Search::default();
        // Among the hardest known 9×9 puzzles (the first two of the forum's list of ratings 11 and up).
        for line in [
            "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6",
            "98.7..6..75..4......3..8.7.8....9.5..3.2..1.....4....6.7...4.3....8..4......1...2",
        ] {
            let puzzle = grid(line);
            let out = search.run(&puzzle, 2, u64::MAX);
            assert_eq!(out.count, 1, "{line}");
            assert!(out.guesses > 0);
            assert!(verify::is_solution(&puzzle, &out.solution.unwrap()));
        }
    }
}
