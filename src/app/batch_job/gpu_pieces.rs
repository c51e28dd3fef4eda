//! The Batch page's GPU way for a job without grades: pieces of plain 9×9 puzzles searched on the device a
//! slice at a time, their results checked and written by the CPU workers piece by piece while the device
//! searches the next slice, every other piece answered as records on this page; the parts kept in input order.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures_channel::oneshot;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::super::batch_output::{Answered, AnsweredNines, Output};
use super::super::browser::now_ms;
use super::super::engine::{self, SearchedNines};
use super::super::workers::PieceReply;
use super::super::{loaded, workers};
use super::{
    Asked, Feed, GPU_FIRST_SLICE, GPU_SLICE_MS, GPU_SLICES, InFlight, Job, LINE_BYTES, PIECE_BYTES,
    READ_AHEAD, Reading, Shown, TASK_MS, UNWRITTEN_PER_WORKER, answer_slice, start_pieces,
    write_rest, write_shown,
};
use crate::gpu::found_piece;
use crate::sudoku::format::{NinePiece, ReadOptions, Record};
use crate::sudoku::piece_protocol;

/// A part of the GPU's way's output, in input order: a piece whose results a worker checked and wrote (with
/// the records kept from it for the Solve page), or a slice answered here (records, or plain 9×9 puzzles that
/// the CPU answered).
enum GpuPart {
    Written(PieceReply, Vec<Record>),
    Records(Answered),
    Nines(AnsweredNines),
}

impl GpuPart {
    fn write_to(self, output: &mut Output) {
        match self {
            GpuPart::Written(reply, kept) => {
                output.write_piece(reply);
                output.kept.extend(kept);
            }
            GpuPart::Records(answered) => output.write(answered),
            GpuPart::Nines(answered) => output.write_nines(answered),
        }
    }
}

/// A part already answered, as the queue of parts in flight holds it.
fn ready(part: GpuPart) -> oneshot::Receiver<Option<GpuPart>> {
    let (tx, rx) = oneshot::channel();
    let _ = tx.send(Some(part));
    rx
}

/// Has a piece's GPU results ([`found_piece::request`]) checked and written on worker `worker` in a task of its
/// own; `None` comes back when the job was cancelled.
fn write_found(
    worker: usize,
    asked: Rc<RefCell<Asked>>,
    request: Vec<u8>,
    kept: Vec<Record>,
) -> oneshot::Receiver<Option<GpuPart>> {
    let (tx, rx) = oneshot::channel();
    spawn_local(async move {
        let written = workers::answer_piece(worker, request).await.ok();
        let _ = tx.send(written.map(|reply| GpuPart::Written(reply, kept)));
        let mut asked = asked.borrow_mut();
        asked.pending[worker] -= 1;
        if let Some(wake) = asked.wake.take() {
            let _ = wake.send(());
        }
    });
    rx
}

/// The most bytes a slice of the GPU's way takes: the splitter reads at most a megabyte (and a line) past a
/// piece, so that the feed's READ_AHEAD bytes never run dry before the end.
const MAX_PIECE_BYTES: usize = READ_AHEAD - (2 << 20);

/// The GPU's way for each puzzle's first solution or count, ungraded: the input cut into pieces of whole
/// records ([`Splitter`]), a slice's worth of them at a time. Pieces of plain 9×9 puzzles (lines, blocks or CSV
/// rows) go to the GPU together straight from their text ([`engine::search_nines`]: no record per puzzle), and
/// each piece's results then to a worker with the piece, which checks, unpacks and writes them
/// ([`found_piece`]) while the GPU searches the next slice: the page's thread only cuts, packs and keeps the
/// parts in order. Any other piece is answered as records ([`answer_slice`]) and written here. Slices are sized
/// as [`super::answer_slices`] sizes them.
pub(super) async fn answer_gpu_pieces(
    feed: Feed,
    reading: &mut Reading,
    job: Job,
    shown: &mut Shown,
    cancel: RwSignal<bool>,
) -> (Output, bool) {
    let options = ReadOptions::default();
    let (mut splitter, piece_job, workers, asked) = start_pieces(feed, options, job, false);
    let mut slice = GPU_FIRST_SLICE;
    // Slices are counted in puzzles and pieces cut in bytes: the input's bytes a record takes, measured as the
    // job goes (a 9×9 line to start with).
    let mut record_bytes = LINE_BYTES;
    let mut output = Output::new(splitter.format(), false);
    let mut in_flight: InFlight<GpuPart> = VecDeque::new();
    // Parts sent last time: the next slice goes to the GPU while the workers write them.
    let mut last_slice = 0;
    // Puzzles in the parts sent so far, to know which the Solve page keeps.
    let mut sent = 0;
    // The GPU's name, once its results have gone to the workers.
    let mut gpu_engine: Option<String> = None;
    let (mut ended, mut cancelled) = (false, false);
    'job: loop {
        if cancel.get_untracked() {
            cancelled = true;
            break;
        }
        // Woken by the next piece written from here on (those written before are found below).
        let (wake, woken) = oneshot::channel();
        asked.borrow_mut().wake = Some(wake);
        if !ended && in_flight.len() < last_slice + UNWRITTEN_PER_WORKER * workers {
            // The feed holds READ_AHEAD bytes after this, or all there is: a slice of at most MAX_PIECE_BYTES
            // never runs it dry before the end.
            reading.top_up(splitter.get_mut()).await;
            let budget = (slice * record_bytes).min(MAX_PIECE_BYTES);
            let (mut nines, mut records, mut bytes) = (Vec::new(), None, 0);
            let mut since = now_ms();
            while bytes < budget {
                // Cutting and reading a slice's pieces takes a while too: the browser gets its turns.
                if now_ms() - since >= TASK_MS {
                    TimeoutFuture::new(0).await;
                    since = now_ms();
                }
                let Some(piece) = splitter.next_piece(PIECE_BYTES.min(budget - bytes)) else {
                    ended = true;
                    break;
                };
                bytes += piece.bytes();
                let request = piece_protocol::request(&piece_job, &piece);
                match piece.into_nine_piece(options) {
                    // Only a piece of text reads as plain 9×9 puzzles, and a piece of text has a request.
                    Ok(piece) => nines.push((piece, request.expect("a piece of text"))),
                    // A piece of other records ends the slice.
                    Err(piece) => {
                        records = Some(piece.records(options));
                        break;
                    }
                }
            }
            last_slice = nines.len() + usize::from(records.is_some());
            let started = now_ms();
            // Time the page spent letting the browser in, not answering the slice.
            let mut paused = 0.0;
            let mut taken = 0;
            if !nines.is_empty() {
                let pieces: Vec<&NinePiece> = nines.iter().map(|(piece, _)| piece).collect();
                let Some(searched) = engine::search_nines(&pieces, job.mode, job.wanted).await
                else {
                    cancelled = true;
                    break 'job;
                };
                match searched {
                    SearchedNines::Found(results, engine) => {
                        gpu_engine.get_or_insert(engine);
                        let mut at = 0;
                        let mut since = now_ms();
                        for (piece, request) in nines {
                            // A slice's pieces are tens of posts and copies, and the first slices make the
                            // records the Solve page keeps: the page's thread lets the browser in between.
                            if now_ms() - since >= TASK_MS {
                                let pause = now_ms();
                                TimeoutFuture::new(0).await;
                                since = now_ms();
                                paused += since - pause;
                            }
                            let n = piece.len();
                            let request = found_piece::request(&results[at..at + n], &request);
                            at += n;
                            let keep = loaded::KEEP.saturating_sub(sent).min(n);
                            let kept = (0..keep).map(|i| piece.record(i)).collect();
                            sent += n;
                            let (w, _) = asked.borrow().least_busy();
                            asked.borrow_mut().pending[w] += 1;
                            in_flight.push_back(write_found(w, Rc::clone(&asked), request, kept));
                            taken += n;
                        }
                    }
                    SearchedNines::Answered(answered) => {
                        for ((piece, _), solved) in nines.into_iter().zip(answered) {
                            sent += piece.len();
                            in_flight.push_back(ready(GpuPart::Nines(AnsweredNines {
                                nines: piece,
                                answers: solved.answers,
                                engine: solved.engine,
                            })));
                        }
                    }
                }
            }
            if let Some(records) = records {
                // Answered here and now: one GPU batch at a time.
                taken += records.len();
                let Some(answered) = answer_slice(records, job).await.ok().flatten() else {
                    cancelled = true;
                    break 'job;
                };
                sent += answered.chunk.len();
                in_flight.push_back(ready(GpuPart::Records(answered)));
            }
            // The slice's bytes per record size the next slice's pieces, and a slice of most of a slice's
            // puzzles its count.
            if let Some(measured) = bytes.checked_div(taken) {
                record_bytes = measured.clamp(16, 4096);
            }
            if taken * 5 >= slice * 4 {
                let per_ms = taken as f64 / (now_ms() - started - paused).max(1.0);
                slice = ((per_ms * GPU_SLICE_MS) as usize).clamp(GPU_SLICES.0, GPU_SLICES.1);
            }
        }
        // Every part finished at the front of the output is written, in order.
        let consumed = splitter.get_mut().consumed;
        let written = write_shown(
            &mut in_flight,
            &mut output,
            |o, part| part.write_to(o),
            shown,
            consumed,
            reading,
        );
        let Some(wrote) = written else {
            cancelled = true;
            break;
        };
        if ended && in_flight.is_empty() {
            break;
        }
        let full = in_flight.len() >= last_slice + UNWRITTEN_PER_WORKER * workers;
        if !wrote && (ended || full) {
            let _ = woken.await;
        }
        // Let the page breathe between slices.
        TimeoutFuture::new(0).await;
    }
    write_rest(&mut in_flight, |part| part.write_to(&mut output)).await;
    if let Some(gpu) = gpu_engine {
        let checked = if workers::count() == 0 {
            format!("{gpu}, checked and written on this page")
        } else {
            format!(
                "{gpu}, checked and written on the {}",
                engine::workers_label(output.report)
            )
        };
        output.engines.insert(0, checked);
    }
    (output, cancelled)
}
