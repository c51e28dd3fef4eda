//! A probe for the one-hard-puzzle bar (docs/benchmarks.md, "One puzzle searched by many warps"): one 9×9 puzzle
//! searched by W warps that share branches (`examples/warp_probe.wgsl`), beside the CPU engine on one thread. No
//! part of Forkboard uses it.
//!
//! - `cargo run --release --example warp_probe -- FILE LINE[,LINE…] WARPS[,WARPS…] REPS`: each puzzle solved `REPS`
//!   times in one dispatch, the time a solve takes read without a submission's.
//! - `… -- FILE LINE[,LINE…] WARPS TRIALS resident|resident-host`: one dispatch that stays running; the host
//!   writes each puzzle into device memory it has mapped and reads the answer back from device memory
//!   (`resident`) or from host memory the kernel writes (`resident-host`), `TRIALS` times a puzzle, each timed
//!   from the first write to the answer in hand.
//! - `… -- FILE model [LINE,…]`: the kernel's search on the CPU instead, one warp depth first, over every puzzle
//!   of FILE: whether every answer is right, the guesses and sweeps it takes, and how many sweeps lie on the
//!   path to the solution (what a search shared by unboundedly many warps would wait for).
//!
//! The GPU modes need subgroups 32 wide (lavapipe's are 8), Vulkan (the resident modes map memory with it
//! directly, as WebGPU cannot), at most 128 warps, and puzzles with a solution; `WARP_PROBE_WGSL=PATH` runs a
//! variant of the shader.
use forkboard::sudoku::format::{ReadOptions, Reader};
use forkboard::sudoku::{Grid, Solver};
use std::time::Instant;

/// The slots buffer's 64-word slots: the warps' outboxes (64 slots each), then their counts at word 2^24.
const SLOTS: u64 = 1 << 19;
/// The control words the host reads (each on a cache line of its own: word 32k is number k).
const GUESSES: usize = 192;
const PUSHED: usize = 256;
const SWEEPS: usize = 288;
const OUT: usize = 512;

/// A board as the kernel's 27 lanes hold it: lane 3d + b has digit d's open (`w`) and placed (`f`) cells of band b.
type Lanes = [u32; 27];

/// The kernel's start: givens placed, every other cell open to every digit.
fn start_of(p: &Grid) -> (Lanes, Lanes) {
    let (mut w, mut f) = ([0u32; 27], [0u32; 27]);
    let mut given = [0u32; 3];
    for r in 0..9 {
        for c in 0..9 {
            let v = p.get(r, c) as usize;
            if v != 0 {
                let bit = 1 << (9 * (r % 3) + c);
                given[r / 3] |= bit;
                f[(v - 1) * 3 + r / 3] |= bit;
            }
        }
    }
    for (l, (w, f)) in w.iter_mut().zip(&f).enumerate() {
        *w = (0x7ff_ffff & !given[l % 3]) | f;
    }
    (w, f)
}

/// Whether the placed words `f` spell `expect`.
fn spells(f: &Lanes, expect: &Grid) -> bool {
    f.iter().enumerate().all(|(l, &word)| {
        let (d, b) = (l / 3, l % 3);
        word.count_ones() == 3
            && (0..27)
                .filter(|bit| word >> bit & 1 == 1)
                .all(|bit| expect.get(b * 3 + bit / 9, bit % 9) as usize == d + 1)
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "FILE LINE[,LINE…] WARPS[,WARPS…] REPS, or FILE model";
    let bytes = std::fs::read(args.get(1).expect(usage)).expect("a readable file");
    let puzzles: Vec<Grid> = Reader::new(&bytes[..], ReadOptions::default())
        .map(|r| r.puzzle.expect("a puzzle on every line"))
        .collect();
    let numbers = |i: usize| -> Vec<u32> {
        let arg = args.get(i).expect(usage);
        arg.split(',').map(|x| x.parse().expect(usage)).collect()
    };
    if args.get(2).map(String::as_str) == Some("model") {
        model_all(
            &puzzles,
            &if args.len() > 3 {
                numbers(3)
            } else {
                Vec::new()
            },
        );
        return;
    }
    let (lines, warps, reps) = (numbers(2), numbers(3), numbers(4)[0]);
    let probe = Probe::new();
    let mode = args.get(5).map(String::as_str);
    if let Some(mode @ ("resident" | "resident-host")) = mode {
        probe.resident(&puzzles, &lines, warps[0], reps, mode == "resident-host");
    } else {
        probe.run(&puzzles, &lines, &warps, reps.max(2));
    }
}

/// The CPU engine on `p`, one thread: its solution, its median µs over 3,000 solves, and its guesses.
fn cpu_engine(p: &Grid) -> (Grid, f64, u64) {
    let mut solver = Solver::new();
    let outcome = solver.solve(p, 1);
    let mut times: Vec<f64> = (0..3000)
        .map(|_| {
            let started = Instant::now();
            solver.solve(p, 1);
            started.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let solution = outcome.solution.expect("a solvable puzzle");
    (solution, times[times.len() / 2], outcome.guesses)
}

/// The kernel's search on the CPU over `puzzles`, one warp depth first: the totals, then `lines` (or the ten
/// puzzles that take the most sweeps).
fn model_all(puzzles: &[Grid], lines: &[u32]) {
    let mut solver = Solver::new();
    let mut wrong = 0;
    let runs: Vec<model::Run> = puzzles
        .iter()
        .map(|p| {
            let (w, f) = start_of(p);
            let run = model::solve(w, f);
            let expect = solver.solve(p, 1).solution;
            if run
                .solution
                .zip(expect)
                .is_none_or(|(s, e)| !spells(&s, &e))
            {
                wrong += 1;
            }
            run
        })
        .collect();
    let n = puzzles.len() as f64;
    let total = |of: fn(&model::Run) -> u64| runs.iter().map(of).sum::<u64>() as f64 / n;
    println!(
        "{} puzzles, {wrong} wrong; {:.1} guesses, {:.1} sweeps a puzzle; on the solution's path {:.1} sweeps",
        puzzles.len(),
        total(|r| r.guesses),
        total(|r| r.sweeps),
        total(|r| r.path.0)
    );
    let mut shown: Vec<usize> = lines.iter().map(|&l| l as usize - 1).collect();
    if shown.is_empty() {
        shown = (0..runs.len()).collect();
        shown.sort_by_key(|&i| std::cmp::Reverse(runs[i].sweeps));
        shown.truncate(10);
    }
    for i in shown {
        let run = &runs[i];
        println!(
            "line {}: {} guesses, {} sweeps; on the solution's path {} sweeps, {} of its branches handed on",
            i + 1,
            run.guesses,
            run.sweeps,
            run.path.0,
            run.path.1
        );
    }
}

/// The kernel and its buffers.
struct Probe {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: wgpu::ComputePipeline,
    bind: wgpu::BindGroup,
    params: wgpu::Buffer,
    start: wgpu::Buffer,
    slots: wgpu::Buffer,
    ctl: wgpu::Buffer,
    out: wgpu::Buffer,
    back: wgpu::Buffer,
    link: Link,
    answer: Link,
}

/// Memory the host has mapped and the kernel uses as a storage buffer (the shader's `link` and `answer`):
/// device-local where asked for and the GPU offers such memory to the host (through its PCIe window), else host
/// memory.
struct Link {
    buffer: wgpu::Buffer,
    words: *mut u32,
    device_local: bool,
}

impl Link {
    const WORDS: u64 = 256;

    /// Allocates and maps the memory with Vulkan directly (WebGPU cannot map a buffer a kernel uses) and hands it
    /// to wgpu as a buffer.
    fn new(device: &wgpu::Device, on_device: bool) -> Self {
        use ash::vk;
        let size = Self::WORDS * 4;
        // SAFETY: the handles come from wgpu's own Vulkan device and stay alive with it; the buffer is bound to
        // memory of its size before wgpu sees it, and the mapping lasts as long as the process (the probe never
        // frees either).
        unsafe {
            let hal = device
                .as_hal::<wgpu::hal::api::Vulkan>()
                .expect("a Vulkan device");
            let raw = hal.raw_device();
            let instance = hal.shared_instance().raw_instance();
            let types = instance.get_physical_device_memory_properties(hal.raw_physical_device());
            let buffer = raw
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE),
                    None,
                )
                .expect("a Vulkan buffer");
            let needs = raw.get_buffer_memory_requirements(buffer);
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
            let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
            let device_local = if on_device { pick(host | local) } else { None };
            let in_host = (0..types.memory_type_count).find(|&i| {
                let flags = types.memory_types[i as usize].property_flags;
                needs.memory_type_bits >> i & 1 == 1
                    && flags.contains(host)
                    && !flags.contains(local)
            });
            let index = device_local
                .or(in_host)
                .or_else(|| pick(host))
                .expect("host-visible memory");
            let memory = raw
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(needs.size)
                        .memory_type_index(index),
                    None,
                )
                .expect("memory for the link");
            raw.bind_buffer_memory(buffer, memory, 0).expect("bound");
            let words = raw
                .map_memory(memory, 0, size, vk::MemoryMapFlags::empty())
                .expect("mapped") as *mut u32;
            for i in 0..Self::WORDS as usize {
                words.add(i).write_volatile(0);
            }
            drop(hal);
            let buffer = device.create_buffer_from_hal::<wgpu::hal::api::Vulkan>(
                wgpu::hal::vulkan::Buffer::from_raw(buffer),
                &wgpu::BufferDescriptor {
                    label: Some("link"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                },
            );
            Self {
                buffer,
                words,
                device_local: device_local.is_some(),
            }
        }
    }

    fn write(&self, at: usize, value: u32) {
        assert!(at < Self::WORDS as usize);
        // SAFETY: in the mapping (checked above); volatile because the GPU reads it.
        unsafe { self.words.add(at).write_volatile(value) }
    }

    fn word(&self, at: usize) -> u32 {
        assert!(at < Self::WORDS as usize);
        // SAFETY: as in `write`; volatile because the GPU writes it.
        unsafe { self.words.add(at).read_volatile() }
    }

    /// Words `at..at + 27` (a solution), read 16 bytes at a time: a volatile read of the whole array is made 27
    /// four-byte reads, each a round trip over PCIe when the words are in device memory.
    fn block(&self, at: usize) -> [u32; 27] {
        use std::arch::x86_64::__m128i;
        assert!(at.is_multiple_of(4) && at + 28 <= Self::WORDS as usize);
        let mut words = [0u32; 28];
        for (i, four) in words.chunks_exact_mut(4).enumerate() {
            // SAFETY: in the mapping (checked above), 16-byte aligned (`at` is a multiple of 4, and Vulkan aligns a
            // mapping to at least 64 bytes); volatile because the GPU writes them.
            let v: __m128i =
                unsafe { self.words.add(at + 4 * i).cast::<__m128i>().read_volatile() };
            // SAFETY: any 16 bytes are four u32.
            four.copy_from_slice(&unsafe { std::mem::transmute::<__m128i, [u32; 4]>(v) });
        }
        std::array::from_fn(|i| words[i])
    }
}

impl Probe {
    fn new() -> Self {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        }))
        .expect("a GPU");
        let info = adapter.get_info();
        assert!(
            info.subgroup_min_size == 32 && info.subgroup_max_size == 32,
            "{}: subgroups of {}..{} invocations; the probe needs 32",
            info.name,
            info.subgroup_min_size,
            info.subgroup_max_size
        );
        println!("{}", info.name);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: None,
            required_features: wgpu::Features::SUBGROUP,
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .expect("a device with subgroups");
        // SAFETY: the shader's indices are in range for the buffers below (lanes < 32, slots < SLOTS, stack levels
        // < 64). Its spin loops end once the solve is done and every warp has met; a bug there would hang the GPU
        // until the process is killed, so run the probe under `timeout`.
        let module = unsafe {
            device.create_shader_module_trusted(
                wgpu::ShaderModuleDescriptor {
                    label: None,
                    source: wgpu::ShaderSource::Wgsl(match std::env::var("WARP_PROBE_WGSL") {
                        Ok(path) => std::fs::read_to_string(path)
                            .expect("WARP_PROBE_WGSL readable")
                            .into(),
                        Err(_) => include_str!("warp_probe.wgsl").into(),
                    }),
                },
                wgpu::ShaderRuntimeChecks::unchecked(),
            )
        };
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        use wgpu::BufferUsages as U;
        let buffer = |size: u64, usage: U| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let params = buffer(16, U::UNIFORM | U::COPY_DST);
        let start = buffer(256, U::STORAGE | U::COPY_DST);
        let slots = buffer(SLOTS * 256, U::STORAGE | U::COPY_DST);
        let ctl = buffer(2048, U::STORAGE | U::COPY_DST | U::COPY_SRC);
        let out = buffer(128, U::STORAGE | U::COPY_SRC);
        let back = buffer(2048 + 128, U::MAP_READ | U::COPY_DST);
        let link = Link::new(&device, true);
        let answer = Link::new(&device, false);
        fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }
        }
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                entry(0, &params),
                entry(1, &start),
                entry(2, &slots),
                entry(3, &link.buffer),
                entry(4, &ctl),
                entry(5, &out),
                entry(6, &answer.buffer),
            ],
        });
        Self {
            device,
            queue,
            pipeline,
            bind,
            params,
            start,
            slots,
            ctl,
            out,
            back,
            link,
            answer,
        }
    }

    /// One dispatch solving the puzzle in `start` `reps` times with `warps` warps: its seconds, from submission
    /// to the read-back in hand, and the control words followed by the solution.
    fn dispatch(&self, warps: u32, reps: u32) -> (f64, Vec<u32>) {
        let started = Instant::now();
        self.submit(warps, reps, false);
        let words = self.finish();
        (started.elapsed().as_secs_f64(), words)
    }

    /// Submits a dispatch of `warps` warps: `reps` solves of `start`, or (`resident`) requests through the link
    /// until the host asks it to quit.
    fn submit(&self, warps: u32, reps: u32, resident: bool) {
        let q = &self.queue;
        q.write_buffer(
            &self.params,
            0,
            bytemuck::cast_slice(&[warps, reps, u32::from(resident), 0]),
        );
        let mut ctl = vec![0u32; 512];
        ctl[64] = warps - 1;
        q.write_buffer(&self.ctl, 0, bytemuck::cast_slice(&ctl));
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(&self.slots, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind, &[]);
            pass.dispatch_workgroups(warps, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&self.ctl, 0, &self.back, 0, 2048);
        encoder.copy_buffer_to_buffer(&self.out, 0, &self.back, 2048, 128);
        q.submit([encoder.finish()]);
    }

    /// Waits for the dispatch: the control words followed by the solution.
    fn finish(&self) -> Vec<u32> {
        self.back.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the dispatch ends");
        let words = bytemuck::cast_slice(&self.back.slice(..).get_mapped_range().unwrap()).to_vec();
        self.back.unmap();
        words
    }

    /// One puzzle at a time to a kernel that is already running: for each line, `trials` requests (the puzzle
    /// written into the link, then its number) each timed until the tagged solution is in the host's hands, read
    /// from host memory (`in_host`) or from device memory, beside the CPU engine's median on one thread.
    fn resident(&self, puzzles: &[Grid], lines: &[u32], warps: u32, trials: u32, in_host: bool) {
        let kind = |link: &Link| {
            if link.device_local {
                "device-local"
            } else {
                "host"
            }
        };
        println!(
            "requests in {} memory, answers read from {} memory; {warps} warps resident",
            kind(&self.link),
            kind(if in_host { &self.answer } else { &self.link })
        );
        println!("line | CPU engine µs (median) | resident: median µs | 10% | 90% | max | right");
        self.submit(warps, 0, true);
        let mut request = 0u32;
        for &line in lines {
            let p = &puzzles[line as usize - 1];
            let (expect, cpu, _) = cpu_engine(p);
            let (w, f) = start_of(p);
            let mut times = Vec::new();
            let mut right = true;
            for _ in 0..trials {
                request += 1;
                let mark = (request % 31 + 1) << 27;
                let started = Instant::now();
                for l in 0..27 {
                    self.link.write(32 + 2 * l, w[l]);
                    self.link.write(33 + 2 * l, f[l]);
                }
                // The puzzle reaches the GPU before its number (x86 orders the stores; the fence drains any
                // write-combining buffer of the mapping first).
                std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
                self.link.write(0, request);
                // From device memory each read is a round trip over PCIe (about a microsecond): watch one word
                // there, then read the block.
                if !in_host {
                    while self.link.word(128) & 0xf800_0000 != mark {
                        assert!(
                            started.elapsed().as_secs_f64() < 1.0,
                            "no answer in a second"
                        );
                    }
                }
                let solution = loop {
                    let block = if in_host {
                        self.answer.block(0)
                    } else {
                        self.link.block(128)
                    };
                    if block.iter().all(|word| word & 0xf800_0000 == mark) {
                        break block.map(|word| word & 0x7ff_ffff);
                    }
                    assert!(
                        started.elapsed().as_secs_f64() < 1.0,
                        "no answer in a second"
                    );
                };
                times.push(started.elapsed().as_secs_f64() * 1e6);
                right &= spells(&solution, &expect);
                // A pause before the next request, as between a user's puzzles: the warps meet after each
                // answer, and a warp deep in a branch notices only at its next guess.
                let pause = Instant::now();
                while pause.elapsed().as_secs_f64() < 200e-6 {}
            }
            times.sort_by(f64::total_cmp);
            let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
            println!(
                "{line} | {cpu:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {right}",
                at(0.5),
                at(0.1),
                at(0.9),
                at(1.0)
            );
        }
        self.link.write(1, 1);
        self.finish();
    }

    /// The table: for each line, the CPU engine's median time and, for each warp count, the time a solve takes
    /// on the GPU (the difference between dispatches of `reps` solves and of one, over `reps` − 1).
    fn run(&self, puzzles: &[Grid], lines: &[u32], warps: &[u32], reps: u32) {
        println!(
            "line | CPU engine µs (median) | its guesses | warps | µs a solve | a dispatch of one solve µs | \
             guesses a solve | pushed a solve | sweeps a warp a solve | right"
        );
        for &line in lines {
            let p = &puzzles[line as usize - 1];
            let (expect, cpu, cpu_guesses) = cpu_engine(p);
            let (w, f) = start_of(p);
            let start: Vec<[u32; 2]> = (0..32)
                .map(|l| if l < 27 { [w[l], f[l]] } else { [0, 0] })
                .collect();
            self.queue
                .write_buffer(&self.start, 0, bytemuck::cast_slice(&start));
            for &warps in warps {
                // Half a second of work first, so that the clocks are up (an idle H200 sits at 345 MHz).
                let started = Instant::now();
                while started.elapsed().as_secs_f64() < 0.5 {
                    self.dispatch(warps, reps);
                }
                let (mut one, mut many, mut words) = (Vec::new(), Vec::new(), Vec::new());
                for _ in 0..5 {
                    one.push(self.dispatch(warps, 1).0);
                    let (seconds, w) = self.dispatch(warps, reps);
                    many.push(seconds);
                    words = w;
                }
                one.sort_by(f64::total_cmp);
                many.sort_by(f64::total_cmp);
                let mut solution = [0u32; 27];
                solution.copy_from_slice(&words[OUT..OUT + 27]);
                let per = f64::from(reps);
                println!(
                    "{line} | {cpu:.1} | {cpu_guesses} | {warps} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {}",
                    (many[2] - one[2]) / (per - 1.0) * 1e6,
                    one[2] * 1e6,
                    f64::from(words[GUESSES]) / per,
                    f64::from(words[PUSHED]) / per,
                    f64::from(words[SWEEPS]) / per / f64::from(warps),
                    spells(&solution, &expect)
                );
            }
        }
    }
}

/// The kernel's search on the CPU: the same sweeps and guesses, one warp, depth first.
mod model {
    use super::Lanes;

    const FULL: u32 = 0x7ff_ffff;
    const BOX0: u32 = 0x1c_0e07;
    const ROW0: u32 = 0x1ff;

    fn fold(x: u32) -> u32 {
        (x | x >> 9 | x >> 18) & ROW0
    }

    fn spread(m: u32) -> u32 {
        m | m << 9 | m << 18
    }

    /// Columns with exactly one cell of a band word.
    fn one(x: u32) -> u32 {
        let (a, b, c) = (x & ROW0, (x >> 9) & ROW0, (x >> 18) & ROW0);
        (a ^ b ^ c) & !(a & b & c)
    }

    /// The units (rows, boxes, columns) of a band word that hold a cell of `f`.
    fn units_of(f: u32) -> u32 {
        (0..3).fold(spread(fold(f)), |p, i| {
            let (row, bx) = (ROW0 << (9 * i), BOX0 << (3 * i));
            p | if f & row != 0 { row } else { 0 } | if f & bx != 0 { bx } else { 0 }
        })
    }

    /// Whether a digit's placed cells in one band clash among themselves or with its other bands' (`others`).
    fn clashes(f: u32, others: u32) -> bool {
        fold(f).count_ones() != f.count_ones()
            || fold(f) & fold(others) != 0
            || (0..3).any(|i| {
                (f & (ROW0 << (9 * i))).count_ones() > 1 || (f & (BOX0 << (3 * i))).count_ones() > 1
            })
    }

    /// What a sweep found.
    #[derive(PartialEq)]
    enum Swept {
        Same,
        Changed,
        Dead,
    }

    /// One sweep of every lane, as `sweep` in the shader.
    fn sweep(w: &mut Lanes, f: &mut Lanes) -> Swept {
        let (w0, f0) = (*w, *f);
        let other_bands = |l: usize, words: &Lanes| {
            let (d, b) = (l / 3, l % 3);
            (words[d * 3 + (b + 1) % 3], words[d * 3 + (b + 2) % 3])
        };
        let mut dead = false;
        let mut x = [0u32; 27];
        for (l, x) in x.iter_mut().enumerate() {
            let (d, b) = (l / 3, l % 3);
            let taken = (0..9).filter(|&k| k != d).fold(0, |t, k| t | f0[k * 3 + b]);
            let (f1, f2) = other_bands(l, &f0);
            *x = w0[l] & !taken & !(units_of(f0[l]) & !f0[l]) & !spread(fold(f1 | f2));
            dead |= f0[l] & !*x != 0 || clashes(f0[l], f1 | f2);
        }
        let mut changed = false;
        for l in 0..27 {
            let b = l % 3;
            let (any, two) = (0..9).fold((0, 0), |(any, two), k| {
                let v = x[k * 3 + b];
                (any | v, two | (any & v))
            });
            let mine = x[l];
            dead |= any != FULL;
            let mut single = mine & !two;
            for i in 0..3 {
                for unit in [mine & (ROW0 << (9 * i)), mine & (BOX0 << (3 * i))] {
                    dead |= unit == 0;
                    if unit.count_ones() == 1 {
                        single |= unit;
                    }
                }
            }
            let (x1, x2) = other_bands(l, &x);
            dead |= (fold(mine) | fold(x1) | fold(x2)) != ROW0;
            single |= mine & spread(one(mine) & !fold(x1) & !fold(x2));
            let placed = single & !f0[l];
            changed |= placed != 0 || mine != w0[l];
            w[l] = mine;
            f[l] = f0[l] | placed;
        }
        match (dead, changed) {
            (true, _) => Swept::Dead,
            (false, true) => Swept::Changed,
            (false, false) => Swept::Same,
        }
    }

    /// A depth-first search's result.
    pub struct Run {
        /// The placed words of the first solution.
        pub solution: Option<Lanes>,
        /// Guesses made.
        pub guesses: u64,
        /// Sweeps made.
        pub sweeps: u64,
        /// Sweeps on the path from the start to the first solution, and how many of that path's branches were
        /// the ones a warp hands on (the second of each guess).
        pub path: (u64, u64),
    }

    /// The kernel's search, one warp, depth first: guesses on the row or box of a digit with the fewest places,
    /// the branch that places the digit first.
    pub fn solve(mut w: Lanes, mut f: Lanes) -> Run {
        let mut stack = Vec::new();
        let (mut guesses, mut sweeps) = (0, 0);
        let mut path = (0, 0);
        loop {
            let swept = loop {
                sweeps += 1;
                path.0 += 1;
                match sweep(&mut w, &mut f) {
                    Swept::Changed => {}
                    other => break other,
                }
            };
            if swept == Swept::Same && f.iter().all(|x| x.count_ones() == 3) {
                return Run {
                    solution: Some(f),
                    guesses,
                    sweeps,
                    path,
                };
            }
            if swept == Swept::Same {
                let mut key = u32::MAX;
                for (l, (&wl, &fl)) in (0u32..).zip(w.iter().zip(&f)) {
                    for i in 0..3 {
                        for (kind, unit) in [(0, ROW0 << (9 * i)), (4, BOX0 << (3 * i))] {
                            if wl & unit & fl == 0 && wl & unit != 0 {
                                key = key.min((wl & unit).count_ones() << 10 | l << 3 | kind | i);
                            }
                        }
                    }
                }
                let who = ((key >> 3) & 31) as usize;
                let i = key & 3;
                let unit = if key & 4 != 0 {
                    BOX0 << (3 * i)
                } else {
                    ROW0 << (9 * i)
                };
                let cells = w[who] & unit;
                let first = cells & cells.wrapping_neg();
                let mut other = w;
                other[who] &= !first;
                stack.push((other, f, (path.0, path.1 + 1)));
                f[who] |= first;
                guesses += 1;
                continue;
            }
            match stack.pop() {
                Some((other, placed, at)) => (w, f, path) = (other, placed, at),
                None => {
                    return Run {
                        solution: None,
                        guesses,
                        sweeps,
                        path,
                    };
                }
            }
        }
    }
}
