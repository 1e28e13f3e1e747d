//! The composed binary ops (src/ops/binary_ext.cpp): isclose, lerp,
//! addcmul, addcdiv, prelu and glu. The elementwise ones (atan2, fmod,
//! remainder, floor_divide, bitwise_*, logical_*, the scalar comparisons,
//! ...) are generated into ops_generated.rs.
use crate::error::Result;
use crate::ffi::new_tensor;
use crate::Tensor;
use tc_sys as sys;

/// Composed binary ops.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let a = Tensor::from_slice(&[1.0f64, -2.0], &[2])?;
/// let b = Tensor::from_slice(&[3.0f64, 2.0], &[2])?;
/// assert_eq!(a.lerp_scalar(&b, 0.5)?.to_vec::<f64>()?, vec![2.0, 0.0]);
/// assert_eq!(a.addcmul(&a, &b, 2.0)?.to_vec::<f64>()?, vec![7.0, -10.0]);
/// let w = Tensor::from_slice(&[0.25f64], &[1])?;
/// assert_eq!(a.prelu(&w)?.to_vec::<f64>()?, vec![1.0, -0.5]);
/// assert_eq!(a.isclose(&b, 1e-5, 1e-8, false)?.to_vec_bool()?, vec![false, false]);
/// # Ok(())
/// # }
/// ```
impl Tensor {
    /// `|self - other| <= atol + rtol * |other|` (or equal; NaNs equal when
    /// `equal_nan`) as a bool tensor; one dtype, broadcasting.
    pub fn isclose(&self, other: &Tensor, rtol: f64, atol: f64, equal_nan: bool) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_isclose(self.as_raw(), other.as_raw(), rtol, atol, i32::from(equal_nan), out)
        })
    }
    /// `self + weight * (end - self)` with a tensor weight (floating, one dtype).
    pub fn lerp(&self, end: &Tensor, weight: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_lerp(self.as_raw(), end.as_raw(), weight.as_raw(), out) })
    }
    /// `self + weight * (end - self)` with a scalar weight.
    pub fn lerp_scalar(&self, end: &Tensor, weight: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_lerp_scalar(self.as_raw(), end.as_raw(), weight, out) })
    }
    /// `self + value * tensor1 * tensor2`, broadcasting.
    pub fn addcmul(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_addcmul(self.as_raw(), tensor1.as_raw(), tensor2.as_raw(), value, out) })
    }
    /// `self + value * tensor1 / tensor2`, broadcasting (no integer division).
    pub fn addcdiv(&self, tensor1: &Tensor, tensor2: &Tensor, value: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_addcdiv(self.as_raw(), tensor1.as_raw(), tensor2.as_raw(), value, out) })
    }
    /// PReLU: `self` where positive, else `weight * self`; `weight` has one
    /// element or one per channel (dim 1).
    pub fn prelu(&self, weight: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_prelu(self.as_raw(), weight.as_raw(), out) })
    }
    /// The gated linear unit: the first half along `dim` times the sigmoid of the second.
    pub fn glu(&self, dim: i64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_glu(self.as_raw(), dim, out) })
    }
}
