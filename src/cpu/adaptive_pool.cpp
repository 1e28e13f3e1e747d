// Adaptive 2-D pooling on the CPU (src/backend.h): contiguous [planes, h, w],
// PyTorch's windows (math/adaptive_pool.h), planes split across threads by
// cpu::parallel_for; each plane is one thread's, so results do not depend on
// the thread count. The average is separable: an output row first sums its
// window's input rows into a row buffer (a vectorized add along w), then each
// output sums its columns of the buffer; when every window spans whole rows
// (wo == 1: ResNet's global pool) it sums one contiguous block instead. Sums
// are double, as the fixed-window average pool's (src/cpu/pool.cpp). The
// max follows PyTorch's AdaptiveMaxPoolKernel.cpp: taps in row-major order,
// the first maximum, a NaN replaces it (the last NaN stays).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/loops.h"
#include "init.h"

namespace tc::cpu {
namespace {

// Planes per thread chunk: a plane's work is about max(input, output) elements.
int64_t plane_grain(const AdaptivePoolGeom& g) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>({g.h * g.w, g.ho * g.wo, 1}));
}

// One output row's window of input rows, [begin, end).
struct Rows {
  int64_t begin, end;
};
Rows window_rows(int64_t oh, const AdaptivePoolGeom& g) {
  return {adaptive_begin(oh, g.h, g.ho), adaptive_end(oh, g.h, g.ho)};
}

template <typename T>
void avg_plane(const T* x, T* y, const AdaptivePoolGeom& g, double* row) {
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const Rows r = window_rows(oh, g);
    if (g.wo == 1) {
      const T* block = x + r.begin * g.w;
      const int64_t n = (r.end - r.begin) * g.w;
      double s = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t i = 0; i < n; ++i) s += double(block[i]);
      y[oh] = T(s / double(n));
      continue;
    }
    std::fill(row, row + g.w, 0.0);
    for (int64_t ih = r.begin; ih < r.end; ++ih) {
      const T* in = x + ih * g.w;
#pragma omp simd
      for (int64_t iw = 0; iw < g.w; ++iw) row[iw] += double(in[iw]);
    }
    const double kh = double(r.end - r.begin);
    T* yr = y + oh * g.wo;
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const int64_t ws = adaptive_begin(ow, g.w, g.wo), we = adaptive_end(ow, g.w, g.wo);
      double s = 0;
      for (int64_t iw = ws; iw < we; ++iw) s += row[iw];
      yr[ow] = T(s / (kh * double(we - ws)));
    }
  }
}

template <typename T>
void avg_forward(const T* px, T* py, const AdaptivePoolGeom& g) {
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    std::vector<double> row(g.wo == 1 ? 0 : size_t(g.w));
    for (int64_t c = lo; c < hi; ++c) avg_plane(px + c * g.h * g.w, py + c * g.ho * g.wo, g, row.data());
  });
}

// gx's plane: each output's gradient / its window size, summed over the
// windows holding each input (windows of neighbouring outputs may overlap).
template <typename T>
void avg_backward_plane(const T* gy, T* gx, const AdaptivePoolGeom& g, double* row) {
  if (g.ho == 1 && g.wo == 1) {  // the global pool: one window, the whole plane
    std::fill(gx, gx + g.h * g.w, T(double(gy[0]) / double(g.h * g.w)));
    return;
  }
  std::fill(gx, gx + g.h * g.w, T(0));
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const Rows r = window_rows(oh, g);
    const double kh = double(r.end - r.begin);
    if (g.wo == 1) {
      T* block = gx + r.begin * g.w;
      const int64_t n = (r.end - r.begin) * g.w;
      const T v = T(double(gy[oh]) / double(n));
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) block[i] += v;
      continue;
    }
    std::fill(row, row + g.w, 0.0);
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const int64_t ws = adaptive_begin(ow, g.w, g.wo), we = adaptive_end(ow, g.w, g.wo);
      const double v = double(gy[oh * g.wo + ow]) / (kh * double(we - ws));
      for (int64_t iw = ws; iw < we; ++iw) row[iw] += v;
    }
    for (int64_t ih = r.begin; ih < r.end; ++ih) {
      T* out = gx + ih * g.w;
#pragma omp simd
      for (int64_t iw = 0; iw < g.w; ++iw) out[iw] += T(row[iw]);
    }
  }
}

template <typename T>
void avg_backward(const T* pg, T* pgx, const AdaptivePoolGeom& g) {
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    std::vector<double> row(g.wo == 1 ? 0 : size_t(g.w));
    for (int64_t c = lo; c < hi; ++c)
      avg_backward_plane(pg + c * g.ho * g.wo, pgx + c * g.h * g.w, g, row.data());
  });
}

template <typename T>
void max_forward(const T* px, T* py, int64_t* pa, const AdaptivePoolGeom& g) {
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      const T* plane = px + c * g.h * g.w;
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        const Rows r = window_rows(oh, g);
        for (int64_t ow = 0; ow < g.wo; ++ow) {
          const int64_t ws = adaptive_begin(ow, g.w, g.wo), we = adaptive_end(ow, g.w, g.wo);
          T best = -std::numeric_limits<T>::infinity();
          int64_t at = r.begin * g.w + ws;
          for (int64_t ih = r.begin; ih < r.end; ++ih) {
            const T* in = plane + ih * g.w;
            for (int64_t iw = ws; iw < we; ++iw) {
              const T v = in[iw];
              if (v > best || std::isnan(v)) {
                best = v;
                at = ih * g.w + iw;
              }
            }
          }
          const int64_t o = (c * g.ho + oh) * g.wo + ow;
          py[o] = best;
          pa[o] = at;
        }
      }
    }
  });
}

template <typename T>
void max_backward(const T* pg, const int64_t* pa, T* pgx, const AdaptivePoolGeom& g) {
  const int64_t po = g.ho * g.wo, pi = g.h * g.w;
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      T* plane = pgx + c * pi;
      std::fill(plane, plane + pi, T(0));
      for (int64_t o = 0; o < po; ++o) {
        const int64_t at = pa[c * po + o];
        if (at >= 0 && at < pi) plane[at] += pg[c * po + o];  // (always: the forward's argmax)
      }
    }
  });
}

}  // namespace

void CpuBackend::adaptive_avg_pool2d(const Tensor& y, const Tensor& x, const AdaptivePoolGeom& g) const {
  TC_DISPATCH_FLOATING(x->dtype, "adaptive_avg_pool2d",
                       [&] { avg_forward(x->data_as<scalar_t>(), y->data_as<scalar_t>(), g); });
}

void CpuBackend::adaptive_avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const AdaptivePoolGeom& g) const {
  TC_DISPATCH_FLOATING(gx->dtype, "AdaptiveAvgPool2DBackward",
                       [&] { avg_backward(gy->data_as<scalar_t>(), gx->data_as<scalar_t>(), g); });
}

void CpuBackend::adaptive_max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x,
                                     const AdaptivePoolGeom& g) const {
  TC_DISPATCH_FLOATING(x->dtype, "adaptive_max_pool2d", [&] {
    max_forward(x->data_as<scalar_t>(), y->data_as<scalar_t>(), argmax->data_as<int64_t>(), g);
  });
}

void CpuBackend::adaptive_max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                                              const AdaptivePoolGeom& g) const {
  TC_DISPATCH_FLOATING(gx->dtype, "AdaptiveMaxPool2DBackward", [&] {
    max_backward(gy->data_as<scalar_t>(), argmax->data_as<int64_t>(), gx->data_as<scalar_t>(), g);
  });
}

}  // namespace tc::cpu
