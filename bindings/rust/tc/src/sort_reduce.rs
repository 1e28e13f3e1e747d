//! Reductions, scans, sorting and searching: `prod`, `all`, `any`,
//! `amax`, `amin`, `norm`, `count_nonzero`, `var_mean`, `std_mean`,
//! `median`, `kthvalue`, `mode`, `cumprod`, `cummax`, `cummin`,
//! `logcumsumexp`, `sort` (always stable), `argsort`, `unique`, `searchsorted`.
use crate::error::{check, Result};
use crate::Tensor;
use tc_sys as sys;

impl Tensor {
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
}
