// What a generated per-row CPU kernel file (src/cpu/rows/<family>_<name>.cpp,
// tools/gen_ops.py) expands: one elementwise row of ops/ops.toml as the
// functions of one kernel set (cpu/kernels.h), in tc::cpu::isa_<set>::rows:
//   TC_CPU_UNARY_ROW(<unary_ops.def row>)    unary_<name>, grad2_<name>
//   TC_CPU_BINARY_ROW(<binary_ops.def row>)  binary_<name>, grad3_<name>_a, grad3_<name>_b
//   TC_CPU_COMPARE_ROW(name, (forward))      binary_<name> (a bool result)
// Forward kernels are lambdas over map1/map2 (a dtype switch outside the
// loop, so each inner loop is a plain vectorizable one); backward formulas are
// fused the same way. The formulas are expanded through math/ew_row_math.h's
// macros, the very ones math/elementwise_math.h (the CUDA kernels, the ops)
// expands, so the CPU and CUDA share each formula. This header names no row
// and includes no .def file: adding a row to the table compiles that row's
// file (once per kernel set) and the generated tables (rows/table.cpp), not
// the other rows. The tables that dispatch on the row enums are
// src/cpu/rows/table.cpp.
#pragma once
#include <cmath>
#include <type_traits>

#include "cpu/dispatch.h"
#include "cpu/isa.h"
#include "cpu/loops.h"
#include "math/ew_row_math.h"

namespace tc::cpu::TC_CPU_ISA_NS::rows {
namespace {

// The forward of a unary row struct D (TC_EW_UNARY_DEF_BODY), instantiated only
// for the dtypes the op allows; the parameters are the compute type's
// (integer rows have none).
template <typename D>
void unary_row(const Tensor& out, const Tensor& a, double pd, double qd) {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "unary", [&] {
    using T = scalar_t;
    if constexpr (D::template computes<T>) {
      const T p = std::is_floating_point_v<T> ? T(pd) : T(0), q = std::is_floating_point_v<T> ? T(qd) : T(0);
      if constexpr (D::bool_result) {
        (void)p;
        (void)q;
        return map1<bool, T>(out, a, [](T x) { return D::template value<T>(x, T(D::p0), T(D::q0)) != T(0); });
      } else {
        return map1<T, T>(
            out, a, [ p, q ](T x) __attribute__((always_inline)) { return D::template value<T>(x, p, q); });
      }
    }
    fail(TC_ERR_INTERNAL, "unary: unhandled op");
  });
}

// out = the row's backward (g, x) in g's dtype (x: the saved input or output).
template <typename D>
void unary_grad_row(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  TC_DISPATCH_FLOATING(g->dtype, "backward", [&] {
    using T = scalar_t;
    // Inlined into map2's loop, so that it vectorizes (a formula may be long: gelu).
    map2<T, T, T>(
        out, g,
        x, [p](T a, T b) __attribute__((always_inline)) { return ew::unary_grad2_value<D>(a, b, p); });
  });
}

// The forward of an arithmetic binary row struct D (TC_EW_BINARY_DEF_BODY).
template <typename D>
void binary_row(const Tensor& out, const Tensor& a, const Tensor& b) {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "binary", [&] {
    using T = scalar_t;
    map2<T, T, T>(out, a, b, [](T x, T y) { return D::template value<T>(x, y); });
  });
}

// A new tensor of g's shape and dtype: out = formula(g, x, y) with x, y
// broadcast, computed in double (G: TC_EW_GRAD3_BODY).
template <typename G>
void grad3_row(const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {
  TC_DISPATCH_FLOATING(g->dtype, "backward", [&] {
    using T = scalar_t;
    map3<T, T, T, T>(out, g, x, y,
                     [](T a, T b, T c) { return T(G::value(double(a), double(b), double(c))); });
  });
}

// A comparison row struct D (value: a bool).
template <typename D>
void compare_row(const Tensor& out, const Tensor& a, const Tensor& b) {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "binary", [&] {
    using T = scalar_t;
    map2<bool, T, T>(out, a, b, [](T x, T y) { return D::template value<T>(x, y); });
  });
}

}  // namespace
}  // namespace tc::cpu::TC_CPU_ISA_NS::rows

// The row structs live in tc::ew (the formulas name its helpers unqualified),
// in an unnamed namespace: each kernel set's copy is its own.
#define TC_CPU_UNARY_ROW(name, GradName, dtypes_, bool_result_, diff_, save_, domain_, p0_, q0_, forward, \
                         backward)                                                                        \
  namespace tc::ew {                                                                                      \
  namespace {                                                                                             \
  struct UnaryRow_##name {                                                                                \
    TC_EW_UNARY_DEF_BODY(dtypes_, bool_result_, diff_, save_, p0_, q0_, forward, backward)                \
  };                                                                                                      \
  }                                                                                                       \
  }                                                                                                       \
  namespace tc::cpu::TC_CPU_ISA_NS::rows {                                                                \
  void unary_##name(const Tensor& out, const Tensor& a, double p, double q) {                             \
    unary_row<ew::UnaryRow_##name>(out, a, p, q);                                                         \
  }                                                                                                       \
  void grad2_##name(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {       \
    unary_grad_row<ew::UnaryRow_##name>(out, g, x, p);                                                    \
  }                                                                                                       \
  }

#define TC_CPU_BINARY_ROW(name, GradName, saves, a_is_g, b_is_g, dtypes, diff, forward, grad_a, grad_b) \
  namespace tc::ew {                                                                                    \
  namespace {                                                                                           \
  struct BinaryRow_##name {                                                                             \
    TC_EW_BINARY_DEF_BODY(forward)                                                                      \
  };                                                                                                    \
  struct Grad3Row_##name##_a {                                                                          \
    TC_EW_GRAD3_BODY(grad_a)                                                                            \
  };                                                                                                    \
  struct Grad3Row_##name##_b {                                                                          \
    TC_EW_GRAD3_BODY(grad_b)                                                                            \
  };                                                                                                    \
  }                                                                                                     \
  }                                                                                                     \
  namespace tc::cpu::TC_CPU_ISA_NS::rows {                                                              \
  void binary_##name(const Tensor& out, const Tensor& a, const Tensor& b) {                             \
    binary_row<ew::BinaryRow_##name>(out, a, b);                                                        \
  }                                                                                                     \
  void grad3_##name##_a(const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {         \
    grad3_row<ew::Grad3Row_##name##_a>(out, g, x, y);                                                   \
  }                                                                                                     \
  void grad3_##name##_b(const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {         \
    grad3_row<ew::Grad3Row_##name##_b>(out, g, x, y);                                                   \
  }                                                                                                     \
  }

#define TC_CPU_COMPARE_ROW(name, forward)                                   \
  namespace tc::ew {                                                        \
  namespace {                                                               \
  struct CompareRow_##name {                                                \
    template <typename C>                                                   \
    static bool value(C x, C y) {                                           \
      return forward;                                                       \
    }                                                                       \
  };                                                                        \
  }                                                                         \
  }                                                                         \
  namespace tc::cpu::TC_CPU_ISA_NS::rows {                                  \
  void binary_##name(const Tensor& out, const Tensor& a, const Tensor& b) { \
    compare_row<ew::CompareRow_##name>(out, a, b);                          \
  }                                                                         \
  }
