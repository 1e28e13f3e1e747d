//! `nn.Linear`.
use super::{fan_in_bias, parameter, Module};
use crate::{DType, Result, Tensor};

/// `y = x W^T + b` over the last dim, like `torch.nn.Linear`: `W` is
/// `[out, in]`, kaiming-uniform(a = sqrt 5) initialized, `b` uniform in
/// `±1/sqrt(in)`.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::nn::Linear;
/// use tc::Tensor;
/// let _tc = tc::init()?;
/// let w = Tensor::from_slice(&[1.0f64, 2.0], &[1, 2])?;
/// let layer = Linear::from_tensors(w, Some(Tensor::from_slice(&[0.5f64], &[1])?));
/// let y = layer.forward(&Tensor::from_slice(&[3.0f64, 4.0], &[1, 2])?)?;
/// assert_eq!(y.to_vec::<f64>()?, vec![11.5]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Linear {
    /// `[out_features, in_features]`.
    pub weight: Tensor,
    /// `[out_features]`, if the layer has a bias.
    pub bias: Option<Tensor>,
}

impl Linear {
    /// A layer initialized as PyTorch does, its parameters requiring grad.
    pub fn new(in_features: i64, out_features: i64, bias: bool, dtype: DType) -> Result<Linear> {
        let weight = parameter(&[out_features, in_features], dtype, |t| t.kaiming_uniform_(5f64.sqrt()))?;
        let bias = if bias { Some(fan_in_bias(out_features, in_features, dtype)?) } else { None };
        Ok(Linear { weight, bias })
    }
    /// A layer around given tensors (used as they are: set `requires_grad` to train them).
    pub fn from_tensors(weight: Tensor, bias: Option<Tensor>) -> Linear {
        Linear { weight, bias }
    }
    /// Applies the layer to `[*, in_features]`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.linear(&self.weight, self.bias.as_ref())
    }
}

impl Module for Linear {
    fn parameters(&self) -> Vec<Tensor> {
        std::iter::once(self.weight.clone()).chain(self.bias.clone()).collect()
    }
    fn train(&mut self, _mode: bool) {}
}
