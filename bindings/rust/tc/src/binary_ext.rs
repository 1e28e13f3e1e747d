//! The composed binary ops (src/ops/binary_ext.cpp): isclose, lerp,
//! addcmul, addcdiv, prelu and glu. The elementwise ones (atan2, fmod,
//! remainder, floor_divide, bitwise_*, logical_*, the scalar comparisons,
//! ...) are generated into ops_generated.rs.
use crate::Tensor;

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
impl Tensor {}
