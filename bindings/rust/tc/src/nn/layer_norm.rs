//! `nn.LayerNorm`.
use super::{parameter, Module};
use crate::{DType, Result, Tensor};

/// Layer normalization over the last dims, like `torch.nn.LayerNorm` with
/// an elementwise affine transform (weight ones, bias zeros).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::nn::LayerNorm;
/// use tc::{DType, Tensor};
/// let _tc = tc::init()?;
/// let ln = LayerNorm::new(&[2], 0.0, DType::Float64)?;
/// let y = ln.forward(&Tensor::from_slice(&[1.0f64, 3.0], &[1, 2])?)?;
/// assert_eq!(y.to_vec::<f64>()?, vec![-1.0, 1.0]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct LayerNorm {
    /// The normalized trailing shape.
    pub normalized_shape: Vec<i64>,
    /// Scale, ones at creation.
    pub weight: Tensor,
    /// Shift, zeros at creation.
    pub bias: Tensor,
    /// Added to the variance (PyTorch's default is 1e-5).
    pub eps: f64,
}

impl LayerNorm {
    /// A layer normalizing over `normalized_shape`.
    pub fn new(normalized_shape: &[i64], eps: f64, dtype: DType) -> Result<LayerNorm> {
        Ok(LayerNorm {
            normalized_shape: normalized_shape.to_vec(),
            weight: parameter(normalized_shape, dtype, |t| t.fill_(1.0))?,
            bias: parameter(normalized_shape, dtype, |t| t.fill_(0.0))?,
            eps,
        })
    }
    /// Applies the layer.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.layer_norm(&self.normalized_shape, Some(&self.weight), Some(&self.bias), self.eps)
    }
}

impl Module for LayerNorm {
    fn parameters(&self) -> Vec<Tensor> {
        vec![self.weight.clone(), self.bias.clone()]
    }
    fn train(&mut self, _mode: bool) {}
}
