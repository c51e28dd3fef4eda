//! The Batch page's CPU way: the file cut into pieces of whole records, each read, answered and written by a
//! worker, the parts kept in input order.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures_channel::oneshot;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::super::batch_output::Output;
use super::super::engine;
use super::super::workers::{PieceReply, SharesReport};
use super::super::{loaded, workers};
use super::{
    Asked, Feed, InFlight, Job, PIECE_BYTES, READ_AHEAD, Reading, Shown, UNWRITTEN_PER_WORKER,
    start_pieces, write_rest, write_shown,
};
use crate::sudoku::Solver;
use crate::sudoku::format::{Piece, ReadOptions};
use crate::sudoku::piece_protocol::{self, PieceJob, PieceWriter};

/// Pieces asked of a worker and not yet answered: one being answered and one waiting, so that a worker never
/// waits for the page.
const PIECES_PER_WORKER: usize = 2;

/// The CPU workers' way: the page cuts the file into pieces of whole records ([`Splitter`]) and sends each to
/// a worker, which reads, answers and writes it ([`piece_protocol`]); the page keeps the parts in order and
/// hands them to the browser as Blobs. The page's own work per puzzle is then only finding line ends.
pub(super) async fn answer_pieces(
    feed: Feed,
    reading: &mut Reading,
    job: Job,
    shown: &mut Shown,
    cancel: RwSignal<bool>,
) -> (Output, bool) {
    let options = ReadOptions::default();
    let (mut splitter, piece_job, workers, asked) = start_pieces(feed, options, job, job.graded);
    let mut output = Output::new(piece_job.format, job.graded);
    let mut in_flight: InFlight<PieceReply> = VecDeque::new();
    let (mut ended, mut cancelled) = (false, false);
    loop {
        if cancel.get_untracked() {
            cancelled = true;
            break;
        }
        // Woken by the next piece answered from here on (those answered before are found below).
        let (wake, woken) = oneshot::channel();
        asked.borrow_mut().wake = Some(wake);
        reading.top_up(splitter.get_mut()).await;
        while !ended
            && in_flight.len() < UNWRITTEN_PER_WORKER * workers
            && (reading.whole() || splitter.get_mut().ahead() >= READ_AHEAD)
        {
            let (w, least) = asked.borrow().least_busy();
            if least >= PIECES_PER_WORKER {
                break;
            }
            let Some(piece) = splitter.next_piece(PIECE_BYTES) else {
                ended = true;
                break;
            };
            let room = loaded::KEEP.saturating_sub(output.kept.len());
            asked.borrow_mut().pending[w] += 1;
            in_flight.push_back(answer_piece(piece_job, w, Rc::clone(&asked), &piece));
            if room > 0 {
                output
                    .kept
                    .extend(piece.records_here(options).into_iter().take(room));
                // Reading the kept records took this thread a while: let the page breathe.
                TimeoutFuture::new(0).await;
            }
        }
        // Every piece answered at the front of the output is written, in order.
        let consumed = splitter.get_mut().consumed;
        let written = write_shown(
            &mut in_flight,
            &mut output,
            Output::write_piece,
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
        if !wrote && !in_flight.is_empty() {
            let _ = woken.await;
        }
    }
    write_rest(&mut in_flight, |piece| output.write_piece(piece)).await;
    output.engines = vec![engine::workers_engine(job.wanted, output.report)];
    (output, cancelled)
}

/// Answers a piece in a task of its own (the page goes on cutting and writing meanwhile); `None` comes back
/// when the job was cancelled. What goes to the worker is made here and now, so the piece stays with the
/// caller. A piece of records the splitter had to read itself (blocks without blank lines) goes to the workers
/// as puzzles and is written here.
fn answer_piece(
    job: PieceJob,
    worker: usize,
    asked: Rc<RefCell<Asked>>,
    piece: &Piece,
) -> oneshot::Receiver<Option<PieceReply>> {
    let (tx, rx) = oneshot::channel();
    let work = piece_protocol::request(&job, piece)
        .ok_or_else(|| piece.records_here(ReadOptions::default()));
    spawn_local(async move {
        let answered = match work {
            Ok(request) => workers::answer_piece(worker, request).await.ok(),
            Err(records) => match workers::solve(&records, job.mode, job.max_guesses).await {
                Some(Ok((answers, report))) => {
                    let mut writer = PieceWriter::new(&job, &records);
                    for (record, answer) in records.iter().zip(&answers) {
                        writer.add(record, answer);
                    }
                    Some(PieceReply::from_answered(writer.finish(), report))
                }
                Some(Err(workers::Cancelled)) => None,
                // No worker after all: answered here.
                None => Some(PieceReply::from_answered(
                    piece_protocol::answer_records(&job, &records, &mut Solver::new()),
                    SharesReport::default(),
                )),
            },
        };
        let _ = tx.send(answered);
        let mut asked = asked.borrow_mut();
        asked.pending[worker] -= 1;
        if let Some(wake) = asked.wake.take() {
            let _ = wake.send(());
        }
    });
    rx
}
