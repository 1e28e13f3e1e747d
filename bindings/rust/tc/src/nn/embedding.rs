//! `nn.Embedding`.
use super::{parameter, Module};
use crate::{DType, Result, Tensor};

/// A lookup table of `num_embeddings` rows of `embedding_dim`, like
/// `torch.nn.Embedding` (rows drawn from N(0, 1)).
///
/// ```
/// # fn main() -> Result<(), tc::Error> {
/// use tc::nn::Embedding;
/// use tc::{DType, Tensor};
/// let _tc = tc::init()?;
/// let emb = Embedding::new(10, 4, DType::Float32)?;
/// let y = emb.forward(&Tensor::from_slice(&[1i64, 7, 7], &[3])?)?;
/// assert_eq!(y.shape()?, vec![3, 4]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Embedding {
    /// `[num_embeddings, embedding_dim]`.
    pub weight: Tensor,
}

impl Embedding {
    /// A table initialized from N(0, 1), requiring grad.
    pub fn new(num_embeddings: i64, embedding_dim: i64, dtype: DType) -> Result<Embedding> {
        Ok(Embedding { weight: parameter(&[num_embeddings, embedding_dim], dtype, |t| t.normal_(0.0, 1.0))? })
    }
    /// A table around a given weight.
    pub fn from_tensor(weight: Tensor) -> Embedding {
        Embedding { weight }
    }
    /// The rows at `indices` (int64), shape `indices.shape + [embedding_dim]`.
    pub fn forward(&self, indices: &Tensor) -> Result<Tensor> {
        Tensor::embedding(&self.weight, indices)
    }
}

impl Module for Embedding {
    fn parameters(&self) -> Vec<Tensor> {
        vec![self.weight.clone()]
    }
    fn train(&mut self, _mode: bool) {}
}
