//! Transformer and sampling ops: layer/RMS norm, attention, bmm, triangles,
//! masked_fill, cumsum, topk and multinomial.
use crate::Tensor;

/// Transformer ops.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let y = x.layer_norm(&[2], None, None, 0.0)?;
/// assert_eq!(y.to_vec::<f64>()?, vec![-1.0, 1.0, -1.0, 1.0]);
/// assert_eq!(x.tril(0)?.to_vec::<f64>()?, vec![1.0, 0.0, 3.0, 4.0]);
/// assert_eq!(x.cumsum(1)?.to_vec::<f64>()?, vec![1.0, 3.0, 3.0, 7.0]);
/// let (v, i) = x.topk(1, 1, true, true)?;
/// assert_eq!(v.to_vec::<f64>()?, vec![2.0, 4.0]);
/// assert_eq!(i.to_vec::<i64>()?, vec![1, 1]);
/// # Ok(())
/// # }
/// ```
impl Tensor {}
