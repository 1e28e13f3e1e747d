//! Custom op libraries (tc.h, "Custom op libraries"; `torch.ops.load_library`):
//! [`load_library`] loads a shared library whose entry point registers ops,
//! all or none; [`Op::find`] looks one up by its full name and [`Op::call`]
//! runs it (recording autograd when the op has a backward).
use std::ffi::c_char;
use std::path::Path;

use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::{c_string, copy_string, len_i64};
use crate::Tensor;
use tc_sys as sys;

/// A loaded op library. Dropping it (or [`Library::unload`]) frees its
/// handle; when no other handle holds the library its ops are unregistered,
/// and its code stays mapped while an [`Op`] or a graph still uses it.
pub struct Library {
    raw: sys::tc_library,
}

// SAFETY: libtc's handles are thread-safe (tc.h: any function, any thread).
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("path", &self.path().unwrap_or_default())
            .finish()
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            let _ = unsafe { sys::tc_library_unload(self.raw) };
        }
    }
}

/// Loads the op library at `path` and registers its ops. A broken library
/// (no entry point, another ABI version, a duplicate op name, a failing
/// entry point) is an error with libtc's message and registers nothing.
/// Loading an already loaded library gives another handle to it.
pub fn load_library(path: impl AsRef<Path>) -> Result<Library> {
    let p = path.as_ref().to_str().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("path is not UTF-8: {:?}", path.as_ref()),
        )
    })?;
    let c = c_string(p)?;
    let mut raw: sys::tc_library = std::ptr::null_mut();
    check(unsafe { sys::tc_load_library(c.as_ptr(), &mut raw) })?;
    Ok(Library { raw })
}

impl Library {
    /// The path it was loaded from.
    pub fn path(&self) -> Result<String> {
        copy_string(|buf, cap, needed| unsafe { sys::tc_library_path(self.raw, buf, cap, needed) })
    }

    /// Frees this handle now, reporting libtc's status (drop ignores it).
    pub fn unload(mut self) -> Result<()> {
        let raw = std::mem::replace(&mut self.raw, std::ptr::null_mut());
        check(unsafe { sys::tc_library_unload(raw) })
    }
}

/// Every registered op's full name ("myops::scaled_square"), sorted.
pub fn op_names() -> Result<Vec<String>> {
    let mut n = 0i64;
    check(unsafe { sys::tc_op_count(&mut n) })?;
    (0..n)
        .map(|i| copy_string(|buf, cap, needed| unsafe { sys::tc_op_name_at(i, buf, cap, needed) }))
        .collect()
}

/// A registered op (it keeps its library loaded while it lives).
pub struct Op {
    raw: sys::tc_op,
    n_outputs: usize,
}

// SAFETY: as Library.
unsafe impl Send for Op {}
unsafe impl Sync for Op {}

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Op")
            .field("schema", &self.schema().unwrap_or_default())
            .finish()
    }
}

impl Drop for Op {
    fn drop(&mut self) {
        let _ = unsafe { sys::tc_op_free(self.raw) };
    }
}

fn tensor_handles(inputs: &[&Tensor]) -> Vec<sys::tc_tensor> {
    inputs.iter().map(|t| t.as_raw()).collect()
}

fn wrap_outputs(outs: &[sys::tc_tensor], count: i64) -> Result<Vec<Tensor>> {
    outs[..count as usize]
        .iter()
        .map(|&h| unsafe { Tensor::from_raw(h) })
        .collect()
}

impl Op {
    /// The registered op named `name` ("namespace::name"); an unknown name
    /// is an [`ErrorKind::Index`] error.
    pub fn find(name: &str) -> Result<Op> {
        let c = c_string(name)?;
        let mut raw: sys::tc_op = std::ptr::null_mut();
        check(unsafe { sys::tc_op_find(c.as_ptr(), &mut raw) })?;
        let mut op = Op { raw, n_outputs: 1 };
        let schema = op.schema()?;
        let ret = schema.rsplit("->").next().unwrap_or("");
        op.n_outputs = ret.matches("Tensor").count().max(1);
        Ok(op)
    }

    /// Its canonical schema ("myops::scaled_square(Tensor x, float alpha) -> Tensor").
    pub fn schema(&self) -> Result<String> {
        copy_string(|buf, cap, needed| unsafe { sys::tc_op_schema(self.raw, buf, cap, needed) })
    }

    /// The path of the library that registered it.
    pub fn library_path(&self) -> Result<String> {
        copy_string(|buf, cap, needed| unsafe { sys::tc_op_library_path(self.raw, buf, cap, needed) })
    }

    /// Calls it with its Tensor arguments and its float/int arguments, each
    /// in schema order; returns its outputs.
    pub fn call(&self, tensors: &[&Tensor], scalars: &[f64]) -> Result<Vec<Tensor>> {
        let ins = tensor_handles(tensors);
        let mut outs: Vec<sys::tc_tensor> = vec![std::ptr::null_mut(); self.n_outputs];
        let mut count = 0i64;
        check(unsafe {
            sys::tc_op_call(
                self.raw,
                ins.as_ptr(),
                len_i64(ins.len()),
                scalars.as_ptr(),
                len_i64(scalars.len()),
                outs.as_mut_ptr(),
                len_i64(outs.len()),
                &mut count,
            )
        })?;
        wrap_outputs(&outs, count)
    }
}

/// Calls the registered op `name` once (no [`Op`] kept); outputs up to
/// [`tc_sys::TC_FUNCTION_MAX_OUTPUTS`].
pub fn call_op(name: &str, tensors: &[&Tensor], scalars: &[f64]) -> Result<Vec<Tensor>> {
    let c = c_string(name)?;
    let ins = tensor_handles(tensors);
    let mut outs: Vec<sys::tc_tensor> = vec![std::ptr::null_mut(); sys::TC_FUNCTION_MAX_OUTPUTS as usize];
    let mut count = 0i64;
    let name_ptr: *const c_char = c.as_ptr();
    check(unsafe {
        sys::tc_op_call_by_name(
            name_ptr,
            ins.as_ptr(),
            len_i64(ins.len()),
            scalars.as_ptr(),
            len_i64(scalars.len()),
            outs.as_mut_ptr(),
            len_i64(outs.len()),
            &mut count,
        )
    })?;
    wrap_outputs(&outs, count)
}
