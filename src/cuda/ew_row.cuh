// What a generated per-row CUDA kernel file (src/cuda/rows/<family>_<name>.cu,
// tools/gen_ops.py) expands: one elementwise row of ops/ops.toml as the
// functions the CUDA module's dispatch table (src/cuda/rows/table.cpp) calls,
// in tc::cuda::rows:
//   TC_CUDA_UNARY_ROW(<unary_ops.def row>)    unary_<name>, grad2_<name>
//   TC_CUDA_BINARY_ROW(<binary_ops.def row>)  binary_<name>, grad3_<name>_a, grad3_<name>_b
//   TC_CUDA_COMPARE_ROW(name, (forward))      binary_<name> (a bool result)
// Each function checks what its row takes, then launches one kernel per dtype
// for this row only (cuda/ew_launch.cuh). The formulas are expanded through
// math/ew_row_math.h's macros, the ones math/elementwise_math.h and the CPU's
// per-row kernels (cpu/ew_row.h) expand, so every backend shares each formula.
// This header names no row and includes no .def file: adding a row to the
// table compiles that row's file and the table, not the other rows.
#pragma once
#include "cuda/ew_launch.cuh"
#include "math/ew_row_math.h"

namespace tc::cuda::rows {
namespace {

// ---- element functors of one row struct D ----

template <typename D, typename C>
struct UnaryRowFn {
  C p, q;
  __device__ C operator()(C x) const { return D::template value<C>(x, p, q); }
};
// Integer and bool inputs: the row's default parameters (they are floating).
template <typename D, typename C>
struct UnaryRowDefaultFn {
  __device__ C operator()(C x) const { return D::template value<C>(x, C(D::p0), C(D::q0)); }
};
template <typename D, typename C>
struct UnaryGradRowFn {
  ew::GradParams p;
  __device__ C operator()(C g, C x) const { return ew::unary_grad2_value<D>(g, x, p); }
};
template <typename D, typename C>
struct BinaryRowFn {
  __device__ C operator()(C x, C y) const { return D::template value<C>(x, y); }
};
template <typename D, typename C>
struct CompareRowFn {
  __device__ bool operator()(C x, C y) const { return D::template value<C>(x, y); }
};
template <typename G, typename C>
struct Grad3RowFn {
  __device__ C operator()(C g, C x, C y) const { return C(G::value(double(g), double(x), double(y))); }
};

// out = the row's forward of a: one dtype, or a bool out for bool-result rows.
template <typename D>
void unary_row(const Tensor& out, const Tensor& a, double pd, double qd) {
  if constexpr (D::bool_result) {
    TC_CHECK(out->dtype == DType::b8, TC_ERR_INTERNAL, "cuda::unary: a bool result of dtype ",
             dtype_name(out->dtype));
  } else {
    check_dtypes("cuda::unary", out, {&a});
  }
  const Tensor* in[1] = {&a};
  const DType d = a->dtype;
  if (is_floating(d)) {
    TC_CHECK(D::floats, TC_ERR_INTERNAL, "cuda::unary: an integer op on floating dtypes");
    if constexpr (D::floats) {
      dispatch_float(d, "unary", [&](auto tag) {
        using T = decltype(tag);
        using C = compute_t<T>;
        const UnaryRowFn<D, C> f{C(pd), C(qd)};
        if constexpr (D::bool_result) {
          launch_strided<2>(out, in, Fn1<bool, T, UnaryRowFn<D, C>>{f});
        } else {
          launch_same<1, T>(out, in, f);
        }
      });
    }
    return;
  }
  TC_CHECK(d == DType::b8 ? D::bools : D::ints, TC_ERR_INTERNAL, "cuda::unary: op on dtype ", dtype_name(d));
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    if constexpr (D::template computes<C>) {
      if constexpr (D::bool_result) {
        launch_strided<2>(out, in, Fn1<bool, T, UnaryRowDefaultFn<D, C>>{});
      } else {
        launch_same<1, T>(out, in, UnaryRowDefaultFn<D, C>{});
      }
    }
  };
  if constexpr (D::bools) {
    if (d == DType::b8) return run(bool{});
  }
  if constexpr (D::ints) dispatch_int(d, "unary", run);
}

// out = the row's backward (g, x) in g's dtype (x: the saved input or output).
template <typename D>
void unary_grad_row(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  check_dtypes("cuda::grad2", out, {&g, &x});
  const Tensor* in[2] = {&g, &x};
  dispatch_float(out->dtype, "backward", [&](auto tag) {
    using T = decltype(tag);
    launch_same<2, T>(out, in, UnaryGradRowFn<D, compute_t<T>>{p});
  });
}

// out = a (op) b, all of one dtype; DT: the row's dtypes column.
template <typename D, ew::BinaryDtypes DT>
void binary_row(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_dtypes("cuda::binary", out, {&a, &b});
  const DType d = out->dtype;
  TC_CHECK(ew::binary_dtypes_compute(DT, is_floating(d), d == DType::b8), TC_ERR_INTERNAL,
           "cuda::binary: the row does not compute ", dtype_name(d),
           " (the core promotes or refuses it first)");
  const Tensor* in[2] = {&a, &b};
  if (is_floating(d)) {
    if constexpr (ew::binary_dtypes_compute(DT, true, false)) {
      dispatch_float(d, "binary", [&](auto tag) {
        using T = decltype(tag);
        launch_same<2, T>(out, in, BinaryRowFn<D, compute_t<T>>{});
      });
    }
    return;
  }
  if (d == DType::b8) {
    TC_CHECK(ew::binary_dtypes_take_bool(DT), TC_ERR_DTYPE, "cuda::binary: arithmetic on bool tensors");
    if constexpr (ew::binary_dtypes_compute(DT, false, true)) {
      launch_same<2, bool>(out, in, BinaryRowFn<D, bool>{});
    }
    return;
  }
  if constexpr (ew::binary_dtypes_compute(DT, false, false)) {
    dispatch_int(d, "binary", [&](auto tag) {
      using T = decltype(tag);
      launch_same<2, T>(out, in, BinaryRowFn<D, compute_t<T>>{});
    });
  }
}

// A new tensor of g's shape and dtype: out = formula(g, x, y) with x, y
// broadcast, computed in double (G: TC_EW_GRAD3_BODY).
template <typename G>
void grad3_row(const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {
  check_dtypes("cuda::grad3", out, {&g, &x, &y});
  const Tensor* in[3] = {&g, &x, &y};
  dispatch_float(out->dtype, "backward", [&](auto tag) {
    using T = decltype(tag);
    launch_same<3, T>(out, in, Grad3RowFn<G, compute_t<T>>{});
  });
}

// out (bool) = a (op) b; a and b of one dtype, any dtype.
template <typename D>
void compare_row(const Tensor& out, const Tensor& a, const Tensor& b) {
  TC_CHECK(a->dtype == b->dtype && out->dtype == DType::b8, TC_ERR_INTERNAL,
           "cuda::binary: comparison operands of different dtypes");
  const Tensor* in[2] = {&a, &b};
  dispatch_all(a->dtype, "compare", [&](auto tag) {
    using T = decltype(tag);
    launch_strided<3>(out, in, Fn2<bool, T, T, CompareRowFn<D, compute_t<T>>>{});
  });
}

}  // namespace
}  // namespace tc::cuda::rows

// The row structs live in tc::ew (the formulas name its helpers unqualified).
// Each row is compiled in one file only, so they need no unnamed namespace
// (which would make nvcc warn about the members a row does not use).
#define TC_CUDA_UNARY_ROW(name, GradName, dtypes_, bool_result_, diff_, save_, domain_, p0_, q0_, forward, \
                          backward)                                                                        \
  namespace tc::ew {                                                                                       \
  struct UnaryRow_##name {                                                                                 \
    TC_EW_UNARY_DEF_BODY(dtypes_, bool_result_, diff_, save_, p0_, q0_, forward, backward)                 \
  };                                                                                                       \
  }                                                                                                        \
  namespace tc::cuda::rows {                                                                               \
  void unary_##name(const Tensor& out, const Tensor& a, double p, double q) {                              \
    unary_row<ew::UnaryRow_##name>(out, a, p, q);                                                          \
  }                                                                                                        \
  void grad2_##name(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {        \
    unary_grad_row<ew::UnaryRow_##name>(out, g, x, p);                                                     \
  }                                                                                                        \
  }

#define TC_CUDA_BINARY_ROW(name, GradName, saves, a_is_g, b_is_g, dtypes, diff, forward, grad_a, grad_b) \
  namespace tc::ew {                                                                                     \
  struct BinaryRow_##name {                                                                              \
    TC_EW_BINARY_DEF_BODY(forward)                                                                       \
  };                                                                                                     \
  struct Grad3Row_##name##_a {                                                                           \
    TC_EW_GRAD3_BODY(grad_a)                                                                             \
  };                                                                                                     \
  struct Grad3Row_##name##_b {                                                                           \
    TC_EW_GRAD3_BODY(grad_b)                                                                             \
  };                                                                                                     \
  }                                                                                                      \
  namespace tc::cuda::rows {                                                                             \
  void binary_##name(const Tensor& out, const Tensor& a, const Tensor& b) {                              \
    binary_row<ew::BinaryRow_##name, ew::BinaryDtypes(dtypes)>(out, a, b);                               \
  }                                                                                                      \
  void grad3_##name##_a(const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {          \
    grad3_row<ew::Grad3Row_##name##_a>(out, g, x, y);                                                    \
  }                                                                                                      \
  void grad3_##name##_b(const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {          \
    grad3_row<ew::Grad3Row_##name##_b>(out, g, x, y);                                                    \
  }                                                                                                      \
  }

#define TC_CUDA_COMPARE_ROW(name, forward)                                  \
  namespace tc::ew {                                                        \
  struct CompareRow_##name {                                                \
    template <typename C>                                                   \
    static TC_HD bool value(C x, C y) {                                     \
      return forward;                                                       \
    }                                                                       \
  };                                                                        \
  }                                                                         \
  namespace tc::cuda::rows {                                                \
  void binary_##name(const Tensor& out, const Tensor& a, const Tensor& b) { \
    compare_row<ew::CompareRow_##name>(out, a, b);                          \
  }                                                                         \
  }
