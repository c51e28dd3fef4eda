//! N-Queens on the workers: a count in many small shards, and the symmetric counts beside the GPU's
//! (`queens::worker_protocol`).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures_channel::oneshot;
use leptos::task::spawn_local;

use super::{Failure, pool};
use crate::queens::{self, Classes, prefix};

/// What a Queens count on the workers shares between the workers' loops.
#[derive(Default)]
struct QueensJob {
    shards: VecDeque<usize>,
    classes: Classes,
    done: usize,
    cancelled: bool,
}

/// The symmetric counts of an `n`-board (quarter turn, half turn) from one worker; `None` without workers or
/// when it fails (the caller counts them itself).
pub async fn symmetric_counts(n: u32) -> Option<(u64, u64)> {
    let pool = pool()?;
    let text = queens::worker_protocol::symmetric_request(n);
    let reply = pool.reply(pool.ask(0, text).await).await.ok()?;
    queens::worker_protocol::read_symmetric_reply(&reply)
}

/// Counts an `n`-board on the workers, in many small shards so that progress moves and Cancel acts within a
/// moment. `progress(done, total)` (in shards) returns false to cancel. `None` when no worker can be started;
/// `Some(None)` when cancelled.
pub async fn count_queens(
    n: u32,
    progress: Rc<dyn Fn(usize, usize) -> bool>,
) -> Option<Option<Classes>> {
    let pool = pool()?;
    let workers = pool.len();
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
            // Deaths in a row on this worker: its shard goes back, and after two the worker stops taking more.
            let mut deaths = 0;
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
                let reply = pool.reply(pool.ask(w, text).await).await;
                let classes = match reply {
                    Ok(reply) => queens::worker_protocol::read_reply(&reply),
                    Err(Failure::Cancelled) => {
                        job.borrow_mut().cancelled = true;
                        break;
                    }
                    Err(Failure::Died(_)) => None,
                };
                let Some(classes) = classes else {
                    job.borrow_mut().shards.push_back(shard);
                    deaths += 1;
                    if deaths == 2 {
                        break;
                    }
                    continue;
                };
                deaths = 0;
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
    // Shards no worker could take (every worker failed twice) are counted here.
    while let Some(shard) = job.shards.pop_front() {
        let classes = prefix::count_shard(n, row, shard, total);
        job.classes.add(&classes);
    }
    Some(Some(job.classes))
}
