//! Every unit of a board as one all-different constraint, filtered in full: what the general solver does from
//! 16×16 up, once a node ([`Board::all_different`]).

use super::board::{Board, Mask, NO_UNIT, Tables};

impl<M: Mask, const CAP: usize, const UNITS: usize> Board<M, CAP, UNITS> {
    /// Every unit as one all-different constraint, filtered in full (Régin, 1994): a value stays in a cell only if
    /// some assignment of the unit's values to its cells (a perfect matching) puts it there. That covers naked
    /// and hidden pairs, triples and larger sets at once. `None` on a contradiction (no perfect matching), else
    /// whether any candidate went.
    ///
    /// How: match cells to values, then look at the values as a graph with an edge `a → b` where the cell holding
    /// `a` could take `b` instead. A cell holding `a` may take `b` in another perfect matching exactly when `a`
    /// and `b` lie on one cycle, i.e. in one strongly connected component; each component comes from a forward
    /// and a backward closure over bitmasks (n ≤ 25 values, so a set of values is one word).
    pub(super) fn all_different<const SIDE: usize>(&mut self, t: &Tables) -> Option<bool> {
        let n = t.side::<SIDE>();
        let mut changed = false;
        for u in 0..3 * n {
            // Only the open cells and the values not yet placed take part: a placed value has left every open
            // cell of the unit already. Cells are numbered by their place in `open`, values by their bit.
            let mut open = [0u16; 32];
            let mut dom = [0u32; 32];
            let mut k = 0;
            let mut values = 0u32;
            let mut hash = UNIT_HASH_SEED;
            for &c in t.unit::<SIDE>(u) {
                let m = self.cand[usize::from(c)].wide();
                if m & (m - 1) != 0 {
                    (open[k], dom[k]) = (c, m);
                    values |= m;
                    hash = unit_hash(hash, c, m);
                    k += 1;
                }
            }
            if hash == self.filtered[u] {
                // Unchanged since it was filtered (about half the units of a node on 25×25).
                continue;
            }
            if k < 3 {
                // Two open cells: hidden and naked singles have said all there is.
                continue;
            }
            // A greedy matching first (each cell takes a free value if it has one), then augmenting paths for
            // the cells left: most cells find a free value at once, and a search from scratch for every cell
            // took half of the solver's time.
            let mut owner = [FREE; 32];
            let mut taken = 0u32;
            let mut unmatched = 0u32;
            for (i, &d) in dom[..k].iter().enumerate() {
                let free = d & !taken;
                if free != 0 {
                    let v = free.trailing_zeros() as usize;
                    owner[v] = i as u8;
                    taken |= 1 << v;
                } else {
                    unmatched |= 1 << i;
                }
            }
            while unmatched != 0 {
                let i = unmatched.trailing_zeros() as usize;
                unmatched &= unmatched - 1;
                let mut seen = 0;
                if !augment(i, &dom, &mut owner, &mut seen) {
                    self.blame = [u as u8, NO_UNIT, NO_UNIT];
                    return None;
                }
            }
            if values.count_ones() as usize != k {
                // More values than open cells can happen only before singles have run to the end; leaving a
                // unit unfiltered is always sound.
                continue;
            }
            // The components, one at a time: the values reachable from the lowest one left and those that reach
            // it back (forward and backward closures over bitmasks; most units are one component, found in a
            // few steps each way).
            let out = |v: usize| dom[usize::from(owner[v])];
            let mut left = values;
            while left != 0 {
                let a = left.trailing_zeros() as usize;
                let (mut forward, mut frontier) = (1u32 << a, 1u32 << a);
                while frontier != 0 {
                    let mut next = 0;
                    let mut f = frontier;
                    while f != 0 {
                        next |= out(f.trailing_zeros() as usize);
                        f &= f - 1;
                    }
                    frontier = next & left & !forward;
                    forward |= frontier;
                }
                let mut component = 1u32 << a;
                loop {
                    let mut grew = 0;
                    let mut f = forward & !component;
                    while f != 0 {
                        let v = f.trailing_zeros() as usize;
                        f &= f - 1;
                        if out(v) & component != 0 {
                            grew |= 1 << v;
                        }
                    }
                    if grew == 0 {
                        break;
                    }
                    component |= grew;
                }
                left &= !component;
                // A cell whose value is in this component keeps only this component's values.
                let mut f = component;
                while f != 0 {
                    let i = usize::from(owner[f.trailing_zeros() as usize]);
                    f &= f - 1;
                    let kept = dom[i] & component;
                    if kept != dom[i] {
                        self.cand[usize::from(open[i])] = M::narrow(kept);
                        changed = true;
                    }
                }
            }
            // What the unit holds now, hashed as the gather above will see it (a cell left with one value drops
            // out of the open ones).
            self.filtered[u] = open[..k].iter().fold(UNIT_HASH_SEED, |hash, &c| {
                let m = self.cand[usize::from(c)].wide();
                if m & (m - 1) != 0 {
                    unit_hash(hash, c, m)
                } else {
                    hash
                }
            });
        }
        Some(changed)
    }
}

/// The starting value of a unit's hash in [`Board::filtered`] (not 0, which marks a unit never filtered).
const UNIT_HASH_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// Folds one open cell and its candidates into a unit's hash (multiply and xor: any change to a cell or its
/// candidates changes the hash, but for a collision about once in 2^64, which would only skip one filtering).
#[inline(always)]
fn unit_hash(hash: u64, cell: u16, mask: u32) -> u64 {
    (hash ^ (u64::from(cell) << 32 | u64::from(mask))).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// No cell in [`Board::all_different`]'s matchings.
const FREE: u8 = u8::MAX;

/// Augments a matching of a unit's cells to values by one, from cell `i` (Kuhn's augmenting paths): `owner[v]`
/// is the cell holding value bit `v`, `seen` the values this search has visited. Whether `i` got a value.
fn augment(i: usize, dom: &[u32; 32], owner: &mut [u8; 32], seen: &mut u32) -> bool {
    let mut options = dom[i] & !*seen;
    while options != 0 {
        let v = options.trailing_zeros() as usize;
        options &= options - 1;
        *seen |= 1 << v;
        if owner[v] == FREE || augment(usize::from(owner[v]), dom, owner, seen) {
            owner[v] = i as u8;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sudoku::grid::Grid;
    use crate::sudoku::rng::SplitMix;
    use crate::sudoku::shape::BoxShape;

    #[test]
    fn all_different_keeps_only_what_some_matching_allows() {
        let shape = BoxShape::for_side(16).unwrap();
        let t = Tables::new(shape);
        let empty = || Board::<u16, 256, 48>::from_puzzle(&t, &Grid::empty(shape)).unwrap();
        // A naked triple: r1c1..r1c3 hold 1..3 between them, so 1 leaves r1c4 (which keeps 4 and 5), and 1..3
        // leave the rest of row 1 and of box 1.
        let mut b = empty();
        (0..3).for_each(|c| b.cand[c] = 0b111);
        b.cand[3] = 0b11001;
        assert_eq!(b.all_different::<0>(&t), Some(true));
        assert_eq!(b.cand[3], 0b11000);
        assert!((4..16).all(|c| b.cand[c] == !0b111u16), "row");
        assert!(
            (1..4).all(|r| (0..4).all(|c| b.cand[16 * r + c] == !0b111u16)),
            "box"
        );
        assert!(
            (16..256)
                .filter(|c| c % 16 >= 4 && c / 16 >= 4)
                .all(|c| b.cand[c] == 0xFFFF),
            "the rest"
        );
        assert_eq!(
            b.all_different::<0>(&t),
            Some(false),
            "a second pass finds nothing more"
        );
        // A hidden pair: 1 and 2 can go only in r1c1 and r1c2, which then keep only them.
        let mut b = empty();
        (2..16).for_each(|c| b.cand[c] &= !0b11);
        assert_eq!(b.all_different::<0>(&t), Some(true));
        assert_eq!((b.cand[0], b.cand[1]), (0b11, 0b11));
        // Four cells sharing three values: no way to fill the row.
        let mut b = empty();
        (0..4).for_each(|c| b.cand[c] = 0b111);
        assert_eq!(b.all_different::<0>(&t), None);
    }

    #[test]
    fn filtering_skips_only_units_that_have_not_changed() {
        // Down random paths of placements, the filter with its hashes kept gives what a filter from scratch
        // (every hash cleared) gives: the same candidates, the same answer.
        let shape = BoxShape::for_side(25).unwrap();
        let t = Tables::new(shape);
        let mut rng = SplitMix(7);
        for seed in 0..6 {
            let (puzzle, _) = crate::sudoku::generate::with_holes(shape, seed, 0.6);
            let mut kept = Board::<u32, 625, 75>::from_puzzle(&t, &puzzle).unwrap();
            // Units that kept a hash from an earlier pass (skipped as unchanged), and units looked at.
            let (mut skipped, mut looked_at) = (0, 0);
            for _ in 0..40 {
                let before = kept.filtered;
                let mut fresh = kept;
                fresh.filtered = [0; 75];
                let (a, b) = (kept.all_different::<0>(&t), fresh.all_different::<0>(&t));
                assert_eq!(a, b, "seed {seed}");
                assert!(kept.cand == fresh.cand, "seed {seed}");
                if a.is_none() {
                    break;
                }
                skipped += (0..75)
                    .filter(|&u| before[u] != 0 && kept.filtered[u] == before[u])
                    .count();
                looked_at += 75;
                // Place a random candidate of a random open cell.
                let open: Vec<usize> = (0..625)
                    .filter(|&c| kept.cand[c].count_ones() > 1)
                    .collect();
                let Some(&cell) = open.get(rng.below(open.len().max(1))) else {
                    break;
                };
                let m = kept.cand[cell];
                let bits: Vec<u32> = (0..25).map(|v| 1 << v).filter(|b| m & b != 0).collect();
                kept.place::<0>(&t, cell, bits[rng.below(bits.len())]);
                if kept.cand.contains(&0) {
                    // A dead end (the solver's naked pass would stop here).
                    break;
                }
            }
            assert!(
                skipped > 0 && skipped < looked_at,
                "seed {seed}: {skipped} of {looked_at}"
            );
        }
    }
}
