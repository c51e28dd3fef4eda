//! What every kernel sets up the same way: a bind group layout of buffers, compute pipelines over it, and bind
//! groups of whole buffers. Each kernel's own file keeps only what is its own (bindings, entry points, sizes).

use super::{GpuContext, GpuError};

/// How a kernel binds one buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Binding {
    /// A uniform buffer (the kernel's parameters).
    Uniform,
    /// A storage buffer the kernel only reads.
    Read,
    /// A storage buffer the kernel reads and writes.
    ReadWrite,
}

/// A bind group layout whose binding `i` is a buffer bound as `bindings[i]`, seen by compute shaders.
pub(crate) fn buffer_layout(
    ctx: &GpuContext,
    label: &str,
    bindings: &[Binding],
) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .enumerate()
        .map(|(i, binding)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match binding {
                    Binding::Uniform => wgpu::BufferBindingType::Uniform,
                    Binding::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Binding::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    ctx.device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &entries,
        })
}

/// Makes compute pipelines that share one bind group layout (group 0).
pub(crate) struct PipelineMaker<'a> {
    ctx: &'a GpuContext,
    layout: wgpu::PipelineLayout,
}

impl<'a> PipelineMaker<'a> {
    /// Pipelines over `layout` as bind group 0.
    pub(crate) fn new(ctx: &'a GpuContext, label: &str, layout: &wgpu::BindGroupLayout) -> Self {
        let layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            });
        Self { ctx, layout }
    }

    /// The pipeline of `module`'s entry point `entry`, labelled with the entry point's name.
    pub(crate) fn pipeline(
        &self,
        module: &wgpu::ShaderModule,
        entry: &str,
    ) -> wgpu::ComputePipeline {
        self.ctx
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: Some(&self.layout),
                module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
    }
}

/// A job that makes a pipeline, for [`made_at_once`]: sent to a thread of its own natively.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type PipelineJob<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;
/// A job that makes a pipeline, for [`made_at_once`] (on the web wgpu's handles stay on their thread).
#[cfg(target_arch = "wasm32")]
pub(crate) type PipelineJob<'a, T> = Box<dyn FnOnce() -> T + 'a>;

/// Runs every job of `jobs` and returns what each made, in order.
///
/// Natively each runs on a thread of its own, at the same time. A driver compiles a pipeline on the thread
/// that asks for it, and the large kernels take hundreds of milliseconds each with its shader cache cold (a
/// first run, a new build): the 9×9 kernel's five pipelines took 1.1–1.2 s one after another on an H200,
/// and made together they take about as long as the largest (docs/benchmarks.md, "Kernels compiled at once,
/// and the kernel for other shapes only when needed"). Error scopes are per thread in wgpu, so each job runs
/// in one of its own, and the first validation error comes back as its text. On the web the jobs run in
/// turn, and their errors go to the caller's scope.
fn made_at_once<'a, T: wgpu::WasmNotSend + 'a>(
    ctx: &GpuContext,
    jobs: Vec<PipelineJob<'a, T>>,
) -> Result<Vec<T>, String> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::scope(|threads| {
            let running: Vec<_> = jobs
                .into_iter()
                .map(|job| {
                    threads.spawn(move || {
                        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
                        let made = job();
                        match pollster::block_on(scope.pop()) {
                            Some(error) => Err(error.to_string()),
                            None => Ok(made),
                        }
                    })
                })
                .collect();
            running
                .into_iter()
                .map(|thread| {
                    thread
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        let _ = ctx;
        Ok(jobs.into_iter().map(|job| job()).collect())
    }
}

/// [`made_at_once`], then the caller's error scope (`scope`, around the module and the layout) closed: what the
/// jobs made, in order, or the first validation error of any, as [`GpuError::Api`] saying that `what` did not
/// compile.
pub(crate) async fn made_and_checked<'a, T: wgpu::WasmNotSend + 'a>(
    ctx: &GpuContext,
    scope: wgpu::ErrorScopeGuard,
    what: &str,
    jobs: Vec<PipelineJob<'a, T>>,
) -> Result<std::vec::IntoIter<T>, GpuError> {
    let made = made_at_once(ctx, jobs);
    let error = scope.pop().await.map(|e| e.to_string());
    match (made, error) {
        (Ok(made), None) => Ok(made.into_iter()),
        (Err(error), _) | (_, Some(error)) => {
            Err(GpuError::Api(format!("{what} did not compile: {error}")))
        }
    }
}

/// Runs `a` and `b` at the same time, `b` on a thread of its own: two kernels made at once (why:
/// [`made_at_once`]). Native only; on the web kernels are made in turn.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn both<A, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B) {
    std::thread::scope(|threads| {
        let b = threads.spawn(b);
        let a = a();
        let b = b
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (a, b)
    })
}

/// A bind group of whole buffers for a layout made by [`buffer_layout`]: binding `i` is `buffers[i]`.
pub(crate) fn bind_buffers(
    ctx: &GpuContext,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    let resources: Vec<wgpu::BindingResource> =
        buffers.iter().map(|b| b.as_entire_binding()).collect();
    bind_resources(ctx, label, layout, &resources)
}

/// A bind group for a layout made by [`buffer_layout`] whose binding `i` is `resources[i]` (a buffer's range
/// where two bindings share a buffer).
pub(crate) fn bind_resources(
    ctx: &GpuContext,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    resources: &[wgpu::BindingResource],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = resources
        .iter()
        .enumerate()
        .map(|(i, resource)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: resource.clone(),
        })
        .collect();
    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}

/// A shader module compiled without the bounds checks and loop counters wgpu injects (natively; a browser
/// checks every shader whatever it is asked).
///
/// # Safety
/// Every index the shader makes must be in bounds and every loop must end, for every input the host gives it:
/// each caller says why at its call.
pub(crate) unsafe fn trusted_module(
    ctx: &GpuContext,
    source: wgpu::ShaderModuleDescriptor,
) -> wgpu::ShaderModule {
    #[cfg(not(target_arch = "wasm32"))]
    {
        // SAFETY: passed on to the caller (above).
        unsafe {
            ctx.device
                .create_shader_module_trusted(source, wgpu::ShaderRuntimeChecks::unchecked())
        }
    }
    #[cfg(target_arch = "wasm32")]
    ctx.device.create_shader_module(source)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// Two entry points of one small module, over one read-write buffer.
    fn module(ctx: &GpuContext) -> wgpu::ShaderModule {
        ctx.device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("made at once"),
                source: wgpu::ShaderSource::Wgsl(
                    "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
                     @compute @workgroup_size(1) fn one() { out[0] = 1u; }
                     @compute @workgroup_size(1) fn two() { out[0] = 2u; }"
                        .into(),
                ),
            })
    }

    /// Makes the pipelines of `entries` at once, as the kernels do.
    fn made(ctx: &GpuContext, entries: &[&'static str]) -> Result<Vec<String>, GpuError> {
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = module(ctx);
        let layout = buffer_layout(ctx, "made at once", &[Binding::ReadWrite]);
        let maker = PipelineMaker::new(ctx, "made at once", &layout);
        let jobs = entries
            .iter()
            .map(|&entry| -> PipelineJob<(String, wgpu::ComputePipeline)> {
                let (maker, module) = (&maker, &module);
                Box::new(move || (entry.to_string(), maker.pipeline(module, entry)))
            })
            .collect();
        let made = pollster::block_on(made_and_checked(ctx, scope, "the test kernel", jobs))?;
        Ok(made.map(|(entry, _)| entry).collect())
    }

    #[test]
    fn pipelines_made_at_once_come_back_in_order() {
        let ctx = GpuContext::new_blocking().expect("a GPU adapter");
        let entries = ["two", "one", "two", "one"];
        assert_eq!(made(&ctx, &entries).expect("they compile"), entries);
    }

    #[test]
    fn an_entry_point_that_does_not_compile_is_an_error_naming_the_kernel() {
        let ctx = GpuContext::new_blocking().expect("a GPU adapter");
        // The error arises on a thread of its own, whose error scope must catch it (wgpu's are per thread).
        let error = made(&ctx, &["one", "three"]).expect_err("there is no `three`");
        assert!(
            matches!(&error, GpuError::Api(text) if text.starts_with("the test kernel did not compile")),
            "{error}"
        );
        // Nothing leaked past the scopes to the device's own error sink.
        ctx.check().expect("no error outside the scopes");
    }
}
