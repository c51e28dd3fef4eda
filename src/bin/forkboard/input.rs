//! Opening the input: a file or standard input, with a byte count for the progress bar, read ahead on a
//! thread of its own.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;
use std::{mem, thread};

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

/// Bytes the read-ahead thread asks of the input at a time.
const AHEAD_BLOCK: usize = 1 << 20;
/// Blocks it may read before they are taken.
const AHEAD_BLOCKS: usize = 4;
/// How long the input may give nothing before a splitter is told it paused, so that the puzzles it holds are
/// answered now (a terminal, a pipe from a slow producer): well under what a person notices, and far longer
/// than a file's or a fast pipe's read takes.
const PAUSE: Duration = Duration::from_millis(20);

/// A reader whose input is read on a thread of its own, a few blocks ahead, so that copying the bytes out of
/// the kernel overlaps what the caller does with them: the splitter's one thread sets the pace of a large file,
/// and on a file of pretty grids a third of its time was that copy. A block is what one `read` gives (a pipe's
/// bytes are passed on as they come), and errors come in their place, after every byte read before them.
/// Once `pauses` is set, a read that has waited [`PAUSE`] for the input gives an error of kind `WouldBlock`
/// instead of waiting on (the splitter's sign to cut a piece from what it holds, [`Splitter::idle`]); the next
/// read waits again.
struct ReadAhead {
    /// Blocks read: a buffer and how many of its bytes were read (none: the end).
    blocks: mpsc::Receiver<io::Result<(Vec<u8>, usize)>>,
    /// Buffers taken, back to the thread to be filled again (fresh memory would be faulted in page by page).
    spent: mpsc::SyncSender<Vec<u8>>,
    block: Vec<u8>,
    len: usize,
    at: usize,
    ended: bool,
    pauses: Arc<AtomicBool>,
}

impl ReadAhead {
    fn new(mut input: Box<dyn Read + Send>, pauses: Arc<AtomicBool>) -> Self {
        let (blocks_tx, blocks) = mpsc::sync_channel(AHEAD_BLOCKS);
        let (spent, spent_rx) = mpsc::sync_channel::<Vec<u8>>(AHEAD_BLOCKS + 2);
        thread::spawn(move || {
            loop {
                let mut block = spent_rx.try_recv().unwrap_or_else(|_| vec![0; AHEAD_BLOCK]);
                let read = loop {
                    match input.read(&mut block) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        read => break read,
                    }
                };
                let last = !matches!(read, Ok(n) if n > 0);
                if blocks_tx.send(read.map(|n| (block, n))).is_err() || last {
                    return;
                }
            }
        });
        Self {
            blocks,
            spent,
            block: Vec::new(),
            len: 0,
            at: 0,
            ended: false,
            pauses,
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.len {
            if self.ended {
                return Ok(0);
            }
            let spent = mem::take(&mut self.block);
            if !spent.is_empty() {
                let _ = self.spent.try_send(spent);
            }
            (self.at, self.len) = (0, 0);
            let block = if self.pauses.load(Ordering::Relaxed) {
                match self.blocks.recv_timeout(PAUSE) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        return Err(io::Error::new(
                            io::ErrorKind::WouldBlock,
                            "the input paused",
                        ));
                    }
                    block => block.map_err(|_| mpsc::RecvError),
                }
            } else {
                self.blocks.recv()
            };
            match block {
                Ok(Ok((block, len))) if len > 0 => (self.block, self.len) = (block, len),
                Ok(Err(e)) => {
                    self.ended = true;
                    return Err(e);
                }
                // The end (an empty read, or the thread gone).
                _ => self.ended = true,
            }
        }
        let n = out.len().min(self.len - self.at);
        out[..n].copy_from_slice(&self.block[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// An open input: its bytes, its size when known, and the bytes read so far.
pub struct Input {
    raw: Box<dyn Read + Send>,
    /// Set for a splitter, which is told when the input pauses ([`ReadAhead`]).
    pauses: Arc<AtomicBool>,
    options: ReadOptions,
    pub size: Option<u64>,
    pub read: Arc<AtomicU64>,
}

impl Input {
    /// The input read one record after another.
    pub fn reader(self) -> Reader<BufReader<Box<dyn Read + Send>>> {
        Reader::new(BufReader::with_capacity(1 << 16, self.raw), self.options)
    }

    /// The input cut into pieces of whole records, to be read on every core; when the input pauses, the records
    /// read so far go out at once ([`Splitter::idle`]).
    pub fn splitter(self) -> Splitter<Box<dyn Read + Send>> {
        self.pauses.store(true, Ordering::Relaxed);
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

    /// The lines of a regular file of at most 64 KiB (read here, apart from [`InputArgs::open`]); `None` for
    /// standard input, a pipe or a larger file, and for a file that cannot be read (opening it says why).
    pub fn lines_if_small(&self) -> Option<usize> {
        const SMALL: u64 = 64 << 10;
        if self.is_stdin() {
            return None;
        }
        let metadata = std::fs::metadata(&self.file).ok()?;
        if !metadata.is_file() || metadata.len() > SMALL {
            return None;
        }
        let bytes = std::fs::read(&self.file).ok()?;
        let ends = bytes.iter().filter(|&&b| b == b'\n').count();
        Some(ends + usize::from(bytes.last().is_some_and(|&b| b != b'\n')))
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
        let pauses = Arc::new(AtomicBool::new(false));
        Ok(Input {
            raw: Box::new(Counted {
                inner: ReadAhead::new(raw, Arc::clone(&pauses)),
                read: Arc::clone(&read),
            }),
            pauses,
            options: self.options(),
            size,
            read,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read-ahead that waits for its input however long it pauses.
    fn never() -> Arc<AtomicBool> {
        Arc::new(AtomicBool::new(false))
    }

    /// `bytes`, then an error.
    struct Failing(io::Cursor<Vec<u8>>);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(io::Error::other("the disk went away")),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn read_ahead_gives_every_byte_in_order_then_the_end() {
        // Several blocks and a part, taken in reads of odd sizes.
        let bytes: Vec<u8> = (0..3 * AHEAD_BLOCK + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        let mut ahead = ReadAhead::new(Box::new(io::Cursor::new(bytes.clone())), never());
        let mut got = Vec::new();
        let mut buf = vec![0; 70_001];
        loop {
            let n = ahead.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, bytes);
        assert_eq!(ahead.read(&mut buf).unwrap(), 0, "the end stays the end");
        let mut empty = ReadAhead::new(Box::new(io::empty()), never());
        assert_eq!(empty.read(&mut buf).unwrap(), 0);
    }

    /// A pipe: each read waits for the next bytes sent, and an empty read comes once the sender is gone.
    struct Pipe(mpsc::Receiver<Vec<u8>>);

    impl Read for Pipe {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Ok(bytes) = self.0.recv() else {
                return Ok(0);
            };
            buf[..bytes.len()].copy_from_slice(&bytes);
            Ok(bytes.len())
        }
    }

    #[test]
    fn read_ahead_passes_a_pipes_bytes_on_as_they_come() {
        let (tx, rx) = mpsc::channel();
        let mut ahead = ReadAhead::new(Box::new(Pipe(rx)), never());
        let mut buf = [0; 100];
        tx.send(b"4.....8.5\n".to_vec()).unwrap();
        assert_eq!(ahead.read(&mut buf).unwrap(), 10, "before the pipe ends");
        tx.send(b"more".to_vec()).unwrap();
        drop(tx);
        assert_eq!(ahead.read(&mut buf).unwrap(), 4);
        assert_eq!(ahead.read(&mut buf).unwrap(), 0);
    }

    #[test]
    fn read_ahead_says_when_a_pipe_pauses_once_asked_to() {
        let (tx, rx) = mpsc::channel();
        let pauses = never();
        let mut ahead = ReadAhead::new(Box::new(Pipe(rx)), Arc::clone(&pauses));
        pauses.store(true, Ordering::Relaxed);
        let mut buf = [0; 100];
        tx.send(b"4.....8.5\n".to_vec()).unwrap();
        assert_eq!(ahead.read(&mut buf).unwrap(), 10);
        // Nothing more for a while: a pause, then the bytes when they come, then the end.
        let paused = ahead.read(&mut buf).unwrap_err();
        assert_eq!(paused.kind(), io::ErrorKind::WouldBlock);
        tx.send(b"more".to_vec()).unwrap();
        drop(tx);
        assert_eq!(ahead.read(&mut buf).unwrap(), 4);
        assert_eq!(ahead.read(&mut buf).unwrap(), 0);
        assert_eq!(ahead.read(&mut buf).unwrap(), 0, "the end stays the end");
    }

    #[test]
    fn read_ahead_gives_an_error_after_the_bytes_before_it() {
        let bytes: Vec<u8> = (0..AHEAD_BLOCK + 100).map(|i| (i % 7) as u8).collect();
        let mut ahead = ReadAhead::new(Box::new(Failing(io::Cursor::new(bytes.clone()))), never());
        let mut got = Vec::new();
        let error = ahead.read_to_end(&mut got).unwrap_err();
        assert_eq!(error.to_string(), "the disk went away");
        assert_eq!(got, bytes);
    }
}
