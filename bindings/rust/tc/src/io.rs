//! Saving and loading: named collections of tensors ([`TensorDict`]) and
//! safetensors files (tc.h's tensor dict section), model parameters, and the
//! default generator's state.
use std::path::Path;

use crate::error::{check, Error, ErrorKind, Result};
use crate::ffi::{c_string, copy_string, new_tensor};
use crate::Tensor;
use tc_sys as sys;

/// An owned `tc_tensor_dict`: an ordered map name -> tensor plus string
/// metadata (a safetensors file's `__metadata__`). Drop frees it.
#[derive(Debug)]
pub struct TensorDict {
    raw: sys::tc_tensor_dict,
}

// SAFETY: libtc's dict handles may be used from any thread (their
// bookkeeping is locked); mutation takes `&mut self`.
unsafe impl Send for TensorDict {}
unsafe impl Sync for TensorDict {}

impl Drop for TensorDict {
    fn drop(&mut self) {
        let _ = unsafe { sys::tc_tensor_dict_free(self.raw) };
    }
}

fn path_string(path: &Path) -> Result<std::ffi::CString> {
    let s = path
        .to_str()
        .ok_or_else(|| Error::new(ErrorKind::InvalidArgument, format!("path is not UTF-8: {path:?}")))?;
    c_string(s)
}

impl TensorDict {
    pub(crate) fn from_owned_raw(raw: sys::tc_tensor_dict) -> Result<TensorDict> {
        if raw.is_null() {
            return Err(Error::new(
                ErrorKind::Internal,
                "libtc returned TC_OK and a NULL dict",
            ));
        }
        Ok(TensorDict { raw })
    }

    fn make(f: impl FnOnce(*mut sys::tc_tensor_dict) -> i32) -> Result<TensorDict> {
        let mut out: sys::tc_tensor_dict = std::ptr::null_mut();
        check(f(&mut out))?;
        TensorDict::from_owned_raw(out)
    }

    /// The raw handle (still owned by this dict).
    pub fn as_raw(&self) -> sys::tc_tensor_dict {
        self.raw
    }

    /// An empty dict.
    pub fn new() -> Result<TensorDict> {
        TensorDict::make(|out| unsafe { sys::tc_tensor_dict_create(out) })
    }

    /// A dict of these (name, tensor) pairs, in order.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a Tensor)>) -> Result<TensorDict> {
        let mut d = TensorDict::new()?;
        for (name, t) in pairs {
            d.insert(name, t)?;
        }
        Ok(d)
    }

    /// Stores `t` (another reference to the same tensor) under `name`,
    /// replacing a tensor stored under it before.
    pub fn insert(&mut self, name: &str, t: &Tensor) -> Result<()> {
        let n = c_string(name)?;
        check(unsafe { sys::tc_tensor_dict_set(self.raw, n.as_ptr(), t.as_raw()) })
    }

    /// The tensor under `name` (the same tensor, not a copy); a missing name
    /// is an [`ErrorKind::Index`] error.
    pub fn get(&self, name: &str) -> Result<Tensor> {
        let n = c_string(name)?;
        new_tensor(|out| unsafe { sys::tc_tensor_dict_get(self.raw, n.as_ptr(), out) })
    }

    /// Whether `name` is in the dict.
    pub fn contains(&self, name: &str) -> Result<bool> {
        let n = c_string(name)?;
        let mut out = 0i32;
        check(unsafe { sys::tc_tensor_dict_contains(self.raw, n.as_ptr(), &mut out) })?;
        Ok(out == 1)
    }

    /// The number of tensors.
    pub fn len(&self) -> Result<usize> {
        let mut n = 0i64;
        check(unsafe { sys::tc_tensor_dict_count(self.raw, &mut n) })?;
        Ok(n as usize)
    }

    /// Whether the dict holds no tensor.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// The names, in order.
    pub fn names(&self) -> Result<Vec<String>> {
        (0..self.len()? as i64)
            .map(|i| copy_string(|b, c, n| unsafe { sys::tc_tensor_dict_name_at(self.raw, i, b, c, n) }))
            .collect()
    }

    /// (name, tensor) pairs, in order.
    pub fn items(&self) -> Result<Vec<(String, Tensor)>> {
        self.names()?
            .into_iter()
            .map(|n| {
                let t = self.get(&n)?;
                Ok((n, t))
            })
            .collect()
    }

    /// Sets a metadata entry.
    pub fn set_metadata(&mut self, key: &str, value: &str) -> Result<()> {
        let (k, v) = (c_string(key)?, c_string(value)?);
        check(unsafe { sys::tc_tensor_dict_set_metadata(self.raw, k.as_ptr(), v.as_ptr()) })
    }

    /// A metadata entry; a missing key is an [`ErrorKind::Index`] error.
    pub fn metadata(&self, key: &str) -> Result<String> {
        let k = c_string(key)?;
        copy_string(|b, c, n| unsafe { sys::tc_tensor_dict_get_metadata(self.raw, k.as_ptr(), b, c, n) })
    }

    /// The metadata keys, sorted.
    pub fn metadata_keys(&self) -> Result<Vec<String>> {
        let mut n = 0i64;
        check(unsafe { sys::tc_tensor_dict_metadata_count(self.raw, &mut n) })?;
        (0..n)
            .map(|i| {
                copy_string(|b, c, m| unsafe { sys::tc_tensor_dict_metadata_key_at(self.raw, i, b, c, m) })
            })
            .collect()
    }

    /// Writes a safetensors file atomically (`tc_save_safetensors`).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let p = path_string(path.as_ref())?;
        check(unsafe { sys::tc_save_safetensors(self.raw, p.as_ptr()) })
    }

    /// The safetensors file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let t = new_tensor(|out| unsafe { sys::tc_save_safetensors_bytes(self.raw, out) })?;
        t.to_vec::<u8>()
    }

    /// Loads a safetensors file, memory-mapped (zero-copy, copy-on-write
    /// tensors).
    pub fn load(path: impl AsRef<Path>) -> Result<TensorDict> {
        TensorDict::load_with(path, true)
    }

    /// Loads a safetensors file, mapped (`mmap = true`) or read into memory.
    pub fn load_with(path: impl AsRef<Path>, mmap: bool) -> Result<TensorDict> {
        let p = path_string(path.as_ref())?;
        let flags = if mmap { 0 } else { sys::TC_LOAD_COPY };
        TensorDict::make(|out| unsafe { sys::tc_load_safetensors(p.as_ptr(), flags, out) })
    }

    /// Parses a safetensors file image (copied).
    pub fn from_bytes(bytes: &[u8]) -> Result<TensorDict> {
        TensorDict::make(|out| unsafe {
            sys::tc_load_safetensors_buffer(bytes.as_ptr().cast(), bytes.len() as i64, out)
        })
    }
}

/// Saves named tensors (a model's parameters) to a safetensors file.
pub fn save_safetensors<'a>(
    tensors: impl IntoIterator<Item = (&'a str, &'a Tensor)>,
    path: impl AsRef<Path>,
) -> Result<()> {
    TensorDict::from_pairs(tensors)?.save(path)
}

/// Loads every tensor of a safetensors file, in file order.
pub fn load_safetensors(path: impl AsRef<Path>) -> Result<Vec<(String, Tensor)>> {
    TensorDict::load(path)?.items()
}

/// Copies the tensors of a safetensors file into a model's parameters, by
/// name, without recording autograd. Every parameter must be in the file
/// with its shape ([`ErrorKind::Index`] for a missing name,
/// [`ErrorKind::Shape`] for another shape); nothing is copied unless all are.
pub fn load_parameters<'a>(
    params: impl IntoIterator<Item = (&'a str, &'a Tensor)>,
    path: impl AsRef<Path>,
) -> Result<()> {
    let file = TensorDict::load(path)?;
    let mut pairs = Vec::new();
    for (name, p) in params {
        let src = file.get(name)?;
        if src.shape()? != p.shape()? {
            return Err(Error::new(
                ErrorKind::Shape,
                format!(
                    "{name}: the file has shape {:?}, the parameter {:?}",
                    src.shape()?,
                    p.shape()?
                ),
            ));
        }
        pairs.push((p.clone(), src));
    }
    crate::no_grad(|| -> Result<()> {
        for (mut dst, src) in pairs {
            dst.copy_(&src)?;
        }
        Ok(())
    })?
}

/// The default generator's state (`tc_get_rng_state`), like
/// torch.get_rng_state.
pub fn get_rng_state() -> Result<Tensor> {
    new_tensor(|out| unsafe { sys::tc_get_rng_state(out) })
}

/// Restores a state from [`get_rng_state`].
pub fn set_rng_state(state: &Tensor) -> Result<()> {
    check(unsafe { sys::tc_set_rng_state(state.as_raw()) })
}
