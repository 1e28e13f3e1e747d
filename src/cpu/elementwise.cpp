// The CPU's elementwise primitives (src/backend/backend.h): forward kernels are
// lambdas over map1/map2/map3 (a switch outside the loop, so each inner
// loop is a plain vectorizable one); backward formulas are fused the same way,
// from the formulas of math/elementwise_math.h, which the CUDA kernels share.
// Compiled once per kernel set (src/cpu/kernels.h): everything here lives in
// tc::cpu::isa_<set>, and the file ends with that set's table.
#include <cmath>
#include <type_traits>

#include "cpu/cpu_backend.h"
#include "cpu/dispatch.h"
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "math/elementwise_math.h"

namespace tc::cpu::TC_CPU_ISA_NS {

using ops::BinaryOp;
using ops::ScalarOp;
using ops::UnaryOp;

namespace {

template <typename T>
void binary_kernel(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  switch (op) {
#define TC_BINARY_OP(name, ...) \
  case BinaryOp::name:          \
    return map2<T, T, T>(out, a, b, [](T x, T y) { return ew::binary_value<BinaryOp::name>(x, y); });
#include "math/binary_ops.def"
#define TC_COMPARE_OP(name, ...) \
  case BinaryOp::name:           \
    return map2<bool, T, T>(out, a, b, [](T x, T y) { return ew::compare_value(BinaryOp::name, x, y); });
#include "math/compare_ops.def"
    case BinaryOp::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "binary: unhandled op");
}

using ew::Grad;

// A new tensor of g's shape and dtype: out = formula(g, x, y) with x, y
// broadcast, computed in double.
template <Grad F>
void fused3_cpu(const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {
  TC_DISPATCH_FLOATING(g->dtype, "backward", [&] {
    using T = scalar_t;
    map3<T, T, T, T>(out, g, x, y,
                     [](T a, T b, T c) { return T(ew::grad3_value<F>(double(a), double(b), double(c))); });
  });
}
// out = formula(g, x) in g's dtype (x: the saved input or output).
template <Grad F>
void fused2_cpu(const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  TC_DISPATCH_FLOATING(g->dtype, "backward", [&] {
    using T = scalar_t;
    // Inlined into map2's loop, so that it vectorizes (a formula may be long: gelu).
    map2<T, T, T>(
        out, g, x, [p](T a, T b) __attribute__((always_inline)) { return ew::grad2_value<F>(a, b, p); });
  });
}
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
// The forward: the row's formula (ew::unary_value), instantiated only for the
// dtypes the op allows.
// The parameters are the compute type's (integer rows have none).
template <typename T>
void unary_kernel(UnaryOp op, const Tensor& out, const Tensor& a, double pd, double qd) {
  const T p = std::is_floating_point_v<T> ? T(pd) : T(0), q = std::is_floating_point_v<T> ? T(qd) : T(0);
  switch (op) {
#define TC_UNARY_OP(name, ...)                                                                       \
  case UnaryOp::name:                                                                                \
    if constexpr (ew::UnaryDef<UnaryOp::name>::template computes<T>) {                               \
      if constexpr (ew::UnaryDef<UnaryOp::name>::bool_result) {                                      \
        return map1<bool, T>(out, a, [](T x) { return ew::unary_value<UnaryOp::name>(x) != T(0); }); \
      } else {                                                                                       \
        return map1<T, T>(                                                                           \
            out, a, [ p, q ](T x) __attribute__((always_inline)) {                                   \
              return ew::unary_value<UnaryOp::name>(x, p, q);                                        \
            });                                                                                      \
      }                                                                                              \
    }                                                                                                \
    break;
#include "math/unary_ops.def"
    case UnaryOp::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "unary: unhandled op");
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "binary", [&] { binary_kernel<scalar_t>(op, out, a, b); });
}

void binary_scalar(ScalarOp op, const Tensor& out, const Tensor& a, double s) {
  TC_DISPATCH_FLOATING(a->dtype, "binary_scalar", [&] { scalar_kernel<scalar_t>(op, out, a, s); });
}

void unary(UnaryOp op, const Tensor& out, const Tensor& a, double p, double q) {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "unary", [&] { unary_kernel<scalar_t>(op, out, a, p, q); });
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

void grad3(Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) {
  switch (f) {
#define TC_BINARY_OP(name, ...)               \
  case Grad::name##_a:                        \
    fused3_cpu<Grad::name##_a>(out, g, x, y); \
    return;                                   \
  case Grad::name##_b:                        \
    fused3_cpu<Grad::name##_b>(out, g, x, y); \
    return;
#include "math/binary_ops.def"
    case Grad::pow_scalar:
    case Grad::rdiv_scalar:
    case Grad::clamp:
#define TC_UNARY_OP(name, ...) case Grad::name:
#include "math/unary_ops.def"
    case Grad::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "fused3: not a three-operand formula");
}

void grad2(Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p) {
  switch (f) {
    case Grad::pow_scalar:
      fused2_cpu<Grad::pow_scalar>(out, g, x, p);
      return;
    case Grad::rdiv_scalar:
      fused2_cpu<Grad::rdiv_scalar>(out, g, x, p);
      return;
    case Grad::clamp:
      fused2_cpu<Grad::clamp>(out, g, x, p);
      return;
#define TC_UNARY_OP(name, ...)            \
  case Grad::name:                        \
    fused2_cpu<Grad::name>(out, g, x, p); \
    return;
#include "math/unary_ops.def"
#define TC_BINARY_OP(name, ...) \
  case Grad::name##_a:          \
  case Grad::name##_b:
#include "math/binary_ops.def"
    case Grad::count_:
      break;
  }
  fail(TC_ERR_INTERNAL, "fused2: not a two-operand formula");
}

// This set's reductions (reduce.cpp, compiled for the same set).
void reduce(Reduce op, const Tensor& out, const Tensor& a);
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim);
// ... and its generator and optimizer steps (random_optim.cpp).
void fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed, uint64_t offset);
void sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s);
void adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v, const optim::AdamStep& s);

// ... and its softmax family, losses, indexing (nn.cpp) and transformer
// primitives (transformer.cpp).
void softmax(const Tensor& y, const Tensor& x, int64_t dim, bool log);
void softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim, bool log);
void cross_entropy_forward(const Tensor& probs, const Tensor& losses, const Tensor& x, const Tensor& target);
void nll_forward(const Tensor& losses, const Tensor& x, const Tensor& target);
void reduce_losses(const Tensor& out, const Tensor& losses, int32_t reduction);
void cross_entropy_backward(const Tensor& gx, const Tensor& probs, const Tensor& target, const Tensor& g,
                            int32_t reduction);
void nll_backward(const Tensor& gx, const Tensor& target, const Tensor& g, int32_t reduction);
Tensor mse_loss(const Tensor& input, const Tensor& target, int32_t reduction);
Tensor mse_loss_backward(const Tensor& g, const Tensor& input, const Tensor& target, int32_t reduction);
int64_t first_out_of_range(const Tensor& index, int64_t bound);
int64_t read_index(const Tensor& index, int64_t pos);
void index_gather(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index, bool index_select);
void index_scatter_add(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& idx, bool index_select);
void one_hot(const Tensor& out, const Tensor& index, int64_t classes);
void norm_forward(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,
                  const Tensor& b, double eps);
void norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g, const Tensor& x,
                   const Tensor& mean, const Tensor& rstd, const Tensor& w);
void causal_softmax(const Tensor& y, const Tensor& x, double scale);
void causal_softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, double scale);
void triangle(const Tensor& out, const Tensor& a, int64_t diagonal, bool lower);
void cumsum(const Tensor& out, const Tensor& a, int64_t dim, bool reverse);
void topk(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, bool largest);
int64_t multinomial(const Tensor& out, const Tensor& p, const Tensor& u, bool replacement);
// ... and linear's bias-gradient column sums (reduce.cpp).
void column_sums(const Tensor& out, const Tensor& g2);
void gelu_keeping_cdf(const Tensor& y, const Tensor& cdf, const Tensor& x);
void gelu_backward_from_cdf(const Tensor& gx, const Tensor& g, const Tensor& x, const Tensor& cdf);

const KernelSet kKernels = {
#ifdef TC_CPU_NATIVE
    "native",
#else
    TC_CPU_ISA_STR_X(TC_CPU_ISA),
#endif
    &binary,
    &binary_scalar,
    &unary,
    &clamp,
    &where,
    &grad2,
    &grad3,
    &reduce,
    &arg_reduce,
    &fill_random,
    &sgd_step,
    &adam_step,
    &softmax,
    &softmax_backward,
    &cross_entropy_forward,
    &nll_forward,
    &reduce_losses,
    &cross_entropy_backward,
    &nll_backward,
    &mse_loss,
    &mse_loss_backward,
    &first_out_of_range,
    &read_index,
    &index_gather,
    &index_scatter_add,
    &one_hot,
    &norm_forward,
    &norm_backward,
    &causal_softmax,
    &causal_softmax_backward,
    &triangle,
    &cumsum,
    &topk,
    &multinomial,
    &column_sums,
    &gelu_keeping_cdf,
    &gelu_backward_from_cdf,
};

}  // namespace tc::cpu::TC_CPU_ISA_NS
