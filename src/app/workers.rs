//! The CPU engine in Web Workers, one per core (at most 16), so every CPU job runs off the page's thread and the
//! page never blocks. Each worker is a wasm instance of `src/bin/forkboard-worker.rs`; requests and replies are
//! the protocols of `sudoku::worker_protocol`, `sudoku::piece_protocol`, `sudoku::learn_protocol` and
//! `queens::worker_protocol`, sent as bytes in transferred buffers; the buffers of the Batch page's pieces go
//! back to the workers once their bytes are in a Blob, to carry later replies ([`Spares`]).
//!
//! A worker that dies (a trap, running out of memory) is terminated and started again in its place, and its
//! share is sent again; only a share that kills two workers in a row is answered on the page. [`cancel`] stops
//! every job in flight the same way: the busy workers are replaced, and their requests end as cancelled.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use futures_channel::oneshot;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use crate::gpu::found_piece;
use crate::sudoku::answer::{Mode, checked_or_solved_unchecked};
use crate::sudoku::format::{Answer, Record};
use crate::sudoku::piece_protocol::{self, AnsweredPiece};
use crate::sudoku::{Grid, Solver, worker_protocol};

mod learning;
mod messages;
mod queens_count;

pub use learning::{generate, path, rate};
pub(super) use messages::recycle;
use messages::{SPARE_FROM, request_message, returned_for_request, text_of};
pub use messages::{Spares, bytes_of, message_of_bytes, text_from};
pub use queens_count::{count_queens, symmetric_counts};

/// The worker script trunk writes (an unhashed loader, as workers are started by name).
const SCRIPT: &str = "/forkboard-worker_loader.js";
/// The first line of a request that makes the worker panic: the `worker-dies` test hook.
const DIE: &str = "!die";

/// Why a request got no reply.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Failure {
    /// The worker died; it has been started again.
    Died(String),
    /// [`cancel`] stopped it.
    Cancelled,
}

type Reply = Result<String, Failure>;
/// A reply as it came, the whole message (`[id, payload…]`), left in JavaScript's memory until the caller
/// reads what it needs of it.
type RawReply = Result<wasm_bindgen::JsValue, Failure>;
type Replies = Rc<RefCell<HashMap<u32, (usize, oneshot::Sender<RawReply>)>>>;

/// A CPU job stopped by [`cancel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

/// The requests waiting for a worker to start (see [`Member`]).
type Starting = Rc<RefCell<Option<Vec<oneshot::Sender<()>>>>>;

/// One worker and what it needs to live.
struct Member {
    worker: web_sys::Worker,
    /// Bumped on every restart, so two callers failed by the same death restart it once.
    generation: u32,
    /// While the worker's wasm is starting, the requests waiting for it (a message posted earlier would find no
    /// handler and be lost); `None` once it is ready, or failed (the waiting requests then go on, and fail).
    starting: Starting,
    /// Set when the worker failed before it was ready (its script or wasm did not load): nothing it is sent
    /// would ever be answered.
    stillborn: Rc<Cell<bool>>,
    _on_message: Closure<dyn Fn(web_sys::MessageEvent)>,
    _on_error: Closure<dyn Fn(web_sys::ErrorEvent)>,
}

impl Member {
    /// Starts worker `index`; replies and errors go to `pending`.
    fn start(index: usize, generation: u32, pending: &Replies) -> Option<Self> {
        let worker = web_sys::Worker::new(SCRIPT).ok()?;
        let replies = Rc::clone(pending);
        let starting: Starting = Rc::new(RefCell::new(Some(Vec::new())));
        let stillborn = Rc::new(Cell::new(false));
        let ready = Rc::clone(&starting);
        let (on_error_starting, on_error_stillborn) = (Rc::clone(&starting), Rc::clone(&stillborn));
        // A reply is [id, text]; the worker's first message is "ready".
        let on_message =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let data = event.data();
                if !js_sys::Array::is_array(&data) {
                    for waiting in ready.borrow_mut().take().unwrap_or_default() {
                        let _ = waiting.send(());
                    }
                    return;
                }
                let message = js_sys::Array::from(&data);
                let id = message.get(0).as_f64().unwrap_or(-1.0) as u32;
                if let Some((_, tx)) = replies.borrow_mut().remove(&id) {
                    let _ = tx.send(Ok(message.into()));
                }
            });
        let replies = Rc::clone(pending);
        // An error in a worker leaves its wasm unusable: every request waiting on it fails, and the caller
        // restarts it.
        let on_error =
            Closure::<dyn Fn(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
                if on_error_starting.borrow_mut().take().is_some() {
                    on_error_stillborn.set(true);
                }
                fail_pending(&replies, index, &Failure::Died(event.message()));
            });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(Self {
            worker,
            generation,
            starting,
            stillborn,
            _on_message: on_message,
            _on_error: on_error,
        })
    }
}

/// Fails every request waiting on worker `index`.
fn fail_pending(replies: &Replies, index: usize, failure: &Failure) {
    let failed: Vec<u32> = replies
        .borrow()
        .iter()
        .filter(|(_, (w, _))| *w == index)
        .map(|(id, _)| *id)
        .collect();
    for id in failed {
        if let Some((_, tx)) = replies.borrow_mut().remove(&id) {
            let _ = tx.send(Err(failure.clone()));
        }
    }
}

/// A request on its way: the worker, its generation when asked, and the reply to come.
struct Asked {
    w: usize,
    generation: u32,
    reply: oneshot::Receiver<RawReply>,
}

struct Pool {
    members: RefCell<Vec<Member>>,
    pending: Replies,
    next_id: Cell<u32>,
    /// The `worker-dies` test hook: the next Sudoku request kills its worker.
    kill_next: Cell<bool>,
}

thread_local! {
    static POOL: RefCell<Option<Rc<Pool>>> = const { RefCell::new(None) };
}

/// How many workers the pool has (starting it if needed); 0 when workers cannot be started here.
pub fn count() -> usize {
    pool().map_or(0, |p| p.members.borrow().len())
}

/// Stops every CPU job in flight: busy workers are replaced, and their jobs end as [`Cancelled`].
pub fn cancel() {
    let Some(pool) = POOL.with(|p| p.borrow().clone()) else {
        return;
    };
    let busy: Vec<usize> = {
        let pending = pool.pending.borrow();
        let mut busy: Vec<usize> = pending.values().map(|(w, _)| *w).collect();
        busy.sort_unstable();
        busy.dedup();
        busy
    };
    for w in busy {
        let generation = pool.members.borrow()[w].generation;
        pool.restart(w, generation, &Failure::Cancelled);
    }
}

fn pool() -> Option<Rc<Pool>> {
    if let Some(pool) = POOL.with(|p| p.borrow().clone()) {
        return Some(pool);
    }
    let cores = web_sys::window()?.navigator().hardware_concurrency() as usize;
    let pending: Replies = Rc::new(RefCell::new(HashMap::new()));
    // A worker a core, up to 16. Measured in Chromium on the 16-core H100 machine (docs/benchmarks.md, "The CPU
    // workers on every core"): 15 or 16 workers against the 8 this pool used to stop at solved the hardest
    // puzzles 1.4-1.8x and counted N = 17 1.7x faster; easy files, bound by the page's own thread, came out
    // level. (Every core but one would leave a 2-core machine a single worker.)
    let members: Vec<Member> = (0..cores.clamp(1, 16))
        .map_while(|index| Member::start(index, 0, &pending))
        .collect();
    if members.is_empty() {
        return None;
    }
    let pool = Rc::new(Pool {
        members: RefCell::new(members),
        pending,
        next_id: Cell::new(0),
        kill_next: Cell::new(super::storage::test_hook("worker-dies").is_some()),
    });
    POOL.with(|p| *p.borrow_mut() = Some(Rc::clone(&pool)));
    Some(pool)
}

impl Pool {
    fn len(&self) -> usize {
        self.members.borrow().len()
    }

    /// Posts `text` to worker `w` once it has started; [`Pool::reply`] awaits the answer.
    async fn ask(&self, w: usize, text: String) -> Asked {
        self.ask_bytes(w, text.as_bytes()).await
    }

    /// [`Pool::ask`] with a request of bytes.
    async fn ask_bytes(&self, w: usize, request: &[u8]) -> Asked {
        // Every request waits for a starting worker, not only the first: several may be sent to it at once.
        let started = self.members.borrow()[w]
            .starting
            .borrow_mut()
            .as_mut()
            .map(|waiting| {
                let (tx, rx) = oneshot::channel();
                waiting.push(tx);
                rx
            });
        if let Some(started) = started {
            // An error before "ready" drops the sender: the request then fails and the caller copes.
            let _ = started.await;
        }
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        let (tx, rx) = oneshot::channel();
        self.pending.borrow_mut().insert(id, (w, tx));
        let members = self.members.borrow();
        let (message, transfer) = request_message(&f64::from(id).into(), request);
        if let Some(returned) = returned_for_request() {
            for buffer in returned.iter() {
                transfer.push(&buffer);
            }
            message.push(&returned);
        }
        let failure = if members[w].stillborn.get() {
            Some("the worker could not start")
        } else if members[w]
            .worker
            .post_message_with_transfer(&message, &transfer)
            .is_err()
        {
            Some("the request could not be posted")
        } else {
            None
        };
        if let Some(why) = failure
            && let Some((_, tx)) = self.pending.borrow_mut().remove(&id)
        {
            let _ = tx.send(Err(Failure::Died(why.into())));
        }
        Asked {
            w,
            generation: members[w].generation,
            reply: rx,
        }
    }

    /// The reply to a request. A worker that died is started again here (once, however many of its requests
    /// failed), so the caller can simply ask again.
    async fn reply(&self, asked: Asked) -> Reply {
        self.reply_raw(asked).await.map(|message| {
            let payload = js_sys::Array::from(&message).get(1);
            let text = text_of(payload.clone());
            // Copied out: the reply's buffer can carry a later request, or go back to a worker.
            if let Some(bytes) = payload.dyn_ref::<js_sys::Uint8Array>()
                && bytes.length() as usize >= SPARE_FROM
            {
                recycle(&js_sys::Array::of1(&bytes.buffer()));
            }
            text
        })
    }

    /// [`Pool::reply`], the reply left as it came.
    async fn reply_raw(&self, asked: Asked) -> RawReply {
        let reply = asked
            .reply
            .await
            .unwrap_or_else(|_| Err(Failure::Died("the worker went away".into())));
        if let Err(Failure::Died(why)) = &reply {
            web_sys::console::warn_1(
                &format!("worker {} died ({why}); starting it again", asked.w).into(),
            );
            self.restart(asked.w, asked.generation, &Failure::Died(why.clone()));
        }
        reply
    }

    /// Terminates worker `w` (if it is still generation `generation`) and starts a fresh one in its place; its
    /// pending requests fail with `failure`.
    fn restart(&self, w: usize, generation: u32, failure: &Failure) {
        if self.members.borrow()[w].generation != generation {
            return;
        }
        fail_pending(&self.pending, w, failure);
        self.members.borrow()[w].worker.terminate();
        if let Some(fresh) = Member::start(w, generation.wrapping_add(1), &self.pending) {
            self.members.borrow_mut()[w] = fresh;
        }
    }
}

/// What the workers did for a Sudoku job besides answering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharesReport {
    /// Shares sent again after their worker died.
    pub resent: usize,
    /// Shares answered on the page after killing two workers in a row.
    pub on_page: usize,
}

/// Answers `records` in order on the workers, with a guess budget of `max_guesses` per puzzle; `None` when no
/// worker can be started here.
pub async fn solve(
    records: &[Record],
    mode: Mode,
    max_guesses: u64,
) -> Option<Result<(Vec<Answer>, SharesReport), Cancelled>> {
    let pool = pool()?;
    let mut answers: Vec<Option<Answer>> = vec![None; records.len()];
    // Unreadable puzzles are answered here; the rest are shared out in contiguous runs. Their givens are checked
    // only where no checked solution comes back (a solution proves them), which saves this thread a pass over
    // every puzzle.
    let mut valid: Vec<(usize, &Grid)> = Vec::new();
    for (i, record) in records.iter().enumerate() {
        match &record.puzzle {
            Err(e) => answers[i] = Some(Answer::Invalid(e.clone())),
            Ok(grid) => valid.push((i, grid)),
        }
    }
    let per_worker = valid.len().div_ceil(pool.len()).max(1);
    let mut asked = Vec::new();
    for (w, share) in valid.chunks(per_worker).enumerate() {
        let grids: Vec<&Grid> = share.iter().map(|(_, g)| *g).collect();
        let mut text = worker_protocol::request(mode.limit(), max_guesses, &grids);
        if pool.kill_next.replace(false) {
            text = format!("{DIE}\n{text}");
        }
        asked.push((w, share, grids, pool.ask(w, text).await));
    }
    let mut report = SharesReport::default();
    let mut solver = Solver::with_max_guesses(max_guesses);
    for (w, share, grids, first) in asked {
        let reply = match pool.reply(first).await {
            Err(Failure::Died(_)) => {
                report.resent += 1;
                let again = worker_protocol::request(mode.limit(), max_guesses, &grids);
                pool.reply(pool.ask(w, again).await).await
            }
            other => other,
        };
        let outcomes = match reply {
            Ok(reply) => worker_protocol::read_reply(&reply, &grids),
            Err(Failure::Cancelled) => return Some(Err(Cancelled)),
            Err(Failure::Died(_)) => {
                report.on_page += 1;
                Vec::new()
            }
        };
        for (k, &(i, grid)) in share.iter().enumerate() {
            // Every worker result goes through the same independent check as any other engine's; a missing
            // one is solved here.
            let outcome = outcomes.get(k).cloned().flatten();
            let line = records[i].line;
            answers[i] =
                Some(checked_or_solved_unchecked(line, grid, outcome, mode, &mut solver).0);
        }
    }
    let answers = answers
        .into_iter()
        .map(|a| a.expect("every record answered"))
        .collect();
    Some(Ok((answers, report)))
}

/// A piece of a file answered ([`answer_piece`]): what its reply's head says, and its two outputs left in
/// JavaScript's memory as views of the reply, to become parts of the downloads without passing through the
/// page's wasm memory. (The worker sends bytes, not Blobs: a Blob made in a worker cost it a third of a
/// piece's time.)
pub struct PieceReply {
    /// The tally, previews, messages and opening skips (its outputs empty).
    pub head: AnsweredPiece,
    /// The piece's part of the output in the input's layout.
    pub out: js_sys::Uint8Array,
    /// Its part of the CSV.
    pub csv: js_sys::Uint8Array,
    /// Whether its worker had to be started again, or the page answered it.
    pub report: SharesReport,
}

impl PieceReply {
    /// A piece answered here, its outputs copied out of wasm memory.
    pub fn from_answered(mut done: AnsweredPiece, report: SharesReport) -> Self {
        let out = js_sys::Uint8Array::from(&std::mem::take(&mut done.out)[..]);
        let csv = js_sys::Uint8Array::from(&std::mem::take(&mut done.csv)[..]);
        Self {
            head: done,
            out,
            csv,
            report,
        }
    }
}

/// Reads a worker's reply to a piece request (`[id, bytes]`): only its head is copied into wasm memory.
fn read_piece_reply(message: wasm_bindgen::JsValue) -> Result<PieceReply, String> {
    let payload = js_sys::Array::from(&message).get(1);
    if !payload.is_instance_of::<js_sys::Uint8Array>() {
        return Err("a piece reply that is not bytes".into());
    }
    let bytes = js_sys::Uint8Array::from(payload);
    let total = bytes.length() as usize;
    let view = |range: std::ops::Range<usize>| bytes.subarray(range.start as u32, range.end as u32);
    let first = view(0..piece_protocol::LAYOUT_BYTES.min(total)).to_vec();
    let [head, out, csv] = piece_protocol::reply_layout(&first, total)?;
    Ok(PieceReply {
        head: piece_protocol::read_head(&view(head).to_vec())?,
        out: view(out),
        csv: view(csv),
        report: SharesReport::default(),
    })
}

/// Answers a piece request ([`piece_protocol::request`]), or one of the GPU's results for a piece
/// ([`found_piece::request`]), on worker `w` (of [`count`]). A worker that dies is
/// started again and asked once more; a piece that kills two workers in a row, or whose reply does not read, is
/// answered on the page, as is every piece where no worker can be started.
pub async fn answer_piece(w: usize, request: Vec<u8>) -> Result<PieceReply, Cancelled> {
    let mut report = SharesReport::default();
    let read = match pool() {
        None => Err(()),
        Some(pool) => {
            let w = w % pool.len();
            // The `worker-dies` hook's line goes before the first asking only; the piece itself is not copied.
            let dying;
            let first: &[u8] = if pool.kill_next.replace(false) {
                dying = [format!("{DIE}\n").as_bytes(), &request].concat();
                &dying
            } else {
                &request
            };
            let mut reply = pool.reply_raw(pool.ask_bytes(w, first).await).await;
            if let Err(Failure::Died(_)) = reply {
                report.resent += 1;
                reply = pool.reply_raw(pool.ask_bytes(w, &request).await).await;
            }
            match reply {
                Ok(message) => read_piece_reply(message).map_err(|why| {
                    web_sys::console::warn_1(
                        &format!("worker {w}: {why}; answering its piece here").into(),
                    );
                }),
                Err(Failure::Cancelled) => return Err(Cancelled),
                Err(Failure::Died(_)) => {
                    report.on_page += 1;
                    Err(())
                }
            }
        }
    };
    Ok(match read {
        Ok(mut piece) => {
            piece.report = report;
            piece
        }
        Err(()) => {
            let done = if found_piece::is_found(&request) {
                found_piece::answer(&request)
            } else {
                piece_protocol::read_request(&request).map(|(job, piece)| {
                    piece_protocol::answer_piece(&job, piece, &mut Solver::new())
                })
            };
            let done = done.unwrap_or_else(|why| AnsweredPiece {
                messages: vec![format!("a piece could not be answered: {why}")],
                ..AnsweredPiece::default()
            });
            PieceReply::from_answered(done, report)
        }
    })
}
