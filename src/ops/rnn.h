// Recurrent layers (tc.h: tc_rnn): the multi-layer, optionally bidirectional
// RNN_TANH / RNN_RELU / LSTM (with projections) / GRU of torch.nn, with
// PyTorch's weight layout and gate order, so torch state dicts load as they are.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace tc::ops {

enum class RnnMode : int32_t { tanh = 0, relu = 1, lstm = 2, gru = 3 };

struct RnnOptions {
  RnnMode mode = RnnMode::lstm;
  int64_t num_layers = 1;
  bool has_biases = true;
  bool bidirectional = false;
  bool batch_first = false;
  double dropout = 0;  // between layers, while training
  bool train = false;
};

struct RnnResult {
  Tensor output;  // (T, B, D * H_out), (B, T, ...) when batch_first, (T, D * H_out) unbatched
  Tensor h_n;     // (D * num_layers, B, H_out)
  Tensor c_n;     // LSTM only: (D * num_layers, B, H)
};

// weights: for each layer, for each direction: w_ih, w_hh, [b_ih, b_hh],
// [w_hr] (LSTM projections), PyTorch's _flat_weights order. hx (and cx for
// an LSTM) may be null: zeros. Composed of differentiable ops: autograd
// records the whole recurrence.
RnnResult rnn(const Tensor& input, const Tensor& hx, const Tensor& cx, const std::vector<Tensor>& weights,
              const RnnOptions& o);

}  // namespace tc::ops
