// 2-D pooling on CUDA with the CPU's semantics (src/cpu/pool.cpp, PyTorch
// 1.13's geometry: dilation, ceil_mode output sizes, count_include_pad,
// divisor_override). max_pool2d: the first maximum of each window, a NaN
// replaces it (the last NaN stays), its flat index within the input plane
// kept for the backward; cuDNN's pooling neither makes nor takes that argmax,
// so these are libtc's kernels. Average pooling runs here when cuDNN cannot
// (its geometry beyond cuDNN's, or no cuDNN: cuda_backend.cpp chooses).
// The backwards gather (each input element sums, in output order, the
// gradients of the windows holding it): deterministic, no atomics.
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "cuda/launch.cuh"
#include "cuda/pool.h"

namespace tc::cuda {
namespace {

template <typename T>
__global__ void max_pool_forward(const T* x, T* y, int64_t* argmax, PoolGeom g) {
  const int64_t total = g.planes * g.ho * g.wo;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.wo, oh = i / g.wo % g.ho, c = i / (g.wo * g.ho);
    // PyTorch's taps: the dilated window clipped to the input.
    int64_t hs = oh * g.sh - g.ph, ws = ow * g.sw - g.pw;
    const int64_t he = hs + (g.kh - 1) * g.dh + 1 < g.h ? hs + (g.kh - 1) * g.dh + 1 : g.h;
    const int64_t we = ws + (g.kw - 1) * g.dw + 1 < g.w ? ws + (g.kw - 1) * g.dw + 1 : g.w;
    if (hs < 0) hs += (-hs + g.dh - 1) / g.dh * g.dh;  // the first taps at or after 0
    if (ws < 0) ws += (-ws + g.dw - 1) / g.dw * g.dw;
    const T* plane = x + c * g.h * g.w;
    compute_t<T> best = -compute_t<T>(INFINITY);
    int64_t at = hs * g.w + ws;
    for (int64_t ih = hs; ih < he; ih += g.dh)
      for (int64_t iw = ws; iw < we; iw += g.dw) {
        const compute_t<T> v = to_compute(plane[ih * g.w + iw]);
        if (v > best || v != v) {
          best = v;
          at = ih * g.w + iw;
        }
      }
    y[i] = from_compute<T>(best);
    argmax[i] = at;
  }
}

// The outputs [first, last] along one axis whose window (extent: span
// input elements from o * s - p) may hold input element i.
struct Holding {
  int64_t first, last;
};
__device__ inline Holding holding(int64_t i, int64_t p, int64_t span, int64_t s, int64_t out) {
  const int64_t num = i + p - span + 1;
  return {num > 0 ? (num + s - 1) / s : 0, (i + p) / s < out - 1 ? (i + p) / s : out - 1};
}

template <typename T>
__global__ void max_pool_backward(const T* gy, const int64_t* argmax, T* gx, PoolGeom g) {
  const int64_t total = g.planes * g.h * g.w;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t iw = i % g.w, ih = i / g.w % g.h, c = i / (g.w * g.h);
    const int64_t self = ih * g.w + iw;
    // The windows that may hold (ih, iw) (the argmax test picks the exact ones).
    const Holding hh = holding(ih, g.ph, (g.kh - 1) * g.dh + 1, g.sh, g.ho);
    const Holding hw = holding(iw, g.pw, (g.kw - 1) * g.dw + 1, g.sw, g.wo);
    const int64_t base = c * g.ho * g.wo;
    compute_t<T> sum = to_compute(gx[i]);
    for (int64_t oh = hh.first; oh <= hh.last; ++oh)
      for (int64_t ow = hw.first; ow <= hw.last; ++ow) {
        const int64_t o = base + oh * g.wo + ow;
        if (argmax[o] == self) sum += to_compute(gy[o]);
      }
    gx[i] = from_compute<T>(sum);
  }
}

// One axis of an average window: [begin, end) on the input and its extent
// clipped only to the padded input (count_include_pad's divisor).
struct AvgSpan {
  int64_t begin, end, padded;
};
__device__ inline AvgSpan avg_span(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p) {
  const int64_t b = o * s - p, e = b + k < in + p ? b + k : in + p;
  return {b > 0 ? b : 0, e < in ? e : in, e - b};
}
__device__ inline double avg_divisor(const PoolGeom& g, const AvgSpan& h, const AvgSpan& w) {
  if (g.divisor) return double(g.divisor);
  return g.count_include_pad ? double(h.padded * w.padded) : double((h.end - h.begin) * (w.end - w.begin));
}

template <typename T>
__global__ void avg_pool_forward(const T* x, T* y, PoolGeom g) {
  const int64_t total = g.planes * g.ho * g.wo;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.wo, oh = i / g.wo % g.ho, c = i / (g.wo * g.ho);
    const AvgSpan rh = avg_span(oh, g.h, g.kh, g.sh, g.ph), rw = avg_span(ow, g.w, g.kw, g.sw, g.pw);
    if (rh.begin >= rh.end || rw.begin >= rw.end) {
      y[i] = from_compute<T>(compute_t<T>(0));
      continue;
    }
    const T* plane = x + c * g.h * g.w;
    double s = 0;
    for (int64_t ih = rh.begin; ih < rh.end; ++ih)
      for (int64_t iw = rw.begin; iw < rw.end; ++iw) s += double(to_compute(plane[ih * g.w + iw]));
    y[i] = from_compute<T>(compute_t<T>(s / avg_divisor(g, rh, rw)));
  }
}

template <typename T>
__global__ void avg_pool_backward(const T* gy, T* gx, PoolGeom g) {
  const int64_t total = g.planes * g.h * g.w;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t iw = i % g.w, ih = i / g.w % g.h, c = i / (g.w * g.h);
    const Holding hh = holding(ih, g.ph, g.kh, g.sh, g.ho), hw = holding(iw, g.pw, g.kw, g.sw, g.wo);
    const int64_t base = c * g.ho * g.wo;
    double sum = double(to_compute(gx[i]));
    for (int64_t oh = hh.first; oh <= hh.last; ++oh) {
      const AvgSpan rh = avg_span(oh, g.h, g.kh, g.sh, g.ph);
      if (ih < rh.begin || ih >= rh.end) continue;
      for (int64_t ow = hw.first; ow <= hw.last; ++ow) {
        const AvgSpan rw = avg_span(ow, g.w, g.kw, g.sw, g.pw);
        if (iw < rw.begin || iw >= rw.end) continue;
        sum += double(to_compute(gy[base + oh * g.wo + ow])) / avg_divisor(g, rh, rw);
      }
    }
    gx[i] = from_compute<T>(compute_t<T>(sum));
  }
}

}  // namespace

void max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const PoolGeom& g) {
  launch_float_kernel(y, "max_pool2d", [&](auto t, Grid gr) {
    using T = decltype(t);
    max_pool_forward<T><<<gr.blocks, gr.threads>>>(ptr<const T>(x), ptr<T>(y), ptr<int64_t>(argmax), g);
  });
}

void max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax, const PoolGeom& g) {
  if (gy->numel() == 0) return;
  launch_float_kernel(gx, "MaxPool2DBackward", [&](auto t, Grid gr) {
    using T = decltype(t);
    max_pool_backward<T>
        <<<gr.blocks, gr.threads>>>(ptr<const T>(gy), ptr<const int64_t>(argmax), ptr<T>(gx), g);
  });
}

void avg_pool2d_direct(const Tensor& y, const Tensor& x, const PoolGeom& g) {
  launch_float_kernel(y, "avg_pool2d", [&](auto t, Grid gr) {
    using T = decltype(t);
    avg_pool_forward<T><<<gr.blocks, gr.threads>>>(ptr<const T>(x), ptr<T>(y), g);
  });
}

void avg_pool2d_direct_backward(const Tensor& gx, const Tensor& gy, const PoolGeom& g) {
  if (gy->numel() == 0) return;
  launch_float_kernel(gx, "AvgPool2DBackward", [&](auto t, Grid gr) {
    using T = decltype(t);
    avg_pool_backward<T><<<gr.blocks, gr.threads>>>(ptr<const T>(gy), ptr<T>(gx), g);
  });
}

}  // namespace tc::cuda
