// The ops a transformer needs beyond matmul and softmax: layer_norm and
// rms_norm (fused kernels both ways, the backward from the saved mean and
// 1/std, like PyTorch), tril/triu, masked_fill, cumsum, bmm and
// scaled_dot_product_attention (composed of matmul, masking and softmax, so
// autograd records the pieces), and the sampling ops topk and multinomial.
// Kernels are the device backend's (src/backend/backend.h).
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/function.h"
#include "backend/backend.h"
#include "core/dtype.h"
#include "core/rng.h"
#include "math/rows/unary_rsqrt.h"
#include "ops/internal.h"
#include "ops/nn_util.h"
#include "ops/norm_backward_node.h"
#include "ops/ops.h"
#include "ops/pick_grad.h"

namespace tc::ops {
namespace {

using detail::reshaped;

void check_floating(const Tensor& t, const char* op, const char* arg) {
  if (!backend_for(t).computes_half) return detail::check_float(t, op, arg);
  TC_CHECK(is_floating(t->dtype), TC_ERR_DTYPE, op, ": ", arg, " must be a floating-point tensor but is ",
           dtype_name(t->dtype));
}
void check_beside(const Tensor& a, const Tensor& b, const char* op, const char* an, const char* bn) {
  TC_CHECK(a->device == b->device, TC_ERR_DEVICE, op, ": ", an, " is on ", device_name(a->device), " but ",
           bn, " is on ", device_name(b->device), " (they must be on one device)");
}

// ------------------------------------------------------------- norms --

// The rows x cols split of x for a norm over its last ndims dims (checked
// against normalized_shape), and the optional affine parameters checked.
struct NormShape {
  int64_t rows = 1, cols = 1;
};
NormShape norm_shape(const Tensor& x, const Dims& normalized, const Tensor& w, const Tensor& b, double eps,
                     const char* op) {
  check_floating(x, op, "x");
  const int64_t k = normalized.size();
  TC_CHECK(k >= 1, TC_ERR_SHAPE, op, ": normalized_shape must have at least 1 dim");
  TC_CHECK(k <= x->ndim(), TC_ERR_SHAPE, op, ": normalized_shape ", normalized,
           " has more dims than x of shape ", x->shape);
  NormShape s;
  for (int64_t d = 0; d < x->ndim(); ++d) {
    const int64_t nd = d - (x->ndim() - k);
    if (nd < 0) {
      s.rows *= x->shape[d];
      continue;
    }
    TC_CHECK(x->shape[d] == normalized[nd], TC_ERR_SHAPE, op, ": x of shape ", x->shape,
             " does not end in normalized_shape ", normalized);
    s.cols *= x->shape[d];
  }
  TC_CHECK(eps >= 0.0 && std::isfinite(eps), TC_ERR_INVALID_ARGUMENT, op,
           ": eps must be finite and >= 0 but is ", eps);
  for (const auto& [t, name] : {std::pair{w, "weight"}, std::pair{b, "bias"}}) {
    if (!t) continue;
    check_beside(x, t, op, "x", name);
    detail::check_same_dtype(x, t, op, "x", name);
    TC_CHECK(t->shape == normalized, TC_ERR_SHAPE, op, ": ", name, " must have shape ", normalized,
             " but has shape ", t->shape);
  }
  return s;
}

struct NormBackward : detail::NormBackwardNode {
  NormShape s;
  Dims normalized;
  bool rms = false;
  const char* name() const override { return rms ? "RmsNormBackward" : "LayerNormBackward"; }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    const Wanted want = check_and_wanted();
    Tensor x = x_saved.unpack(name());
    Tensor w = has_w ? w_saved.unpack(name()) : Tensor();
    const Tensor mean = mean_saved.unpack(name()), inv_std = inv_std_saved.unpack(name());
    if (detail::creating_graph()) {
      std::vector<Tensor> r = recorded(x, w, normalized, want, grads[0],
                                       [&](const Tensor& xi, const Tensor& wi, const Tensor& bi) {
                                         // (x - mean) / sqrt(var + eps) (rms: x / sqrt(mean(x^2) + eps)) over
                                         // the rows, then w, b
                                         const Tensor xr = reshape(xi, {s.rows, s.cols});
                                         const Tensor xc = rms ? xr : sub(xr, ops::mean(xr, {1}, true));
                                         const Tensor ms = ops::mean(mul(xc, xc), {1}, true);
                                         Tensor y = mul(xc, unary(row::rsqrt, add_scalar(ms, eps)));
                                         if (wi) y = mul(y, reshape(wi, {s.cols}));
                                         if (bi) y = add(y, reshape(bi, {s.cols}));
                                         return reshape(y, xi->shape);
                                       });
      if (!r.empty()) return r;
    }
    Tensor gx = want.x ? empty({s.rows, s.cols}, x->dtype, x->device) : Tensor();
    Tensor gw = want.w ? empty({s.cols}, x->dtype, x->device) : Tensor();
    Tensor gb = want.b ? empty({s.cols}, x->dtype, x->device) : Tensor();
    backend_for(x).norm_backward(gx, gw, gb, reshaped(grads[0], {s.rows, s.cols}),
                                 reshaped(x, {s.rows, s.cols}), mean, inv_std,
                                 w ? reshaped(w, {s.cols}) : Tensor());
    std::vector<Tensor> out =
        in_order(gx ? reshaped(gx, x->shape) : Tensor(), gw ? reshaped(gw, normalized) : Tensor(),
                 gb ? reshaped(gb, normalized) : Tensor());
    autograd::not_differentiable(out);  // only under create_graph (the recorded form was not possible)
    return out;
  }
};

Tensor norm_impl(const Tensor& x, const Dims& normalized, const Tensor& w, const Tensor& b, double eps,
                 bool rms) {
  const char* op = rms ? "rms_norm" : "layer_norm";
  const NormShape s = norm_shape(x, normalized, w, b, eps, op);
  Tensor y = empty(x->shape, x->dtype, x->device);
  Tensor mean = rms ? Tensor() : empty({s.rows}, x->dtype, x->device);
  Tensor rstd = empty({s.rows}, x->dtype, x->device);
  if (x->numel() > 0)
    backend_for(x).norm_forward(reshaped(y, {s.rows, s.cols}), mean, rstd, reshaped(x, {s.rows, s.cols}),
                                w ? reshaped(w, {s.cols}) : Tensor(), b ? reshaped(b, {s.cols}) : Tensor(),
                                eps);
  std::vector<Tensor> inputs = detail::defined({x, w, b});
  if (autograd::needs_grad(inputs)) {
    auto node = std::make_shared<NormBackward>();
    node->x_saved = autograd::SavedTensor(x);
    if (w) node->w_saved = autograd::SavedTensor(w);
    node->mean_saved = autograd::SavedTensor(mean);
    node->inv_std_saved = autograd::SavedTensor(rstd);
    node->s = s;
    node->rms = rms;
    node->has_w = bool(w);
    node->has_b = bool(b);
    node->normalized = normalized;
    node->eps = eps;
    autograd::record(node, inputs, {y});
  }
  return y;
}

// --------------------------------------------------------- triangles --

Tensor triangle_raw(const Tensor& a, int64_t diagonal, bool lower) {
  Tensor out = empty(a->shape, a->dtype, a->device);
  if (out->numel() > 0) backend_for(a).triangle(out, tc::contiguous_on_device(a), diagonal, lower);
  return out;
}

Tensor triangle(const Tensor& a, int64_t diagonal, bool lower) {
  const char* op = lower ? "tril" : "triu";
  TC_CHECK(a->ndim() >= 2, TC_ERR_SHAPE, op, ": a must have at least 2 dims but has shape ", a->shape);
  Tensor out = triangle_raw(a, diagonal, lower);
  if (is_floating(a->dtype))
    autograd::record_function(lower ? "TrilBackward" : "TriuBackward", {a}, {out}, {},
                              [diagonal, lower](const autograd::Grads& g, const std::vector<Tensor>&) {
                                // the same triangle of g, recorded under create_graph
                                if (detail::creating_graph())
                                  return autograd::Grads{triangle(g[0], diagonal, lower)};
                                return autograd::Grads{triangle_raw(g[0], diagonal, lower)};
                              });
  return out;
}

// ------------------------------------------------------ causal softmax --

// softmax(scale * x) over the last dim with j > i masked, x [..., L, S].
Tensor causal_softmax(const Tensor& x, double scale) {
  Tensor xc = tc::contiguous_on_device(x);
  Tensor y = empty(x->shape, x->dtype, x->device);
  if (y->numel() > 0) backend_for(x).causal_softmax(y, xc, scale);
  autograd::record_function("CausalSoftmaxBackward", {x}, {y}, {autograd::alias(y)},
                            [scale](const autograd::Grads& g, const std::vector<Tensor>& saved) {
                              if (detail::creating_graph()) {
                                // softmax's formula, recorded (the masked entries of y are 0):
                                // scale y (g - sum(g y))
                                const Tensor y = autograd::output_with_graph(saved[0]);
                                const Tensor dot = ops::sum(mul(g[0], y), {-1}, true);
                                return autograd::Grads{mul_scalar(mul(y, sub(g[0], dot)), scale)};
                              }
                              const Tensor& yy = saved[0];
                              Tensor gx = empty(yy->shape, yy->dtype, yy->device);
                              if (gx->numel() > 0)
                                backend_for(yy).causal_softmax_backward(gx, tc::contiguous_on_device(g[0]),
                                                                        tc::contiguous_on_device(yy), scale);
                              return autograd::Grads{gx};
                            });
  return y;
}

// ------------------------------------------------------------ cumsum --

Tensor cumsum_raw(const Tensor& a, int64_t dim, bool reverse) {
  Tensor out = empty(a->shape, a->dtype, a->device);
  if (out->numel() > 0) backend_for(a).cumsum(out, tc::contiguous_on_device(a), dim, reverse);
  return out;
}

}  // namespace

Tensor layer_norm(const Tensor& x, const Dims& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return norm_impl(x, normalized_shape, weight, bias, eps, false);
}

Tensor rms_norm(const Tensor& x, const Dims& normalized_shape, const Tensor& weight, double eps) {
  return norm_impl(x, normalized_shape, weight, Tensor(), eps, true);
}

Tensor tril(const Tensor& a, int64_t diagonal) { return triangle(a, diagonal, true); }
Tensor triu(const Tensor& a, int64_t diagonal) { return triangle(a, diagonal, false); }

Tensor masked_fill(const Tensor& a, const Tensor& mask, double value) {
  const char* op = "masked_fill";
  TC_CHECK(mask->dtype == DType::b8, TC_ERR_DTYPE, op, ": mask must be bool but is ",
           dtype_name(mask->dtype));
  check_beside(a, mask, op, "a", "mask");
  TC_CHECK(a->dtype != DType::b8 || value == 0.0 || value == 1.0, TC_ERR_INVALID_ARGUMENT, op, ": value ",
           value, " does not fit a bool tensor");
  // where() records the gradient: a's where the mask is false.
  return where(mask, scalar_tensor(value, a->dtype, a->device), a);
}

Tensor cumsum(const Tensor& a, int64_t dim) {
  const char* op = "cumsum";
  detail::check_compute_dtype(op, "a", a->dtype, true);
  const int64_t d = a->ndim() == 0 ? (wrap_dim(dim, 1, op), 0) : wrap_dim(dim, a->ndim(), op);
  // Integers and bools accumulate in int64, like PyTorch.
  Tensor src = is_floating(a->dtype) ? a : tc::cast(a, DType::i64);
  Tensor work = src->ndim() == 0 ? reshaped(src, {1}) : src;
  Tensor out = cumsum_raw(work, d, false);
  if (a->ndim() == 0) out = reshaped(out, {});
  if (is_floating(a->dtype)) {
    const Dims shape = a->shape;
    autograd::record_function("CumsumBackward", {a}, {out}, {},
                              [d, shape](const autograd::Grads& g, const std::vector<Tensor>&) {
                                // the reversed cumsum of g, recorded under create_graph
                                if (detail::creating_graph()) {
                                  if (shape.size() == 0) return autograd::Grads{reshape(g[0], shape)};
                                  return autograd::Grads{flip(cumsum(flip(g[0], {d}), d), {d})};
                                }
                                Tensor g1 = shape.size() == 0 ? reshaped(g[0], {1}) : g[0];
                                return autograd::Grads{reshaped(cumsum_raw(g1, d, true), shape)};
                              });
  }
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  const char* op = "bmm";
  detail::check_ndim(a, 3, op, "a");
  detail::check_ndim(b, 3, op, "b");
  TC_CHECK(a->shape[0] == b->shape[0], TC_ERR_SHAPE, op, ": a of shape ", a->shape, " and b of shape ",
           b->shape, " have different batch sizes");
  TC_CHECK(a->shape[2] == b->shape[1], TC_ERR_SHAPE, op, ": a of shape ", a->shape, " and b of shape ",
           b->shape, " cannot be multiplied (", a->shape[2], " vs ", b->shape[1], ")");
  return matmul(a, b);
}

namespace {
// beta * input + alpha * prod, input broadcasting to prod's shape; beta = 0
// ignores input's values, like PyTorch.
Tensor scaled_sum(const Tensor& input, const Tensor& prod, double beta, double alpha, const char* op) {
  TC_CHECK(std::isfinite(beta) && std::isfinite(alpha), TC_ERR_INVALID_ARGUMENT, op,
           ": beta and alpha must be finite but are ", beta, " and ", alpha);
  check_beside(prod, input, op, "the product", "input");
  detail::check_same_dtype(prod, input, op, "the product", "input");
  TC_CHECK(broadcast_shapes(input->shape, prod->shape, op) == prod->shape, TC_ERR_SHAPE, op,
           ": input of shape ", input->shape, " does not broadcast to the product's shape ", prod->shape);
  Tensor p = alpha == 1.0 ? prod : mul_scalar(prod, alpha);
  if (beta == 0.0) return p;
  return add(beta == 1.0 ? input : mul_scalar(input, beta), p);
}
}  // namespace

Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, double beta, double alpha) {
  const char* op = "addmm";
  detail::check_ndim(mat1, 2, op, "mat1");
  detail::check_ndim(mat2, 2, op, "mat2");
  return scaled_sum(input, matmul(mat1, mat2), beta, alpha, op);
}

Tensor baddbmm(const Tensor& input, const Tensor& batch1, const Tensor& batch2, double beta, double alpha) {
  return scaled_sum(input, bmm(batch1, batch2), beta, alpha, "baddbmm");
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                    double dropout_p, bool is_causal) {
  const char* op = "scaled_dot_product_attention";
  check_floating(q, op, "q");
  check_floating(k, op, "k");
  check_floating(v, op, "v");
  for (const auto& [t, name] : {std::pair{k, "k"}, std::pair{v, "v"}}) {
    check_beside(q, t, op, "q", name);
    detail::check_same_dtype(q, t, op, "q", name);
  }
  TC_CHECK(q->ndim() >= 2 && k->ndim() >= 2 && v->ndim() >= 2, TC_ERR_SHAPE, op,
           ": q, k and v need at least 2 dims but have shapes ", q->shape, ", ", k->shape, " and ", v->shape);
  const int64_t e = q->shape[q->ndim() - 1], s = k->shape[k->ndim() - 2];
  TC_CHECK(k->shape[k->ndim() - 1] == e, TC_ERR_SHAPE, op, ": k of shape ", k->shape,
           " does not match q of shape ", q->shape, " in the last dim");
  TC_CHECK(v->shape[v->ndim() - 2] == s, TC_ERR_SHAPE, op, ": v of shape ", v->shape,
           " does not match k of shape ", k->shape, " in the sequence dim");
  TC_CHECK(dropout_p >= 0.0 && dropout_p <= 1.0, TC_ERR_INVALID_ARGUMENT, op,
           ": dropout_p must be in [0, 1] but is ", dropout_p);
  TC_CHECK(!(is_causal && mask), TC_ERR_INVALID_ARGUMENT, op, ": is_causal needs attn_mask NULL");
  if (mask) {
    check_beside(q, mask, op, "q", "attn_mask");
    TC_CHECK(mask->dtype == DType::b8 || mask->dtype == q->dtype, TC_ERR_DTYPE, op,
             ": attn_mask must be bool or q's dtype (", dtype_name(q->dtype), ") but is ",
             dtype_name(mask->dtype));
  }
  const double scale = 1.0 / std::sqrt(double(e));
  Tensor attn;
  if (is_causal) {
    // Scaling, masking and softmax in one kernel each way.
    attn = causal_softmax(matmul(q, transpose(k, -2, -1)), scale);
  } else {
    // Scaling q (L x E) is cheaper than scaling the scores (L x S) when E < S.
    Tensor scores = e <= s ? matmul(mul_scalar(q, scale), transpose(k, -2, -1))
                           : mul_scalar(matmul(q, transpose(k, -2, -1)), scale);
    if (mask && mask->dtype == DType::b8) {
      scores =
          where(mask, scores, scalar_tensor(-std::numeric_limits<double>::infinity(), q->dtype, q->device));
    } else if (mask) {
      scores = add(scores, mask);
    }
    attn = softmax(scores, -1);
  }
  if (dropout_p > 0.0) attn = dropout(attn, dropout_p, true);
  return matmul(attn, v);
}

// ----------------------------------------------------------- sampling --

std::pair<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted) {
  (void)sorted;  // always sorted: "any order" allows it
  const char* op = "topk";
  detail::check_compute_dtype(op, "a", a->dtype, false);
  const int64_t nd = std::max<int64_t>(a->ndim(), 1);
  const int64_t d = wrap_dim(dim, nd, op);
  const int64_t len = a->ndim() == 0 ? 1 : a->shape[d];
  TC_CHECK(k >= 0 && k <= len, TC_ERR_INVALID_ARGUMENT, op, ": k = ", k, " is out of range for dim ", d,
           " of size ", len);
  Tensor a1 = a->ndim() == 0 ? reshaped(a, {1}) : a;
  // The kernel works on rows along the last dim: move dim there.
  Dims perm;
  for (int64_t i = 0; i < a1->ndim(); ++i)
    if (i != d) perm.push_back(i);
  perm.push_back(d);
  Tensor rows = tc::contiguous_on_device(detail::raw_permute(a1, perm));
  Dims rshape = rows->shape;
  rshape[rshape.size() - 1] = k;
  Tensor vals = empty(rshape, a->dtype, a->device), idx = empty(rshape, DType::i64, a->device);
  if (vals->numel() > 0) backend_for(a).topk(vals, idx, rows, k, largest);
  // Back to a's dim order.
  Dims inv = Dims::filled(perm.size(), 0);
  for (int64_t i = 0; i < int64_t(perm.size()); ++i) inv[perm[i]] = i;
  vals = tc::contiguous_on_device(detail::raw_permute(vals, inv));
  idx = tc::contiguous_on_device(detail::raw_permute(idx, inv));
  if (a->ndim() == 0) {
    vals = reshaped(vals, {});
    idx = reshaped(idx, {});
  }
  if (is_floating(a->dtype)) {
    const Dims shape = a1->shape;
    const bool scalar = a->ndim() == 0;
    autograd::record_function(
        "TopkBackward", {a}, {vals}, {idx},
        [shape, d, scalar](const autograd::Grads& g, const std::vector<Tensor>& saved) {
          Tensor gi = scalar ? reshaped(saved[0], {1}) : saved[0];
          return autograd::Grads{detail::pick_grad(g[0], gi, shape, d, scalar ? Dims{} : shape)};
        });
  }
  return {vals, idx};
}

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement) {
  const char* op = "multinomial";
  check_floating(probs, op, "probs");
  TC_CHECK(probs->ndim() == 1 || probs->ndim() == 2, TC_ERR_SHAPE, op,
           ": probs must be [C] or [N, C] but has shape ", probs->shape);
  TC_CHECK(num_samples > 0, TC_ERR_INVALID_ARGUMENT, op, ": num_samples must be positive but is ",
           num_samples);
  const int64_t c = probs->shape[probs->ndim() - 1], n = probs->ndim() == 2 ? probs->shape[0] : 1;
  TC_CHECK(c > 0, TC_ERR_SHAPE, op, ": probs has no categories (shape ", probs->shape, ")");
  TC_CHECK(replacement || num_samples <= c, TC_ERR_INVALID_ARGUMENT, op, ": cannot draw ", num_samples,
           " samples without replacement from ", c, " categories");
  Tensor p = reshaped(probs, {n, c});
  // One uniform number per sample, from the default generator.
  Tensor u = empty({n, num_samples}, DType::f64, probs->device);
  fill_uniform(u, 0.0, 1.0);
  Tensor out = empty({n, num_samples}, DType::i64, probs->device);
  const int64_t bad = n > 0 ? backend_for(probs).multinomial(out, p, u, replacement) : -1;
  TC_CHECK(
      bad < 0, TC_ERR_INVALID_ARGUMENT, op, ": row ", bad,
      " of probs is not a distribution (negative, infinite or NaN weights, a zero sum, or fewer non-zero "
      "weights than num_samples without replacement)");
  return probs->ndim() == 1 ? reshaped(out, {num_samples}) : out;
}

}  // namespace tc::ops
