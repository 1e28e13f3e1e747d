// Neural-network ops: softmax, log_softmax, the losses (cross_entropy fused
// as log_softmax + nll with the softmax - onehot backward, nll_loss,
// mse_loss), dropout and embedding. Kernels work on contiguous copies; sums
// accumulate in double so float32 results are accurate and deterministic.
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/node.h"
#include "cuda/dispatch.h"
#include "cuda/reduce.h"
#include "dtype.h"
#include "init.h"
#include "ops/nn_util.h"
#include "ops/ops.h"
#include "rng.h"

namespace tc::ops {
namespace {

using detail::reshaped;

// A floating input: float32/float64 on the CPU; on CUDA also float16/bfloat16
// (computed in float).
void check_float(const Tensor& t, const char* op, const char* arg) {
  if (!on_cuda(t)) return detail::check_float(t, op, arg);
  TC_CHECK(is_floating(t->dtype), TC_ERR_DTYPE, op, ": ", arg, " must be a floating-point tensor but is ",
           dtype_name(t->dtype));
}
void check_same_device(const Tensor& a, const Tensor& b, const char* op, const char* an, const char* bn) {
  TC_CHECK(a->device == b->device, TC_ERR_DEVICE, op, ": ", an, " is on ", device_name(a->device), " but ",
           bn, " is on ", device_name(b->device));
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

// [outer, size, inner] around dim for a contiguous tensor.
struct Around {
  int64_t outer = 1, size = 1, inner = 1;
};
Around around(const Dims& shape, int64_t dim) {
  Around a;
  for (int64_t d = 0; d < shape.size(); ++d) {
    if (d < dim) a.outer *= shape[d];
    if (d == dim) a.size = shape[d];
    if (d > dim) a.inner *= shape[d];
  }
  return a;
}

// ---------------------------------------------------------------- softmax --

template <typename T>
void softmax_kernel(const T* x, T* y, Around s, bool log) {
  sync_omp_threads();
#pragma omp parallel for schedule(static) if (s.outer * s.size * s.inner > 16384)
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      const T* xr = x + o * s.size * s.inner + i;
      T* yr = y + o * s.size * s.inner + i;
      // Subtracting the max keeps exp() from overflowing.
      T mx = -std::numeric_limits<T>::infinity();
      for (int64_t d = 0; d < s.size; ++d) mx = std::max(mx, xr[d * s.inner]);
      if (std::isinf(mx) && mx < 0) mx = 0;  // a row of -inf: keep NaN-free arithmetic below
      double sum = 0;
      for (int64_t d = 0; d < s.size; ++d) sum += std::exp(double(xr[d * s.inner] - mx));
      if (log) {
        const T lse = T(std::log(sum));
        for (int64_t d = 0; d < s.size; ++d) yr[d * s.inner] = xr[d * s.inner] - mx - lse;
      } else {
        const double inv = 1.0 / sum;
        for (int64_t d = 0; d < s.size; ++d)
          yr[d * s.inner] = T(std::exp(double(xr[d * s.inner] - mx)) * inv);
      }
    }
  }
}

// softmax: gx = y * (g - sum(g * y)); log_softmax: gx = g - exp(y) * sum(g).
template <typename T>
void softmax_backward_kernel(const T* g, const T* y, T* gx, Around s, bool log) {
  sync_omp_threads();
#pragma omp parallel for schedule(static) if (s.outer * s.size * s.inner > 16384)
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      const int64_t base = o * s.size * s.inner + i;
      double dot = 0;
      for (int64_t d = 0; d < s.size; ++d) {
        const int64_t k = base + d * s.inner;
        dot += log ? double(g[k]) : double(g[k]) * double(y[k]);
      }
      for (int64_t d = 0; d < s.size; ++d) {
        const int64_t k = base + d * s.inner;
        gx[k] = log ? T(g[k] - std::exp(double(y[k])) * dot) : T(y[k] * (g[k] - dot));
      }
    }
  }
}

struct SoftmaxBackward : autograd::Node {
  autograd::SavedTensor y_saved;
  int64_t dim;
  bool log;
  SoftmaxBackward(int64_t d, bool l) : dim(d), log(l) {}
  const char* name() const override { return log ? "LogSoftmaxBackward" : "SoftmaxBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override { y_saved.release(); }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    if (on_cuda(grads[0])) {  // any strides
      Tensor yc = y_saved.unpack(name());
      Tensor gxc = empty(yc->shape, yc->dtype, yc->device);
      TC_CUDA_CALL(cuda::softmax_backward(gxc, grads[0], yc, dim, log));
      return {gxc};
    }
    Tensor y = tc::contiguous(y_saved.unpack(name()));
    Tensor g = tc::contiguous(grads[0]);
    Tensor gx = empty(y->shape, y->dtype);
    TC_DISPATCH_FLOATING(y->dtype, name(), [&] {
      softmax_backward_kernel(g->data_as<scalar_t>(), y->data_as<scalar_t>(), gx->data_as<scalar_t>(),
                              around(y->shape, dim), log);
    });
    return {gx};
  }
};

Tensor softmax_impl(const Tensor& a, int64_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  check_float(a, op, "a");
  // A 0-dim tensor is one row of one element, as in PyTorch (dim 0 or -1).
  const int64_t d = a->ndim() == 0 ? (wrap_dim(dim, 1, op), 0) : wrap_dim(dim, a->ndim(), op);
  Tensor y = empty(a->shape, a->dtype, a->device);
  if (on_cuda(a)) {
    TC_CUDA_CALL(cuda::softmax(y, a, d, log));
  } else if (y->numel() > 0) {
    Tensor x = tc::contiguous(a);
    TC_DISPATCH_FLOATING(a->dtype, op, [&] {
      softmax_kernel(x->data_as<scalar_t>(), y->data_as<scalar_t>(), around(a->shape, d), log);
    });
  }
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
  if (on_cuda(scores))
    check_same_device(scores, target, op, scores_name, "target");
  else
    detail::check_cpu(target, op, "target");
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
  if (on_cuda(t)) {
    TC_CUDA_CALL([&] {
      const int64_t i = cuda::first_out_of_range(t, classes);
      TC_CHECK(i < 0, TC_ERR_INDEX, op, ": target ", cuda::read_index(t, i), " at position ", i,
               " is out of range for ", classes, " classes");
    }());
    return t;
  }
  const int64_t* p = t->data_as<int64_t>();
  for (int64_t i = 0; i < t->numel(); ++i) {
    TC_CHECK(p[i] >= 0 && p[i] < classes, TC_ERR_INDEX, op, ": target ", p[i], " at position ", i,
             " is out of range for ", classes, " classes");
  }
  return t;
}

// The per-row losses reduced as asked: [N] / [] for none, [] otherwise.
template <typename T>
Tensor reduce_losses(const std::vector<double>& losses, int32_t reduction, const Dims& none_shape,
                     DType dtype) {
  if (reduction == TC_REDUCTION_NONE) {
    Tensor out = empty(none_shape, dtype);
    T* o = out->data_as<T>();
    for (size_t i = 0; i < losses.size(); ++i) o[i] = T(losses[i]);
    return out;
  }
  double sum = 0;
  for (double l : losses) sum += l;
  if (reduction == TC_REDUCTION_MEAN) sum /= double(losses.size());  // 0/0 = NaN for N = 0, as PyTorch
  return scalar_tensor(sum, dtype);
}

// The gradient reaching row i of a loss: g (sum), g / n (mean), g[i] (none).
struct RowGrad {
  Tensor g;  // contiguous
  int32_t reduction;
  int64_t n;
  double at(int64_t i) const {
    const double v = read_element(g, reduction == TC_REDUCTION_NONE ? i : 0);
    return reduction == TC_REDUCTION_MEAN ? v / double(n) : v;
  }
};

struct CrossEntropyBackward : autograd::Node {
  Tensor probs;   // softmax of the logits, [N, C] (internal: nobody else can modify it)
  Tensor target;  // contiguous int64 [N]
  Dims logits_shape;
  int32_t reduction;
  const char* name() const override { return "CrossEntropyBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    probs.reset();
    target.reset();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    TC_CHECK(probs != nullptr, TC_ERR_AUTOGRAD, name(),
             ": its saved tensors were freed by an earlier backward; call backward with retain_graph = 1 to "
             "run it twice");
    const int64_t n = probs->shape[0], c = probs->shape[1];
    if (on_cuda(probs)) {
      Tensor gxc = empty(probs->shape, probs->dtype, probs->device);
      TC_CUDA_CALL(cuda::cross_entropy_backward(gxc, probs, target, tc::contiguous(grads[0]), reduction));
      return {reshaped(gxc, logits_shape)};
    }
    RowGrad rg{tc::contiguous(grads[0]), reduction, n};
    Tensor gx = empty(probs->shape, probs->dtype);
    TC_DISPATCH_FLOATING(probs->dtype, name(), [&] {
      using T = scalar_t;
      const T* p = probs->data_as<T>();
      const int64_t* t = target->data_as<int64_t>();
      T* o = gx->data_as<T>();
      for (int64_t i = 0; i < n; ++i) {
        const T gi = T(rg.at(i));
        for (int64_t j = 0; j < c; ++j) o[i * c + j] = p[i * c + j] * gi;
        o[i * c + t[i]] -= gi;
      }
    });
    return {reshaped(gx, logits_shape)};
  }
};

struct NllLossBackward : autograd::Node {
  Tensor target;  // contiguous int64 [N]
  Dims input_shape;
  DType dtype;
  int32_t reduction;
  const char* name() const override { return "NllLossBackward"; }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    const int64_t c = input_shape[input_shape.size() - 1], n = input_shape.size() == 2 ? input_shape[0] : 1;
    if (on_cuda(target)) {
      Tensor gxc = zeros(input_shape, dtype, target->device);
      TC_CUDA_CALL(cuda::nll_backward(gxc, target, tc::contiguous(grads[0]), reduction));
      return {gxc};
    }
    RowGrad rg{tc::contiguous(grads[0]), reduction, n};
    Tensor gx = zeros(input_shape, dtype);
    TC_DISPATCH_FLOATING(dtype, name(), [&] {
      const int64_t* t = target->data_as<int64_t>();
      scalar_t* o = gx->data_as<scalar_t>();
      for (int64_t i = 0; i < n; ++i) o[i * c + t[i]] = scalar_t(-rg.at(i));
    });
    return {gx};
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
    if (on_cuda(grads[0])) return apply_ops(grads[0]);
    Tensor x = tc::contiguous(input_saved.unpack(name())), t = tc::contiguous(target_saved.unpack(name()));
    const int64_t n = x->numel();
    RowGrad rg{tc::contiguous(grads[0]), reduction, n};
    Tensor gx = empty(x->shape, x->dtype);
    TC_DISPATCH_FLOATING(x->dtype, name(), [&] {
      using T = scalar_t;
      const T *px = x->data_as<T>(), *pt = t->data_as<T>();
      T* o = gx->data_as<T>();
      const T g0 = reduction == TC_REDUCTION_NONE ? T(0) : T(rg.at(0));
      const T* gn = reduction == TC_REDUCTION_NONE ? rg.g->data_as<T>() : nullptr;
      for (int64_t i = 0; i < n; ++i) o[i] = T(2) * (px[i] - pt[i]) * (gn ? gn[i] : g0);
    });
    std::vector<Tensor> out(2);
    if (detail::wants_grad(*this, 0)) out[0] = gx;
    if (detail::wants_grad(*this, 1)) {
      TC_DISPATCH_FLOATING(gx->dtype, name(), [&] {
        Tensor neg = empty(gx->shape, gx->dtype);
        const scalar_t* s = gx->data_as<scalar_t>();
        scalar_t* d = neg->data_as<scalar_t>();
        for (int64_t i = 0; i < n; ++i) d[i] = -s[i];
        out[1] = neg;
      });
    }
    return out;
  }
  // The same formula through the ops (devices other than the CPU):
  // 2 (x - t) g_i, with g_i = g (none), g (sum) or g / n (mean).
  std::vector<Tensor> apply_ops(const Tensor& g) {
    Tensor x = input_saved.unpack(name()), t = target_saved.unpack(name());
    Tensor gi = reduction == TC_REDUCTION_MEAN ? binary_scalar(ScalarOp::div, g, double(x->numel())) : g;
    Tensor gx = mul(mul_scalar(sub(x, t), 2.0), gi);
    std::vector<Tensor> out(2);
    if (detail::wants_grad(*this, 0)) out[0] = gx;
    if (detail::wants_grad(*this, 1)) out[1] = unary(UnaryOp::neg, gx);
    return out;
  }
};

// Multiplies by a saved tensor of the same shape (dropout's scaled mask).
struct MaskBackward : autograd::Node {
  Tensor mask;  // internal, contiguous
  const char* name() const override { return "DropoutBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override { mask.reset(); }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    TC_CHECK(mask != nullptr, TC_ERR_AUTOGRAD, name(),
             ": its saved tensors were freed by an earlier backward; call backward with retain_graph = 1 to "
             "run it twice");
    if (on_cuda(mask)) return {mul(grads[0], mask)};
    Tensor g = tc::contiguous(grads[0]);
    Tensor gx = empty(mask->shape, mask->dtype);
    TC_DISPATCH_FLOATING(mask->dtype, name(), [&] {
      const scalar_t *pg = g->data_as<scalar_t>(), *pm = mask->data_as<scalar_t>();
      scalar_t* o = gx->data_as<scalar_t>();
      for (int64_t i = 0; i < gx->numel(); ++i) o[i] = pg[i] * pm[i];
    });
    return {gx};
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
    const int64_t dim = weight_shape[1];
    if (on_cuda(idx)) {  // each column summed by one thread in index order: deterministic
      Tensor gwc = zeros(weight_shape, dtype, idx->device);
      TC_CUDA_CALL(cuda::index_scatter_add(gwc, reshaped(grads[0], {idx->numel(), dim}), 0,
                                           reshaped(idx, {idx->numel()}), true));
      return {gwc};
    }
    Tensor g = tc::contiguous(grads[0]);
    Tensor gw = zeros(weight_shape, dtype);
    TC_DISPATCH_FLOATING(dtype, name(), [&] {
      const int64_t* pi = idx->data_as<int64_t>();
      const scalar_t* pg = g->data_as<scalar_t>();
      scalar_t* o = gw->data_as<scalar_t>();
      // In index order, so repeated indices always sum the same way.
      for (int64_t i = 0; i < idx->numel(); ++i)
        for (int64_t j = 0; j < dim; ++j) o[pi[i] * dim + j] += pg[i * dim + j];
    });
    return {gw};
  }
};

// Per row: probs = softmax(x), loss = logsumexp(x) - x[target].
template <typename T>
void cross_entropy_kernel(const T* px, const int64_t* pt, T* pp, double* losses, int64_t n, int64_t c) {
  sync_omp_threads();
#pragma omp parallel for schedule(static) if (n * c > 16384)
  for (int64_t i = 0; i < n; ++i) {
    const T* row = px + i * c;
    T mx = -std::numeric_limits<T>::infinity();
    for (int64_t j = 0; j < c; ++j) mx = std::max(mx, row[j]);
    double sum = 0;
    for (int64_t j = 0; j < c; ++j) {
      const double e = std::exp(double(row[j] - mx));
      pp[i * c + j] = T(e);
      sum += e;
    }
    const double inv = 1.0 / sum;
    for (int64_t j = 0; j < c; ++j) pp[i * c + j] = T(double(pp[i * c + j]) * inv);
    losses[i] = double(mx) + std::log(sum) - double(row[pt[i]]);
  }
}

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
  Tensor out;
  if (on_cuda(logits)) {
    Tensor losses = empty({n}, DType::f64, logits->device);
    out = empty(reduction == TC_REDUCTION_NONE ? none_shape : Dims{}, logits->dtype, logits->device);
    TC_CUDA_CALL(cuda::cross_entropy_forward(probs, losses, logits, t));
    TC_CUDA_CALL(cuda::reduce_losses(out, losses, reduction));
  } else {
    Tensor x = tc::contiguous(logits);
    std::vector<double> losses(size_t(n), 0.0);
    TC_DISPATCH_FLOATING(logits->dtype, op, [&] {
      using T = scalar_t;
      cross_entropy_kernel<T>(x->data_as<T>(), t->data_as<int64_t>(), probs->data_as<T>(), losses.data(), n,
                              c);
    });
    out = TC_DISPATCH_FLOATING(logits->dtype, op, [&] {
      return reduce_losses<scalar_t>(losses, reduction, none_shape, logits->dtype);
    });
  }
  if (autograd::needs_grad({&logits})) {
    auto node = std::make_shared<CrossEntropyBackward>();
    node->probs = probs;
    // A private copy: the caller may change its target tensor after the call.
    node->target = reshaped(clone_data(t), {n});
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
  const int64_t c = log_probs->shape[log_probs->ndim() - 1],
                n = log_probs->ndim() == 2 ? log_probs->shape[0] : 1;
  const Dims none_shape = log_probs->ndim() == 2 ? Dims{n} : Dims{};
  Tensor out;
  if (on_cuda(log_probs)) {
    Tensor losses = empty({n}, DType::f64, log_probs->device);
    out = empty(reduction == TC_REDUCTION_NONE ? none_shape : Dims{}, log_probs->dtype, log_probs->device);
    TC_CUDA_CALL(cuda::nll_forward(losses, log_probs, t));
    TC_CUDA_CALL(cuda::reduce_losses(out, losses, reduction));
  } else {
    Tensor x = tc::contiguous(log_probs);
    std::vector<double> losses(static_cast<size_t>(n));
    const int64_t* pt = t->data_as<int64_t>();
    for (int64_t i = 0; i < n; ++i) losses[i] = -read_element(x, i * c + pt[i]);
    out = TC_DISPATCH_FLOATING(log_probs->dtype, op, [&] {
      return reduce_losses<scalar_t>(losses, reduction, none_shape, log_probs->dtype);
    });
  }
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

namespace {
// mse_loss through the ops (devices other than the CPU): the squares summed
// by the deterministic reduction (float32 accumulating in double).
Tensor mse_ops(const Tensor& input, const Tensor& target, int32_t reduction) {
  NoGradGuard ng;
  Tensor d = sub(input, target);
  Tensor sq = mul(d, d);
  if (reduction == TC_REDUCTION_NONE) return sq;
  return reduction == TC_REDUCTION_MEAN ? mean(sq, {}, false) : sum(sq, {}, false);
}
}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, int32_t reduction) {
  const char* op = "mse_loss";
  check_float(input, op, "input");
  check_float(target, op, "target");
  detail::check_same_dtype(input, target, op, "input", "target");
  check_reduction(reduction, op);
  TC_CHECK(input->shape == target->shape, TC_ERR_SHAPE, op, ": input of shape ", input->shape,
           " and target of shape ", target->shape, " must have the same shape");
  check_same_device(input, target, op, "input", "target");
  Tensor out =
      on_cuda(input) ? mse_ops(input, target, reduction) : TC_DISPATCH_FLOATING(input->dtype, op, [&] {
        Tensor x = tc::contiguous(input), t = tc::contiguous(target);
        const int64_t n = x->numel();
        using T = scalar_t;
        const T *px = x->data_as<T>(), *pt = t->data_as<T>();
        if (reduction == TC_REDUCTION_NONE) {
          Tensor o = empty(input->shape, input->dtype);
          T* po = o->data_as<T>();
          for (int64_t i = 0; i < n; ++i) po[i] = (px[i] - pt[i]) * (px[i] - pt[i]);
          return o;
        }
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += double(px[i] - pt[i]) * double(px[i] - pt[i]);
        return scalar_tensor(reduction == TC_REDUCTION_MEAN ? sum / double(n) : sum, input->dtype);
      });
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
  if (on_cuda(a)) {
    NoGradGuard ng;
    mask = mul_scalar(mask, scale);
    out = mul(a, mask);
  } else {
    Tensor x = tc::contiguous(a);
    out = empty(a->shape, a->dtype);
    TC_DISPATCH_FLOATING(a->dtype, op, [&] {
      using T = scalar_t;
      T* m = mask->data_as<T>();
      const T* px = x->data_as<T>();
      T* o = out->data_as<T>();
      for (int64_t i = 0; i < out->numel(); ++i) {
        m[i] = m[i] * T(scale);
        o[i] = px[i] * m[i];
      }
    });
  }
  if (autograd::needs_grad({&a})) {
    auto node = std::make_shared<MaskBackward>();
    node->mask = mask;
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
  if (on_cuda(weight))
    check_same_device(weight, indices, op, "weight", "indices");
  else
    detail::check_cpu(indices, op, "indices");
  TC_CHECK(indices->dtype == DType::i64, TC_ERR_DTYPE, op, ": indices must be int64 but are ",
           dtype_name(indices->dtype));
  TC_CHECK(indices->ndim() < TC_MAX_DIMS, TC_ERR_SHAPE, op, ": indices of shape ", indices->shape,
           " leave no room for the embedding dim");
  const int64_t num = weight->shape[0], dim = weight->shape[1];
  Tensor idx = tc::contiguous(indices);
  Dims out_shape = indices->shape;
  out_shape.push_back(dim);
  if (on_cuda(weight)) {
    Tensor outc = empty(out_shape, weight->dtype, weight->device);
    TC_CUDA_CALL([&] {
      const int64_t i = cuda::first_out_of_range(idx, num);
      TC_CHECK(i < 0, TC_ERR_INDEX, op, ": index ", cuda::read_index(idx, i), " at position ", i,
               " is out of range for ", num, " embeddings");
      const int64_t n = idx->numel();
      cuda::index_gather(reshaped(outc, {n, dim}), weight, 0, reshaped(idx, {n}), true);
    }());
    return record_embedding(weight, indices, outc);
  }
  const int64_t* pi = idx->data_as<int64_t>();
  for (int64_t i = 0; i < idx->numel(); ++i) {
    TC_CHECK(pi[i] >= 0 && pi[i] < num, TC_ERR_INDEX, op, ": index ", pi[i], " at position ", i,
             " is out of range for ", num, " embeddings");
  }
  Tensor w = tc::contiguous(weight);
  Tensor out = empty(out_shape, weight->dtype);
  TC_DISPATCH_FLOATING(weight->dtype, op, [&] {
    const scalar_t* pw = w->data_as<scalar_t>();
    scalar_t* o = out->data_as<scalar_t>();
    for (int64_t i = 0; i < idx->numel(); ++i)
      std::copy(pw + pi[i] * dim, pw + (pi[i] + 1) * dim, o + i * dim);
  });
  return record_embedding(weight, indices, out);
}

}  // namespace tc::ops
