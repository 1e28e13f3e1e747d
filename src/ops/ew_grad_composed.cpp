// The elementwise rows' backward formulas as recorded ops (see the header).
// The generated cases (ew_grad_composed_generated.inc) are the formulas'
// text over two value types: V, a tensor or a plain number (the formulas'
// constants stay numbers, so `g * C(2)` is mul_scalar, not a broadcast), and
// B, a condition (a bool tensor or a known bool); `c ? a : b` becomes
// sel(c, a, b), a `where`, through which gradients reach only the branch
// taken, as the formula's value does.
#include "ops/ew_grad_composed.h"

#include <cmath>
#include <cstring>

#include "math/elementwise_math.h"
#include "math/op_enums.h"
#include "ops/ops.h"

namespace tc::ops::composed {
// Named, not anonymous: a row set without some helper must not warn.
namespace dsl {

using ew::kSeluAlpha;
using ew::kSeluScale;
using ew::special::kInvSqrt2Pi;
using ew::special::kInvSqrtPi;

struct V {
  Tensor t;  // null: the number c
  double c = 0;
  V(double v) : c(v) {}         // NOLINT(google-explicit-constructor): formulas mix numbers and tensors
  V(const Tensor& x) : t(x) {}  // NOLINT(google-explicit-constructor)
  bool num() const { return !t; }
};

struct B {
  Tensor t;  // null: the known value c
  bool c = false;
  B(bool v) : c(v) {}           // NOLINT(google-explicit-constructor)
  B(const Tensor& x) : t(x) {}  // NOLINT(google-explicit-constructor)
};

Tensor as_tensor(const V& v, const Tensor& like) {
  return v.num() ? scalar_tensor(v.c, like->dtype, like->device) : v.t;
}

V operator+(const V& a, const V& b) {
  if (a.num() && b.num()) return a.c + b.c;
  if (a.num()) return add_scalar(b.t, a.c);
  if (b.num()) return add_scalar(a.t, b.c);
  return add(a.t, b.t);
}
V operator-(const V& a) { return a.num() ? V(-a.c) : V(unary(UnaryOp::neg, a.t)); }
V operator-(const V& a, const V& b) {
  if (a.num() && b.num()) return a.c - b.c;
  if (a.num()) return binary_scalar(ScalarOp::rsub, b.t, a.c);
  if (b.num()) return binary_scalar(ScalarOp::sub, a.t, b.c);
  return sub(a.t, b.t);
}
V operator*(const V& a, const V& b) {
  if (a.num() && b.num()) return a.c * b.c;
  if (a.num()) return mul_scalar(b.t, a.c);
  if (b.num()) return mul_scalar(a.t, b.c);
  return mul(a.t, b.t);
}
V operator/(const V& a, const V& b) {
  if (a.num() && b.num()) return a.c / b.c;
  if (a.num()) return binary_scalar(ScalarOp::rdiv, b.t, a.c);
  if (b.num()) return binary_scalar(ScalarOp::div, a.t, b.c);
  return div(a.t, b.t);
}

// a (op) b for a comparison op; `swapped` is the op with its operands exchanged.
B compare(BinaryOp op, BinaryOp swapped, const V& a, const V& b, bool known) {
  if (a.num() && b.num()) return known;
  if (b.num()) return compare_scalar(op, a.t, b.c);
  if (a.num()) return compare_scalar(swapped, b.t, a.c);
  return binary(op, a.t, b.t);
}
B operator>(const V& a, const V& b) { return compare(BinaryOp::gt, BinaryOp::lt, a, b, a.c > b.c); }
B operator<(const V& a, const V& b) { return compare(BinaryOp::lt, BinaryOp::gt, a, b, a.c < b.c); }
B operator>=(const V& a, const V& b) { return compare(BinaryOp::ge, BinaryOp::le, a, b, a.c >= b.c); }
B operator<=(const V& a, const V& b) { return compare(BinaryOp::le, BinaryOp::ge, a, b, a.c <= b.c); }
B operator==(const V& a, const V& b) { return compare(BinaryOp::eq, BinaryOp::eq, a, b, a.c == b.c); }
B operator!=(const V& a, const V& b) { return compare(BinaryOp::ne, BinaryOp::ne, a, b, a.c != b.c); }
B operator&&(const B& a, const B& b) {
  if (!a.t) return a.c ? b : B(false);
  if (!b.t) return b.c ? a : B(false);
  return binary(BinaryOp::logical_and, a.t, b.t);
}
B operator||(const B& a, const B& b) {
  if (!a.t) return a.c ? B(true) : b;
  if (!b.t) return b.c ? B(true) : a;
  return binary(BinaryOp::logical_or, a.t, b.t);
}

// c ? a : b (like: a tensor of the result's dtype and device).
V sel(const V& like, const B& c, const V& a, const V& b) {
  if (!c.t) return c.c ? a : b;
  return where(c.t, as_tensor(a, like.t), as_tensor(b, like.t));
}

V un(UnaryOp op, const V& a) { return unary(op, as_tensor(a, a.t ? a.t : scalar_tensor(0, DType::f64))); }
V exp_(const V& a) { return un(UnaryOp::exp, a); }
V exp2_(const V& a) { return un(UnaryOp::exp2, a); }
V log_(const V& a) { return un(UnaryOp::log, a); }
V sqrt_(const V& a) { return un(UnaryOp::sqrt, a); }
V sin_(const V& a) { return un(UnaryOp::sin, a); }
V cos_(const V& a) { return un(UnaryOp::cos, a); }
V sinh_(const V& a) { return un(UnaryOp::sinh, a); }
V cosh_(const V& a) { return un(UnaryOp::cosh, a); }
V abs_(const V& a) { return un(UnaryOp::abs, a); }
V trunc_(const V& a) { return un(UnaryOp::trunc, a); }
V floor_(const V& a) { return un(UnaryOp::floor, a); }
V sigmoid_(const V& a) { return un(UnaryOp::sigmoid, a); }
V digamma_(const V& a) { return un(UnaryOp::digamma, a); }
V i0_(const V& a) { return un(UnaryOp::i0, a); }
V i1_(const V& a) { return un(UnaryOp::i1, a); }
V i0e_(const V& a) { return un(UnaryOp::i0e, a); }
V i1e_(const V& a) { return un(UnaryOp::i1e, a); }
V erfcx_(const V& a) { return un(UnaryOp::erfcx, a); }
V tanh_(const V& a) { return un(UnaryOp::tanh, a); }
V softplus_(const V& a) { return un(UnaryOp::softplus, a); }
V ndtr_(const V& a) { return un(UnaryOp::ndtr, a); }
V log_ndtr_(const V& a) { return un(UnaryOp::log_ndtr, a); }
V polygamma_(const V& n, const V& a) { return unary(UnaryOp::polygamma, a.t, n.c, 0); }
V trigamma_(const V& a) { return polygamma_(V(1.0), a); }
V mvdigamma_(const V& a, const V& p) {
  V s = digamma_(a);
  for (int j = 1; j < int(p.c); ++j) s = s + digamma_(a - V(0.5 * j));
  return s;
}
V binop(BinaryOp op, const V& a, const V& b) {
  const Tensor& like = a.t ? a.t : b.t;
  return binary(op, as_tensor(a, like), as_tensor(b, like));
}
V pow_(const V& a, const V& b) {
  if (b.num() && a.t) return binary_scalar(ScalarOp::pow, a.t, b.c);
  return binop(BinaryOp::pow, a, b);
}
V hypot_(const V& a, const V& b) { return binop(BinaryOp::hypot, a, b); }
V copysign_(const V& a, const V& b) { return binop(BinaryOp::copysign, a, b); }
V sign_(const V& a) { return un(UnaryOp::sign, a); }

// The derivatives of the rows whose kernels call a helper (compute_math.h,
// gelu_math.h, special_math.h), written out in the same terms.
V gelu_erf_grad_(const V& g, const V& x) {  // Phi(x) + x phi(x)
  return g * (ndtr_(x) + x * V(kInvSqrt2Pi) * exp_(V(-0.5) * x * x));
}
V gelu_tanh_grad_(const V& g, const V& x) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846), c = 0.044715;
  const V t = tanh_(V(k) * (x + V(c) * x * x * x));
  return g * (V(0.5) * (V(1.0) + t) + V(0.5) * x * (V(1.0) - t * t) * V(k) * (V(1.0) + V(3.0 * c) * x * x));
}
V mish_grad_(const V& g, const V& x) {  // tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2)
  const V t = tanh_(softplus_(x));
  return g * (t + x * sigmoid_(x) * (V(1.0) - t * t));
}
V i0e_grad_(const V& x) { return i1e_(x) - sign_(x) * i0e_(x); }
V i1_grad_(const V& x) { return i0_(x) - i1_(x) / x; }
V i1e_grad_(const V& x) { return i0e_(x) - i1e_(x) * (sign_(x) + V(1.0) / x); }
V igamma_grad_x_(const V& a, const V& x) {  // x^(a-1) e^-x / Gamma(a)
  return exp_((a - V(1.0)) * log_(x) - x - un(UnaryOp::lgamma, a));
}
V log_ndtr_grad_(const V& x) { return V(kInvSqrt2Pi) * exp_(V(-0.5) * x * x - log_ndtr_(x)); }

// The gradient as a tensor of g's dtype (a constant formula: zeros, through g).
Tensor done(const V& g, const V& r) {
  if (!r.num()) return r.t;
  Tensor z = mul_scalar(g.t, 0.0);
  return r.c == 0 ? z : add_scalar(z, r.c);
}

}  // namespace dsl

using namespace dsl;

#include "ops/ew_grad_composed_generated.inc"

Tensor unary_grad(UnaryOp op, const Tensor& g_in, const Tensor& s, double p_in, double q_in) {
  const V g(g_in), x(s), y(s), p(p_in), q(q_in);
  (void)x;
  (void)y;
  (void)p;
  (void)q;
  switch (op) {
    TC_COMPOSED_UNARY_CASES
    default:
      break;
  }
  return nullptr;
}

Tensor binary_grad(BinaryOp op, bool for_b, const Tensor& g_in, const Tensor& x_in, const Tensor& y_in) {
  const V g(g_in), x(x_in), y(y_in);
  (void)x;
  (void)y;
  switch (op) {
    TC_COMPOSED_BINARY_CASES
    default:
      break;
  }
  return nullptr;
}

bool has_composed_grad(const char* node) {
  static const char* const kNames[] = {TC_COMPOSED_NODE_NAMES};
  for (const char* n : kNames)
    if (std::strcmp(n, node) == 0) return true;
  return false;
}

}  // namespace tc::ops::composed
