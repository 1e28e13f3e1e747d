// The CPU's transformer and sampling primitives (src/backend/backend.h): fused
// layer/RMS norm forward and backward, the causal softmax, triangles,
// cumsum, topk and multinomial. Rows run in parallel (OpenMP through
// parallel_for); the inner loops over a row are plain contiguous loops the
// compiler vectorizes (omp simd). Sums accumulate in double; the weight/bias
// gradients of the norms are summed per fixed block of rows and then in block
// order, so results do not depend on the thread count.
// Compiled once per kernel set (src/cpu/kernels.h), into tc::cpu::isa_<set>.
// The norms and the causal softmax sum in a fixed lane order
// (fixed_lane_sum), so each set runs its own code and all give the same bits;
// the rest runs the baseline's code in the AVX2 and AVX-512 sets (the #else
// at the end): their omp simd sums split into as many partial sums as the
// vector has lanes, so a wider set would round differently.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/dispatch.h"
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "math/gelu_math.h"

// The set this file is compiled for, as a number the preprocessor compares.
#define TC_TRANSFORMER_ISA_baseline 0
#define TC_TRANSFORMER_ISA_avx2 1
#define TC_TRANSFORMER_ISA_avx512 2
#define TC_TRANSFORMER_ISA_(isa) TC_TRANSFORMER_ISA_##isa
#define TC_TRANSFORMER_ISA(isa) TC_TRANSFORMER_ISA_(isa)

namespace tc::cpu::TC_CPU_ISA_NS {
namespace {

// Rows per parallel task: enough elements to pay for a thread.
int64_t row_grain(int64_t cols) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(cols, 1) / 4);
}

// The sum of f(j) over j in [0, n) in double, in one fixed order: kLanes
// partial sums over j mod kLanes (which the compiler keeps in vector
// registers), added in lane order, then the tail. omp simd's reduction would
// split into as many sums as the instruction set's vectors have lanes, and
// the sets must round alike.
constexpr int64_t kLanes = 8;
template <typename F>
inline double fixed_lane_sum(int64_t n, F f) {
  double acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) acc[l] += f(j + l);
  double s = 0;
  for (int64_t l = 0; l < kLanes; ++l) s += acc[l];
  for (; j < n; ++j) s += f(j);
  return s;
}

template <typename T>
void norm_forward_kernel(T* y, T* mean, T* rstd, const T* x, const T* w, const T* b, int64_t rows,
                         int64_t cols, double eps) {
  const bool rms = mean == nullptr;
  parallel_for(rows, row_grain(cols), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* xr = x + r * cols;
      T* yr = y + r * cols;
      double mu = 0;
      if (!rms) mu = fixed_lane_sum(cols, [&](int64_t j) { return double(xr[j]); }) / double(cols);
      const double ss = fixed_lane_sum(cols, [&](int64_t j) {
        const double d = double(xr[j]) - mu;
        return d * d;
      });
      const double rs = 1.0 / std::sqrt(ss / double(cols) + eps);
      if (!rms) mean[r] = T(mu);
      rstd[r] = T(rs);
      const T m = T(mu), s = T(rs);
      if (w && b) {
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) yr[j] = (xr[j] - m) * s * w[j] + b[j];
      } else if (w) {
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) yr[j] = (xr[j] - m) * s * w[j];
      } else if (b) {
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) yr[j] = (xr[j] - m) * s + b[j];
      } else {
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) yr[j] = (xr[j] - m) * s;
      }
    }
  });
}

constexpr int64_t kNormBlockRows = 32;

template <typename T>
void norm_backward_kernel(T* gx, T* gw, T* gb, const T* g, const T* x, const T* mean, const T* rstd,
                          const T* w, int64_t rows, int64_t cols) {
  const bool rms = mean == nullptr;
  const int64_t nblocks = (rows + kNormBlockRows - 1) / kNormBlockRows;
  const bool want_params = gw || gb;
  // Per block of rows: partial sums of g * xhat (weight) and g (bias).
  std::vector<double> part(want_params ? size_t(nblocks * 2 * cols) : 0, 0.0);
  parallel_for(
      nblocks, std::max<int64_t>(1, row_grain(cols) / kNormBlockRows), [&](int64_t blo, int64_t bhi) {
        std::vector<T> gh(static_cast<size_t>(cols)), xh(static_cast<size_t>(cols));
        for (int64_t blk = blo; blk < bhi; ++blk) {
          double* pw = want_params ? part.data() + blk * 2 * cols : nullptr;
          double* pb = pw ? pw + cols : nullptr;
          const int64_t rend = std::min(rows, (blk + 1) * kNormBlockRows);
          for (int64_t r = blk * kNormBlockRows; r < rend; ++r) {
            const T* gr = g + r * cols;
            const T* xr = x + r * cols;
            const T m = rms ? T(0) : mean[r], s = rstd[r];
            T* ghp = gh.data();
            T* xhp = xh.data();
#pragma omp simd
            for (int64_t j = 0; j < cols; ++j) {
              xhp[j] = (xr[j] - m) * s;
              ghp[j] = w ? gr[j] * w[j] : gr[j];
            }
            if (pw) {
#pragma omp simd
              for (int64_t j = 0; j < cols; ++j) {
                pw[j] += double(gr[j]) * double(xhp[j]);
                pb[j] += double(gr[j]);
              }
            }
            if (!gx) continue;
            const double sg = rms ? 0.0 : fixed_lane_sum(cols, [&](int64_t j) { return double(ghp[j]); });
            const double sgx =
                fixed_lane_sum(cols, [&](int64_t j) { return double(ghp[j]) * double(xhp[j]); });
            const T a = rms ? T(0) : T(sg / double(cols)), c = T(sgx / double(cols));
            T* gxr = gx + r * cols;
#pragma omp simd
            for (int64_t j = 0; j < cols; ++j) gxr[j] = s * (ghp[j] - a - xhp[j] * c);
          }
        }
      });
  if (!want_params) return;
  for (int64_t j = 0; j < cols; ++j) {
    double sw = 0, sb = 0;
    for (int64_t blk = 0; blk < nblocks; ++blk) {
      sw += part[size_t(blk * 2 * cols + j)];
      sb += part[size_t(blk * 2 * cols + cols + j)];
    }
    if (gw) gw[j] = T(sw);
    if (gb) gb[j] = T(sb);
  }
}

// e^x for float, vectorizable (no libm call): the exact GELU's Cephes expf
// polynomial (math/gelu_math.h, one copy of it), within 2 ulp of expf, 0
// below -87.3 (so -inf gives 0). Its selects vectorize because this file is
// built with -fno-trapping-math (CMakeLists.txt).
inline float exp_approx(float x) { return ew::gelu_detail::exp_split(x, 0.0f); }
inline double exp_approx(double x) { return std::exp(x); }

template <typename T>
void causal_softmax_kernel(T* y, const T* x, int64_t mats, int64_t l, int64_t s, T scale) {
  parallel_for(mats * l, row_grain(s), [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t i = row % l, n = std::min(i + 1, s);
      const T* xr = x + row * s;
      T* yr = y + row * s;
      T mx = -std::numeric_limits<T>::infinity();
      // std::max(mx, v) as a select on values: through std::max's
      // references GCC kept this reduction a scalar chain.
#pragma omp simd reduction(max : mx)
      for (int64_t j = 0; j < n; ++j) {
        const T v = xr[j];
        mx = v > mx ? v : mx;
      }
      if (std::isinf(mx)) {
        mx = 0;  // a row of -inf: NaN-free arithmetic below
      }
      // The exponentials in a plain map loop (GCC vectorizes it; with the
      // sum's reduction inside, it did not always), then their sum in fixed
      // lanes, so that every kernel set gives the same bits.
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) yr[j] = exp_approx(scale * (xr[j] - mx));
      const T inv = T(1.0 / fixed_lane_sum(n, [&](int64_t j) { return double(yr[j]); }));
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) yr[j] *= inv;
      for (int64_t j = n; j < s; ++j) yr[j] = T(0);
    }
  });
}

template <typename T>
void causal_softmax_backward_kernel(T* gx, const T* g, const T* y, int64_t mats, int64_t l, int64_t s,
                                    T scale) {
  parallel_for(mats * l, row_grain(s), [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t i = row % l, n = std::min(i + 1, s);
      const T* gr = g + row * s;
      const T* yr = y + row * s;
      T* out = gx + row * s;
      const T dot = T(fixed_lane_sum(n, [&](int64_t j) { return double(gr[j]) * double(yr[j]); }));
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) out[j] = scale * yr[j] * (gr[j] - dot);
      for (int64_t j = n; j < s; ++j) out[j] = T(0);
    }
  });
}

}  // namespace

// float32 or float64 (the op checked): a plain branch rather than
// TC_DISPATCH_FLOATING, whose error message would instantiate tc::str in the
// AVX sets' objects, outside their namespaces (abi.baseline_isa).
template <typename F>
void on_float_dtype(DType dtype, F f) {
  if (dtype == DType::f64) {
    f(double());
  } else {
    f(float());
  }
}

void norm_forward(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,
                  const Tensor& b, double eps) {
  const int64_t rows = x->shape[0], cols = x->shape[1];
  on_float_dtype(x->dtype, [&](auto zero) {
    using T = decltype(zero);
    norm_forward_kernel<T>(y->data_as<T>(), mean ? mean->data_as<T>() : nullptr, rstd->data_as<T>(),
                           x->data_as<T>(), w ? w->data_as<T>() : nullptr, b ? b->data_as<T>() : nullptr,
                           rows, cols, eps);
  });
}

void norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g, const Tensor& x,
                   const Tensor& mean, const Tensor& rstd, const Tensor& w) {
  const int64_t rows = x->shape[0], cols = x->shape[1];
  on_float_dtype(x->dtype, [&](auto zero) {
    using T = decltype(zero);
    norm_backward_kernel<T>(gx ? gx->data_as<T>() : nullptr, gw ? gw->data_as<T>() : nullptr,
                            gb ? gb->data_as<T>() : nullptr, g->data_as<T>(), x->data_as<T>(),
                            mean ? mean->data_as<T>() : nullptr, rstd->data_as<T>(),
                            w ? w->data_as<T>() : nullptr, rows, cols);
  });
}

void causal_softmax(const Tensor& y, const Tensor& x, double scale) {
  const int64_t nd = x->ndim(), l = x->shape[nd - 2], s = x->shape[nd - 1];
  const int64_t mats = x->numel() / std::max<int64_t>(l * s, 1);
  on_float_dtype(x->dtype, [&](auto zero) {
    using T = decltype(zero);
    causal_softmax_kernel<T>(y->data_as<T>(), x->data_as<T>(), mats, l, s, T(scale));
  });
}

void causal_softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, double scale) {
  const int64_t nd = y->ndim(), l = y->shape[nd - 2], s = y->shape[nd - 1];
  const int64_t mats = y->numel() / std::max<int64_t>(l * s, 1);
  on_float_dtype(y->dtype, [&](auto zero) {
    using T = decltype(zero);
    causal_softmax_backward_kernel<T>(gx->data_as<T>(), g->data_as<T>(), y->data_as<T>(), mats, l, s,
                                      T(scale));
  });
}

// The exact GELU keeping Phi(x) (float32, contiguous operands): the forward
// and backward of the gelu row (math/gelu_math.h) split at Phi(x), so that
// the backward spends one exponential (phi(x)) instead of two, a division
// and the erfc polynomial. Same expressions in the same order as
// gelu_erf_value and gelu_erf_grad, so the same bits; every element on its
// own, so each kernel set runs its own (vectorized) code.
void gelu_keeping_cdf(const Tensor& y, const Tensor& cdf, const Tensor& x) {
  float* yp = y->data_as<float>();
  float* cp = cdf->data_as<float>();
  const float* xp = x->data_as<float>();
  parallel_for(x->numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const float v = xp[i];
      const float c = ew::gelu_detail::normal_cdf(v, ew::gelu_detail::neg_half_square(v));
      cp[i] = c;
      yp[i] = v * c;
    }
  });
}

void gelu_backward_from_cdf(const Tensor& gx, const Tensor& g, const Tensor& x, const Tensor& cdf) {
  float* o = gx->data_as<float>();
  const float* gp = g->data_as<float>();
  const float* xp = x->data_as<float>();
  const float* cp = cdf->data_as<float>();
  parallel_for(x->numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const float v = xp[i];
      const auto h = ew::gelu_detail::neg_half_square(v);
      const float pdf = float(ew::kGeluInvSqrt2Pi) * ew::gelu_detail::exp_split(h.hi, h.lo);
      o[i] = gp[i] * (cp[i] + v * pdf);
    }
  });
}

}  // namespace tc::cpu::TC_CPU_ISA_NS

#if TC_TRANSFORMER_ISA(TC_CPU_ISA) == 0
namespace tc::cpu::TC_CPU_ISA_NS {
namespace {

template <typename T>
bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    (void)v;
    return false;
  }
}

}  // namespace

void triangle(const Tensor& out, const Tensor& a, int64_t diagonal, bool lower) {
  const int64_t nd = a->ndim(), r = a->shape[nd - 2], c = a->shape[nd - 1];
  const int64_t mats = a->numel() / std::max<int64_t>(r * c, 1), item = a->itemsize();
  const char* src = static_cast<const char*>(a->data());
  char* dst = static_cast<char*>(out->data());
  parallel_for(mats * r, row_grain(c), [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t i = row % r;
      // Columns [keep_lo, keep_hi) are kept.
      const int64_t keep_lo = lower ? 0 : std::clamp<int64_t>(i + diagonal, 0, c);
      const int64_t keep_hi = lower ? std::clamp<int64_t>(i + diagonal + 1, 0, c) : c;
      const char* s = src + row * c * item;
      char* d = dst + row * c * item;
      std::memset(d, 0, size_t(c * item));
      if (keep_hi > keep_lo)
        std::memcpy(d + keep_lo * item, s + keep_lo * item, size_t((keep_hi - keep_lo) * item));
    }
  });
}

void cumsum(const Tensor& out, const Tensor& a, int64_t dim, bool reverse) {
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < dim; ++k) outer *= a->shape[k];
  for (int64_t k = dim + 1; k < a->ndim(); ++k) inner *= a->shape[k];
  const int64_t len = a->shape[dim];
  auto run = [&](auto acc_zero, auto* px, auto* po) {
    using A = decltype(acc_zero);
    using T = std::remove_pointer_t<decltype(po)>;
    parallel_for(outer, row_grain(len * inner), [&](int64_t lo, int64_t hi) {
      std::vector<A> acc(static_cast<size_t>(inner));
      for (int64_t o = lo; o < hi; ++o) {
        std::fill(acc.begin(), acc.end(), acc_zero);
        for (int64_t step = 0; step < len; ++step) {
          const int64_t d = reverse ? len - 1 - step : step;
          const int64_t base = (o * len + d) * inner;
          A* ap = acc.data();
#pragma omp simd
          for (int64_t i = 0; i < inner; ++i) {
            if constexpr (std::is_integral_v<A>) {
              ap[i] = wrapping_add(ap[i], A(px[base + i]));
            } else {
              ap[i] += A(px[base + i]);
            }
            po[base + i] = T(ap[i]);
          }
        }
      }
    });
  };
  if (a->dtype == DType::i64) return run(int64_t(0), a->data_as<int64_t>(), out->data_as<int64_t>());
  TC_DISPATCH_FLOATING(a->dtype, "cumsum",
                       [&] { run(double(0), a->data_as<scalar_t>(), out->data_as<scalar_t>()); });
}

void topk(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, bool largest) {
  const int64_t n = a->shape[a->ndim() - 1], rows = a->numel() / std::max<int64_t>(n, 1);
  TC_DISPATCH_NUMERIC(a->dtype, "topk", [&] {
    using T = scalar_t;
    const T* pa = a->data_as<T>();
    T* pv = values->data_as<T>();
    int64_t* pi = indices->data_as<int64_t>();
    parallel_for(rows, row_grain(n), [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t r = lo; r < hi; ++r) {
        const T* row = pa + r * n;
        std::iota(order.begin(), order.end(), int64_t(0));
        // NaN ranks above every number; ties keep index order.
        auto before = [&](int64_t i, int64_t j) {
          const T x = row[i], y = row[j];
          const bool xn = is_nan_value(x), yn = is_nan_value(y);
          if (xn || yn) {
            if (xn == yn) return i < j;
            return largest ? xn : yn;
          }
          if (x != y) return largest ? x > y : x < y;
          return i < j;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        for (int64_t t = 0; t < k; ++t) {
          pv[r * k + t] = row[order[size_t(t)]];
          pi[r * k + t] = order[size_t(t)];
        }
      }
    });
  });
}

int64_t multinomial(const Tensor& out, const Tensor& p, const Tensor& u, bool replacement) {
  const int64_t n = p->shape[0], c = p->shape[1], s = out->shape[1];
  Tensor pc = tc::contiguous(p);
  const double* pu = u->data_as<double>();
  int64_t* po = out->data_as<int64_t>();
  return TC_DISPATCH_FLOATING(p->dtype, "multinomial", [&]() -> int64_t {
    using T = scalar_t;
    const T* pp = pc->data_as<T>();
    std::vector<double> cdf(static_cast<size_t>(c)), weights(static_cast<size_t>(c));
    for (int64_t r = 0; r < n; ++r) {
      const T* row = pp + r * c;
      double total = 0;
      int64_t nonzero = 0;
      for (int64_t j = 0; j < c; ++j) {
        const double v = double(row[j]);
        if (!(v >= 0) || !std::isfinite(v)) return r;
        weights[size_t(j)] = v;
        nonzero += v > 0;
        total += v;
        cdf[size_t(j)] = total;
      }
      if (!(total > 0) || !std::isfinite(total) || (!replacement && nonzero < s)) return r;
      for (int64_t t = 0; t < s; ++t) {
        const double x = pu[r * s + t];
        int64_t pick;
        if (replacement) {
          const double target = x * total;
          pick = std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin();
        } else {
          // Draw from the weights left, then remove the one drawn.
          double left = 0;
          for (int64_t j = 0; j < c; ++j) left += weights[size_t(j)];
          const double target = x * left;
          double run = 0;
          pick = c;
          for (int64_t j = 0; j < c; ++j) {
            run += weights[size_t(j)];
            if (weights[size_t(j)] > 0 && run > target) {
              pick = j;
              break;
            }
          }
        }
        // Rounding at the top end: the last category with weight left.
        if (pick >= c) {
          pick = c - 1;
          while (pick > 0 && !(weights[size_t(pick)] > 0)) --pick;
        }
        if (!replacement) weights[size_t(pick)] = 0;
        po[r * s + t] = pick;
      }
    }
    return -1;
  });
}

}  // namespace tc::cpu::TC_CPU_ISA_NS

#else  // AVX2, AVX-512: the baseline set's functions (see the top of the file)

namespace tc::cpu {
namespace isa_baseline {
void triangle(const Tensor& out, const Tensor& a, int64_t diagonal, bool lower);
void cumsum(const Tensor& out, const Tensor& a, int64_t dim, bool reverse);
void topk(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, bool largest);
int64_t multinomial(const Tensor& out, const Tensor& p, const Tensor& u, bool replacement);
}  // namespace isa_baseline

namespace TC_CPU_ISA_NS {
void triangle(const Tensor& out, const Tensor& a, int64_t diagonal, bool lower) {
  return isa_baseline::triangle(out, a, diagonal, lower);
}
void cumsum(const Tensor& out, const Tensor& a, int64_t dim, bool reverse) {
  return isa_baseline::cumsum(out, a, dim, reverse);
}
void topk(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, bool largest) {
  return isa_baseline::topk(values, indices, a, k, largest);
}
int64_t multinomial(const Tensor& out, const Tensor& p, const Tensor& u, bool replacement) {
  return isa_baseline::multinomial(out, p, u, replacement);
}
}  // namespace TC_CPU_ISA_NS
}  // namespace tc::cpu

#endif
