//! CUDA allocator statistics, the float32 matmul precision, and DLPack interop.
use std::ffi::c_void;

use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::new_tensor;
use crate::{Device, Tensor};
use tc_sys as sys;

/// Caching-allocator statistics of one CUDA device, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CudaMemoryStats {
    /// Held by live tensors.
    pub allocated: i64,
    /// Held by the cache from the driver.
    pub reserved: i64,
    /// Highest `allocated` since start or reset.
    pub peak_allocated: i64,
}

/// The allocator statistics of `device` (a CUDA device).
pub fn cuda_memory_stats(device: Device) -> Result<CudaMemoryStats> {
    // SAFETY: all-zero is a valid tc_cuda_memory_stats.
    let mut raw: sys::tc_cuda_memory_stats = unsafe { std::mem::zeroed() };
    raw.size = std::mem::size_of::<sys::tc_cuda_memory_stats>() as u32;
    check(unsafe { sys::tc_cuda_memory_stats_get(device.raw(), &mut raw) })?;
    Ok(CudaMemoryStats {
        allocated: raw.allocated,
        reserved: raw.reserved,
        peak_allocated: raw.peak_allocated,
    })
}

/// Gives cached, unused CUDA blocks back to the driver.
pub fn cuda_empty_cache() -> Result<()> {
    check(unsafe { sys::tc_cuda_empty_cache() })
}

/// How float32 matrix products may trade precision for speed, like
/// `torch.set_float32_matmul_precision` (process-wide; CPU products and
/// other dtypes are unaffected).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MatmulPrecision {
    /// Plain float32 arithmetic (the default).
    #[default]
    Highest,
    /// TF32 tensor cores allowed on CUDA.
    High,
    /// The fastest reduced precision the device offers (TF32 on CUDA today).
    Medium,
}

impl MatmulPrecision {
    fn raw(self) -> i32 {
        match self {
            MatmulPrecision::Highest => sys::TC_MATMUL_PRECISION_HIGHEST,
            MatmulPrecision::High => sys::TC_MATMUL_PRECISION_HIGH,
            MatmulPrecision::Medium => sys::TC_MATMUL_PRECISION_MEDIUM,
        }
    }
}

/// Sets the float32 matmul precision (`tc_set_matmul_precision`).
pub fn set_float32_matmul_precision(precision: MatmulPrecision) -> Result<()> {
    check(unsafe { sys::tc_set_matmul_precision(precision.raw()) })
}

/// The float32 matmul precision (`tc_get_matmul_precision`).
pub fn float32_matmul_precision() -> Result<MatmulPrecision> {
    let mut out = -1i32;
    check(unsafe { sys::tc_get_matmul_precision(&mut out) })?;
    match out {
        sys::TC_MATMUL_PRECISION_HIGHEST => Ok(MatmulPrecision::Highest),
        sys::TC_MATMUL_PRECISION_HIGH => Ok(MatmulPrecision::High),
        sys::TC_MATMUL_PRECISION_MEDIUM => Ok(MatmulPrecision::Medium),
        other => Err(Error::new(
            ErrorKind::Internal,
            format!("tc_get_matmul_precision returned an unknown precision {other}"),
        )),
    }
}

/// DLPack.
impl Tensor {
    /// Exports the tensor as a `DLManagedTensorVersioned*` (DLPack 1.x). The
    /// caller owns it and must call its deleter exactly once.
    pub fn to_dlpack(&self) -> Result<*mut c_void> {
        let mut out: *mut c_void = std::ptr::null_mut();
        check(unsafe { sys::tc_to_dlpack(self.as_raw(), &mut out) })?;
        if out.is_null() {
            return Err(Error::new(ErrorKind::Internal, "tc_to_dlpack returned NULL"));
        }
        Ok(out)
    }

    /// Imports a DLPack tensor without copying: a `DLManagedTensorVersioned*`
    /// when `versioned`, else a legacy `DLManagedTensor*`. On success libtc
    /// owns it (and calls its deleter when the tensor dies); on failure the
    /// caller keeps it.
    ///
    /// # Safety
    /// `managed` must point to a valid DLPack managed tensor of that kind.
    pub unsafe fn from_dlpack(managed: *mut c_void, versioned: bool) -> Result<Tensor> {
        new_tensor(|out| sys::tc_from_dlpack(managed, i32::from(versioned), out))
    }
}
