use forkboard::sudoku::{BoxShape, generate};
use std::time::Instant;
fn main() {
    let share: f64 = std::env::args().nth(1).unwrap().parse().unwrap();
    for shape in std::env::args().skip(2) {
        let shape: BoxShape = shape.parse().unwrap();
        for seed in 0..3 {
            let t = Instant::now();
            let (p, _) = generate::puzzle(shape, seed, share);
            println!(
                "{shape} seed {seed}: {} empty of {} in {:?}",
                shape.cells() - p.clues(),
                shape.cells(),
                t.elapsed()
            );
        }
    }
}
