//! The mirror split, cut into nodes for the GPU: every solution's mirror image is a solution, so only boards
//! whose first queen stands in the left half are searched and each counts twice. An odd board's middle column
//! is its own mirror: below a first queen there, the second row's queen (never in the middle column) is kept
//! to the left half instead. The GPU counts the total this way (a plain search with no rules beyond the first
//! rows, which keeps its loop branch-free); the classes follow from [`super::symmetric`].

/// A partial board of the mirror split: the rows above `down.count_ones()` are placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HalfNode {
    /// Columns attacked in the next row along the down-left diagonals.
    pub left: u32,
    /// Columns taken (one bit per placed row).
    pub down: u32,
    /// Columns attacked in the next row along the down-right diagonals.
    pub right: u32,
}

impl HalfNode {
    /// The next row to place.
    pub fn row(&self) -> u32 {
        self.down.count_ones()
    }

    /// The child with a queen on `bit` in the next row.
    pub fn child(&self, bit: u32) -> Self {
        Self {
            left: (self.left | bit) << 1,
            down: self.down | bit,
            right: (self.right | bit) >> 1,
        }
    }
}

/// Every node of an `n`-board (n ≥ 2) with `row` rows placed (kept within 2..=n−1, or 1 on a 2-board), in
/// order; each stands for itself and its mirror image.
pub fn visit(n: u32, row: u32, each: &mut dyn FnMut(&HalfNode)) {
    if n < 2 {
        return;
    }
    let stop = row.clamp(2.min(n - 1), n - 1);
    let mask = super::full_mask(n);
    let empty = HalfNode::default();
    for col in 0..n / 2 {
        expand(mask, empty.child(1 << col), mask, stop, each);
    }
    if n % 2 == 1 {
        // The middle column: the second queen to the left of it.
        let middle = n / 2;
        let left_half = (1 << middle) - 1;
        expand(mask, empty.child(1 << middle), left_half, stop, each);
    }
}

fn expand(mask: u32, node: HalfNode, allowed: u32, stop: u32, each: &mut dyn FnMut(&HalfNode)) {
    if node.row() == stop {
        each(&node);
        return;
    }
    let mut free = mask & allowed & !(node.left | node.down | node.right);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        expand(mask, node.child(bit), mask, stop, each);
    }
}

/// How many nodes a cut at `row` has.
pub fn count_nodes(n: u32, row: u32) -> usize {
    let mut count = 0;
    visit(n, row, &mut |_| count += 1);
    count
}

/// The solutions below one node (the plain search the GPU runs, for the tests).
pub fn count_below(n: u32, node: &HalfNode) -> u64 {
    let mask = super::full_mask(n);
    let free = mask & !(node.left | node.down | node.right);
    if node.row() + 1 == n {
        return u64::from(free != 0);
    }
    let mut found = 0;
    let mut rest = free;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        rest ^= bit;
        found += count_below(n, &node.child(bit));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queens::known;

    #[test]
    fn every_cut_counts_half_the_total() {
        for n in 2..=11 {
            for row in 1..=n {
                let mut sum = 0;
                visit(n, row, &mut |node| sum += count_below(n, node));
                assert_eq!(Some(2 * sum), known(n).map(|k| k.total), "N={n}, row {row}");
            }
        }
    }

    #[test]
    fn nodes_sit_on_the_cut_row() {
        let mut rows = Vec::new();
        visit(12, 5, &mut |node| rows.push(node.row()));
        assert!(
            rows.len() > 1000 && rows.iter().all(|&r| r == 5),
            "{}",
            rows.len()
        );
        assert_eq!(count_nodes(12, 5), rows.len());
    }
}
