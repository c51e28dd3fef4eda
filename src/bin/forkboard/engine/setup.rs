//! Auto's GPU, looked for and set up on a thread of its own while the CPU answers, and the end of a process
//! that does not wait for a setup it did not need.

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::Duration;

use forkboard::gpu::{GpuContext, describe_adapter};

use super::{Gpu, open_on};

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
    thread: Option<thread::JoinHandle<()>>,
}

/// How long after the run begins its GPU is looked for. A run the CPU is through with sooner (a puzzle, ten
/// thousand easy ones) then never shares its cores with the setup (the driver's instance and shader compiler):
/// on this project's 2-core VM one puzzle took 8–23 ms with the setup at once and 2.5 ms with it 50 ms later,
/// 100,000 easy puzzles 96–98 ms and 43, as on `--engine cpu` (docs/benchmarks.md). A GPU that will help comes
/// that much later.
const LOOK_AFTER: Duration = Duration::from_millis(50);

/// Set when a run ends with a GPU's setup still going: the process should then end without the exit handlers of
/// the drivers, which would tear down what that thread is using ([`exit`]).
static SETUP_LEFT_RUNNING: AtomicBool = AtomicBool::new(false);

impl Setup {
    /// Starts looking for the preferred adapter and setting it up; a software one is passed over unless
    /// `software_gpu` (tests).
    pub(super) fn start(software_gpu: bool) -> Self {
        let (send, outcome) = mpsc::channel();
        let ready_flag = Arc::new(AtomicBool::new(false));
        let raise = Arc::clone(&ready_flag);
        let thread = thread::Builder::new()
            .name("gpu setup".into())
            .spawn(move || {
                thread::sleep(LOOK_AFTER);
                let found = look_for_gpu(software_gpu);
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
            thread,
        }
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
    let adapter = GpuContext::preferred_adapter_blocking().map_err(|e| format!("no GPU: {e}"))?;
    let info = adapter.get_info();
    let name = describe_adapter(&info);
    if info.device_type == wgpu::DeviceType::Cpu && !software_gpu {
        return Err(format!(
            "the only GPU adapter, {name}, is a software one: the CPU engine is faster"
        ));
    }
    open_on(adapter).map_err(|e| format!("no GPU: {name} could not be set up ({e})"))
}

impl Drop for Setup {
    fn drop(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        if thread.is_finished() || cfg!(not(unix)) {
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
