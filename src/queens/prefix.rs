//! The node layer of the corner-split counter: the search cut at a fixed row into independent partial boards,
//! each finished by a thread or a Web Worker (the GPU cuts the mirror split instead: [`super::mirror`]). The
//! pruning rules are the counter's own ([`super::counter::Branch::rules`]), so the nodes' counts add up to exactly the
//! counter's.

use super::counter::{Classes, Node, RowRule, branches, count_node};

/// Every partial board of an `n`-board with the rows above `row` placed (`row` is kept between the branches'
/// first free row and the row before the last, so no solution is completed while cutting).
pub fn nodes(n: u32, row: u32) -> Vec<Node> {
    let mut out = Vec::new();
    visit(n, row, &mut |node| out.push(*node));
    out
}

/// [`nodes`] one at a time, in the same order, without holding them all.
pub fn visit(n: u32, row: u32, each: &mut dyn FnMut(&Node)) {
    for branch in branches(n) {
        let root = branch.root();
        let stop = row.clamp(root.row, n - 2);
        expand(&branch.rules(), root, stop, each);
    }
}

fn expand(rules: &[RowRule; 32], node: Node, stop: u32, each: &mut dyn FnMut(&Node)) {
    let open = super::full_mask(node.branch.n) & !node.down;
    let rule = rules[node.row as usize];
    if open & rule.taken_above != 0 {
        // Below row bound2 with a side column still open: no board of this node is counted.
        return;
    }
    if node.row == stop {
        each(&node);
        return;
    }
    let mut free = rule.candidates(open, node.left | node.right);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        let mut child = node;
        child.board[node.row as usize] = bit;
        child.row += 1;
        child.left = (node.left | bit) << 1;
        child.down = node.down | bit;
        child.right = (node.right | bit) >> 1;
        expand(rules, child, stop, each);
    }
}

/// How many nodes a cut at `row` has.
pub fn count_nodes(n: u32, row: u32) -> usize {
    let mut count = 0;
    visit(n, row, &mut |_| count += 1);
    count
}

/// The row to cut at so that an `n`-board gives at least `wanted` nodes: the first row whose cut is that wide
/// (counted, not estimated: the tree widens by a different factor at every row and N, and an estimate of
/// (n − row) / 3 a row put N = 16's cut for 8,192 nodes at 1.2 million, which the page's 256 shards each walked
/// in full), and never within three rows of the last.
pub fn row_for(n: u32, wanted: usize) -> u32 {
    let mut row = 2;
    while row + 3 < n && count_nodes(n, row) < wanted {
        row += 1;
    }
    row
}

/// Counts an `n`-board on every core (natively): the nodes of a cut are shared out by rayon. `progress(done,
/// total)` hears of each finished node (from any thread).
#[cfg(not(target_arch = "wasm32"))]
pub fn count_parallel(n: u32, progress: &(dyn Fn(u64, u64) + Sync)) -> Classes {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    // Many more nodes than threads: subtrees differ wildly in size, and work stealing evens them out.
    let cut = nodes(n, row_for(n, rayon::current_num_threads() * 256));
    let total = cut.len() as u64;
    let done = AtomicU64::new(0);
    cut.par_iter()
        .fold(Classes::default, |mut classes, node| {
            count_node(node, &mut classes);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            classes
        })
        .reduce(Classes::default, |mut a, b| {
            a.add(&b);
            a
        })
}

/// Counts the nodes of a cut whose index is `shard` modulo `shards` (one Web Worker's share).
pub fn count_shard(n: u32, row: u32, shard: usize, shards: usize) -> Classes {
    let mut classes = Classes::default();
    // Walked, not gathered: every shard visits the whole cut, and a cut of a million nodes gathered is over
    // 100 MB each time.
    let mut index = 0;
    visit(n, row, &mut |node| {
        if index % shards.max(1) == shard {
            count_node(node, &mut classes);
        }
        index += 1;
    });
    classes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queens::count;

    #[test]
    fn every_cut_adds_up_to_the_whole_count() {
        for n in 4..=11 {
            let whole = count(n);
            for row in 1..n {
                let mut sum = Classes::default();
                for node in nodes(n, row) {
                    count_node(&node, &mut sum);
                }
                assert_eq!(sum, whole, "N={n}, cut at row {row}");
            }
        }
    }

    #[test]
    fn shards_add_up() {
        let mut sum = Classes::default();
        for shard in 0..5 {
            sum.add(&count_shard(10, 4, shard, 5));
        }
        assert_eq!(sum, count(10));
    }

    #[test]
    fn cuts_grow_with_the_wish() {
        let small = nodes(16, row_for(16, 100)).len();
        let large = nodes(16, row_for(16, 100_000)).len();
        assert!(
            small >= 20 && large > 20_000 && large > small,
            "{small} {large}"
        );
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn parallel_matches_serial() {
        for n in [1, 4, 8, 12] {
            assert_eq!(count_parallel(n, &|_, _| {}), count(n), "N={n}");
        }
    }
}
