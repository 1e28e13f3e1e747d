// The generic forms of the batch and group normalisation primitives
// (src/backend/backend.h), through the ops, for a backend without its own kernels
// (the CUDA module, today): the same formulas as src/cpu/norm_layers.cpp,
// several passes each. Compiled into libtc and the CUDA module
// (TC_SHARED_WITH_MODULE): it calls only ops the module forwards.
#include "backend/backend.h"
#include "backend/composite.h"
#include "core/init.h"
#include "math/scalar_op_enum.h"
#include "ops/ops.h"

namespace tc {
namespace {

using ops::BinaryOp;
using ops::ScalarOp;

// Contiguous t viewed as [n, c, s].
Tensor as3(const Tensor& t, int64_t n, int64_t c, int64_t s) {
  return make_view(t, {n, c, s}, {c * s, s, 1}, t->offset);
}
// A per-channel [C] vector as [1, C, 1].
Tensor channel(const Tensor& v) { return as3(v, 1, v->shape[0], 1); }

struct Shape3 {
  int64_t n, c, s;
};
Shape3 shape3(const Tensor& x) {
  const int64_t n = x->shape[0], c = x->shape[1];
  return {n, c, n * c != 0 ? x->numel() / (n * c) : 0};
}

// y = xhat (w) (+ b), xhat [N, C, S].
Tensor affine(Tensor y, const Tensor& w, const Tensor& b) {
  if (w) y = composite::mul(y, channel(w));
  if (b) y = composite::add(y, channel(b));
  return y;
}

Tensor rsqrt_plus(const Tensor& var, double eps) {
  return ops::binary_scalar(ScalarOp::pow, ops::binary_scalar(ScalarOp::add, var, eps), -0.5);
}

}  // namespace

void Backend::batch_norm_forward(const Tensor& y, const Tensor& mean, const Tensor& invstd,
                                 const Tensor& var_unbiased, const Tensor& x, const Tensor& w,
                                 const Tensor& b, double eps) const {
  NoGradGuard ng;
  const Shape3 d = shape3(x);
  Tensor xs = as3(x, d.n, d.c, d.s);
  Tensor mu = ops::mean(xs, {0, 2}, true);
  Tensor xc = composite::sub(xs, mu);
  Tensor var = ops::mean(composite::mul(xc, xc), {0, 2}, true);
  Tensor inv = rsqrt_plus(var, eps);
  copy_into(channel(mean), mu);
  copy_into(channel(invstd), inv);
  if (var_unbiased) {
    const double m = double(d.n * d.s);
    copy_into(channel(var_unbiased), ops::binary_scalar(ScalarOp::mul, var, m / (m - 1)));
  }
  copy_into(as3(y, d.n, d.c, d.s), affine(composite::mul(xc, inv), w, b));
}

void Backend::batch_norm_apply(const Tensor& y, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                               const Tensor& w, const Tensor& b) const {
  NoGradGuard ng;
  const Shape3 d = shape3(x);
  Tensor xhat = composite::mul(composite::sub(as3(x, d.n, d.c, d.s), channel(mean)), channel(invstd));
  copy_into(as3(y, d.n, d.c, d.s), affine(xhat, w, b));
}

void Backend::batch_norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                                  const Tensor& x, const Tensor& mean, const Tensor& invstd, const Tensor& w,
                                  bool training) const {
  NoGradGuard ng;
  const Shape3 d = shape3(x);
  Tensor gs = as3(g, d.n, d.c, d.s);
  Tensor xhat = composite::mul(composite::sub(as3(x, d.n, d.c, d.s), channel(mean)), channel(invstd));
  Tensor gxhat = composite::mul(gs, xhat);
  if (gb) copy_into(channel(gb), ops::sum(gs, {0, 2}, true));
  if (gw) copy_into(channel(gw), ops::sum(gxhat, {0, 2}, true));
  if (!gx) return;
  Tensor inner = gs;
  if (training)
    inner = composite::sub(composite::sub(gs, ops::mean(gs, {0, 2}, true)),
                           composite::mul(xhat, ops::mean(gxhat, {0, 2}, true)));
  Tensor scale = w ? composite::mul(channel(invstd), channel(w)) : channel(invstd);
  copy_into(as3(gx, d.n, d.c, d.s), composite::mul(inner, scale));
}

void Backend::group_norm_forward(const Tensor& y, const Tensor& mean, const Tensor& invstd, const Tensor& x,
                                 const Tensor& w, const Tensor& b, int64_t groups, double eps) const {
  NoGradGuard ng;
  const Shape3 d = shape3(x);
  const int64_t len = d.c / groups * d.s;
  Tensor xr = as3(x, d.n, groups, len);
  Tensor mu = ops::mean(xr, {2}, true);
  Tensor xc = composite::sub(xr, mu);
  Tensor inv = rsqrt_plus(ops::mean(composite::mul(xc, xc), {2}, true), eps);
  copy_into(as3(mean, d.n, groups, 1), mu);
  copy_into(as3(invstd, d.n, groups, 1), inv);
  Tensor xhat = composite::mul(xc, inv);
  copy_into(as3(y, d.n, d.c, d.s), affine(as3(xhat, d.n, d.c, d.s), w, b));
}

void Backend::group_norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                                  const Tensor& x, const Tensor& mean, const Tensor& invstd, const Tensor& w,
                                  int64_t groups) const {
  NoGradGuard ng;
  const Shape3 d = shape3(x);
  const int64_t len = d.c / groups * d.s;
  Tensor m3 = as3(mean, d.n, groups, 1), r3 = as3(invstd, d.n, groups, 1);
  Tensor xhat = as3(composite::mul(composite::sub(as3(x, d.n, groups, len), m3), r3), d.n, d.c, d.s);
  Tensor gs = as3(g, d.n, d.c, d.s);
  if (gb) copy_into(channel(gb), ops::sum(gs, {0, 2}, true));
  if (gw) copy_into(channel(gw), ops::sum(composite::mul(gs, xhat), {0, 2}, true));
  if (!gx) return;
  // gx = invstd (wg - mean(wg) - xhat mean(wg xhat)) over each group, wg = w g.
  Tensor wg = as3(w ? composite::mul(gs, channel(w)) : gs, d.n, groups, len);
  Tensor xh = as3(xhat, d.n, groups, len);
  Tensor inner = composite::sub(composite::sub(wg, ops::mean(wg, {2}, true)),
                                composite::mul(xh, ops::mean(composite::mul(wg, xh), {2}, true)));
  copy_into(as3(gx, d.n, groups, len), composite::mul(inner, r3));
}

}  // namespace tc
