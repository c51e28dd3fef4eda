//! The sample files the web app bundles (`public/samples/`, offered on the Compare page and by Example): every
//! record reads, and every puzzle has exactly one solution.

use std::path::PathBuf;

use forkboard::sudoku::Solver;
use forkboard::sudoku::format::{ReadOptions, Reader};

#[test]
fn every_bundled_sample_reads_and_each_puzzle_is_unique() {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("public/samples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    let mut solver = Solver::new();
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let mut count = 0;
        for record in Reader::new(&bytes[..], ReadOptions::default()) {
            let puzzle = record
                .puzzle
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let outcome = solver.solve(&puzzle, 2);
            assert_eq!(outcome.count, 1, "{} line {}", file.display(), record.line);
            count += 1;
        }
        assert!(count > 0, "{} holds puzzles", file.display());
    }
}
