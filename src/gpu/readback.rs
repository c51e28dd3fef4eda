//! Reading a buffer back. In the browser the map callback is awaited through a oneshot channel (spinning would
//! freeze the page); natively the device is polled for it a short while, then waited on.

use futures_channel::oneshot;

use super::{GpuContext, GpuError};

/// Natively, how long a read-back polls the device without sleeping before it waits on it. A small batch's
/// submission comes back within a millisecond, and a thread put to sleep on the GPU's fence woke 0.1 ms or
/// more after it (the H100 machine, a VM: a thousand 25×25 puzzles' search 0.9–1.0 ms waiting, 0.8–0.9
/// polling). A long submission costs a core this long, then sleeps.
#[cfg(not(target_arch = "wasm32"))]
const POLL_BEFORE_WAITING: std::time::Duration = std::time::Duration::from_millis(2);

/// Copies the whole of `buffer` (MAP_READ) to host memory.
pub async fn read(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<u8>, GpuError> {
    with_mapped(ctx, buffer, <[u8]>::to_vec).await
}

/// Maps the whole of `buffer` (MAP_READ), hands its bytes to `use_bytes` and unmaps it: a large result is read
/// where it lies instead of being copied first.
pub async fn with_mapped<T>(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    use_bytes: impl FnOnce(&[u8]) -> T,
) -> Result<T, GpuError> {
    with_mapped_range(ctx, buffer, 0..buffer.size(), use_bytes).await
}

/// As [`with_mapped`], bytes `range` of `buffer` only (in a browser, only they cross to the page).
pub async fn with_mapped_range<T>(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    range: std::ops::Range<u64>,
    use_bytes: impl FnOnce(&[u8]) -> T,
) -> Result<T, GpuError> {
    let (tx, rx) = oneshot::channel();
    buffer.map_async(wgpu::MapMode::Read, range.clone(), move |result| {
        let _ = tx.send(result);
    });
    // Natively nothing drives the callbacks but a poll; in the browser the event loop does.
    #[cfg(not(target_arch = "wasm32"))]
    let mut rx = rx;
    #[cfg(not(target_arch = "wasm32"))]
    let polled = poll_for(ctx, &mut rx)?;
    #[cfg(target_arch = "wasm32")]
    let polled = None;
    let mapped = match polled {
        Some(mapped) => mapped,
        None => rx.await.map_err(|_| dropped())?,
    };
    // A mapping fails most often because the device is gone: natively, waiting on it says so.
    #[cfg(not(target_arch = "wasm32"))]
    if mapped.is_err() {
        wait_idle(ctx)?;
    }
    ctx.check()?;
    mapped.map_err(|e| GpuError::Api(format!("read-back failed: {e}")))?;
    let value = {
        let view = buffer
            .get_mapped_range(range)
            .map_err(|e| GpuError::Api(format!("read-back failed: {e}")))?;
        use_bytes(&view)
    };
    buffer.unmap();
    Ok(value)
}

/// What the map callback sent through `rx`, if it comes while the device is polled for up to
/// [`POLL_BEFORE_WAITING`]; otherwise waits until the device's work is done (the callback may still be on
/// its way from a poll on another thread: await `rx` after).
#[cfg(not(target_arch = "wasm32"))]
fn poll_for<T>(ctx: &GpuContext, rx: &mut oneshot::Receiver<T>) -> Result<Option<T>, GpuError> {
    let started = std::time::Instant::now();
    while started.elapsed() < POLL_BEFORE_WAITING {
        ctx.device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| GpuError::DeviceLost(e.to_string()))?;
        if let Some(sent) = rx.try_recv().map_err(|_| dropped())? {
            return Ok(Some(sent));
        }
        std::hint::spin_loop();
    }
    wait_idle(ctx)?;
    Ok(None)
}

/// Waits until the device has done all the work submitted to it.
#[cfg(not(target_arch = "wasm32"))]
fn wait_idle(ctx: &GpuContext) -> Result<(), GpuError> {
    ctx.device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .map(drop)
        .map_err(|e| GpuError::DeviceLost(e.to_string()))
}

/// The error of a read-back whose callback was dropped unsent (its device went away).
fn dropped() -> GpuError {
    GpuError::DeviceLost("the read-back was dropped".into())
}
