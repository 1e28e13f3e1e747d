// Where each of cuDNN's "linear layers" of one RNN pseudo-layer (one layer
// and direction) lives in PyTorch's weight tensors: pure host arithmetic,
// used by src/cuda/cudnn_rnn.cpp to copy the weights into cuDNN's packed
// weight space and the gradients back out, and tested on the CPU.
//
// cuDNN numbers a cell's matrices (cudnnGetRNNWeightParams' linLayerID):
// 0 .. G-1 multiply the layer input, G .. 2G-1 the recurrent state, gate by
// gate in the order (i, f, g, o) for the LSTM and (r, z, n) for the GRU (the
// GRU's n as tanh(W_n x + b_Wn + r * (R_n h + b_Rn)): the linear step before
// the reset, as PyTorch's GRU); the LSTM's recurrent projection is ID 8.
// Each input/recurrent matrix and bias has a twin of the same ID. PyTorch
// stacks the gates in the same order along the rows of w_ih (G*H, I), w_hh
// (G*H, H_out) and b_ih, b_hh (G*H), and has w_hr (P, H): so ID k is the
// k-th row block of H rows, copied as it is (row-major both sides).
#pragma once
#include <cstdint>

#include "backend/rnn_device_layer.h"

namespace tc::rnn_fused {

// A run of elements of one of PyTorch's tensors of a direction: index into
// the direction's list (w_ih, w_hh, [b_ih, b_hh], [w_hr]), -1 for none.
struct WeightSlice {
  int32_t tensor = -1;
  int64_t offset = 0;  // in elements
  int64_t count = 0;
};

// cuDNN's linear layers per pseudo-layer: 2G, plus the LSTM projection's ID 8.
inline int32_t lin_layer_count(const LayerConfig& c) { return int32_t(2 * c.gates()) + (c.proj ? 1 : 0); }

// The PyTorch matrix rows behind cuDNN's matrix linLayerID `id`.
inline WeightSlice lin_layer_matrix(const LayerConfig& c, int32_t id) {
  const int64_t g = c.gates();
  if (c.proj && id == 2 * g) return {int32_t(c.weights_per_dir() - 1), 0, c.proj * c.hidden};
  if (id < 0 || id >= 2 * g) return {};
  if (id < g) return {0, id * c.hidden * c.input, c.hidden * c.input};
  return {1, (id - g) * c.hidden * c.out_size(), c.hidden * c.out_size()};
}

// The PyTorch bias behind cuDNN's bias linLayerID `id` (none without biases
// and for the projection, which has no bias in either library).
inline WeightSlice lin_layer_bias(const LayerConfig& c, int32_t id) {
  const int64_t g = c.gates();
  if (!c.has_bias || id < 0 || id >= 2 * g) return {};
  if (id < g) return {2, id * c.hidden, c.hidden};
  return {3, (id - g) * c.hidden, c.hidden};
}

}  // namespace tc::rnn_fused
