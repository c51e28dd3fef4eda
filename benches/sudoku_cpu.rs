use forkboard::sudoku::{BoxShape, Grid, Solver};
use std::time::Instant;
fn main() {
    let dir = "../shared/data/sudoku";
    for f in [
        "kaggle_10k.csv",
        "17_clue.txt",
        "magictour_top1465.txt",
        "top95.txt",
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{f}")).unwrap();
        let lines: Vec<Vec<u8>> = text
            .lines()
            .filter(|l| !l.starts_with('q'))
            .map(|l| {
                l.split(',')
                    .next()
                    .unwrap()
                    .bytes()
                    .map(|b| if b.is_ascii_digit() { b - b'0' } else { 0 })
                    .collect()
            })
            .collect();
        let grids: Vec<Grid> = lines
            .iter()
            .map(|c| Grid::new(BoxShape::for_side(9).unwrap(), c.clone()).unwrap())
            .collect();
        let mut s = Solver::new();
        let t = Instant::now();
        let mut n = 0;
        for g in &grids {
            n += s.solve(g, 2).guesses;
        }
        let ours = grids.len() as f64 / t.elapsed().as_secs_f64();
        let ms: Vec<[u8; 81]> = lines
            .iter()
            .map(|c| c.as_slice().try_into().unwrap())
            .collect();
        let t = Instant::now();
        let mut m = 0;
        for g in &ms {
            m += msolve::Sudoku::from(g).count_solutions(2);
        }
        let theirs = grids.len() as f64 / t.elapsed().as_secs_f64();
        println!("{f}: ours {ours:.0}/s msolve {theirs:.0}/s  ({n} {m})");
    }
}
