//! Element types ([`DType`], [`Element`]) and devices ([`Device`]).
use std::fmt;

use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::{c_string, copy_string};
use tc_sys as sys;

/// A tensor's element type: one variant per `TC_*` dtype code of tc.h.
///
/// ```
/// use tc::DType;
/// assert_eq!(DType::Float32.name(), "float32");
/// assert_eq!(DType::Int64.size(), 8);
/// assert_eq!(DType::from_code(tc_sys::TC_BOOL), Some(DType::Bool));
/// assert!(DType::Float64.is_floating() && !DType::Int32.is_floating());
/// ```
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `TC_FLOAT32`
    Float32,
    /// `TC_FLOAT64`
    Float64,
    /// `TC_FLOAT16` (IEEE half; conversion only on the CPU)
    Float16,
    /// `TC_BFLOAT16` (conversion only on the CPU)
    BFloat16,
    /// `TC_INT8`
    Int8,
    /// `TC_INT16`
    Int16,
    /// `TC_INT32`
    Int32,
    /// `TC_INT64`
    Int64,
    /// `TC_UINT8`
    UInt8,
    /// `TC_BOOL` (one byte, 0 or 1)
    Bool,
    /// `TC_COMPLEX64`: (float32, float32) pairs; only some ops take it (tc.h)
    Complex64,
    /// `TC_COMPLEX128`: (float64, float64) pairs
    Complex128,
}

impl DType {
    /// Every dtype, in code order.
    pub const ALL: [DType; 12] = [
        DType::Float32,
        DType::Float64,
        DType::Float16,
        DType::BFloat16,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::Bool,
        DType::Complex64,
        DType::Complex128,
    ];

    /// The `TC_*` code.
    pub fn code(self) -> i32 {
        match self {
            DType::Float32 => sys::TC_FLOAT32,
            DType::Float64 => sys::TC_FLOAT64,
            DType::Float16 => sys::TC_FLOAT16,
            DType::BFloat16 => sys::TC_BFLOAT16,
            DType::Int8 => sys::TC_INT8,
            DType::Int16 => sys::TC_INT16,
            DType::Int32 => sys::TC_INT32,
            DType::Int64 => sys::TC_INT64,
            DType::UInt8 => sys::TC_UINT8,
            DType::Bool => sys::TC_BOOL,
            DType::Complex64 => sys::TC_COMPLEX64,
            DType::Complex128 => sys::TC_COMPLEX128,
        }
    }

    /// The dtype of a `TC_*` code, `None` for an unknown one.
    pub fn from_code(code: i32) -> Option<DType> {
        DType::ALL.iter().copied().find(|d| d.code() == code)
    }

    /// The name libtc gives it (`tc_dtype_name`): "float32", "int64", "bool"...
    pub fn name(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::UInt8 => "uint8",
            DType::Bool => "bool",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// Bytes per element (`tc_dtype_size`).
    pub fn size(self) -> usize {
        match self {
            DType::Complex128 => 16,
            DType::Float64 | DType::Int64 | DType::Complex64 => 8,
            DType::Float32 | DType::Int32 => 4,
            DType::Float16 | DType::BFloat16 | DType::Int16 => 2,
            DType::Int8 | DType::UInt8 | DType::Bool => 1,
        }
    }

    /// Floating-point dtypes (the ones that can require grad).
    pub fn is_floating(self) -> bool {
        matches!(
            self,
            DType::Float32 | DType::Float64 | DType::Float16 | DType::BFloat16
        )
    }

    /// Complex dtypes (complex64, complex128); they can require grad too.
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }

    /// The dtype of a name or alias, as libtc parses it ("float", "long",
    /// "double", ...). Needs a live [`InitGuard`](crate::InitGuard).
    pub fn from_name(name: &str) -> Result<DType> {
        let name = c_string(name)?;
        let mut code = 0i32;
        check(unsafe { sys::tc_dtype_from_name(name.as_ptr(), &mut code) })?;
        DType::from_code(code).ok_or_else(|| unknown_dtype(code))
    }

    /// The dtype PyTorch's promotion rules give to tensors of `a` and `b`
    /// (`tc_promote_types`).
    pub fn promote(a: DType, b: DType) -> Result<DType> {
        let mut code = 0i32;
        check(unsafe { sys::tc_promote_types(a.code(), b.code(), &mut code) })?;
        DType::from_code(code).ok_or_else(|| unknown_dtype(code))
    }
}

pub(crate) fn unknown_dtype(code: i32) -> Error {
    Error::new(
        ErrorKind::Dtype,
        format!("libtc returned dtype code {code}, unknown to this crate"),
    )
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a tensor lives: the CPU or one CUDA GPU.
///
/// ```
/// use tc::Device;
/// assert_eq!(Device::from_raw(tc_sys::TC_CPU), Some(Device::Cpu));
/// assert_eq!(Device::Cuda(1).raw(), (1 << 16) | 1);
/// ```
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Device {
    /// The CPU (`TC_CPU`).
    #[default]
    Cpu,
    /// The CUDA GPU with this index.
    Cuda(u16),
}

impl Device {
    /// The `TC_DEVICE(type, index)` value.
    pub fn raw(self) -> i32 {
        match self {
            Device::Cpu => sys::TC_CPU,
            Device::Cuda(i) => sys::TC_DEVICE(sys::TC_DEVICE_CUDA, i32::from(i)),
        }
    }

    /// The device of a `TC_DEVICE` value, `None` for an unknown type.
    pub fn from_raw(raw: i32) -> Option<Device> {
        match sys::TC_DEVICE_TYPE(raw) {
            sys::TC_DEVICE_CPU => Some(Device::Cpu),
            sys::TC_DEVICE_CUDA => Some(Device::Cuda(sys::TC_DEVICE_INDEX(raw) as u16)),
            _ => None,
        }
    }

    /// libtc's name for the device ("cpu", "cuda:0"), `tc_device_name`.
    pub fn name(self) -> Result<String> {
        copy_string(|buf, cap, needed| unsafe { sys::tc_device_name(self.raw(), buf, cap, needed) })
    }

    /// The device of a name ("cpu", "cuda", "cuda:1"), `tc_device_from_name`.
    pub fn from_name(name: &str) -> Result<Device> {
        let name = c_string(name)?;
        let mut raw = 0i32;
        check(unsafe { sys::tc_device_from_name(name.as_ptr(), &mut raw) })?;
        Device::from_raw(raw).ok_or_else(|| {
            Error::new(
                ErrorKind::Device,
                format!("libtc returned device {raw:#x}, unknown to this crate"),
            )
        })
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type whose values are a libtc dtype's elements bit for bit, so
/// tensors convert from and to `Vec<T>` and `&[T]` (with a dtype check).
///
/// Sealed: implemented for `f32`, `f64`, `i8`, `i16`, `i32`, `i64` and `u8`.
/// (`bool` is not: libtc's bool bytes are read as `u8`, see
/// [`Tensor::to_vec_bool`](crate::Tensor::to_vec_bool).)
pub trait Element: Copy + Send + Sync + 'static + sealed::Sealed {
    /// The dtype of these elements.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
        }
    )*};
}
element!(f32 => Float32, f64 => Float64, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, u8 => UInt8);
