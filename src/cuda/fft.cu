// Batched 1-D FFTs on CUDA through cuFFT, on the default stream (where the
// allocator and every other kernel run): one plan per (length, batch, type),
// made on first use and kept for the process (cuFFT plans are reentrant on
// one stream). c2r inputs are copied first: cuFFT's C2R overwrites its input.
#include <cuda_runtime.h>
#include <cufft.h>

#include <map>
#include <mutex>
#include <tuple>

#include "cuda/cuda_check.h"
#include "cuda/fft.h"

namespace tc::cuda {

namespace {

template <typename T>
__global__ void scale_kernel(T* p, int64_t n, T s) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    p[i] *= s;
}

template <typename T>
void scale_values(void* p, int64_t n, double s) {
  const int threads = 256;
  const int64_t blocks64 = (n + threads - 1) / threads;
  scale_kernel<T><<<int(blocks64 < 65535 ? blocks64 : 65535), threads>>>(static_cast<T*>(p), n, T(s));
  TC_CUDA_CHECK(cudaGetLastError());
}

cufftHandle plan_for(int n, int batch, cufftType type) {
  static std::mutex mu;
  static std::map<std::tuple<int, int, int>, cufftHandle> plans;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_tuple(n, batch, int(type));
  auto it = plans.find(key);
  if (it != plans.end()) return it->second;
  cufftHandle plan;
  int dims[1] = {n};
  TC_CUDA_CHECK(cufftPlanMany(&plan, 1, dims, nullptr, 1, 0, nullptr, 1, 0, type, batch));
  plans.emplace(key, plan);
  return plan;
}

}  // namespace

void fft(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) {
  if (out->numel() == 0) return;
  const int64_t n = kind == FftKind::c2r ? out->shape.back() : in->shape.back();
  const int64_t batch = out->numel() / out->shape.back();
  TC_CHECK(n <= 0x7fffffff && batch <= 0x7fffffff, TC_ERR_INVALID_ARGUMENT, "fft on CUDA: length ", n,
           " or batch ", batch, " past cuFFT's int range");
  const bool dbl = complex_part_dtype(in->dtype) == DType::f64;
  const int dir = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  void* src = in->data();
  void* dst = out->data();
  Tensor scratch;
  switch (kind) {
    case FftKind::c2c: {
      const cufftHandle p = plan_for(int(n), int(batch), dbl ? CUFFT_Z2Z : CUFFT_C2C);
      if (dbl) {
        TC_CUDA_CHECK(cufftExecZ2Z(p, static_cast<cufftDoubleComplex*>(src),
                                   static_cast<cufftDoubleComplex*>(dst), dir));
      } else {
        TC_CUDA_CHECK(cufftExecC2C(p, static_cast<cufftComplex*>(src), static_cast<cufftComplex*>(dst), dir));
      }
      break;
    }
    case FftKind::r2c: {
      const cufftHandle p = plan_for(int(n), int(batch), dbl ? CUFFT_D2Z : CUFFT_R2C);
      if (dbl) {
        TC_CUDA_CHECK(
            cufftExecD2Z(p, static_cast<cufftDoubleReal*>(src), static_cast<cufftDoubleComplex*>(dst)));
      } else {
        TC_CUDA_CHECK(cufftExecR2C(p, static_cast<cufftReal*>(src), static_cast<cufftComplex*>(dst)));
      }
      break;
    }
    case FftKind::c2r: {
      scratch = empty(in->shape, in->dtype, in->device);  // C2R overwrites its input
      copy_into(scratch, in);
      const cufftHandle p = plan_for(int(n), int(batch), dbl ? CUFFT_Z2D : CUFFT_C2R);
      if (dbl) {
        TC_CUDA_CHECK(cufftExecZ2D(p, static_cast<cufftDoubleComplex*>(scratch->data()),
                                   static_cast<cufftDoubleReal*>(dst)));
      } else {
        TC_CUDA_CHECK(
            cufftExecC2R(p, static_cast<cufftComplex*>(scratch->data()), static_cast<cufftReal*>(dst)));
      }
      break;
    }
  }
  if (scale != 1.0) {
    const int64_t values = out->numel() * (is_complex(out->dtype) ? 2 : 1);
    if (dbl) {
      scale_values<double>(dst, values, scale);
    } else {
      scale_values<float>(dst, values, scale);
    }
  }
}

}  // namespace tc::cuda
