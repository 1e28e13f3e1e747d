// The CPU's softmax family, losses and indexing primitives (src/backend/backend.h).
// Kernels work on contiguous copies; sums accumulate in double so float32
// results are accurate and deterministic; scatters add in index order.
// Compiled once per kernel set (src/cpu/kernels.h), into tc::cpu::isa_<set>,
// without multiply-add contraction: every set computes the same values.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/init.h"
#include "cpu/cpu_backend.h"
#include "cpu/dispatch.h"
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "math/fast_math.h"

namespace tc::cpu::TC_CPU_ISA_NS {

namespace {

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

// Rows (outer index) are independent, each computed by one thread: a
// thread takes whole rows once it gets kParallelGrain elements.
inline int64_t row_grain(int64_t row_elements) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(row_elements, 1));
}

template <typename T>
void softmax_kernel(const T* x, T* y, Around s, bool log) {
  parallel_for(s.outer, row_grain(s.size * s.inner), [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
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
  });
}

// softmax: gx = y * (g - sum(g * y)); log_softmax: gx = g - exp(y) * sum(g).
template <typename T>
void softmax_backward_kernel(const T* g, const T* y, T* gx, Around s, bool log) {
  parallel_for(s.outer, row_grain(s.size * s.inner), [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
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
  });
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

// exp(x) in double for the shifted logits of a softmax row (x = logit - row
// max: <= 0, -inf or NaN), in plain arithmetic so that a loop of it
// vectorizes (libm's exp is a call per element: half of cross-entropy's
// time) and every kernel set computes the same bits (these files compile
// without multiply-add contraction). exp(x) = 2^n exp(r), n = round(x / ln 2),
// r = x - n ln 2 (|r| <= 0.35, ln 2 in two parts so n ln2_hi is exact), exp(r)
// by its Taylor series to r^12 (truncation 2.4e-16 relative): within 2 ulp
// of libm in double, so a float32 result rounds the same but for ~1e-8 of
// values. Below -708 (exp < 3.3e-308, next to a row max's exp(0) = 1) the
// result is 0, as are -inf; NaN stays NaN.
inline double exp_nonpositive(double x) {
  const double kLo = -708.0;
  // x < kLo as a bit mask, both selects made on the bits: with float selects
  // GCC moved the arithmetic after them into branches (a float operation
  // may trap) and the loops stayed scalar.
  const uint64_t under = uint64_t(0) - uint64_t(x < kLo);
  uint64_t xbits, lobits;
  std::memcpy(&xbits, &x, sizeof x);
  std::memcpy(&lobits, &kLo, sizeof kLo);
  const uint64_t xcbits = (xbits & ~under) | (lobits & under);
  double xc;  // NaN passes through
  std::memcpy(&xc, &xcbits, sizeof xc);
  const double kShift = 0x1.8p52;  // adding it rounds to an integer in the low mantissa bits
  const double kd = xc * 1.4426950408889634 + kShift;
  uint64_t kbits, sbits;
  std::memcpy(&kbits, &kd, sizeof kd);
  std::memcpy(&sbits, &kShift, sizeof kShift);
  const double n = kd - kShift;
  const double r = (xc - n * 0x1.62e42fee00000p-1) - n * 0x1.a39ef35793c76p-33;
  double p = 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^n from n's bits (kbits - sbits is n, in [-1022, 0] here; unsigned
  // arithmetic: NaN's garbage bits must not be a signed overflow).
  const uint64_t scale_bits = (kbits - sbits + 1023) << 52;
  double scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  const double e = p * scale;
  uint64_t ebits;
  std::memcpy(&ebits, &e, sizeof e);
  ebits &= ~under;  // 0.0 below kLo
  double out;
  std::memcpy(&out, &ebits, sizeof out);
  return out;
}

// Per row: probs = softmax(x), loss = logsumexp(x) - x[target]. float32
// rows of up to kBlock classes go in blocks of kBlock / c rows: the rows are
// contiguous, so the block's shifted logits are one flat array whose exps
// vectorize (with c = 10 classes a row alone is too short to); the block
// lives on the stack (no allocation inside the parallel region); wider
// float32 rows go through the same exp a block at a time. float64 keeps
// libm's exp.
template <typename T>
void cross_entropy_kernel(const T* px, const int64_t* pt, T* pp, double* losses, int64_t n, int64_t c) {
  constexpr int64_t kBlock = 2048;  // 16 KiB of doubles (+ 16 KiB of row maxima at c = 1)
  // A row costs about kExpCost elements of a plain elementwise op per exp:
  // without that weight, [1024, 10] logits (~70 us on one core) fell below
  // the parallel grain and ran on one thread at any thread count.
  constexpr int64_t kExpCost = 16;
  const bool flat = std::is_same<T, float>::value && c <= kBlock;
  if (std::is_same<T, float>::value && !flat) {
    // Wide float32 rows (a language model's vocabulary): each row's shifted
    // logits go through the vectorized float exp of math/fast_math.h (within
    // 1 ulp; PyTorch's log_softmax computes in float too) kBlock at a time,
    // summed in double. libm's exp per element was 12% of a word-level LSTM's
    // training step at 10000 classes, and the double exp_nonpositive that
    // replaced it still about 10%: it runs half as many lanes.
    parallel_for(n, row_grain(c * kExpCost), [&](int64_t i0, int64_t i1) {
      double e[kBlock];
      for (int64_t i = i0; i < i1; ++i) {
        const T* row = px + i * c;
        T* out = pp + i * c;
        // The row's maximum and sum in kLanes independent running values
        // (combined in a fixed order: the same bits in every kernel set): one
        // running value made each element wait for the one before.
        constexpr int64_t kLanes = 8;
        T mxl[kLanes];
        for (T& v : mxl) v = -std::numeric_limits<T>::infinity();
        int64_t j = 0;
        for (; j + kLanes <= c; j += kLanes)
          for (int64_t l = 0; l < kLanes; ++l) mxl[l] = std::max(mxl[l], row[j + l]);
        T mx = -std::numeric_limits<T>::infinity();
        for (const T v : mxl) mx = std::max(mx, v);  // max is exact: any order gives the same value
        for (; j < c; ++j) mx = std::max(mx, row[j]);
        double suml[kLanes] = {};
        for (int64_t j0 = 0; j0 < c; j0 += kBlock) {
          const int64_t m = std::min(kBlock, c - j0);
          for (int64_t k = 0; k < m; ++k) e[k] = double(ew::fast::exp(float(row[j0 + k] - mx)));
          for (int64_t k = 0; k < m; ++k) out[j0 + k] = T(e[k]);
          int64_t k = 0;
          for (; k + kLanes <= m; k += kLanes)
            for (int64_t l = 0; l < kLanes; ++l) suml[l] += e[k + l];
          for (; k < m; ++k) suml[k % kLanes] += e[k];
        }
        double sum = 0;
        for (const double v : suml) sum += v;
        const double inv = 1.0 / sum;
        for (int64_t j = 0; j < c; ++j) out[j] = T(double(out[j]) * inv);
        losses[i] = double(mx) + std::log(sum) - double(row[pt[i]]);
      }
    });
    return;
  }
  if (!flat) {
    parallel_for(n, row_grain(c * kExpCost), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
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
    });
    return;
  }
  const int64_t block_rows = kBlock / c, nblocks = (n + block_rows - 1) / block_rows;
  parallel_for(nblocks, row_grain(block_rows * c * kExpCost), [&](int64_t b0, int64_t b1) {
    double e[kBlock], mxs[kBlock];
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t i0 = b * block_rows, rows = std::min(block_rows, n - i0), m = rows * c;
      const T* x = px + i0 * c;
      for (int64_t r = 0; r < rows; ++r) {
        T mx = -std::numeric_limits<T>::infinity();
        for (int64_t j = 0; j < c; ++j) mx = std::max(mx, x[r * c + j]);
        mxs[r] = double(mx);
        for (int64_t j = 0; j < c; ++j) e[r * c + j] = double(x[r * c + j] - mx);
      }
      double* pe = e;
      for (int64_t k = 0; k < m; ++k) pe[k] = exp_nonpositive(pe[k]);
      for (int64_t r = 0; r < rows; ++r) {
        // Sums in the same order as the row loop above: the same bits.
        double sum = 0;
        for (int64_t j = 0; j < c; ++j) sum += pe[r * c + j];
        const double inv = 1.0 / sum;
        T* out = pp + (i0 + r) * c;
        for (int64_t j = 0; j < c; ++j) out[j] = T(double(T(pe[r * c + j])) * inv);
        const int64_t i = i0 + r;
        losses[i] = mxs[r] + std::log(sum) - double(px[i * c + pt[i]]);
      }
    }
  });
}

}  // namespace

// ---------------------------------------------------------------- softmax --

void softmax(const Tensor& y, const Tensor& x, int64_t dim, bool log) {
  if (y->numel() == 0) return;
  Tensor xc = tc::contiguous(x);
  TC_DISPATCH_FLOATING(x->dtype, log ? "log_softmax" : "softmax", [&] {
    softmax_kernel(xc->data_as<scalar_t>(), y->data_as<scalar_t>(), around(x->shape, dim), log);
  });
}

void softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim, bool log) {
  Tensor yc = tc::contiguous(y), gc = tc::contiguous(g);
  TC_DISPATCH_FLOATING(y->dtype, log ? "LogSoftmaxBackward" : "SoftmaxBackward", [&] {
    softmax_backward_kernel(gc->data_as<scalar_t>(), yc->data_as<scalar_t>(), gx->data_as<scalar_t>(),
                            around(y->shape, dim), log);
  });
}

// ----------------------------------------------------------------- losses --

void cross_entropy_forward(const Tensor& probs, const Tensor& losses, const Tensor& x, const Tensor& target) {
  const int64_t n = probs->shape[0], c = probs->shape[1];
  Tensor xc = tc::contiguous(x);
  TC_DISPATCH_FLOATING(x->dtype, "cross_entropy", [&] {
    using T = scalar_t;
    cross_entropy_kernel<T>(xc->data_as<T>(), target->data_as<int64_t>(), probs->data_as<T>(),
                            losses->data_as<double>(), n, c);
  });
}

void nll_forward(const Tensor& losses, const Tensor& x, const Tensor& target) {
  Tensor xc = tc::contiguous(x);
  const int64_t c = x->shape[x->ndim() - 1], n = losses->numel();
  const int64_t* pt = target->data_as<int64_t>();
  double* pl = losses->data_as<double>();
  for (int64_t i = 0; i < n; ++i) pl[i] = -read_element(xc, i * c + pt[i]);
}

void reduce_losses(const Tensor& out, const Tensor& losses, int32_t reduction) {
  const double* pl = losses->data_as<double>();
  const int64_t n = losses->numel();
  TC_DISPATCH_FLOATING(out->dtype, "loss", [&] {
    using T = scalar_t;
    T* o = out->data_as<T>();
    if (reduction == TC_REDUCTION_NONE) {
      for (int64_t i = 0; i < n; ++i) o[i] = T(pl[i]);
      return;
    }
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += pl[i];
    if (reduction == TC_REDUCTION_MEAN) sum /= double(n);  // 0/0 = NaN for N = 0, as PyTorch
    o[0] = T(sum);
  });
}

void cross_entropy_backward(const Tensor& gx, const Tensor& probs, const Tensor& target, const Tensor& g,
                            int32_t reduction) {
  const int64_t n = probs->shape[0], c = probs->shape[1];
  RowGrad rg{tc::contiguous(g), reduction, n};
  TC_DISPATCH_FLOATING(probs->dtype, "CrossEntropyBackward", [&] {
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
}

void nll_backward(const Tensor& gx, const Tensor& target, const Tensor& g, int32_t reduction) {
  const int64_t c = gx->shape[gx->ndim() - 1], n = gx->ndim() == 2 ? gx->shape[0] : 1;
  RowGrad rg{tc::contiguous(g), reduction, n};
  TC_DISPATCH_FLOATING(gx->dtype, "NllLossBackward", [&] {
    const int64_t* t = target->data_as<int64_t>();
    scalar_t* o = gx->data_as<scalar_t>();
    for (int64_t i = 0; i < n; ++i) o[i * c + t[i]] = scalar_t(-rg.at(i));
  });
}

Tensor mse_loss(const Tensor& input, const Tensor& target, int32_t reduction) {
  return TC_DISPATCH_FLOATING(input->dtype, "mse_loss", [&] {
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
}

Tensor mse_loss_backward(const Tensor& g, const Tensor& input, const Tensor& target, int32_t reduction) {
  Tensor x = tc::contiguous(input), t = tc::contiguous(target);
  const int64_t n = x->numel();
  RowGrad rg{tc::contiguous(g), reduction, n};
  Tensor gx = empty(x->shape, x->dtype);
  TC_DISPATCH_FLOATING(x->dtype, "MseLossBackward", [&] {
    using T = scalar_t;
    const T *px = x->data_as<T>(), *pt = t->data_as<T>();
    T* o = gx->data_as<T>();
    const T g0 = reduction == TC_REDUCTION_NONE ? T(0) : T(rg.at(0));
    const T* gn = reduction == TC_REDUCTION_NONE ? rg.g->data_as<T>() : nullptr;
    for (int64_t i = 0; i < n; ++i) o[i] = T(2) * (px[i] - pt[i]) * (gn ? gn[i] : g0);
  });
  return gx;
}

// --------------------------------------------------------------- indexing --

int64_t first_out_of_range(const Tensor& index, int64_t bound) {
  const int64_t* p = index->data_as<int64_t>();
  const int64_t n = index->numel();
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] < 0 || p[i] >= bound) return i;
  }
  return -1;
}

int64_t read_index(const Tensor& index, int64_t pos) { return index->data_as<int64_t>()[pos]; }

void index_gather(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index, bool index_select) {
  const int64_t* ip = index->data_as<int64_t>();
  const int64_t d = dim;
  if (!index_select) {
    const int64_t total = index->numel();
    TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "gather", [&] {
      using T = scalar_t;
      T* op = out->data_as<T>();
      const T* src = a->data_as<T>();
      const Dims& is = index->shape;
      cpu::parallel_for(total, cpu::kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t p = b; p < e; ++p) {
          int64_t rem = p, off = 0;
          for (int64_t k = is.size() - 1; k >= 0; --k) {
            const int64_t c = rem % is[k];
            rem /= is[k];
            off += (k == d ? ip[p] : c) * a->strides[k];
          }
          op[p] = src[off];
        }
      });
    });
    return;
  }
  // index_select: out[o, i, in] = a[o, ip[i], in], rows of `inner` elements.
  const Dims& os = out->shape;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= os[k];
  for (int64_t k = d + 1; k < os.size(); ++k) inner *= os[k];
  const int64_t count = os[d];
  // Whether a's dims after d are contiguous: then a row is one block.
  bool rows_contiguous = true;
  for (int64_t k = os.size() - 1, expect = 1; k > d; --k) {
    if (os[k] != 1 && a->strides[k] != expect) rows_contiguous = false;
    expect *= os[k];
  }
  dispatch_bits(a->itemsize(), "index_gather", [&](auto bits) {
    using B = decltype(bits);
    const B* src = static_cast<const B*>(a->data());
    B* dst = static_cast<B*>(out->data());
    for (int64_t o = 0; o < outer; ++o) {
      int64_t base = 0;
      for (int64_t k = d - 1, rem = o; k >= 0; --k) {
        base += (rem % os[k]) * a->strides[k];
        rem /= os[k];
      }
      for (int64_t i = 0; i < count; ++i) {
        const B* row = src + base + ip[i] * a->strides[d];
        B* to = dst + (o * count + i) * inner;
        if (rows_contiguous) {
          if (inner > 0) std::memcpy(to, row, size_t(inner) * sizeof(B));
          continue;
        }
        for (int64_t in = 0; in < inner; ++in) {
          int64_t off = 0;
          for (int64_t k = os.size() - 1, rem = in; k > d; --k) {
            off += (rem % os[k]) * a->strides[k];
            rem /= os[k];
          }
          to[in] = row[off];
        }
      }
    }
  });
}

void index_scatter_add(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& idx, bool index_select) {
  if (!index_select) {
    // gather's adjoint: gi[..., idx[p], ...] += g[p].
    Tensor gc = tc::contiguous(g), ic = tc::contiguous(idx);
    const Dims& ishape = ic->shape;
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < dim; ++k) outer *= ishape[k];
    for (int64_t k = dim + 1; k < ishape.size(); ++k) inner *= ishape[k];
    const int64_t len = ishape[dim];
    TC_DISPATCH_FLOATING(g->dtype, "scatter_grad", [&] {
      using T = scalar_t;
      const T* gp = gc->data_as<T>();
      const int64_t* ip = ic->data_as<int64_t>();
      T* op = gi->data_as<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t l = 0; l < len; ++l) {
          for (int64_t in = 0; in < inner; ++in) {
            // Index tensors can be smaller than in_shape in non-dim dims (gather):
            // address gi with its own strides.
            int64_t rem = o, off = 0;
            for (int64_t k = dim - 1; k >= 0; --k) {
              off += (rem % ishape[k]) * gi->strides[k];
              rem /= ishape[k];
            }
            rem = in;
            for (int64_t k = ishape.size() - 1; k > dim; --k) {
              off += (rem % ishape[k]) * gi->strides[k];
              rem /= ishape[k];
            }
            const int64_t p = (o * len + l) * inner + in;
            op[off + ip[p] * gi->strides[dim]] += gp[p];
          }
        }
      }
    });
    return;
  }
  // index_select's adjoint: gi[o, idx[i], in] += g[o, i, in], in index order
  // (repeated indices always sum the same way).
  Tensor gc = tc::contiguous(g);
  const Dims& gs = gi->shape;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < dim; ++k) outer *= gs[k];
  for (int64_t k = dim + 1; k < gs.size(); ++k) inner *= gs[k];
  const int64_t len = gs[dim], count = idx->numel();
  const int64_t* ip = idx->data_as<int64_t>();
  TC_DISPATCH_FLOATING(gi->dtype, "index_scatter_add", [&] {
    using T = scalar_t;
    const T* pg = gc->data_as<T>();
    T* o = gi->data_as<T>();
    for (int64_t b = 0; b < outer; ++b)
      for (int64_t i = 0; i < count; ++i)
        for (int64_t in = 0; in < inner; ++in)
          o[(b * len + ip[i]) * inner + in] += pg[(b * count + i) * inner + in];
  });
}

void one_hot(const Tensor& out, const Tensor& index, int64_t classes) {
  const int64_t* ip = index->data_as<int64_t>();
  int64_t* op = out->data_as<int64_t>();
  for (int64_t i = 0; i < index->numel(); ++i) op[i * classes + ip[i]] = 1;
}

}  // namespace tc::cpu::TC_CPU_ISA_NS
