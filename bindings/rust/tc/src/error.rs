//! Errors: every libtc status code as an [`ErrorKind`], with the calling
//! thread's message from `tc_last_error_copy`.
use std::fmt;

use crate::ffi::copy_string;
use tc_sys as sys;

/// What kind of failure a libtc call reported: one variant per `TC_ERR_*`
/// status code of tc.h, plus the kinds only this crate reports.
///
/// Non-exhaustive: later versions of libtc may add status codes.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `TC_ERR_INVALID_ARGUMENT`: a bad value (unknown flag, bad option).
    InvalidArgument,
    /// `TC_ERR_INVALID_HANDLE`: a freed or stale handle (e.g. a tensor used
    /// after the last [`InitGuard`](crate::InitGuard) was dropped).
    InvalidHandle,
    /// `TC_ERR_NOT_INITIALIZED`: called without a live [`InitGuard`](crate::InitGuard).
    NotInitialized,
    /// `TC_ERR_SHAPE`: shapes that do not fit together.
    Shape,
    /// `TC_ERR_DTYPE`: an unsupported or mismatched dtype.
    Dtype,
    /// `TC_ERR_INDEX`: a dim or index out of range.
    Index,
    /// `TC_ERR_OUT_OF_MEMORY`: an allocation failed.
    OutOfMemory,
    /// `TC_ERR_DEVICE`: a device (CUDA, cuBLAS) call failed.
    Device,
    /// `TC_ERR_NOT_COMPILED`: the feature was not built into libtc.
    NotCompiled,
    /// `TC_ERR_UNAVAILABLE`: built in, but not usable now (no GPU).
    Unavailable,
    /// `TC_ERR_NOT_IMPLEMENTED`: a valid request libtc cannot do yet.
    NotImplemented,
    /// `TC_ERR_AUTOGRAD`: backward misuse (freed graph, in-place on a leaf).
    Autograd,
    /// `TC_ERR_IO`: an I/O or format error.
    Io,
    /// `TC_ERR_INTERNAL`: a bug in libtc.
    Internal,
    /// `TC_ERR_CALLBACK`: a caller's callback (hook, custom function) failed.
    Callback,
    /// `TC_ERR_TIMEOUT`: a blocking call gave up (a process group's peer
    /// died, hangs, or called another collective).
    Timeout,
    /// The loaded libtc reports another ABI version than the one this crate
    /// was generated from (reported by [`init`](crate::init), never by libtc).
    AbiMismatch,
    /// A status code this crate does not know (a newer libtc).
    Unknown(i32),
}

impl ErrorKind {
    /// The kind of a non-zero status code.
    pub fn from_code(code: i32) -> ErrorKind {
        match code {
            sys::TC_ERR_INVALID_ARGUMENT => ErrorKind::InvalidArgument,
            sys::TC_ERR_INVALID_HANDLE => ErrorKind::InvalidHandle,
            sys::TC_ERR_NOT_INITIALIZED => ErrorKind::NotInitialized,
            sys::TC_ERR_SHAPE => ErrorKind::Shape,
            sys::TC_ERR_DTYPE => ErrorKind::Dtype,
            sys::TC_ERR_INDEX => ErrorKind::Index,
            sys::TC_ERR_OUT_OF_MEMORY => ErrorKind::OutOfMemory,
            sys::TC_ERR_DEVICE => ErrorKind::Device,
            sys::TC_ERR_NOT_COMPILED => ErrorKind::NotCompiled,
            sys::TC_ERR_UNAVAILABLE => ErrorKind::Unavailable,
            sys::TC_ERR_NOT_IMPLEMENTED => ErrorKind::NotImplemented,
            sys::TC_ERR_AUTOGRAD => ErrorKind::Autograd,
            sys::TC_ERR_IO => ErrorKind::Io,
            sys::TC_ERR_INTERNAL => ErrorKind::Internal,
            sys::TC_ERR_CALLBACK => ErrorKind::Callback,
            sys::TC_ERR_TIMEOUT => ErrorKind::Timeout,
            other => ErrorKind::Unknown(other),
        }
    }

    /// The libtc status code of this kind. `AbiMismatch` has no code of its
    /// own and gives `TC_ERR_INVALID_ARGUMENT`.
    pub fn code(self) -> i32 {
        match self {
            ErrorKind::InvalidArgument | ErrorKind::AbiMismatch => sys::TC_ERR_INVALID_ARGUMENT,
            ErrorKind::InvalidHandle => sys::TC_ERR_INVALID_HANDLE,
            ErrorKind::NotInitialized => sys::TC_ERR_NOT_INITIALIZED,
            ErrorKind::Shape => sys::TC_ERR_SHAPE,
            ErrorKind::Dtype => sys::TC_ERR_DTYPE,
            ErrorKind::Index => sys::TC_ERR_INDEX,
            ErrorKind::OutOfMemory => sys::TC_ERR_OUT_OF_MEMORY,
            ErrorKind::Device => sys::TC_ERR_DEVICE,
            ErrorKind::NotCompiled => sys::TC_ERR_NOT_COMPILED,
            ErrorKind::Unavailable => sys::TC_ERR_UNAVAILABLE,
            ErrorKind::NotImplemented => sys::TC_ERR_NOT_IMPLEMENTED,
            ErrorKind::Autograd => sys::TC_ERR_AUTOGRAD,
            ErrorKind::Io => sys::TC_ERR_IO,
            ErrorKind::Internal => sys::TC_ERR_INTERNAL,
            ErrorKind::Callback => sys::TC_ERR_CALLBACK,
            ErrorKind::Timeout => sys::TC_ERR_TIMEOUT,
            ErrorKind::Unknown(code) => code,
        }
    }

    /// The stable name of the status code, as `tc_status_name` gives it
    /// (`"TC_ERR_SHAPE"`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidArgument => "TC_ERR_INVALID_ARGUMENT",
            ErrorKind::InvalidHandle => "TC_ERR_INVALID_HANDLE",
            ErrorKind::NotInitialized => "TC_ERR_NOT_INITIALIZED",
            ErrorKind::Shape => "TC_ERR_SHAPE",
            ErrorKind::Dtype => "TC_ERR_DTYPE",
            ErrorKind::Index => "TC_ERR_INDEX",
            ErrorKind::OutOfMemory => "TC_ERR_OUT_OF_MEMORY",
            ErrorKind::Device => "TC_ERR_DEVICE",
            ErrorKind::NotCompiled => "TC_ERR_NOT_COMPILED",
            ErrorKind::Unavailable => "TC_ERR_UNAVAILABLE",
            ErrorKind::NotImplemented => "TC_ERR_NOT_IMPLEMENTED",
            ErrorKind::Autograd => "TC_ERR_AUTOGRAD",
            ErrorKind::Io => "TC_ERR_IO",
            ErrorKind::Internal => "TC_ERR_INTERNAL",
            ErrorKind::Callback => "TC_ERR_CALLBACK",
            ErrorKind::Timeout => "TC_ERR_TIMEOUT",
            ErrorKind::AbiMismatch => "ABI_MISMATCH",
            ErrorKind::Unknown(_) => "TC_ERR_UNKNOWN",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Unknown(code) => write!(f, "unknown status {code}"),
            kind => f.write_str(kind.name()),
        }
    }
}

/// A failed libtc call: its [`ErrorKind`] and libtc's message (function,
/// offending argument, shapes and dtypes).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// let _tc = tc::init()?;
/// let a = tc::Tensor::zeros(&[2, 3], tc::DType::Float32, tc::Device::Cpu)?;
/// let b = tc::Tensor::zeros(&[4], tc::DType::Float32, tc::Device::Cpu)?;
/// let err = (&a + &b).unwrap_err();
/// assert_eq!(err.kind(), tc::ErrorKind::Shape);
/// assert!(!err.message().is_empty());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` with `message` (for errors found on the Rust side,
    /// like a dtype mismatch in [`Tensor::to_vec`](crate::Tensor::to_vec)).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// The error for a failed call that returned `status`, with the calling
    /// thread's last libtc message.
    pub(crate) fn from_status(status: i32) -> Error {
        let message = copy_string(|buf, cap, needed| unsafe { sys::tc_last_error_copy(buf, cap, needed) })
            .unwrap_or_default();
        Error {
            kind: ErrorKind::from_code(status),
            message,
        }
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The status code (`TC_ERR_*`).
    pub fn code(&self) -> i32 {
        self.kind.code()
    }

    /// libtc's message for the failure ("" when it gave none).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

impl std::error::Error for Error {}

/// The stable name libtc gives a status code (`tc_status_name`):
/// `"TC_OK"`, `"TC_ERR_SHAPE"`... Unknown codes give `None`. Callable
/// without [`init`](crate::init).
///
/// ```
/// assert_eq!(tc::status_name(tc_sys::TC_ERR_DTYPE), Some("TC_ERR_DTYPE"));
/// assert_eq!(tc::status_name(12345), None);
/// ```
pub fn status_name(code: i32) -> Option<&'static str> {
    let mut name: *const std::ffi::c_char = std::ptr::null();
    let status = unsafe { sys::tc_status_name(code, &mut name) };
    // SAFETY: tc.h: the string is static.
    (status == sys::TC_OK).then(|| unsafe { crate::ffi::static_str(name) })
}

/// The calling thread's last libtc failure (`tc_last_error_code` and its
/// message), `None` if there was none. Useful after calling `tc_sys`
/// directly; this crate's own calls return their [`Error`] already.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// let _tc = tc::init()?;
/// let _ = tc::get_flag("no_such_flag");
/// let last = tc::last_error().expect("a failure happened on this thread");
/// assert_eq!(last.kind(), tc::ErrorKind::InvalidArgument);
/// assert!(last.message().contains("no_such_flag"));
/// # Ok(()) }
/// ```
pub fn last_error() -> Option<Error> {
    let mut code = sys::TC_OK;
    let status = unsafe { sys::tc_last_error_code(&mut code) };
    (status == sys::TC_OK && code != sys::TC_OK).then(|| Error::from_status(code))
}

/// `Result<T, tc::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Ok for `TC_OK`, else the error with this thread's message.
pub(crate) fn check(status: i32) -> Result<()> {
    if status == sys::TC_OK {
        Ok(())
    } else {
        Err(Error::from_status(status))
    }
}
