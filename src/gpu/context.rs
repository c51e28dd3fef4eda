//! Getting a GPU: adapter, device and queue, with errors captured instead of panicking.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::GpuError;

/// A GPU device ready for compute work, and what it is.
pub struct GpuContext {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter's name, backend and type.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was created with (the adapter's own, not the defaults).
    pub limits: wgpu::Limits,
    /// The first error wgpu reported outside an error scope (validation, out of memory, device loss).
    errors: Arc<Mutex<Option<String>>>,
    /// Fault injection: submissions left before the device is destroyed (`u64::MAX`: never).
    submissions_left: AtomicU64,
    /// How to make a run of a resident kernel that waits on the queue leave, so that other work is not queued
    /// behind it (see [`Self::submit`]).
    parking: Mutex<Option<(usize, Park)>>,
}

/// Makes a waiting resident run leave at once (`super::squad9::resident`).
pub(crate) type Park = Box<dyn FnOnce() + Send>;

impl GpuContext {
    /// Requests a high-performance adapter and a device with the adapter's full limits.
    pub async fn new() -> Result<Self, GpuError> {
        Self::on(Self::preferred_adapter().await?).await
    }

    /// The adapter [`GpuContext::new`] opens, not opened yet: telling what it is (its `get_info`) costs a few
    /// milliseconds, opening it and compiling kernels on it a few hundred.
    pub async fn preferred_adapter() -> Result<wgpu::Adapter, GpuError> {
        new_instance()
            .await
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::NoAdapter(e.to_string()))
    }

    /// [`GpuContext::preferred_adapter`], blocking (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn preferred_adapter_blocking() -> Result<wgpu::Adapter, GpuError> {
        pollster::block_on(Self::preferred_adapter())
    }

    /// A device on `adapter` (one of [`GpuContext::preferred_adapter`] or [`GpuContext::adapters`]), blocking
    /// (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn on_blocking(adapter: wgpu::Adapter) -> Result<Self, GpuError> {
        pollster::block_on(Self::on(adapter))
    }

    /// The host's GPU adapters as `--gpus` numbers them: the hardware ones in the driver's order, or every
    /// adapter (a software one such as lavapipe) where there is no hardware one (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn adapters() -> Vec<wgpu::Adapter> {
        let instance = pollster::block_on(new_instance());
        let all = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
        let hardware: Vec<wgpu::Adapter> = all
            .iter()
            .filter(|a| a.get_info().device_type != wgpu::DeviceType::Cpu)
            .cloned()
            .collect();
        if hardware.is_empty() { all } else { hardware }
    }

    /// A device on adapter `index` of [`GpuContext::adapters`] (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn on_adapter_blocking(index: usize) -> Result<Self, GpuError> {
        let adapters = Self::adapters();
        let count = adapters.len();
        let adapter = adapters.into_iter().nth(index).ok_or_else(|| {
            GpuError::NoAdapter(format!(
                "there is no GPU {index}: this host has {count} (numbered from 0)"
            ))
        })?;
        Self::on_blocking(adapter)
    }

    /// A device with `adapter`'s full limits.
    async fn on(adapter: wgpu::Adapter) -> Result<Self, GpuError> {
        let info = adapter.get_info();
        let limits = adapter.limits();
        // Subgroups where the adapter has them, natively: the squads kernel shuffles a board's words through
        // them (`super::squad9`). The page asks for none: there the kernel shares through workgroup memory, the
        // form the browser tests check (on SwiftShader).
        #[cfg(not(target_arch = "wasm32"))]
        let required_features = adapter.features() & wgpu::Features::SUBGROUP;
        #[cfg(target_arch = "wasm32")]
        let required_features = wgpu::Features::empty();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("forkboard"),
                required_features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::Device(e.to_string()))?;
        let errors = Arc::new(Mutex::new(None));
        let sink = Arc::clone(&errors);
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| error.to_string());
        }));
        let lost = Arc::clone(&errors);
        device.set_device_lost_callback(move |reason, message| {
            let mut slot = lost.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| match message.as_str() {
                "" => format!("device lost ({reason:?})"),
                _ => format!("device lost ({reason:?}): {message}"),
            });
        });
        Ok(Self {
            device,
            queue,
            info,
            limits,
            errors,
            submissions_left: AtomicU64::new(u64::MAX),
            parking: Mutex::new(None),
        })
    }

    /// Submits recorded work. Every kernel submits through here, so [`Self::lose_device_after`] can count, and
    /// a resident run waiting on the queue for a puzzle is parked first: work put behind it would wait until it
    /// gave up.
    pub fn submit(&self, commands: wgpu::CommandBuffer) {
        self.park();
        self.submit_counted(commands);
    }

    /// Makes the resident run waiting on the queue, if any, leave.
    pub(crate) fn park(&self) {
        let park = self
            .parking
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some((_, park)) = park {
            park();
        }
    }

    /// Submits a resident run that will wait on the queue, with `park` to make it leave: as [`Self::submit`]
    /// but for the parking. `owner` tells one resident kernel's runs from another's.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn submit_waiting(&self, commands: wgpu::CommandBuffer, owner: usize, park: Park) {
        self.park();
        self.submit_counted(commands);
        *self.parking.lock().unwrap_or_else(|p| p.into_inner()) = Some((owner, park));
    }

    /// Whether a resident run was left on the queue to wait for work and nothing has made it leave since, as far
    /// as the host knows (it may have given up waiting by itself): the state a lone puzzle finds cheapest.
    pub fn has_waiting_run(&self) -> bool {
        self.parking
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// Takes back `owner`'s parking, if it is the one kept, once its run has ended by itself.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn forget_parking(&self, owner: usize) {
        let mut parking = self.parking.lock().unwrap_or_else(|p| p.into_inner());
        if parking.as_ref().is_some_and(|(kept, _)| *kept == owner) {
            parking.take();
        }
    }

    fn submit_counted(&self, commands: wgpu::CommandBuffer) {
        self.queue.submit([commands]);
        let left = self
            .submissions_left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n != u64::MAX).then(|| n.saturating_sub(1))
            });
        if left == Ok(1) {
            self.device.destroy();
        }
    }

    /// Fault injection for tests: destroys the device once `submissions` more have been made (the last one may
    /// or may not run), as a driver reset or a browser reclaiming the GPU would, so that the fallbacks can be
    /// proven on any adapter. The CLI's hidden `--lose-gpu-after` and the web app's `forkboard.fault` setting
    /// reach it.
    pub fn lose_device_after(&self, submissions: u64) {
        self.submissions_left
            .store(submissions.max(1), Ordering::Relaxed);
    }

    /// [`GpuContext::new`], blocking (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking() -> Result<Self, GpuError> {
        pollster::block_on(Self::new())
    }

    /// "adapter name (backend)", for people.
    pub fn describe(&self) -> String {
        describe_adapter(&self.info)
    }

    /// The first asynchronous error reported so far, as a [`GpuError`].
    pub fn check(&self) -> Result<(), GpuError> {
        let slot = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        match slot.as_ref() {
            None => Ok(()),
            Some(message) if message.contains("lost") => Err(GpuError::DeviceLost(message.clone())),
            Some(message) => Err(GpuError::Api(message.clone())),
        }
    }
}

impl Drop for GpuContext {
    /// A resident run left waiting on the queue leaves first: the queue's teardown waits for the device to be
    /// idle, which such a run would keep it from being until it gave up waiting (90–120 ms on an H200; a process
    /// that answered one puzzle on the GPU ended that much later, docs/benchmarks.md).
    fn drop(&mut self) {
        self.park();
    }
}

#[cfg(not(target_arch = "wasm32"))]
async fn new_instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

#[cfg(target_arch = "wasm32")]
async fn new_instance() -> wgpu::Instance {
    wgpu::util::new_instance_with_webgpu_detection(
        wgpu::InstanceDescriptor::new_without_display_handle(),
    )
    .await
}

/// "adapter name (backend)", for people: [`GpuContext::describe`] before a device is opened.
pub fn describe_adapter(info: &wgpu::AdapterInfo) -> String {
    format!("{} ({:?})", info.name, info.backend)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn a_run_left_waiting_is_parked_before_the_context_goes() {
        let ctx = GpuContext::new_blocking().expect("a GPU adapter");
        let parked = Arc::new(AtomicBool::new(false));
        let raise = Arc::clone(&parked);
        let commands = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
            .finish();
        ctx.submit_waiting(
            commands,
            1,
            Box::new(move || raise.store(true, Ordering::Relaxed)),
        );
        assert!(ctx.has_waiting_run());
        drop(ctx);
        assert!(parked.load(Ordering::Relaxed));
    }
}
