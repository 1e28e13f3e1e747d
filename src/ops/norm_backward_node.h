// What the fused normalisation backward nodes share (layer_norm/rms_norm in
// transformer.cpp, batch/group/instance norm in norm_layers.cpp): the saved
// input and weight, the forward's statistics (mean, and 1/std as inv_std),
// which of weight and bias were given, and which gradients are wanted.
#pragma once
#include <vector>

#include "autograd/engine.h"
#include "autograd/node.h"
#include "core/tensor.h"
#include "ops/nn_util.h"

namespace tc::ops::detail {

struct NormBackwardNode : autograd::Node {
  autograd::SavedTensor x_saved, w_saved;
  // The statistics are saved tensors too, as PyTorch's result1/result2, so
  // saved-tensor hooks (save_on_cpu) see them. mean is null for rms_norm.
  autograd::SavedTensor mean_saved, inv_std_saved;
  bool has_w = false, has_b = false;
  bool freed = false;  // release_saved ran
  double eps = 0;      // the forward's, for the recorded form under create_graph

  bool has_saved() const override { return true; }
  void release_saved() override {
    x_saved.release();
    w_saved.release();
    mean_saved.release();
    inv_std_saved.release();
    freed = true;
  }

 protected:
  struct Wanted {
    bool x, w, b;
  };
  // Refuses a second run after release_saved; says which gradients are wanted.
  Wanted check_and_wanted() {
    TC_CHECK(!freed, TC_ERR_AUTOGRAD, name(),
             ": its saved tensors were freed by an earlier backward; call backward with retain_graph = 1 to "
             "run it twice");
    return {wants_grad(*this, 0), has_w && wants_grad(*this, 1), has_b && wants_grad(*this, has_w ? 2 : 1)};
  }
  // Under create_graph: the gradients as recorded ops, by differentiating
  // forward(x, weight or null, bias or null) (the node's forward in recorded
  // ops) at the saved x and weight; bias is only added, so any tensor of its
  // shape stands for it. Empty when the saved x is not the input itself.
  template <typename F>
  std::vector<Tensor> recorded(const Tensor& x, const Tensor& w, const Dims& b_shape, const Wanted& want,
                               const Tensor& g, F forward) const {
    Tensor b = has_b ? zeros(b_shape, x->dtype, x->device) : Tensor();
    if (has_b && want.b) b->requires_grad = true;  // a stand-in leaf: the gradient of an added bias
    std::vector<Tensor> r = autograd::vjp_recorded(
        {x, w, b}, {want.x, want.w, want.b},
        [&](const std::vector<Tensor>& in) { return forward(in[0], in[1], in[2]); }, g);
    if (r.empty()) return r;
    return in_order(r[0], r[1], r[2]);
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
