//! Models a puzzle searched alone by one workgroup of `LANES` lanes (the plan for `lone9`): each round every
//! busy lane runs one pass of the lane kernel's model ([`forkboard::sudoku::bands`]), then each busy lane with a
//! branch waiting gives the one at the foot of its stack to an idle lane.
//!
//! `cargo run --release --example lone_model -- FILE LANES LIMIT [LINE]`
use forkboard::sudoku::bands::{Bands, Pass, pack};
use forkboard::sudoku::format::{ReadOptions, Reader};
use std::collections::VecDeque;

fn rounds(board: Bands, lanes: usize, limit: u64) -> (u64, u64, u64) {
    let mut held: Vec<Option<(Bands, VecDeque<Bands>)>> = vec![None; lanes];
    held[0] = Some((board, VecDeque::new()));
    let (mut round, mut passes, mut found) = (0u64, 0u64, 0u64);
    loop {
        round += 1;
        for slot in held.iter_mut() {
            let Some((b, stack)) = slot else { continue };
            passes += 1;
            match b.propagate() {
                Pass::Progress => continue,
                Pass::Stuck => {
                    stack.push_back(b.guess());
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
        if idle.len() == lanes {
            return (round, passes, found);
        }
        // Each busy lane with a branch waiting gives its foot, in lane order, while idle lanes are left.
        let feet: Vec<Bands> = held
            .iter_mut()
            .filter_map(|slot| slot.as_mut().and_then(|(_, stack)| stack.pop_front()))
            .take(idle.len())
            .collect();
        for (foot, &to) in feet.into_iter().zip(&idle) {
            held[to] = Some((foot, VecDeque::new()));
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let lanes: usize = args.next().map_or(256, |l| l.parse().expect("lanes"));
    let limit: u64 = args.next().map_or(1, |l| l.parse().expect("limit"));
    let only: Option<usize> = args.next().map(|l| l.parse().expect("line"));
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
        let (r, p, f) = rounds(b, lanes, limit);
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
