// One layer and direction of ops::rnn as one recorded op (the fused CPU
// kernels of backend/rnn_fused.h), where they apply.
#pragma once
#include "core/tensor.h"
#include "ops/rnn.h"

namespace tc::ops::detail {

struct FusedLayerResult {
  Tensor out;  // (T, B, H)
  Tensor h_n;  // (B, H)
  Tensor c_n;  // (B, H), LSTM only
};

// Whether the fused kernels run this layer: a CPU float32/float64 input, a
// non-empty sequence and batch (the LSTM projection is the caller's check).
bool fused_layer_applies(const Tensor& xp);

// Runs the recurrence over xp (T, B, G*H: every step's x W_ih^T + b_ih) from
// h0 (and c0) with w_hh and b_hh (may be null), recording one autograd node
// whose backward runs the whole backward through time.
FusedLayerResult fused_layer(RnnMode mode, bool reverse, const Tensor& xp, const Tensor& h0, const Tensor& c0,
                             const Tensor& w_hh, const Tensor& b_hh);

// The same layer as recorded ops, step by step (ops/rnn.cpp): the fused
// node's backward differentiates it under create_graph, so that its
// gradients can be differentiated again.
FusedLayerResult composed_layer(RnnMode mode, bool reverse, const Tensor& xp, const Tensor& h0,
                                const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh);

}  // namespace tc::ops::detail
