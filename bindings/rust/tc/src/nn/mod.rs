//! Neural-network building blocks in the style of `torch.nn`: layers that own
//! their parameters (initialized as PyTorch initializes them) and run the
//! crate's functional ops in `forward`.
//!
//! ```
//! # fn main() -> Result<(), tc::Error> {
//! use tc::nn::{Linear, Module};
//! use tc::{DType, Tensor};
//! let _tc = tc::init()?;
//! let layer = Linear::new(3, 2, true, DType::Float32)?;
//! let y = layer.forward(&Tensor::ones(&[4, 3], DType::Float32, tc::Device::Cpu)?)?;
//! assert_eq!(y.shape()?, vec![4, 2]);
//! assert_eq!(layer.parameters().len(), 2);
//! # Ok(())
//! # }
//! ```
mod attention;
mod batch_norm;
mod conv2d;
mod dropout;
mod embedding;
mod layer_norm;
mod linear;
mod rnn;
mod transformer_encoder;

pub use attention::CausalSelfAttention;
pub use batch_norm::BatchNorm2d;
pub use conv2d::Conv2d;
pub use dropout::Dropout;
pub use embedding::Embedding;
pub use layer_norm::LayerNorm;
pub use linear::Linear;
pub use rnn::{Gru, Lstm, Recurrent, Rnn, RnnConfig, RnnMode, RnnOutput};
pub use transformer_encoder::{
    square_subsequent_mask, MultiheadAttention, PositionalEncoding, TransformerEncoder, TransformerEncoderLayer,
};

use crate::{DType, Device, NoGradGuard, Result, Tensor};

/// What every layer offers besides its own `forward`: its trainable
/// parameters (handles sharing the layer's tensors, for an optimizer) and
/// the training/evaluation switch (dropout, batch-norm statistics).
pub trait Module {
    /// The trainable parameters, in a fixed order.
    fn parameters(&self) -> Vec<Tensor>;
    /// Training mode (`true`) or evaluation mode (`false`), like `nn.Module.train`.
    fn train(&mut self, mode: bool);
    /// Converts and/or moves every parameter in place, like `nn.Module.to`:
    /// each keeps its identity (`Tensor::set_data`), so tied weights stay
    /// tied and an optimizer made before keeps stepping them. All
    /// conversions are made before any parameter changes: a failure changes
    /// nothing.
    fn to(&self, dtype: Option<DType>, device: Option<Device>) -> Result<()> {
        let params = self.parameters();
        let mut converted = Vec::with_capacity(params.len());
        for p in &params {
            let mut t = match device {
                Some(d) => p.to_device(d)?,
                None => p.detach()?,
            };
            if let Some(dt) = dtype {
                t = t.to_dtype(dt)?;
            }
            converted.push(t);
        }
        for (p, t) in params.iter().zip(&converted) {
            p.set_data(t)?;
        }
        Ok(())
    }
}

/// A leaf parameter: `init` fills a fresh tensor, then it requires grad.
pub(crate) fn parameter(shape: &[i64], dtype: DType, init: impl FnOnce(&mut Tensor) -> Result<()>) -> Result<Tensor> {
    let mut t = Tensor::empty(shape, dtype, Device::Cpu)?;
    init(&mut t)?;
    t.requires_grad(true)
}

/// `U(-1/sqrt(fan_in), 1/sqrt(fan_in))`, PyTorch's bias initialization for
/// Linear and Conv layers.
pub(crate) fn fan_in_bias(n: i64, fan_in: i64, dtype: DType) -> Result<Tensor> {
    let bound = if fan_in > 0 { 1.0 / (fan_in as f64).sqrt() } else { 0.0 };
    parameter(&[n], dtype, |t| t.uniform_(-bound, bound))
}

/// `nn.utils.clip_grad_norm_`: scales every gradient by `max_norm / (norm + 1e-6)`
/// when their global 2-norm exceeds `max_norm`; returns that norm.
pub fn clip_grad_norm(params: &[Tensor], max_norm: f64) -> Result<f64> {
    let _ng = NoGradGuard::new()?;
    let grads: Vec<Tensor> = params.iter().filter_map(|p| p.grad().transpose()).collect::<Result<_>>()?;
    let mut sq = 0.0;
    for g in &grads {
        sq += g.square()?.sum_all()?.item()?;
    }
    let norm = sq.sqrt();
    let coef = max_norm / (norm + 1e-6);
    if coef < 1.0 {
        for mut g in grads {
            let c = Tensor::full(&[], coef, g.dtype()?, Device::Cpu)?;
            g.mul_(&c)?;
        }
    }
    Ok(norm)
}
