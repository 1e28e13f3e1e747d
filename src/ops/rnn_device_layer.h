// One layer (both directions) of ops::rnn as one library call on a device
// that has whole-layer kernels (backend/rnn_device_layer.h: cuDNN on CUDA),
// recorded as one autograd node.
#pragma once
#include <vector>

#include "backend/rnn_device_layer.h"
#include "core/tensor.h"

namespace tc::ops::detail {

struct DeviceLayerResult {
  Tensor out;  // (T, B, D * H_out)
  Tensor h_n;  // (D, B, H_out)
  Tensor c_n;  // (D, B, H), LSTM only
};

// Whether x's device runs this layer as one call: it has the kernels, they
// support the configuration and dtype, and the sequence and batch are not empty.
bool device_layer_applies(const Tensor& x, const rnn_fused::LayerConfig& cfg);

// x (T, B, I); h0 (D, B, H_out) and c0 (D, B, H) (LSTM); weights: D *
// cfg.weights_per_dir() of PyTorch's tensors, direction 0 first.
DeviceLayerResult device_layer(const rnn_fused::LayerConfig& cfg, const Tensor& x, const Tensor& h0,
                               const Tensor& c0, const std::vector<Tensor>& weights);

}  // namespace tc::ops::detail
