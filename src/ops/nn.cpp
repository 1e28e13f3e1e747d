// Neural-network ops: softmax, log_softmax, the losses (cross_entropy fused
// as log_softmax + nll with the softmax - onehot backward, nll_loss,
// mse_loss), dropout and embedding. Kernels work on contiguous copies; sums
// accumulate in double so float32 results are accurate and deterministic. The
// kernels are the device backend's primitives (src/backend/backend.h).
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/engine.h"
#include "autograd/node.h"
#include "backend/backend.h"
#include "core/dtype.h"
#include "core/init.h"
#include "core/rng.h"
#include "math/rows/unary_exp.h"
#include "math/rows/unary_neg.h"
#include "ops/internal.h"
#include "ops/nn_util.h"
#include "ops/ops.h"

namespace tc::ops {
namespace {

using detail::reshaped;

// A floating input: float32/float64 on the CPU; on a backend computing 16-bit
// floats (CUDA) also float16/bfloat16 (computed in float).
void check_float(const Tensor& t, const char* op, const char* arg) {
  if (!backend_for(t).computes_half) return detail::check_float(t, op, arg);
  TC_CHECK(is_floating(t->dtype), TC_ERR_DTYPE, op, ": ", arg, " must be a floating-point tensor but is ",
           dtype_name(t->dtype));
}
void check_same_device(const Tensor& a, const Tensor& b, const char* op, const char* an, const char* bn) {
  TC_CHECK(a->device == b->device, TC_ERR_DEVICE, op, ": ", an, " is on ", device_name(a->device), " but ",
           bn, " is on ", device_name(b->device));
}

// An index/target tensor beside the tensor it indexes: one device. Beside a
// CPU tensor, one elsewhere is the CPU-only case (TC_ERR_NOT_IMPLEMENTED).
void check_beside(const Tensor& main, const Tensor& other, const char* op, const char* main_name,
                  const char* other_name) {
  if (main->device == kCPU)
    detail::check_cpu(other, op, other_name);
  else
    check_same_device(main, other, op, main_name, other_name);
}

void check_reduction(int32_t reduction, const char* op) {
  TC_CHECK(reduction == TC_REDUCTION_NONE || reduction == TC_REDUCTION_MEAN || reduction == TC_REDUCTION_SUM,
           TC_ERR_INVALID_ARGUMENT, op,
           ": reduction must be TC_REDUCTION_NONE (0), MEAN (1) or SUM (2) but is ", reduction);
}

// A tensor sharing t's storage but not its autograd identity: a node may keep
// its own output this way without a reference cycle (node -> output ->
// grad_fn -> node), and the storage's version counter still catches
// in-place changes.
Tensor alias(const Tensor& t) { return make_view(t, t->shape, t->strides, t->offset); }

struct SoftmaxBackward : autograd::Node {
  autograd::SavedTensor y_saved;
  int64_t dim;
  bool log;
  SoftmaxBackward(int64_t d, bool l) : dim(d), log(l) {}
  const char* name() const override { return log ? "LogSoftmaxBackward" : "SoftmaxBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override { y_saved.release(); }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor y = y_saved.unpack(name());
    if (detail::creating_graph()) {  // recorded, y through this node again
      const Tensor yg = autograd::output_with_graph(y), &g = grads[0];
      if (log) return {sub(g, mul(unary(row::exp, yg), sum(g, {dim}, true)))};
      return {mul(yg, sub(g, sum(mul(g, yg), {dim}, true)))};
    }
    Tensor gx = empty(y->shape, y->dtype, y->device);
    backend_for(y).softmax_backward(gx, grads[0], y, dim, log);
    return {gx};
  }
};

Tensor softmax_impl(const Tensor& a, int64_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  check_float(a, op, "a");
  // A 0-dim tensor is one row of one element, as in PyTorch (dim 0 or -1).
  const int64_t d = a->ndim() == 0 ? (wrap_dim(dim, 1, op), 0) : wrap_dim(dim, a->ndim(), op);
  Tensor y = empty(a->shape, a->dtype, a->device);
  backend_for(a).softmax(y, a, d, log);
  if (autograd::needs_grad({&a})) {
    auto node = std::make_shared<SoftmaxBackward>(d, log);
    node->y_saved = autograd::SavedTensor(alias(y));
    autograd::record(node, {a}, {y});
  }
  return y;
}

// ----------------------------------------------------------------- losses --

// Checks a class-index target against [N, C] (or [C]) scores and returns it
// contiguous; an out-of-range class is TC_ERR_INDEX naming index and count.
Tensor check_class_target(const Tensor& scores, const Tensor& target, const char* op,
                          const char* scores_name) {
  check_beside(scores, target, op, scores_name, "target");
  TC_CHECK(target->dtype == DType::i64, TC_ERR_DTYPE, op, ": target must be int64 class indices but is ",
           dtype_name(target->dtype));
  TC_CHECK(scores->ndim() == 1 || scores->ndim() == 2, TC_ERR_SHAPE, op, ": ", scores_name,
           " must be [N, C] or [C] but has shape ", scores->shape);
  const bool batched = scores->ndim() == 2;
  TC_CHECK(batched ? (target->ndim() == 1 && target->shape[0] == scores->shape[0]) : target->ndim() == 0,
           TC_ERR_SHAPE, op, ": target of shape ", target->shape, " does not fit ", scores_name, " of shape ",
           scores->shape, batched ? " (expected [N])" : " (expected a 0-dim tensor)");
  Tensor t = tc::contiguous(target);
  const int64_t classes = scores->shape[scores->ndim() - 1];
  const Backend& be = backend_for(t);
  const int64_t bad = be.first_out_of_range(t, classes);
  TC_CHECK(bad < 0, TC_ERR_INDEX, op, ": target ", be.read_index(t, bad), " at position ", bad,
           " is out of range for ", classes, " classes");
  return t;
}

struct CrossEntropyBackward : autograd::Node {
  // Saved tensors (so saved-tensor hooks, save_on_cpu, see them too):
  autograd::SavedTensor probs_saved;   // softmax of the logits, [N, C] (internal: nobody else can modify it)
  autograd::SavedTensor target_saved;  // contiguous int64 [N]
  bool freed = false;                  // release_saved ran
  Dims logits_shape;
  int32_t reduction;
  const char* name() const override { return "CrossEntropyBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    probs_saved.release();
    target_saved.release();
    freed = true;
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    TC_CHECK(!freed, TC_ERR_AUTOGRAD, name(),
             ": its saved tensors were freed by an earlier backward; call backward with retain_graph = 1 to "
             "run it twice");
    // Contiguous, as the kernel reads them (an unpack hook may hand back any layout).
    const Tensor probs = tc::contiguous(probs_saved.unpack(name()));
    const Tensor target = tc::contiguous(target_saved.unpack(name()));
    if (detail::creating_graph()) return {recorded(grads[0], probs, target)};
    Tensor gx = empty(probs->shape, probs->dtype, probs->device);
    backend_for(probs).cross_entropy_backward(gx, probs, target, tc::contiguous(grads[0]), reduction);
    return {reshaped(gx, logits_shape)};
  }
  // Under create_graph: (softmax(logits) - one_hot(target)) g, recorded. The
  // probabilities get a SoftmaxBackward over this node's own edge to the
  // logits (softmax's backward needs only its output), so they are a
  // differentiable function of the logits without keeping the logits.
  Tensor recorded(const Tensor& g, const Tensor& probs, const Tensor& target) {
    auto soft = std::make_shared<SoftmaxBackward>(1, false);
    soft->y_saved = autograd::SavedTensor(alias(probs));
    Tensor p = alias(probs);
    soft->next.push_back(next[0]);
    soft->num_outputs = 1;
    soft->output_shapes.push_back(p->shape);
    soft->output_dtypes.push_back(p->dtype);
    soft->output_devices.push_back(p->device);
    p->requires_grad = true;
    p->grad_fn = soft;
    const int64_t n = probs->shape[0];
    Tensor gcol = reduction == TC_REDUCTION_NONE ? reshape(g, {n, 1}) : reshape(g, {1, 1});
    if (reduction == TC_REDUCTION_MEAN) gcol = mul_scalar(gcol, 1.0 / double(n));
    const Tensor hot = to_dtype(one_hot(target, probs->shape[1]), probs->dtype);
    return reshape(mul(sub(p, hot), gcol), logits_shape);
  }
};

struct NllLossBackward : autograd::Node {
  Tensor target;  // contiguous int64 [N]
  Dims input_shape;
  DType dtype;
  int32_t reduction;
  const char* name() const override { return "NllLossBackward"; }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor gx = zeros(input_shape, dtype, target->device);
    backend_for(target).nll_backward(gx, target, tc::contiguous(grads[0]), reduction);
    // Linear in g: under create_graph its own backward picks -gg at the targets.
    const Tensor t = target;
    const Dims g_shape = grads[0]->shape, in_shape = input_shape;
    const int32_t red = reduction;
    return {detail::linear_of_grad("NllLossBackwardBackward", grads[0], gx, [=](const Tensor& gg) {
      const int64_t n = t->numel(), c = in_shape[in_shape.size() - 1];
      Tensor picked = reshape(gather(reshape(gg, {n, c}), 1, reshape(t, {n, 1})), {n});
      if (red != TC_REDUCTION_NONE) picked = sum(picked, {}, false);
      if (red == TC_REDUCTION_MEAN) picked = mul_scalar(picked, 1.0 / double(n));
      return reshape(unary(row::neg, picked), g_shape);
    })};
  }
};

struct MseLossBackward : autograd::Node {
  autograd::SavedTensor input_saved, target_saved;
  int32_t reduction;
  const char* name() const override { return "MseLossBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    input_saved.release();
    target_saved.release();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor x = input_saved.unpack(name()), t = target_saved.unpack(name());
    std::vector<Tensor> out(2);
    if (detail::creating_graph()) {  // 2 (x - t) g (/ N), recorded
      const double scale =
          reduction == TC_REDUCTION_MEAN ? 2.0 / double(std::max<int64_t>(x->numel(), 1)) : 2.0;
      const Tensor gx = mul_scalar(mul(sub(x, t), grads[0]), scale);
      if (detail::wants_grad(*this, 0)) out[0] = gx;
      if (detail::wants_grad(*this, 1)) out[1] = unary(row::neg, gx);
      return out;
    }
    Tensor gx = backend_for(x).mse_loss_backward(grads[0], x, t, reduction);
    if (detail::wants_grad(*this, 0)) out[0] = gx;
    if (detail::wants_grad(*this, 1)) out[1] = unary(row::neg, gx);
    return out;
  }
};

// Multiplies by a saved tensor of the same shape (dropout's scaled mask).
struct MaskBackward : autograd::Node {
  autograd::SavedTensor mask_saved;  // internal, contiguous; saved so that saved-tensor hooks see it
  bool freed = false;                // release_saved ran
  const char* name() const override { return "DropoutBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    mask_saved.release();
    freed = true;
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    TC_CHECK(!freed, TC_ERR_AUTOGRAD, name(),
             ": its saved tensors were freed by an earlier backward; call backward with retain_graph = 1 to "
             "run it twice");
    return {mul(grads[0], mask_saved.unpack(name()))};
  }
};

struct EmbeddingBackward : autograd::Node {
  autograd::SavedTensor indices_saved;
  Dims weight_shape;
  DType dtype;
  const char* name() const override { return "EmbeddingBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override { indices_saved.release(); }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor idx = tc::contiguous(indices_saved.unpack(name()));
    const int64_t dim = weight_shape[1], n = idx->numel();
    // Each row of the gradient added in index order: deterministic.
    Tensor gw = zeros(weight_shape, dtype, idx->device);
    backend_for(idx).index_scatter_add(gw, reshaped(grads[0], {n, dim}), 0, reshaped(idx, {n}), true);
    // Linear in g: under create_graph its own backward gathers gg's rows.
    const Dims g_shape = grads[0]->shape;
    return {detail::linear_of_grad("EmbeddingBackwardBackward", grads[0], gw, [=](const Tensor& gg) {
      return reshape(index_select(gg, 0, reshaped(idx, {n})), g_shape);
    })};
  }
};

}  // namespace

Tensor softmax(const Tensor& a, int64_t dim) { return softmax_impl(a, dim, false); }
Tensor log_softmax(const Tensor& a, int64_t dim) { return softmax_impl(a, dim, true); }

Tensor cross_entropy(const Tensor& logits, const Tensor& target, int32_t reduction) {
  const char* op = "cross_entropy";
  check_float(logits, op, "logits");
  check_reduction(reduction, op);
  Tensor t = check_class_target(logits, target, op, "logits");
  const int64_t c = logits->shape[logits->ndim() - 1], n = logits->ndim() == 2 ? logits->shape[0] : 1;
  const Dims none_shape = logits->ndim() == 2 ? Dims{n} : Dims{};
  Tensor probs = empty({n, c}, logits->dtype, logits->device);
  const Backend& be = backend_for(logits);
  Tensor losses = empty({n}, DType::f64, logits->device);
  Tensor out = empty(reduction == TC_REDUCTION_NONE ? none_shape : Dims{}, logits->dtype, logits->device);
  be.cross_entropy_forward(probs, losses, logits, t);
  be.reduce_losses(out, losses, reduction);
  if (autograd::needs_grad({&logits})) {
    auto node = std::make_shared<CrossEntropyBackward>();
    node->probs_saved = autograd::SavedTensor(probs);
    // A private copy: the caller may change its target tensor after the call.
    node->target_saved = autograd::SavedTensor(reshaped(clone_data(t), {n}));
    node->logits_shape = logits->shape;
    node->reduction = reduction;
    autograd::record(node, {logits}, {out});
  }
  return out;
}

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, int32_t reduction) {
  const char* op = "nll_loss";
  check_float(log_probs, op, "log_probs");
  check_reduction(reduction, op);
  Tensor t = check_class_target(log_probs, target, op, "log_probs");
  const int64_t n = log_probs->ndim() == 2 ? log_probs->shape[0] : 1;
  const Dims none_shape = log_probs->ndim() == 2 ? Dims{n} : Dims{};
  const Backend& be = backend_for(log_probs);
  Tensor losses = empty({n}, DType::f64, log_probs->device);
  Tensor out =
      empty(reduction == TC_REDUCTION_NONE ? none_shape : Dims{}, log_probs->dtype, log_probs->device);
  be.nll_forward(losses, log_probs, t);
  be.reduce_losses(out, losses, reduction);
  if (autograd::needs_grad({&log_probs})) {
    auto node = std::make_shared<NllLossBackward>();
    node->target = reshaped(clone_data(t), {n});
    node->input_shape = log_probs->shape;
    node->dtype = log_probs->dtype;
    node->reduction = reduction;
    autograd::record(node, {log_probs}, {out});
  }
  return out;
}

Tensor mse_loss(const Tensor& input, const Tensor& target, int32_t reduction) {
  const char* op = "mse_loss";
  check_float(input, op, "input");
  check_float(target, op, "target");
  detail::check_same_dtype(input, target, op, "input", "target");
  check_reduction(reduction, op);
  TC_CHECK(input->shape == target->shape, TC_ERR_SHAPE, op, ": input of shape ", input->shape,
           " and target of shape ", target->shape, " must have the same shape");
  check_same_device(input, target, op, "input", "target");
  Tensor out = backend_for(input).mse_loss(input, target, reduction);
  if (autograd::needs_grad({&input, &target})) {
    auto node = std::make_shared<MseLossBackward>();
    node->input_saved = autograd::SavedTensor(input);
    node->target_saved = autograd::SavedTensor(target);
    node->reduction = reduction;
    autograd::record(node, {input, target}, {out});
  }
  return out;
}

Tensor dropout(const Tensor& a, double p, bool training) {
  const char* op = "dropout";
  check_float(a, op, "a");
  TC_CHECK(p >= 0.0 && p <= 1.0, TC_ERR_INVALID_ARGUMENT, op, ": p must be in [0, 1] but is ", p);
  // Identity, as PyTorch returns its input unchanged outside training.
  if (!training || p == 0.0) return a;
  Tensor mask = empty(a->shape, a->dtype, a->device);
  fill_bernoulli(mask, 1.0 - p);
  // p = 1 drops everything; scale 0 instead of 1/0 keeps the result zeros.
  const double scale = p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
  Tensor out;
  {
    NoGradGuard ng;
    mask = mul_scalar(mask, scale);
    out = mul(a, mask);
  }
  if (autograd::needs_grad({&a})) {
    auto node = std::make_shared<MaskBackward>();
    node->mask_saved = autograd::SavedTensor(mask);
    autograd::record(node, {a}, {out});
  }
  return out;
}

namespace {
Tensor record_embedding(const Tensor& weight, const Tensor& indices, const Tensor& out) {
  if (autograd::needs_grad({&weight})) {
    auto node = std::make_shared<EmbeddingBackward>();
    node->indices_saved = autograd::SavedTensor(indices);
    node->weight_shape = weight->shape;
    node->dtype = weight->dtype;
    autograd::record(node, {weight}, {out});
  }
  return out;
}
}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  const char* op = "embedding";
  check_float(weight, op, "weight");
  detail::check_ndim(weight, 2, op, "weight");
  check_beside(weight, indices, op, "weight", "indices");
  TC_CHECK(indices->dtype == DType::i64, TC_ERR_DTYPE, op, ": indices must be int64 but are ",
           dtype_name(indices->dtype));
  TC_CHECK(indices->ndim() < TC_MAX_DIMS, TC_ERR_SHAPE, op, ": indices of shape ", indices->shape,
           " leave no room for the embedding dim");
  const int64_t num = weight->shape[0], dim = weight->shape[1];
  Tensor idx = tc::contiguous(indices);
  Dims out_shape = indices->shape;
  out_shape.push_back(dim);
  const Backend& be = backend_for(weight);
  const int64_t bad = be.first_out_of_range(idx, num);
  TC_CHECK(bad < 0, TC_ERR_INDEX, op, ": index ", be.read_index(idx, bad), " at position ", bad,
           " is out of range for ", num, " embeddings");
  const int64_t n = idx->numel();
  Tensor out = empty(out_shape, weight->dtype, weight->device);
  be.index_gather(reshaped(out, {n, dim}), weight, 0, reshaped(idx, {n}), true);
  return record_embedding(weight, indices, out);
}

}  // namespace tc::ops
