//! Scalar types and their names (`int`, `float16_t`, `float3x3` …): what
//! both the type model ([`crate::ty`]) and the constant evaluator
//! ([`crate::hir::consteval`]) know of them.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Half,
    Float,
    Double,
}

impl Scalar {
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "int8_t" => Scalar::Int8,
            "int16_t" | "min16int" => Scalar::Int16,
            "int" | "int32_t" | "min12int" => Scalar::Int32,
            "int64_t" => Scalar::Int64,
            "uint8_t" => Scalar::UInt8,
            "uint16_t" | "min16uint" => Scalar::UInt16,
            "uint" | "uint32_t" | "dword" => Scalar::UInt32,
            "uint64_t" => Scalar::UInt64,
            "half" | "float16_t" | "min16float" | "min10float" => Scalar::Half,
            "float" | "float32_t" => Scalar::Float,
            "double" | "float64_t" => Scalar::Double,
            _ => return None,
        })
    }

    /// `float3` (`(Float, 3, None)`), `int2x4` (`(Int32, 2, Some(4))`).
    pub fn parse_alias(name: &str) -> Option<(Scalar, u8, Option<u8>)> {
        let digits_at = name.find(|c: char| c.is_ascii_digit())?;
        let (base, dims) = name.split_at(digits_at);
        let s = Scalar::from_name(base)?;
        let dims: Vec<&str> = dims.split('x').collect();
        let d = |t: &str| t.parse::<u8>().ok().filter(|n| (1..=4).contains(n));
        match dims.as_slice() {
            [n] => Some((s, d(n)?, None)),
            [r, c] => Some((s, d(r)?, Some(d(c)?))),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Int8 => "int8_t",
            Scalar::Int16 => "int16_t",
            Scalar::Int32 => "int",
            Scalar::Int64 => "int64_t",
            Scalar::UInt8 => "uint8_t",
            Scalar::UInt16 => "uint16_t",
            Scalar::UInt32 => "uint",
            Scalar::UInt64 => "uint64_t",
            Scalar::Half => "half",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Half | Scalar::Float | Scalar::Double)
    }

    /// HLSL promotion order for binary operators.
    pub fn rank(self) -> u8 {
        match self {
            Scalar::Bool => 0,
            Scalar::Int8 => 1,
            Scalar::UInt8 => 2,
            Scalar::Int16 => 3,
            Scalar::UInt16 => 4,
            Scalar::Int32 => 5,
            Scalar::UInt32 => 6,
            Scalar::Int64 => 7,
            Scalar::UInt64 => 8,
            Scalar::Half => 9,
            Scalar::Float => 10,
            Scalar::Double => 11,
        }
    }

    pub fn promote(a: Scalar, b: Scalar) -> Scalar {
        if a.rank() >= b.rank() {
            a
        } else {
            b
        }
    }
}
