// The CPU's convolution primitives (src/backend/backend.h), NCHW. float32 runs
// on oneDNN's convolution primitives (cpu/conv_onednn.h) where they measured
// faster; the rest (float64, deterministic mode) lowers each
// (sample, group) to im2col + one GEMM (cpu::gemm: oneDNN's sgemm for
// float32, the OpenMP loop for float64, which oneDNN lacks). Pooling:
// src/cpu/pool.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/init.h"
#include "cpu/conv_onednn.h"
#include "cpu/cpu_backend.h"
#include "cpu/matmul.h"

namespace tc::cpu {

namespace {

// col[((c*kd + a)*kh + i)*kw + j][(od*ho + oh)*wo + ow] =
//   x[c][od*sd - pd + a*dd][oh*sh - ph + i*dh][ow*sw - pw + j*dw] (0 outside); a 2-D
// convolution has kd = od = 1 and the depth term 0.
template <typename T>
void im2col(const T* x, T* col, const ConvGeom& g) {
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t a = 0; a < g.kd; ++a)
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) {
          T* row = col + (((c * g.kd + a) * g.kh + i) * g.kw + j) * g.plane();
          for (int64_t od = 0; od < g.od; ++od) {
            const int64_t id = od * g.sd - g.pd + a * g.dd;
            const bool din = id >= 0 && id < g.id;
            const T* xc = din ? x + (c * g.id + id) * g.h * g.w : x;
            for (int64_t oh = 0; oh < g.ho; ++oh) {
              const int64_t ih = oh * g.sh - g.ph + i * g.dh;
              const bool hin = din && ih >= 0 && ih < g.h;
              for (int64_t ow = 0; ow < g.wo; ++ow) {
                const int64_t iw = ow * g.sw - g.pw + j * g.dw;
                row[(od * g.ho + oh) * g.wo + ow] = (hin && iw >= 0 && iw < g.w) ? xc[ih * g.w + iw] : T(0);
              }
            }
          }
        }
}

// The adjoint of im2col: adds every column entry back onto its input pixel.
template <typename T>
void col2im_add(const T* col, T* x, const ConvGeom& g) {
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t a = 0; a < g.kd; ++a)
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) {
          const T* row = col + (((c * g.kd + a) * g.kh + i) * g.kw + j) * g.plane();
          for (int64_t od = 0; od < g.od; ++od) {
            const int64_t id = od * g.sd - g.pd + a * g.dd;
            if (id < 0 || id >= g.id) continue;
            T* xc = x + (c * g.id + id) * g.h * g.w;
            for (int64_t oh = 0; oh < g.ho; ++oh) {
              const int64_t ih = oh * g.sh - g.ph + i * g.dh;
              if (ih < 0 || ih >= g.h) continue;
              for (int64_t ow = 0; ow < g.wo; ++ow) {
                const int64_t iw = ow * g.sw - g.pw + j * g.dw;
                if (iw >= 0 && iw < g.w) xc[ih * g.w + iw] += row[(od * g.ho + oh) * g.wo + ow];
              }
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
      im2col(x + (n * g.c + gr * g.cg) * g.in_plane(), col.data(), g);
      T* out = y + (n * g.o + gr * g.og) * p;
      if (b) {
        for (int64_t o = 0; o < g.og; ++o) std::fill(out + o * p, out + (o + 1) * p, b[gr * g.og + o]);
      }
      gemm(false, false, g.og, p, k, T(1), w + gr * g.og * k, k, col.data(), p, b ? T(1) : T(0), out, p);
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
        gemm(true, false, k, p, g.og, T(1), wg, k, gout, p, T(0), col.data(), p);
        col2im_add(col.data(), gx + (n * g.c + gr * g.cg) * g.in_plane(), g);
      }
      if (gw) {
        // dW_g [og, k] += gout [og, p] @ col^T [p, k]
        im2col(x + (n * g.c + gr * g.cg) * g.in_plane(), col.data(), g);
        gemm(false, true, g.og, k, p, T(1), gout, p, col.data(), p, n == 0 ? T(0) : T(1), gw + gr * g.og * k,
             k);
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

}  // namespace

void CpuBackend::conv2d(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias,
                        const ConvGeom& g) const {
  const ConvNd nd = conv_nd_of(g);
  if (onednn_conv_wanted(nd, x->dtype, false) && onednn_conv_forward(y, x, w, bias, nd)) return;
  TC_DISPATCH_FLOATING(x->dtype, "conv2d", [&] {
    using T = scalar_t;
    conv_forward<T>(x->data_as<T>(), w->data_as<T>(), bias ? bias->data_as<T>() : nullptr, y->data_as<T>(),
                    g);
  });
}

void CpuBackend::conv2d_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& x,
                                 const Tensor& w, const Tensor& gy, const ConvGeom& g) const {
  const ConvNd nd = conv_nd_of(g);
  if (onednn_conv_wanted(nd, x->dtype, true) && onednn_conv_backward(gx, gw, gb, x, w, gy, nd)) return;
  TC_DISPATCH_FLOATING(x->dtype, "ConvolutionBackward", [&] {
    using T = scalar_t;
    conv_backward<T>(x->data_as<T>(), w->data_as<T>(), gy->data_as<T>(), gx ? gx->data_as<T>() : nullptr,
                     gw ? gw->data_as<T>() : nullptr, gb ? gb->data_as<T>() : nullptr, g);
  });
}

}  // namespace tc::cpu
