//! `nn.MultiheadAttention`, `nn.TransformerEncoderLayer` and
//! `nn.TransformerEncoder` (sequence-first `[S, N, E]`, post-norm, ReLU:
//! PyTorch's defaults), and the sinusoidal positional encoding of
//! pytorch/examples' word_language_model.
use super::{parameter, Dropout, LayerNorm, Linear, Module};
use crate::{DType, Device, Error, ErrorKind, NoGradGuard, Result, Tensor};

/// `nn.MultiheadAttention(embed_dim, num_heads, dropout)` with the inputs
/// sequence-first (`[L, N, E]`): one packed input projection
/// (`in_proj_weight` `[3E, E]`, `in_proj_bias` `[3E]`), `num_heads` heads of
/// width `E / num_heads`, and the output projection `out_proj`.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::nn::MultiheadAttention;
/// use tc::{DType, Device, Tensor};
/// let _tc = tc::init()?;
/// let mha = MultiheadAttention::new(8, 2, 0.0, DType::Float32)?;
/// let x = Tensor::randn(&[5, 3, 8], DType::Float32, Device::Cpu)?;
/// let mask = tc::nn::square_subsequent_mask(5, DType::Float32)?;
/// assert_eq!(mha.forward(&x, &x, &x, Some(&mask))?.shape()?, vec![5, 3, 8]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct MultiheadAttention {
    /// The query, key and value projections stacked: `[3E, E]`.
    pub in_proj_weight: Tensor,
    /// Their biases: `[3E]`.
    pub in_proj_bias: Tensor,
    /// Output projection `E -> E`.
    pub out_proj: Linear,
    /// Number of heads (divides `E`).
    pub num_heads: i64,
    /// Dropout probability on the attention weights (training only).
    pub dropout: f64,
    /// Training mode (dropout on).
    pub training: bool,
}

impl MultiheadAttention {
    /// PyTorch's initialization: Xavier-uniform `in_proj_weight`, zero
    /// biases, `out_proj.weight` as a Linear's.
    pub fn new(embed_dim: i64, num_heads: i64, dropout: f64, dtype: DType) -> Result<MultiheadAttention> {
        if num_heads <= 0 || embed_dim % num_heads != 0 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("MultiheadAttention: embed_dim = {embed_dim} is not a multiple of num_heads = {num_heads}"),
            ));
        }
        let in_proj_weight = parameter(&[3 * embed_dim, embed_dim], dtype, |t| t.xavier_uniform_(1.0))?;
        let in_proj_bias = parameter(&[3 * embed_dim], dtype, |t| t.fill_(0.0))?;
        let mut out_proj = Linear::new(embed_dim, embed_dim, true, dtype)?;
        if let Some(b) = out_proj.bias.as_mut() {
            let _ng = NoGradGuard::new()?;
            b.fill_(0.0)?;
        }
        Ok(MultiheadAttention { in_proj_weight, in_proj_bias, out_proj, num_heads, dropout, training: true })
    }

    /// Attention of `query` `[L, N, E]` over `key`/`value` `[S, N, E]`;
    /// `attn_mask` `[L, S]` is additive (0 / -inf) or bool (true = attend).
    /// Returns `[L, N, E]` (PyTorch's first output; the averaged weights are
    /// not computed).
    pub fn forward(&self, query: &Tensor, key: &Tensor, value: &Tensor, attn_mask: Option<&Tensor>) -> Result<Tensor> {
        let qs = query.shape()?;
        if qs.len() != 3 {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("MultiheadAttention: query must be [L, N, E], got {qs:?}"),
            ));
        }
        let (l, n, e) = (qs[0], qs[1], qs[2]);
        let h = self.num_heads;
        let b = Some(&self.in_proj_bias);
        // Self-attention (one tensor thrice) projects once, as PyTorch does.
        let (q, k, v) = if query.as_raw() == key.as_raw() && key.as_raw() == value.as_raw() {
            let qkv = query.linear(&self.in_proj_weight, b)?.split(e, 2)?;
            (qkv[0].clone(), qkv[1].clone(), qkv[2].clone())
        } else {
            let w = self.in_proj_weight.split(e, 0)?;
            let bias = self.in_proj_bias.split(e, 0)?;
            (
                query.linear(&w[0], Some(&bias[0]))?,
                key.linear(&w[1], Some(&bias[1]))?,
                value.linear(&w[2], Some(&bias[2]))?,
            )
        };
        // [T, N, E] -> [N * H, T, E / H]: one batch entry per (sample, head).
        let heads = |z: &Tensor| -> Result<Tensor> {
            let t = z.shape()?[0];
            z.reshape(&[t, n * h, e / h])?.transpose(0, 1)
        };
        let p = if self.training { self.dropout } else { 0.0 };
        let y = heads(&q)?.scaled_dot_product_attention(&heads(&k)?, &heads(&v)?, attn_mask, p, false)?;
        let y = y.transpose(0, 1)?.reshape(&[l * n, e])?;
        self.out_proj.forward(&y)?.reshape(&[l, n, e])
    }
}

impl Module for MultiheadAttention {
    fn parameters(&self) -> Vec<Tensor> {
        let mut p = vec![self.in_proj_weight.clone(), self.in_proj_bias.clone()];
        p.extend(self.out_proj.parameters());
        p
    }
    fn train(&mut self, mode: bool) {
        self.training = mode;
    }
}

/// `nn.Transformer.generate_square_subsequent_mask(size)`: the additive
/// causal mask `[size, size]`, 0 on and below the diagonal, -inf above.
pub fn square_subsequent_mask(size: i64, dtype: DType) -> Result<Tensor> {
    Tensor::full(&[size, size], f64::NEG_INFINITY, dtype, Device::Cpu)?.triu(1)
}

/// `nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout)`
/// with PyTorch's defaults (ReLU, post-norm, LayerNorm eps 1e-5):
/// `x = norm1(x + dropout1(self_attn(x)))`, then
/// `x = norm2(x + dropout2(linear2(dropout(relu(linear1(x))))))`.
#[derive(Clone, Debug)]
pub struct TransformerEncoderLayer {
    /// Self-attention.
    pub self_attn: MultiheadAttention,
    /// Feed-forward `d_model -> dim_feedforward`.
    pub linear1: Linear,
    /// Dropout after the ReLU.
    pub dropout: Dropout,
    /// Feed-forward `dim_feedforward -> d_model`.
    pub linear2: Linear,
    /// Norm after the attention block.
    pub norm1: LayerNorm,
    /// Norm after the feed-forward block.
    pub norm2: LayerNorm,
    /// Dropout on the attention block's output.
    pub dropout1: Dropout,
    /// Dropout on the feed-forward block's output.
    pub dropout2: Dropout,
}

impl TransformerEncoderLayer {
    /// A layer initialized as PyTorch initializes one.
    pub fn new(d_model: i64, nhead: i64, dim_feedforward: i64, dropout: f64, dtype: DType) -> Result<Self> {
        Ok(TransformerEncoderLayer {
            self_attn: MultiheadAttention::new(d_model, nhead, dropout, dtype)?,
            linear1: Linear::new(d_model, dim_feedforward, true, dtype)?,
            dropout: Dropout::new(dropout),
            linear2: Linear::new(dim_feedforward, d_model, true, dtype)?,
            norm1: LayerNorm::new(&[d_model], 1e-5, dtype)?,
            norm2: LayerNorm::new(&[d_model], 1e-5, dtype)?,
            dropout1: Dropout::new(dropout),
            dropout2: Dropout::new(dropout),
        })
    }

    /// Applies the layer to `src` `[S, N, E]` with an optional `[S, S]` mask.
    pub fn forward(&self, src: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let a = self.self_attn.forward(src, src, src, mask)?;
        let x = self.norm1.forward(&(src + self.dropout1.forward(&a)?)?)?;
        let f = self.linear2.forward(&self.dropout.forward(&self.linear1.forward(&x)?.relu()?)?)?;
        self.norm2.forward(&(&x + self.dropout2.forward(&f)?)?)
    }
}

impl Module for TransformerEncoderLayer {
    /// PyTorch's `named_parameters` order.
    fn parameters(&self) -> Vec<Tensor> {
        let mut p = self.self_attn.parameters();
        for m in [&self.linear1, &self.linear2] {
            p.extend(m.parameters());
        }
        for m in [&self.norm1, &self.norm2] {
            p.extend(m.parameters());
        }
        p
    }
    fn train(&mut self, mode: bool) {
        self.self_attn.train(mode);
        for d in [&mut self.dropout, &mut self.dropout1, &mut self.dropout2] {
            d.train(mode);
        }
    }
}

/// `nn.TransformerEncoder`: `layers` applied in turn, then the optional
/// final `norm` (which `nn.Transformer` adds). Unlike PyTorch, whose
/// encoder deep-copies one layer, each layer here is initialized on its own.
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::nn::{Module, TransformerEncoder};
/// use tc::{DType, Device, Tensor};
/// let _tc = tc::init()?;
/// let enc = TransformerEncoder::new(8, 2, 16, 0.0, 2, true, DType::Float32)?;
/// assert_eq!(enc.parameters().len(), 2 * 12 + 2);
/// let x = Tensor::randn(&[4, 3, 8], DType::Float32, Device::Cpu)?;
/// assert_eq!(enc.forward(&x, None)?.shape()?, vec![4, 3, 8]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct TransformerEncoder {
    /// The encoder layers.
    pub layers: Vec<TransformerEncoderLayer>,
    /// The final LayerNorm, if any.
    pub norm: Option<LayerNorm>,
}

impl TransformerEncoder {
    /// `num_layers` layers of `TransformerEncoderLayer::new(d_model, nhead,
    /// dim_feedforward, dropout)` and, with `final_norm`, a LayerNorm.
    pub fn new(
        d_model: i64,
        nhead: i64,
        dim_feedforward: i64,
        dropout: f64,
        num_layers: usize,
        final_norm: bool,
        dtype: DType,
    ) -> Result<TransformerEncoder> {
        let layers = (0..num_layers)
            .map(|_| TransformerEncoderLayer::new(d_model, nhead, dim_feedforward, dropout, dtype))
            .collect::<Result<_>>()?;
        let norm = if final_norm { Some(LayerNorm::new(&[d_model], 1e-5, dtype)?) } else { None };
        Ok(TransformerEncoder { layers, norm })
    }

    /// Applies the layers (each with `mask`) and the final norm to `[S, N, E]`.
    pub fn forward(&self, src: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let mut x = src.clone();
        for layer in &self.layers {
            x = layer.forward(&x, mask)?;
        }
        match &self.norm {
            Some(norm) => norm.forward(&x),
            None => Ok(x),
        }
    }
}

impl Module for TransformerEncoder {
    fn parameters(&self) -> Vec<Tensor> {
        let mut p: Vec<Tensor> = self.layers.iter().flat_map(Module::parameters).collect();
        if let Some(norm) = &self.norm {
            p.extend(norm.parameters());
        }
        p
    }
    fn train(&mut self, mode: bool) {
        for layer in &mut self.layers {
            layer.train(mode);
        }
    }
}

/// The sinusoidal positional encoding of pytorch/examples'
/// word_language_model: `x + pe[..S]` then dropout, for `x` `[S, N, d_model]`,
/// where `pe[pos, 2i] = sin(pos / 10000^(2i / d_model))` and
/// `pe[pos, 2i + 1]` the cosine. The table is computed in float64 and then
/// converted (PyTorch's example computes it in float32).
#[derive(Clone, Debug)]
pub struct PositionalEncoding {
    /// `[max_len, 1, d_model]`, not trained.
    pub pe: Tensor,
    /// Dropout after the addition.
    pub dropout: Dropout,
}

impl PositionalEncoding {
    /// The table for positions `0..max_len`.
    pub fn new(d_model: i64, dropout: f64, max_len: i64, dtype: DType) -> Result<PositionalEncoding> {
        let mut v = vec![0.0f64; (max_len * d_model) as usize];
        let scale = -(10000f64.ln()) / d_model as f64;
        for pos in 0..max_len {
            for j in (0..d_model).step_by(2) {
                let angle = pos as f64 * (j as f64 * scale).exp();
                let row = (pos * d_model) as usize;
                v[row + j as usize] = angle.sin();
                if j + 1 < d_model {
                    v[row + j as usize + 1] = angle.cos();
                }
            }
        }
        let pe = Tensor::from_vec(v, &[max_len, 1, d_model])?.to_dtype(dtype)?;
        Ok(PositionalEncoding { pe, dropout: Dropout::new(dropout) })
    }

    /// `dropout(x + pe[..S])`.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let s = x.shape()?[0];
        self.dropout.forward(&(x + self.pe.narrow(0, 0, s)?)?)
    }
}

impl Module for PositionalEncoding {
    fn parameters(&self) -> Vec<Tensor> {
        Vec::new()
    }
    fn train(&mut self, mode: bool) {
        self.dropout.train(mode);
    }
}
