// The CPU's elementwise primitives that are not rows of the op table
// (src/backend/backend.h): the tensor-scalar ops, clamp, where, and the
// backward formulas of pow/rdiv by a scalar and of clamp. The rows' own
// kernels are generated, one file per row (src/cpu/rows/, cpu/ew_row.h), and
// src/cpu/rows/table.cpp dispatches unary, binary, grad2 and grad3 to them.
// Forward kernels are lambdas over map1/map3 (a switch outside the loop, so
// each inner loop is a plain vectorizable one). Compiled once per kernel set
// (src/cpu/kernels.h): everything here lives in tc::cpu::isa_<set>. Names no
// unary or binary row: adding one does not recompile this file.
#include <cmath>
#include <type_traits>

#include "cpu/dispatch.h"
#include "cpu/isa.h"
#include "cpu/loops.h"
#include "math/ew_row_math.h"
#include "math/scalar_op_enum.h"

namespace tc::cpu::TC_CPU_ISA_NS {

using ops::ScalarOp;

namespace {

template <typename T>
void scalar_kernel(ScalarOp op, const Tensor& out, const Tensor& a, double sd) {
  const T s = T(sd);
  switch (op) {
    case ScalarOp::add:
      return map1<T, T>(out, a, [s](T x) { return T(x + s); });
    case ScalarOp::sub:
      return map1<T, T>(out, a, [s](T x) { return T(x - s); });
    case ScalarOp::mul:
      return map1<T, T>(out, a, [s](T x) { return T(x * s); });
    case ScalarOp::div:
      return map1<T, T>(out, a, [s](T x) { return T(x / s); });
    case ScalarOp::pow:
      if (sd == 2) return map1<T, T>(out, a, [](T x) { return wrapping_mul(x, x); });
      if (sd == 1) return map1<T, T>(out, a, [](T x) { return x; });
      if (sd == 0.5) return map1<T, T>(out, a, [](T x) { return T(std::sqrt(x)); });
      return map1<T, T>(out, a, [s](T x) { return T(std::pow(x, s)); });
    case ScalarOp::rsub:
      return map1<T, T>(out, a, [s](T x) { return T(s - x); });
    case ScalarOp::rdiv:
      return map1<T, T>(out, a, [s](T x) { return T(s / x); });
    case ScalarOp::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "binary_scalar: unhandled op");
}

// out = formula(g, x) in g's dtype (x: the saved input); F one of
// math/ew_row_math.h's *_grad2_value.
template <typename F>
void fused2_cpu(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p, F) {
  TC_DISPATCH_FLOATING(g->dtype, "backward", [&] {
    using T = scalar_t;
    map2<T, T, T>(
        out, g, x, [p](T a, T b) __attribute__((always_inline)) { return F::template value<T>(a, b, p); });
  });
}
struct PowScalarGrad {
  template <typename T>
  static __attribute__((always_inline)) T value(T g, T x, const ew::GradParams& p) {
    return ew::pow_scalar_grad2_value(g, x, p);
  }
};
struct RdivScalarGrad {
  template <typename T>
  static __attribute__((always_inline)) T value(T g, T x, const ew::GradParams& p) {
    return ew::rdiv_scalar_grad2_value(g, x, p);
  }
};
struct ClampGrad {
  template <typename T>
  static __attribute__((always_inline)) T value(T g, T x, const ew::GradParams& p) {
    return ew::clamp_grad2_value(g, x, p);
  }
};

}  // namespace

void binary_scalar(ScalarOp op, const Tensor& out, const Tensor& a, double s) {
  TC_DISPATCH_FLOATING(a->dtype, "binary_scalar", [&] { scalar_kernel<scalar_t>(op, out, a, s); });
}

void clamp(const Tensor& out, const Tensor& a, double lo, double hi) {
  const bool has_lo = !std::isnan(lo), has_hi = !std::isnan(hi);
  TC_DISPATCH_NUMERIC(a->dtype, "clamp", [&] {
    using T = scalar_t;
    // Bounds beyond T's range clamp nothing on that side; converting them
    // as they are would be undefined behaviour (found by the fuzzer).
    const T l = has_lo ? ew::clamp_bound<T>(lo) : T(0), h = has_hi ? ew::clamp_bound<T>(hi) : T(0);
    map1<T, T>(out, a, [=](T x) { return ew::clamp_value(x, has_lo, l, has_hi, h); });
  });
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "where", [&] {
    using T = scalar_t;
    map3<T, bool, T, T>(out, cond, a, b, [](bool c, T x, T y) { return c ? x : y; });
  });
}

// The two-operand formulas that are not rows, in rows/table.cpp's grad2 table.
namespace rows {
void grad2_pow_scalar(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  fused2_cpu(out, g, x, p, PowScalarGrad{});
}
void grad2_rdiv_scalar(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  fused2_cpu(out, g, x, p, RdivScalarGrad{});
}
void grad2_clamp(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  fused2_cpu(out, g, x, p, ClampGrad{});
}
}  // namespace rows

}  // namespace tc::cpu::TC_CPU_ISA_NS
