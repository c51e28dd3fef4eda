//! A lane batch's buffers: the plan's (parameters, lanes, frames), the batch's (puzzles, state and its
//! read-backs), and the uploads that fill them.

use super::plan::Plan;
use super::{CONTROL_BYTES, COPY_ALONG_BYTES, LaneControl, LaneParams, RESULTS_AT};
use crate::gpu::{GpuContext, GpuError};

/// Batches of up to this many upload runs (48 KiB each) are packed on the calling thread: on the H100 machine
/// waking rayon's idle threads cost 0.3–0.6 ms, where one core packs a thousand 25×25 puzzles (628 KB) in 0.2.
#[cfg(not(target_arch = "wasm32"))]
const SERIAL_UPLOAD_RUNS: usize = 16;

/// The first `result_bytes` of results in a state buffer's read-back.
pub(super) fn results_of(bytes: &[u8], result_bytes: u64) -> &[u32] {
    bytemuck::cast_slice(&bytes[RESULTS_AT as usize..(RESULTS_AT + result_bytes) as usize])
}

/// The control block at the head of a state buffer's read-back.
pub(super) fn control_of(bytes: &[u8]) -> LaneControl {
    bytemuck::pod_read_unaligned(&bytes[..CONTROL_BYTES as usize])
}

/// Packs `puzzles` into the start of `buffer`, `words` each. Each write goes through a staging buffer of its
/// own, so natively every core packs a run of puzzles into a small buffer (it stays in cache) and writes that
/// into its run's staging memory: the batch is read once and its words written once. A batch of at most
/// `SERIAL_UPLOAD_RUNS` runs is packed on this thread alone (in the browser, every batch).
pub(super) fn upload(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    count: usize,
    words: usize,
    pack: &(impl Fn(usize, &mut [u32]) + Sync),
) -> Result<(), GpuError> {
    // Runs of about 48 KiB: 4,096 9×9 puzzles, 313 25×25 ones.
    let run_len = (12 * 4096 / words.max(1)).clamp(64, 4096);
    let write = |run: usize| {
        let first = run * run_len;
        let len = run_len.min(count - first);
        let mut packed = vec![0u32; len * words];
        for (k, to) in packed.chunks_exact_mut(words).enumerate() {
            pack(first + k, to);
        }
        let size = wgpu::BufferSize::new((packed.len() * 4) as u64).expect("a run is never empty");
        let mut view = ctx
            .queue
            .write_buffer_with(buffer, (first * words * 4) as u64, size)
            .ok_or_else(|| GpuError::Api("the puzzles could not be staged for the GPU".into()))?;
        view.slice(..)
            .copy_from_slice(bytemuck::cast_slice(&packed));
        Ok(())
    };
    let runs = count.div_ceil(run_len);
    #[cfg(not(target_arch = "wasm32"))]
    if runs > SERIAL_UPLOAD_RUNS {
        use rayon::prelude::*;
        return (0..runs).into_par_iter().try_for_each(write);
    }
    (0..runs).try_for_each(write)
}

/// Copies `parts` (`words` in all) into the start of `buffer`, one after another, through one staging buffer.
/// (Staging each part on its own costs more: the measured file path spent as long dropping 32 staging views a
/// chunk, each taking the queue's locks, as copying.)
pub(super) fn upload_parts(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    parts: &[&[u32]],
    words: usize,
) -> Result<(), GpuError> {
    let size = wgpu::BufferSize::new((words * 4) as u64).expect("a batch is never empty");
    let mut view = ctx
        .queue
        .write_buffer_with(buffer, 0, size)
        .ok_or_else(|| GpuError::Api("the puzzles could not be staged for the GPU".into()))?;
    let mut at = 0;
    for part in parts {
        let bytes: &[u8] = bytemuck::cast_slice(part);
        view.slice(at..at + bytes.len()).copy_from_slice(bytes);
        at += bytes.len();
    }
    Ok(())
}

/// A batch's buffers and their bind group, kept by the kernel for the next batch.
pub(super) struct Buffers {
    pub(super) lanes: LaneBuffers,
    pub(super) batch: BatchBuffers,
    pub(super) bind_group: wgpu::BindGroup,
}

/// A buffer of `size` bytes for `usage`, named `label` in the API's messages.
pub(super) fn new_buffer(
    ctx: &GpuContext,
    label: &str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// The buffers of a plan, whatever the batch: parameters, the lanes' states and their frames (stacks, pool,
/// parking: most of the memory).
pub(super) struct LaneBuffers {
    pub(super) plan: Plan,
    pub(super) params: wgpu::Buffer,
    pub(super) lanes: wgpu::Buffer,
    pub(super) frames: wgpu::Buffer,
}

impl LaneBuffers {
    pub(super) fn new(ctx: &GpuContext, label: &str, plan: Plan) -> Self {
        use wgpu::BufferUsages as Use;
        Self {
            plan,
            params: new_buffer(
                ctx,
                &format!("{label} params"),
                size_of::<LaneParams>() as u64,
                Use::UNIFORM | Use::COPY_DST,
            ),
            lanes: new_buffer(
                ctx,
                &format!("{label} lanes"),
                u64::from(plan.lanes) * 16,
                Use::STORAGE | Use::COPY_DST,
            ),
            frames: new_buffer(
                ctx,
                &format!("{label} frames"),
                plan.frame_bytes(),
                Use::STORAGE,
            ),
        }
    }
}

/// The buffers sized by the batch: its puzzles, and its state (the control block, then from `RESULTS_AT` the
/// results) with its read-backs.
pub(super) struct BatchBuffers {
    pub(super) puzzles: wgpu::Buffer,
    pub(super) state: wgpu::Buffer,
    pub(super) state_read: wgpu::Buffer,
    /// The state after the first part of a small batch's first submission (results of at most
    /// `COPY_ALONG_BYTES`).
    pub(super) state_early_read: wgpu::Buffer,
}

impl BatchBuffers {
    pub(super) fn new(ctx: &GpuContext, label: &str, puzzle_bytes: u64, result_bytes: u64) -> Self {
        use wgpu::BufferUsages as Use;
        Self {
            puzzles: new_buffer(
                ctx,
                &format!("{label} puzzles"),
                puzzle_bytes,
                Use::STORAGE | Use::COPY_DST,
            ),
            state: new_buffer(
                ctx,
                &format!("{label} state"),
                RESULTS_AT + result_bytes,
                Use::STORAGE | Use::COPY_DST | Use::COPY_SRC,
            ),
            state_read: new_buffer(
                ctx,
                &format!("{label} state read"),
                RESULTS_AT + result_bytes,
                Use::MAP_READ | Use::COPY_DST,
            ),
            state_early_read: new_buffer(
                ctx,
                &format!("{label} state early read"),
                RESULTS_AT + result_bytes.min(COPY_ALONG_BYTES),
                Use::MAP_READ | Use::COPY_DST,
            ),
        }
    }

    /// Bytes of results the state buffer holds.
    pub(super) fn result_room(&self) -> u64 {
        self.state.size() - RESULTS_AT
    }
}
