// The losses and distances of torch.nn.functional beyond cross_entropy,
// nll_loss and mse_loss (nn.cpp): l1, smooth_l1, huber, binary cross-entropy
// (on probabilities and on logits), kl_div, nll/cross-entropy with class
// weights, ignore_index, label smoothing, probability targets and N-d inputs,
// cosine_similarity, pairwise_distance, normalize. Each is composed of
// recorded ops, so autograd differentiates it and every backend runs it
// without a kernel of its own; the formulas are PyTorch 1.13's. Masks and
// where() keep gradients finite where a formula's branch is not taken (log(0),
// sqrt(0)), as PyTorch's fused backward formulas are.
#include <cmath>
#include <limits>

#include "backend/backend.h"
#include "core/dtype.h"
#include "math/rows/compare_eq.h"
#include "math/rows/compare_gt.h"
#include "math/rows/compare_lt.h"
#include "math/rows/compare_ne.h"
#include "math/rows/unary_abs.h"
#include "math/rows/unary_exp.h"
#include "math/rows/unary_log.h"
#include "math/rows/unary_logical_not.h"
#include "math/rows/unary_neg.h"
#include "math/rows/unary_softplus.h"
#include "math/rows/unary_sqrt.h"
#include "math/scalar_op_enum.h"
#include "ops/nn_util.h"
#include "ops/ops.h"

namespace tc::ops {
namespace {

constexpr double kNoBound = std::numeric_limits<double>::quiet_NaN();

void check_floating(const Tensor& t, const char* op, const char* arg) {
  if (!backend_for(t).computes_half) return detail::check_float(t, op, arg);
  TC_CHECK(is_floating(t->dtype), TC_ERR_DTYPE, op, ": ", arg, " must be a floating-point tensor but is ",
           dtype_name(t->dtype));
}

void check_reduction(int32_t reduction, const char* op) {
  TC_CHECK(reduction == TC_REDUCTION_NONE || reduction == TC_REDUCTION_MEAN || reduction == TC_REDUCTION_SUM,
           TC_ERR_INVALID_ARGUMENT, op,
           ": reduction must be TC_REDUCTION_NONE (0), MEAN (1) or SUM (2) but is ", reduction);
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op, const char* an, const char* bn) {
  TC_CHECK(a->device == b->device, TC_ERR_DEVICE, op, ": ", an, " is on ", device_name(a->device), " but ",
           bn, " is on ", device_name(b->device));
}

// An elementwise loss's inputs: floating, one device, broadcastable.
void check_pair(const Tensor& input, const Tensor& target, int32_t reduction, const char* op) {
  check_floating(input, op, "input");
  check_floating(target, op, "target");
  check_same_device(input, target, op, "input", "target");
  check_reduction(reduction, op);
  broadcast_shapes(input->shape, target->shape, op);
}

// An optional weight beside the input: floating, same device, broadcastable.
void check_weight(const Tensor& w, const Tensor& input, const char* op, const char* name) {
  if (!w) return;
  check_floating(w, op, name);
  check_same_device(input, w, op, "input", name);
  broadcast_shapes(input->shape, w->shape, op);
}

Tensor scalar_like(double v, const Tensor& t) { return scalar_tensor(v, t->dtype, t->device); }

Tensor reduce(const Tensor& loss, int32_t reduction) {
  if (reduction == TC_REDUCTION_MEAN) return mean(loss, {}, false);
  if (reduction == TC_REDUCTION_SUM) return sum(loss, {}, false);
  return loss;
}

Tensor neg(const Tensor& a) { return unary(row::neg, a); }

// log(x) clamped at -100 (PyTorch's binary_cross_entropy), with a finite
// gradient at x <= 0 (the clamped branch's gradient is 0).
Tensor clamped_log(const Tensor& x) {
  const Tensor pos = binary(row::gt, detach(x), scalar_like(0, x));
  const Tensor safe = where(pos, x, scalar_like(1, x));
  return clamp(where(pos, unary(row::log, safe), scalar_like(-100, x)), -100, kNoBound);
}

// s^e for s >= 0 with value and gradient 0 at s = 0 (the subgradient PyTorch's
// norm backward takes), not 0 * inf.
Tensor root_at_zero(const Tensor& s, double e) {
  const Tensor pos = binary(row::gt, detach(s), scalar_like(0, s));
  const Tensor safe = where(pos, s, scalar_like(1, s));
  const Tensor r = e == 0.5 ? unary(row::sqrt, safe) : binary_scalar(ScalarOp::pow, safe, e);
  return where(pos, r, scalar_like(0, s));
}

// torch.linalg.vector_norm over one dim (p >= 0 or inf).
Tensor vector_norm(const Tensor& x, double p, int64_t dim, bool keepdim, const char* op) {
  TC_CHECK(p >= 0, TC_ERR_INVALID_ARGUMENT, op, ": p must be >= 0 but is ", p);
  if (std::isinf(p)) return max_dim(unary(row::abs, x), dim, keepdim).first;
  if (p == 0) {
    const Tensor nz = binary(row::ne, detach(x), scalar_like(0, x));
    return sum(cast(nz, x->dtype), {dim}, keepdim);
  }
  if (p == 1) return sum(unary(row::abs, x), {dim}, keepdim);
  if (p == 2) return root_at_zero(sum(mul(x, x), {dim}, keepdim), 0.5);
  return root_at_zero(sum(binary_scalar(ScalarOp::pow, unary(row::abs, x), p), {dim}, keepdim), 1.0 / p);
}

// The class dim of a [C] or [N, C, d1, ...] input.
int64_t class_dim(const Tensor& scores, const char* op, const char* name) {
  TC_CHECK(scores->ndim() >= 1, TC_ERR_SHAPE, op, ": ", name, " must be [C] or [N, C, d1, ...] but is 0-dim");
  return scores->ndim() == 1 ? 0 : 1;
}

// The target shape class-index targets need: scores' shape without the class dim.
Dims class_target_shape(const Tensor& scores, int64_t cdim) {
  Dims s = scores->shape;
  s.erase(cdim);
  return s;
}

void check_class_weight(const Tensor& weight, const Tensor& scores, int64_t classes, const char* op) {
  if (!weight) return;
  check_same_device(scores, weight, op, "input", "weight");
  detail::check_same_dtype(scores, weight, op, "input", "weight");
  TC_CHECK(weight->ndim() == 1 && weight->shape[0] == classes, TC_ERR_SHAPE, op, ": weight of shape ",
           weight->shape, " must be [C] = [", classes, "]");
}

// nll over the class dim with class weights and ignore_index (PyTorch's
// nll_loss_nd). Also returns the per-element weights (0 where ignored) and the
// ignore mask, which label smoothing needs.
struct Nll {
  Tensor loss, elem_weight, ignored;
};
Nll nll_nd(const Tensor& logp, const Tensor& target, const Tensor& weight, int64_t ignore_index,
           int32_t reduction, const char* op) {
  const int64_t cdim = class_dim(logp, op, "input");
  const int64_t classes = logp->shape[cdim];
  TC_CHECK(target->dtype == DType::i64, TC_ERR_DTYPE, op, ": target must be int64 class indices but is ",
           dtype_name(target->dtype));
  const Dims tshape = class_target_shape(logp, cdim);
  TC_CHECK(target->shape == tshape, TC_ERR_SHAPE, op, ": target of shape ", target->shape,
           " does not fit input of shape ", logp->shape, " (expected ", tshape, ")");
  check_same_device(logp, target, op, "input", "target");
  check_class_weight(weight, logp, classes, op);
  const Tensor ignored =
      binary(row::eq, target, scalar_tensor(double(ignore_index), DType::i64, target->device));
  const Tensor t = tc::contiguous(where(ignored, scalar_tensor(0, DType::i64, target->device), target));
  const Backend& be = backend_for(t);
  const int64_t bad = be.first_out_of_range(t, classes);
  TC_CHECK(bad < 0, TC_ERR_INDEX, op, ": target ", be.read_index(t, bad), " at position ", bad,
           " is out of bounds for ", classes, " classes");
  const Tensor picked = squeeze(gather(logp, cdim, unsqueeze(t, cdim)), cdim);
  const Tensor per_class = weight ? reshape(index_select(weight, 0, reshape(t, {t->numel()})), tshape)
                                  : ones(tshape, logp->dtype, logp->device);
  const Tensor w = where(ignored, scalar_like(0, logp), per_class);
  Tensor loss = neg(mul(picked, w));
  if (reduction == TC_REDUCTION_SUM) loss = sum(loss, {}, false);
  if (reduction == TC_REDUCTION_MEAN) loss = div(sum(loss, {}, false), sum(w, {}, false));
  return {loss, w, ignored};
}

// weight [C] as a view broadcasting along the class dim of an input of ndim dims.
Tensor class_view(const Tensor& weight, int64_t ndim, int64_t cdim) {
  Dims s = Dims::filled(ndim, 1);
  s[cdim] = weight->shape[0];
  return reshape(weight, s);
}

// Whether every target is a class in [0, C) and ignore_index is not one: the
// fused cross_entropy/nll_loss of nn.cpp (2-D or 1-D, no weight) computes it.
bool plain_targets(const Tensor& scores, const Tensor& target, int64_t ignore_index) {
  if (scores->ndim() > 2 || target->dtype != DType::i64) return false;
  const int64_t classes = scores->shape[scores->ndim() - 1];
  if (target->shape != class_target_shape(scores, scores->ndim() == 1 ? 0 : 1)) return false;
  if (target->device != scores->device) return false;
  if (ignore_index >= 0 && ignore_index < classes) return false;
  const Tensor t = tc::contiguous(target);
  return backend_for(t).first_out_of_range(t, classes) < 0;
}

}  // namespace

Tensor l1_loss(const Tensor& input, const Tensor& target, int32_t reduction) {
  check_pair(input, target, reduction, "l1_loss");
  return reduce(unary(row::abs, sub(input, target)), reduction);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, int32_t reduction, double beta) {
  const char* op = "smooth_l1_loss";
  check_pair(input, target, reduction, op);
  TC_CHECK(beta >= 0, TC_ERR_INVALID_ARGUMENT, op, ": beta must be >= 0 but is ", beta);
  const Tensor d = unary(row::abs, sub(input, target));
  if (beta == 0) return reduce(d, reduction);
  const Tensor small = binary(row::lt, detach(d), scalar_like(beta, d));
  const Tensor loss = where(small, mul_scalar(mul(d, d), 0.5 / beta), add_scalar(d, -0.5 * beta));
  return reduce(loss, reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, int32_t reduction, double delta) {
  const char* op = "huber_loss";
  check_pair(input, target, reduction, op);
  TC_CHECK(delta > 0, TC_ERR_INVALID_ARGUMENT, op, ": delta must be > 0 but is ", delta);
  const Tensor d = unary(row::abs, sub(input, target));
  const Tensor small = binary(row::lt, detach(d), scalar_like(delta, d));
  const Tensor loss =
      where(small, mul_scalar(mul(d, d), 0.5), mul_scalar(add_scalar(d, -0.5 * delta), delta));
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            int32_t reduction) {
  const char* op = "binary_cross_entropy";
  check_pair(input, target, reduction, op);
  TC_CHECK(input->shape == target->shape, TC_ERR_SHAPE, op, ": target of shape ", target->shape,
           " must have input's shape ", input->shape);
  check_weight(weight, input, op, "weight");
  if (input->numel() > 0) {
    const Tensor x = detach(input);
    const double lo = read_element(tc::to_device(min_all(x), kCPU), 0);
    const double hi = read_element(tc::to_device(max_all(x), kCPU), 0);
    TC_CHECK(lo >= 0 && hi <= 1, TC_ERR_INVALID_ARGUMENT, op,
             ": all elements of input should be between 0 and 1 (they are in [", lo, ", ", hi, "])");
  }
  const Tensor one_minus_t = binary_scalar(ScalarOp::rsub, target, 1);
  const Tensor one_minus_x = binary_scalar(ScalarOp::rsub, input, 1);
  Tensor loss = neg(add(mul(target, clamped_log(input)), mul(one_minus_t, clamped_log(one_minus_x))));
  if (weight) loss = mul(loss, weight);
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, int32_t reduction) {
  const char* op = "binary_cross_entropy_with_logits";
  check_pair(input, target, reduction, op);
  TC_CHECK(input->shape == target->shape, TC_ERR_SHAPE, op, ": target of shape ", target->shape,
           " must have input's shape ", input->shape);
  check_weight(weight, input, op, "weight");
  check_weight(pos_weight, input, op, "pos_weight");
  // (1 - t) x + lw softplus(-x), lw = 1 + (pos_weight - 1) t: softplus never
  // overflows, where log(sigmoid(x)) would.
  const Tensor sp = unary(row::softplus, neg(input));
  const Tensor lw_sp = pos_weight ? mul(add_scalar(mul(add_scalar(pos_weight, -1), target), 1), sp) : sp;
  Tensor loss = add(mul(binary_scalar(ScalarOp::rsub, target, 1), input), lw_sp);
  if (weight) loss = mul(loss, weight);
  return reduce(loss, reduction);
}

Tensor kl_div(const Tensor& input, const Tensor& target, int32_t reduction, bool log_target) {
  const char* op = "kl_div";
  check_pair(input, target, reduction, op);
  Tensor loss;
  if (log_target) {
    loss = mul(unary(row::exp, target), sub(target, input));
  } else {
    // xlogy(t, t) - t input: 0 where t = 0, with a finite gradient there.
    const Tensor zero = binary(row::eq, detach(target), scalar_like(0, target));
    const Tensor log_t = unary(row::log, where(zero, scalar_like(1, target), target));
    loss = mul(target, sub(log_t, input));
  }
  return reduce(loss, reduction);
}

Tensor nll_loss_ex(const Tensor& log_probs, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                   int32_t reduction) {
  const char* op = "nll_loss_ex";
  check_floating(log_probs, op, "log_probs");
  check_reduction(reduction, op);
  if (!weight && plain_targets(log_probs, target, ignore_index))
    return nll_loss(log_probs, target, reduction);
  return nll_nd(log_probs, target, weight, ignore_index, reduction, op).loss;
}

Tensor cross_entropy_ex(const Tensor& logits, const Tensor& target, const Tensor& weight,
                        int64_t ignore_index, double label_smoothing, int32_t reduction) {
  const char* op = "cross_entropy_ex";
  check_floating(logits, op, "logits");
  check_reduction(reduction, op);
  TC_CHECK(label_smoothing >= 0 && label_smoothing <= 1, TC_ERR_INVALID_ARGUMENT, op,
           ": label_smoothing must be between 0.0 and 1.0 but is ", label_smoothing);
  const int64_t cdim = class_dim(logits, op, "logits");
  const int64_t classes = logits->shape[cdim];
  const double eps = label_smoothing;
  if (is_floating(target->dtype)) {  // class probabilities
    TC_CHECK(target->shape == logits->shape, TC_ERR_SHAPE, op, ": probability target of shape ",
             target->shape, " must have logits' shape ", logits->shape);
    check_same_device(logits, target, op, "logits", "target");
    detail::check_same_dtype(logits, target, op, "logits", "target");
    TC_CHECK(ignore_index < 0, TC_ERR_INVALID_ARGUMENT, op,
             ": ignore_index is not supported for floating point target (it is ", ignore_index, ")");
    check_class_weight(weight, logits, classes, op);
    const Tensor logp = log_softmax(logits, cdim);
    const Tensor t = eps > 0 ? add_scalar(mul_scalar(target, 1 - eps), eps / double(classes)) : target;
    Tensor prod = mul(logp, t);
    if (weight) prod = mul(prod, class_view(weight, logits->ndim(), cdim));
    if (reduction == TC_REDUCTION_NONE) return neg(sum(prod, {cdim}, false));
    const Tensor total = neg(sum(prod, {}, false));
    if (reduction == TC_REDUCTION_SUM) return total;
    return mul_scalar(total, 1.0 / (double(logits->numel()) / double(classes)));
  }
  if (!weight && eps == 0 && plain_targets(logits, target, ignore_index))
    return cross_entropy(logits, target, reduction);
  const Tensor logp = log_softmax(logits, cdim);
  Nll n = nll_nd(logp, target, weight, ignore_index, reduction, op);
  if (eps == 0) return n.loss;
  // PyTorch's label smoothing: the mean of -log p over the classes (weighted),
  // 0 where the target is ignored, reduced like the nll part.
  Tensor smooth =
      neg(sum(weight ? mul(logp, class_view(weight, logits->ndim(), cdim)) : logp, {cdim}, false));
  smooth = where(n.ignored, scalar_like(0, logp), smooth);
  Tensor ret = smooth;
  if (reduction == TC_REDUCTION_SUM) ret = sum(smooth, {}, false);
  if (reduction == TC_REDUCTION_MEAN) {
    const Tensor denom = weight ? sum(n.elem_weight, {}, false)
                                : sum(cast(unary(row::logical_not, n.ignored), logp->dtype), {}, false);
    ret = div(sum(smooth, {}, false), denom);
  }
  return add(mul_scalar(n.loss, 1 - eps), mul_scalar(ret, eps / double(classes)));
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  const char* op = "cosine_similarity";
  check_floating(x1, op, "x1");
  check_floating(x2, op, "x2");
  check_same_device(x1, x2, op, "x1", "x2");
  const Dims shape = broadcast_shapes(x1->shape, x2->shape, op);
  const int64_t d = wrap_dim(dim, std::max<int64_t>(int64_t(shape.size()), 1), op);
  TC_CHECK(!shape.empty(), TC_ERR_SHAPE, op, ": x1 and x2 are 0-dim; dim ", dim, " needs at least one dim");
  const Tensor a = expand(x1, shape), b = expand(x2, shape);
  // PyTorch 1.13: each input divided by its norm (at least eps), then the dot.
  const Tensor na = clamp(vector_norm(a, 2, d, true, op), eps, kNoBound);
  const Tensor nb = clamp(vector_norm(b, 2, d, true, op), eps, kNoBound);
  return sum(mul(div(a, na), div(b, nb)), {d}, false);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const char* op = "pairwise_distance";
  check_floating(x1, op, "x1");
  check_floating(x2, op, "x2");
  check_same_device(x1, x2, op, "x1", "x2");
  const Tensor diff = add_scalar(sub(x1, x2), eps);
  TC_CHECK(diff->ndim() > 0, TC_ERR_SHAPE, op, ": x1 and x2 are 0-dim; they need at least one dim");
  return vector_norm(diff, p, diff->ndim() - 1, keepdim, op);
}

Tensor normalize(const Tensor& a, double p, int64_t dim, double eps) {
  const char* op = "normalize";
  check_floating(a, op, "a");
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, op, ": a is 0-dim; it needs at least one dim");
  const int64_t d = wrap_dim(dim, a->ndim(), op);
  return div(a, clamp(vector_norm(a, p, d, true, op), eps, kNoBound));
}

}  // namespace tc::ops
