// Adaptive 2-D pooling on CUDA with the CPU's semantics (src/cpu/adaptive_pool.cpp:
// PyTorch's windows, math/adaptive_pool.h; the max keeps the first maximum, a
// NaN replaces it, the last NaN stays). One thread per output for the
// forwards; the backwards gather (each input element sums, in output order,
// the gradients of the windows holding it): deterministic, no atomics.
#include <cuda_runtime.h>

#include "cuda/adaptive_pool.h"
#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "cuda/launch.cuh"

namespace tc::cuda {
namespace {

template <typename T>
__global__ void avg_forward(const T* x, T* y, AdaptivePoolGeom g) {
  const int64_t total = g.planes * g.ho * g.wo;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.wo, oh = i / g.wo % g.ho, c = i / (g.wo * g.ho);
    const int64_t hs = adaptive_begin(oh, g.h, g.ho), he = adaptive_end(oh, g.h, g.ho);
    const int64_t ws = adaptive_begin(ow, g.w, g.wo), we = adaptive_end(ow, g.w, g.wo);
    const T* plane = x + c * g.h * g.w;
    double s = 0;
    for (int64_t ih = hs; ih < he; ++ih)
      for (int64_t iw = ws; iw < we; ++iw) s += double(to_compute(plane[ih * g.w + iw]));
    y[i] = from_compute<T>(compute_t<T>(s / double((he - hs) * (we - ws))));
  }
}

template <typename T>
__global__ void avg_backward(const T* gy, T* gx, AdaptivePoolGeom g) {
  const int64_t total = g.planes * g.h * g.w;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t iw = i % g.w, ih = i / g.w % g.h, c = i / (g.w * g.h);
    const int64_t oh0 = adaptive_first_holding(ih, g.h, g.ho), oh1 = adaptive_last_holding(ih, g.h, g.ho);
    const int64_t ow0 = adaptive_first_holding(iw, g.w, g.wo), ow1 = adaptive_last_holding(iw, g.w, g.wo);
    const T* plane = gy + c * g.ho * g.wo;
    double sum = 0;
    for (int64_t oh = oh0; oh <= oh1; ++oh) {
      const int64_t kh = adaptive_end(oh, g.h, g.ho) - adaptive_begin(oh, g.h, g.ho);
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        const int64_t kw = adaptive_end(ow, g.w, g.wo) - adaptive_begin(ow, g.w, g.wo);
        sum += double(to_compute(plane[oh * g.wo + ow])) / double(kh * kw);
      }
    }
    gx[i] = from_compute<T>(compute_t<T>(sum));
  }
}

template <typename T>
__global__ void max_forward(const T* x, T* y, int64_t* argmax, AdaptivePoolGeom g) {
  const int64_t total = g.planes * g.ho * g.wo;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.wo, oh = i / g.wo % g.ho, c = i / (g.wo * g.ho);
    const int64_t hs = adaptive_begin(oh, g.h, g.ho), he = adaptive_end(oh, g.h, g.ho);
    const int64_t ws = adaptive_begin(ow, g.w, g.wo), we = adaptive_end(ow, g.w, g.wo);
    const T* plane = x + c * g.h * g.w;
    compute_t<T> best = -compute_t<T>(INFINITY);
    int64_t at = hs * g.w + ws;
    for (int64_t ih = hs; ih < he; ++ih)
      for (int64_t iw = ws; iw < we; ++iw) {
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

template <typename T>
__global__ void max_backward(const T* gy, const int64_t* argmax, T* gx, AdaptivePoolGeom g) {
  const int64_t total = g.planes * g.h * g.w;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t iw = i % g.w, ih = i / g.w % g.h, c = i / (g.w * g.h);
    const int64_t self = ih * g.w + iw, base = c * g.ho * g.wo;
    const int64_t oh0 = adaptive_first_holding(ih, g.h, g.ho), oh1 = adaptive_last_holding(ih, g.h, g.ho);
    const int64_t ow0 = adaptive_first_holding(iw, g.w, g.wo), ow1 = adaptive_last_holding(iw, g.w, g.wo);
    compute_t<T> sum = compute_t<T>(0);
    for (int64_t oh = oh0; oh <= oh1; ++oh)
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        const int64_t o = base + oh * g.wo + ow;
        if (argmax[o] == self) sum += to_compute(gy[o]);
      }
    gx[i] = from_compute<T>(sum);
  }
}

}  // namespace

void adaptive_avg_pool2d(const Tensor& y, const Tensor& x, const AdaptivePoolGeom& g) {
  launch_float_kernel(y, "adaptive_avg_pool2d", [&](auto t, Grid gr) {
    using T = decltype(t);
    avg_forward<T><<<gr.blocks, gr.threads>>>(ptr<const T>(x), ptr<T>(y), g);
  });
}

void adaptive_avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const AdaptivePoolGeom& g) {
  launch_float_kernel(gx, "AdaptiveAvgPool2DBackward", [&](auto t, Grid gr) {
    using T = decltype(t);
    avg_backward<T><<<gr.blocks, gr.threads>>>(ptr<const T>(gy), ptr<T>(gx), g);
  });
}

void adaptive_max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const AdaptivePoolGeom& g) {
  launch_float_kernel(y, "adaptive_max_pool2d", [&](auto t, Grid gr) {
    using T = decltype(t);
    max_forward<T><<<gr.blocks, gr.threads>>>(ptr<const T>(x), ptr<T>(y), ptr<int64_t>(argmax), g);
  });
}

void adaptive_max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                                  const AdaptivePoolGeom& g) {
  launch_float_kernel(gx, "AdaptiveMaxPool2DBackward", [&](auto t, Grid gr) {
    using T = decltype(t);
    max_backward<T><<<gr.blocks, gr.threads>>>(ptr<const T>(gy), ptr<const int64_t>(argmax), ptr<T>(gx), g);
  });
}

}  // namespace tc::cuda
