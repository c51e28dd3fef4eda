//! N-Queens: how many ways N queens fit on an N×N board with none attacking another, in total and up to the
//! board's symmetries (rotation and reflection).
//!
//! Rows are filled in order; a row's free squares are `mask & !(left | down | right)`, the three masks holding
//! the columns attacked along each diagonal and straight down. The counter ([`count`]) splits the first row so
//! that each class of solutions under the eight symmetries is found once, and sorts it by class size (2, 4 or
//! 8): total = 2·C2 + 4·C4 + 8·C8, unique = C2 + C4 + C8. [`prefix`] cuts the same search into independent
//! nodes for threads and workers. The GPU counts a plainer search, the mirror split ([`mirror`]), and the
//! classes follow from its total and the symmetric solutions ([`symmetric`]); [`burnside`] counts unique
//! solutions a third, plain way for the tests.

pub mod burnside;
pub mod constellation;
pub mod counter;
pub mod example;
pub mod mirror;
pub mod prefix;
pub mod symmetric;
pub mod worker_protocol;

pub use counter::{Classes, count};

/// The largest board: masks are `u32`, one bit per column.
pub const MAX_N: u32 = 32;

/// Why a board size was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// Outside 1..=32.
    #[error("N must be between 1 and {MAX_N}, not {0}")]
    OutOfRange(i64),
    /// Not a whole number.
    #[error("N must be a whole number between 1 and {MAX_N}, not {0:?}")]
    NotANumber(String),
}

/// Reads a board size, accepting 1..=32.
pub fn parse_n(text: &str) -> Result<u32, SizeError> {
    let trimmed = text.trim();
    let n: i64 = trimmed
        .parse()
        .map_err(|_| SizeError::NotANumber(trimmed.to_string()))?;
    check_n(n)
}

/// Accepts 1..=32.
pub fn check_n(n: i64) -> Result<u32, SizeError> {
    if (1..=i64::from(MAX_N)).contains(&n) {
        Ok(n as u32)
    } else {
        Err(SizeError::OutOfRange(n))
    }
}

/// The counts for one N.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Solutions, every rotation and reflection counted.
    pub total: u64,
    /// Solutions distinct up to rotation and reflection.
    pub unique: u64,
}

/// Every column of an `n`-wide row.
pub fn full_mask(n: u32) -> u32 {
    if n >= 32 { u32::MAX } else { (1 << n) - 1 }
}

/// Published counts for N = 1..=27 (`total`, `unique`), the oracle of the tests and of the web app's time
/// estimate.
pub const KNOWN: [(u64, u64); 27] = [
    (1, 1),
    (0, 0),
    (0, 0),
    (2, 1),
    (10, 2),
    (4, 1),
    (40, 6),
    (92, 12),
    (352, 46),
    (724, 92),
    (2680, 341),
    (14200, 1787),
    (73712, 9233),
    (365596, 45752),
    (2279184, 285053),
    (14772512, 1846955),
    (95815104, 11977939),
    (666090624, 83263591),
    (4968057848, 621012754),
    (39029188884, 4878666808),
    (314666222712, 39333324973),
    (2691008701644, 336376244042),
    (24233937684440, 3029242658210),
    (227514171973736, 28439272956934),
    (2207893435808352, 275986683743434),
    (22317699616364044, 2789712466510289),
    (234907967154122528, 29363495934315694),
];

/// The published counts for `n`, when known.
pub fn known(n: u32) -> Option<Tally> {
    let (total, unique) = *KNOWN.get((n as usize).checked_sub(1)?)?;
    Some(Tally { total, unique })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked() {
        assert_eq!(parse_n(" 12 "), Ok(12));
        assert_eq!(parse_n("0"), Err(SizeError::OutOfRange(0)));
        assert_eq!(parse_n("33"), Err(SizeError::OutOfRange(33)));
        assert_eq!(parse_n("-4"), Err(SizeError::OutOfRange(-4)));
        assert!(matches!(parse_n("eight"), Err(SizeError::NotANumber(_))));
        assert!(matches!(parse_n(""), Err(SizeError::NotANumber(_))));
        assert_eq!(
            parse_n("33").unwrap_err().to_string(),
            "N must be between 1 and 32, not 33"
        );
    }

    #[test]
    fn masks_cover_the_row() {
        assert_eq!(full_mask(1), 1);
        assert_eq!(full_mask(8), 0xff);
        assert_eq!(full_mask(32), u32::MAX);
    }

    #[test]
    fn the_oracle_matches_the_shared_file() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/queens/known_counts.csv"
        );
        let text = std::fs::read_to_string(path).expect("the shared oracle file");
        for line in text.lines().skip(1) {
            let fields: Vec<u64> = line.split(',').map(|f| f.parse().unwrap()).collect();
            let got = known(fields[0] as u32).unwrap();
            assert_eq!(
                (got.total, got.unique),
                (fields[1], fields[2]),
                "N={}",
                fields[0]
            );
        }
    }
}
