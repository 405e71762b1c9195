//! The Vulkan device (through wgpu) that compute tests run on.
//!
//! One [`Gpu`] is made per run; each test creates its shader module,
//! pipeline and buffers, dispatches once and reads the output buffers
//! back (`bench` dispatches several times and times each run,
//! [`Gpu::run_timed`]). Every wgpu error of a test is caught in error
//! scopes and returned as text: a broken shader fails its test, not the
//! run.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use super::directives::TextureDim;

/// How long one dispatch may take before the test fails.
const DISPATCH_TIMEOUT: Duration = Duration::from_secs(60);

/// The device and its queue.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)` and the like.
    pub description: String,
    /// Errors outside any error scope (should not happen; kept for the
    /// next test's report instead of wgpu's default panic).
    uncaptured: Arc<Mutex<Vec<String>>>,
    /// Why the device was lost (a driver fault), once it is: every later
    /// operation fails with a consequence ("Buffer is invalid"), so this is
    /// reported first.
    lost: Arc<Mutex<Option<String>>>,
}

/// What a buffer is bound as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BufferKind {
    Storage { read_only: bool },
    Uniform,
}

/// A buffer to bind at `(group, binding)` with initial contents.
#[derive(Debug, Clone)]
pub struct Binding {
    pub group: u32,
    pub binding: u32,
    pub kind: BufferKind,
    pub data: Vec<u8>,
    /// Read the contents back after the dispatch.
    pub read_back: bool,
}

/// A texture to bind at `(group, binding)`: read-only RGBA8, or writable
/// (a storage texture of format `storage`).
#[derive(Debug, Clone)]
pub struct TextureBinding {
    pub group: u32,
    pub binding: u32,
    pub dim: TextureDim,
    pub storage: Option<wgpu::TextureFormat>,
    /// Layers of a texture array (0: a single texture).
    pub layers: u32,
    /// Width of level 0 (and height, depth).
    pub size: u32,
    /// The texels of each mip level (faces one after the other for cubes).
    pub levels: Vec<Vec<u8>>,
}

/// One dispatch of a WGSL entry point.
pub struct Dispatch<'a> {
    pub wgsl: &'a str,
    pub entry: &'a str,
    pub bindings: &'a [Binding],
    pub textures: &'a [TextureBinding],
    /// `(group, binding)` of each sampler (linear filtering, wrapping, as
    /// Slang's runner's default sampler).
    pub samplers: &'a [(u32, u32)],
    /// Thread groups in x, y, z.
    pub groups: [u32; 3],
}

impl Gpu {
    /// The best Vulkan adapter (discrete, integrated, virtual, then CPU).
    /// `Err` says why there is none.
    pub fn new() -> Result<Gpu, String> {
        // Mesa's implicit device-selection layer only reorders devices (we
        // pick our own), costs half a second at start-up and complains
        // about XDG_RUNTIME_DIR on headless machines. Set before any
        // thread exists (the `test` subcommand starts none before this).
        if std::env::var_os("NODEVICE_SELECT").is_none() && std::env::var_os("MESA_VK_DEVICE_SELECT").is_none() {
            std::env::set_var("NODEVICE_SELECT", "1");
        }
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::VULKAN,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapters = block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let rank = |a: &wgpu::Adapter| match a.get_info().device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        let adapter = adapters.into_iter().min_by_key(rank).ok_or_else(|| {
            "no Vulkan adapter found (on a machine without a GPU, install lavapipe: \
             apt-get install mesa-vulkan-drivers libvulkan1)"
                .to_string()
        })?;
        let info = adapter.get_info();
        // Optional shader features, when the adapter has them.
        // (Read-write storage textures other than r32 need the adapter's
        // format features.)
        let wanted = wgpu::Features::SHADER_F64
            | wgpu::Features::SHADER_INT64
            | wgpu::Features::SHADER_F16
            | wgpu::Features::SHADER_FLOAT32_ATOMIC
            | wgpu::Features::SUBGROUP
            | wgpu::Features::SUBGROUP_BARRIER
            | wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES
            // (`bench`: GPU time of each dispatch.)
            | wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("slang-analyzer test"),
            required_features: adapter.features() & wanted,
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| format!("cannot open the Vulkan device `{}`: {e}", info.name))?;
        let uncaptured: Arc<Mutex<Vec<String>>> = Arc::default();
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| sink.lock().unwrap().push(e.to_string())));
        let lost: Arc<Mutex<Option<String>>> = Arc::default();
        let lost_sink = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            *lost_sink.lock().unwrap() = Some(format!("the Vulkan device was lost ({reason:?}): {message}"));
        });
        let description = format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type);
        Ok(Gpu { device, queue, description, uncaptured, lost })
    }

    /// A texture with its contents, and the view shaders read.
    fn texture(&self, t: &TextureBinding) -> wgpu::TextureView {
        let (height, layers, dimension) = match t.dim {
            TextureDim::D1 => (1, 1, wgpu::TextureDimension::D1),
            TextureDim::D2 => (t.size, t.layers.max(1), wgpu::TextureDimension::D2),
            TextureDim::D3 => (t.size, t.size, wgpu::TextureDimension::D3),
            TextureDim::Cube => (t.size, 6 * t.layers.max(1), wgpu::TextureDimension::D2),
        };
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d { width: t.size, height, depth_or_array_layers: layers },
            mip_level_count: t.levels.len() as u32,
            sample_count: 1,
            dimension,
            format: t.storage.unwrap_or(wgpu::TextureFormat::Rgba8Unorm),
            usage: match t.storage {
                Some(_) => wgpu::TextureUsages::STORAGE_BINDING,
                None => wgpu::TextureUsages::TEXTURE_BINDING,
            } | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let texel_bytes = t.storage.and_then(|f| f.block_copy_size(None)).unwrap_or(4);
        for (level, data) in t.levels.iter().enumerate() {
            let shrink = |n: u32| (n >> level).max(1);
            let (w, h) = (shrink(t.size), if t.dim == TextureDim::D1 { 1 } else { shrink(height) });
            let d = match t.dim {
                TextureDim::D3 => shrink(layers),
                _ => layers,
            };
            self.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: level as u32,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                data,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(texel_bytes * w),
                    rows_per_image: Some(h),
                },
                wgpu::Extent3d { width: w, height: h, depth_or_array_layers: d },
            );
        }
        texture.create_view(&wgpu::TextureViewDescriptor {
            dimension: Some(view_dimension(t.dim, t.layers)),
            ..Default::default()
        })
    }

    /// Run one dispatch; the contents of the `read_back` bindings, in
    /// order.
    pub fn run(&self, job: &Dispatch<'_>) -> Result<Vec<Vec<u8>>, String> {
        self.scoped(|| self.record_and_submit(job))
    }

    /// Whether the device was lost (a driver fault): nothing more can run
    /// on it; make a new [`Gpu`].
    pub fn is_lost(&self) -> bool {
        self.lost.lock().unwrap().is_some()
    }

    /// `work` inside validation and internal error scopes; its errors, the
    /// uncaptured ones and a device loss (first) become `Err`.
    fn scoped<T>(&self, work: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let result = work();
        let errors = [block_on(internal.pop()), block_on(validation.pop())];
        let mut messages: Vec<String> = self.lost.lock().unwrap().iter().cloned().collect();
        messages.extend(errors.into_iter().flatten().map(|e| error_text(&e)));
        messages.append(&mut self.uncaptured.lock().unwrap());
        if !messages.is_empty() {
            return Err(messages.join("; "));
        }
        result
    }

    fn record_and_submit(&self, job: &Dispatch<'_>) -> Result<Vec<Vec<u8>>, String> {
        let prepared = self.prepare(job);
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        encode_dispatch(&mut encoder, &prepared, job.groups, None);
        self.read_back(encoder, &prepared, job)
    }

    /// Run one dispatch `runs` times after a warm-up run, timing each:
    /// GPU time from timestamp queries when the device has them, else the
    /// wall-clock time from submission to completion. The `read_back`
    /// bindings' contents after the last run (the kernel must compute its
    /// outputs from its inputs only, so that every run writes the same).
    pub fn run_timed(&self, job: &Dispatch<'_>, runs: usize) -> Result<Timing, String> {
        self.scoped(|| self.time_dispatches(job, runs))
    }

    /// Whether dispatches are timed on the GPU (timestamp queries).
    pub fn has_timestamps(&self) -> bool {
        self.device.features().contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    fn time_dispatches(&self, job: &Dispatch<'_>, runs: usize) -> Result<Timing, String> {
        let device = &self.device;
        let prepared = self.prepare(job);
        let timestamps = self.has_timestamps();
        let query = timestamps.then(|| {
            device.create_query_set(&wgpu::QuerySetDescriptor { label: None, ty: wgpu::QueryType::Timestamp, count: 2 })
        });
        let resolved = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 2 * wgpu::QUERY_SIZE as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 2 * wgpu::QUERY_SIZE as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let period_ns = f64::from(self.queue.get_timestamp_period());
        let mut times_ms = Vec::with_capacity(runs);
        // (The first run warms up: pipeline creation, caches.)
        for run in 0..=runs {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
            let writes = query.as_ref().map(|q| wgpu::ComputePassTimestampWrites {
                query_set: q,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
            encode_dispatch(&mut encoder, &prepared, job.groups, writes);
            if let Some(q) = &query {
                encoder.resolve_query_set(q, 0..2, &resolved, 0);
                encoder.copy_buffer_to_buffer(&resolved, 0, &staging, 0, resolved.size());
            }
            let start = std::time::Instant::now();
            let submission = self.queue.submit([encoder.finish()]);
            let mapped: Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>> = Arc::default();
            if timestamps {
                let mapped = mapped.clone();
                staging.slice(..).map_async(wgpu::MapMode::Read, move |r| *mapped.lock().unwrap() = Some(r));
            }
            self.device
                .poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: Some(DISPATCH_TIMEOUT) })
                .map_err(|e| format!("waiting for the dispatch: {e}"))?;
            let wall_ms = start.elapsed().as_secs_f64() * 1e3;
            let ms = if timestamps {
                if let Some(Err(e)) = mapped.lock().unwrap().take() {
                    return Err(format!("reading the timestamps: {e}"));
                }
                let view = staging.slice(..).get_mapped_range().map_err(|e| format!("reading the timestamps: {e}"))?;
                let [t0, t1] = [0, 8].map(|at| u64::from_le_bytes(view[at..at + 8].try_into().unwrap_or_default()));
                drop(view);
                staging.unmap();
                t1.saturating_sub(t0) as f64 * period_ns / 1e6
            } else {
                wall_ms
            };
            if run > 0 {
                times_ms.push(ms);
            }
        }
        let encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        let outputs = self.read_back(encoder, &prepared, job)?;
        Ok(Timing { outputs, times_ms })
    }

    /// The shader, pipeline, buffers (with their initial contents) and
    /// bind groups of a dispatch.
    fn prepare(&self, job: &Dispatch<'_>) -> Prepared {
        let device = &self.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(job.wgsl.into()),
        });
        // Explicit layouts: every global is bound even when the entry
        // point does not use it, and empty groups fill the gaps.
        let groups = job
            .bindings
            .iter()
            .map(|b| b.group)
            .chain(job.textures.iter().map(|t| t.group))
            .chain(job.samplers.iter().map(|s| s.0))
            .map(|g| g + 1)
            .max()
            .unwrap_or(0);
        let entry = |binding: u32, ty: wgpu::BindingType| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty,
            count: None,
        };
        let layouts: Vec<wgpu::BindGroupLayout> = (0..groups)
            .map(|group| {
                let buffers = job.bindings.iter().filter(|b| b.group == group).map(|b| {
                    let ty = match b.kind {
                        BufferKind::Storage { read_only } => wgpu::BufferBindingType::Storage { read_only },
                        BufferKind::Uniform => wgpu::BufferBindingType::Uniform,
                    };
                    entry(
                        b.binding,
                        wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None },
                    )
                });
                let textures = job.textures.iter().filter(|t| t.group == group).map(|t| {
                    let ty = match t.storage {
                        Some(format) => wgpu::BindingType::StorageTexture {
                            access: wgpu::StorageTextureAccess::ReadWrite,
                            format,
                            view_dimension: view_dimension(t.dim, t.layers),
                        },
                        None => wgpu::BindingType::Texture {
                            sample_type: wgpu::TextureSampleType::Float { filterable: true },
                            view_dimension: view_dimension(t.dim, t.layers),
                            multisampled: false,
                        },
                    };
                    entry(t.binding, ty)
                });
                let samplers = job
                    .samplers
                    .iter()
                    .filter(|s| s.0 == group)
                    .map(|s| entry(s.1, wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering)));
                let entries: Vec<wgpu::BindGroupLayoutEntry> = buffers.chain(textures).chain(samplers).collect();
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: None, entries: &entries })
            })
            .collect();
        let layout_refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(Some).collect();
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &layout_refs,
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some(job.entry),
            compilation_options: Default::default(),
            cache: None,
        });
        let buffers: Vec<wgpu::Buffer> = job
            .bindings
            .iter()
            .map(|b| {
                let usage = match b.kind {
                    BufferKind::Storage { .. } => wgpu::BufferUsages::STORAGE,
                    BufferKind::Uniform => wgpu::BufferUsages::UNIFORM,
                };
                // Bound sizes must be non-zero multiples of 4 (16 for
                // uniforms); the padding is zero-filled.
                let size = match b.kind {
                    BufferKind::Storage { .. } => b.data.len().max(4).next_multiple_of(4),
                    BufferKind::Uniform => b.data.len().max(16).next_multiple_of(16),
                };
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: size as u64,
                    usage: usage | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                let mut data = b.data.clone();
                data.resize(size, 0);
                self.queue.write_buffer(&buffer, 0, &data);
                buffer
            })
            .collect();
        let views: Vec<wgpu::TextureView> = job.textures.iter().map(|t| self.texture(t)).collect();
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            address_mode_w: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..Default::default()
        });
        let bind_groups: Vec<wgpu::BindGroup> = layouts
            .iter()
            .enumerate()
            .map(|(group, layout)| {
                let group = group as u32;
                let buffers = job.bindings.iter().zip(&buffers).filter(|(b, _)| b.group == group).map(|(b, buffer)| {
                    wgpu::BindGroupEntry { binding: b.binding, resource: buffer.as_entire_binding() }
                });
                let textures = job.textures.iter().zip(&views).filter(|(t, _)| t.group == group).map(|(t, view)| {
                    wgpu::BindGroupEntry { binding: t.binding, resource: wgpu::BindingResource::TextureView(view) }
                });
                let samplers = job
                    .samplers
                    .iter()
                    .filter(|s| s.0 == group)
                    .map(|s| wgpu::BindGroupEntry { binding: s.1, resource: wgpu::BindingResource::Sampler(&sampler) });
                let entries: Vec<wgpu::BindGroupEntry> = buffers.chain(textures).chain(samplers).collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout, entries: &entries })
            })
            .collect();
        Prepared { pipeline, bind_groups, buffers }
    }

    /// Copy the `read_back` bindings out after what `encoder` holds, submit
    /// it and wait.
    fn read_back(
        &self,
        mut encoder: wgpu::CommandEncoder,
        prepared: &Prepared,
        job: &Dispatch<'_>,
    ) -> Result<Vec<Vec<u8>>, String> {
        let device = &self.device;
        let staging: Vec<(wgpu::Buffer, usize)> = job
            .bindings
            .iter()
            .zip(&prepared.buffers)
            .filter(|(b, _)| b.read_back)
            .map(|(b, buffer)| {
                let copy = device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: buffer.size(),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                encoder.copy_buffer_to_buffer(buffer, 0, &copy, 0, buffer.size());
                (copy, b.data.len())
            })
            .collect();
        let submission = self.queue.submit([encoder.finish()]);
        let mapped: Arc<Mutex<Vec<Result<(), wgpu::BufferAsyncError>>>> = Arc::default();
        for (copy, _) in &staging {
            let mapped = mapped.clone();
            copy.slice(..).map_async(wgpu::MapMode::Read, move |r| mapped.lock().unwrap().push(r));
        }
        self.device
            .poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: Some(DISPATCH_TIMEOUT) })
            .map_err(|e| format!("waiting for the dispatch: {e}"))?;
        if let Some(Err(e)) = mapped.lock().unwrap().iter().find(|r| r.is_err()) {
            return Err(format!("reading the output back: {e}"));
        }
        staging
            .iter()
            .map(|(copy, len)| {
                let view = copy.slice(..).get_mapped_range().map_err(|e| format!("reading the output back: {e}"))?;
                let bytes = view[..*len].to_vec();
                drop(view);
                copy.unmap();
                Ok(bytes)
            })
            .collect()
    }
}

/// What [`Gpu::prepare`] makes of a dispatch.
struct Prepared {
    pipeline: wgpu::ComputePipeline,
    bind_groups: Vec<wgpu::BindGroup>,
    buffers: Vec<wgpu::Buffer>,
}

/// The timed runs of [`Gpu::run_timed`].
pub struct Timing {
    /// The `read_back` bindings' contents, in order.
    pub outputs: Vec<Vec<u8>>,
    /// Milliseconds per run (GPU timestamps when [`Gpu::has_timestamps`],
    /// else wall-clock).
    pub times_ms: Vec<f64>,
}

fn encode_dispatch(
    encoder: &mut wgpu::CommandEncoder,
    prepared: &Prepared,
    groups: [u32; 3],
    timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
) {
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes });
    pass.set_pipeline(&prepared.pipeline);
    for (i, group) in prepared.bind_groups.iter().enumerate() {
        pass.set_bind_group(i as u32, group, &[]);
    }
    let [x, y, z] = groups;
    pass.dispatch_workgroups(x, y, z);
}

/// The message of a wgpu error with its sources, on one line.
/// The texture format of a shader's storage texel format (those code
/// generation writes).
pub fn storage_texture_format(f: naga::StorageFormat) -> Option<wgpu::TextureFormat> {
    use naga::StorageFormat as N;
    use wgpu::TextureFormat as W;
    Some(match f {
        N::R32Float => W::R32Float,
        N::Rg32Float => W::Rg32Float,
        N::Rgba32Float => W::Rgba32Float,
        N::R32Sint => W::R32Sint,
        N::Rg32Sint => W::Rg32Sint,
        N::Rgba32Sint => W::Rgba32Sint,
        N::R32Uint => W::R32Uint,
        N::Rg32Uint => W::Rg32Uint,
        N::Rgba32Uint => W::Rgba32Uint,
        _ => return None,
    })
}

/// Texels given as floats, in the bytes of `format` (32-bit float, signed
/// or unsigned components).
pub fn storage_bytes(texels: &[[f32; 4]], format: wgpu::TextureFormat) -> Vec<u8> {
    use wgpu::TextureFormat as W;
    let components = format.components() as usize;
    let mut out = Vec::with_capacity(texels.len() * components * 4);
    for texel in texels {
        for &c in &texel[..components] {
            out.extend_from_slice(&match format {
                W::R32Sint | W::Rg32Sint | W::Rgba32Sint => (c as i32).to_le_bytes(),
                W::R32Uint | W::Rg32Uint | W::Rgba32Uint => (c as u32).to_le_bytes(),
                _ => c.to_le_bytes(),
            });
        }
    }
    out
}

fn view_dimension(dim: TextureDim, layers: u32) -> wgpu::TextureViewDimension {
    match (dim, layers > 0) {
        (TextureDim::D1, _) => wgpu::TextureViewDimension::D1,
        (TextureDim::D2, false) => wgpu::TextureViewDimension::D2,
        (TextureDim::D2, true) => wgpu::TextureViewDimension::D2Array,
        (TextureDim::D3, _) => wgpu::TextureViewDimension::D3,
        (TextureDim::Cube, false) => wgpu::TextureViewDimension::Cube,
        (TextureDim::Cube, true) => wgpu::TextureViewDimension::CubeArray,
    }
}

fn error_text(e: &wgpu::Error) -> String {
    let mut text = match e {
        wgpu::Error::Validation { description, .. } | wgpu::Error::Internal { description, .. } => description.clone(),
        other => other.to_string(),
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Drive a future to completion on this thread. wgpu's native futures are
/// ready at once (the work happens in `poll`), so no executor is needed.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
        std::thread::yield_now();
    }
}
