//! `nn.BatchNorm2d`.
use super::{parameter, Module};
use crate::{DType, Device, Result, Tensor};

/// Batch normalization of `[N, C, H, W]`, like `torch.nn.BatchNorm2d`: in
/// training, batch statistics normalize and update the running mean and
/// (unbiased) variance by `momentum`; in evaluation the running statistics
/// normalize.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::nn::{BatchNorm2d, Module};
/// use tc::{DType, Device, Tensor};
/// let _tc = tc::init()?;
/// let mut bn = BatchNorm2d::new(3, DType::Float32)?;
/// bn.forward(&Tensor::randn(&[4, 3, 2, 2], DType::Float32, Device::Cpu)?)?;
/// bn.train(false);
/// let y = bn.forward(&Tensor::zeros(&[1, 3, 2, 2], DType::Float32, Device::Cpu)?)?;
/// assert_eq!(y.shape()?, vec![1, 3, 2, 2]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct BatchNorm2d {
    /// Scale `[C]`, ones at creation.
    pub weight: Tensor,
    /// Shift `[C]`, zeros at creation.
    pub bias: Tensor,
    /// Running mean `[C]` (a buffer, not a parameter).
    pub running_mean: Tensor,
    /// Running variance `[C]` (a buffer, not a parameter).
    pub running_var: Tensor,
    /// Running-statistics update factor (0.1).
    pub momentum: f64,
    /// Added to the variance (1e-5).
    pub eps: f64,
    /// Training mode (the default).
    pub training: bool,
}

impl BatchNorm2d {
    /// A layer over `num_features` channels with PyTorch's defaults.
    pub fn new(num_features: i64, dtype: DType) -> Result<BatchNorm2d> {
        Ok(BatchNorm2d {
            weight: parameter(&[num_features], dtype, |t| t.fill_(1.0))?,
            bias: parameter(&[num_features], dtype, |t| t.fill_(0.0))?,
            running_mean: Tensor::zeros(&[num_features], dtype, Device::Cpu)?,
            running_var: Tensor::ones(&[num_features], dtype, Device::Cpu)?,
            momentum: 0.1,
            eps: 1e-5,
            training: true,
        })
    }
    /// Applies the layer (updating the running statistics in training).
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.batch_norm(
            Some(&self.weight),
            Some(&self.bias),
            Some(&self.running_mean),
            Some(&self.running_var),
            self.training,
            self.momentum,
            self.eps,
        )
    }
}

impl Module for BatchNorm2d {
    fn parameters(&self) -> Vec<Tensor> {
        vec![self.weight.clone(), self.bias.clone()]
    }
    fn train(&mut self, mode: bool) {
        self.training = mode;
    }
}
