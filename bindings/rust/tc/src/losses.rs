//! Losses and distances beyond cross_entropy/nll_loss/mse_loss: l1, smooth
//! l1, huber, binary cross-entropy (on probabilities and logits), kl_div,
//! nll/cross-entropy with class weights, ignore_index, label smoothing and
//! N-d inputs, cosine_similarity, pairwise_distance, normalize.
use crate::Tensor;

/// Losses and distances, as torch.nn.functional's.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::{Reduction, Tensor};
/// let _tc = tc::init()?;
/// let x = Tensor::from_slice(&[0.0f64, 2.0], &[2])?;
/// let y = Tensor::from_slice(&[1.0f64, 0.0], &[2])?;
/// assert_eq!(x.l1_loss(&y, Reduction::Sum)?.item()?, 3.0);
/// assert_eq!(x.huber_loss(&y, Reduction::None, 1.0)?.to_vec::<f64>()?, vec![0.5, 1.5]);
/// let logits = Tensor::from_slice(&[0.0f64; 6], &[2, 3])?;
/// let target = Tensor::from_slice(&[0i64, -100], &[2])?; // the second is ignored
/// let ce = logits.cross_entropy_ex(&target, None, -100, 0.0, Reduction::Mean)?;
/// assert!((ce.item()? - 3f64.ln()).abs() < 1e-12);
/// # Ok(()) }
/// ```
impl Tensor {}
