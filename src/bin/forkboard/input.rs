//! Opening the input: a file or standard input, with a byte count for the progress bar.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use forkboard::sudoku::format::{ReadOptions, Reader, Splitter};

use crate::InputArgs;

/// A reader that counts the bytes passing through it.
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An open input: its bytes, its size when known, and the bytes read so far.
pub struct Input {
    raw: Box<dyn Read + Send>,
    options: ReadOptions,
    pub size: Option<u64>,
    pub read: Arc<AtomicU64>,
}

impl Input {
    /// The input read one record after another.
    pub fn reader(self) -> Reader<BufReader<Box<dyn Read + Send>>> {
        Reader::new(BufReader::with_capacity(1 << 16, self.raw), self.options)
    }

    /// The input cut into pieces of whole records, to be read on every core.
    pub fn splitter(self) -> Splitter<Box<dyn Read + Send>> {
        Splitter::new(self.raw, self.options)
    }
}

impl InputArgs {
    /// The read options these arguments ask for.
    pub fn options(&self) -> ReadOptions {
        ReadOptions {
            format: self.format,
            symbols: self.symbols,
            shape: self.box_shape,
        }
    }

    /// True when reading standard input.
    pub fn is_stdin(&self) -> bool {
        self.file.as_os_str() == "-"
    }

    /// Opens the file (or standard input) for reading.
    pub fn open(&self) -> Result<Input, String> {
        let read = Arc::new(AtomicU64::new(0));
        let (raw, size): (Box<dyn Read + Send>, Option<u64>) = if self.is_stdin() {
            (Box::new(io::stdin()), None)
        } else {
            let file = File::open(&self.file)
                .map_err(|e| format!("cannot open {}: {e}", self.file.display()))?;
            let size = file.metadata().ok().map(|m| m.len());
            (Box::new(file), size)
        };
        Ok(Input {
            raw: Box::new(Counted {
                inner: raw,
                read: Arc::clone(&read),
            }),
            options: self.options(),
            size,
            read,
        })
    }
}
