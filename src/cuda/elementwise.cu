// CUDA kernels of the elementwise ops, casts and copies. Two kernels carry
// every op: contiguous_kernel, for operands of one dtype that are all
// contiguous, of the output's shape and 16-byte aligned (16-byte vector loads
// and stores: the c = a + b case, bound by memory bandwidth), and
// strided_kernel for everything else (broadcasting, views, mixed dtypes),
// which turns each linear index into byte offsets with an OffsetCalc
// (cuda/offset_calc.h). The per-element math is cuda/elementwise_math.h's,
// which the CPU tests check. To keep nvcc's time in bounds, the float dtypes
// get one kernel per op (the hot paths) while the integer kernels, the
// comparisons and the backward formulas take the op as a run-time argument.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "cuda/elementwise.h"
#include "math/elementwise_math.h"
#include "math/offset_calc.h"

namespace tc::cuda {

namespace {

using ops::BinaryOp;
using ops::ScalarOp;
using ops::UnaryOp;

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t(1) << 20;  // beyond that, the loops stride
constexpr int kVecBytes = 16;

int blocks_for(int64_t work) {
  return int(std::max<int64_t>(1, std::min<int64_t>((work + kThreads - 1) / kThreads, kMaxBlocks)));
}

void set_device(const Tensor& t) { TC_CUDA_CHECK(cudaSetDevice(device_index(t->device))); }
void check_launch() { TC_CUDA_CHECK(cudaGetLastError()); }

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

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kVecBytes == 0; }

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

// ---- dtype dispatch: cuda/device_types.cuh ----

// ---- op functors ----

template <BinaryOp OP, typename C>
struct BinaryFn {
  __device__ C operator()(C x, C y) const { return ew::binary_value<OP>(x, y); }
};
template <typename C>
struct BinaryRtFn {
  BinaryOp op;
  __device__ C operator()(C x, C y) const { return ew::binary_value(op, x, y); }
};
template <typename C>
struct CompareFn {
  BinaryOp op;
  __device__ bool operator()(C x, C y) const { return ew::compare_value(op, x, y); }
};
template <ScalarOp OP, typename C>
struct ScalarFn {
  C s;
  ew::PowMode mode;
  __device__ C operator()(C x) const { return ew::scalar_value<OP>(x, s, mode); }
};
template <UnaryOp OP, typename C>
struct UnaryFn {
  C p, q;
  __device__ C operator()(C x) const { return ew::unary_value<OP>(x, p, q); }
};
// The integer and bool kernels (rows with bool results give 0 or 1, stored as bool).
template <typename C>
struct UnaryRtFn {
  UnaryOp op;
  __device__ C operator()(C x) const { return ew::unary_value(op, x); }
};
template <typename C>
struct ClampFn {
  C lo, hi;
  bool has_lo, has_hi;
  __device__ C operator()(C x) const { return ew::clamp_value(x, has_lo, lo, has_hi, hi); }
};
template <typename C>
struct WhereFn {
  __device__ C operator()(bool c, C x, C y) const { return c ? x : y; }
};
template <typename C>
struct Grad2Fn {
  ew::Grad f;
  ew::GradParams p;
  __device__ C operator()(C g, C x) const { return ew::grad2_value(f, g, x, p); }
};
template <typename C>
struct Grad3Fn {
  ew::Grad f;
  __device__ C operator()(C g, C x, C y) const {
    return C(ew::grad3_value(f, double(g), double(x), double(y)));
  }
};
template <typename D, typename S>
struct ConvertFn {
  __device__ compute_t<D> operator()(compute_t<S> v) const { return ew::convert<D>(v); }
};

template <typename T>
void binary_float(BinaryOp op, const Tensor& out, const Tensor* const (&in)[2]) {
  using C = compute_t<T>;
  switch (op) {
#define TC_BINARY_OP(name, ...) \
  case BinaryOp::name:          \
    return launch_same<2, T>(out, in, BinaryFn<BinaryOp::name, C>{});
#include "math/binary_ops.def"
#define TC_COMPARE_OP(name, ...) case BinaryOp::name:
#include "math/compare_ops.def"
    case BinaryOp::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "cuda::binary: not an arithmetic op");
}

template <typename T>
void scalar_float(ScalarOp op, const Tensor& out, const Tensor* const (&in)[1], double sd) {
  using C = compute_t<T>;
  const C s = C(sd);
  const ew::PowMode mode = ew::pow_mode(sd);
  switch (op) {
#define TC_SCALAR_OP(name, ...) \
  case ScalarOp::name:          \
    return launch_same<1, T>(out, in, ScalarFn<ScalarOp::name, C>{s, mode});
#include "math/scalar_ops.def"
    case ScalarOp::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "cuda::binary_scalar: unhandled op");
}

template <typename T>
void unary_float(UnaryOp op, const Tensor& out, const Tensor* const (&in)[1], double pd, double qd) {
  using C = compute_t<T>;
  const C p = C(pd), q = C(qd);
  switch (op) {
#define TC_UNARY_OP(name, ...)                                                              \
  case UnaryOp::name:                                                                       \
    if constexpr (ew::UnaryDef<UnaryOp::name>::floats) {                                    \
      if constexpr (ew::UnaryDef<UnaryOp::name>::bool_result) {                             \
        return launch_strided<2>(out, in, Fn1<bool, T, UnaryFn<UnaryOp::name, C>>{{p, q}}); \
      } else {                                                                              \
        return launch_same<1, T>(out, in, UnaryFn<UnaryOp::name, C>{p, q});                 \
      }                                                                                     \
    }                                                                                       \
    break;
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "cuda::unary: unhandled op");
}

void check_dtypes(const char* what, const Tensor& out, std::initializer_list<const Tensor*> ins) {
  for (const Tensor* t : ins) {
    TC_CHECK((*t)->dtype == out->dtype, TC_ERR_INTERNAL, what, ": operand of dtype ", dtype_name((*t)->dtype),
             " for an output of dtype ", dtype_name(out->dtype));
  }
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const Tensor* in[2] = {&a, &b};
  if (ops::is_comparison(op)) {
    TC_CHECK(a->dtype == b->dtype && out->dtype == DType::b8, TC_ERR_INTERNAL,
             "cuda::binary: comparison operands of different dtypes");
    return dispatch_all(a->dtype, "compare", [&](auto tag) {
      using T = decltype(tag);
      launch_strided<3>(out, in, Fn2<bool, T, T, CompareFn<compute_t<T>>>{{op}});
    });
  }
  check_dtypes("cuda::binary", out, {&a, &b});
  TC_CHECK(ew::binary_computes(op, out->dtype), TC_ERR_INTERNAL, "cuda::binary: op ", int(op),
           " does not compute ", dtype_name(out->dtype), " (the core promotes or refuses it first)");
  const DType d = out->dtype;
  if (is_floating(d)) {
    return dispatch_float(d, "binary", [&](auto tag) { binary_float<decltype(tag)>(op, out, in); });
  }
  if (d == DType::b8) {
    TC_CHECK(ew::binary_takes_bool(op), TC_ERR_DTYPE, "cuda::binary: arithmetic on bool tensors");
    return launch_same<2, bool>(out, in, BinaryRtFn<bool>{op});
  }
  dispatch_int(d, "binary", [&](auto tag) {
    using T = decltype(tag);
    launch_same<2, T>(out, in, BinaryRtFn<T>{op});
  });
}

void binary_scalar(ScalarOp op, const Tensor& out, const Tensor& a, double s) {
  check_dtypes("cuda::binary_scalar", out, {&a});
  const Tensor* in[1] = {&a};
  dispatch_float(out->dtype, "binary_scalar", [&](auto tag) { scalar_float<decltype(tag)>(op, out, in, s); });
}

void unary(UnaryOp op, const Tensor& out, const Tensor& a, double p, double q) {
  const ew::UnaryInfo info = ew::unary_info(op);
  if (info.bool_result) {
    TC_CHECK(out->dtype == DType::b8, TC_ERR_INTERNAL, "cuda::unary: a bool result of dtype ",
             dtype_name(out->dtype));
  } else {
    check_dtypes("cuda::unary", out, {&a});
  }
  const Tensor* in[1] = {&a};
  const DType d = a->dtype;
  if (is_floating(d)) {
    TC_CHECK(info.floats, TC_ERR_INTERNAL, "cuda::unary: an integer op on floating dtypes");
    return dispatch_float(d, "unary", [&](auto tag) { unary_float<decltype(tag)>(op, out, in, p, q); });
  }
  TC_CHECK(d == DType::b8 ? info.bools : info.ints, TC_ERR_INTERNAL, "cuda::unary: op ", int(op),
           " on dtype ", dtype_name(d));
  auto run = [&](auto tag) {
    using T = decltype(tag);
    if (info.bool_result) return launch_strided<2>(out, in, Fn1<bool, T, UnaryRtFn<T>>{{op}});
    launch_same<1, T>(out, in, UnaryRtFn<T>{op});
  };
  if (d == DType::b8) return run(bool{});
  dispatch_int(d, "unary", run);
}

void clamp(const Tensor& out, const Tensor& a, double lo, double hi) {
  check_dtypes("cuda::clamp", out, {&a});
  const Tensor* in[1] = {&a};
  const bool has_lo = lo == lo, has_hi = hi == hi;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C l = has_lo ? ew::clamp_bound<C>(lo) : C(0), h = has_hi ? ew::clamp_bound<C>(hi) : C(0);
    launch_same<1, T>(out, in, ClampFn<C>{l, h, has_lo, has_hi});
  };
  if (is_floating(out->dtype)) return dispatch_float(out->dtype, "clamp", run);
  dispatch_int(out->dtype, "clamp", run);
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_dtypes("cuda::where", out, {&a, &b});
  TC_CHECK(cond->dtype == DType::b8, TC_ERR_INTERNAL, "cuda::where: cond is not bool");
  const Tensor* in[3] = {&cond, &a, &b};
  dispatch_all(out->dtype, "where", [&](auto tag) {
    using T = decltype(tag);
    launch_strided<4>(out, in, Fn3<T, bool, T, T, WhereFn<compute_t<T>>>{});
  });
}

void grad2(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  check_dtypes("cuda::grad2", out, {&g, &x});
  const Tensor* in[2] = {&g, &x};
  dispatch_float(out->dtype, "backward", [&](auto tag) {
    using T = decltype(tag);
    launch_same<2, T>(out, in, Grad2Fn<compute_t<T>>{f, p});
  });
}

void grad3(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {
  check_dtypes("cuda::grad3", out, {&g, &x, &y});
  const Tensor* in[3] = {&g, &x, &y};
  dispatch_float(out->dtype, "backward", [&](auto tag) {
    using T = decltype(tag);
    launch_same<3, T>(out, in, Grad3Fn<compute_t<T>>{f});
  });
}

void copy(const Tensor& dst, const Tensor& src) {
  TC_CHECK(dst->shape == src->shape, TC_ERR_INTERNAL, "cuda::copy: shapes ", dst->shape, " and ", src->shape);
  const int64_t n = dst->numel();
  if (n == 0) return;
  if (dst->dtype == src->dtype && dst->is_contiguous() && src->is_contiguous()) {
    set_device(dst);
    // Ordered on the default stream after the kernels that wrote src.
    TC_CUDA_CHECK(
        cudaMemcpyAsync(dst->data(), src->data(), size_t(n * dst->itemsize()), cudaMemcpyDeviceToDevice, 0));
    return;
  }
  const Tensor* in[1] = {&src};
  dispatch_all(dst->dtype, "copy", [&](auto dtag) {
    using D = decltype(dtag);
    dispatch_all(src->dtype, "copy", [&](auto stag) {
      using S = decltype(stag);
      launch_strided<2>(dst, in, Fn1<D, S, ConvertFn<D, S>>{});
    });
  });
}

}  // namespace tc::cuda
