// max_pool2d on CUDA, forward and backward, with the CPU's semantics
// (src/cpu/conv.cpp): the first maximum of each window (a NaN wins and
// stays), its flat index within the input plane kept for the backward. cuDNN's
// pooling neither makes nor takes that argmax, so these are libtc's kernels.
// The backward gathers (each input element sums, in output order, the
// gradients of the windows whose argmax it is): deterministic, no atomics.
#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "cuda/pool.h"

namespace tc::cuda {
namespace {

template <typename T>
__global__ void max_pool_forward(const T* x, T* y, int64_t* argmax, PoolGeom g) {
  const int64_t total = g.planes * g.ho * g.wo;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.wo, oh = i / g.wo % g.ho, c = i / (g.wo * g.ho);
    const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
    const int64_t hs = h0 > 0 ? h0 : 0, ws = w0 > 0 ? w0 : 0;
    const int64_t he = h0 + g.kh < g.h ? h0 + g.kh : g.h, we = w0 + g.kw < g.w ? w0 + g.kw : g.w;
    const T* plane = x + c * g.h * g.w;
    compute_t<T> best = -compute_t<T>(INFINITY);
    int64_t at = hs * g.w + ws;
    bool found_nan = false;
    for (int64_t ih = hs; ih < he && !found_nan; ++ih)
      for (int64_t iw = ws; iw < we; ++iw) {
        const compute_t<T> v = to_compute(plane[ih * g.w + iw]);
        if (v > best || v != v) {
          best = v;
          at = ih * g.w + iw;
          if (v != v) {
            found_nan = true;
            break;
          }
        }
      }
    y[i] = from_compute<T>(best);
    argmax[i] = at;
  }
}

template <typename T>
__global__ void max_pool_backward(const T* gy, const int64_t* argmax, T* gx, PoolGeom g) {
  const int64_t total = g.planes * g.h * g.w;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t iw = i % g.w, ih = i / g.w % g.h, c = i / (g.w * g.h);
    const int64_t self = ih * g.w + iw;
    // The windows holding (ih, iw): oh * sh - ph <= ih < oh * sh - ph + kh.
    const int64_t hnum = ih + g.ph - g.kh + 1, wnum = iw + g.pw - g.kw + 1;
    const int64_t oh0 = hnum > 0 ? (hnum + g.sh - 1) / g.sh : 0,
                  ow0 = wnum > 0 ? (wnum + g.sw - 1) / g.sw : 0;
    const int64_t oh1 = (ih + g.ph) / g.sh < g.ho - 1 ? (ih + g.ph) / g.sh : g.ho - 1;
    const int64_t ow1 = (iw + g.pw) / g.sw < g.wo - 1 ? (iw + g.pw) / g.sw : g.wo - 1;
    const int64_t base = c * g.ho * g.wo;
    compute_t<T> sum = to_compute(gx[i]);
    for (int64_t oh = oh0; oh <= oh1; ++oh)
      for (int64_t ow = ow0; ow <= ow1; ++ow) {
        const int64_t o = base + oh * g.wo + ow;
        if (argmax[o] == self) sum += to_compute(gy[o]);
      }
    gx[i] = from_compute<T>(sum);
  }
}

struct Grid {
  int blocks, threads;
};
Grid grid_for(int64_t n) {
  const int threads = 256;
  const int64_t blocks64 = (n + threads - 1) / threads;
  return {int(blocks64 < 65535 * 8 ? blocks64 : 65535 * 8), threads};
}

}  // namespace

void max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const PoolGeom& g) {
  const int64_t n = y->numel();
  if (n == 0) return;
  TC_CUDA_CHECK(cudaSetDevice(device_index(y->device)));
  const Grid gr = grid_for(n);
  dispatch_float(x->dtype, "max_pool2d", [&](auto t) {
    using T = decltype(t);
    max_pool_forward<T><<<gr.blocks, gr.threads>>>(static_cast<const T*>(x->data()),
                                                   static_cast<T*>(y->data()),
                                                   static_cast<int64_t*>(argmax->data()), g);
  });
  TC_CUDA_CHECK(cudaGetLastError());
}

void max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax, const PoolGeom& g) {
  const int64_t n = gx->numel();
  if (n == 0 || gy->numel() == 0) return;
  TC_CUDA_CHECK(cudaSetDevice(device_index(gx->device)));
  const Grid gr = grid_for(n);
  dispatch_float(gx->dtype, "MaxPool2DBackward", [&](auto t) {
    using T = decltype(t);
    max_pool_backward<T><<<gr.blocks, gr.threads>>>(static_cast<const T*>(gy->data()),
                                                    static_cast<const int64_t*>(argmax->data()),
                                                    static_cast<T*>(gx->data()), g);
  });
  TC_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tc::cuda
