//! Models a puzzle searched alone by one workgroup of `LANES` lanes (the plan for `lone`): each round every
//! busy lane runs one pass of the lane kernel's model ([`forkboard::sudoku::bands`]; a second where the first
//! placed digits, when `LIMIT` is 1), then each busy lane with a branch waiting gives the one at the foot of its
//! stack to an idle lane.
//!
//! With `SPLIT` k > 0, a lane that gets stuck while lanes stood idle at the round's start makes up to k guesses at
//! once ([`Bands::cut`]) and hands the other branches straight to those lanes, as the kernel does: it claims up
//! to `2^k − 1` of them, uses `2^j − 1` of what it got, and splits at most every other round.
//!
//! `cargo run --release --example lone_model -- FILE LANES LIMIT [LINE|0] [SPLIT]`
use forkboard::sudoku::bands::{Bands, MOST_CUT, Pass, pack};
use forkboard::sudoku::format::{ReadOptions, Reader};
use std::collections::VecDeque;

fn rounds(board: Bands, lanes: usize, limit: u64, max_split: usize) -> (u64, u64, u64) {
    let mut held: Vec<Option<(Bands, VecDeque<Bands>)>> = vec![None; lanes];
    let mut last_split = vec![0u64; lanes];
    held[0] = Some((board, VecDeque::new()));
    let (mut round, mut passes, mut found) = (0u64, 0u64, 0u64);
    // Lanes idle through the whole round: unknown in the first, as in the kernel.
    let mut spare: usize = 0;
    loop {
        round += 1;
        let mut splits: Vec<Bands> = Vec::new();
        let mut claimed = 0;
        for (lane, slot) in held.iter_mut().enumerate() {
            let Some((b, stack)) = slot else { continue };
            passes += 1;
            let mut pass = b.propagate();
            // As the kernel: looking for a first solution, a pass that placed digits is followed by a second.
            if limit == 1 && matches!(pass, Pass::Progress) {
                passes += 1;
                pass = b.propagate();
            }
            match pass {
                Pass::Progress => continue,
                Pass::Stuck => {
                    let want = spare.min((1 << max_split) - 1);
                    let before = claimed;
                    claimed += want;
                    if want > 0 && before < spare && round >= last_split[lane] + 2 {
                        let got = want.min(spare - before);
                        let cut = b.cut((got + 1).ilog2() as usize);
                        for r in 1..1usize << cut.len {
                            splits.push(b.branch(&cut, r));
                        }
                        *b = b.branch(&cut, 0);
                        last_split[lane] = round;
                    } else {
                        stack.push_back(b.guess());
                    }
                    continue;
                }
                Pass::Solved => {
                    found += 1;
                    if found >= limit {
                        return (round, passes, found);
                    }
                }
                Pass::Dead => {}
            }
            match stack.pop_back() {
                Some(next) => *b = next,
                None => *slot = None,
            }
        }
        let idle: Vec<usize> = (0..lanes).filter(|&i| held[i].is_none()).collect();
        if idle.len() == lanes && splits.is_empty() {
            return (round, passes, found);
        }
        assert!(splits.len() <= idle.len());
        let free = idle.len() - splits.len();
        // Each busy lane with a branch waiting gives its foot, in lane order, while idle lanes are left.
        let feet: Vec<Bands> = held
            .iter_mut()
            .filter_map(|slot| slot.as_mut().and_then(|(_, stack)| stack.pop_front()))
            .take(free)
            .collect();
        spare = free - feet.len();
        for (foot, &to) in splits.into_iter().chain(feet).zip(&idle) {
            held[to] = Some((foot, VecDeque::new()));
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let lanes: usize = args.next().map_or(256, |l| l.parse().expect("lanes"));
    let limit: u64 = args.next().map_or(1, |l| l.parse().expect("limit"));
    let only: Option<usize> = args
        .next()
        .map(|l| l.parse().expect("line"))
        .filter(|&l| l != 0);
    let max_split: usize = args.next().map_or(0, |l| l.parse().expect("split"));
    assert!(
        max_split <= MOST_CUT,
        "a split makes at most {MOST_CUT} guesses"
    );
    let bytes = std::fs::read(&path).expect("readable");
    let mut all = Vec::new();
    for (i, r) in Reader::new(&bytes[..], ReadOptions::default()).enumerate() {
        if only.is_some_and(|l| l != i + 1) {
            continue;
        }
        let Ok(g) = r.puzzle else { continue };
        let Some(b) = Bands::from_planes(&pack(&g)) else {
            continue;
        };
        let (r, p, f) = rounds(b, lanes, limit, max_split);
        if only.is_some() {
            println!("line {}: {} rounds, {} passes, {} found", i + 1, r, p, f);
        }
        all.push((r, p, i + 1));
    }
    all.sort();
    let n = all.len();
    if n > 1 {
        println!(
            "{n} puzzles, {lanes} lanes: rounds median {}, 99% {}, max {} (line {}), passes max {}",
            all[n / 2].0,
            all[n * 99 / 100].0,
            all[n - 1].0,
            all[n - 1].2,
            all.iter().map(|a| a.1).max().unwrap()
        );
    }
}
