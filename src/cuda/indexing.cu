// CUDA kernels of advanced indexing (src/backend/backend.h): an element of a is
// a[offs[b] + s] with offs the storage offsets the ops computed and s a
// position of the sliced dims. Gathers run one thread per element. Puts run
// one thread per sliced position s, taking its b in order: a location is
// reached from one s only, so there are no races and no atomics, and repeated
// indices resolve as on the CPU (last writer wins, sums in index order).
// nonzero compacts with a CUB prefix sum, keeping row-major order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/device/device_scan.cuh>

#include "core/error.h"
#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "cuda/indexing.h"

namespace tc::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t(1) << 20;
int blocks_for(int64_t n) {
  return int(std::min<int64_t>(std::max<int64_t>((n + kThreads - 1) / kThreads, 1), kMaxBlocks));
}
void use_device(const Tensor& t) { TC_CUDA_CHECK(cudaSetDevice(device_index(t->device))); }
void check_launch() { TC_CUDA_CHECK(cudaGetLastError()); }

#define TC_GRID_LOOP(i, n)                                                  \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

// The sliced dims [S...] and two operands' strides over them (by value).
struct SliceDims {
  int32_t n = 0;
  int64_t size[TC_MAX_DIMS];
  int64_t st0[TC_MAX_DIMS];  // a's
  int64_t st1[TC_MAX_DIMS];  // out's or values' (their dim 0 is b)
  int64_t b1 = 0;            // out's or values' stride over b
};
SliceDims slice_dims(const Tensor& a, const Tensor& other) {
  SliceDims d;
  d.n = int32_t(a->ndim());
  for (int32_t k = 0; k < d.n; ++k) {
    d.size[k] = a->shape[k];
    d.st0[k] = a->strides[k];
    d.st1[k] = other->strides[k + 1];
  }
  d.b1 = other->strides[0];
  return d;
}
__device__ inline void offsets_of(const SliceDims& d, int64_t s, int64_t* o0, int64_t* o1) {
  int64_t a = 0, b = 0;
  for (int32_t k = d.n - 1; k >= 0; --k) {
    const int64_t c = s % d.size[k];
    s /= d.size[k];
    a += c * d.st0[k];
    b += c * d.st1[k];
  }
  *o0 = a;
  *o1 = b;
}

template <typename U>
__global__ void gather_kernel(U* out, const U* a, const int64_t* offs, const SliceDims d, int64_t nb,
                              int64_t ns) {
  TC_GRID_LOOP(p, nb * ns) {
    const int64_t b = p / ns;
    int64_t ao = 0, oo = 0;
    offsets_of(d, p % ns, &ao, &oo);
    out[b * d.b1 + oo] = a[offs[b] + ao];
  }
}

template <typename T>
__global__ void put_kernel(T* a, const T* values, const int64_t* offs, const SliceDims d, int64_t nb,
                           int64_t ns, IndexPutMode mode) {
  TC_GRID_LOOP(s, ns) {
    int64_t ao = 0, vo = 0;
    offsets_of(d, s, &ao, &vo);
    for (int64_t b = 0; b < nb; ++b) {
      T& dst = a[offs[b] + ao];
      const T v = values[b * d.b1 + vo];
      if (mode == IndexPutMode::assign) {
        dst = v;
      } else {
        dst = from_compute<T>(index_put::combine(mode, to_compute(dst), to_compute(v)));
      }
    }
  }
}

template <typename T>
__global__ void nonzero_flags_kernel(const T* a, int64_t n, int64_t* flags) {
  TC_GRID_LOOP(i, n) flags[i] = to_compute(a[i]) != compute_t<T>(0) ? 1 : 0;
}

__global__ void nonzero_write_kernel(const int64_t* flags, const int64_t* pos, int64_t n, const SliceDims d,
                                     int64_t* out) {
  TC_GRID_LOOP(i, n) {
    if (!flags[i]) continue;
    int64_t rem = i;
    for (int32_t k = d.n - 1; k >= 0; --k) {
      out[pos[i] * d.n + k] = rem % d.size[k];
      rem /= d.size[k];
    }
  }
}

// flags (int64 [n]) of a's non-zero elements.
Tensor nonzero_flags(const Tensor& a) {
  Tensor flags = empty(Dims{a->numel()}, DType::i64, a->device);
  dispatch_all(a->dtype, "nonzero", [&](auto tag) {
    using T = decltype(tag);
    nonzero_flags_kernel<T><<<blocks_for(a->numel()), kThreads>>>(static_cast<const T*>(a->data()),
                                                                  a->numel(), flags->data_as<int64_t>());
  });
  check_launch();
  return flags;
}

// The exclusive prefix sum of flags (CUB; its scratch from libtc's allocator).
Tensor exclusive_sum(const Tensor& flags) {
  const int64_t n = flags->numel();
  Tensor pos = empty(Dims{n}, DType::i64, flags->device);
  size_t bytes = 0;
  TC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, flags->data_as<int64_t>(),
                                              pos->data_as<int64_t>(), int(n)));
  Tensor scratch = empty(Dims{int64_t(bytes) + 1}, DType::u8, flags->device);
  TC_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch->data(), bytes, flags->data_as<int64_t>(),
                                              pos->data_as<int64_t>(), int(n)));
  return pos;
}

}  // namespace

void index_offsets_gather(const Tensor& out, const Tensor& a, const Tensor& offs) {
  const int64_t nb = offs->numel(), ns = a->numel();
  if (nb == 0 || ns == 0) return;
  use_device(a);
  const SliceDims d = slice_dims(a, out);
  dispatch_bits(a->itemsize(), [&](auto tag) {
    using U = decltype(tag);
    gather_kernel<U><<<blocks_for(nb * ns), kThreads>>>(
        static_cast<U*>(out->data()), static_cast<const U*>(a->data()), offs->data_as<int64_t>(), d, nb, ns);
  });
  check_launch();
}

void index_offsets_put(const Tensor& a, const Tensor& offs, const Tensor& values, IndexPutMode mode) {
  const int64_t nb = offs->numel(), ns = a->numel();
  if (nb == 0 || ns == 0) return;
  use_device(a);
  const SliceDims d = slice_dims(a, values);
  dispatch_all(a->dtype, "index_put", [&](auto tag) {
    using T = decltype(tag);
    put_kernel<T><<<blocks_for(ns), kThreads>>>(static_cast<T*>(a->data()),
                                                static_cast<const T*>(values->data()),
                                                offs->data_as<int64_t>(), d, nb, ns, mode);
  });
  check_launch();
}

int64_t count_nonzero(const Tensor& a) {
  const int64_t n = a->numel();
  if (n == 0) return 0;
  TC_CHECK(n < (int64_t(1) << 31), TC_ERR_NOT_IMPLEMENTED, "nonzero: more than 2^31 - 1 elements on CUDA");
  use_device(a);
  Tensor flags = nonzero_flags(a);
  Tensor pos = exclusive_sum(flags);
  int64_t last[2] = {0, 0};
  TC_CUDA_CHECK(cudaMemcpy(&last[0], pos->data_as<int64_t>() + n - 1, 8, cudaMemcpyDeviceToHost));
  TC_CUDA_CHECK(cudaMemcpy(&last[1], flags->data_as<int64_t>() + n - 1, 8, cudaMemcpyDeviceToHost));
  return last[0] + last[1];
}

void nonzero(const Tensor& out, const Tensor& a) {
  const int64_t n = a->numel();
  if (n == 0 || out->numel() == 0) return;
  use_device(a);
  Tensor flags = nonzero_flags(a);
  Tensor pos = exclusive_sum(flags);
  SliceDims d;
  d.n = int32_t(a->ndim());
  for (int32_t k = 0; k < d.n; ++k) d.size[k] = a->shape[k];
  nonzero_write_kernel<<<blocks_for(n), kThreads>>>(flags->data_as<int64_t>(), pos->data_as<int64_t>(), n, d,
                                                    out->data_as<int64_t>());
  check_launch();
}

}  // namespace tc::cuda
