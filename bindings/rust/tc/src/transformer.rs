//! Transformer and sampling ops: layer/RMS norm, attention, bmm, triangles,
//! masked_fill, cumsum, topk and multinomial.
use crate::error::{check, Result};
use crate::ffi::{len_i64, new_tensor};
use crate::Tensor;
use tc_sys as sys;

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
impl Tensor {
    /// Layer normalization over the last `normalized_shape.len()` dims.
    pub fn layer_norm(
        &self,
        normalized_shape: &[i64],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        eps: f64,
    ) -> Result<Tensor> {
        let w = weight.map_or(std::ptr::null_mut(), Tensor::as_raw);
        let b = bias.map_or(std::ptr::null_mut(), Tensor::as_raw);
        new_tensor(|out| unsafe {
            sys::tc_layer_norm(
                self.as_raw(),
                normalized_shape.as_ptr(),
                len_i64(normalized_shape.len()),
                w,
                b,
                eps,
                out,
            )
        })
    }
    /// RMS normalization over the last `normalized_shape.len()` dims.
    pub fn rms_norm(&self, normalized_shape: &[i64], weight: Option<&Tensor>, eps: f64) -> Result<Tensor> {
        let w = weight.map_or(std::ptr::null_mut(), Tensor::as_raw);
        new_tensor(|out| unsafe {
            sys::tc_rms_norm(
                self.as_raw(),
                normalized_shape.as_ptr(),
                len_i64(normalized_shape.len()),
                w,
                eps,
                out,
            )
        })
    }
    /// `softmax(q k^T / sqrt(E) + mask) v` with `self` as q; `attn_mask` is
    /// bool (true = attend) or additive.
    pub fn scaled_dot_product_attention(
        &self,
        k: &Tensor,
        v: &Tensor,
        attn_mask: Option<&Tensor>,
        dropout_p: f64,
        is_causal: bool,
    ) -> Result<Tensor> {
        let m = attn_mask.map_or(std::ptr::null_mut(), Tensor::as_raw);
        new_tensor(|out| unsafe {
            sys::tc_scaled_dot_product_attention(
                self.as_raw(),
                k.as_raw(),
                v.as_raw(),
                m,
                dropout_p,
                i32::from(is_causal),
                out,
            )
        })
    }
    /// Batched matrix product of `[B, N, M]` and `[B, M, P]`.
    pub fn bmm(&self, other: &Tensor) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_bmm(self.as_raw(), other.as_raw(), out) })
    }
    /// `beta * self + alpha * (mat1 @ mat2)` (`self` broadcasting to `[N, P]`).
    pub fn addmm(&self, mat1: &Tensor, mat2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_addmm(self.as_raw(), mat1.as_raw(), mat2.as_raw(), beta, alpha, out)
        })
    }
    /// `beta * self + alpha * bmm(batch1, batch2)`.
    pub fn baddbmm(&self, batch1: &Tensor, batch2: &Tensor, beta: f64, alpha: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_baddbmm(self.as_raw(), batch1.as_raw(), batch2.as_raw(), beta, alpha, out)
        })
    }
    /// `value` where the bool `mask` (broadcasting) is true.
    pub fn masked_fill(&self, mask: &Tensor, value: f64) -> Result<Tensor> {
        new_tensor(|out| unsafe { sys::tc_masked_fill(self.as_raw(), mask.as_raw(), value, out) })
    }
    /// The `k` largest (smallest) elements along `dim`: `(values, int64 indices)`.
    pub fn topk(&self, k: i64, dim: i64, largest: bool, sorted: bool) -> Result<(Tensor, Tensor)> {
        let mut values: sys::tc_tensor = std::ptr::null_mut();
        let mut indices: sys::tc_tensor = std::ptr::null_mut();
        check(unsafe {
            sys::tc_topk(
                self.as_raw(),
                k,
                dim,
                i32::from(largest),
                i32::from(sorted),
                &mut values,
                &mut indices,
            )
        })?;
        let values = Tensor::from_owned_raw(values);
        let indices = Tensor::from_owned_raw(indices);
        Ok((values?, indices?))
    }
    /// int64 categories drawn with the weights `self` (`[C]` or `[N, C]`).
    pub fn multinomial(&self, num_samples: i64, replacement: bool) -> Result<Tensor> {
        new_tensor(|out| unsafe {
            sys::tc_multinomial(self.as_raw(), num_samples, i32::from(replacement), out)
        })
    }
}
