//! Host side of `shaders/sudoku_squads9.wgsl`: one 9×9 puzzle searched by many squads of 32 invocations at once,
//! each squad a board, branches handed to idle squads inside one dispatch. It answers a batch of one puzzle
//! (`NineKernel::Auto`), where the lane kernels' runs and rounds would wait on the host.
//!
//! A squad shares its board's words by subgroup shuffles where the adapter's subgroups are exactly 32 wide
//! (`shaders/squads_subgroup.wgsl`), else through workgroup memory ([`Exchange::Shared`]), which every adapter
//! has and lavapipe tests. [`Squad9Kernel`] makes one submission a puzzle: its value planes written, the state
//! cleared, one dispatch, a copy of the control words and the solution, read back. Natively, [`resident`] keeps
//! a run of the same kernel waiting on the GPU for the next puzzle instead.

use std::sync::Mutex;

use bytemuck::{Pod, Zeroable};
use web_time::Instant;

use super::lane9::Lane9Result;
use super::lanes::FLAG_OVERFLOW;
use super::pipeline::{Binding, PipelineMaker, bind_buffers, buffer_layout, trusted_module};
use super::sudoku_fork::ForkStats;
use super::{GpuContext, GpuError, readback};

/// Squads in a dispatch at most (`MOST_SQUADS` in the shader: the outboxes are laid out for this many).
pub const MOST_SQUADS: u32 = 128;
/// A band word's 27 cells (`FULL`); the five bits above carry tags.
#[cfg(not(target_arch = "wasm32"))]
const FULL_WORD: u32 = 0x7ff_ffff;
/// Slots in a squad's outbox (`RING`).
const RING: u32 = 16;
/// Where the shader keeps what the host reads (`state` words): the control words, each on a line of 32.
const COUNT: usize = 96;
const GUESSES: usize = 128;
const HANDED: usize = 192;
const OVERFLOW: usize = 224;
/// The first solution's 27 `f` words (`SOLUTION`).
const SOLUTION: usize = 256;
/// The outboxes' counts (`OUTBOX`), three lines a squad, then the slots (`SLOTS`), 64 words each.
const OUTBOX: u32 = 512;
const SLOTS: u32 = OUTBOX + 96 * MOST_SQUADS;
/// Bytes of `state`: control words, outbox counts and every squad's slots.
const STATE_BYTES: u64 = 4 * (SLOTS as u64 + 64 * (MOST_SQUADS * RING) as u64);
/// Bytes of the memory a resident run shares with the host (`link` in the shader).
const LINK_BYTES: u64 = 1024;
/// Bytes read back after a search: the control words and the solution.
const READ_BYTES: u64 = 4 * (SOLUTION as u64 + 32);
/// Loop iterations an invocation may run on a software adapter: lavapipe stops an invocation's loops after
/// 65,535 in all (as `super::lanes` keeps its runs below), and a search past this goes to the CPU.
const SOFTWARE_BUDGET: u32 = 40_000;
/// Steps of an idle squad's wait between looks at the outboxes, on a GPU: 128 squads polling without a pause
/// slowed the squads that search (docs/benchmarks.md, "One puzzle searched by many warps").
const BACKOFF: u32 = 64;
/// Squads on a software adapter: one per core lavapipe is likely to have, so that hand-overs are exercised
/// without idle squads spending the loop budget of the one that searches.
const SOFTWARE_SQUADS: u32 = 2;

#[cfg(not(target_arch = "wasm32"))]
pub mod resident;

/// How a squad's invocations share values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exchange {
    /// Subgroup shuffles and reductions: the adapter's subgroups are exactly 32 wide.
    Subgroup,
    /// Workgroup memory and barriers: any adapter.
    Shared,
}

impl Exchange {
    /// Subgroups where the device has them 32 wide, else workgroup memory.
    pub fn best(ctx: &GpuContext) -> Self {
        let wide = ctx.info.subgroup_min_size == 32 && ctx.info.subgroup_max_size == 32;
        if wide && ctx.device.features().contains(wgpu::Features::SUBGROUP) {
            Self::Subgroup
        } else {
            Self::Shared
        }
    }
}

/// Twin of `Params` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
struct SquadParams {
    squads: u32,
    limit: u32,
    budget: u32,
    backoff: u32,
    /// `serve` only: the run's number, its looks for a request, and the requests it answers at most.
    ticket: u32,
    wait: u32,
    requests: u32,
    pad: u32,
}

/// Squads, loop budget and backoff for `ctx`'s adapter (`squads` of 0: the adapter's number).
fn sizes(ctx: &GpuContext, squads: u32) -> (u32, u32, u32) {
    let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
    let squads = match squads {
        0 if software => SOFTWARE_SQUADS,
        0 => MOST_SQUADS,
        n => n.min(MOST_SQUADS),
    };
    if software {
        (squads, SOFTWARE_BUDGET, 0)
    } else {
        (squads, u32::MAX, BACKOFF)
    }
}

/// The kernel's entry point `entry` over buffers bound as `bindings`, with `exchange`'s prelude.
async fn compile(
    ctx: &GpuContext,
    exchange: Exchange,
    entry: &str,
    bindings: &[Binding],
) -> Result<(wgpu::ComputePipeline, wgpu::BindGroupLayout), GpuError> {
    let prelude = match exchange {
        Exchange::Subgroup => include_str!("../../shaders/squads_subgroup.wgsl"),
        Exchange::Shared => include_str!("../../shaders/squads_shared.wgsl"),
    };
    let source = wgpu::ShaderModuleDescriptor {
        label: Some("sudoku_squads9"),
        source: wgpu::ShaderSource::Wgsl(
            [
                prelude,
                include_str!("../../shaders/sudoku_squads9.wgsl"),
                include_str!("../../shaders/squads_serve.wgsl"),
            ]
            .concat()
            .into(),
        ),
    };
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    // SAFETY: every index the shader makes is in bounds by construction: a squad's invocation indexes are below
    // 32 (the workgroup size) and its stack frames below DEPTH (checked before each push); squad indexes are
    // below `params.squads`, which the host keeps at most MOST_SQUADS, the squads `state` is sized for
    // (STATE_BYTES); slots are `index % RING` of a squad's ring, the solution's words below 27, `link`'s below
    // its 256 (`LINK_BYTES`). Loops end: every loop but a sweep's fixed ones counts its iterations
    // against `params.budget` or `params.wait`, and a squad leaves once the search has stopped, which it does
    // when no board is left (`WORK`). Natively the checks wgpu would inject around each access cost time on
    // every sweep.
    let module = unsafe { trusted_module(ctx, source) };
    let layout = buffer_layout(ctx, "sudoku_squads9", bindings);
    let pipeline = PipelineMaker::new(ctx, "sudoku_squads9", &layout).pipeline(&module, entry);
    if let Some(error) = scope.pop().await {
        return Err(GpuError::Api(format!(
            "the squads kernel did not compile: {error}"
        )));
    }
    Ok((pipeline, layout))
}

/// A buffer of `size` bytes for `usage`.
/// A search's commands: `state` cleared (a slot's tag is its index modulo 31, which an earlier search's slot
/// may share), then `pipeline` on `squads` squads.
fn encode_search(
    ctx: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    state: &wgpu::Buffer,
    squads: u32,
) -> wgpu::CommandEncoder {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encoder.clear_buffer(state, 0, None);
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.dispatch_workgroups(squads, 1, 1);
    }
    encoder
}

fn buffer(ctx: &GpuContext, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// A search's buffers (one set, reused: taken out while a search runs).
struct SquadBuffers {
    params: wgpu::Buffer,
    puzzle: wgpu::Buffer,
    state: wgpu::Buffer,
    read: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// What `params` holds, so that it is written only when it changes.
    written: Option<SquadParams>,
}

/// The compiled kernel and its buffers.
pub struct Squad9Kernel {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    exchange: Exchange,
    squads: u32,
    budget: u32,
    backoff: u32,
    cache: Mutex<Option<SquadBuffers>>,
}

impl Squad9Kernel {
    /// Compiles the kernel with `exchange` (see [`Exchange::best`]); validation errors come back as
    /// [`GpuError::Api`]. `squads` of 0 picks the adapter's number.
    pub async fn new(ctx: &GpuContext, exchange: Exchange, squads: u32) -> Result<Self, GpuError> {
        use Binding::{Read, ReadWrite, Uniform};
        let (squads, budget, backoff) = sizes(ctx, squads);
        let (pipeline, layout) = compile(
            ctx,
            exchange,
            "main",
            &[Uniform, Read, ReadWrite, ReadWrite],
        )
        .await?;
        Ok(Self {
            pipeline,
            layout,
            exchange,
            squads,
            budget,
            backoff,
            cache: Mutex::new(None),
        })
    }

    /// How the squads share values.
    pub fn exchange(&self) -> Exchange {
        self.exchange
    }

    /// Squads in a dispatch.
    pub fn squads(&self) -> u32 {
        self.squads
    }

    /// Searches the puzzle of value planes `planes` (`crate::sudoku::bands::pack_values`), counting up to
    /// `limit` solutions; the result is the lane kernel's, so that callers read it the same way (its planes
    /// unchecked: the caller checks them). A search that outgrew the kernel comes back with the overflow flag.
    pub async fn solve(
        &self,
        ctx: &GpuContext,
        planes: &[u32; 12],
        limit: u64,
    ) -> Result<(Lane9Result, ForkStats), GpuError> {
        let started = Instant::now();
        let taken = self.cache.lock().unwrap_or_else(|p| p.into_inner()).take();
        let mut buffers = taken.unwrap_or_else(|| self.buffers(ctx));
        let params = SquadParams {
            squads: self.squads,
            limit: limit.clamp(1, u64::from(u32::MAX)) as u32,
            budget: self.budget,
            backoff: self.backoff,
            ..SquadParams::default()
        };
        if buffers.written != Some(params) {
            ctx.queue
                .write_buffer(&buffers.params, 0, bytemuck::bytes_of(&params));
            buffers.written = Some(params);
        }
        ctx.queue
            .write_buffer(&buffers.puzzle, 0, bytemuck::cast_slice(planes));
        let mut encoder = encode_search(
            ctx,
            &self.pipeline,
            &buffers.bind_group,
            &buffers.state,
            self.squads,
        );
        encoder.copy_buffer_to_buffer(&buffers.state, 0, &buffers.read, 0, READ_BYTES);
        let upload_seconds = started.elapsed().as_secs_f64();
        ctx.submit(encoder.finish());
        let words: Vec<u32> = readback::with_mapped(ctx, &buffers.read, |bytes| {
            bytemuck::cast_slice(bytes).to_vec()
        })
        .await?;
        *self.cache.lock().unwrap_or_else(|p| p.into_inner()) = Some(buffers);
        let result = result_of(&words);
        let stats = ForkStats {
            rounds: 1,
            submissions: 1,
            forks: u64::from(words[HANDED]),
            guesses: u64::from(words[GUESSES]),
            overflowed: u64::from(result.overflowed()),
            slots: self.squads * 32,
            upload_seconds,
            search_seconds: started.elapsed().as_secs_f64() - upload_seconds,
            ..ForkStats::default()
        };
        Ok((result, stats))
    }

    fn buffers(&self, ctx: &GpuContext) -> SquadBuffers {
        use wgpu::BufferUsages as U;
        let params = buffer(
            ctx,
            "squads params",
            size_of::<SquadParams>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        let puzzle = buffer(ctx, "squads puzzle", 48, U::STORAGE | U::COPY_DST);
        let state = buffer(
            ctx,
            "squads state",
            STATE_BYTES,
            U::STORAGE | U::COPY_SRC | U::COPY_DST,
        );
        let read = buffer(
            ctx,
            "squads read-back",
            READ_BYTES,
            U::MAP_READ | U::COPY_DST,
        );
        // `main` never writes an answer there (`serving` is 0), but shares `search` with the resident
        // `serve`, which does: the binding must be there.
        let link = buffer(ctx, "squads link (unused)", LINK_BYTES, U::STORAGE);
        let bind_group = bind_buffers(
            ctx,
            "sudoku_squads9",
            &self.layout,
            &[&params, &puzzle, &state, &link],
        );
        SquadBuffers {
            params,
            puzzle,
            state,
            read,
            bind_group,
            written: None,
        }
    }
}

/// The lane kernel's result for a search's control words and solution.
fn result_of(words: &[u32]) -> Lane9Result {
    let solution: &[u32; 27] = words[SOLUTION..SOLUTION + 27].try_into().expect("27 words");
    lane_result(words[COUNT], words[OVERFLOW] != 0, solution)
}

/// The lane kernel's result for a count, whether the search overflowed, and the first solution's words (digit
/// d's cells in band b at 3d + b).
fn lane_result(count: u32, overflow: bool, solution: &[u32; 27]) -> Lane9Result {
    let mut planes = [0u32; 12];
    if count > 0 {
        // Word 3d + b is digit d's cells in band b; plane 3k + b is bit k of band b's values.
        for (l, &cells) in solution.iter().enumerate() {
            let (digit, band) = (l as u32 / 3 + 1, l % 3);
            for k in 0..4 {
                if digit >> k & 1 == 1 {
                    planes[3 * k + band] |= cells;
                }
            }
        }
    }
    Lane9Result {
        count,
        flags: 1 | if overflow { FLAG_OVERFLOW } else { 0 },
        live: 0,
        started: 2,
        planes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHADER: &str = include_str!("../../shaders/sudoku_squads9.wgsl");

    #[test]
    fn the_layout_is_the_shaders() {
        assert_eq!(size_of::<SquadParams>(), 32);
        for (name, value) in [
            ("MOST_SQUADS", MOST_SQUADS as usize),
            ("RING", RING as usize),
            ("COUNT", COUNT),
            ("GUESSES", GUESSES),
            ("HANDED", HANDED),
            ("OVERFLOW", OVERFLOW),
            ("SOLUTION", SOLUTION),
            ("OUTBOX", OUTBOX as usize),
        ] {
            assert!(
                SHADER.contains(&format!("const {name}: u32 = {value}u;")),
                "{name} is {value} in the shader"
            );
        }
        assert!(SHADER.contains("const SLOTS: u32 = OUTBOX + 96u * MOST_SQUADS;"));
        assert_eq!(SLOTS, 512 + 96 * 128);
    }

    #[test]
    fn a_solution_comes_back_as_value_planes() {
        let values: [u8; 81] =
            *b"534678912672195348198342567859761423426853791713924856961537284287419635345286179";
        let values = values.map(|c| c - b'0');
        let mut words = vec![0u32; READ_BYTES as usize / 4];
        words[COUNT] = 1;
        for (i, &v) in values.iter().enumerate() {
            let (r, c) = (i / 9, i % 9);
            words[SOLUTION + 3 * (v as usize - 1) + r / 3] |= 1 << (9 * (r % 3) + c);
        }
        let result = result_of(&words);
        assert_eq!(result.solution(), Some(values));
        assert!(!result.overflowed());
    }
}
