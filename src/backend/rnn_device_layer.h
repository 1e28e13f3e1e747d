// A device's whole recurrent layer as one library call: cuDNN's RNN API on
// CUDA (src/cuda/cudnn_rnn.cpp). The CPU kernels of backend/rnn_fused.h take
// the input projection x W_ih^T + b_ih precomputed; a library like cuDNN runs
// that GEMM itself, owns the weights in its own packed layout, handles both
// directions of a layer in one call, and keeps an opaque reserve buffer from
// the training forward for its backward. So this interface takes the layer's
// input and PyTorch's weight tensors, and hands the packed weights and the
// reserve back as byte tensors the autograd node saves like any activation.
//
// Every tensor is contiguous and on the table's device, of one floating
// dtype (the `supports` check); T steps, B batch, D directions (2 when
// bidirectional), H hidden, P the LSTM projection size (H_out = P, else H).
// Gate order and weight layout are PyTorch's (i, f, g, o; r, z, n).
//
// The table lives in the device's module and reaches the core through the
// module's API (backend/cuda_module_api.h); everything here is inline, so the
// module needs no symbol of libtc.so for it.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "backend/rnn_fused.h"
#include "core/tensor.h"
#include "tc_constants.h"

namespace tc::rnn_fused {

// The shape of one layer's recurrence (both directions when bidirectional).
struct LayerConfig {
  Cell cell = Cell::lstm;
  bool bidirectional = false;
  bool has_bias = true;
  int64_t input = 0;   // the layer's input features
  int64_t hidden = 0;  // H
  int64_t proj = 0;    // P: the LSTM projection size, 0 for none

  int64_t dirs() const { return bidirectional ? 2 : 1; }
  int64_t out_size() const { return proj ? proj : hidden; }
  int64_t gates() const { return cell == Cell::lstm ? 4 : cell == Cell::gru ? 3 : 1; }
  // PyTorch's tensors per direction: w_ih, w_hh, [b_ih, b_hh], [w_hr].
  int64_t weights_per_dir() const { return 2 + (has_bias ? 2 : 0) + (proj ? 1 : 0); }
};

struct LayerForwardArgs {
  LayerConfig cfg;
  bool train = false;           // keep the reserve for a backward
  Tensor x;                     // (T, B, input)
  std::vector<Tensor> weights;  // D * weights_per_dir, direction 0 first
  Tensor hx;                    // (D, B, H_out)
  Tensor cx;                    // (D, B, H), LSTM only
  // Written (allocated by the caller): the outputs.
  Tensor y;   // (T, B, D * H_out): both directions' h_t side by side
  Tensor hy;  // (D, B, H_out)
  Tensor cy;  // (D, B, H), LSTM only
  // Allocated by the kernels: the weights in the library's layout, and (when
  // train) the library's per-call state; uint8 tensors on the device.
  Tensor packed;
  Tensor reserve;
  // Written by the kernels, handed back to backward: the library setting the
  // reserve was made under (cuDNN's math type, from the matmul precision of
  // the forward), so that a setting changed in between cannot mismatch it.
  int32_t variant = 0;
};

struct LayerBackwardArgs {
  LayerConfig cfg;
  // What the forward had and kept: its x, hx, cx, y, packed, reserve.
  Tensor x, hx, cx, y, packed, reserve;
  int32_t variant = 0;
  // The gradients of y, hy, cy; each may be null (zero).
  Tensor dy, dhy, dcy;
  // Written (allocated by the caller): the gradients of x, hx, cx (LSTM) and
  // of every weight, in the order of LayerForwardArgs::weights.
  Tensor dx, dhx, dcx;
  std::vector<Tensor> d_weights;
};

class LayerKernels {
 public:
  LayerKernels() = default;
  virtual ~LayerKernels() = default;
  LayerKernels(const LayerKernels&) = delete;
  LayerKernels& operator=(const LayerKernels&) = delete;

  // Whether forward/backward run this layer in this dtype (else the op takes
  // its composed path).
  virtual bool supports(const LayerConfig& cfg, DType dtype) const = 0;
  virtual void forward(LayerForwardArgs& a) const = 0;
  virtual void backward(LayerBackwardArgs& a) const = 0;
};

// A device type's table. The CUDA slot is set by the cuda stage while the
// module is loaded (null before, after shutdown, and for a module built
// without cuDNN). The CPU slot stays null in libtc (its layers run the
// kernels of rnn_fused.h); tests put a reference table there to check the
// op's plumbing without a GPU. Other device types have none.
inline std::atomic<const LayerKernels*>* layer_kernels_slot(int32_t type) noexcept {
  static std::atomic<const LayerKernels*> cpu{nullptr}, cuda{nullptr};
  return type == TC_DEVICE_CUDA ? &cuda : type == TC_DEVICE_CPU ? &cpu : nullptr;
}
inline std::atomic<const LayerKernels*>& cuda_layer_kernels_slot() noexcept {
  return *layer_kernels_slot(TC_DEVICE_CUDA);
}

// The table of a device, or null where none computes whole layers.
inline const LayerKernels* layer_kernels_for(Device device) noexcept {
  std::atomic<const LayerKernels*>* slot = layer_kernels_slot(device_type(device));
  return slot ? slot->load() : nullptr;
}

}  // namespace tc::rnn_fused
