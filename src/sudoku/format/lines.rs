//! Raw lines of a puzzle file as bytes, with their numbers: BOM and CR stripped, length capped, look-ahead.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};

/// The longest line kept; longer lines are reported, and skipped to their end without being held in memory.
pub const MAX_LINE: usize = 64 * 1024;

/// The part of line `number`'s raw bytes (without the line end) that is kept: not a CR before the end, nor a
/// BOM at the start of the first line.
fn kept(raw: &[u8], number: usize) -> std::ops::Range<usize> {
    let end = raw.len() - usize::from(raw.last() == Some(&b'\r'));
    let start = if number == 1 && raw[..end].starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    start..end
}

/// One line: its 1-based number and its bytes (owned, or borrowed from the input where it is only looked at),
/// or a note that it was too long.
#[derive(Clone, Debug)]
pub struct Line<B = Vec<u8>> {
    pub number: usize,
    pub bytes: B,
    pub too_long: bool,
}

impl<'a> Line<&'a [u8]> {
    /// The line `number` from its raw bytes (without the line end), as [`Lines`] reads it but borrowed: too long
    /// past [`MAX_LINE`] bytes (and then kept without its bytes), with a CR before the end and, on the first
    /// line, a BOM dropped.
    pub fn from_raw(raw: &'a [u8], number: usize) -> Self {
        if raw.len() > MAX_LINE {
            return Line {
                number,
                bytes: &[],
                too_long: true,
            };
        }
        Line {
            number,
            bytes: &raw[kept(raw, number)],
            too_long: false,
        }
    }
}

impl<B: AsRef<[u8]>> Line<B> {
    /// True for a line of only white space.
    pub fn is_blank(&self) -> bool {
        !self.too_long && self.bytes.as_ref().iter().all(u8::is_ascii_whitespace)
    }

    /// True for a `#` comment (after leading white space).
    pub fn is_comment(&self) -> bool {
        self.bytes.as_ref().trim_ascii_start().first() == Some(&b'#')
    }

    /// The bytes without surrounding white space.
    pub fn trimmed(&self) -> &[u8] {
        self.bytes.as_ref().trim_ascii()
    }
}

/// Lines read on demand, with a look-ahead buffer for format detection.
pub struct Lines<R> {
    input: R,
    number: usize,
    ahead: VecDeque<Line>,
    done: bool,
    error: Option<io::Error>,
}

impl<R: BufRead> Lines<R> {
    pub fn new(input: R) -> Self {
        Self::after(input, 0)
    }

    /// Lines of an input that continues a file after `lines_before` lines (a piece cut from it), numbered on.
    pub fn after(input: R, lines_before: usize) -> Self {
        Self {
            input,
            number: lines_before,
            ahead: VecDeque::new(),
            done: false,
            error: None,
        }
    }

    /// The input.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.input
    }

    /// The first I/O error met, if any (reading stops there).
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    fn read_raw(&mut self) -> Option<Line> {
        if self.done {
            return None;
        }
        let mut bytes = Vec::new();
        let read = (&mut self.input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut bytes);
        match read {
            Ok(0) => {
                self.done = true;
                return None;
            }
            Ok(_) => {}
            Err(e) => {
                self.error = Some(e);
                self.done = true;
                return None;
            }
        }
        self.number += 1;
        let mut too_long = false;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        } else if bytes.len() > MAX_LINE {
            // Skip the rest of the line without keeping it.
            too_long = true;
            bytes.clear();
            loop {
                let chunk = match self.input.fill_buf() {
                    Ok(chunk) => chunk,
                    Err(e) => {
                        self.error = Some(e);
                        self.done = true;
                        break;
                    }
                };
                if chunk.is_empty() {
                    break;
                }
                match chunk.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        self.input.consume(i + 1);
                        break;
                    }
                    None => {
                        let n = chunk.len();
                        self.input.consume(n);
                    }
                }
            }
        }
        let keep = kept(&bytes, self.number);
        bytes.truncate(keep.end);
        bytes.drain(..keep.start);
        Some(Line {
            number: self.number,
            bytes,
            too_long,
        })
    }

    /// The next line.
    pub fn next_line(&mut self) -> Option<Line> {
        self.ahead.pop_front().or_else(|| self.read_raw())
    }

    /// The `i`-th line ahead (0 = the next one), reading as far as needed.
    pub fn peek(&mut self, i: usize) -> Option<&Line> {
        while self.ahead.len() <= i {
            let line = self.read_raw()?;
            self.ahead.push_back(line);
        }
        self.ahead.get(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_bom_and_cr_and_numbers_lines() {
        let mut lines = Lines::new(&b"\xEF\xBB\xBFab\r\n\ncd"[..]);
        assert_eq!(lines.peek(2).unwrap().bytes, b"cd");
        let a = lines.next_line().unwrap();
        assert_eq!((a.number, a.bytes.as_slice()), (1, &b"ab"[..]));
        assert!(lines.next_line().unwrap().is_blank());
        assert_eq!(lines.next_line().unwrap().number, 3);
        assert!(lines.next_line().is_none());
    }

    #[test]
    fn reports_and_skips_over_long_lines() {
        let mut input = vec![b'1'; MAX_LINE * 3];
        input.extend_from_slice(b"\nnext\n");
        let mut lines = Lines::new(&input[..]);
        let long = lines.next_line().unwrap();
        assert!(long.too_long && long.bytes.is_empty());
        assert_eq!(lines.next_line().unwrap().bytes, b"next");
    }
}
