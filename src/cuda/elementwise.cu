// CUDA kernels of the scalar ops, clamp, where, casts and copies, and the
// backward formulas that are not rows (pow and division by a scalar, clamp).
// The kernels of the elementwise rows (unary, binary, comparison: one file
// per row, src/cuda/rows/) and their dispatch (rows/table.cpp) are generated
// from ops/ops.toml; both launch through cuda/ew_launch.cuh. This file names
// no unary or binary row, so adding one does not recompile it.
#include <cuda_runtime.h>

#include "cuda/elementwise.h"
#include "cuda/ew_launch.cuh"
#include "math/scalar_rows.h"

namespace tc::cuda {

namespace {

using ops::ScalarOp;

// ---- op functors ----

template <ScalarOp OP, typename C>
struct ScalarFn {
  C s;
  ew::PowMode mode;
  __device__ C operator()(C x) const { return ew::scalar_value<OP>(x, s, mode); }
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
template <typename C, typename F>
struct Grad2OfFn {
  ew::GradParams p;
  __device__ C operator()(C g, C x) const { return F::template value<C>(g, x, p); }
};
struct PowScalarGrad {
  template <typename C>
  static __device__ C value(C g, C x, const ew::GradParams& p) {
    return ew::pow_scalar_grad2_value(g, x, p);
  }
};
struct RdivScalarGrad {
  template <typename C>
  static __device__ C value(C g, C x, const ew::GradParams& p) {
    return ew::rdiv_scalar_grad2_value(g, x, p);
  }
};
struct ClampGrad {
  template <typename C>
  static __device__ C value(C g, C x, const ew::GradParams& p) {
    return ew::clamp_grad2_value(g, x, p);
  }
};
template <typename D, typename S>
struct ConvertFn {
  __device__ compute_t<D> operator()(compute_t<S> v) const { return ew::convert<D>(v); }
};

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

// out = F(g, x) in g's dtype, floating.
template <typename F>
void grad2_of(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  check_dtypes("cuda::grad2", out, {&g, &x});
  const Tensor* in[2] = {&g, &x};
  dispatch_float(out->dtype, "backward", [&](auto tag) {
    using T = decltype(tag);
    launch_same<2, T>(out, in, Grad2OfFn<compute_t<T>, F>{p});
  });
}

}  // namespace

// The ew::Grad slots of rows/table.cpp that are not rows.
namespace rows {
void grad2_pow_scalar(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  grad2_of<PowScalarGrad>(out, g, x, p);
}
void grad2_rdiv_scalar(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  grad2_of<RdivScalarGrad>(out, g, x, p);
}
void grad2_clamp(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  grad2_of<ClampGrad>(out, g, x, p);
}
}  // namespace rows

void binary_scalar(ScalarOp op, const Tensor& out, const Tensor& a, double s) {
  check_dtypes("cuda::binary_scalar", out, {&a});
  const Tensor* in[1] = {&a};
  dispatch_float(out->dtype, "binary_scalar", [&](auto tag) { scalar_float<decltype(tag)>(op, out, in, s); });
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
