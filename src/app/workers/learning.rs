//! The learning tools' jobs on the workers: making puzzles of a grade, rating puzzles, and a board's logical
//! solution (`sudoku::learn_protocol`).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures_channel::oneshot;
use leptos::task::spawn_local;

use super::{Failure, pool};
use crate::sudoku::Grid;
use crate::sudoku::generator::Request;
use crate::sudoku::learn_protocol::{self, MadePuzzle, Rated};
use crate::sudoku::logic::Path;
use crate::sudoku::rng::SplitMix;

/// Makes `count` puzzles of `request`'s kind on the workers, a few at a time per worker so that `progress(made,
/// count)` moves and Cancel acts soon; the same `seed` makes the same puzzles. Each entry is `None` where no
/// puzzle reached the grade within `attempts` full grids. `None` when no worker can be started; `Some(Err)`
/// when cancelled or every worker failed.
pub async fn generate(
    request: Request,
    seed: u64,
    count: usize,
    attempts: u32,
    progress: Rc<dyn Fn(usize, usize)>,
) -> Option<Result<Vec<Option<MadePuzzle>>, String>> {
    let pool = pool()?;
    // A 9×9 takes milliseconds, a 16×16 about a second, a 25×25 several: pieces of about a second each.
    let per_piece = match request.shape.side() {
        0..=9 => 16,
        _ => 1,
    };
    let mut seeds = SplitMix(seed);
    let pieces: VecDeque<(usize, u64, usize)> = (0..count)
        .step_by(per_piece)
        .map(|start| (start, seeds.next_u64(), per_piece.min(count - start)))
        .collect();
    let job = Rc::new(RefCell::new(GenerateJob {
        pieces,
        made: vec![None; count],
        done: 0,
        failed: None,
    }));
    let mut loops = Vec::new();
    for w in 0..pool.len() {
        let (pool, job, progress) = (Rc::clone(&pool), Rc::clone(&job), Rc::clone(&progress));
        let (tx, rx) = oneshot::channel::<()>();
        loops.push(rx);
        spawn_local(async move {
            loop {
                let piece = {
                    let mut job = job.borrow_mut();
                    if job.failed.is_some() {
                        break;
                    }
                    job.pieces.pop_front()
                };
                let Some((start, piece_seed, n)) = piece else {
                    break;
                };
                let text = learn_protocol::generate_request(&request, piece_seed, n, attempts);
                let made = match pool.reply(pool.ask(w, text).await).await {
                    Ok(reply) => learn_protocol::read_generated(&reply),
                    Err(Failure::Cancelled) => Err("cancelled".to_string()),
                    // The worker is started again; its piece goes to whichever worker is free next, and this
                    // loop stops so that a piece that kills workers cannot go round for ever.
                    Err(Failure::Died(_)) => {
                        job.borrow_mut().pieces.push_back((start, piece_seed, n));
                        break;
                    }
                };
                let mut job = job.borrow_mut();
                match made {
                    Ok(made) if made.len() == n => {
                        for (k, m) in made.into_iter().enumerate() {
                            job.made[start + k] = Some(m);
                        }
                        job.done += n;
                        progress(job.done, count);
                    }
                    Ok(_) => job.failed = Some("a worker's reply was cut short".into()),
                    Err(why) => job.failed = Some(why),
                }
            }
            let _ = tx.send(());
        });
    }
    for finished in loops {
        let _ = finished.await;
    }
    let mut job = Rc::try_unwrap(job).ok()?.into_inner();
    if !job.pieces.is_empty() && job.failed.is_none() {
        job.failed = Some("every worker died on this job".into());
    }
    Some(match job.failed {
        Some(why) => Err(why),
        None => Ok(job.made.into_iter().map(Option::flatten).collect()),
    })
}

/// What a generation on the workers shares between the workers' loops.
struct GenerateJob {
    /// Pieces not yet taken: the first puzzle's index, the piece's seed, how many puzzles.
    pieces: VecDeque<(usize, u64, usize)>,
    /// Each puzzle as it comes back (`Some(None)`: none reached the grade).
    made: Vec<Option<Option<MadePuzzle>>>,
    done: usize,
    /// Why the job stopped early (cancelled, a worker died).
    failed: Option<String>,
}

/// Rates `puzzles` on the workers (each must have one solution to be graded), in order; `None` when no worker
/// can be started or the job was cancelled (the caller rates on the page or goes without).
pub async fn rate(puzzles: &[&Grid]) -> Option<Vec<Rated>> {
    let pool = pool()?;
    let per_worker = puzzles.len().div_ceil(pool.len()).max(1);
    let mut asked = Vec::new();
    for (w, share) in puzzles.chunks(per_worker).enumerate() {
        let text = learn_protocol::rate_request(share);
        asked.push((share.len(), pool.ask(w, text).await));
    }
    let mut rated = Vec::with_capacity(puzzles.len());
    for (n, ask) in asked {
        match pool.reply(ask).await {
            Ok(reply) => rated.extend(learn_protocol::read_rated(&reply, n)),
            Err(Failure::Cancelled) => return None,
            Err(Failure::Died(why)) => {
                rated.extend((0..n).map(|_| Rated::Unrated(format!("a worker died ({why})"))))
            }
        }
    }
    Some(rated)
}

/// The logical solution from `board`'s position, worked out on a worker (a 16×16's takes a fraction of a second,
/// long enough to stall the page). `None` when no worker can be started or it died (the caller works it out
/// itself); `Some(Err)` when cancelled or the reply does not parse.
pub async fn path(board: &crate::sudoku::logic::Board) -> Option<Result<Path, String>> {
    let pool = pool()?;
    let text = learn_protocol::path_request(board);
    match pool.reply(pool.ask(0, text).await).await {
        Ok(reply) => Some(learn_protocol::read_path(&reply)),
        Err(Failure::Cancelled) => Some(Err("cancelled".into())),
        Err(Failure::Died(_)) => None,
    }
}
