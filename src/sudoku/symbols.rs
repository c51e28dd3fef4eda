//! How cell values are written: `1`-`9` then `A`, `B`, … (A = 10), or 0-based hex for 16×16.
//!
//! Values inside the engine are `1..=N`, with `0` for an empty cell.

use std::str::FromStr;

use thiserror::Error;

/// The alphabet a grid is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Symbols {
    /// `1`-`9`, then `A` = 10 … `P` = 25 (lower case accepted on input). `0` means empty.
    #[default]
    Standard,
    /// 0-based hex for 16×16: `0` = 1 … `F` = 16. `0` is a symbol, so it never means empty.
    Hex,
}

/// What a character in a grid means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// An empty cell marker.
    Empty,
    /// A value from 1 to N.
    Value(u8),
    /// Not a symbol of this alphabet and size.
    Bad,
}

/// The text of `--symbols` was not a known alphabet.
#[derive(Debug, Error)]
#[error("unknown symbol set `{0}`: use `standard` or `hex`")]
pub struct UnknownSymbols(String);

impl FromStr for Symbols {
    type Err = UnknownSymbols;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "standard" | "std" | "default" => Ok(Symbols::Standard),
            "hex" => Ok(Symbols::Hex),
            _ => Err(UnknownSymbols(s.to_string())),
        }
    }
}

/// True for the characters every alphabet reads as an empty cell (`0` aside, which depends on the alphabet).
pub const fn is_empty_marker(byte: u8) -> bool {
    matches!(byte, b'.' | b'_' | b'-' | b'*')
}

/// The value a table gives a byte that is no symbol: larger than every grid side, so one comparison with the
/// side rejects it and a value too large for the grid alike.
pub const NOT_A_SYMBOL: u8 = u8::MAX;

/// What each byte means in an alphabet, before the grid's side is known: 0 for an empty marker, a value from 1
/// to 35, or [`NOT_A_SYMBOL`].
const fn value_table(symbols: Symbols) -> [u8; 256] {
    let mut table = [NOT_A_SYMBOL; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = if is_empty_marker(b) {
            0
        } else {
            match (symbols, b) {
                (Symbols::Standard, b'0') => 0,
                (Symbols::Standard, b'1'..=b'9') => b - b'0',
                (Symbols::Standard, b'a'..=b'z') => b - b'a' + 10,
                (Symbols::Standard, b'A'..=b'Z') => b - b'A' + 10,
                (Symbols::Hex, b'0'..=b'9') => b - b'0' + 1,
                (Symbols::Hex, b'a'..=b'f') => b - b'a' + 11,
                (Symbols::Hex, b'A'..=b'F') => b - b'A' + 11,
                _ => NOT_A_SYMBOL,
            }
        };
        byte += 1;
    }
    table
}

static STANDARD_VALUES: [u8; 256] = value_table(Symbols::Standard);
static HEX_VALUES: [u8; 256] = value_table(Symbols::Hex);

impl Symbols {
    /// Each byte's value in this alphabet (see `value_table`): a file's every cell is read through it.
    pub fn values(self) -> &'static [u8; 256] {
        match self {
            Symbols::Standard => &STANDARD_VALUES,
            Symbols::Hex => &HEX_VALUES,
        }
    }

    /// Reads one character for a grid of side `side`.
    pub fn read(self, byte: u8, side: usize) -> Cell {
        match self.values()[usize::from(byte)] {
            0 => Cell::Empty,
            value if usize::from(value) <= side => Cell::Value(value),
            _ => Cell::Bad,
        }
    }

    /// Writes value `1..=N` (or `0` for empty, written `.`).
    pub fn write(self, value: u8) -> u8 {
        match (self, value) {
            (_, 0) => b'.',
            (Symbols::Standard, 1..=9) => b'0' + value,
            (Symbols::Standard, _) => b'A' + value - 10,
            (Symbols::Hex, 1..=10) => b'0' + value - 1,
            (Symbols::Hex, _) => b'A' + value - 11,
        }
    }

    /// Appends the symbols of `cells` (values 0..=35) to `out`. Each symbol is the value plus an offset chosen
    /// by comparisons, not a `match`, so the loop has no branch and the compiler vectorises it: formatting
    /// every solution of a file is a fifth of a piece's time written a cell at a time.
    pub fn extend(self, out: &mut Vec<u8>, cells: &[u8]) {
        // The offsets taking a value to its symbol: 0 → '.', then the digits, then the letters.
        let (empty, digits, last_digit, letters) = match self {
            Symbols::Standard => (b'.', b'0', 9, b'A'.wrapping_sub(10)),
            Symbols::Hex => (b'.', b'0'.wrapping_sub(1), 10, b'A'.wrapping_sub(11)),
        };
        out.extend(cells.iter().map(|&v| {
            let offset = if v == 0 {
                empty
            } else if v <= last_digit {
                digits
            } else {
                letters
            };
            v.wrapping_add(offset)
        }));
    }

    /// Whether this alphabet can write every value of a grid of side `side`.
    pub fn fits(self, side: usize) -> bool {
        match self {
            Symbols::Standard => side <= 35,
            Symbols::Hex => side <= 16,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_round_trips_every_value_up_to_25() {
        for v in 1..=25u8 {
            let c = Symbols::Standard.write(v);
            assert_eq!(Symbols::Standard.read(c, 25), Cell::Value(v));
        }
        assert_eq!(Symbols::Standard.write(10), b'A');
        assert_eq!(Symbols::Standard.read(b'p', 25), Cell::Value(25));
        assert_eq!(Symbols::Standard.read(b'A', 9), Cell::Bad);
        assert_eq!(Symbols::Standard.read(b'0', 9), Cell::Empty);
        assert_eq!(Symbols::Standard.read(b'#', 9), Cell::Bad);
    }

    #[test]
    fn a_run_of_cells_is_written_as_each_cell_is() {
        for (symbols, last) in [(Symbols::Standard, 35u8), (Symbols::Hex, 16)] {
            let cells: Vec<u8> = (0..=last).chain((0..=last).rev()).collect();
            let mut out = b"kept".to_vec();
            symbols.extend(&mut out, &cells);
            let each: Vec<u8> = cells.iter().map(|&v| symbols.write(v)).collect();
            assert_eq!(out[..4], *b"kept");
            assert_eq!(out[4..], each[..], "{symbols:?}");
        }
    }

    #[test]
    fn hex_is_zero_based_and_has_no_zero_empty() {
        assert_eq!(Symbols::Hex.read(b'0', 16), Cell::Value(1));
        assert_eq!(Symbols::Hex.read(b'F', 16), Cell::Value(16));
        assert_eq!(Symbols::Hex.read(b'.', 16), Cell::Empty);
        assert_eq!(Symbols::Hex.read(b'G', 16), Cell::Bad);
        for v in 1..=16u8 {
            assert_eq!(Symbols::Hex.read(Symbols::Hex.write(v), 16), Cell::Value(v));
        }
    }
}
