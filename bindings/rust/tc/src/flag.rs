//! Flags: named int64 values describing the build and machine (read-only)
//! or changing behaviour (settable).
use std::ffi::c_char;

use crate::error::{check, Result};
use crate::ffi::{c_string, static_str};
use tc_sys as sys;

/// The flag names tc.h documents, for use with [`get_flag`] / [`set_flag`].
pub mod names {
    /// CUDA backend built in (0/1).
    pub const HAS_CUDA: &str = "has_cuda";
    /// cuBLAS built in (0/1).
    pub const HAS_CUBLAS: &str = "has_cublas";
    /// oneDNN built in (0/1).
    pub const HAS_ONEDNN: &str = "has_onednn";
    /// OpenMP built in (0/1).
    pub const HAS_OPENMP: &str = "has_openmp";
    /// MKL built in (0/1).
    pub const HAS_MKL: &str = "has_mkl";
    /// LAPACK built in (0/1).
    pub const HAS_LAPACK: &str = "has_lapack";
    /// Built with the C++11 ABI (0/1).
    pub const CXX11_ABI: &str = "cxx11_abi";
    /// A GPU and driver usable now.
    pub const CUDA_AVAILABLE: &str = "cuda_available";
    /// The cuda stage has run successfully.
    pub const CUDA_INITIALIZED: &str = "cuda_initialized";
    /// GPUs usable now.
    pub const CUDA_DEVICE_COUNT: &str = "cuda_device_count";
    /// Intra-op threads (settable, >= 1).
    pub const NUM_THREADS: &str = "num_threads";
    /// Autograd records graphs (settable, per thread).
    pub const GRAD_ENABLED: &str = "grad_enabled";
    /// Only deterministic algorithms (settable, 0/1).
    pub const DETERMINISTIC: &str = "deterministic";
    /// `TC_FLOAT32` or `TC_FLOAT64` (settable).
    pub const DEFAULT_DTYPE: &str = "default_dtype";
    /// Tensors alive now (so tests can prove no leak).
    pub const LIVE_TENSORS: &str = "live_tensors";
    /// Bytes of CPU tensor data allocated now (the allocator's caches not counted).
    pub const CPU_ALLOCATED_BYTES: &str = "cpu_allocated_bytes";
    /// The highest `cpu_allocated_bytes` since the start or the last reset
    /// (settable to 0 only: resets it).
    pub const CPU_PEAK_ALLOCATED_BYTES: &str = "cpu_peak_allocated_bytes";
    /// Handles of any kind alive now.
    pub const LIVE_HANDLES: &str = "live_handles";
}

/// A flag's value (`tc_get_flag`). An unknown name is
/// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// let _tc = tc::init()?;
/// assert!(tc::get_flag(tc::flags::NUM_THREADS)? >= 1);
/// let err = tc::get_flag("no_such_flag").unwrap_err();
/// assert_eq!(err.kind(), tc::ErrorKind::InvalidArgument);
/// # Ok(()) }
/// ```
pub fn get_flag(name: &str) -> Result<i64> {
    let name = c_string(name)?;
    let mut out = 0i64;
    check(unsafe { sys::tc_get_flag(name.as_ptr(), &mut out) })?;
    Ok(out)
}

/// Sets a settable flag (`tc_set_flag`); a read-only flag or a bad value
/// is [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument).
pub fn set_flag(name: &str, value: i64) -> Result<()> {
    let name = c_string(name)?;
    check(unsafe { sys::tc_set_flag(name.as_ptr(), value) })
}

/// One flag as [`flags`] lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlagInfo {
    /// Its name.
    pub name: &'static str,
    /// Whether [`set_flag`] may change it.
    pub settable: bool,
}

/// Every flag libtc knows, with whether it is settable.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// let _tc = tc::init()?;
/// let all = tc::flags()?;
/// assert!(all.iter().any(|f| f.name == "live_tensors" && !f.settable));
/// # Ok(()) }
/// ```
pub fn flags() -> Result<Vec<FlagInfo>> {
    let mut count = 0i64;
    check(unsafe { sys::tc_flag_count(&mut count) })?;
    (0..count)
        .map(|i| {
            let mut name: *const c_char = std::ptr::null();
            let mut settable = 0i32;
            check(unsafe { sys::tc_flag_info(i, &mut name, &mut settable) })?;
            // SAFETY: tc.h: the name is a static string.
            Ok(FlagInfo {
                name: unsafe { static_str(name) },
                settable: settable != 0,
            })
        })
        .collect()
}
