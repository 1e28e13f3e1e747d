// torch.linalg.householder_product (LAPACK's orgqr), eig/eigvals (geev) and
// lstsq (gels, gelsy, gelsd, gelss): checks with PyTorch's messages, the
// device's LinalgBackend kernels, and the backward formulas, composed of
// recorded ops so that they differentiate again.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/engine.h"
#include "autograd/function.h"
#include "backend/linalg_backend.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/init.h"
#include "math/rows/compare_gt.h"
#include "math/rows/unary_abs.h"
#include "math/rows/unary_isfinite.h"
#include "math/rows/unary_reciprocal.h"
#include "math/rows/unary_square.h"
#include "ops/linalg_ops.h"
#include "ops/nn_util.h"
#include "ops/ops.h"

namespace tc::ops::linalg {
namespace {

Tensor mT(const Tensor& t) { return ops::transpose(t, -2, -1); }
int64_t rows(const Tensor& t) { return t->shape[t->ndim() - 2]; }
int64_t cols(const Tensor& t) { return t->shape[t->ndim() - 1]; }
Dims batch_dims(const Tensor& a, int64_t trailing) {
  Dims b = a->shape;
  b.resize(b.size() - size_t(trailing));
  return b;
}
Dims append(Dims d, std::initializer_list<int64_t> tail) {
  for (int64_t x : tail) d.push_back(x);
  return d;
}
void check_float(const Tensor& a, const char* op) {
  TC_CHECK(a->dtype == DType::f32 || a->dtype == DType::f64, TC_ERR_DTYPE, op,
           ": Expected a floating point or complex tensor as input. Got ", dtype_name(a->dtype),
           " (libtc computes float32 and float64)");
}
const LinalgBackend& kernels(const Tensor& a) { return linalg_backend_for(a->device); }
double eps_of(DType d) {
  return d == DType::f32 ? double(std::numeric_limits<float>::epsilon())
                         : std::numeric_limits<double>::epsilon();
}
// H x = x - tau v (v^T x) for reflectors v [..., m, 1] and tau [..., 1, 1].
Tensor reflect(const Tensor& x, const Tensor& v, const Tensor& tau) {
  return ops::sub(x, ops::mul(tau, ops::matmul(v, ops::matmul(mT(v), x))));
}

// The gradient of Q = (H_1 ... H_k)[:, :n] (H_i = I - tau_i v_i v_i^T, v_i
// the i-th column of the reflectors with a unit i-th entry and zeros above)
// with respect to the reflectors' storage a [..., m, n] and tau [..., k].
// With A_i = H_{i-1} ... H_1 gQ and R_i = H_{i+1} ... H_k E (E the first n
// columns of I), the loss is <A_i, H_i R_i>, so g tau_i = -(A_i^T v)·(R_i^T
// v) and g v_i = -tau_i (A_i R_i^T v + R_i A_i^T v) on the entries below i.
std::pair<Tensor, Tensor> householder_product_backward(const Tensor& g, const Tensor& a, const Tensor& tau) {
  const int64_t m = rows(a), n = cols(a), k = cols(tau);
  Tensor vs = ops::add(ops::tril(a, -1), eye(m, n, a->dtype, a->device));
  const size_t count = size_t(k);
  std::vector<Tensor> v(count), t(count), r(count);
  for (int64_t i = 0; i < k; ++i) {
    v[size_t(i)] = ops::narrow(vs, -1, i, 1);
    t[size_t(i)] = ops::unsqueeze(ops::narrow(tau, -1, i, 1), -1);
  }
  if (k > 0) r[size_t(k - 1)] = ops::expand(eye(m, n, a->dtype, a->device), append(batch_dims(a, 2), {m, n}));
  for (int64_t i = k - 1; i > 0; --i) r[size_t(i - 1)] = reflect(r[size_t(i)], v[size_t(i)], t[size_t(i)]);
  Tensor ai = g;
  std::vector<Tensor> gcols, gtaus;
  for (int64_t i = 0; i < k; ++i) {
    const Tensor &vi = v[size_t(i)], &ti = t[size_t(i)], &ri = r[size_t(i)];
    Tensor atv = ops::matmul(mT(ai), vi);  // [..., n, 1]
    Tensor rtv = ops::matmul(mT(ri), vi);
    gtaus.push_back(ops::mul_scalar(ops::sum(ops::mul(atv, rtv), {-2, -1}, false), -1.0));
    Tensor gv = ops::mul(ops::mul_scalar(ti, -1.0), ops::add(ops::matmul(ai, rtv), ops::matmul(ri, atv)));
    // Only the entries below the diagonal are read from a.
    Tensor mask = ops::tril(ones(Dims{m, 1}, a->dtype, a->device), -(i + 1));
    gcols.push_back(ops::mul(gv, mask));
    ai = reflect(ai, vi, ti);
  }
  if (n > k) gcols.push_back(ops::mul_scalar(ops::narrow(a, -1, k, n - k), 0.0));
  Tensor ga = k > 0 || n > k ? ops::cat(gcols, -1) : ops::mul_scalar(a, 0.0);
  Tensor gt = k > 0 ? ops::stack(gtaus, -1) : ops::mul_scalar(tau, 0.0);
  return {ga, gt};
}

// A complex matrix as its real and imaginary parts (libtc's eig returns
// (real, imaginary) pairs; its backward is composed of real recorded ops).
struct Cplx {
  Tensor re, im;
};
Cplx split_pairs(const Tensor& pairs) { return {ops::select(pairs, -1, 0), ops::select(pairs, -1, 1)}; }
Cplx cmatmul(const Cplx& a, const Cplx& b) {
  return {ops::sub(ops::matmul(a.re, b.re), ops::matmul(a.im, b.im)),
          ops::add(ops::matmul(a.re, b.im), ops::matmul(a.im, b.re))};
}
Cplx adjoint(const Cplx& a) { return {mT(a.re), ops::mul_scalar(mT(a.im), -1.0)}; }
// The solution X of A X = B through the real system [[Ar, -Ai], [Ai, Ar]] [Xr; Xi] = [Br; Bi].
Cplx csolve(const Cplx& a, const Cplx& b) {
  const int64_t n = rows(a.re);
  const Tensor top = ops::cat({a.re, ops::mul_scalar(a.im, -1.0)}, -1);
  const Tensor bottom = ops::cat({a.im, a.re}, -1);
  const Tensor x = solve_ex(ops::cat({top, bottom}, -2), ops::cat({b.re, b.im}, -2), true, false).first;
  return {ops::narrow(x, -2, 0, n), ops::narrow(x, -2, n, n)};
}

// PyTorch 1.13's linalg_eig_backward for a real input (the real part of the
// complex gradient): with the eigenvalues L and unit eigenvectors V,
//   gA = V^-H (diag(gL) + ((V^H gV - V^H V Re diag(V^H gV)) / E)) V^H,
// E_ij = conj(L_j) - conj(L_i) off the diagonal. A loss that depends on the
// eigenvectors' phases (Im diag(V^H gV) != 0) is ill-defined: refused with
// PyTorch's message. gw: [..., n, 2] pairs or null; gv: [..., n, n, 2] or null.
Tensor eig_backward(const Tensor& gw, const Tensor& gv, const Tensor& w, const Tensor& v) {
  const Cplx V = split_pairs(v), L = split_pairs(w), Vh = adjoint(V);
  const int64_t n = rows(V.re);
  const Tensor eye_n = eye(n, n, v->dtype, v->device);
  Cplx ga{ops::mul_scalar(V.re, 0.0), ops::mul_scalar(V.re, 0.0)};
  if (gv) {
    const Cplx gV = split_pairs(gv);
    const Cplx vhgv = cmatmul(Vh, gV);
    const Tensor diag_im = ops::diagonal(vhgv.im, 0, -2, -1);
    if (diag_im->numel() > 0) {
      // torch: allclose(imag(diag(V^H gV)), 0, rtol=1e-2, atol=1e-2)
      const Tensor big = ops::amax(ops::unary(row::abs, diag_im), {}, false);
      const double worst = read_element(tc::to_device(big, kCPU), 0);
      TC_CHECK(
          worst <= 1e-2, TC_ERR_INVALID_ARGUMENT,
          "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
          "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
    }
    const Tensor d = ops::unsqueeze(ops::diagonal(vhgv.re, 0, -2, -1), -2);  // Re diag, scaling V's columns
    const Cplx vhvd = cmatmul(Vh, Cplx{ops::mul(V.re, d), ops::mul(V.im, d)});
    const Cplx num{ops::sub(vhgv.re, vhvd.re), ops::sub(vhgv.im, vhvd.im)};
    // E = conj(L_j) - conj(L_i); num / E with the diagonal (E = 0) masked out.
    const Tensor er = ops::sub(ops::unsqueeze(L.re, -2), ops::unsqueeze(L.re, -1));
    const Tensor ei = ops::sub(ops::unsqueeze(L.im, -1), ops::unsqueeze(L.im, -2));
    const Tensor den = ops::add(ops::add(ops::mul(er, er), ops::mul(ei, ei)), eye_n);
    const Tensor off = ops::sub(ones(Dims{n, n}, v->dtype, v->device), eye_n);
    ga.re = ops::div(ops::mul(ops::add(ops::mul(num.re, er), ops::mul(num.im, ei)), off), den);
    ga.im = ops::div(ops::mul(ops::sub(ops::mul(num.im, er), ops::mul(num.re, ei)), off), den);
  }
  if (gw) {
    const Cplx gL = split_pairs(gw);
    ga.re = ops::add(ga.re, ops::mul(ops::unsqueeze(gL.re, -1), eye_n));
    ga.im = ops::add(ga.im, ops::mul(ops::unsqueeze(gL.im, -1), eye_n));
  }
  return csolve(Vh, cmatmul(ga, Vh)).re;
}
}  // namespace

Tensor householder_product(const Tensor& a, const Tensor& tau) {
  const char* op = "torch.linalg.householder_product";
  check_float(a, op);
  TC_CHECK(a->ndim() >= 2, TC_ERR_SHAPE, op, ": input must have at least 2 dimensions.");
  TC_CHECK(tau->dtype == a->dtype, TC_ERR_DTYPE, op, ": tau dtype ", dtype_name(tau->dtype),
           " does not match input dtype ", dtype_name(a->dtype));
  const int64_t m = rows(a), n = cols(a);
  TC_CHECK(m >= n, TC_ERR_SHAPE, op, ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TC_CHECK(tau->ndim() == a->ndim() - 1, TC_ERR_SHAPE, op,
           ": input.dim() - tau.dim() should be 1 but got shapes ", a->shape, " and ", tau->shape);
  const int64_t k = tau->shape[tau->ndim() - 1];
  TC_CHECK(n >= k, TC_ERR_SHAPE, op, ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  TC_CHECK(batch_dims(tau, 1) == batch_dims(a, 2), TC_ERR_SHAPE, op,
           ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
           batch_dims(tau, 1));
  linalg_backend_for(a->device);
  Tensor q = clone_data(a);
  if (q->numel() > 0) {
    if (k > 0) {
      kernels(a).householder_product(q, tc::contiguous(tau));
    } else {  // no reflector: the first n columns of the identity
      ops::copy_(q, ops::expand(eye(m, n, a->dtype, a->device), a->shape));
    }
  }
  autograd::record_function("LinalgHouseholderProductBackward0", {a, tau}, {q}, {a, tau},
                            [](const autograd::Grads& g, const std::vector<Tensor>& saved) {
                              if (!g[0]) return autograd::Grads{Tensor(), Tensor()};
                              auto [ga, gt] = householder_product_backward(g[0], saved[0], saved[1]);
                              return autograd::Grads{ga, gt};
                            });
  return q;
}

namespace {

// geev's eigenvalues and (vectors: else an empty tensor) eigenvectors, unrecorded.
std::pair<Tensor, Tensor> eig_raw(const Tensor& a, bool vectors, const char* op) {
  check_float(a, op);
  TC_CHECK(a->ndim() >= 2, TC_ERR_SHAPE, op, ": The input tensor A must have at least 2 dimensions.");
  const int64_t n = cols(a);
  TC_CHECK(rows(a) == n, TC_ERR_SHAPE, op, ": A must be batches of square matrices, but they are ", rows(a),
           " by ", n, " matrices");
  linalg_backend_for(a->device);
  Tensor work = clone_data(a);
  {  // geev would iterate on them: PyTorch refuses them first
    const Tensor finite = ops::all(ops::unary(row::isfinite, work), {}, false);
    TC_CHECK(read_element(tc::to_device(finite, kCPU), 0) != 0.0, TC_ERR_INVALID_ARGUMENT,
             "torch.linalg.eig: input tensor should not contain infs or NaNs.");
  }
  const Dims batch = batch_dims(a, 2);
  Tensor w = empty(append(batch, {n, 2}), a->dtype, a->device);
  Tensor v = vectors ? empty(append(batch, {n, n, 2}), a->dtype, a->device) : empty({0}, a->dtype, a->device);
  Tensor info = zeros(batch, DType::i32, a->device);
  if (work->numel() > 0) {
    kernels(a).eig(work, w, vectors ? v : Tensor(), info);
    const Tensor ic = tc::to_device(info, kCPU);
    const int32_t* p = ic->data_as<int32_t>();
    for (int64_t i = 0; i < ic->numel(); ++i)
      TC_CHECK(p[i] == 0, TC_ERR_INVALID_ARGUMENT, op, ": ",
               a->ndim() > 2 ? str("(Batch element ", i, "): ") : std::string(),
               "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
               "repeated eigenvalues (error code: ",
               p[i], ").");
  }
  return {w, v};
}

}  // namespace

std::pair<Tensor, Tensor> eig(const Tensor& a, bool vectors) {
  // eigvals' gradient needs the eigenvectors too: as PyTorch's eigvals under
  // grad (linalg_eig itself), the node has both outputs, the eigenvectors
  // unreturned, so that a second differentiation reaches them through
  // output_with_graph like eig's.
  const bool grad = autograd::needs_grad({a});
  auto [w, v] = eig_raw(a, vectors || grad, vectors ? "linalg.eig" : "linalg.eigvals");
  autograd::record_function(
      "LinalgEigBackward0", {a}, {w, v}, {autograd::alias(w), autograd::alias(v)},
      [](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        if (!g[0] && !g[1]) return autograd::Grads{Tensor()};
        return autograd::Grads{eig_backward(g[0], g[1], autograd::output_with_graph(saved[0], 0),
                                            autograd::output_with_graph(saved[1], 1))};
      });
  return {w, vectors ? v : empty({0}, a->dtype, a->device)};
}

namespace {
// PyTorch's pinv_backward: the gradient of P = pinv(A) from gP (real A),
// valid wherever the rank of A does not change; composed of recorded ops.
Tensor pinv_backward(const Tensor& g, const Tensor& p, const Tensor& a) {
  const Tensor ph = mT(p), gh = mT(g);
  if (rows(a) <= cols(a)) {
    const Tensor k = ops::matmul(gh, p);
    const Tensor k_ph = ops::matmul(k, ph);
    Tensor r = ops::sub(k_ph, mT(ops::matmul(p, k)));
    r = ops::sub(r, ops::matmul(ops::matmul(a, p), k_ph));
    return ops::add(r, ops::matmul(ops::matmul(ph, p), ops::sub(gh, ops::matmul(k, a))));
  }
  const Tensor k = ops::matmul(p, gh);
  const Tensor ph_k = ops::matmul(ph, k);
  Tensor r = ops::sub(ph_k, mT(ops::matmul(k, p)));
  r = ops::add(r, ops::matmul(ops::matmul(ops::sub(gh, ops::matmul(a, k)), p), ph));
  return ops::sub(r, ops::matmul(ops::matmul(ph_k, p), a));
}

// pinv(A) with PyTorch's default cutoff (singular values at or below
// eps * max(m, n) * the largest count as zero), computed without a graph and
// recorded with pinv_backward's formula, as PyTorch records linalg_pinv: the
// SVD's own formula is undefined where singular values repeat, as the zero
// ones of a rank-deficient matrix do.
Tensor pinv_recorded(const Tensor& a) {
  const int64_t m = rows(a), n = cols(a);
  Tensor p;
  {
    NoGradGuard no_grad;
    if (a->numel() == 0) {
      p = zeros(append(batch_dims(a, 2), {n, m}), a->dtype, a->device);
    } else {
      auto [u, s, vh] = svd(a, false);
      const double rtol = eps_of(a->dtype) * double(std::max(m, n));
      const Tensor keep = ops::binary(row::gt, s, ops::mul_scalar(ops::amax(s, {-1}, true), rtol));
      const Tensor s_inv = ops::where(
          keep, ops::unary(row::reciprocal, ops::where(keep, s, ones(s->shape, s->dtype, s->device))),
          zeros_like(s));
      p = ops::matmul(ops::mul(mT(vh), ops::unsqueeze(s_inv, -2)), mT(u));
    }
  }
  autograd::record_function(
      "LinalgPinvBackward0", {a}, {p}, {a, autograd::alias(p)},
      [](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        if (!g[0]) return autograd::Grads{Tensor()};
        return autograd::Grads{pinv_backward(g[0], autograd::output_with_graph(saved[1]), saved[0])};
      });
  return p;
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& a, const Tensor& b_in, double rcond,
                                                 int32_t driver) {
  TC_CHECK(!std::isnan(rcond), TC_ERR_INVALID_ARGUMENT, "rcond must not be NaN");
  const char* op = "torch.linalg.lstsq";
  check_float(a, op);
  TC_CHECK(a->ndim() >= 2, TC_ERR_SHAPE, op, ": input must have at least 2 dimensions.");
  TC_CHECK(b_in->dtype == a->dtype, TC_ERR_DTYPE, op,
           ": Expected input and other to have the same dtype, but got input's dtype ", dtype_name(a->dtype),
           " and other's dtype ", dtype_name(b_in->dtype));
  TC_CHECK(driver >= kLstsqGels && driver <= kLstsqGelss, TC_ERR_INVALID_ARGUMENT, op,
           ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  TC_CHECK(b_in->ndim() >= 1, TC_ERR_SHAPE, op, ": other must have at least 1 dimension.");
  // PyTorch's rule: B is a (batch of) vector(s) when it has one dim less than A.
  const bool vector = b_in->ndim() == a->ndim() - 1;
  const Tensor b = vector ? ops::unsqueeze(b_in, -1) : b_in;
  const int64_t m = rows(a), n = cols(a), k = cols(b), mn = std::min(m, n);
  TC_CHECK(rows(b) == m, TC_ERR_SHAPE, op,
           vector ? ": input.size(-2) should match other.size(-1)"
                  : ": input.size(-2) should match other.size(-2)");
  linalg_backend_for(a->device);
  const Dims batch = broadcast_shapes(batch_dims(a, 2), batch_dims(b, 2), op);
  if (rcond < 0) rcond = eps_of(a->dtype) * double(std::max(m, n));
  Tensor aw = clone_data(ops::expand(ops::detach(a), append(batch, {m, n})));
  // LAPACK writes X over B, which needs max(m, n) rows.
  Tensor bw = zeros(append(batch, {std::max(m, n), k}), a->dtype, a->device);
  ops::copy_(ops::narrow(bw, -2, 0, m), ops::expand(ops::detach(b), append(batch, {m, k})));
  const bool has_rank = driver != kLstsqGels, has_s = driver == kLstsqGelsd || driver == kLstsqGelss;
  Tensor rank = has_rank ? zeros(batch, DType::i64, a->device) : empty({0}, DType::i64, a->device);
  Tensor s = has_s ? zeros(append(batch, {mn}), a->dtype, a->device) : empty({0}, a->dtype, a->device);
  Tensor info = zeros(batch, DType::i32, a->device);
  if (aw->numel() > 0 && bw->numel() > 0) {
    kernels(a).lstsq(aw, bw, driver, rcond, has_rank ? rank : Tensor(), has_s ? s : Tensor(), info);
    const Tensor ic = tc::to_device(info, kCPU);
    const int32_t* p = ic->data_as<int32_t>();
    for (int64_t i = 0; i < ic->numel(); ++i)
      TC_CHECK(
          p[i] == 0, TC_ERR_INVALID_ARGUMENT, op,
          ": The least squares solution could not be computed because the input matrix does not have full "
          "rank (error code: ",
          p[i], ").");
  } else if (has_rank && aw->numel() == 0) {
    fill_(rank, 0.0);
  }
  Tensor x = clone_data(ops::narrow(bw, -2, 0, n));
  // PyTorch's residuals: for m > n, when every matrix has full rank (or the
  // driver, gels, does not tell), the squared norms of the rows below n.
  Tensor residuals = empty({0}, a->dtype, a->device);
  if (m > n && driver != kLstsqGelsy) {
    bool full = true;
    if (has_rank) {
      const Tensor rc = tc::to_device(rank, kCPU);
      for (int64_t i = 0; i < rc->numel() && full; ++i) full = rc->data_as<int64_t>()[i] == n;
    }
    if (full)
      residuals = clone_data(ops::sum(ops::unary(row::square, ops::narrow(bw, -2, n, m - n)), {-2}, false));
  }
  // (PyTorch keeps the residuals' trailing dim of 1 for a vector B.)
  if (vector) x = ops::squeeze(x, -1);
  const Dims ashape = a->shape, bshape = b_in->shape;
  // PyTorch's gradient (linalg_lstsq_backward), through the pseudo-inverse
  // with its default cutoff whatever rcond and driver were: gB = pinv(A)^T gX,
  // gA = pinv_backward(gX B^T). It holds for rank-deficient A too (the
  // drivers other than gels exist for those); a formula through (A^T A)^-1
  // gave NaN there. The pseudo-inverse is recorded (pinv_recorded), so the
  // gradient differentiates again.
  // Each gradient only for an input that needs it (PyTorch's grad_input_mask):
  // gA's pinv_backward is several n^3 products.
  const bool need_a = autograd::needs_grad({a}), need_b = autograd::needs_grad({b_in});
  autograd::record_function(
      "LinalgLstsqBackward0", {a, b_in}, {x}, {a, b_in},
      [ashape, bshape, vector, need_a, need_b](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        if (!g[0]) return autograd::Grads{Tensor(), Tensor()};
        const Tensor& A = saved[0];
        const Tensor gx = vector ? ops::unsqueeze(g[0], -1) : g[0];
        const Tensor pinv_a = pinv_recorded(A);
        Tensor ga, gb;
        if (need_a) {
          const Tensor B = vector ? ops::unsqueeze(saved[1], -1) : saved[1];
          ga = ops::sum_to_size(pinv_backward(ops::matmul(gx, mT(B)), pinv_a, A), ashape);
        }
        if (need_b) {
          gb = ops::matmul(mT(pinv_a), gx);
          gb = ops::sum_to_size(vector ? ops::squeeze(gb, -1) : gb, bshape);
        }
        return autograd::Grads{ga, gb};
      });
  return {x, residuals, rank, s};
}

}  // namespace tc::ops::linalg
