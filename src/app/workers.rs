//! The CPU engine in Web Workers, one per core (at most 8), so batches use every core and the page never
//! blocks. Each worker is a wasm instance of `src/bin/forkboard-worker.rs`; requests and replies are the text
//! protocols of `sudoku::worker_protocol` and `queens::worker_protocol`. A worker that fails has its share
//! answered elsewhere: by the other workers where they can take it, else on the page.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use futures_channel::oneshot;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;

use crate::queens::{self, Classes, prefix};
use crate::sudoku::answer::{Mode, checked_or_solved, ready_for_solver};
use crate::sudoku::format::{Answer, Record};
use crate::sudoku::{Grid, Solver, worker_protocol};

/// The worker script trunk writes (an unhashed loader, as workers are started by name).
const SCRIPT: &str = "/forkboard-worker_loader.js";

type Replies = Rc<RefCell<HashMap<u32, (usize, oneshot::Sender<Result<String, String>>)>>>;

struct Pool {
    workers: Vec<web_sys::Worker>,
    /// Resolves when each worker's wasm has started: a message posted earlier would find no handler and be
    /// lost. Taken (and awaited) by the first job that uses the worker.
    ready: Vec<RefCell<Option<oneshot::Receiver<()>>>>,
    pending: Replies,
    next_id: Cell<u32>,
    _handlers: Vec<Closure<dyn Fn(web_sys::MessageEvent)>>,
    _error_handlers: Vec<Closure<dyn Fn(web_sys::ErrorEvent)>>,
}

thread_local! {
    static POOL: RefCell<Option<Rc<Pool>>> = const { RefCell::new(None) };
}

/// How many workers the pool has (starting it if needed); 0 when workers cannot be started here.
pub fn count() -> usize {
    pool().map_or(0, |p| p.workers.len())
}

fn pool() -> Option<Rc<Pool>> {
    if let Some(pool) = POOL.with(|p| p.borrow().clone()) {
        return Some(pool);
    }
    let cores = web_sys::window()?.navigator().hardware_concurrency() as usize;
    let pending: Replies = Rc::new(RefCell::new(HashMap::new()));
    let mut workers = Vec::new();
    let mut handlers = Vec::new();
    let mut error_handlers = Vec::new();
    let mut ready = Vec::new();
    for index in 0..cores.clamp(1, 8) {
        let Ok(worker) = web_sys::Worker::new(SCRIPT) else {
            break;
        };
        let replies = Rc::clone(&pending);
        let (ready_tx, ready_rx) = oneshot::channel();
        let ready_tx = RefCell::new(Some(ready_tx));
        // A reply is [id, text]; the worker's first message is "ready".
        let on_message =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let data = event.data();
                if !js_sys::Array::is_array(&data) {
                    if let Some(tx) = ready_tx.borrow_mut().take() {
                        let _ = tx.send(());
                    }
                    return;
                }
                let message = js_sys::Array::from(&data);
                let id = message.get(0).as_f64().unwrap_or(-1.0) as u32;
                let text = message.get(1).as_string().unwrap_or_default();
                if let Some((_, tx)) = replies.borrow_mut().remove(&id) {
                    let _ = tx.send(Ok(text));
                }
            });
        let replies = Rc::clone(&pending);
        // A worker error fails every request waiting on that worker; the caller answers them itself.
        let on_error =
            Closure::<dyn Fn(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
                let failed: Vec<u32> = replies
                    .borrow()
                    .iter()
                    .filter(|(_, (w, _))| *w == index)
                    .map(|(id, _)| *id)
                    .collect();
                for id in failed {
                    if let Some((_, tx)) = replies.borrow_mut().remove(&id) {
                        let _ = tx.send(Err(event.message()));
                    }
                }
            });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        workers.push(worker);
        ready.push(RefCell::new(Some(ready_rx)));
        handlers.push(on_message);
        error_handlers.push(on_error);
    }
    if workers.is_empty() {
        return None;
    }
    let pool = Rc::new(Pool {
        workers,
        ready,
        pending,
        next_id: Cell::new(0),
        _handlers: handlers,
        _error_handlers: error_handlers,
    });
    POOL.with(|p| *p.borrow_mut() = Some(Rc::clone(&pool)));
    Some(pool)
}

/// Answers `records` in order on the workers; `None` when no worker can be started. The second value says
/// how many shares had to be answered on the page because a worker failed.
pub async fn solve(records: &[Record], mode: Mode) -> Option<(Vec<Answer>, usize)> {
    let pool = pool()?;
    let mut answers: Vec<Option<Answer>> = vec![None; records.len()];
    // Clashing or unreadable puzzles are answered here; the rest are shared out in contiguous runs.
    let mut valid: Vec<(usize, &Grid)> = Vec::new();
    for (i, record) in records.iter().enumerate() {
        match ready_for_solver(record) {
            Ok(grid) => valid.push((i, grid)),
            Err(answer) => answers[i] = Some(answer),
        }
    }
    let per_worker = valid.len().div_ceil(pool.workers.len()).max(1);
    let mut waiting = Vec::new();
    for (w, share) in valid.chunks(per_worker).enumerate() {
        pool.started(w).await;
        let grids: Vec<&Grid> = share.iter().map(|(_, g)| *g).collect();
        let rx = pool.send(w, worker_protocol::request(mode.limit(), &grids));
        waiting.push((share, grids, rx));
    }
    let mut answered_here = 0;
    let mut solver = Solver::new();
    for (share, grids, rx) in waiting {
        let reply = rx.await.ok().and_then(Result::ok);
        if reply.is_none() {
            answered_here += 1;
        }
        let outcomes = reply
            .map(|r| worker_protocol::read_reply(&r, &grids))
            .unwrap_or_default();
        for (k, &(i, grid)) in share.iter().enumerate() {
            // Every worker result goes through the same independent check as any other engine's.
            let outcome = outcomes.get(k).cloned().flatten();
            answers[i] =
                Some(checked_or_solved(records[i].line, grid, outcome, mode, &mut solver).0);
        }
    }
    Some((
        answers
            .into_iter()
            .map(|a| a.expect("every record answered"))
            .collect(),
        answered_here,
    ))
}

impl Pool {
    /// Waits (once) until worker `w` has started.
    async fn started(&self, w: usize) {
        let starting = self.ready[w].borrow_mut().take();
        if let Some(started) = starting {
            // An error before "ready" drops the sender: the request then fails and the caller copes.
            let _ = started.await;
        }
    }

    /// Posts `text` to worker `w`; the receiver gets its reply, or an error if the worker fails.
    fn send(&self, w: usize, text: String) -> oneshot::Receiver<Result<String, String>> {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        let (tx, rx) = oneshot::channel();
        self.pending.borrow_mut().insert(id, (w, tx));
        let message = js_sys::Array::of2(&f64::from(id).into(), &text.into());
        if self.workers[w].post_message(&message).is_err() {
            self.pending.borrow_mut().remove(&id);
        }
        rx
    }
}

/// What a Queens count on the workers shares between the workers' loops.
#[derive(Default)]
struct QueensJob {
    shards: VecDeque<usize>,
    classes: Classes,
    done: usize,
    cancelled: bool,
}

/// Counts an `n`-board on the workers, in many small shards so that progress moves and Cancel acts within a
/// moment. `progress(done, total)` (in shards) returns false to cancel. `None` when no worker can be started;
/// `Some(None)` when cancelled.
pub async fn count_queens(
    n: u32,
    progress: Rc<dyn Fn(usize, usize) -> bool>,
) -> Option<Option<Classes>> {
    let pool = pool()?;
    let workers = pool.workers.len();
    // Enough nodes that every shard holds many subtrees: shard sizes stay even.
    let row = prefix::row_for(n, workers * 512);
    let total = workers * 16;
    let job = Rc::new(RefCell::new(QueensJob {
        shards: (0..total).collect(),
        ..QueensJob::default()
    }));
    let mut loops = Vec::new();
    for w in 0..workers {
        let (pool, job, progress) = (Rc::clone(&pool), Rc::clone(&job), Rc::clone(&progress));
        let (tx, rx) = oneshot::channel::<()>();
        loops.push(rx);
        spawn_local(async move {
            pool.started(w).await;
            loop {
                let shard = {
                    let mut job = job.borrow_mut();
                    if job.cancelled {
                        break;
                    }
                    job.shards.pop_front()
                };
                let Some(shard) = shard else { break };
                let text = queens::worker_protocol::request(n, row, shard, total);
                let reply = pool.send(w, text).await.ok().and_then(Result::ok);
                let Some(classes) = reply.and_then(|r| queens::worker_protocol::read_reply(&r))
                else {
                    // This worker failed: its shard goes back for the others (or the page), and it stops here.
                    job.borrow_mut().shards.push_back(shard);
                    break;
                };
                let done = {
                    let mut job = job.borrow_mut();
                    job.classes.add(&classes);
                    job.done += 1;
                    job.done
                };
                if !progress(done, total) {
                    job.borrow_mut().cancelled = true;
                }
            }
            let _ = tx.send(());
        });
    }
    for finished in loops {
        let _ = finished.await;
    }
    let mut job = job.borrow_mut();
    if job.cancelled {
        return Some(None);
    }
    // Shards no worker could take (every worker failed) are counted here.
    while let Some(shard) = job.shards.pop_front() {
        let classes = prefix::count_shard(n, row, shard, total);
        job.classes.add(&classes);
    }
    Some(Some(job.classes))
}
