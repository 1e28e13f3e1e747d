// What the fused normalisation backward nodes share (layer_norm/rms_norm in
// transformer.cpp, batch/group/instance norm in norm_layers.cpp): the saved
// input and weight, the forward's statistics (mean, and 1/std as inv_std),
// which of weight and bias were given, and which gradients are wanted.
#pragma once
#include <vector>

#include "autograd/node.h"
#include "ops/nn_util.h"

namespace tc::ops::detail {

struct NormBackwardNode : autograd::Node {
  autograd::SavedTensor x_saved, w_saved;
  Tensor mean, inv_std;  // mean is null for rms_norm
  bool has_w = false, has_b = false;

  bool has_saved() const override { return true; }
  void release_saved() override {
    x_saved.release();
    w_saved.release();
    mean.reset();
    inv_std.reset();
  }

 protected:
  struct Wanted {
    bool x, w, b;
  };
  // Refuses a second run after release_saved; says which gradients are wanted.
  Wanted check_and_wanted() {
    TC_CHECK(inv_std != nullptr, TC_ERR_AUTOGRAD, name(),
             ": its saved tensors were freed by an earlier backward; call backward with retain_graph = 1 to "
             "run it twice");
    return {wants_grad(*this, 0), has_w && wants_grad(*this, 1), has_b && wants_grad(*this, has_w ? 2 : 1)};
  }
  // Puts the wanted gradients in next's order (x, weight when given, bias when given).
  std::vector<Tensor> in_order(Tensor gx, Tensor gw, Tensor gb) const {
    std::vector<Tensor> out(next.size());
    out[0] = std::move(gx);
    if (has_w) out[1] = std::move(gw);
    if (has_b) out[has_w ? 2 : 1] = std::move(gb);
    return out;
  }
};

}  // namespace tc::ops::detail
