// Adaptive 2-D pooling on the CPU (src/backend/backend.h): contiguous [planes, h, w],
// PyTorch's windows (math/adaptive_pool.h), planes split across threads by
// cpu::parallel_for; each plane is one thread's, so results do not depend on
// the thread count. Sums are in the input's type, as PyTorch's kernels sum
// (float for float32), over independent lanes (several vector accumulators,
// fewer rounding steps than one running sum). The average is separable: an
// output row first sums its window's input rows into a row buffer (a
// vectorized add along w), then each output sums its columns of the buffer;
// when every window spans whole rows (wo == 1: ResNet's global pool) it sums
// one contiguous block instead. The max follows PyTorch's
// AdaptiveMaxPoolKernel.cpp (taps in row-major order, the first maximum, a
// NaN replaces it and the last NaN stays), computed branch-free in lanes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/init.h"
#include "cpu/cpu_backend.h"
#include "cpu/loops.h"

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

// Independent accumulators of the block sums: two vectors of float lanes on
// baseline x86-64, combined by a fixed tree (a running chain of lane adds
// would cost more than the 7x7 plane of ResNet's head itself).
constexpr int kSumLanes = 8;

// The sum of n contiguous elements, in a fixed order.
template <typename T>
T block_sum(const T* p, int64_t n) {
  T acc[kSumLanes] = {};
  int64_t i = 0;
  for (; i + kSumLanes <= n; i += kSumLanes) {
#pragma omp simd
    for (int l = 0; l < kSumLanes; ++l) acc[l] += p[i + l];
  }
  for (int l = 0; i + l < n; ++l) acc[l] += p[i + l];
  for (int width = kSumLanes / 2; width > 0; width /= 2) {
#pragma omp simd
    for (int l = 0; l < width; ++l) acc[l] += acc[l + width];
  }
  return acc[0];
}

template <typename T>
void avg_plane(const T* x, T* y, const AdaptivePoolGeom& g, T* row) {
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const Rows r = window_rows(oh, g);
    if (g.wo == 1) {
      const int64_t n = (r.end - r.begin) * g.w;
      y[oh] = T(double(block_sum(x + r.begin * g.w, n)) / double(n));
      continue;
    }
    std::fill(row, row + g.w, T(0));
    for (int64_t ih = r.begin; ih < r.end; ++ih) {
      const T* in = x + ih * g.w;
#pragma omp simd
      for (int64_t iw = 0; iw < g.w; ++iw) row[iw] += in[iw];
    }
    const double kh = double(r.end - r.begin);
    T* yr = y + oh * g.wo;
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const int64_t ws = adaptive_begin(ow, g.w, g.wo), we = adaptive_end(ow, g.w, g.wo);
      T s = 0;
      for (int64_t iw = ws; iw < we; ++iw) s += row[iw];
      yr[ow] = T(double(s) / (kh * double(we - ws)));
    }
  }
}

template <typename T>
void avg_forward(const T* px, T* py, const AdaptivePoolGeom& g) {
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    std::vector<T> row(g.wo == 1 ? 0 : size_t(g.w));
    for (int64_t c = lo; c < hi; ++c) avg_plane(px + c * g.h * g.w, py + c * g.ho * g.wo, g, row.data());
  });
}

// gx's plane: each output's gradient / its window size, summed over the
// windows holding each input (windows of neighbouring outputs may overlap).
template <typename T>
void avg_backward_plane(const T* gy, T* gx, const AdaptivePoolGeom& g, T* row) {
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
    std::fill(row, row + g.w, T(0));
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const int64_t ws = adaptive_begin(ow, g.w, g.wo), we = adaptive_end(ow, g.w, g.wo);
      const T v = T(double(gy[oh * g.wo + ow]) / (kh * double(we - ws)));
      for (int64_t iw = ws; iw < we; ++iw) row[iw] += v;
    }
    for (int64_t ih = r.begin; ih < r.end; ++ih) {
      T* out = gx + ih * g.w;
#pragma omp simd
      for (int64_t iw = 0; iw < g.w; ++iw) out[iw] += row[iw];
    }
  }
}

template <typename T>
void avg_backward(const T* pg, T* pgx, const AdaptivePoolGeom& g) {
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    std::vector<T> row(g.wo == 1 ? 0 : size_t(g.w));
    for (int64_t c = lo; c < hi; ++c)
      avg_backward_plane(pg + c * g.ho * g.wo, pgx + c * g.h * g.w, g, row.data());
  });
}

// The max's lanes: as many as a row of a typical window has taps (8: a
// 56 -> 7 pool), each a multiple of the vector width.
constexpr int kMaxLanes = 8;

// The sequential rule on one tap: PyTorch's `v > best || isnan(v)`.
template <typename T>
inline bool takes(T v, T best) {
  return v > best || v != v;
}

// The max of one window: rows of kw taps starting at first + r * stride
// (r < nrows), flat indices base + r * stride + j. Lane l takes the taps j
// = l, l + kMaxLanes, ... of every row, so it sees its taps in increasing
// order and keeps, by the sequential rule, its own first maximum or last
// NaN; those combine into the window's: the last NaN of any lane, else the
// largest value at its smallest position. Positions are window-local (r * kw
// + j) in an integer as wide as T, so the lanes' selects vectorize; a window
// of 2^31 taps or more takes the plain loop.
template <typename T>
void window_max(const T* first, int64_t base, int64_t nrows, int64_t kw, int64_t stride, T& y, int64_t& at) {
  using Pos = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  if (nrows * kw > int64_t(INT32_MAX)) {
    T best = -std::numeric_limits<T>::infinity();
    at = base;
    for (int64_t r = 0; r < nrows; ++r)
      for (int64_t j = 0; j < kw; ++j)
        if (takes(first[r * stride + j], best)) best = first[r * stride + j], at = base + r * stride + j;
    y = best;
    return;
  }
  T best[kMaxLanes];
  Pos pos[kMaxLanes];
  for (int l = 0; l < kMaxLanes; ++l) best[l] = -std::numeric_limits<T>::infinity(), pos[l] = -1;
  for (int64_t r = 0; r < nrows; ++r) {
    const T* row = first + r * stride;
    const Pos row_pos = Pos(r * kw);
    int64_t j = 0;
    for (; j + kMaxLanes <= kw; j += kMaxLanes) {
      const Pos p0 = row_pos + Pos(j);
#pragma omp simd
      for (int l = 0; l < kMaxLanes; ++l) {
        const T v = row[j + l];
        const bool take = takes(v, best[l]);
        best[l] = take ? v : best[l];
        pos[l] = take ? Pos(p0 + l) : pos[l];
      }
    }
    for (int l = 0; j + l < kw; ++l)
      if (takes(row[j + l], best[l])) best[l] = row[j + l], pos[l] = Pos(row_pos + j + l);
  }
  // A lane that took a tap holds a value above -inf or a NaN; with none
  // taken (every tap -inf), the sequential rule keeps the first tap.
  int nan_lane = -1, max_lane = -1;
  for (int l = 0; l < kMaxLanes; ++l) {
    if (pos[l] < 0) continue;
    if (best[l] != best[l]) {
      if (nan_lane < 0 || pos[l] > pos[nan_lane]) nan_lane = l;
    } else if (max_lane < 0 || best[l] > best[max_lane] ||
               (best[l] == best[max_lane] && pos[l] < pos[max_lane])) {
      max_lane = l;
    }
  }
  const int lane = nan_lane >= 0 ? nan_lane : max_lane;
  y = lane >= 0 ? best[lane] : -std::numeric_limits<T>::infinity();
  at = lane >= 0 ? base + int64_t(pos[lane]) / kw * stride + int64_t(pos[lane]) % kw : base;
}

template <typename T>
void max_forward(const T* px, T* py, int64_t* pa, const AdaptivePoolGeom& g) {
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c) {
      const T* plane = px + c * g.h * g.w;
      T* y = py + c * g.ho * g.wo;
      int64_t* a = pa + c * g.ho * g.wo;
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        const Rows r = window_rows(oh, g);
        if (g.wo == 1) {  // whole rows: one contiguous run of taps
          window_max(plane + r.begin * g.w, r.begin * g.w, 1, (r.end - r.begin) * g.w, 0, y[oh], a[oh]);
          continue;
        }
        for (int64_t ow = 0; ow < g.wo; ++ow) {
          const int64_t ws = adaptive_begin(ow, g.w, g.wo), we = adaptive_end(ow, g.w, g.wo);
          window_max(plane + r.begin * g.w + ws, r.begin * g.w + ws, r.end - r.begin, we - ws, g.w,
                     y[oh * g.wo + ow], a[oh * g.wo + ow]);
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
  if (g.ho == 1 && g.wo == 1) {
    // The global pool (ResNet's head) is each plane's mean: the reduction
    // kernels, compiled per instruction set, sum short rows faster than a
    // per-plane loop of this baseline file.
    const int64_t hw = g.h * g.w;
    reduce(ReduceKind::sum, make_view(y, {g.planes, 1}, {1, 1}, y->offset),
           make_view(x, {g.planes, hw}, {hw, 1}, x->offset), 1.0 / double(hw), false);
    return;
  }
  TC_DISPATCH_FLOATING(x->dtype, "adaptive_avg_pool2d",
                       [&] { avg_forward(x->data_as<scalar_t>(), y->data_as<scalar_t>(), g); });
}

void CpuBackend::adaptive_avg_pool2d_backward(const Tensor& gx, const Tensor& gy,
                                              const AdaptivePoolGeom& g) const {
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
