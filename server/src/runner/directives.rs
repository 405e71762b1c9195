//! The directives of a Slang test file: `//TEST(...)` lines and
//! `//TEST_INPUT:` lines, as Slang's own test runner reads them.
//!
//! Parsing is pure and never fails as a whole: a directive this runner does
//! not understand is kept as [`Input::Unsupported`] (or an error string for
//! malformed data), so the test can be reported with a clear reason.

/// What a test file asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TestFile {
    /// `//TEST_IGNORE_FILE`: a helper module, not a test.
    pub ignore_file: bool,
    /// The enabled `//TEST` lines, in file order.
    pub tests: Vec<TestLine>,
    /// The `//TEST_INPUT` lines, in file order.
    pub inputs: Vec<Input>,
}

/// One `//TEST(<categories>):<KIND>(<options>):<args>` line.
#[derive(Debug, Clone, PartialEq)]
pub struct TestLine {
    /// 1-based line number in the test file.
    pub line: usize,
    pub kind: String,
    /// `filecheck-buffer=PREFIX` in the kind's options.
    pub filecheck_buffer: Option<String>,
    /// The whitespace-separated arguments after the kind.
    pub args: Vec<String>,
}

impl TestLine {
    /// `COMPARE_COMPUTE` and `COMPARE_COMPUTE_EX` run a compute shader and
    /// compare its output buffer.
    pub fn is_compute(&self) -> bool {
        matches!(self.kind.as_str(), "COMPARE_COMPUTE" | "COMPARE_COMPUTE_EX")
    }

    fn has(&self, flag: &str) -> bool {
        self.args.iter().any(|a| a == flag)
    }

    /// The API flag that this runner cannot stand in for (`-cuda`: CUDA
    /// code may use what only CUDA has).
    pub fn needs_other_backend(&self) -> Option<&'static str> {
        self.has("-cuda").then_some("CUDA")
    }

    /// `-cpu`: meant for the CPU backend; the computation is the same on
    /// the Vulkan device, which runs it when no other line is there.
    pub fn is_cpu(&self) -> bool {
        self.has("-cpu")
    }

    /// `-vk` or `-wgpu`: the line meant for Vulkan-like devices.
    pub fn is_vulkan_like(&self) -> bool {
        self.has("-vk") || self.has("-vulkan") || self.has("-wgpu")
    }

    /// `-entry NAME`, default `computeMain`.
    pub fn entry(&self) -> String {
        self.value_of("-entry").unwrap_or("computeMain").to_string()
    }

    /// `-output-using-type`: print typed values instead of hex words.
    pub fn output_using_type(&self) -> bool {
        self.has("-output-using-type")
    }

    /// `-compute-dispatch x,y,z` (thread groups), default 1,1,1.
    pub fn dispatch(&self) -> Result<[u32; 3], String> {
        let Some(text) = self.value_of("-compute-dispatch") else {
            return Ok([1, 1, 1]);
        };
        let mut size = [1u32; 3];
        let parts: Vec<&str> = text.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(format!("-compute-dispatch `{text}`: expected x,y,z"));
        }
        for (slot, part) in size.iter_mut().zip(&parts) {
            *slot = part.parse().map_err(|_| format!("-compute-dispatch `{text}`: `{part}` is not a count"))?;
        }
        Ok(size)
    }

    /// The words passed on to the compiler with `-xslang WORD`.
    pub fn compiler_args(&self) -> Vec<String> {
        self.args.windows(2).filter(|w| w[0] == "-xslang").map(|w| w[1].clone()).collect()
    }

    fn value_of(&self, flag: &str) -> Option<&str> {
        self.args.windows(2).find(|w| w[0] == flag).map(|w| w[1].as_str())
    }
}

/// One `//TEST_INPUT` line.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// `ubuffer(...)`: a storage buffer for the global `name`.
    Buffer(BufferInput),
    /// `cbuffer(...)` or `uniform(...)`: a constant buffer for `name`.
    Uniform(BufferInput),
    /// `type_conformance Type:Interface = id`.
    TypeConformance { ty: String, interface: String, id: u32 },
    /// `set name = new Type{ v, v, … }`: a parameter block or struct given
    /// field by field, in declaration order (`values[i]` for the `i`th
    /// field).
    Struct { line: usize, name: String, ty: String, values: Vec<FieldValue> },
    /// `Texture2D(size=4, content=one):name t` (and 1D, 3D, Cube), and
    /// writable ones: `RWTexture2D(format=R32Float, size=4,
    /// content=zero):name t` (1D, 2D, 3D).
    Texture(TextureInput),
    /// `Sampler:name s`.
    Sampler { line: usize, name: String },
    /// A form this runner cannot bind (texture arrays, struct
    /// initialisers nested, dotted paths...), or malformed data; the text
    /// says why.
    Unsupported { line: usize, reason: String },
}

/// The dimensions of a texture input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureDim {
    D1,
    D2,
    D3,
    Cube,
}

/// What a texture input holds (Slang's runner's `content=`), as RGBA8
/// texels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureContent {
    Zero,
    One,
    /// Red from `x / (size - 1)`, green from `y`, blue from `z` (each
    /// times 255, truncated); alpha 1. The default.
    Gradient,
    /// White where the half-size quadrant parities differ, else grey
    /// (0x80).
    ChessBoard,
}

/// A texture input.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureInput {
    pub line: usize,
    pub name: String,
    pub dim: TextureDim,
    /// `RWTexture…`: a storage texture of one level, whose texel format
    /// is the shader's (`RWTexture2D<float>` is r32float …).
    pub writable: bool,
    /// Layers of a texture array (`Texture2DArray`, `arrayLength=`; each
    /// holds the same contents); 0 for a single texture.
    pub layers: u32,
    /// Width (and height, depth) of level 0.
    pub size: u32,
    pub content: TextureContent,
    /// Mip levels (`mipMaps=`; the full chain when not given).
    pub mip_levels: u32,
}

impl TextureInput {
    /// The texels of mip level `level` (of each of the six faces, one after
    /// the other, for a cube) as RGBA in [0, 1]: zero, one, the gradient
    /// (red `x / (size - 1)` …, in 8-bit steps), or the chessboard.
    fn texels(&self, level: u32) -> Vec<[f32; 4]> {
        let size = (self.size >> level).max(1);
        let (h, d) = match self.dim {
            TextureDim::D1 => (1, 1),
            TextureDim::D2 => (size, 1),
            TextureDim::D3 => (size, size),
            TextureDim::Cube => (size, 6),
        };
        let unit =
            |v: u32| if size > 1 { f32::from((v as f32 / (size - 1) as f32 * 255.0) as u8) / 255.0 } else { 0.0 };
        let mut out = Vec::with_capacity((size * h * d) as usize);
        for z in 0..d {
            for y in 0..h {
                for x in 0..size {
                    out.push(match self.content {
                        TextureContent::Zero => [0.0; 4],
                        TextureContent::One => [1.0; 4],
                        TextureContent::Gradient => {
                            [unit(x), unit(y), if self.dim == TextureDim::D3 { unit(z) } else { 0.0 }, 1.0]
                        }
                        TextureContent::ChessBoard => {
                            let half = size >> 1;
                            let sig = (x < half) ^ (y < half) ^ (self.dim == TextureDim::D3 && z < half);
                            let grey = 128.0 / 255.0;
                            if sig {
                                [1.0; 4]
                            } else {
                                [grey, grey, grey, 1.0]
                            }
                        }
                    });
                }
            }
        }
        out
    }

    /// The texels of a writable texture (one level), as floats per texel
    /// (`components` of them, the rest zero).
    pub fn storage_texels(&self, components: usize) -> Vec<[f32; 4]> {
        let mut texels = self.texels(0);
        for t in &mut texels {
            t[components.min(4)..].fill(0.0);
        }
        texels
    }

    /// The texels of mip level `level`, RGBA8.
    pub fn level_data(&self, level: u32) -> Vec<u8> {
        self.texels(level).iter().flat_map(|t| t.map(|c| (c * 255.0).round() as u8)).collect()
    }
}

/// One value of a `new Type{ … }` input.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// `ubuffer(…)`: a storage buffer for a field of buffer type.
    Buffer(BufferInput),
    /// A number (or `cbuffer(…)`): data for a field of plain type.
    Data(BufferInput),
    /// `Texture2D(…)` (and the other texture kinds): a texture field.
    Texture(TextureInput),
    /// `Sampler`: a sampler field.
    Sampler,
}

/// The contents and target of a buffer input.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferInput {
    pub line: usize,
    /// The global shader parameter it binds to.
    pub name: String,
    /// `out`: printed after the dispatch.
    pub out: bool,
    /// The initial contents, as little-endian bytes.
    pub data: Vec<u8>,
    /// `stride=` in bytes (0 when not given).
    pub stride: u32,
    /// `count=` in elements.
    pub count: Option<u32>,
    /// `new StructuredBuffer<T>[…]`: the element size its values imply,
    /// which must be the shader's (the values are laid out one after
    /// another, with no padding).
    pub element_size: Option<u32>,
}

impl BufferInput {
    /// Size in bytes: the data, or `count` elements of `stride` bytes if
    /// that is more.
    pub fn size(&self) -> usize {
        let counted = self.count.map_or(0, |c| c as usize * self.stride.max(4) as usize);
        self.data.len().max(counted)
    }
}

/// Read the directives of a test file.
pub fn parse(text: &str) -> TestFile {
    let mut file = TestFile::default();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        // `// TEST(...)` with spaces after the slashes counts too.
        let spaced;
        let trimmed = match trimmed.strip_prefix("//") {
            Some(rest) if rest.starts_with([' ', '\t']) && rest.trim_start().starts_with("TEST") => {
                spaced = format!("//{}", rest.trim_start());
                spaced.as_str()
            }
            _ => trimmed,
        };
        if trimmed.starts_with("//TEST_IGNORE_FILE") {
            file.ignore_file = true;
        } else if let Some(rest) = trimmed.strip_prefix("//TEST_INPUT") {
            let rest = rest.trim_start();
            let body = rest.strip_prefix(':').unwrap_or(rest).trim();
            file.inputs.push(parse_input(body, line));
        } else if let Some(rest) = trimmed.strip_prefix("//TEST") {
            if rest.starts_with('(') || rest.starts_with(':') {
                if let Some(test) = parse_test_line(rest, line) {
                    file.tests.push(test);
                }
            }
        }
    }
    file
}

/// `(<categories>):<KIND>[(<options>)][:<args>]` (after `//TEST`).
fn parse_test_line(rest: &str, line: usize) -> Option<TestLine> {
    let rest = if rest.starts_with('(') { &rest[rest.find(')')? + 1..] } else { rest };
    let rest = rest.strip_prefix(':')?.trim_start();
    let kind_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
    let kind = rest[..kind_end].to_string();
    let mut rest = &rest[kind_end..];
    let mut filecheck_buffer = None;
    if rest.starts_with('(') {
        let close = rest.find(')')?;
        for option in rest[1..close].split(',') {
            if let Some((key, value)) = option.split_once('=') {
                if key.trim() == "filecheck-buffer" {
                    filecheck_buffer = Some(value.trim().to_string());
                }
            }
        }
        rest = &rest[close + 1..];
    }
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let args = rest.split_whitespace().map(str::to_string).collect();
    Some(TestLine { line, kind, filecheck_buffer, args })
}

/// The text after `//TEST_INPUT:`.
fn parse_input(body: &str, line: usize) -> Input {
    let unsupported = |reason: String| Input::Unsupported { line, reason };
    if let Some(rest) = body.strip_prefix("type_conformance") {
        return parse_type_conformance(rest).unwrap_or_else(|| {
            unsupported(format!("malformed `type_conformance{rest}` (expected `Type:Interface = id`)"))
        });
    }
    if let Some(rest) = body.strip_prefix("set ").or_else(|| body.strip_prefix("set\t")) {
        // `set <path> = [out] <kind>(<opts>)`
        let Some((path, value)) = rest.split_once('=') else {
            return unsupported(format!("malformed `set{rest}` (expected `set NAME = ...`)"));
        };
        let path = path.trim();
        let value = value.trim();
        let (out, value) = match value.strip_prefix("out ") {
            Some(v) => (true, v.trim_start()),
            None => (false, value),
        };
        if path.contains('[') {
            return unsupported(format!("`set {path} = ...`: inputs bound to array elements are not supported yet"));
        }
        if let Some(rest) = value.strip_prefix("new ") {
            let rest = rest.trim();
            if rest.starts_with("StructuredBuffer<") || rest.starts_with("RWStructuredBuffer<") {
                return structured_buffer_input(rest, path, out, line);
            }
            return struct_input(rest, path, line);
        }
        if value == "Sampler" || value.starts_with("Sampler(") {
            return Input::Sampler { line, name: path.to_string() };
        }
        return match split_call(value) {
            Some((kind @ ("ubuffer" | "cbuffer" | "uniform"), opts, "")) => {
                buffer_input(kind, opts, path.to_string(), out, line)
            }
            Some((kind, opts, "")) if texture_dim(kind).is_some() => {
                texture_kind_input(kind, opts, &format!("name={path}"), line)
            }
            _ => unsupported(format!("`set {path} = {value}`: only ubuffer/cbuffer values are supported")),
        };
    }
    if let Some(rest) = body.strip_prefix("Sampler") {
        // `Sampler:name s` (options, if any, are not used).
        let tail = split_call(body).map_or(rest, |(_, _, tail)| tail);
        return match input_name(tail) {
            Some(name) => Input::Sampler { line, name },
            None => unsupported("`Sampler` input without `name`".into()),
        };
    }
    // `<kind>(<opts>):[out,]name=<global>` (older syntax).
    let Some((kind, opts, tail)) = split_call(body) else {
        let word = body.split(|c: char| c == ':' || c == '(' || c.is_whitespace()).next().unwrap_or(body);
        return unsupported(format!("TEST_INPUT `{word}` is not supported"));
    };
    if texture_dim(kind).is_some() {
        return texture_kind_input(kind, opts, tail, line);
    }
    if !matches!(kind, "ubuffer" | "cbuffer" | "uniform") {
        return unsupported(format!(
            "TEST_INPUT `{kind}` is not supported (buffers, textures, writable 1D/2D/3D textures and samplers are)"
        ));
    }
    let mut out = false;
    let mut name = None;
    for flag in tail.trim_start_matches(':').split(',').map(str::trim) {
        if flag == "out" {
            out = true;
        } else if let Some(n) = flag.strip_prefix("name=").or_else(|| flag.strip_prefix("name ")) {
            name = Some(n.trim().to_string());
        }
    }
    let Some(name) = name else {
        return unsupported(format!("`{kind}` input without `name=`: binding by position is not supported"));
    };
    if name.contains('[') {
        return unsupported(format!("`name={name}`: inputs bound to array elements are not supported yet"));
    }
    buffer_input(kind, opts, name, out, line)
}

/// The global a `:name=x` / `:name x` tail names.
fn input_name(tail: &str) -> Option<String> {
    tail.trim_start_matches(':').split(',').map(str::trim).find_map(|flag| {
        let n = flag.strip_prefix("name=").or_else(|| flag.strip_prefix("name "))?;
        Some(n.trim().to_string()).filter(|n| !n.is_empty())
    })
}

/// The dimensions of a texture input kind (`Texture2D`, `RWTexture3D` …),
/// for the kinds the runner binds.
fn texture_dim(kind: &str) -> Option<TextureDim> {
    Some(match kind {
        "Texture1D" | "RWTexture1D" => TextureDim::D1,
        "Texture2D" | "RWTexture2D" | "Texture2DArray" | "RWTexture2DArray" => TextureDim::D2,
        "Texture3D" | "RWTexture3D" => TextureDim::D3,
        "TextureCube" | "TextureCubeArray" => TextureDim::Cube,
        _ => return None,
    })
}

/// A texture input of kind `kind` (`Texture2D`, `RWTexture2DArray` …).
fn texture_kind_input(kind: &str, opts: &str, tail: &str, line: usize) -> Input {
    let dim = texture_dim(kind).expect("a texture kind");
    let mut input = texture_input(dim, kind.starts_with("RW"), opts, tail, line);
    if let (Input::Texture(t), true) = (&mut input, kind.ends_with("Array")) {
        t.layers = t.layers.max(1);
    }
    input
}

/// `Texture2D(size=4, content=one, mipMaps=1):name t`.
fn texture_input(dim: TextureDim, writable: bool, opts: &str, tail: &str, line: usize) -> Input {
    let unsupported = |reason: String| Input::Unsupported { line, reason };
    let Some(name) = input_name(tail) else { return unsupported("texture input without `name`".into()) };
    let mut input = TextureInput {
        line,
        name,
        dim,
        writable,
        layers: 0,
        size: 4,
        content: TextureContent::Gradient,
        mip_levels: 0,
    };
    for (key, value) in split_options(opts) {
        match key {
            "size" => match value.parse() {
                Ok(s) if s > 0 && s <= 4096 => input.size = s,
                _ => return unsupported(format!("texture size=`{value}`")),
            },
            "content" => {
                input.content = match value {
                    "zero" => TextureContent::Zero,
                    "one" => TextureContent::One,
                    "gradient" => TextureContent::Gradient,
                    "chessboard" => TextureContent::ChessBoard,
                    _ => return unsupported(format!("texture content=`{value}`")),
                }
            }
            "mipMaps" => match value.parse() {
                Ok(m) => input.mip_levels = m,
                Err(_) => return unsupported(format!("texture mipMaps=`{value}`")),
            },
            "arrayLength" => match value.parse() {
                Ok(n) if n <= 2048 => input.layers = n,
                _ => return unsupported(format!("texture arrayLength=`{value}`")),
            },
            // (A writable texture's format is the shader's.)
            "format" if value != "RGBA8Unorm" && value != "R8G8B8A8_UNORM" && !writable => {
                return unsupported(format!("texture format=`{value}` is not supported yet (RGBA8 texels are)"))
            }
            _ => {}
        }
    }
    // (1D textures have one level in WebGPU; writable ones one here.)
    let full_chain = if dim == TextureDim::D1 || writable { 1 } else { 32 - input.size.leading_zeros() };
    if input.mip_levels == 0 || input.mip_levels > full_chain {
        input.mip_levels = full_chain;
    }
    Input::Texture(input)
}

fn buffer_input(kind: &str, opts: &str, name: String, out: bool, line: usize) -> Input {
    let mut buffer = BufferInput { line, name, out, data: Vec::new(), stride: 0, count: None, element_size: None };
    for (key, value) in split_options(opts) {
        let result = match key {
            "data" => parse_data(value).map(|d| buffer.data = d),
            "stride" => value.parse().map(|s| buffer.stride = s).map_err(|_| format!("stride=`{value}`")),
            "count" => value.parse().map(|c| buffer.count = Some(c)).map_err(|_| format!("count=`{value}`")),
            // Slang's runner accepts more (format=, random(...)); they do
            // not change a plain structured buffer's contents except random.
            k if k.starts_with("random") => Err("random(...) data is not supported".to_string()),
            _ => Ok(()),
        };
        if let Err(e) = result {
            return Input::Unsupported { line, reason: format!("{kind}: {e}") };
        }
    }
    match kind {
        "ubuffer" => Input::Buffer(buffer),
        _ => Input::Uniform(buffer),
    }
}

/// `Type{ v, v, … }` (after `new`) for the parameter `name`: each value a
/// `ubuffer(…)`/`cbuffer(…)` or a number.
fn struct_input(text: &str, name: &str, line: usize) -> Input {
    let unsupported = |reason: String| Input::Unsupported { line, reason };
    let Some((ty, body)) = text.split_once('{') else {
        return unsupported(format!("`new {text}`: expected `new Type{{ values }}`"));
    };
    let Some(body) = body.trim_end().strip_suffix('}') else {
        return unsupported(format!("`new {text}`: expected `new Type{{ values }}`"));
    };
    let mut values = Vec::new();
    for part in
        split_options(body).into_iter().map(|(k, v)| if v.is_empty() { k.to_string() } else { format!("{k}={v}") })
    {
        let part = part.trim();
        let value = match split_call(part) {
            Some((kind @ ("ubuffer" | "cbuffer" | "uniform"), opts, "")) => {
                match buffer_input(kind, opts, String::new(), false, line) {
                    Input::Buffer(b) => FieldValue::Buffer(b),
                    Input::Uniform(b) => FieldValue::Data(b),
                    other => return other,
                }
            }
            Some((kind, opts, "")) if texture_dim(kind).is_some() => {
                match texture_kind_input(kind, opts, "name=field", line) {
                    Input::Texture(t) => FieldValue::Texture(t),
                    other => return other,
                }
            }
            None if part == "Sampler" => FieldValue::Sampler,
            _ if part.starts_with("new ") || part.contains('{') => {
                return unsupported(format!("`set {name} = new {text}`: nested `new` values are not supported yet"))
            }
            _ => match parse_data(&format!("[{part}]")) {
                Ok(data) => FieldValue::Data(BufferInput {
                    line,
                    name: String::new(),
                    out: false,
                    data,
                    stride: 0,
                    count: None,
                    element_size: None,
                }),
                Err(e) => return unsupported(format!("`set {name} = new {text}`: {e}")),
            },
        };
        values.push(value);
    }
    Input::Struct { line, name: name.to_string(), ty: ty.trim().to_string(), values }
}

/// `StructuredBuffer<T>[v, v, …]` (after `new`) for the parameter `name`:
/// each element a value (`new S{…}` of values, a vector `[a, b]`, a
/// number), their numbers in order.
fn structured_buffer_input(text: &str, name: &str, out: bool, line: usize) -> Input {
    let unsupported = |reason: String| Input::Unsupported { line, reason };
    let text = text.trim().trim_end_matches(';').trim_end();
    let elements = text
        .find('>')
        .map(|close| text[close + 1..].trim())
        .and_then(|rest| rest.strip_prefix('['))
        .and_then(|rest| rest.strip_suffix(']'));
    let Some(elements) = elements else {
        return unsupported(format!("`new {text}`: expected `new StructuredBuffer<T>[values]`"));
    };
    let mut data = Vec::new();
    let mut count = 0u32;
    let mut depth = 0i32;
    let mut start = 0;
    let mut items = Vec::new();
    for (i, c) in elements.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&elements[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&elements[start..]);
    for item in items.into_iter().map(str::trim).filter(|i| !i.is_empty()) {
        // The numbers of the value, `new Type` and punctuation left out.
        let mut tokens = item.split(|c: char| c.is_whitespace() || "{}[],".contains(c)).filter(|t| !t.is_empty());
        while let Some(token) = tokens.next() {
            if token == "new" {
                tokens.next();
                continue;
            }
            match parse_word(token) {
                Ok(w) => data.extend_from_slice(&w.to_le_bytes()),
                Err(e) => return unsupported(format!("`set {name} = new {text}`: {e}")),
            }
        }
        count += 1;
    }
    if count == 0 || data.len() % count as usize != 0 {
        return unsupported(format!("`set {name} = new {text}`: its elements are not all of one size"));
    }
    let size = (data.len() / count as usize) as u32;
    Input::Buffer(BufferInput {
        line,
        name: name.to_string(),
        out,
        data,
        stride: size,
        count: Some(count),
        element_size: Some(size),
    })
}

/// `Type:Interface = id` with an optional trailing `;`.
fn parse_type_conformance(rest: &str) -> Option<Input> {
    let rest = rest.trim().trim_end_matches(';').trim();
    let (pair, id) = match rest.split_once('=') {
        Some((pair, id)) => (pair.trim(), id.trim().parse().ok()?),
        None => (rest, 0),
    };
    let (ty, interface) = pair.split_once(':')?;
    Some(Input::TypeConformance { ty: ty.trim().to_string(), interface: interface.trim().to_string(), id })
}

/// `kind(opts)tail` → `(kind, opts, tail)`, with nested brackets in `opts`.
fn split_call(text: &str) -> Option<(&str, &str, &str)> {
    let open = text.find('(')?;
    let kind = text[..open].trim();
    if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 && c == ')' {
                    let close = open + i;
                    return Some((kind, &text[open + 1..close], text[close + 1..].trim()));
                }
            }
            _ => {}
        }
    }
    None
}

/// The header of a GPU benchmark kernel (`tests/bench/gpu/*.slang`):
///
/// ```text
/// //BENCH: threads=65536[, rtol=1e-3][, atol=1e-5]
/// //BENCH_BUFFER: name=xs, count=threads*4, fill=uniform(-1.0, 1.0)
/// //BENCH_BUFFER: name=ids, count=1024, fill=uint(0, 100)
/// //BENCH_BUFFER: name=result, count=threads*2, out
/// ```
///
/// `count` is in elements of the buffer's type (`N`, `threads` or
/// `threads*K`); `fill` is `zero` (the default), `uniform(lo, hi)` (32-bit
/// floats), `uint(lo, hi)` (32-bit integers, `hi` excluded), `index` (the
/// word's index) or `data=[...]` (repeated); every 32-bit word is filled,
/// from a generator seeded by the buffer's name. `out` buffers are read
/// back and compared between compilers.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchHeader {
    pub threads: u64,
    pub rtol: f64,
    pub atol: f64,
    pub buffers: Vec<BenchBuffer>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BenchBuffer {
    pub name: String,
    /// Elements: `fixed + per_thread * threads`.
    pub fixed: u64,
    pub per_thread: u64,
    pub fill: Fill,
    pub out: bool,
}

/// How a benchmark buffer's words are filled.
#[derive(Debug, Clone, PartialEq)]
pub enum Fill {
    Zero,
    Uniform(f32, f32),
    Uint(u32, u32),
    Index,
    Data(Vec<u8>),
}

impl BenchBuffer {
    pub fn elements(&self, threads: u64) -> u64 {
        self.fixed + self.per_thread * threads
    }

    /// `words` 32-bit words of contents, deterministic per buffer name.
    pub fn contents(&self, words: usize) -> Vec<u8> {
        // splitmix64, seeded by the FNV-1a hash of the name.
        let mut state =
            self.name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut out = Vec::with_capacity(words * 4);
        for i in 0..words {
            let word = match &self.fill {
                Fill::Zero => 0,
                Fill::Index => i as u32,
                Fill::Uniform(lo, hi) => {
                    let unit = (next() >> 40) as f32 / (1u64 << 24) as f32;
                    (lo + (hi - lo) * unit).to_bits()
                }
                Fill::Uint(lo, hi) => lo + (next() % u64::from(hi.saturating_sub(*lo).max(1))) as u32,
                Fill::Data(d) if d.is_empty() => 0,
                Fill::Data(d) => {
                    let at = (i * 4) % d.len();
                    u32::from_le_bytes(d[at..at + 4].try_into().unwrap_or_default())
                }
            };
            out.extend_from_slice(&word.to_le_bytes());
        }
        out
    }
}

/// Read a benchmark kernel's `//BENCH` lines (`Err` says which line is
/// wrong; a file without `//BENCH:` is not a benchmark).
pub fn parse_bench(text: &str) -> Result<BenchHeader, String> {
    let mut header = BenchHeader { threads: 0, rtol: 1e-3, atol: 1e-5, buffers: Vec::new() };
    let mut seen = false;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        let bad = |what: String| format!("line {line}: {what}");
        if let Some(rest) = trimmed.strip_prefix("//BENCH_BUFFER:") {
            let mut buffer = BenchBuffer { name: String::new(), fixed: 0, per_thread: 0, fill: Fill::Zero, out: false };
            for (key, value) in split_options(rest) {
                match key {
                    "name" => buffer.name = value.to_string(),
                    "out" => buffer.out = true,
                    "count" => {
                        let (fixed, per_thread) = parse_count(value).ok_or_else(|| bad(format!("count=`{value}`")))?;
                        (buffer.fixed, buffer.per_thread) = (fixed, per_thread);
                    }
                    "fill" => buffer.fill = parse_fill(value).ok_or_else(|| bad(format!("fill=`{value}`")))?,
                    "data" => buffer.fill = Fill::Data(parse_data(value).map_err(bad)?),
                    other => return Err(bad(format!("unknown BENCH_BUFFER option `{other}`"))),
                }
            }
            if buffer.name.is_empty() {
                return Err(bad("BENCH_BUFFER without name=".into()));
            }
            header.buffers.push(buffer);
        } else if let Some(rest) = trimmed.strip_prefix("//BENCH:") {
            seen = true;
            for (key, value) in split_options(rest) {
                let number = || value.parse::<f64>().map_err(|_| bad(format!("{key}=`{value}` is not a number")));
                match key {
                    "threads" => header.threads = number()? as u64,
                    "rtol" => header.rtol = number()?,
                    "atol" => header.atol = number()?,
                    other => return Err(bad(format!("unknown BENCH option `{other}`"))),
                }
            }
        }
    }
    if !seen || header.threads == 0 {
        return Err("no `//BENCH: threads=N` line".into());
    }
    Ok(header)
}

/// `N`, `threads` or `threads*K`: (fixed, per thread).
fn parse_count(value: &str) -> Option<(u64, u64)> {
    match value.strip_prefix("threads") {
        Some("") => Some((0, 1)),
        Some(rest) => Some((0, rest.trim().strip_prefix('*')?.trim().parse().ok()?)),
        None => Some((value.parse().ok()?, 0)),
    }
}

fn parse_fill(value: &str) -> Option<Fill> {
    let args = |v: &str| -> Option<(String, String)> {
        let inner = v.strip_suffix(')')?;
        let (a, b) = inner.split_once(',')?;
        Some((a.trim().to_string(), b.trim().to_string()))
    };
    if value == "zero" {
        Some(Fill::Zero)
    } else if value == "index" {
        Some(Fill::Index)
    } else if let Some(rest) = value.strip_prefix("uniform(") {
        let (a, b) = args(rest)?;
        Some(Fill::Uniform(a.parse().ok()?, b.parse().ok()?))
    } else if let Some(rest) = value.strip_prefix("uint(") {
        let (a, b) = args(rest)?;
        Some(Fill::Uint(a.parse().ok()?, b.parse().ok()?))
    } else {
        None
    }
}

/// `key=value, key=[a b c], ...` at bracket depth 0.
fn split_options(opts: &str) -> Vec<(&str, &str)> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in opts.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&opts[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&opts[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (p, ""),
        })
        .collect()
}

/// `[v v v ...]`: integers as their 32-bit pattern, numbers with `.` or an
/// exponent as 32-bit floats (TEST-FORMAT.md).
pub fn parse_data(value: &str) -> Result<Vec<u8>, String> {
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .ok_or_else(|| format!("data=`{value}` (expected [v v ...])"))?;
    let mut bytes = Vec::new();
    for token in inner.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
        bytes.extend_from_slice(&parse_word(token)?.to_le_bytes());
    }
    Ok(bytes)
}

fn parse_word(token: &str) -> Result<u32, String> {
    let bad = || format!("data value `{token}` is not a number");
    let (negative, digits) = match token.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, token.strip_prefix('+').unwrap_or(token)),
    };
    if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        let v = u32::from_str_radix(hex, 16).map_err(|_| bad())?;
        return Ok(if negative { v.wrapping_neg() } else { v });
    }
    if digits.ends_with('h') || digits.ends_with('H') {
        return Err(format!("data value `{token}`: half-precision data is not supported"));
    }
    if digits.eq_ignore_ascii_case("inf") {
        return Ok((if negative { f32::NEG_INFINITY } else { f32::INFINITY }).to_bits());
    }
    let is_float = digits.contains(['.', 'e', 'E']) || digits.ends_with(['f', 'F']);
    if is_float {
        let number = digits.trim_end_matches(['f', 'F']);
        let v: f32 = number.parse().map_err(|_| bad())?;
        return Ok((if negative { -v } else { v }).to_bits());
    }
    let v: i64 = digits.parse().map_err(|_| bad())?;
    let v = if negative { -v } else { v };
    if v < i32::MIN as i64 || v > u32::MAX as i64 {
        return Err(format!("data value `{token}` does not fit in 32 bits"));
    }
    Ok(v as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_lines() {
        let f = parse(
            "//TEST(compute):COMPARE_COMPUTE_EX:-slang -compute -shaderobj -output-using-type -entry main2\n\
             //TEST(compute, vulkan):COMPARE_COMPUTE(filecheck-buffer=BUF):-vk -compute-dispatch 4,2,1 -xslang -DFOO=1\n\
             //DISABLE_TEST(compute):COMPARE_COMPUTE:-cpu\n\
             //TEST_DISABLED:COMPARE_COMPUTE:-vk\n\
             //TEST:SIMPLE(filecheck=CHECK): -target spirv\n",
        );
        assert_eq!(f.tests.len(), 3);
        let t = &f.tests[0];
        assert!(t.is_compute() && t.output_using_type() && !t.is_vulkan_like());
        assert_eq!(t.entry(), "main2");
        assert_eq!(t.dispatch(), Ok([1, 1, 1]));
        let t = &f.tests[1];
        assert_eq!(t.filecheck_buffer.as_deref(), Some("BUF"));
        assert_eq!(t.entry(), "computeMain");
        assert_eq!(t.dispatch(), Ok([4, 2, 1]));
        assert_eq!(t.compiler_args(), ["-DFOO=1"]);
        assert!(t.is_vulkan_like());
        assert_eq!(f.tests[2].kind, "SIMPLE");
        assert!(!f.tests[2].is_compute());
    }

    #[test]
    fn bench_header() {
        let h = parse_bench(
            "//BENCH: threads=128, rtol=1e-2\n\
             //BENCH_BUFFER: name=xs, count=threads*4, fill=uniform(-1.0, 1.0)\n\
             //BENCH_BUFFER: name=n, count=3, fill=uint(8, 10)\n\
             //BENCH_BUFFER: name=r, count=threads, out\n",
        )
        .unwrap();
        assert_eq!((h.threads, h.rtol, h.buffers.len()), (128, 1e-2, 3));
        assert_eq!(h.buffers[0].elements(128), 512);
        let xs = h.buffers[0].contents(512);
        assert_eq!(xs, h.buffers[0].contents(512), "deterministic");
        let floats: Vec<f32> = xs.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert!(floats.iter().all(|f| (-1.0..1.0).contains(f)));
        assert!(floats.iter().any(|f| *f < -0.5) && floats.iter().any(|f| *f > 0.5));
        let n: Vec<u32> =
            h.buffers[1].contents(3).chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert!(n.iter().all(|v| (8..10).contains(v)), "{n:?}");
        assert!(h.buffers[2].out && h.buffers[2].fill == Fill::Zero && h.buffers[2].elements(2) == 2);
        assert!(parse_bench("//BENCH_BUFFER: name=x\n").is_err());
        assert!(parse_bench("//BENCH: threads=4\n//BENCH_BUFFER: name=x, fill=gauss\n").is_err());
    }

    #[test]
    fn buffer_inputs() {
        let f = parse(
            "//TEST_INPUT:ubuffer(data=[1 2.5 -3 0x10], stride=4):out,name=outputBuffer\n\
             //TEST_INPUT: ubuffer(stride=8, count=3):name=b\n\
             //TEST_INPUT: set c = out ubuffer(data=[-1.0e1], stride=4)\n\
             //TEST_INPUT:cbuffer(data=[7]):name=C\n",
        );
        let Input::Buffer(a) = &f.inputs[0] else { panic!("{:?}", f.inputs[0]) };
        assert!(a.out);
        assert_eq!(a.name, "outputBuffer");
        assert_eq!(a.stride, 4);
        let words: Vec<u32> = a.data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(words, [1, 2.5f32.to_bits(), (-3i32) as u32, 16]);
        let Input::Buffer(b) = &f.inputs[1] else { panic!() };
        assert_eq!((b.size(), b.out), (24, false));
        let Input::Buffer(c) = &f.inputs[2] else { panic!() };
        assert_eq!((c.name.as_str(), c.out, c.data.clone()), ("c", true, (-10.0f32).to_le_bytes().to_vec()));
        assert!(matches!(&f.inputs[3], Input::Uniform(u) if u.name == "C"));
    }

    #[test]
    fn other_inputs() {
        let f = parse(
            "//TEST_INPUT: type_conformance Impl:IFoo = 3;\n\
             //TEST_INPUT: Texture2DMS(size=4, content = one):name t\n\
             //TEST_INPUT: set params.grad[0] = out ubuffer(data=[0], stride=4)\n\
             //TEST_INPUT:ubuffer(data=[1 x], stride=4):name=b\n\
             //TEST_INPUT: set s = new S{1, new T{2}}\n",
        );
        assert_eq!(f.inputs[0], Input::TypeConformance { ty: "Impl".into(), interface: "IFoo".into(), id: 3 });
        for (i, needle) in [(1, "Texture2DMS"), (2, "params.grad[0]"), (3, "`x`"), (4, "nested `new`")] {
            match &f.inputs[i] {
                Input::Unsupported { reason, .. } => assert!(reason.contains(needle), "{reason}"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn texture_and_sampler_inputs() {
        let f = parse(
            "//TEST_INPUT: Texture2D(size=4, content = one):name t\n\
             //TEST_INPUT: Texture3D(size=2, content=chessboard, mipMaps=1):name=v\n\
             //TEST_INPUT: Sampler:name s\n\
             //TEST_INPUT: set s2 = Sampler\n\
             //TEST_INPUT: set g = Texture1D(size=3)\n\
             //TEST_INPUT: Texture2D(size=4, format=R32Float):name f\n",
        );
        let Input::Texture(t) = &f.inputs[0] else { panic!("{:?}", f.inputs[0]) };
        assert_eq!(
            (t.name.as_str(), t.dim, t.size, t.content, t.mip_levels),
            ("t", TextureDim::D2, 4, TextureContent::One, 3)
        );
        assert_eq!(t.level_data(0), vec![255; 64]);
        assert_eq!(t.level_data(2), vec![255; 4]);
        let Input::Texture(v) = &f.inputs[1] else { panic!("{:?}", f.inputs[1]) };
        assert_eq!((v.name.as_str(), v.dim, v.mip_levels), ("v", TextureDim::D3, 1));
        // Quadrant parities: (0,0,0) is 1^1^1 = white, (1,0,0) grey.
        assert_eq!(&v.level_data(0)[..8], &[255, 255, 255, 255, 0x80, 0x80, 0x80, 255]);
        assert_eq!(f.inputs[2], Input::Sampler { line: 3, name: "s".into() });
        assert_eq!(f.inputs[3], Input::Sampler { line: 4, name: "s2".into() });
        let Input::Texture(g) = &f.inputs[4] else { panic!("{:?}", f.inputs[4]) };
        // Gradient: red x / (size - 1) * 255, truncated.
        assert_eq!(
            (g.dim, g.content, g.level_data(0)),
            (TextureDim::D1, TextureContent::Gradient, vec![0, 0, 0, 255, 127, 0, 0, 255, 255, 0, 0, 255])
        );
        assert!(matches!(&f.inputs[5], Input::Unsupported { reason, .. } if reason.contains("R32Float")));
    }

    #[test]
    fn writable_texture_inputs() {
        let f = parse(
            "//TEST_INPUT: RWTexture2D(format=R32Float, size=2, content=one, mipMaps=3):name=t\n\
             //TEST_INPUT: set g = RWTexture1D(size=3)\n\
             //TEST_INPUT: RWTextureCube(size=2):name c\n",
        );
        let Input::Texture(t) = &f.inputs[0] else { panic!("{:?}", f.inputs[0]) };
        // One level; the format is the shader's.
        assert_eq!((t.name.as_str(), t.dim, t.writable, t.mip_levels), ("t", TextureDim::D2, true, 1));
        assert_eq!(t.storage_texels(1), vec![[1.0, 0.0, 0.0, 0.0]; 4]);
        let Input::Texture(g) = &f.inputs[1] else { panic!("{:?}", f.inputs[1]) };
        // Gradient: red x / (size - 1) in 8-bit steps (as the RGBA8
        // textures: 127.5 truncated), alpha 1.
        assert_eq!(
            g.storage_texels(4),
            vec![[0.0, 0.0, 0.0, 1.0], [127.0 / 255.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0]]
        );
        assert!(matches!(&f.inputs[2], Input::Unsupported { reason, .. } if reason.contains("RWTextureCube")));
        // Arrays: `arrayLength=`, or an `…Array` kind (one layer at least).
        let f = parse(
            "//TEST_INPUT: Texture2D(size=2, arrayLength=3):name a\n\
             //TEST_INPUT: RWTexture2DArray(size=2):name b\n\
             //TEST_INPUT: TextureCubeArray(size=2, arrayLength=2):name c\n",
        );
        let layers: Vec<(TextureDim, bool, u32)> = f
            .inputs
            .iter()
            .map(|i| match i {
                Input::Texture(t) => (t.dim, t.writable, t.layers),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(layers, vec![(TextureDim::D2, false, 3), (TextureDim::D2, true, 1), (TextureDim::Cube, false, 2)]);
    }

    #[test]
    fn parameter_block_inputs() {
        let f = parse(
            "//TEST_INPUT: set params.grad = out ubuffer(data=[0], stride=4)\n\
             //TEST_INPUT:ubuffer(data=[1], stride=4):name=params.x\n\
             //TEST_INPUT: set p = new P{ 2.5, ubuffer(data=[1 2], stride=4), -3 }\n",
        );
        assert!(matches!(&f.inputs[0], Input::Buffer(b) if b.name == "params.grad" && b.out));
        assert!(matches!(&f.inputs[1], Input::Buffer(b) if b.name == "params.x" && !b.out));
        let Input::Struct { name, ty, values, .. } = &f.inputs[2] else { panic!("{:?}", f.inputs[2]) };
        assert_eq!((name.as_str(), ty.as_str(), values.len()), ("p", "P", 3));
        assert!(matches!(&values[0], FieldValue::Data(d) if d.data == 2.5f32.to_le_bytes()));
        assert!(matches!(&values[1], FieldValue::Buffer(b) if b.data.len() == 8 && b.stride == 4));
        assert!(matches!(&values[2], FieldValue::Data(d) if d.data == (-3i32).to_le_bytes()));
        // Texture and sampler fields; a structured buffer given by values.
        let f = parse(
            "//TEST_INPUT: set g = new P{Texture2D(size=4, content=one), Sampler}\n\
             //TEST_INPUT: set b = new StructuredBuffer<S>[new S{new H{[0, 1]}, 2.0}, new S{new H{[3, 4]}, 5.0}];\n",
        );
        let Input::Struct { values, .. } = &f.inputs[0] else { panic!("{:?}", f.inputs[0]) };
        assert!(matches!(&values[0], FieldValue::Texture(t) if t.size == 4 && t.content == TextureContent::One));
        assert_eq!(values[1], FieldValue::Sampler);
        let Input::Buffer(b) = &f.inputs[1] else { panic!("{:?}", f.inputs[1]) };
        let words: Vec<u32> = [0, 1, 2.0f32.to_bits(), 3, 4, 5.0f32.to_bits()].to_vec();
        assert_eq!(b.data, words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>());
        assert_eq!((b.name.as_str(), b.count, b.element_size), ("b", Some(2), Some(12)));
    }

    #[test]
    fn ignore_file() {
        assert!(parse("//TEST_IGNORE_FILE:\nint f() { return 1; }").ignore_file);
    }
}
