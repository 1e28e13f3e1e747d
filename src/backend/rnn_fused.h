// The fused recurrence of one layer and one direction of torch.nn's RNN_TANH,
// RNN_RELU, LSTM and GRU (no LSTM projection), float32 and float64 on the CPU
// (defined in src/cpu/rnn_fused.cpp; src/ops/rnn_fused_layer.cpp calls it).
// Per time step one GEMM (h_{t-1} W_hh^T) and one pass over the gates; the
// backward through time keeps the per-step GEMM it must (dh_{t-1} = dG_t
// W_hh) and computes dW_hh as one GEMM over all steps, instead of a dozen
// recorded ops per step and a small weight-gradient GEMM per step.
//
// Every tensor is contiguous, on the CPU, of one floating dtype (f32 or f64);
// T steps, B batch, H hidden, G gates (1, 4 LSTM, 3 GRU), in PyTorch's gate
// order (i, f, g, o; r, z, n). Time-indexed buffers are indexed by t, also
// for the reverse direction (which runs t = T-1 .. 0).
#pragma once
#include "core/tensor.h"

namespace tc::rnn_fused {

// The cell type: tc.h's TC_RNN_* order (ops/rnn.h's RnnMode).
enum class Cell : int32_t { tanh = 0, relu = 1, lstm = 2, gru = 3 };

// Per-step activations kept for backward, in units of H per row: LSTM i, f,
// g, o, tanh(c); GRU r, z, n and the hidden part of n's pre-activation
// (h W_hn^T + b_hn); none for the plain RNN (its output is enough).
inline int64_t saved_acts(Cell c) { return c == Cell::lstm ? 5 : c == Cell::gru ? 4 : 0; }

struct ForwardArgs {
  Cell cell = Cell::lstm;
  bool reverse = false;
  Tensor xp;    // (T, B, G*H): x_t W_ih^T + b_ih for every step
  Tensor w_hh;  // (G*H, H)
  Tensor b_hh;  // (G*H) or null
  Tensor h0;    // (B, H)
  Tensor c0;    // (B, H), LSTM only
  Tensor out;   // (T, B, H) written: h_t
  Tensor h_n;   // (B, H) written: the last step's h
  Tensor c_n;   // (B, H) written, LSTM only
  Tensor cs;    // (T, B, H) written, LSTM only: c_t
  Tensor acts;  // (T, B, saved_acts*H) written, LSTM and GRU
};

void forward(const ForwardArgs& a);

struct BackwardArgs {
  Cell cell = Cell::lstm;
  bool reverse = false;
  // What the forward kept.
  Tensor w_hh, h0, c0, out, cs, acts;
  // The gradients of the forward's outputs; each may be null (zero).
  Tensor d_out, d_hn, d_cn;
  // Written: the gradients of xp, h0, c0 (LSTM), w_hh and b_hh (when not null).
  Tensor d_xp, d_h0, d_c0, d_w_hh, d_b_hh;
};

void backward(const BackwardArgs& a);

}  // namespace tc::rnn_fused
