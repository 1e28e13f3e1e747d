//! Causal multi-head self-attention (GPT's).
use super::{Linear, Module};
use crate::{DType, Error, ErrorKind, Result, Tensor};

/// Causal multi-head self-attention of `[B, T, D]`: one `Linear(D, 3D)`
/// projects queries, keys and values, `heads` heads attend causally through
/// `scaled_dot_product_attention`, and `Linear(D, D)` projects the result.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::nn::CausalSelfAttention;
/// use tc::{DType, Device, Tensor};
/// let _tc = tc::init()?;
/// let attn = CausalSelfAttention::new(8, 2, DType::Float32)?;
/// let y = attn.forward(&Tensor::randn(&[2, 5, 8], DType::Float32, Device::Cpu)?)?;
/// assert_eq!(y.shape()?, vec![2, 5, 8]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct CausalSelfAttention {
    /// Query/key/value projection `D -> 3D`.
    pub qkv: Linear,
    /// Output projection `D -> D`.
    pub proj: Linear,
    /// Number of heads (divides `D`).
    pub heads: i64,
}

impl CausalSelfAttention {
    /// A layer of width `d` and `heads` heads (PyTorch-initialized linears).
    pub fn new(d: i64, heads: i64, dtype: DType) -> Result<CausalSelfAttention> {
        if heads <= 0 || d % heads != 0 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("CausalSelfAttention: d = {d} is not a multiple of heads = {heads}"),
            ));
        }
        Ok(CausalSelfAttention { qkv: Linear::new(d, 3 * d, true, dtype)?, proj: Linear::new(d, d, true, dtype)?, heads })
    }
    /// Applies the layer to `[B, T, D]`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let s = x.shape()?;
        let (b, t, d) = (s[0], s[1], s[2]);
        let h = self.heads;
        let qkv = self.qkv.forward(x)?.split(d, 2)?;
        let heads = |z: &Tensor| z.reshape(&[b, t, h, d / h])?.transpose(1, 2);
        let (q, k, v) = (heads(&qkv[0])?, heads(&qkv[1])?, heads(&qkv[2])?);
        let y = q.scaled_dot_product_attention(&k, &v, None, 0.0, true)?;
        self.proj.forward(&y.transpose(1, 2)?.reshape(&[b, t, d])?)
    }
}

impl Module for CausalSelfAttention {
    fn parameters(&self) -> Vec<Tensor> {
        let mut p = self.qkv.parameters();
        p.extend(self.proj.parameters());
        p
    }
    fn train(&mut self, _mode: bool) {}
}
