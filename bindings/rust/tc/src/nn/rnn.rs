//! `nn.RNN`, `nn.LSTM` and `nn.GRU`: one `tc_rnn` call runs every layer and
//! direction over the whole sequence (autograd records the recurrence).
use super::{parameter, Module};
use crate::ffi::len_i64;
use crate::error::check;
use crate::{DType, Result, Tensor};
use tc_sys as sys;

/// Which recurrence a [`Recurrent`] layer runs (`TC_RNN_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RnnMode {
    /// `h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`, `nn.RNN(nonlinearity="tanh")`.
    Tanh,
    /// The same with relu, `nn.RNN(nonlinearity="relu")`.
    Relu,
    /// `nn.LSTM` (gates i, f, g, o).
    Lstm,
    /// `nn.GRU` (gates r, z, n).
    Gru,
}

impl RnnMode {
    fn code(self) -> i32 {
        match self {
            RnnMode::Tanh => sys::TC_RNN_TANH,
            RnnMode::Relu => sys::TC_RNN_RELU,
            RnnMode::Lstm => sys::TC_RNN_LSTM,
            RnnMode::Gru => sys::TC_RNN_GRU,
        }
    }
    fn gates(self) -> i64 {
        match self {
            RnnMode::Lstm => 4,
            RnnMode::Gru => 3,
            _ => 1,
        }
    }
}

/// The settings of a recurrent layer, as the arguments of `torch.nn.LSTM`.
#[derive(Clone, Copy, Debug)]
pub struct RnnConfig {
    /// Features of the input.
    pub input_size: i64,
    /// Features of the hidden state.
    pub hidden_size: i64,
    /// Stacked layers.
    pub num_layers: i64,
    /// Whether the layers have `b_ih` and `b_hh`.
    pub bias: bool,
    /// Input and output are `(batch, seq, feature)`.
    pub batch_first: bool,
    /// Dropout on the outputs of each layer but the last, while training.
    pub dropout: f64,
    /// A second, reversed direction per layer.
    pub bidirectional: bool,
}

impl RnnConfig {
    /// One layer, with biases, sequence first, no dropout, one direction.
    pub fn new(input_size: i64, hidden_size: i64) -> RnnConfig {
        RnnConfig {
            input_size,
            hidden_size,
            num_layers: 1,
            bias: true,
            batch_first: false,
            dropout: 0.0,
            bidirectional: false,
        }
    }
}

/// The output of a recurrent layer: every step's last-layer state, and the
/// final state of every layer and direction (`c_n` for an LSTM only).
#[derive(Debug)]
pub struct RnnOutput {
    /// `(seq, batch, directions * hidden)` (batch first if configured).
    pub output: Tensor,
    /// `(layers * directions, batch, hidden)`.
    pub h_n: Tensor,
    /// The LSTM's final cell states, same shape as `h_n`.
    pub c_n: Option<Tensor>,
}

/// A multi-layer RNN, LSTM or GRU with PyTorch's parameters (`weight_ih_l0`,
/// `weight_hh_l0`, `bias_ih_l0`, `bias_hh_l0`, `..._reverse`), initialized
/// uniformly in `±1/sqrt(hidden_size)` as PyTorch does.
#[derive(Debug)]
pub struct Recurrent {
    mode: RnnMode,
    config: RnnConfig,
    training: bool,
    /// PyTorch's `_flat_weights` with their names, in order.
    pub weights: Vec<(String, Tensor)>,
}

/// `nn.LSTM`.
pub type Lstm = Recurrent;
/// `nn.GRU`.
pub type Gru = Recurrent;
/// `nn.RNN`.
pub type Rnn = Recurrent;

impl Recurrent {
    /// A layer of `mode` with fresh parameters of `dtype`.
    pub fn new(mode: RnnMode, config: RnnConfig, dtype: DType) -> Result<Recurrent> {
        let g = mode.gates() * config.hidden_size;
        let bound = 1.0 / (config.hidden_size as f64).sqrt();
        let dirs = if config.bidirectional { 2 } else { 1 };
        let mut weights = Vec::new();
        for layer in 0..config.num_layers {
            for d in 0..dirs {
                let suffix = format!("_l{layer}{}", if d == 1 { "_reverse" } else { "" });
                let input = if layer == 0 { config.input_size } else { config.hidden_size * dirs };
                let mut shapes = vec![("weight_ih", vec![g, input]), ("weight_hh", vec![g, config.hidden_size])];
                if config.bias {
                    shapes.push(("bias_ih", vec![g]));
                    shapes.push(("bias_hh", vec![g]));
                }
                for (name, shape) in shapes {
                    let t = parameter(&shape, dtype, |t| t.uniform_(-bound, bound))?;
                    weights.push((format!("{name}{suffix}"), t));
                }
            }
        }
        Ok(Recurrent { mode, config, training: true, weights })
    }
    /// `nn.LSTM`.
    pub fn lstm(config: RnnConfig, dtype: DType) -> Result<Recurrent> {
        Recurrent::new(RnnMode::Lstm, config, dtype)
    }
    /// `nn.GRU`.
    pub fn gru(config: RnnConfig, dtype: DType) -> Result<Recurrent> {
        Recurrent::new(RnnMode::Gru, config, dtype)
    }
    /// The layer's settings.
    pub fn config(&self) -> RnnConfig {
        self.config
    }
    /// Runs the layer over `input`; `hx` (and `cx` for an LSTM) default to zeros.
    pub fn forward(&self, input: &Tensor, hx: Option<&Tensor>, cx: Option<&Tensor>) -> Result<RnnOutput> {
        let raw: Vec<sys::tc_tensor> = self.weights.iter().map(|(_, t)| t.as_raw()).collect();
        let options = sys::tc_rnn_options {
            size: std::mem::size_of::<sys::tc_rnn_options>() as u32,
            mode: self.mode.code(),
            num_layers: self.config.num_layers,
            has_biases: i32::from(self.config.bias),
            bidirectional: i32::from(self.config.bidirectional),
            batch_first: i32::from(self.config.batch_first),
            train: i32::from(self.training),
            dropout: self.config.dropout,
        };
        let (mut out, mut h, mut c): (sys::tc_tensor, sys::tc_tensor, sys::tc_tensor) =
            (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        check(unsafe {
            sys::tc_rnn(
                input.as_raw(),
                hx.map_or(std::ptr::null_mut(), |t| t.as_raw()),
                cx.map_or(std::ptr::null_mut(), |t| t.as_raw()),
                raw.as_ptr(),
                len_i64(raw.len()),
                &options,
                &mut out,
                &mut h,
                &mut c,
            )
        })?;
        let output = Tensor::from_owned_raw(out);
        let h_n = Tensor::from_owned_raw(h);
        let c_n = if c.is_null() { None } else { Some(Tensor::from_owned_raw(c)) };
        Ok(RnnOutput { output: output?, h_n: h_n?, c_n: c_n.transpose()? })
    }
}

impl Module for Recurrent {
    fn parameters(&self) -> Vec<Tensor> {
        self.weights.iter().map(|(_, t)| t.clone()).collect()
    }
    fn train(&mut self, mode: bool) {
        self.training = mode;
    }
}
