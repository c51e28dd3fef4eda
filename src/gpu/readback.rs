//! Reading a buffer back: awaited through a oneshot channel, never by spinning (a browser would freeze).

use super::{GpuContext, GpuError};

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
    let (tx, rx) = futures_channel::oneshot::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |result| {
        let _ = tx.send(result);
    });
    // Natively nothing drives the callbacks but a poll; in the browser the event loop does.
    #[cfg(not(target_arch = "wasm32"))]
    ctx.device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        })
        .map_err(|e| GpuError::DeviceLost(e.to_string()))?;
    let mapped = rx
        .await
        .map_err(|_| GpuError::DeviceLost("the read-back was dropped".into()))?;
    ctx.check()?;
    mapped.map_err(|e| GpuError::Api(format!("read-back failed: {e}")))?;
    let value = {
        let view = buffer
            .get_mapped_range(..)
            .map_err(|e| GpuError::Api(format!("read-back failed: {e}")))?;
        use_bytes(&view)
    };
    buffer.unmap();
    Ok(value)
}
