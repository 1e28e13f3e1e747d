//! `nn.Dropout`.
use super::Module;
use crate::{Result, Tensor};

/// Zeroes elements with probability `p` and scales the others by
/// `1/(1-p)` in training; the identity in evaluation (`torch.nn.Dropout`).
#[derive(Clone, Debug)]
pub struct Dropout {
    /// Drop probability.
    pub p: f64,
    /// Training mode (the default).
    pub training: bool,
}

impl Dropout {
    /// A dropout layer in training mode.
    pub fn new(p: f64) -> Dropout {
        Dropout { p, training: true }
    }
    /// Applies the layer.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        x.dropout(self.p, self.training)
    }
}

impl Module for Dropout {
    fn parameters(&self) -> Vec<Tensor> {
        Vec::new()
    }
    fn train(&mut self, mode: bool) {
        self.training = mode;
    }
}
