// The launch machinery of the elementwise CUDA kernels, shared by
// src/cuda/elementwise.cu (scalar ops, clamp, where, copies) and the
// generated per-row kernel files (src/cuda/rows/, cuda/ew_row.cuh). Two
// kernels carry every op: contiguous_kernel, for operands of one dtype that
// are all contiguous, of the output's shape and 16-byte aligned (16-byte
// vector loads and stores: the c = a + b case, bound by memory bandwidth),
// and strided_kernel for everything else (broadcasting, views, mixed dtypes),
// which turns each linear index into byte offsets with an OffsetCalc
// (math/offset_calc.h). Everything is in an unnamed namespace: each file
// instantiates the kernels of its own functors. Names no row.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "core/tensor.h"
#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "math/offset_calc.h"

namespace tc::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t(1) << 20;  // beyond that, the loops stride
constexpr int kVecBytes = 16;

inline int blocks_for(int64_t work) {
  return int(std::max<int64_t>(1, std::min<int64_t>((work + kThreads - 1) / kThreads, kMaxBlocks)));
}

inline void set_device(const Tensor& t) { TC_CUDA_CHECK(cudaSetDevice(device_index(t->device))); }
inline void check_launch() { TC_CUDA_CHECK(cudaGetLastError()); }

template <int N>
struct Ptrs {
  char* p[N];
};

// ---- the two kernels ----

template <int N, typename F>
__global__ void strided_kernel(OffsetCalc<N> oc, Ptrs<N> base, int64_t n, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[N];
    oc.get(i, off);
    char* p[N];
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] = base.p[k] + off[k];
    f(p);
  }
}

template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

template <int NIN, typename T>
struct Inputs {
  const T* p[NIN];
};

template <int NIN, typename T, typename Op>
__device__ __forceinline__ compute_t<T> apply(const Op& op, const T* const (&x)[NIN]) {
  if constexpr (NIN == 1) {
    return op(ew::load(x[0]));
  } else if constexpr (NIN == 2) {
    return op(ew::load(x[0]), ew::load(x[1]));
  } else {
    return op(ew::load(x[0]), ew::load(x[1]), ew::load(x[2]));
  }
}

template <int NIN, typename T, typename Op>
__global__ void contiguous_kernel(T* out, Inputs<NIN, T> in, int64_t n, Op op) {
  constexpr int V = kVecBytes / int(sizeof(T));
  using V_t = Vec<T, V>;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  const int64_t first = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int64_t nv = n / V;
  for (int64_t i = first; i < nv; i += stride) {
    V_t a[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k) a[k] = reinterpret_cast<const V_t*>(in.p[k])[i];
    V_t r;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const T* x[NIN];
#pragma unroll
      for (int k = 0; k < NIN; ++k) x[k] = &a[k].v[j];
      ew::store(&r.v[j], apply<NIN>(op, x));
    }
    reinterpret_cast<V_t*>(out)[i] = r;
  }
  for (int64_t i = nv * V + first; i < n; i += stride) {
    const T* x[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k) x[k] = in.p[k] + i;
    ew::store(out + i, apply<NIN>(op, x));
  }
}

// ---- element functors for strided_kernel: load, compute, store ----

template <typename O, typename A, typename Op>
struct Fn1 {
  Op op;
  __device__ void operator()(char* const (&p)[2]) const {
    ew::store(reinterpret_cast<O*>(p[0]), op(ew::load(reinterpret_cast<const A*>(p[1]))));
  }
};
template <typename O, typename A, typename B, typename Op>
struct Fn2 {
  Op op;
  __device__ void operator()(char* const (&p)[3]) const {
    ew::store(reinterpret_cast<O*>(p[0]),
              op(ew::load(reinterpret_cast<const A*>(p[1])), ew::load(reinterpret_cast<const B*>(p[2]))));
  }
};
template <typename O, typename A, typename B, typename C, typename Op>
struct Fn3 {
  Op op;
  __device__ void operator()(char* const (&p)[4]) const {
    ew::store(reinterpret_cast<O*>(p[0]),
              op(ew::load(reinterpret_cast<const A*>(p[1])), ew::load(reinterpret_cast<const B*>(p[2])),
                 ew::load(reinterpret_cast<const C*>(p[3]))));
  }
};
template <int NIN, typename T, typename Op>
struct SameFn;
template <typename T, typename Op>
struct SameFn<1, T, Op> {
  using type = Fn1<T, T, Op>;
};
template <typename T, typename Op>
struct SameFn<2, T, Op> {
  using type = Fn2<T, T, T, Op>;
};
template <typename T, typename Op>
struct SameFn<3, T, Op> {
  using type = Fn3<T, T, T, T, Op>;
};

// ---- launchers ----

// out[i] = f(inputs[i]...) over out's shape, inputs broadcast to it.
template <int N, typename F>
void launch_strided(const Tensor& out, const Tensor* const (&in)[N - 1], const F& f) {
  const int64_t n = out->numel();
  if (n == 0) return;
  Dims strides[N];
  int64_t sizes[N];
  Ptrs<N> base;
  strides[0] = out->strides;
  sizes[0] = out->itemsize();
  base.p[0] = static_cast<char*>(out->data());
  for (int k = 0; k + 1 < N; ++k) {
    const Tensor& t = *in[k];
    strides[k + 1] = broadcast_strides_to(t->shape, t->strides, out->shape);
    sizes[k + 1] = t->itemsize();
    base.p[k + 1] = static_cast<char*>(t->data());
  }
  const OffsetCalc<N> oc = make_offset_calc<N>(out->shape, strides, sizes);
  set_device(out);
  strided_kernel<N, F><<<blocks_for(n), kThreads>>>(oc, base, n, f);
  check_launch();
}

inline bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kVecBytes == 0; }

// Every operand of dtype T: the vectorized kernel when the layout allows it.
template <int NIN, typename T, typename Op>
void launch_same(const Tensor& out, const Tensor* const (&in)[NIN], const Op& op) {
  const int64_t n = out->numel();
  if (n == 0) return;
  bool flat = out->is_contiguous() && aligned(out->data());
  for (int k = 0; k < NIN && flat; ++k) {
    const Tensor& t = *in[k];
    flat = t->shape == out->shape && t->is_contiguous() && aligned(t->data());
  }
  if (!flat) return launch_strided<NIN + 1>(out, in, typename SameFn<NIN, T, Op>::type{op});
  Inputs<NIN, T> ptrs;
  for (int k = 0; k < NIN; ++k) ptrs.p[k] = (*in[k])->template data_as<T>();
  set_device(out);
  const int64_t vectors = (n + kVecBytes / int64_t(sizeof(T)) - 1) / (kVecBytes / int64_t(sizeof(T)));
  contiguous_kernel<NIN, T, Op><<<blocks_for(vectors), kThreads>>>(out->data_as<T>(), ptrs, n, op);
  check_launch();
}

inline void check_dtypes(const char* what, const Tensor& out, std::initializer_list<const Tensor*> ins) {
  for (const Tensor* t : ins) {
    TC_CHECK((*t)->dtype == out->dtype, TC_ERR_INTERNAL, what, ": operand of dtype ", dtype_name((*t)->dtype),
             " for an output of dtype ", dtype_name(out->dtype));
  }
}

}  // namespace
}  // namespace tc::cuda
