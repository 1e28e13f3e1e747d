// conv2d, max_pool2d and avg_pool2d, forward and backward, NCHW.
// conv2d lowers each (sample, group) to im2col + one GEMM (cpu::gemm: oneDNN's
// sgemm for float32, the OpenMP loop for float64, which oneDNN lacks); the
// pooling ops are direct loops over output planes.
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/node.h"
#include "cpu/matmul.h"
#include "dtype.h"
#include "init.h"
#include "ops/nn_util.h"
#include "ops/ops.h"

namespace tc::ops {
namespace {

using detail::check_float;

struct ConvGeom {
  int64_t n, c, h, w;      // input
  int64_t o, kh, kw;       // weight
  int64_t groups, cg, og;  // per-group channels
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t ho, wo;
  int64_t col_rows() const { return cg * kh * kw; }
  int64_t plane() const { return ho * wo; }
};

// col[(c*kh + i)*kw + j][oh*wo + ow] = x[c][oh*sh - ph + i*dh][ow*sw - pw + j*dw] (0 outside).
template <typename T>
void im2col(const T* x, T* col, const ConvGeom& g) {
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        T* row = col + ((c * g.kh + i) * g.kw + j) * g.plane();
        for (int64_t oh = 0; oh < g.ho; ++oh) {
          const int64_t ih = oh * g.sh - g.ph + i * g.dh;
          for (int64_t ow = 0; ow < g.wo; ++ow) {
            const int64_t iw = ow * g.sw - g.pw + j * g.dw;
            row[oh * g.wo + ow] =
                (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w) ? x[(c * g.h + ih) * g.w + iw] : T(0);
          }
        }
      }
}

// The adjoint of im2col: adds every column entry back onto its input pixel.
template <typename T>
void col2im_add(const T* col, T* x, const ConvGeom& g) {
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const T* row = col + ((c * g.kh + i) * g.kw + j) * g.plane();
        for (int64_t oh = 0; oh < g.ho; ++oh) {
          const int64_t ih = oh * g.sh - g.ph + i * g.dh;
          if (ih < 0 || ih >= g.h) continue;
          for (int64_t ow = 0; ow < g.wo; ++ow) {
            const int64_t iw = ow * g.sw - g.pw + j * g.dw;
            if (iw >= 0 && iw < g.w) x[(c * g.h + ih) * g.w + iw] += row[oh * g.wo + ow];
          }
        }
      }
}

template <typename T>
void conv_forward(const T* x, const T* w, const T* b, T* y, const ConvGeom& g) {
  const int64_t k = g.col_rows(), p = g.plane();
  sync_omp_threads();
  // Samples in parallel (each thread its own column buffer; the GEMMs inside
  // then run single-threaded): small images gain most that way. Tiny batches
  // stay on one thread, where a fork/join would cost more than the work.
  const bool parallel = g.n > 1 && double(g.n) * double(g.o) * double(k) * double(p) > double(1 << 20);
  auto sample = [&](int64_t n, std::vector<T>& col) {
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      im2col(x + (n * g.c + gr * g.cg) * g.h * g.w, col.data(), g);
      T* out = y + (n * g.o + gr * g.og) * p;
      if (b) {
        for (int64_t o = 0; o < g.og; ++o) std::fill(out + o * p, out + (o + 1) * p, b[gr * g.og + o]);
      }
      cpu::gemm(false, false, g.og, p, k, T(1), w + gr * g.og * k, k, col.data(), p, b ? T(1) : T(0), out, p);
    }
  };
  if (!parallel) {
    // Outside any parallel region (an inactive `if (false)` one would make
    // oneDNN's threads a nested team, created anew on every call).
    std::vector<T> col(size_t(k * p));
    for (int64_t n = 0; n < g.n; ++n) sample(n, col);
    return;
  }
#pragma omp parallel
  {
    std::vector<T> col(size_t(k * p));
#pragma omp for schedule(static)
    for (int64_t n = 0; n < g.n; ++n) sample(n, col);
  }
}

template <typename T>
void conv_backward(const T* x, const T* w, const T* gy, T* gx, T* gw, T* gb, const ConvGeom& g) {
  const int64_t k = g.col_rows(), p = g.plane();
  std::vector<T> col(size_t(k * p));
  // Samples in order, so the weight and bias sums are deterministic.
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t gr = 0; gr < g.groups; ++gr) {
      const T* gout = gy + (n * g.o + gr * g.og) * p;
      const T* wg = w + gr * g.og * k;
      if (gx) {
        // dcol [k, p] = W_g^T [k, og] @ gout [og, p]
        cpu::gemm(true, false, k, p, g.og, T(1), wg, k, gout, p, T(0), col.data(), p);
        col2im_add(col.data(), gx + (n * g.c + gr * g.cg) * g.h * g.w, g);
      }
      if (gw) {
        // dW_g [og, k] += gout [og, p] @ col^T [p, k]
        im2col(x + (n * g.c + gr * g.cg) * g.h * g.w, col.data(), g);
        cpu::gemm(false, true, g.og, k, p, T(1), gout, p, col.data(), p, n == 0 ? T(0) : T(1),
                  gw + gr * g.og * k, k);
      }
    }
    if (gb) {
      for (int64_t o = 0; o < g.o; ++o) {
        double s = 0;
        for (int64_t i = 0; i < p; ++i) s += double(gy[(n * g.o + o) * p + i]);
        gb[o] = n == 0 ? T(s) : T(gb[o] + s);
      }
    }
  }
}

struct Conv2dBackward : autograd::Node {
  autograd::SavedTensor x_saved, w_saved;
  ConvGeom geom;
  const char* name() const override { return "ConvolutionBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    x_saved.release();
    w_saved.release();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor x = tc::contiguous(x_saved.unpack(name())), w = tc::contiguous(w_saved.unpack(name()));
    Tensor gy = tc::contiguous(grads[0]);
    std::vector<Tensor> out(next.size());
    if (detail::wants_grad(*this, 0)) out[0] = zeros(x->shape, x->dtype);
    if (detail::wants_grad(*this, 1)) out[1] = zeros(w->shape, w->dtype);
    if (next.size() > 2 && detail::wants_grad(*this, 2)) out[2] = zeros({geom.o}, x->dtype);
    if (geom.n == 0) return out;
    TC_DISPATCH_FLOATING(x->dtype, name(), [&] {
      using T = scalar_t;
      conv_backward<T>(x->data_as<T>(), w->data_as<T>(), gy->data_as<T>(),
                       out[0] ? out[0]->data_as<T>() : nullptr, out[1] ? out[1]->data_as<T>() : nullptr,
                       out.size() > 2 && out[2] ? out[2]->data_as<T>() : nullptr, geom);
    });
    return out;
  }
};

// The upper bound keeps every geometry product (padding * 2, dilation *
// (kernel - 1), ...) far from int64 overflow.
constexpr int64_t kMaxGeometry = int64_t(1) << 31;

void check_pair(const int64_t v[2], int64_t min, const char* op, const char* what) {
  TC_CHECK(v[0] >= min && v[1] >= min && v[0] <= kMaxGeometry && v[1] <= kMaxGeometry,
           TC_ERR_INVALID_ARGUMENT, op, ": ", what, " must be in [", min, ", 2^31] but is [", v[0], ", ",
           v[1], "]");
}

// ---------------------------------------------------------------- pooling --

struct PoolGeom {
  int64_t planes, h, w, kh, kw, sh, sw, ph, pw, ho, wo;
};

PoolGeom pool_geom(const Tensor& x, const int64_t kernel[2], const int64_t stride[2],
                   const int64_t padding[2], const char* op) {
  check_float(x, op, "x");
  TC_CHECK(x->ndim() == 4, TC_ERR_SHAPE, op, ": x must be [N, C, H, W] but has shape ", x->shape);
  check_pair(kernel, 1, op, "kernel");
  check_pair(stride, 1, op, "stride");
  check_pair(padding, 0, op, "padding");
  TC_CHECK(padding[0] * 2 <= kernel[0] && padding[1] * 2 <= kernel[1], TC_ERR_INVALID_ARGUMENT, op,
           ": padding [", padding[0], ", ", padding[1], "] must be at most half the kernel [", kernel[0],
           ", ", kernel[1], "]");
  PoolGeom g{x->shape[0] * x->shape[1],
             x->shape[2],
             x->shape[3],
             kernel[0],
             kernel[1],
             stride[0],
             stride[1],
             padding[0],
             padding[1],
             0,
             0};
  g.ho = (g.h + 2 * g.ph - g.kh) / g.sh + 1;
  g.wo = (g.w + 2 * g.pw - g.kw) / g.sw + 1;
  TC_CHECK(g.h + 2 * g.ph >= g.kh && g.w + 2 * g.pw >= g.kw, TC_ERR_SHAPE, op, ": kernel [", g.kh, ", ", g.kw,
           "] is larger than the padded input of shape ", x->shape);
  return g;
}

Dims pool_out_shape(const Tensor& x, const PoolGeom& g) { return {x->shape[0], x->shape[1], g.ho, g.wo}; }

// PyTorch's count_include_pad window: clipped to the padded input for the
// divisor, then to the real input for the elements.
struct Window {
  int64_t h0, h1, w0, w1, count;
};
inline Window avg_window(const PoolGeom& g, int64_t oh, int64_t ow) {
  int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
  int64_t h1 = std::min(h0 + g.kh, g.h + g.ph), w1 = std::min(w0 + g.kw, g.w + g.pw);
  const int64_t count = (h1 - h0) * (w1 - w0);
  return {std::max<int64_t>(h0, 0), std::min(h1, g.h), std::max<int64_t>(w0, 0), std::min(w1, g.w), count};
}

template <typename T>
void max_pool_forward(const T* px, T* py, int64_t* pa, const PoolGeom& g) {
  sync_omp_threads();
#pragma omp parallel for schedule(static) if (g.planes * g.ho * g.wo > 16384)
  for (int64_t c = 0; c < g.planes; ++c)
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
        T best = -std::numeric_limits<T>::infinity();
        int64_t at = std::max<int64_t>(h0, 0) * g.w + std::max<int64_t>(w0, 0);
        bool found_nan = false;
        for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + g.kh, g.h) && !found_nan; ++ih)
          for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + g.kw, g.w); ++iw) {
            const T v = px[(c * g.h + ih) * g.w + iw];
            // NaN wins and stays, as in PyTorch.
            if (v > best || std::isnan(v)) {
              best = v;
              at = ih * g.w + iw;
              if (std::isnan(v)) {
                found_nan = true;
                break;
              }
            }
          }
        py[(c * g.ho + oh) * g.wo + ow] = best;
        pa[(c * g.ho + oh) * g.wo + ow] = at;
      }
}

template <typename T>
void max_pool_backward(const T* pg, const int64_t* pa, T* o, const PoolGeom& g) {
  const int64_t po = g.ho * g.wo, pi = g.h * g.w;
  sync_omp_threads();
#pragma omp parallel for schedule(static) if (g.planes * po > 16384)
  for (int64_t c = 0; c < g.planes; ++c)
    for (int64_t i = 0; i < po; ++i) o[c * pi + pa[c * po + i]] += pg[c * po + i];
}

template <typename T>
void avg_pool_forward(const T* px, T* py, const PoolGeom& g) {
  sync_omp_threads();
#pragma omp parallel for schedule(static) if (g.planes * g.ho * g.wo > 16384)
  for (int64_t c = 0; c < g.planes; ++c)
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const Window win = avg_window(g, oh, ow);
        double s = 0;
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) s += double(px[(c * g.h + ih) * g.w + iw]);
        py[(c * g.ho + oh) * g.wo + ow] = T(s / double(win.count));
      }
}

template <typename T>
void avg_pool_backward(const T* pg, T* o, const PoolGeom& g) {
  sync_omp_threads();
#pragma omp parallel for schedule(static) if (g.planes * g.ho * g.wo > 16384)
  for (int64_t c = 0; c < g.planes; ++c)
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        const Window win = avg_window(g, oh, ow);
        const T v = pg[(c * g.ho + oh) * g.wo + ow] / T(win.count);
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) o[(c * g.h + ih) * g.w + iw] += v;
      }
}

struct MaxPool2dBackward : autograd::Node {
  Tensor argmax;  // int64 [N, C, Ho, Wo]: flat index within the input plane
  Dims x_shape;
  DType dtype;
  PoolGeom geom;
  const char* name() const override { return "MaxPool2DBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override { argmax.reset(); }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    TC_CHECK(argmax != nullptr, TC_ERR_AUTOGRAD, name(),
             ": its saved tensors were freed by an earlier backward; call backward with retain_graph = 1 to "
             "run it twice");
    Tensor gy = tc::contiguous(grads[0]);
    Tensor gx = zeros(x_shape, dtype);
    const PoolGeom g = geom;
    TC_DISPATCH_FLOATING(dtype, name(), [&] {
      max_pool_backward(gy->data_as<scalar_t>(), argmax->data_as<int64_t>(), gx->data_as<scalar_t>(), g);
    });
    return {gx};
  }
};

struct AvgPool2dBackward : autograd::Node {
  Dims x_shape;
  DType dtype;
  PoolGeom geom;
  const char* name() const override { return "AvgPool2DBackward"; }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override;
};

std::vector<Tensor> AvgPool2dBackward::apply(const std::vector<Tensor>& grads) {
  Tensor gy = tc::contiguous(grads[0]);
  Tensor gx = zeros(x_shape, dtype);
  const PoolGeom g = geom;
  TC_DISPATCH_FLOATING(dtype, name(),
                       [&] { avg_pool_backward(gy->data_as<scalar_t>(), gx->data_as<scalar_t>(), g); });
  return {gx};
}

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const int64_t stride[2],
              const int64_t padding[2], const int64_t dilation[2], int64_t groups) {
  const char* op = "conv2d";
  check_float(x, op, "x");
  check_float(w, op, "weight");
  detail::check_same_dtype(x, w, op, "x", "weight");
  TC_CHECK(x->ndim() == 4, TC_ERR_SHAPE, op, ": x must be [N, C, H, W] but has shape ", x->shape);
  TC_CHECK(w->ndim() == 4, TC_ERR_SHAPE, op, ": weight must be [O, C/groups, kH, kW] but has shape ",
           w->shape);
  check_pair(stride, 1, op, "stride");
  check_pair(padding, 0, op, "padding");
  check_pair(dilation, 1, op, "dilation");
  TC_CHECK(groups >= 1, TC_ERR_INVALID_ARGUMENT, op, ": groups must be >= 1 but is ", groups);
  ConvGeom g{};
  g.n = x->shape[0], g.c = x->shape[1], g.h = x->shape[2], g.w = x->shape[3];
  g.o = w->shape[0], g.kh = w->shape[2], g.kw = w->shape[3];
  g.groups = groups;
  TC_CHECK(g.c % groups == 0 && g.o % groups == 0, TC_ERR_SHAPE, op, ": groups ", groups,
           " must divide both the input channels (", g.c, ") and the output channels (", g.o, ")");
  g.cg = g.c / groups, g.og = g.o / groups;
  TC_CHECK(w->shape[1] == g.cg, TC_ERR_SHAPE, op, ": weight of shape ", w->shape, " expects ",
           w->shape[1] * groups, " input channels but x of shape ", x->shape, " has ", g.c);
  if (bias) {
    check_float(bias, op, "bias");
    detail::check_same_dtype(x, bias, op, "x", "bias");
    TC_CHECK(bias->ndim() == 1 && bias->shape[0] == g.o, TC_ERR_SHAPE, op, ": bias must have shape [", g.o,
             "] but has shape ", bias->shape);
  }
  g.sh = stride[0], g.sw = stride[1], g.ph = padding[0], g.pw = padding[1], g.dh = dilation[0],
  g.dw = dilation[1];
  const int64_t eh = g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1, ew = g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1;
  TC_CHECK(eh >= 0 && ew >= 0, TC_ERR_SHAPE, op, ": the (dilated) kernel of weight ", w->shape,
           " is larger than the padded input of shape ", x->shape);
  g.ho = eh / g.sh + 1, g.wo = ew / g.sw + 1;
  Tensor xc = tc::contiguous(x), wc = tc::contiguous(w), bc = bias ? tc::contiguous(bias) : Tensor();
  Tensor y = empty({g.n, g.o, g.ho, g.wo}, x->dtype);
  if (y->numel() > 0) {
    TC_DISPATCH_FLOATING(x->dtype, op, [&] {
      using T = scalar_t;
      conv_forward<T>(xc->data_as<T>(), wc->data_as<T>(), bc ? bc->data_as<T>() : nullptr, y->data_as<T>(),
                      g);
    });
  }
  std::vector<Tensor> inputs = detail::defined({x, w, bias});
  if (autograd::needs_grad(inputs)) {
    auto node = std::make_shared<Conv2dBackward>();
    node->x_saved = autograd::SavedTensor(x);
    node->w_saved = autograd::SavedTensor(w);
    node->geom = g;
    autograd::record(node, inputs, {y});
  }
  return y;
}

Tensor max_pool2d(const Tensor& x, const int64_t kernel[2], const int64_t stride[2],
                  const int64_t padding[2]) {
  const char* op = "max_pool2d";
  const PoolGeom g = pool_geom(x, kernel, stride, padding, op);
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(pool_out_shape(x, g), x->dtype);
  Tensor argmax = empty(y->shape, DType::i64);
  TC_DISPATCH_FLOATING(x->dtype, op, [&] {
    max_pool_forward(xc->data_as<scalar_t>(), y->data_as<scalar_t>(), argmax->data_as<int64_t>(), g);
  });
  if (autograd::needs_grad({&x})) {
    auto node = std::make_shared<MaxPool2dBackward>();
    node->argmax = argmax;
    node->x_shape = x->shape;
    node->dtype = x->dtype;
    node->geom = g;
    autograd::record(node, {x}, {y});
  }
  return y;
}

Tensor avg_pool2d(const Tensor& x, const int64_t kernel[2], const int64_t stride[2],
                  const int64_t padding[2]) {
  const char* op = "avg_pool2d";
  const PoolGeom g = pool_geom(x, kernel, stride, padding, op);
  Tensor xc = tc::contiguous(x);
  Tensor y = empty(pool_out_shape(x, g), x->dtype);
  TC_DISPATCH_FLOATING(x->dtype, op,
                       [&] { avg_pool_forward(xc->data_as<scalar_t>(), y->data_as<scalar_t>(), g); });
  if (autograd::needs_grad({&x})) {
    auto node = std::make_shared<AvgPool2dBackward>();
    node->x_shape = x->shape;
    node->dtype = x->dtype;
    node->geom = g;
    autograd::record(node, {x}, {y});
  }
  return y;
}

}  // namespace tc::ops
