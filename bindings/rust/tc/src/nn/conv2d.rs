//! `nn.Conv2d`.
use super::{fan_in_bias, parameter, Module};
use crate::{DType, Result, Tensor};

/// 2-D convolution of `[N, C_in, H, W]`, like `torch.nn.Conv2d`: weight
/// `[C_out, C_in/groups, kH, kW]` kaiming-uniform(a = sqrt 5), bias uniform
/// in `±1/sqrt(fan_in)`.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::nn::Conv2d;
/// use tc::{DType, Device, Tensor};
/// let _tc = tc::init()?;
/// let conv = Conv2d::new(3, 8, [3, 3], [1, 1], [1, 1], true, DType::Float32)?;
/// let y = conv.forward(&Tensor::zeros(&[2, 3, 5, 5], DType::Float32, Device::Cpu)?)?;
/// assert_eq!(y.shape()?, vec![2, 8, 5, 5]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Conv2d {
    /// `[C_out, C_in/groups, kH, kW]`.
    pub weight: Tensor,
    /// `[C_out]`, if the layer has a bias.
    pub bias: Option<Tensor>,
    /// Stride (height, width).
    pub stride: [i64; 2],
    /// Zero padding (height, width).
    pub padding: [i64; 2],
    /// Dilation (height, width); `[1, 1]` from `new`.
    pub dilation: [i64; 2],
    /// Channel groups; 1 from `new`.
    pub groups: i64,
}

impl Conv2d {
    /// A layer initialized as PyTorch does (dilation 1, one group).
    pub fn new(
        in_channels: i64,
        out_channels: i64,
        kernel_size: [i64; 2],
        stride: [i64; 2],
        padding: [i64; 2],
        bias: bool,
        dtype: DType,
    ) -> Result<Conv2d> {
        let shape = [out_channels, in_channels, kernel_size[0], kernel_size[1]];
        let weight = parameter(&shape, dtype, |t| t.kaiming_uniform_(5f64.sqrt()))?;
        let fan_in = in_channels * kernel_size[0] * kernel_size[1];
        let bias = if bias { Some(fan_in_bias(out_channels, fan_in, dtype)?) } else { None };
        Ok(Conv2d { weight, bias, stride, padding, dilation: [1, 1], groups: 1 })
    }
    /// A layer around given tensors (stride/padding/dilation/groups set after).
    pub fn from_tensors(weight: Tensor, bias: Option<Tensor>) -> Conv2d {
        Conv2d { weight, bias, stride: [1, 1], padding: [0, 0], dilation: [1, 1], groups: 1 }
    }
    /// Applies the layer.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.conv2d(&self.weight, self.bias.as_ref(), self.stride, self.padding, self.dilation, self.groups)
    }
}

impl Module for Conv2d {
    fn parameters(&self) -> Vec<Tensor> {
        std::iter::once(self.weight.clone()).chain(self.bias.clone()).collect()
    }
    fn train(&mut self, _mode: bool) {}
}
