//! Small helpers shared by the wrappers: the string copy-out pattern, C
//! strings in, handle out-params.
use std::ffi::{c_char, CStr, CString};

use crate::error::{check, Error, ErrorKind, Result};
use crate::Tensor;
use tc_sys as sys;

/// tc.h's copy-out pattern: `fn(buf, cap, &needed)`. Asks for the size,
/// then copies; retries if the text grew in between.
pub(crate) fn copy_string(mut f: impl FnMut(*mut c_char, i64, *mut i64) -> i32) -> Result<String> {
    let mut needed = 0i64;
    check(f(std::ptr::null_mut(), 0, &mut needed))?;
    loop {
        let cap = needed.max(1);
        let mut buf = vec![0u8; cap as usize];
        check(f(buf.as_mut_ptr().cast(), cap, &mut needed))?;
        if needed <= cap {
            let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            buf.truncate(len);
            return Ok(String::from_utf8_lossy(&buf).into_owned());
        }
    }
}

/// A NUL-terminated copy of `s` for a `const char*` argument.
pub(crate) fn c_string(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::new(ErrorKind::InvalidArgument, format!("string contains NUL: {s:?}")))
}

/// A static C string from libtc (names of statuses, dtypes, flags).
///
/// # Safety
/// `p` must be NULL or a NUL-terminated string that lives forever.
pub(crate) unsafe fn static_str(p: *const c_char) -> &'static str {
    if p.is_null() {
        ""
    } else {
        CStr::from_ptr(p).to_str().unwrap_or("")
    }
}

/// Calls `f` with a fresh `tc_tensor` out-param and wraps the handle it
/// makes.
pub(crate) fn new_tensor(f: impl FnOnce(*mut sys::tc_tensor) -> i32) -> Result<Tensor> {
    let mut out: sys::tc_tensor = std::ptr::null_mut();
    check(f(&mut out))?;
    Tensor::from_owned_raw(out)
}

/// i64 length for tc.h's `int64_t ndim/count` arguments.
pub(crate) fn len_i64(n: usize) -> i64 {
    n as i64
}
