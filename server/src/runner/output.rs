//! Printing an output buffer the way Slang's runner does, and comparing the
//! print with an `.expected.txt` file.
//!
//! With `-output-using-type` the print is a `type: <scalar>` line and one
//! value per line (floats like C's `%f`); without it, one uppercase
//! hexadecimal 32-bit word per line. Expected files are compared value by
//! value: floats with Slang's relative tolerance, everything else as text.

/// A scalar type of buffer contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarType {
    F32,
    F64,
    I32,
    U32,
    I64,
    U64,
}

impl ScalarType {
    /// The name Slang's runner prints in the `type:` header.
    pub fn slang_name(self) -> &'static str {
        match self {
            ScalarType::F32 => "float",
            ScalarType::F64 => "double",
            ScalarType::I32 => "int32_t",
            ScalarType::U32 => "uint32_t",
            ScalarType::I64 => "int64_t",
            ScalarType::U64 => "uint64_t",
        }
    }

    /// The type of a `type:` header (Slang's names and their aliases).
    pub fn from_slang_name(name: &str) -> Option<ScalarType> {
        Some(match name {
            "float" | "float32_t" => ScalarType::F32,
            "double" | "float64_t" => ScalarType::F64,
            "int" | "int32_t" => ScalarType::I32,
            "uint" | "uint32_t" => ScalarType::U32,
            "int64_t" => ScalarType::I64,
            "uint64_t" => ScalarType::U64,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        match self {
            ScalarType::F32 | ScalarType::I32 | ScalarType::U32 => 4,
            ScalarType::F64 | ScalarType::I64 | ScalarType::U64 => 8,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, ScalarType::F32 | ScalarType::F64)
    }

    /// The value at the start of `bytes` (little-endian), printed.
    fn print(self, bytes: &[u8]) -> String {
        let word = |n: usize| -> [u8; 8] {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(&bytes[..n]);
            b
        };
        match self {
            ScalarType::F32 => print_float(f32::from_le_bytes(word(4)[..4].try_into().unwrap()).into()),
            ScalarType::I32 => i32::from_le_bytes(word(4)[..4].try_into().unwrap()).to_string(),
            ScalarType::U32 => u32::from_le_bytes(word(4)[..4].try_into().unwrap()).to_string(),
            ScalarType::F64 => print_float(f64::from_le_bytes(word(8))),
            ScalarType::I64 => i64::from_le_bytes(word(8)).to_string(),
            ScalarType::U64 => u64::from_le_bytes(word(8)).to_string(),
        }
    }
}

/// C's `%f`: six decimals, `nan`, `inf`, `-inf`.
fn print_float(v: f64) -> String {
    if v.is_nan() {
        "nan".to_string()
    } else if v.is_infinite() {
        (if v > 0.0 { "inf" } else { "-inf" }).to_string()
    } else {
        format!("{v:.6}")
    }
}

/// Where the scalars of one buffer element are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementLayout {
    /// Bytes from one element to the next.
    pub stride: u32,
    /// Each scalar of the element (vectors, matrices, arrays and structs
    /// flattened), by byte offset.
    pub scalars: Vec<(u32, ScalarType)>,
}

impl ElementLayout {
    /// A buffer of plain scalars.
    pub fn scalar(ty: ScalarType) -> Self {
        ElementLayout { stride: ty.size() as u32, scalars: vec![(0, ty)] }
    }
}

/// How to print an output buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputFormat {
    /// One uppercase hexadecimal 32-bit word per line.
    Hex,
    /// `type: <first scalar>` and one value per line.
    Typed(ElementLayout),
}

/// The print of a buffer's contents, one line each (no trailing newline).
pub fn render(bytes: &[u8], format: &OutputFormat) -> Vec<String> {
    match format {
        OutputFormat::Hex => bytes
            .chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                format!("{:X}", u32::from_le_bytes(w))
            })
            .collect(),
        OutputFormat::Typed(layout) => {
            let header = layout.scalars.first().map_or("float", |s| s.1.slang_name());
            let mut lines = vec![format!("type: {header}")];
            let stride = layout.stride.max(1) as usize;
            for element in bytes.chunks(stride) {
                for &(offset, ty) in &layout.scalars {
                    let offset = offset as usize;
                    if offset + ty.size() <= element.len() {
                        lines.push(ty.print(&element[offset..]));
                    }
                }
            }
            lines
        }
    }
}

/// Compare a print with the text of an `.expected.txt` file: `Err` tells
/// the first mismatch. Blank lines are ignored; extra printed lines too.
pub fn compare_expected(actual: &[String], expected: &str) -> Result<(), String> {
    let expected: Vec<&str> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let actual: Vec<&str> = actual.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
    let header = |l: &str| l.strip_prefix("type:").map(str::trim).map(str::to_string);
    let (expected_type, expected_values) = match expected.first().and_then(|l| header(l)) {
        Some(t) => (Some(t), &expected[1..]),
        None => (None, &expected[..]),
    };
    let (actual_type, actual_values) = match actual.first().and_then(|l| header(l)) {
        Some(t) => (Some(t), &actual[1..]),
        None => (None, &actual[..]),
    };
    if expected_type != actual_type {
        let show = |t: &Option<String>| t.as_ref().map_or("hex words".to_string(), |t| format!("`type: {t}`"));
        return Err(format!("output format: expected {}, got {}", show(&expected_type), show(&actual_type)));
    }
    let float = expected_type.as_deref().and_then(ScalarType::from_slang_name).is_some_and(ScalarType::is_float);
    for (index, want) in expected_values.iter().enumerate() {
        let Some(got) = actual_values.get(index) else {
            return Err(format!(
                "index {index}: expected {want}, got nothing (the output has {} values)",
                actual_values.len()
            ));
        };
        let same = if float {
            match (want.parse::<f64>(), got.parse::<f64>()) {
                (Ok(a), Ok(b)) => nearly_equal(a, b),
                _ => want == got,
            }
        } else if expected_type.is_none() {
            match (u32::from_str_radix(want, 16), u32::from_str_radix(got, 16)) {
                (Ok(a), Ok(b)) => a == b,
                _ => want.eq_ignore_ascii_case(got),
            }
        } else {
            want == got
        };
        if !same {
            return Err(format!("index {index}: expected {want}, got {got}"));
        }
    }
    Ok(())
}

/// Slang's float comparison: a relative difference below 1e-4, exact when
/// either side is zero (both sides are printed with six decimals first,
/// so values below 5e-7 already print as zero).
pub fn nearly_equal(a: f64, b: f64) -> bool {
    const EPSILON: f64 = 1e-4;
    if a == b || (a.is_nan() && b.is_nan()) {
        return true;
    }
    if a == 0.0 || b == 0.0 || !a.is_finite() || !b.is_finite() {
        return false;
    }
    (a - b).abs() / (a.abs() + b.abs()) < EPSILON
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn renders_typed_and_hex() {
        let bytes = floats(&[1.0, -2.5]);
        let typed = render(&bytes, &OutputFormat::Typed(ElementLayout::scalar(ScalarType::F32)));
        assert_eq!(typed, ["type: float", "1.000000", "-2.500000"]);
        assert_eq!(render(&bytes, &OutputFormat::Hex), ["3F800000", "C0200000"]);
        let ints: Vec<u8> = [-1i32, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
        let typed = render(&ints, &OutputFormat::Typed(ElementLayout::scalar(ScalarType::I32)));
        assert_eq!(typed, ["type: int32_t", "-1", "7"]);
        // A struct { float a; uint b; } with 8 bytes of padding.
        let layout = ElementLayout { stride: 16, scalars: vec![(0, ScalarType::F32), (4, ScalarType::U32)] };
        let mut bytes = floats(&[0.5]);
        bytes.extend(3u32.to_le_bytes());
        bytes.extend([0u8; 8]);
        assert_eq!(render(&bytes, &OutputFormat::Typed(layout)), ["type: float", "0.500000", "3"]);
    }

    #[test]
    fn compares_with_tolerance() {
        let actual: Vec<String> =
            ["type: float", "1.000050", "2.000000", "0.000000", "9.000000"].map(String::from).into();
        assert_eq!(compare_expected(&actual, "type: float\n1.0\n2\n-0.0\n"), Ok(()));
        assert_eq!(
            compare_expected(&actual, "type: float\n1.0\n2.001\n"),
            Err("index 1: expected 2.001, got 2.000000".into())
        );
        assert!(compare_expected(&actual, "type: float\n1\n2\n0\n9\n10\n").unwrap_err().contains("got nothing"));
        assert!(compare_expected(&actual, "type: int32_t\n1\n").unwrap_err().contains("output format"));
    }

    #[test]
    fn compares_text_and_hex() {
        let ints: Vec<String> = ["type: int32_t", "3", "-4"].map(String::from).into();
        assert_eq!(compare_expected(&ints, "type: int32_t\n3\n-4\n"), Ok(()));
        assert!(compare_expected(&ints, "type: int32_t\n3\n4\n").is_err());
        let hex: Vec<String> = ["3F800000", "0"].map(String::from).into();
        assert_eq!(compare_expected(&hex, "3f800000\n00000000\n"), Ok(()));
        assert!(compare_expected(&hex, "3F800001\n").is_err());
    }

    #[test]
    fn tolerance() {
        assert!(nearly_equal(1.0, 1.00001));
        assert!(!nearly_equal(1.0, 1.001));
        assert!(!nearly_equal(0.0, 1e-6));
        assert!(nearly_equal(f64::INFINITY, f64::INFINITY));
        assert!(!nearly_equal(f64::INFINITY, 1.0));
    }
}
