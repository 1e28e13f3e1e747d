// Elementwise ops with broadcasting and PyTorch's type promotion. The kernels
// (forward maps and the fused backward formulas of math/elementwise_math.h)
// are the device's backend primitives (src/backend/backend.h); a backend that
// computes float16/bfloat16 (CUDA, in float) takes them past the dtype checks.
#include <cmath>
#include <iterator>
#include <limits>

#include "autograd/engine.h"
#include "backend/backend.h"
#include "core/init.h"
#include "math/elementwise_math.h"
#include "ops/ew_grad_composed.h"
#include "ops/internal.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {

// Indexed by BinaryOp: sized by count_, filled from the .def rows.
const char* const kBinaryNames[] = {
#define TC_BINARY_OP(name, ...) #name,
#include "math/binary_ops.def"
#define TC_COMPARE_OP(name, ...) #name,
#include "math/compare_ops.def"
};
static_assert(std::size(kBinaryNames) == size_t(BinaryOp::count_));
const char* const kBinaryGradNames[] = {
#define TC_BINARY_OP(name, GradName, ...) #GradName,
#include "math/binary_ops.def"
};
static_assert(std::size(kBinaryGradNames) == size_t(kArithmeticBinaryOps));
// Whether an op's gradients read its inputs, which gradients are g itself
// (column 1) and which PyTorch does not implement either (column 2: backward
// raises when that input needs one).
struct BinaryGradInfo {
  bool saves, a_is_g, b_is_g, a_missing, b_missing;
};
constexpr BinaryGradInfo kBinaryGradInfo[] = {
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, ...) \
  {saves != 0, a_is_g == 1, b_is_g == 1, a_is_g == 2, b_is_g == 2},
#include "math/binary_ops.def"
};

using ew::Grad;

// t itself when its dtype is already `dtype`, else cast(t, dtype) kept in
// `keep`: no reference-count traffic (two lock-prefixed instructions, which
// dominate a 1-element op's time more than their count suggests) on the usual
// path, whose inputs need no cast.
const Tensor& cast_ref(const Tensor& t, DType dtype, Tensor& keep) {
  if (t->dtype == dtype) return t;
  keep = cast(t, dtype);
  return keep;
}

// A new tensor of g's shape and dtype: out = formula(g, x, y) with x, y
// broadcast (computed in double on the CPU).
Tensor fused3(Grad f, const Tensor& g, const Tensor& x, const Tensor& y) {
  Tensor out = empty(g->shape, g->dtype, g->device);
  backend_for(g).grad3(f, out, g, cast(x, g->dtype), cast(y, g->dtype));
  return out;
}

// out = formula(g, x) in g's dtype (x: the saved input or output).
Tensor fused2(Grad f, const Tensor& g, const Tensor& x, const ew::GradParams& p = {}) {
  Tensor out = empty(g->shape, g->dtype, g->device);
  backend_for(g).grad2(f, out, g, cast(x, g->dtype), p);
  return out;
}

// The CPU computes float32, float64 and the integer types (bool where
// allowed); CUDA also float16 and bfloat16 (in float).
void check_dtype(const char* op, const char* arg, const Tensor& t, bool allow_bool) {
  if (!backend_for(t).computes_half) return check_compute_dtype(op, arg, t->dtype, allow_bool);
  TC_CHECK(allow_bool || t->dtype != DType::b8, TC_ERR_DTYPE, op, ": ", arg,
           " is bool, and arithmetic on bool tensors is not supported");
}

// The gradient for an input: summed over broadcast dims, in the input's dtype.
Tensor finish(const Tensor& g, const Dims& shape, DType dtype) {
  return bw_cast(autograd::reduce_to_shape(g, shape), dtype);
}

void check_binary_dtypes(const Backend& be, const char* name, const Tensor& a, const Tensor& b, DType ct,
                         bool cmp) {
  const bool half = !be.computes_half && (a->dtype == DType::f16 || a->dtype == DType::bf16 ||
                                          b->dtype == DType::f16 || b->dtype == DType::bf16);
  TC_CHECK(!half, TC_ERR_DTYPE, name, ": float16/bfloat16 arithmetic is not supported on the CPU (a is ",
           describe(a), ", b is ", describe(b), "); convert to float32 first");
  TC_CHECK(cmp || ct != DType::b8, TC_ERR_DTYPE, name, ": arithmetic on bool tensors is not supported (a is ",
           describe(a), ", b is ", describe(b), ")");
}

}  // namespace

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  if (is_complex(a->dtype) || is_complex(b->dtype)) return complex_binary(op, a, b);
  const char* name = kBinaryNames[int(op)];
  check_same_device(name, a, b, true);
  const Backend& be = backend_for(a);
  const bool cmp = is_comparison(op);
  DType ct = result_type2(a, b);
  check_binary_dtypes(be, name, a, b, ct, ew::binary_takes_bool(op));
  ct = binary_compute_dtype(op, name, a, b, ct);  // the row's dtypes (ops/binary_ext.cpp)
  const Dims shape = a->shape == b->shape ? a->shape : broadcast_shapes(a->shape, b->shape, name);
  Tensor a_cast, b_cast;
  const Tensor& ac = cast_ref(a, ct, a_cast);
  const Tensor& bc = cast_ref(b, ct, b_cast);
  if (ew::binary_integer_division(op) && !is_floating(ct)) check_no_zero_divisor(name, a, bc);
  Tensor out = empty(shape, cmp ? DType::b8 : ct, a->device);
  be.binary(op, out, ac, bc);
  if (cmp || !ew::binary_differentiable(op) || !autograd::needs_grad({&a, &b})) return out;

  const bool need_a = a->requires_grad, need_b = b->requires_grad;
  const Dims sa = a->shape, sb = b->shape;
  const DType da = a->dtype, db = b->dtype;
  const BinaryGradInfo info = kBinaryGradInfo[int(op)];
  auto backward = [=](const Grads& gs, const std::vector<Tensor>& saved) -> Grads {
    const Tensor& g = gs[0];
    TC_CHECK(!(need_a && info.a_missing) && !(need_b && info.b_missing), TC_ERR_NOT_IMPLEMENTED,
             "the derivative for '", name, ": ", need_a && info.a_missing ? "input" : "other",
             "' is not implemented (PyTorch has none either; a is its input, b its other)");
    // Formulas that read neither input get g in their place (unused).
    const Tensor x = saved.empty() ? g : bw_cast(saved[0], ct), y = saved.empty() ? g : bw_cast(saved[1], ct);
    Tensor ga, gb;
    if (creating_graph()) {  // recorded ops, so that the gradients can be differentiated again
      if (need_a) ga = info.a_is_g ? g : composed::binary_grad(op, false, g, x, y);
      if (need_b) gb = info.b_is_g ? g : composed::binary_grad(op, true, g, x, y);
    }
    if (need_a && !ga) ga = info.a_is_g ? g : fused3(ew::binary_grad(op, false), g, x, y);
    if (need_b && !gb) gb = info.b_is_g ? g : fused3(ew::binary_grad(op, true), g, x, y);
    return {need_a && ga ? finish(ga, sa, da) : nullptr, need_b && gb ? finish(gb, sb, db) : nullptr};
  };
  // Two calls rather than a vector chosen at run time: braced lists cost no allocation.
  if (info.saves) {
    autograd::record_function(kBinaryGradNames[int(op)], {a, b}, {out}, {a, b}, std::move(backward));
  } else {
    autograd::record_function(kBinaryGradNames[int(op)], {a, b}, {out}, {}, std::move(backward));
  }
  return out;
}

namespace {
const char* const kScalarNames[] = {
#define TC_SCALAR_OP(name, ...) #name "_scalar",
#include "math/scalar_ops.def"
};
static_assert(std::size(kScalarNames) == size_t(ScalarOp::count_));
const char* const kScalarGradNames[] = {
#define TC_SCALAR_OP(name, GradName, ...) #GradName,
#include "math/scalar_ops.def"
};
static_assert(std::size(kScalarGradNames) == size_t(ScalarOp::count_));

}  // namespace

Tensor binary_scalar(ScalarOp op, const Tensor& a, double s) {
  if (is_complex(a->dtype)) return complex_binary_scalar(op, a, s);
  const char* name = kScalarNames[int(op)];
  check_same_device(name, a, a, true);
  check_dtype(name, "a", a, true);
  const DType ct = result_type_scalar(a);  // bool/integer tensors become the default float dtype
  Tensor a_cast;
  const Tensor& ac = cast_ref(a, ct, a_cast);
  Tensor out = empty(a->shape, ct, a->device);
  backend_for(out).binary_scalar(op, out, ac, s);
  if (!autograd::needs_grad({&a})) return out;
  const bool save = op == ScalarOp::pow || op == ScalarOp::rdiv;
  autograd::record_function(
      kScalarGradNames[int(op)], {a}, {out}, save ? std::vector<Tensor>{a} : std::vector<Tensor>{},
      [op, s](const Grads& gs, const std::vector<Tensor>& saved) -> Grads {
        const Tensor& g = gs[0];
        switch (op) {
          case ScalarOp::add:
          case ScalarOp::sub:
            return {g};
          case ScalarOp::mul:
            return {mul_scalar(g, s)};
          case ScalarOp::div:
            return {binary_scalar(ScalarOp::div, g, s)};
          case ScalarOp::rsub:
            return {unary(UnaryOp::neg, g)};
          case ScalarOp::pow:
          case ScalarOp::rdiv: {
            if (creating_graph()) {  // recorded: g s x^(s-1), or -g s / x^2
              const Tensor& x = saved[0];
              if (op == ScalarOp::pow) {
                if (s == 0) return {mul_scalar(g, 0.0)};
                return {mul(mul_scalar(g, s), binary_scalar(ScalarOp::pow, x, s - 1))};
              }
              return {mul_scalar(ops::div(g, mul(x, x)), -s)};
            }
            ew::GradParams p;
            p.s = s;
            return {fused2(op == ScalarOp::pow ? Grad::pow_scalar : Grad::rdiv_scalar, g, saved[0], p)};
          }
          case ScalarOp::count_:
            break;
        }
        return {nullptr};
      });
  return out;
}

namespace {
// Indexed by UnaryOp: sized by count_, filled from unary_ops.def's rows.
const char* const kUnaryNames[] = {
#define TC_UNARY_OP(name, ...) #name,
#include "math/unary_ops.def"
};
static_assert(std::size(kUnaryNames) == size_t(UnaryOp::count_));
const char* const kUnaryGradNames[] = {
#define TC_UNARY_OP(name, GradName, ...) #GradName,
#include "math/unary_ops.def"
};
static_assert(std::size(kUnaryGradNames) == size_t(UnaryOp::count_));

}  // namespace

namespace {
// The exact GELU's fast path where the backend has it (CPU float32): the
// forward also writes Phi(x), and the backward reads it instead of evaluating
// erfc again (one exponential instead of two, no division or polynomial),
// with the same bits as the row's formulas. Costs a saved tensor of x's size
// while the graph lives (PyTorch saves only x). Returns null, having written
// nothing, where the backend has no such kernel.
Tensor gelu_keeping_cdf(const Tensor& out, const Tensor& x) {
  Tensor cdf = empty(x->shape, x->dtype, x->device);
  if (!backend_for(x).gelu_keeping_cdf(out, cdf, x)) return nullptr;
  autograd::record_function(kUnaryGradNames[int(UnaryOp::gelu)], {x}, {out}, {x, cdf},
                            [](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              const Tensor& xs = s[0];
                              if (creating_graph())
                                return {composed::unary_grad(UnaryOp::gelu, g[0], xs, 0, 0)};
                              Tensor gx = empty(xs->shape, xs->dtype, xs->device);
                              backend_for(xs).gelu_backward_from_cdf(
                                  gx, tc::contiguous_on_device(cast(g[0], xs->dtype)),
                                  tc::contiguous_on_device(xs), s[1]);
                              return {gx};
                            });
  return cdf;
}
}  // namespace

namespace {
// The rows whose parameters PyTorch checks: polygamma's order n, mvlgamma's
// dimension p. (PyTorch 1.13 no longer checks mvlgamma's domain a > (p-1)/2.)
void check_unary_arguments(UnaryOp op, double p) {
  if (op == UnaryOp::polygamma) {
    TC_CHECK(p >= 0 && p == std::floor(p), TC_ERR_INVALID_ARGUMENT,
             "polygamma(n, x) does not support negative n (n must be a non-negative integer, got ", p, ")");
  } else if (op == UnaryOp::mvlgamma) {
    // The kernel sums p terms per element with an int counter; PyTorch builds
    // a p-element tensor per call, so a p beyond 2^24 cannot run there either.
    TC_CHECK(p >= 1 && p == std::floor(p), TC_ERR_INVALID_ARGUMENT,
             "mvlgamma: p has to be an integer greater than or equal to 1 (got ", p, ")");
    TC_CHECK(p <= double(1 << 24), TC_ERR_INVALID_ARGUMENT, "mvlgamma: p must be at most 2^24 (got ", p, ")");
  }
}
}  // namespace

Tensor unary(UnaryOp op, const Tensor& a) {
  TC_CHECK(int(op) >= 0 && op < UnaryOp::count_, TC_ERR_INTERNAL, "unary: op ", int(op), " out of range");
  const ew::UnaryInfo info = ew::unary_info(op);
  return unary(op, a, info.p0, info.q0);
}

Tensor unary(UnaryOp op, const Tensor& a, double p, double q) {
  TC_CHECK(int(op) >= 0 && op < UnaryOp::count_, TC_ERR_INTERNAL, "unary: op ", int(op), " out of range");
  if (is_complex(a->dtype)) return complex_unary(op, a);
  const char* name = kUnaryNames[int(op)];
  const ew::UnaryInfo info = ew::unary_info(op);
  check_same_device(name, a, a, true);
  // Like PyTorch, the floating ops compute integer and bool tensors in the
  // default float dtype (a cast: such inputs never require grad).
  const bool promote = info.dtypes == ew::UnaryDtypes::floating && !is_floating(a->dtype);
  Tensor promoted;
  const Tensor& x = promote ? (promoted = cast(a, default_dtype())) : a;
  check_dtype(name, "a", x, info.bools);
  TC_CHECK(info.floats || !is_floating(x->dtype), TC_ERR_DTYPE, name,
           ": expected an integer or bool tensor but got ", describe(a));
  check_unary_arguments(op, p);
  Tensor out = empty(x->shape, info.bool_result ? DType::b8 : x->dtype, x->device);
  if (op == UnaryOp::gelu && x->dtype == DType::f32 && x->numel() > 0 && x->is_contiguous() &&
      autograd::needs_grad({&a})) {
    if (Tensor kept = gelu_keeping_cdf(out, x)) return out;
  }
  backend_for(out).unary(op, out, x, p, q);
  if (!info.differentiable || !autograd::needs_grad({&a})) return out;
  ew::GradParams gp;
  gp.unary_params = true;
  gp.up = p;
  gp.uq = q;
  const bool saves_output = info.save == ew::Save::output;
  auto backward = [op, gp, saves_output](const Grads& g, const std::vector<Tensor>& s) -> Grads {
    if (creating_graph()) {  // recorded ops; a saved output through its node again
      const Tensor saved = s.empty() ? g[0] : saves_output ? autograd::output_with_graph(s[0]) : s[0];
      if (Tensor r = composed::unary_grad(op, g[0], saved, gp.up, gp.uq)) return {r};
    }
    // Formulas that save nothing get g in its place (unused).
    return {fused2(ew::unary_grad(op), g[0], s.empty() ? g[0] : s[0], gp)};
  };
  const char* grad_name = kUnaryGradNames[int(op)];
  if (info.save == ew::Save::input) {
    autograd::record_function(grad_name, {a}, {out}, {a}, std::move(backward));
  } else if (info.save == ew::Save::output) {
    autograd::record_function(grad_name, {a}, {out}, {autograd::alias(out)}, std::move(backward));
  } else {
    autograd::record_function(grad_name, {a}, {out}, {}, std::move(backward));
  }
  return out;
}

Tensor clamp(const Tensor& a, double lo, double hi) {
  check_same_device("clamp", a, a, true);
  check_dtype("clamp", "a", a, false);
  const bool has_lo = !std::isnan(lo), has_hi = !std::isnan(hi);
  const bool integral_bounds = (!has_lo || lo == std::floor(lo)) && (!has_hi || hi == std::floor(hi));
  // Like torch.clamp: fractional bounds promote an integer tensor to the default float dtype.
  const DType ct = is_floating(a->dtype) || integral_bounds ? a->dtype : default_dtype();
  const Tensor ac = cast(a, ct);
  Tensor out = empty(a->shape, ct, a->device);
  backend_for(out).clamp(out, ac, lo, hi);
  ew::GradParams p;
  p.lo = lo;
  p.hi = hi;
  p.has_lo = has_lo;
  p.has_hi = has_hi;
  autograd::record_function(
      "ClampBackward", {a}, {out}, {a}, [p](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        if (creating_graph()) {  // g where lo <= x <= hi, recorded
          Tensor keep = ones(s[0]->shape, DType::b8, s[0]->device);
          if (p.has_lo) keep = binary(BinaryOp::logical_and, keep, compare_scalar(BinaryOp::ge, s[0], p.lo));
          if (p.has_hi) keep = binary(BinaryOp::logical_and, keep, compare_scalar(BinaryOp::le, s[0], p.hi));
          return {where(keep, g[0], zeros(Dims{}, g[0]->dtype, g[0]->device))};
        }
        return {fused2(Grad::clamp, g[0], s[0], p)};
      });
  return out;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_same_device("where", cond, a, true);
  check_same_device("where", a, b, true);
  TC_CHECK(cond->dtype == DType::b8, TC_ERR_DTYPE, "where: cond must be a bool tensor but is ",
           describe(cond));
  const DType ct = result_type2(a, b);
  check_binary_dtypes(backend_for(a), "where", a, b, ct, true);
  const Dims shape = broadcast_shapes(cond->shape, broadcast_shapes(a->shape, b->shape, "where"), "where");
  const Tensor ac = cast(a, ct), bc = cast(b, ct);
  Tensor out = empty(shape, ct, a->device);
  backend_for(out).where(out, cond, ac, bc);
  if (!autograd::needs_grad({&a, &b})) return out;
  const bool need_a = a->requires_grad, need_b = b->requires_grad;
  const Dims sa = a->shape, sb = b->shape;
  const DType da = a->dtype, db = b->dtype;
  autograd::record_function("WhereBackward", {a, b}, {out}, {cond},
                            [=](const Grads& gs, const std::vector<Tensor>& s) -> Grads {
                              const Tensor& g = gs[0];
                              if (creating_graph()) {  // recorded where()s
                                const Tensor zero = zeros(Dims{}, g->dtype, g->device);
                                return {need_a ? finish(where(s[0], g, zero), sa, da) : nullptr,
                                        need_b ? finish(where(s[0], zero, g), sb, db) : nullptr};
                              }
                              auto pick = [&](bool when) {
                                Tensor r = empty(g->shape, g->dtype, g->device);
                                const Tensor zero = zeros(Dims{}, g->dtype, g->device);
                                backend_for(r).where(r, s[0], when ? g : zero, when ? zero : g);
                                return r;
                              };
                              return {need_a ? finish(pick(true), sa, da) : nullptr,
                                      need_b ? finish(pick(false), sb, db) : nullptr};
                            });
  return out;
}

Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(BinaryOp::sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(BinaryOp::mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(BinaryOp::div, a, b); }
Tensor mul_scalar(const Tensor& a, double s) { return binary_scalar(ScalarOp::mul, a, s); }
Tensor add_scalar(const Tensor& a, double s) { return binary_scalar(ScalarOp::add, a, s); }

}  // namespace tc::ops
