// The CPU's 2-D pooling primitives (src/backend/backend.h), NCHW, with PyTorch
// 1.13's whole geometry (math/conv_geom.h's PoolGeom: dilation, the
// ceil_mode output sizes the ops compute, count_include_pad and
// divisor_override), so max_pool2d_with_indices and avg_pool2d_ex run
// here rather than as gathers of window tables. The windows and the order of
// their taps are PyTorch's (aten/src/ATen/native/cpu/{Max,Avg}PoolKernel.cpp):
// the max keeps the first maximum, a NaN replaces it (the last NaN stays).
// Each output row's tap ranges are computed once per plane row, not per tap.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/init.h"
#include "cpu/cpu_backend.h"
#include "cpu/loops.h"

namespace tc::cpu {
namespace {

// The taps of one output index along one axis: [begin, end) stepping d.
struct Span {
  int64_t begin, end;
};
// Max pooling: the dilated window clipped to the input, its first tap moved
// onto the input.
std::vector<Span> max_spans(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  std::vector<Span> v(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    int64_t b = o * s - p;
    const int64_t e = std::min(b + (k - 1) * d + 1, in);
    if (b < 0) b += (-b + d - 1) / d * d;  // the first tap at or after 0
    v[size_t(o)] = {b, e};
  }
  return v;
}

// Average pooling: the window clipped to the input, and its extent clipped
// only to the padded input (count_include_pad's divisor).
struct AvgSpan {
  int64_t begin, end, padded;
};
std::vector<AvgSpan> avg_spans(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p) {
  std::vector<AvgSpan> v(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const int64_t b = o * s - p, e = std::min(b + k, in + p);
    v[size_t(o)] = {std::max<int64_t>(b, 0), std::min(e, in), e - b};
  }
  return v;
}

double avg_divisor(const PoolGeom& g, const AvgSpan& h, const AvgSpan& w) {
  if (g.divisor) return double(g.divisor);
  return g.count_include_pad ? double(h.padded * w.padded) : double((h.end - h.begin) * (w.end - w.begin));
}

// Planes per thread chunk.
int64_t plane_grain(const PoolGeom& g) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(g.ho * g.wo * g.kh * g.kw, 1));
}

// The outputs [lo, hi) along one axis whose windows lie wholly on the input.
struct Interior {
  int64_t lo, hi;
};
Interior interior(int64_t out, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  const int64_t lo = std::min(out, (p + s - 1) / s);
  const int64_t last = in - 1 + p - (k - 1) * d;  // o * s <= last
  const int64_t hi = last < 0 ? lo : std::clamp<int64_t>(last / s + 1, lo, out);
  return {lo, hi};
}

// One output's max over its clipped window, PyTorch's tap order.
template <typename T>
inline void max_window(const T* plane, const PoolGeom& g, Span rh, Span rw, T& y, int64_t& a) {
  T best = -std::numeric_limits<T>::infinity();
  int64_t at = rh.begin * g.w + rw.begin;
  for (int64_t ih = rh.begin; ih < rh.end; ih += g.dh) {
    const T* row = plane + ih * g.w;
    for (int64_t iw = rw.begin; iw < rw.end; iw += g.dw) {
      const T v = row[iw];
      if (v > best || std::isnan(v)) {
        best = v;
        at = ih * g.w + iw;
      }
    }
  }
  y = best;
  a = at;
}

template <typename T>
void max_pool_forward(const T* px, T* py, int64_t* pa, const PoolGeom& g) {
  const std::vector<Span> sh = max_spans(g.ho, g.h, g.kh, g.sh, g.ph, g.dh);
  const std::vector<Span> sw = max_spans(g.wo, g.w, g.kw, g.sw, g.pw, g.dw);
  const Interior ih_in = interior(g.ho, g.h, g.kh, g.sh, g.ph, g.dh);
  const Interior iw_in = interior(g.wo, g.w, g.kw, g.sw, g.pw, g.dw);
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    std::vector<int32_t> tap(static_cast<size_t>(g.wo));
    for (int64_t c = lo; c < hi; ++c) {
      const T* plane = px + c * g.h * g.w;
      T* y = py + c * g.ho * g.wo;
      int64_t* a = pa + c * g.ho * g.wo;
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        T* yr = y + oh * g.wo;
        int64_t* ar = a + oh * g.wo;
        const Span rh = sh[size_t(oh)];
        // (tap numbers are int32: the vector lanes of float32)
        const bool full_rows = oh >= ih_in.lo && oh < ih_in.hi && g.kh * g.kw <= INT32_MAX;
        const int64_t vlo = full_rows ? iw_in.lo : g.wo, vhi = full_rows ? iw_in.hi : g.wo;
        for (int64_t ow = 0; ow < g.wo; ++ow)
          if (ow < vlo || ow >= vhi) max_window(plane, g, rh, sw[size_t(ow)], yr[ow], ar[ow]);
        if (vlo >= vhi) continue;
        // Windows wholly on the input: tap by tap over the row of outputs,
        // branch-free selects the compiler vectorizes (same taps, same order,
        // same rule as max_window); the winning tap's number becomes its index.
        for (int64_t ow = vlo; ow < vhi; ++ow) {
          yr[ow] = -std::numeric_limits<T>::infinity();
          tap[size_t(ow)] = 0;
        }
        int32_t* tp = tap.data();
        for (int64_t i = 0; i < g.kh; ++i) {
          const T* row = plane + (oh * g.sh - g.ph + i * g.dh) * g.w - g.pw;
          for (int64_t j = 0; j < g.kw; ++j) {
            const T* src = row + j * g.dw;
            const int32_t t = int32_t(i * g.kw + j);
#pragma omp simd
            for (int64_t ow = vlo; ow < vhi; ++ow) {
              const T v = src[ow * g.sw];
              const bool take = v > yr[ow] || v != v;
              yr[ow] = take ? v : yr[ow];
              tp[ow] = take ? t : tp[ow];
            }
          }
        }
        for (int64_t ow = vlo; ow < vhi; ++ow) {
          const int64_t t = tp[ow];
          ar[ow] = (oh * g.sh - g.ph + (t / g.kw) * g.dh) * g.w + ow * g.sw - g.pw + (t % g.kw) * g.dw;
        }
      }
    }
  });
}

template <typename T>
void max_pool_backward(const T* pg, const int64_t* pa, T* o, const PoolGeom& g) {
  const int64_t po = g.ho * g.wo, pi = g.h * g.w;
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c)
      for (int64_t i = 0; i < po; ++i) {
        const int64_t at = pa[c * po + i];
        // A window with no tap on the input (dilation past a 1-wide input)
        // points outside its plane, as PyTorch's does: no gradient.
        if (at >= 0 && at < pi) o[c * pi + at] += pg[c * po + i];
      }
  });
}

// Calls f(c, o, rh, rw) for every output o (flat within its plane c) with
// its window's spans (which may be empty), planes split across threads.
template <typename F>
void each_avg_window(const PoolGeom& g, F&& f) {
  const std::vector<AvgSpan> sh = avg_spans(g.ho, g.h, g.kh, g.sh, g.ph);
  const std::vector<AvgSpan> sw = avg_spans(g.wo, g.w, g.kw, g.sw, g.pw);
  parallel_for(g.planes, plane_grain(g), [&](int64_t lo, int64_t hi) {
    for (int64_t c = lo; c < hi; ++c)
      for (int64_t oh = 0; oh < g.ho; ++oh)
        for (int64_t ow = 0; ow < g.wo; ++ow) f(c, oh * g.wo + ow, sh[size_t(oh)], sw[size_t(ow)]);
  });
}

bool empty_window(const AvgSpan& rh, const AvgSpan& rw) { return rh.begin >= rh.end || rw.begin >= rw.end; }

template <typename T>
void avg_pool_forward(const T* px, T* py, const PoolGeom& g) {
  each_avg_window(g, [&](int64_t c, int64_t o, const AvgSpan& rh, const AvgSpan& rw) {
    T* y = py + c * g.ho * g.wo + o;
    if (empty_window(rh, rw)) {
      *y = T(0);
      return;
    }
    const T* plane = px + c * g.h * g.w;
    double s = 0;
    for (int64_t ih = rh.begin; ih < rh.end; ++ih)
      for (int64_t iw = rw.begin; iw < rw.end; ++iw) s += double(plane[ih * g.w + iw]);
    *y = T(s / avg_divisor(g, rh, rw));
  });
}

template <typename T>
void avg_pool_backward(const T* pg, T* o, const PoolGeom& g) {
  each_avg_window(g, [&](int64_t c, int64_t out, const AvgSpan& rh, const AvgSpan& rw) {
    if (empty_window(rh, rw)) return;
    T* plane = o + c * g.h * g.w;
    const T v = T(double(pg[c * g.ho * g.wo + out]) / avg_divisor(g, rh, rw));
    for (int64_t ih = rh.begin; ih < rh.end; ++ih)
      for (int64_t iw = rw.begin; iw < rw.end; ++iw) plane[ih * g.w + iw] += v;
  });
}

}  // namespace

void CpuBackend::max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const PoolGeom& g) const {
  TC_DISPATCH_FLOATING(x->dtype, "max_pool2d", [&] {
    max_pool_forward(x->data_as<scalar_t>(), y->data_as<scalar_t>(), argmax->data_as<int64_t>(), g);
  });
}

void CpuBackend::max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                                     const PoolGeom& g) const {
  TC_DISPATCH_FLOATING(gx->dtype, "MaxPool2DBackward", [&] {
    max_pool_backward(gy->data_as<scalar_t>(), argmax->data_as<int64_t>(), gx->data_as<scalar_t>(), g);
  });
}

void CpuBackend::avg_pool2d(const Tensor& y, const Tensor& x, const PoolGeom& g) const {
  TC_DISPATCH_FLOATING(x->dtype, "avg_pool2d",
                       [&] { avg_pool_forward(x->data_as<scalar_t>(), y->data_as<scalar_t>(), g); });
}

void CpuBackend::avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const PoolGeom& g) const {
  TC_DISPATCH_FLOATING(gx->dtype, "AvgPool2DBackward",
                       [&] { avg_pool_backward(gy->data_as<scalar_t>(), gx->data_as<scalar_t>(), g); });
}

}  // namespace tc::cpu
