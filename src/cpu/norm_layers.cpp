// Batch and group normalisation on the CPU: one fused kernel each way per
// layer, in place of the ops they used to be composed of (mean, sub, mul,
// rsqrt, add: ~8 passes over x forward, more backward).
//
// Hand-written OpenMP loops rather than oneDNN's batch_normalization
// primitives: oneDNN has no float64, PyTorch's statistics (biased variance
// for the output, unbiased for the running update) and its gradient
// formulas are simpler to keep exact here, and the work is a few passes of
// memory traffic that a vectorized loop already runs at memory speed.
//
// Batch norm works channel by channel (parallel over C): a channel's
// N chunks of S elements are read once for the statistics and once more for
// the output while they are still in cache. The statistics are one pass of
// two-level sums (float blocks, double totals) around a shift, stable for
// float32 with a large mean (ShiftedSums). Results do not depend on the
// thread count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/init.h"
#include "cpu/cpu_backend.h"
#include "cpu/loops.h"

namespace tc::cpu {
namespace {

// Channels (or groups) per thread chunk: enough elements to pay for a thread.
int64_t grain_for(int64_t per_item) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(per_item, 1));
}

template <typename T>
const T* ptr_or_null(const Tensor& t) {
  return t ? t->data_as<T>() : nullptr;
}

// Values are summed in two levels: short blocks in the data's type (vector
// lanes of a few elements each: float32's rounding stays near 1e-7 of a
// block), the blocks in double. Around a shift near the mean (the first
// value), so that the sum of squares does not cancel: mean = shift + s1 / n,
// M2 = s2 - s1^2 / n.
constexpr int64_t kBlock = 64;

struct ShiftedSums {
  double s1 = 0, s2 = 0;
  template <typename T>
  void add(const T* p, int64_t len, T shift) {
    for (int64_t b = 0; b < len; b += kBlock) {
      const int64_t e = std::min(len, b + kBlock);
      T a1 = 0, a2 = 0;
#pragma omp simd reduction(+ : a1, a2)
      for (int64_t i = b; i < e; ++i) {
        const T d = p[i] - shift;
        a1 += d;
        a2 += d * d;
      }
      s1 += double(a1);
      s2 += double(a2);
    }
  }
};

// Mean and biased variance of n values from their shifted sums.
struct Stats {
  double mean, var;
};
template <typename T>
Stats stats_of(const ShiftedSums& s, T shift, double n) {
  const double m = s.s1 / n;
  return {double(shift) + m, std::max(0.0, s.s2 / n - m * m)};
}

// y = x * a + c over len elements.
template <typename T>
inline void scale_shift(T* y, const T* x, int64_t len, T a, T c) {
#pragma omp simd
  for (int64_t i = 0; i < len; ++i) y[i] = x[i] * a + c;
}

// Sums of g and of g * (x - m) over len elements, in two levels (above).
template <typename T>
inline void grad_sums(const T* g, const T* x, int64_t len, T m, double& sg, double& sgx) {
  for (int64_t b = 0; b < len; b += kBlock) {
    const int64_t e = std::min(len, b + kBlock);
    T a = 0, c = 0;
#pragma omp simd reduction(+ : a, c)
    for (int64_t i = b; i < e; ++i) {
      a += g[i];
      c += g[i] * (x[i] - m);
    }
    sg += double(a);
    sgx += double(c);
  }
}

// gx = g * a + x * b + c over len elements.
template <typename T>
inline void grad_affine(T* gx, const T* g, const T* x, int64_t len, T a, T b, T c) {
#pragma omp simd
  for (int64_t i = 0; i < len; ++i) gx[i] = g[i] * a + x[i] * b + c;
}

struct Nchw {
  int64_t n, c, s;
};
Nchw nchw(const Tensor& x) {
  const int64_t n = x->shape[0], c = x->shape[1];
  return {n, c, n * c != 0 ? x->numel() / (n * c) : 0};
}

template <typename T>
void bn_forward(T* y, T* mean, T* invstd, T* var_unbiased, const T* x, const T* w, const T* b, Nchw d,
                double eps) {
  const int64_t stride = d.c * d.s;
  parallel_for(d.c, grain_for(d.n * d.s), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      const T shift = x[c * d.s];
      ShiftedSums sums;
      for (int64_t n = 0; n < d.n; ++n) sums.add(x + n * stride + c * d.s, d.s, shift);
      const double count = double(d.n * d.s);
      const Stats st = stats_of(sums, shift, count);
      const double rs = 1.0 / std::sqrt(st.var + eps);
      mean[c] = T(st.mean);
      invstd[c] = T(rs);
      if (var_unbiased) var_unbiased[c] = T(st.var * count / (count - 1));
      // y = (x - mean) * rs * w + b as one multiply-add per element.
      const double a = rs * (w ? double(w[c]) : 1.0);
      const double sh = (b ? double(b[c]) : 0.0) - st.mean * a;
      for (int64_t n = 0; n < d.n; ++n)
        scale_shift(y + n * stride + c * d.s, x + n * stride + c * d.s, d.s, T(a), T(sh));
    }
  });
}

template <typename T>
void bn_apply(T* y, const T* x, const T* mean, const T* invstd, const T* w, const T* b, Nchw d) {
  parallel_for(d.n * d.c, grain_for(d.s), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t c = r % d.c;
      const double a = double(invstd[c]) * (w ? double(w[c]) : 1.0);
      const double sh = (b ? double(b[c]) : 0.0) - double(mean[c]) * a;
      scale_shift(y + r * d.s, x + r * d.s, d.s, T(a), T(sh));
    }
  });
}

template <typename T>
void bn_backward(T* gx, T* gw, T* gb, const T* g, const T* x, const T* mean, const T* invstd, const T* w,
                 bool training, Nchw d) {
  const int64_t stride = d.c * d.s;
  const double count = double(d.n * d.s);
  parallel_for(d.c, grain_for(d.n * d.s), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      const double m = double(mean[c]), rs = double(invstd[c]);
      double sg = 0, sgx = 0;  // sum g, sum g (x - mean)
      for (int64_t n = 0; n < d.n; ++n)
        grad_sums(g + n * stride + c * d.s, x + n * stride + c * d.s, d.s, mean[c], sg, sgx);
      if (gw) gw[c] = T(sgx * rs);
      if (gb) gb[c] = T(sg);
      if (!gx) continue;
      const double scale = rs * (w ? double(w[c]) : 1.0);
      // training: gx = scale (g - sg / count - (x - m) rs^2 sgx / count).
      const double k = training ? rs * rs * sgx / count : 0.0;
      const double c0 = training ? scale * (m * k - sg / count) : 0.0;
      for (int64_t n = 0; n < d.n; ++n)
        grad_affine(gx + n * stride + c * d.s, g + n * stride + c * d.s, x + n * stride + c * d.s, d.s,
                    T(scale), T(-scale * k), T(c0));
    }
  });
}

// Group norm: row r = (sample, group) covers cg = C / groups channels of S
// elements, contiguous.
template <typename T>
void gn_forward(T* y, T* mean, T* invstd, const T* x, const T* w, const T* b, Nchw d, int64_t groups,
                double eps) {
  const int64_t cg = d.c / groups, len = cg * d.s;
  parallel_for(d.n * groups, grain_for(len), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* xr = x + r * len;
      ShiftedSums sums;
      sums.add(xr, len, xr[0]);
      const Stats st = stats_of(sums, xr[0], double(len));
      const double rs = 1.0 / std::sqrt(st.var + eps);
      mean[r] = T(st.mean);
      invstd[r] = T(rs);
      const int64_t c0 = (r % groups) * cg;
      for (int64_t j = 0; j < cg; ++j) {
        const double a = rs * (w ? double(w[c0 + j]) : 1.0);
        const double sh = (b ? double(b[c0 + j]) : 0.0) - st.mean * a;
        scale_shift(y + r * len + j * d.s, xr + j * d.s, d.s, T(a), T(sh));
      }
    }
  });
}

template <typename T>
void gn_backward(T* gx, T* gw, T* gb, const T* g, const T* x, const T* mean, const T* invstd, const T* w,
                 Nchw d, int64_t groups) {
  const int64_t cg = d.c / groups, len = cg * d.s;
  // Per (sample, channel): sum g and sum g (x - mean), for the parameter
  // gradients (summed over samples below, in order) and gx.
  std::vector<double> sums(size_t(d.n * d.c * 2));
  parallel_for(d.n * groups, grain_for(len), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const int64_t n = r / groups, c0 = (r % groups) * cg;
      const double m = double(mean[r]), rs = double(invstd[r]);
      double db = 0, dsc = 0;  // sum_c w_c sum g, sum_c w_c sum g (x - m)
      for (int64_t j = 0; j < cg; ++j) {
        double sg = 0, sgx = 0;
        grad_sums(g + r * len + j * d.s, x + r * len + j * d.s, d.s, mean[r], sg, sgx);
        sums[size_t((n * d.c + c0 + j) * 2)] = sg;
        sums[size_t((n * d.c + c0 + j) * 2 + 1)] = sgx;
        const double wc = w ? double(w[c0 + j]) : 1.0;
        db += wc * sg;
        dsc += wc * sgx;
      }
      if (!gx) continue;
      // gx = rs w g - rs^3 dsc / len (x - m) - rs db / len.
      const double k = -rs * rs * rs * dsc / double(len);
      const double c = -k * m - rs * db / double(len);
      for (int64_t j = 0; j < cg; ++j) {
        const double wc = w ? double(w[c0 + j]) : 1.0;
        grad_affine(gx + r * len + j * d.s, g + r * len + j * d.s, x + r * len + j * d.s, d.s, T(rs * wc),
                    T(k), T(c));
      }
    }
  });
  if (!gw && !gb) return;
  for (int64_t c = 0; c < d.c; ++c) {
    double sw = 0, sb = 0;
    for (int64_t n = 0; n < d.n; ++n) {
      const int64_t r = n * groups + c / cg;
      sw += sums[size_t((n * d.c + c) * 2 + 1)] * double(invstd[r]);
      sb += sums[size_t((n * d.c + c) * 2)];
    }
    if (gw) gw[c] = T(sw);
    if (gb) gb[c] = T(sb);
  }
}

}  // namespace

void CpuBackend::batch_norm_forward(const Tensor& y, const Tensor& mean, const Tensor& invstd,
                                    const Tensor& var_unbiased, const Tensor& x, const Tensor& w,
                                    const Tensor& b, double eps) const {
  TC_DISPATCH_FLOATING(x->dtype, "batch_norm", [&] {
    using T = scalar_t;
    bn_forward<T>(y->data_as<T>(), mean->data_as<T>(), invstd->data_as<T>(),
                  var_unbiased ? var_unbiased->data_as<T>() : nullptr, x->data_as<T>(), ptr_or_null<T>(w),
                  ptr_or_null<T>(b), nchw(x), eps);
  });
}

void CpuBackend::batch_norm_apply(const Tensor& y, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                                  const Tensor& w, const Tensor& b) const {
  TC_DISPATCH_FLOATING(x->dtype, "batch_norm", [&] {
    using T = scalar_t;
    bn_apply<T>(y->data_as<T>(), x->data_as<T>(), mean->data_as<T>(), invstd->data_as<T>(), ptr_or_null<T>(w),
                ptr_or_null<T>(b), nchw(x));
  });
}

void CpuBackend::batch_norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                                     const Tensor& x, const Tensor& mean, const Tensor& invstd,
                                     const Tensor& w, bool training) const {
  TC_DISPATCH_FLOATING(x->dtype, "BatchNormBackward", [&] {
    using T = scalar_t;
    bn_backward<T>(gx ? gx->data_as<T>() : nullptr, gw ? gw->data_as<T>() : nullptr,
                   gb ? gb->data_as<T>() : nullptr, g->data_as<T>(), x->data_as<T>(), mean->data_as<T>(),
                   invstd->data_as<T>(), ptr_or_null<T>(w), training, nchw(x));
  });
}

void CpuBackend::group_norm_forward(const Tensor& y, const Tensor& mean, const Tensor& invstd,
                                    const Tensor& x, const Tensor& w, const Tensor& b, int64_t groups,
                                    double eps) const {
  TC_DISPATCH_FLOATING(x->dtype, "group_norm", [&] {
    using T = scalar_t;
    gn_forward<T>(y->data_as<T>(), mean->data_as<T>(), invstd->data_as<T>(), x->data_as<T>(),
                  ptr_or_null<T>(w), ptr_or_null<T>(b), nchw(x), groups, eps);
  });
}

void CpuBackend::group_norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                                     const Tensor& x, const Tensor& mean, const Tensor& invstd,
                                     const Tensor& w, int64_t groups) const {
  TC_DISPATCH_FLOATING(x->dtype, "GroupNormBackward", [&] {
    using T = scalar_t;
    gn_backward<T>(gx ? gx->data_as<T>() : nullptr, gw ? gw->data_as<T>() : nullptr,
                   gb ? gb->data_as<T>() : nullptr, g->data_as<T>(), x->data_as<T>(), mean->data_as<T>(),
                   invstd->data_as<T>(), ptr_or_null<T>(w), nchw(x), groups);
  });
}

}  // namespace tc::cpu
