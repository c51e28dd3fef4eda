//! The puzzles last loaded on the Batch page, kept (up to a limit) so the Compare page can run on them.

use std::cell::RefCell;
use std::rc::Rc;

use crate::sudoku::format::Record;

/// The most puzzles kept: the Compare page's largest batch.
pub const KEEP: usize = 100_000;

thread_local! {
    static LOADED: RefCell<Option<(String, Rc<Vec<Record>>)>> = const { RefCell::new(None) };
}

/// Remembers the puzzles of a batch (the caller keeps at most [`KEEP`]), under the name shown for them.
pub fn keep(name: &str, mut records: Vec<Record>) {
    records.truncate(KEEP);
    LOADED.with(|l| *l.borrow_mut() = Some((name.to_string(), Rc::new(records))));
}

/// The puzzles last loaded on the Batch page, and their name.
pub fn get() -> Option<(String, Rc<Vec<Record>>)> {
    LOADED.with(|l| l.borrow().clone())
}
