//! Reductions, scans, sorting and searching: `prod`, `all`, `any`,
//! `amax`, `amin`, `norm`, `count_nonzero`, `var_mean`, `std_mean`,
//! `median`, `kthvalue`, `mode`, `cumprod`, `cummax`, `cummin`,
//! `logcumsumexp`, `sort` (always stable), `argsort`, `unique`, `searchsorted`.
use crate::error::{check, Result};
use crate::ffi::{len_i64, new_tensor};
use crate::Tensor;
use tc_sys as sys;

/// Owns two out-params of a call that succeeded (or neither on failure).
fn two(f: impl FnOnce(*mut sys::tc_tensor, *mut sys::tc_tensor) -> i32) -> Result<(Tensor, Tensor)> {
    let mut a: sys::tc_tensor = std::ptr::null_mut();
    let mut b: sys::tc_tensor = std::ptr::null_mut();
    check(f(&mut a, &mut b))?;
    // Own both before checking either, so neither leaks.
    let a = Tensor::from_owned_raw(a);
    let b = Tensor::from_owned_raw(b);
    Ok((a?, b?))
}

impl Tensor {
    /// `(variance, mean)` over `dims` with `correction` (1 = unbiased).
    pub fn var_mean(&self, dims: &[i64], correction: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        two(|a, b| unsafe {
            sys::tc_var_mean(
                self.as_raw(),
                dims.as_ptr(),
                len_i64(dims.len()),
                correction,
                i32::from(keepdim),
                a,
                b,
            )
        })
    }
    /// `(standard deviation, mean)` over `dims` with `correction`.
    pub fn std_mean(&self, dims: &[i64], correction: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        two(|a, b| unsafe {
            sys::tc_std_mean(
                self.as_raw(),
                dims.as_ptr(),
                len_i64(dims.len()),
                correction,
                i32::from(keepdim),
                a,
                b,
            )
        })
    }
    /// The lower median of every element (a 0-dim tensor).
    pub fn median(&self) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_median(self.as_raw(), out) })
    }
    /// The lower median along `dim`: `(values, int64 indices)`.
    pub fn median_dim(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        two(|a, b| unsafe { sys::tc_median_dim(self.as_raw(), dim, i32::from(keepdim), a, b) })
    }
    /// The `k`-th smallest element along `dim` (k from 1): `(values, indices)`.
    pub fn kthvalue(&self, k: i64, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        two(|a, b| unsafe { sys::tc_kthvalue(self.as_raw(), k, dim, i32::from(keepdim), a, b) })
    }
    /// The most frequent value along `dim`: `(values, indices)`.
    pub fn mode(&self, dim: i64, keepdim: bool) -> Result<(Tensor, Tensor)> {
        two(|a, b| unsafe { sys::tc_mode(self.as_raw(), dim, i32::from(keepdim), a, b) })
    }
    /// Running maximum along `dim`: `(values, indices)`.
    pub fn cummax(&self, dim: i64) -> Result<(Tensor, Tensor)> {
        two(|a, b| unsafe { sys::tc_cummax(self.as_raw(), dim, a, b) })
    }
    /// Running minimum along `dim`: `(values, indices)`.
    pub fn cummin(&self, dim: i64) -> Result<(Tensor, Tensor)> {
        two(|a, b| unsafe { sys::tc_cummin(self.as_raw(), dim, a, b) })
    }
    /// Stable sort along `dim`: `(values, int64 indices)`; NaN sorts last.
    pub fn sort(&self, dim: i64, descending: bool) -> Result<(Tensor, Tensor)> {
        two(|a, b| unsafe { sys::tc_sort(self.as_raw(), dim, i32::from(descending), a, b) })
    }
    /// `(mantissa, int32 exponent)` with `self = mantissa * 2^exponent` and
    /// `|mantissa|` in [0.5, 1) (floating tensors; PyTorch's `frexp`).
    pub fn frexp(&self) -> Result<(Tensor, Tensor)> {
        two(|m, e| unsafe { sys::tc_frexp(self.as_raw(), m, e) })
    }
    /// int64 indices that sort `self` along `dim` (stable).
    pub fn argsort(&self, dim: i64, descending: bool) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_argsort(self.as_raw(), dim, i32::from(descending), out) })
    }
    /// `(values, inverse, counts)` of the flattened tensor: sorted distinct
    /// values, each element's index among them, and their counts.
    pub fn unique(&self) -> Result<(Tensor, Tensor, Tensor)> {
        let mut v: sys::tc_tensor = std::ptr::null_mut();
        let mut i: sys::tc_tensor = std::ptr::null_mut();
        let mut c: sys::tc_tensor = std::ptr::null_mut();
        check(unsafe { sys::tc_unique(self.as_raw(), &mut v, &mut i, &mut c) })?;
        let (v, i, c) = (
            Tensor::from_owned_raw(v),
            Tensor::from_owned_raw(i),
            Tensor::from_owned_raw(c),
        );
        Ok((v?, i?, c?))
    }
    /// Insertion indices of `values` into `self` (sorted along its last dim).
    pub fn searchsorted(&self, values: &Tensor, right: bool, out_int32: bool) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_searchsorted(
                self.as_raw(),
                values.as_raw(),
                i32::from(right),
                i32::from(out_int32),
                out,
            )
        })
    }
}
