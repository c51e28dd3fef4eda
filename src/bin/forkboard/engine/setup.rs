//! Auto's GPU, looked for and set up on a thread of its own while the CPU answers, and the end of a process
//! that does not wait for a setup it did not need.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use forkboard::gpu::describe_adapter;

use super::{Gpu, open_on};
use crate::gpus::preferred_adapter_for_auto;

/// What `solve --engine auto` changes for tests (hidden options).
#[derive(Clone, Copy, Debug, Default)]
pub struct AutoTesting {
    /// A software adapter (lavapipe) stands for a GPU (`--auto-software-gpu`).
    pub software_gpu: bool,
    /// A chunk that goes to the GPU waits for its setup (`--auto-waits-for-gpu`).
    pub wait_for_setup: bool,
}

/// A GPU looked for and set up on a thread of its own: the GPU, or why there is none to use (for `--stats`).
pub(super) struct Setup {
    /// (In a mutex only so that the engines may be shared by the threads that answer on the CPU.)
    outcome: Mutex<mpsc::Receiver<Result<Gpu, String>>>,
    /// Raised once the GPU is ready (its outcome sent).
    ready_flag: Arc<AtomicBool>,
    /// How far the run has come, for the thread to judge whether a GPU could still help.
    progress: Arc<RunProgress>,
    /// Where the thread stands: [`WAITING`], [`SETTING_UP`] or [`CALLED_OFF`].
    phase: Arc<AtomicU8>,
    /// When the setup began and when it ended, in microseconds from the start (0: not yet).
    began_us: Arc<AtomicU64>,
    ended_us: Arc<AtomicU64>,
    /// Dropped when the run is over, which wakes a thread still waiting.
    over: Option<mpsc::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

/// How far a run has come: the input's size where it is known, and the bytes the CPU has answered.
#[derive(Debug, Default)]
pub struct RunProgress {
    /// The input's bytes (a regular file, or a shard's part of one); 0 where not known.
    size: AtomicU64,
    /// Input bytes answered on the CPU so far.
    answered: AtomicU64,
}

impl RunProgress {
    /// Records the input's size in bytes.
    pub fn set_size(&self, bytes: u64) {
        self.size.store(bytes, Ordering::Relaxed);
    }

    /// Counts `bytes` more of the input as answered.
    pub fn add_answered(&self, bytes: u64) {
        self.answered.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Whether the CPU, going on at the rate it has kept for `elapsed`, would still have at least
    /// [`WORTH_SETTING_UP`] of work left: true where that cannot be told (no size, or nothing answered yet).
    fn worth_a_gpu(&self, elapsed: Duration) -> bool {
        let size = self.size.load(Ordering::Relaxed);
        let answered = self.answered.load(Ordering::Relaxed);
        if size == 0 || answered == 0 {
            return true;
        }
        let left = size.saturating_sub(answered) as f64 / answered as f64;
        elapsed.mul_f64(left) >= WORTH_SETTING_UP
    }
}

/// [`Setup`]'s thread waits to see whether a GPU is worth setting up.
const WAITING: u8 = 0;
/// It sets one up.
const SETTING_UP: u8 = 1;
/// The run ended while it waited: it sets none up.
const CALLED_OFF: u8 = 2;

/// How long after the run begins its GPU is looked for. A run the CPU is through with sooner (a puzzle, ten
/// thousand easy ones) then never shares its cores with the setup (the driver's instance and shader compiler):
/// on this project's 2-core VM one puzzle took 8–23 ms with the setup at once and 2.5 ms with it 50 ms later,
/// 100,000 easy puzzles 96–98 ms and 43, as on `--engine cpu` (docs/benchmarks.md). A GPU that will help comes
/// that much later.
const LOOK_AFTER: Duration = Duration::from_millis(50);

/// How often, after that, the thread looks again while the CPU's projected work is too short for a GPU.
const LOOK_AGAIN: Duration = Duration::from_millis(20);

/// The least work the CPU should have left, at its rate so far, for a GPU to be set up: setting one up takes
/// 0.25–0.55 s on the H200 machine with the cores busy, shares them with the CPU's threads and is torn down at
/// the end, so a run the CPU will be through with sooner only loses by it (a million easy lines, about 0.2 s on
/// 16 cores: up to 1.3× `--engine cpu`'s time with a setup begun at 50 ms, level without; docs/benchmarks.md,
/// "A GPU set up only for the work it could take").
const WORTH_SETTING_UP: Duration = Duration::from_millis(500);

/// Set when a run ends with a GPU's setup still going: the process should then end without the exit handlers of
/// the drivers, which would tear down what that thread is using ([`exit`]).
static SETUP_LEFT_RUNNING: AtomicBool = AtomicBool::new(false);

impl Setup {
    /// Starts the thread that looks for the preferred adapter and sets it up, [`LOOK_AFTER`] into the run and
    /// once the CPU's work left looks long enough ([`RunProgress`]); a software adapter is passed over unless
    /// `software_gpu` (tests).
    pub(super) fn start(software_gpu: bool) -> Self {
        let (send, outcome) = mpsc::channel();
        let ready_flag = Arc::new(AtomicBool::new(false));
        let raise = Arc::clone(&ready_flag);
        let progress = Arc::new(RunProgress::default());
        let phase = Arc::new(AtomicU8::new(WAITING));
        let (over, run_over) = mpsc::channel::<()>();
        let (judged, phase_here) = (Arc::clone(&progress), Arc::clone(&phase));
        let (began_us, ended_us) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let (began_here, ended_here) = (Arc::clone(&began_us), Arc::clone(&ended_us));
        let started = Instant::now();
        let now_us = move || (started.elapsed().as_micros() as u64).max(1);
        let thread = thread::Builder::new()
            .name("gpu setup".into())
            .spawn(move || {
                let mut wait = LOOK_AFTER;
                loop {
                    // (Anything but a timeout: the run is over.)
                    if run_over.recv_timeout(wait) != Err(mpsc::RecvTimeoutError::Timeout) {
                        return;
                    }
                    if judged.worth_a_gpu(started.elapsed()) {
                        break;
                    }
                    wait = LOOK_AGAIN;
                }
                // (The run may have ended just now: then it has called the setup off.)
                let go = phase_here.compare_exchange(
                    WAITING,
                    SETTING_UP,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
                if go.is_err() {
                    return;
                }
                began_here.store(now_us(), Ordering::Relaxed);
                let found = look_for_gpu(software_gpu);
                ended_here.store(now_us(), Ordering::Relaxed);
                let ready = found.is_ok();
                // (If the run is over, nobody takes it: it is dropped here.)
                let _ = send.send(found);
                if ready {
                    raise.store(true, Ordering::Release);
                }
            })
            .ok();
        Self {
            outcome: Mutex::new(outcome),
            ready_flag,
            progress,
            phase,
            began_us,
            ended_us,
            over: Some(over),
            thread,
        }
    }

    /// How far the run has come, for the thread to judge by: the run gives the input's size and counts what
    /// the CPU answers.
    pub(super) fn progress(&self) -> Arc<RunProgress> {
        Arc::clone(&self.progress)
    }

    /// When the setup began and ended, in seconds from the start of the run, once it has ended (for `--stats`).
    pub(super) fn timeline(&self) -> Option<(f64, f64)> {
        let seconds = |us: &AtomicU64| us.load(Ordering::Relaxed) as f64 / 1e6;
        let ended = seconds(&self.ended_us);
        (ended > 0.0).then(|| (seconds(&self.began_us), ended))
    }

    /// True once the thread has begun setting a GPU up (false while it waits to see whether one would help).
    pub(super) fn began(&self) -> bool {
        self.phase.load(Ordering::Acquire) == SETTING_UP
    }

    /// The flag raised once the GPU is ready.
    pub(super) fn ready_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.ready_flag)
    }

    /// The setup's end of the channel.
    fn receiver(&self) -> std::sync::MutexGuard<'_, mpsc::Receiver<Result<Gpu, String>>> {
        self.outcome.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The outcome, if the setup is done.
    pub(super) fn ready(&self) -> Option<Result<Gpu, String>> {
        match self.receiver().try_recv() {
            Ok(outcome) => Some(outcome),
            Err(mpsc::TryRecvError::Empty) if self.thread.is_some() => None,
            Err(_) => Some(Err("no GPU: its setup thread stopped".into())),
        }
    }

    /// The outcome, once the setup is done.
    pub(super) fn wait(&self) -> Result<Gpu, String> {
        self.receiver()
            .recv()
            .unwrap_or_else(|_| Err("no GPU: its setup thread stopped".into()))
    }
}

/// The preferred GPU with the kernels compiled, or why auto uses none, as `--stats` says it.
fn look_for_gpu(software_gpu: bool) -> Result<Gpu, String> {
    let adapter = preferred_adapter_for_auto(software_gpu)?;
    let name = describe_adapter(&adapter.get_info());
    open_on(adapter).map_err(|e| format!("no GPU: {name} could not be set up ({e})"))
}

impl Drop for Setup {
    fn drop(&mut self) {
        // A thread still waiting sets nothing up and wakes at once.
        let called_off = self
            .phase
            .compare_exchange(WAITING, CALLED_OFF, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        drop(self.over.take());
        let Some(thread) = self.thread.take() else {
            return;
        };
        if called_off || thread.is_finished() || cfg!(not(unix)) {
            let _ = thread.join();
        } else {
            SETUP_LEFT_RUNNING.store(true, Ordering::Relaxed);
        }
    }
}

/// Ends the process with `code`. Where a GPU's setup was left running (auto, when the CPU was through with the
/// input first), standard output is flushed and the process ends at once: the drivers' exit handlers would
/// tear down what that thread is using, and waiting for it would cost the run the time auto saved.
pub fn exit(code: u8) -> ExitCode {
    #[cfg(unix)]
    if SETUP_LEFT_RUNNING.load(Ordering::Relaxed) {
        let _ = io::stdout().flush();
        let _ = io::stderr().flush();
        // SAFETY: `_exit` ends the process without running exit handlers or destructors; everything this
        // process writes is written and flushed by now (the run is over and its files closed).
        unsafe { libc::_exit(i32::from(code)) }
    }
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_is_set_up_only_where_the_cpu_would_have_half_a_second_left() {
        let ms = Duration::from_millis;
        let progress = RunProgress::default();
        // Nothing known: the size (standard input), or the rate (nothing answered yet).
        assert!(progress.worth_a_gpu(ms(50)));
        progress.set_size(1_000_000);
        assert!(progress.worth_a_gpu(ms(50)));
        // A tenth answered in 50 ms: 450 ms left, short of half a second; the same tenth in 60 ms, 540.
        progress.add_answered(100_000);
        assert!(!progress.worth_a_gpu(ms(50)));
        assert!(progress.worth_a_gpu(ms(60)));
        // Everything answered (or more, as a piece's bytes are counted roughly): nothing left.
        progress.add_answered(1_000_000);
        assert!(!progress.worth_a_gpu(ms(5_000)));
    }
}
