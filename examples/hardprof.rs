use forkboard::sudoku::Solver;
use forkboard::sudoku::format::{ReadOptions, Reader};
fn main() {
    let f = std::fs::read("../shared/data/sudoku/magictour_top1465.txt").unwrap();
    let grids: Vec<_> = Reader::new(&f[..], ReadOptions::default())
        .map(|r| r.puzzle.unwrap())
        .collect();
    let mut s = Solver::new();
    let t = std::time::Instant::now();
    let mut g = 0;
    for _ in 0..20 {
        for p in &grids {
            g += s.solve(p, 2).guesses;
        }
    }
    println!(
        "{:.0}/s guesses {}",
        20.0 * grids.len() as f64 / t.elapsed().as_secs_f64(),
        g / 20
    );
}
