//! Losses and distances beyond cross_entropy/nll_loss/mse_loss: l1, smooth
//! l1, huber, binary cross-entropy (on probabilities and logits), kl_div,
//! nll/cross-entropy with class weights, ignore_index, label smoothing and
//! N-d inputs, cosine_similarity, pairwise_distance, normalize.
use crate::error::Result;
use crate::ffi::new_tensor;
use crate::{Reduction, Tensor};
use tc_sys as sys;

fn raw(t: Option<&Tensor>) -> sys::tc_tensor {
    t.map_or(std::ptr::null_mut(), Tensor::as_raw)
}

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
impl Tensor {
    /// Mean absolute error |self - target|.
    pub fn l1_loss(&self, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_l1_loss(self.as_raw(), target.as_raw(), reduction.code(), out) })
    }
    /// Smooth L1: 0.5 d^2 / beta below beta, d - 0.5 beta above it.
    pub fn smooth_l1_loss(&self, target: &Tensor, reduction: Reduction, beta: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_smooth_l1_loss(self.as_raw(), target.as_raw(), reduction.code(), beta, out)
        })
    }
    /// Huber: 0.5 d^2 below delta, delta (d - 0.5 delta) above it.
    pub fn huber_loss(&self, target: &Tensor, reduction: Reduction, delta: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_huber_loss(self.as_raw(), target.as_raw(), reduction.code(), delta, out)
        })
    }
    /// Binary cross-entropy of probabilities `self` in [0, 1].
    pub fn binary_cross_entropy(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        reduction: Reduction,
    ) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_binary_cross_entropy(self.as_raw(), target.as_raw(), raw(weight), reduction.code(), out)
        })
    }
    /// Binary cross-entropy of logits `self`, computed stably.
    pub fn binary_cross_entropy_with_logits(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        pos_weight: Option<&Tensor>,
        reduction: Reduction,
    ) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_binary_cross_entropy_with_logits(
                self.as_raw(),
                target.as_raw(),
                raw(weight),
                raw(pos_weight),
                reduction.code(),
                out,
            )
        })
    }
    /// Kullback-Leibler divergence of `target` from log-probabilities `self`.
    pub fn kl_div(&self, target: &Tensor, reduction: Reduction, log_target: bool) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_kl_div(
                self.as_raw(),
                target.as_raw(),
                reduction.code(),
                i32::from(log_target),
                out,
            )
        })
    }
    /// nll_loss over dim 1 of `[N, C, d1, ...]` (or `[C]`) with class
    /// weights and an ignored class index.
    pub fn nll_loss_ex(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        ignore_index: i64,
        reduction: Reduction,
    ) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_nll_loss_ex(
                self.as_raw(),
                target.as_raw(),
                raw(weight),
                ignore_index,
                reduction.code(),
                out,
            )
        })
    }
    /// cross_entropy over dim 1 of `[N, C, d1, ...]` (or `[C]`): int64 class
    /// targets (with weights, ignore_index) or probabilities; label smoothing.
    pub fn cross_entropy_ex(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        ignore_index: i64,
        label_smoothing: f64,
        reduction: Reduction,
    ) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_cross_entropy_ex(
                self.as_raw(),
                target.as_raw(),
                raw(weight),
                ignore_index,
                label_smoothing,
                reduction.code(),
                out,
            )
        })
    }
    /// Cosine similarity with `other` along `dim`.
    pub fn cosine_similarity(&self, other: &Tensor, dim: i64, eps: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_cosine_similarity(self.as_raw(), other.as_raw(), dim, eps, out) })
    }
    /// The p-norm of `self - other + eps` over the last dim.
    pub fn pairwise_distance(&self, other: &Tensor, p: f64, eps: f64, keepdim: bool) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_pairwise_distance(self.as_raw(), other.as_raw(), p, eps, i32::from(keepdim), out)
        })
    }
    /// `self` divided by its p-norm along `dim` (at least `eps`).
    pub fn normalize(&self, p: f64, dim: i64, eps: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_normalize(self.as_raw(), p, dim, eps, out) })
    }
}
