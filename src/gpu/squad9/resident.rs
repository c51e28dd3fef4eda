//! The squads kernel already running when a puzzle comes (natively, Vulkan only): a run of its `serve` entry
//! point waits on the GPU, squad 0 watching memory the host has mapped, so that a puzzle costs the host a few
//! writes and reads over PCIe instead of a submission (some 55 µs through wgpu and Vulkan, docs/benchmarks.md).
//!
//! A run answers request after request (on lavapipe one, then the host puts the next run on the queue). It
//! leaves after about a tenth of a second without a request (the GPU spins at full clock while it waits, so not
//! for longer), and when other work is submitted on the device (it is parked first, [`GpuContext::submit`]):
//! the next puzzle then finds no run waiting and puts one on the queue itself, paying a submission. Its squads
//! meet between searches, so all of them must be on the GPU at once: [`ResidentSquads::new`] refuses integrated
//! GPUs.
//!
//! WebGPU cannot map a buffer a kernel uses, so the memory comes from Vulkan directly (`ash`, through
//! `wgpu::hal`): device-local and host-visible where the GPU has such memory (the PCIe window: the kernel polls
//! it at the speed of its own memory), else host memory the GPU can see.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering, fence};

use ash::vk;
use web_time::{Duration, Instant};

use super::{
    Exchange, FULL_WORD, Lane9Result, STATE_BYTES, SquadParams, buffer, compile, encode_search,
    sizes,
};
use crate::gpu::lanes::FLAG_OVERFLOW;
use crate::gpu::pipeline::{Binding, bind_buffers};
use crate::gpu::sudoku_fork::ForkStats;
use crate::gpu::{GpuContext, GpuError};

/// Words of `link` (`link`'s layout is the shader's: see `shaders/squads_serve.wgsl`).
const LINK_WORDS: usize = super::LINK_BYTES as usize / 4;
const ASKED: usize = 0;
const ANSWERED: usize = 32;
const PARK: usize = 64;
const EXPIRED: usize = 96;
const PUZZLE_IN: usize = 128;
const ANSWER_TICKET: usize = 160;
const ANSWER_OUT: usize = 192;
/// The answer's words: count, overflow, guesses, boards handed over, then the first solution's value planes.
const ANSWER_WORDS: usize = 16;
/// Looks for a request a waiting run makes on a GPU before it leaves unasked: 90–120 ms on an H200, where a look
/// (two loads and the backoff) takes under a microsecond. A puzzle that finds a run waiting costs between a third
/// and an eighth of one that finds none after a pause, which pays a submission to a GPU that has begun to clock
/// down; the waiting GPU draws some 50 W more than an idle one (docs/benchmarks.md, "The slowest puzzles for the
/// best of three solvers on one core, and runs that wait a tenth of a second").
const GPU_WAIT: u32 = 150_000;
/// The same on a software adapter, well within lavapipe's loop budget.
const SOFTWARE_WAIT: u32 = 4_000;
/// Requests a run answers on a software adapter before it ends (on a GPU, as many as come while it waits):
/// lavapipe stops an invocation's loops after 65,535 iterations in all, and a run's squads wait in loops between
/// requests.
const SOFTWARE_REQUESTS: u32 = 1;
/// How long a puzzle may take before the host gives up on the run (a 9×9 search takes well under a
/// millisecond on a GPU, and lavapipe's loop budget ends a run within seconds).
const PATIENCE: Duration = Duration::from_secs(20);

/// The mapped memory the host and a run share, and the host's side of parking.
struct LinkMemory {
    /// Kept so that the Vulkan device outlives the memory (and to wait on it before the memory goes).
    device: wgpu::Device,
    raw: ash::Device,
    memory: vk::DeviceMemory,
    words: *mut u32,
    /// The highest ticket parked (the host's copy of `PARK`).
    parked: AtomicU32,
}

// SAFETY: `words` points into a mapping that lives as long as this value and is only read and written with
// volatile accesses of whole words (a running kernel reads and writes it too); `raw` and `memory` are handles.
unsafe impl Send for LinkMemory {}
unsafe impl Sync for LinkMemory {}

impl LinkMemory {
    /// Allocates, binds and maps the memory, and hands it to wgpu as a storage buffer.
    fn new(ctx: &GpuContext) -> Result<(Self, wgpu::Buffer), GpuError> {
        let size = (LINK_WORDS * 4) as u64;
        let failed = |what: &str, e: vk::Result| GpuError::Api(format!("{what}: {e}"));
        // SAFETY: the handles come from wgpu's own Vulkan device, which `device` keeps alive; the buffer is bound
        // to memory of its size before wgpu sees it; the memory is freed only when this value drops (after the
        // runs that use it have ended: `ResidentSquads::drop`).
        unsafe {
            let hal = ctx
                .device
                .as_hal::<wgpu::hal::api::Vulkan>()
                .ok_or_else(|| GpuError::Api("resident squads need a Vulkan device".into()))?;
            let raw = hal.raw_device().clone();
            let instance = hal.shared_instance().raw_instance();
            let types = instance.get_physical_device_memory_properties(hal.raw_physical_device());
            let vk_buffer = raw
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                )
                .map_err(|e| failed("a buffer for the resident squads", e))?;
            let needs = raw.get_buffer_memory_requirements(vk_buffer);
            let host =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let pick = |wanted: vk::MemoryPropertyFlags| {
                (0..types.memory_type_count).find(|&i| {
                    needs.memory_type_bits >> i & 1 == 1
                        && types.memory_types[i as usize]
                            .property_flags
                            .contains(wanted)
                })
            };
            // Device-local first: a kernel polls host memory through caches that need not see the host's writes
            // (the sixth session's probe never saw a second request there).
            let Some(index) =
                pick(host | vk::MemoryPropertyFlags::DEVICE_LOCAL).or_else(|| pick(host))
            else {
                raw.destroy_buffer(vk_buffer, None);
                return Err(GpuError::Api(
                    "no host-visible memory for the resident squads".into(),
                ));
            };
            let memory = match raw.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(needs.size)
                    .memory_type_index(index),
                None,
            ) {
                Ok(memory) => memory,
                Err(e) => {
                    raw.destroy_buffer(vk_buffer, None);
                    return Err(failed("memory for the resident squads", e));
                }
            };
            let mapped = raw
                .bind_buffer_memory(vk_buffer, memory, 0)
                .and_then(|()| raw.map_memory(memory, 0, size, vk::MemoryMapFlags::empty()));
            let words = match mapped {
                Ok(words) => words.cast::<u32>(),
                Err(e) => {
                    raw.destroy_buffer(vk_buffer, None);
                    raw.free_memory(memory, None);
                    return Err(failed("mapping the resident squads' memory", e));
                }
            };
            for i in 0..LINK_WORDS {
                words.add(i).write_volatile(0);
            }
            drop(hal);
            let buffer = ctx.device.create_buffer_from_hal::<wgpu::hal::api::Vulkan>(
                wgpu::hal::vulkan::Buffer::from_raw(vk_buffer),
                &wgpu::BufferDescriptor {
                    label: Some("squads link"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                },
            );
            let link = Self {
                device: ctx.device.clone(),
                raw,
                memory,
                words,
                parked: AtomicU32::new(0),
            };
            Ok((link, buffer))
        }
    }

    fn write(&self, at: usize, value: u32) {
        assert!(at < LINK_WORDS);
        // SAFETY: inside the mapping (checked above); volatile because a running kernel reads it.
        unsafe { self.words.add(at).write_volatile(value) }
    }

    fn read(&self, at: usize) -> u32 {
        assert!(at < LINK_WORDS);
        // SAFETY: as in `write`; volatile because a running kernel writes it.
        unsafe { self.words.add(at).read_volatile() }
    }

    /// Words `at..at + 16`, in 16-byte reads where the CPU has them: in device memory every read is a round
    /// trip over PCIe, and a volatile read of an array is made one read a word (measured: 25 µs for 27 words,
    /// docs/benchmarks.md).
    fn block(&self, at: usize) -> [u32; ANSWER_WORDS] {
        assert!(at.is_multiple_of(4) && at + ANSWER_WORDS <= LINK_WORDS);
        let mut words = [0u32; ANSWER_WORDS];
        #[cfg(target_arch = "x86_64")]
        for (i, four) in words.chunks_exact_mut(4).enumerate() {
            use std::arch::x86_64::__m128i;
            // SAFETY: inside the mapping (checked above) and 16-byte aligned (`at` is a multiple of 4 words and
            // Vulkan aligns a mapping to at least 64 bytes); volatile because a running kernel writes them.
            let v = unsafe { self.words.add(at + 4 * i).cast::<__m128i>().read_volatile() };
            // SAFETY: any 16 bytes are four u32.
            four.copy_from_slice(&unsafe { std::mem::transmute::<__m128i, [u32; 4]>(v) });
        }
        #[cfg(not(target_arch = "x86_64"))]
        for (i, word) in words.iter_mut().enumerate() {
            *word = self.read(at + i);
        }
        words
    }

    /// Makes the run with `ticket` (and every earlier one) leave if it is still waiting.
    fn park(&self, ticket: u32) {
        self.parked.fetch_max(ticket, Ordering::AcqRel);
        self.write(PARK, self.parked.load(Ordering::Acquire));
    }
}

impl Drop for LinkMemory {
    fn drop(&mut self) {
        // SAFETY: the memory was allocated and mapped by `new` on this device, and no run uses it any more (see
        // `ResidentSquads::drop`; a parking left with the context only writes a word, before this drop).
        unsafe {
            self.raw.unmap_memory(self.memory);
            self.raw.free_memory(self.memory, None);
        }
    }
}

/// The squads kernel kept waiting on the GPU for the next puzzle (see the module's comment).
pub struct ResidentSquads {
    pipeline: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    state: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// Declared after the buffers, so that wgpu has them before the memory goes.
    link: Arc<LinkMemory>,
    squads: u32,
    budget: u32,
    backoff: u32,
    /// Requests a run answers at most (see [`SOFTWARE_REQUESTS`]).
    requests: u32,
    /// Looks for a request before a run leaves unasked ([`GPU_WAIT`], [`SOFTWARE_WAIT`]).
    wait: u32,
    /// The last run put on the queue, and the limit it searches to.
    ticket: u32,
    limit: u32,
    /// Whether that run may still be waiting for a request.
    waiting: bool,
    /// The last request made.
    asked: u32,
}

impl ResidentSquads {
    /// Compiles `serve` with `exchange` and allocates the shared memory; an error where the device is not Vulkan,
    /// has no memory the host can map, or is not a discrete GPU (or lavapipe). `squads` of 0 picks the adapter's number. Nothing runs until the first
    /// puzzle.
    pub async fn new(ctx: &GpuContext, exchange: Exchange, squads: u32) -> Result<Self, GpuError> {
        use Binding::{Read, ReadWrite, Uniform};
        // A discrete GPU holds 128 squads at once many times over; a small integrated one might not, and squads
        // waiting at the meeting for one that never started would hang the run.
        let kind = ctx.info.device_type;
        if !matches!(kind, wgpu::DeviceType::DiscreteGpu | wgpu::DeviceType::Cpu) {
            return Err(GpuError::Api(format!(
                "resident squads run on discrete GPUs and lavapipe, not on {kind:?}"
            )));
        }
        let (mut squads, budget, backoff) = sizes(ctx, squads);
        if kind == wgpu::DeviceType::Cpu {
            // lavapipe runs a dispatch's workgroups on a thread per core: squads beyond them would wait for a
            // thread while the others wait at the meeting for them.
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
            squads = squads.min(cores);
        }
        let (pipeline, layout) = compile(
            ctx,
            exchange,
            "serve",
            &[Uniform, Read, ReadWrite, ReadWrite],
        )
        .await?;
        let (link, link_buffer) = LinkMemory::new(ctx)?;
        use wgpu::BufferUsages as U;
        let params = buffer(
            ctx,
            "resident squads params",
            size_of::<SquadParams>() as u64,
            U::UNIFORM | U::COPY_DST,
        );
        // `serve` reads no puzzle from here, but the bindings are the one-shot kernel's and `link`.
        let unused = buffer(ctx, "resident squads puzzle", 48, U::STORAGE);
        let state = buffer(
            ctx,
            "resident squads state",
            STATE_BYTES,
            U::STORAGE | U::COPY_DST,
        );
        let bind_group = bind_buffers(
            ctx,
            "sudoku_squads9 serve",
            &layout,
            &[&params, &unused, &state, &link_buffer],
        );
        Ok(Self {
            pipeline,
            params,
            state,
            bind_group,
            link: Arc::new(link),
            squads,
            budget,
            backoff,
            requests: if kind == wgpu::DeviceType::Cpu {
                SOFTWARE_REQUESTS
            } else {
                u32::MAX
            },
            wait: if kind == wgpu::DeviceType::Cpu {
                SOFTWARE_WAIT
            } else {
                GPU_WAIT
            },
            ticket: 0,
            limit: 0,
            waiting: false,
            asked: 0,
        })
    }

    /// Squads in a run.
    pub fn squads(&self) -> u32 {
        self.squads
    }

    /// Searches the puzzle of value planes `planes`, counting up to `limit` solutions, as
    /// [`super::Squad9Kernel::solve`] does, through the run waiting on the GPU (one is put on the queue first if
    /// none is, or if it searches to another limit). The run then waits for the next puzzle; on lavapipe, where a
    /// run answers one request, the next run is put on the queue instead.
    pub fn solve(
        &mut self,
        ctx: &GpuContext,
        planes: &[u32; 12],
        limit: u64,
    ) -> Result<(Lane9Result, ForkStats), GpuError> {
        let started = Instant::now();
        let limit = limit.clamp(1, u64::from(FULL_WORD)) as u32;
        let parked = self.link.parked.load(Ordering::Acquire) >= self.ticket;
        let expired = self.waiting && self.link.read(EXPIRED) == self.ticket;
        if !self.waiting || parked || expired || self.limit != limit {
            self.launch(ctx, limit);
        }
        self.asked = self.asked.wrapping_add(1).max(1);
        let asked = self.asked;
        let mark = (asked % 31 + 1) << 27;
        for (i, &plane) in planes.iter().enumerate() {
            self.link.write(PUZZLE_IN + i, plane | mark);
        }
        // The puzzle before the request's number (the words may sit in write-combining buffers until a fence).
        fence(Ordering::SeqCst);
        self.link.write(ASKED, asked);
        let upload_seconds = started.elapsed().as_secs_f64();
        let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
        let mut looks = 0u64;
        let answer = loop {
            looks += 1;
            if self.link.read(ANSWERED) == asked {
                fence(Ordering::SeqCst);
                let words = self.link.block(ANSWER_OUT);
                if words.iter().all(|&w| w >> 27 == mark >> 27) {
                    break (words, self.link.read(ANSWER_TICKET));
                }
                continue;
            }
            // The run left unasked (waited too long, or parked by other work): put another on the queue, which
            // finds the request waiting.
            let parked = self.link.parked.load(Ordering::Acquire) >= self.ticket;
            if self.link.read(EXPIRED) == self.ticket || parked {
                self.launch(ctx, limit);
            }
            if looks.is_multiple_of(4096) {
                ctx.device
                    .poll(wgpu::PollType::Poll)
                    .map_err(|e| GpuError::DeviceLost(e.to_string()))?;
                ctx.check()?;
                if started.elapsed() > PATIENCE {
                    return Err(GpuError::Api(format!(
                        "the resident squads did not answer request {asked} within {} s (answered {}, \
                         run {} expired {}, parked {})",
                        PATIENCE.as_secs(),
                        self.link.read(ANSWERED),
                        self.ticket,
                        self.link.read(EXPIRED),
                        self.link.parked.load(Ordering::Acquire),
                    )));
                }
            }
            if software {
                // lavapipe runs the kernel on this machine's cores.
                std::thread::yield_now();
            }
        };
        let (words, by) = answer;
        let field = |w: u32| w & FULL_WORD;
        let overflow = field(words[1]) != 0;
        let result = Lane9Result {
            count: field(words[0]),
            flags: 1 | if overflow { FLAG_OVERFLOW } else { 0 },
            live: 0,
            started: 2,
            planes: std::array::from_fn(|i| field(words[4 + i])),
        };
        let stats = ForkStats {
            rounds: 1,
            submissions: 0,
            forks: u64::from(field(words[3])),
            guesses: u64::from(field(words[2])),
            overflowed: u64::from(overflow),
            slots: self.squads * 32,
            upload_seconds,
            search_seconds: started.elapsed().as_secs_f64() - upload_seconds,
            ..ForkStats::default()
        };
        // A run that has answered its last request has ended: the next waits for the next puzzle (unless one is on
        // the queue after it already).
        if by == self.ticket && self.requests == 1 {
            self.waiting = false;
            ctx.forget_parking(self.owner());
            self.launch(ctx, limit);
        }
        Ok((result, stats))
    }

    /// Puts a run on the queue: the state cleared, then `serve` on every squad.
    fn launch(&mut self, ctx: &GpuContext, limit: u32) {
        self.ticket += 1;
        self.limit = limit;
        let params = SquadParams {
            squads: self.squads,
            limit,
            budget: self.budget,
            backoff: self.backoff,
            ticket: self.ticket,
            wait: self.wait,
            requests: self.requests,
            pad: 0,
        };
        ctx.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        let encoder = encode_search(
            ctx,
            &self.pipeline,
            &self.bind_group,
            &self.state,
            self.squads,
        );
        let link = Arc::clone(&self.link);
        let ticket = self.ticket;
        ctx.submit_waiting(
            encoder.finish(),
            self.owner(),
            Box::new(move || link.park(ticket)),
        );
        self.waiting = true;
    }

    /// What tells this kernel's runs from another's in the context's parking.
    fn owner(&self) -> usize {
        Arc::as_ptr(&self.link) as usize
    }

    /// Makes a waiting run leave and waits until the device has finished it: after this the GPU's queue is
    /// free, and the shared memory unused.
    pub fn park(&mut self, ctx: &GpuContext) {
        if self.waiting {
            self.link.park(self.ticket);
            ctx.forget_parking(self.owner());
            self.waiting = false;
        }
        let _ = ctx.device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        });
    }
}

impl Drop for ResidentSquads {
    fn drop(&mut self) {
        // A run still waiting leaves, and the device finishes it before the memory it reads can go (a parking
        // left with the context holds the memory too, until it is used or dropped).
        self.link.park(self.ticket);
        let _ = self.link.device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_is_laid_out_as_the_shader_has_it() {
        let shader = include_str!("../../../shaders/squads_serve.wgsl");
        for (name, value) in [
            ("ASKED", ASKED),
            ("ANSWERED", ANSWERED),
            ("PARK", PARK),
            ("EXPIRED", EXPIRED),
            ("PUZZLE_IN", PUZZLE_IN),
            ("ANSWER_TICKET", ANSWER_TICKET),
            ("ANSWER_OUT", ANSWER_OUT),
        ] {
            assert!(
                shader.contains(&format!("const {name}: u32 = {value}u;")),
                "{name} is {value} in the shader"
            );
        }
    }

    // The answer's header and planes in whole 16-byte pieces, inside the link; the puzzle's words below the
    // answer's ticket.
    const _: () = assert!(ANSWER_WORDS == 4 + 12);
    const _: () = assert!(ANSWER_OUT.is_multiple_of(4) && ANSWER_OUT + ANSWER_WORDS <= LINK_WORDS);
    const _: () = assert!(PUZZLE_IN + 12 <= ANSWER_TICKET);
}
