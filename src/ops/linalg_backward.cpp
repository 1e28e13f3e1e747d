// The gradient formulas of the linalg ops, PyTorch's (FunctionsManual.cpp)
// for real matrices, written with recorded ops so that they differentiate
// again. A null gradient stands for zeros: each formula drops its terms.
#include <algorithm>
#include <vector>

#include "autograd/function.h"
#include "core/dtype.h"
#include "core/error.h"
#include "ops/internal.h"
#include "ops/linalg_ops.h"
#include "ops/ops.h"

namespace tc::ops::linalg::detail {
namespace {

Tensor mT(const Tensor& t) { return ops::transpose(t, -2, -1); }
int64_t rows(const Tensor& t) { return t->shape[t->ndim() - 2]; }
int64_t cols(const Tensor& t) { return t->shape[t->ndim() - 1]; }
Tensor identity(int64_t n, const Tensor& like) { return eye(n, n, like->dtype, like->device); }
// v [..., k] -> [..., k, k] with v on the diagonal.
Tensor diag_embed(const Tensor& v) { return ops::mul(ops::unsqueeze(v, -1), identity(cols(v), v)); }
Tensor add_opt(const Tensor& a, const Tensor& b) { return !a ? b : (!b ? a : ops::add(a, b)); }
Tensor expand2(const Tensor& v) { return ops::unsqueeze(ops::unsqueeze(v, -1), -1); }
// X with its diagonal halved (the lower-triangle projection of the Cholesky/LU formulas).
Tensor tril_half_diag(const Tensor& x) {
  const Tensor i = identity(cols(x), x);
  return ops::mul(ops::tril(x, 0), ops::add_scalar(ops::mul_scalar(i, -0.5), 1.0));
}

// QR's gradient for m >= n (Q [m, n], R [n, n]): gA = (gQ + Q copyltu(M)) R^-T,
// M = R gR^T - gQ^T Q, copyltu(M) the symmetric matrix of M's lower triangle.
Tensor qr_backward_tall(const Tensor& gq, const Tensor& gr, const Tensor& q, const Tensor& r) {
  Tensor m = gr ? ops::matmul(r, mT(gr)) : Tensor();
  if (gq) m = add_opt(m, ops::mul_scalar(ops::matmul(mT(gq), q), -1.0));
  Tensor copyltu = ops::add(ops::tril(m, 0), mT(ops::tril(m, -1)));
  Tensor b = add_opt(gq, ops::matmul(q, copyltu));
  return solve_triangular(mT(r), b, false, false, false);
}

// The cofactor matrix of A [..., n, n] from its (n-1) x (n-1) minors, in
// recorded ops: exact for a singular A, and differentiable again (each
// minor's determinant takes det's own backward). The SVD's form is not, at
// rank n - 1: it differentiates |sigma_min| at its kink, and PyTorch 1.13's
// double backward of det (which takes it) is wrong there. n^2 determinants:
// used only for a singular A under create_graph.
Tensor cofactor_by_minors(const Tensor& a) {
  const int64_t n = cols(a);
  if (n == 1) return ones(a->shape, a->dtype, a->device);
  // idx[i] = 0..n-1 without i, flattened
  Tensor idx = empty({n * (n - 1)}, DType::i64, kCPU);
  int64_t* p = idx->data_as<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k)
      if (k != i) *p++ = k;
  idx = tc::to_device(idx, a->device);
  Dims batch = a->shape;
  batch.resize(batch.size() - 2);
  const int64_t nb = int64_t(batch.size());
  Dims rows_shape = batch, minors_shape = batch, perm;
  for (int64_t x : {n, n - 1, n}) rows_shape.push_back(x);
  for (int64_t x : {n, n - 1, n, n - 1}) minors_shape.push_back(x);
  for (int64_t b = 0; b < nb; ++b) perm.push_back(b);
  for (int64_t x : {nb, nb + 2, nb + 1, nb + 3}) perm.push_back(x);
  // [..., i, n - 1, n] (row i left out), then [..., i, r, j, c] (column j
  // left out), then [..., i, j, r, c]
  Tensor rows_out = ops::reshape(ops::index_select(a, nb, idx), rows_shape);
  Tensor minors = ops::reshape(ops::index_select(rows_out, nb + 2, idx), minors_shape);
  Tensor m = linalg::det(ops::permute(minors, perm));  // [..., n, n]
  Tensor sign = zeros(Dims{n, n}, DType::f64, kCPU);
  double* sp = sign->data_as<double>();
  for (int64_t i = 0; i < n * n; ++i) sp[i] = ((i / n + i % n) % 2) ? -1.0 : 1.0;
  return ops::mul(m, cast(tc::to_device(sign, a->device), a->dtype));
}

}  // namespace

Tensor inv_backward(const Tensor& g, const Tensor& inverse) {
  if (!g) return Tensor();
  Tensor it = mT(inverse);
  return ops::mul_scalar(ops::matmul(ops::matmul(it, g), it), -1.0);
}

Tensor det_backward(const Tensor& g, const Tensor& a, const Tensor& det) {
  if (!g) return Tensor();
  const Tensor dc = tc::contiguous(det);
  bool singular = false;
  for (int64_t i = 0; i < dc->numel() && !singular; ++i) singular = read_element(dc, i) == 0.0;
  if (!singular)  // g det A^-T
    return ops::mul(expand2(ops::mul(g, det)), mT(inv_ex(a, false).first));
  if (ops::detail::creating_graph()) return ops::mul(expand2(g), cofactor_by_minors(a));
  // (Not under create_graph:) the cofactor matrix through the SVD, valid for
  // singular A too (O(n^3)): with A = U S Vh, cof(A) = det(U) det(Vh) U diag(prod_{j != i} S_j) Vh.
  auto [u, s, vh] = linalg::svd(a, false);
  const Tensor i = identity(cols(s), s);
  Tensor others =
      ops::add(ops::mul(ops::unsqueeze(s, -2), ops::add_scalar(ops::mul_scalar(i, -1.0), 1.0)), i);
  Tensor d = ops::prod(others, {-1}, false);  // [..., k]: the product of the other singular values
  Tensor alpha = ops::mul(linalg::det(u), linalg::det(vh));
  Tensor coeff = ops::mul(ops::unsqueeze(ops::mul(alpha, g), -1), d);
  return ops::matmul(ops::mul(u, ops::unsqueeze(coeff, -2)), vh);
}

Tensor slogdet_backward(const Tensor& g_logabsdet, const Tensor& a) {
  if (!g_logabsdet) return Tensor();
  return ops::mul(expand2(g_logabsdet), mT(inv_ex(a, false).first));
}

Tensor cholesky_backward(const Tensor& g, const Tensor& l, bool upper) {
  if (!g) return Tensor();
  // A = L L^T: gA = L^-T Phi(L^T gL) L^-1, symmetrized (Phi: the lower
  // triangle with the diagonal halved).
  const Tensor lo = upper ? mT(l) : l, gl = upper ? mT(g) : g;
  Tensor phi = tril_half_diag(ops::matmul(mT(lo), gl));
  Tensor y = solve_triangular(mT(lo), phi, true, true, false);  // L^-T Phi
  Tensor ga =
      mT(solve_triangular(mT(lo), mT(y), true, true, false));  // (L^-T (L^-T Phi)^T)^T = L^-T Phi L^-1
  return ops::mul_scalar(ops::add(ga, mT(ga)), 0.5);
}

std::pair<Tensor, Tensor> triangular_solve_backward(const Tensor& g, const Tensor& a, const Tensor& x,
                                                    bool upper, bool left, bool unitriangular) {
  if (!g) return {Tensor(), Tensor()};
  TC_CHECK(left, TC_ERR_INTERNAL, "triangular_solve_backward: left only (right solves are transposed)");
  // X = A^-1 B: gB = A^-T g; gA = -gB X^T on A's triangle (without the diagonal when unit).
  Tensor gb = solve_triangular(mT(a), g, !upper, true, unitriangular);
  Tensor ga = ops::mul_scalar(ops::matmul(gb, mT(x)), -1.0);
  ga = upper ? ops::triu(ga, unitriangular ? 1 : 0) : ops::tril(ga, unitriangular ? -1 : 0);
  return {ga, gb};
}

Tensor qr_backward(const Tensor& gq, const Tensor& gr, const Tensor& q, const Tensor& r, int32_t mode) {
  if (!gq && !gr) return Tensor();
  TC_CHECK(mode != kQrR, TC_ERR_AUTOGRAD,
           "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = rows(q), n = cols(r);
  TC_CHECK(mode != kQrComplete || m <= n, TC_ERR_AUTOGRAD,
           "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  if (m >= n) return qr_backward_tall(gq, gr, q, r);
  // Wide A = [X | Y], R = [U | V]: X = Q U is square QR; Y = Q V.
  Tensor u = ops::narrow(r, -1, 0, m), v = ops::narrow(r, -1, m, n - m);
  Tensor gu = gr ? ops::narrow(gr, -1, 0, m) : Tensor(), gv = gr ? ops::narrow(gr, -1, m, n - m) : Tensor();
  Tensor y = ops::matmul(q, v);
  Tensor gq2 = gv ? add_opt(gq, ops::matmul(y, mT(gv))) : gq;
  Tensor gx = qr_backward_tall(gq2, gu, q, u);
  Tensor gy = gv ? ops::matmul(q, gv) : ops::mul_scalar(y, 0.0);
  return ops::cat({gx, gy}, -1);
}

Tensor svd_backward(const Tensor& gu_in, const Tensor& gs, const Tensor& gvh_in, const Tensor& u_in,
                    const Tensor& s, const Tensor& vh_in, bool full_matrices) {
  if (!gu_in && !gs && !gvh_in) return Tensor();
  const int64_t m = rows(u_in), n = cols(vh_in), k = cols(s);
  // Only the first k singular vectors take part (full_matrices' extra ones
  // are not determined by A).
  Tensor u = full_matrices ? ops::narrow(u_in, -1, 0, k) : u_in;
  Tensor vh = full_matrices ? ops::narrow(vh_in, -2, 0, k) : vh_in;
  Tensor gu = gu_in && full_matrices ? ops::narrow(gu_in, -1, 0, k) : gu_in;
  Tensor gvh = gvh_in && full_matrices ? ops::narrow(gvh_in, -2, 0, k) : gvh_in;
  if (!gu && !gvh) return ops::matmul(ops::mul(u, ops::unsqueeze(gs, -2)), vh);
  Tensor v = mT(vh), gv = gvh ? mT(gvh) : Tensor();
  const Tensor i = identity(k, s);
  Tensor s2 = ops::mul(s, s);
  Tensor e = ops::add(ops::sub(ops::unsqueeze(s2, -2), ops::unsqueeze(s2, -1)),
                      i);  // S_j^2 - S_i^2, 1 on the diagonal
  Tensor ga;
  if (gu) {
    Tensor uhgu = ops::matmul(mT(u), gu);
    ga = ops::mul(ops::sub(uhgu, mT(uhgu)), ops::unsqueeze(s, -2));
  }
  if (gv) {
    Tensor vhgv = ops::matmul(mT(v), gv);
    ga = add_opt(ga, ops::mul(ops::unsqueeze(s, -1), ops::sub(vhgv, mT(vhgv))));
  }
  ga = ops::div(ga, e);
  if (gs) ga = ops::add(ga, diag_embed(gs));
  if (m > n && gu) {
    ga = ops::matmul(u, ga);
    Tensor gus = ops::div(gu, ops::unsqueeze(s, -2));
    ga = ops::add(ga, ops::sub(gus, ops::matmul(u, ops::matmul(mT(u), gus))));
    return ops::matmul(ga, vh);
  }
  if (m < n && gv) {
    ga = ops::matmul(ga, vh);
    Tensor gvs = ops::div(gv, ops::unsqueeze(s, -2));
    ga = ops::add(ga, ops::sub(mT(gvs), ops::matmul(ops::matmul(mT(gvs), v), vh)));
    return ops::matmul(u, ga);
  }
  return ops::matmul(ops::matmul(u, ga), vh);
}

Tensor eigh_backward(const Tensor& gl, const Tensor& gv, const Tensor& l, const Tensor& v) {
  if (!gl && !gv) return Tensor();
  Tensor ga;
  if (gv) {
    // The skew-symmetric part of V^T gV over E_ij = L_j - L_i (1 on the diagonal, where it is 0).
    Tensor vhgv = ops::matmul(mT(v), gv);
    Tensor skew = ops::mul_scalar(ops::sub(vhgv, mT(vhgv)), 0.5);
    Tensor e = ops::add(ops::sub(ops::unsqueeze(l, -2), ops::unsqueeze(l, -1)), identity(cols(l), l));
    ga = ops::div(skew, e);
  }
  if (gl) ga = add_opt(ga, diag_embed(gl));
  return ops::matmul(ops::matmul(v, ga), mT(v));
}

Tensor lu_backward(const Tensor& gl, const Tensor& gu, const Tensor& p, const Tensor& l, const Tensor& u) {
  if (!gl && !gu) return Tensor();
  // A = P L U: gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T.
  Tensor phi = gl ? ops::tril(ops::matmul(mT(l), gl), -1) : Tensor();
  if (gu) phi = add_opt(phi, ops::triu(ops::matmul(gu, mT(u)), 0));
  Tensor y = solve_triangular(mT(l), phi, true, true, true);
  Tensor z = solve_triangular(mT(u), y, false, false, false);
  return ops::matmul(p, z);
}

Tensor pivots_to_permutation(const Tensor& pivots, int64_t m, DType dtype) {
  const int64_t k = pivots->shape[pivots->ndim() - 1];
  Dims batch = pivots->shape;
  batch.resize(batch.size() - 1);
  Dims shape = batch;
  shape.push_back(m);
  shape.push_back(m);
  Tensor p = zeros(shape, DType::f64, kCPU);
  const Tensor piv = tc::to_device(tc::contiguous(pivots), kCPU);
  const int32_t* pp = piv->data_as<int32_t>();
  double* out = p->data_as<double>();
  std::vector<int64_t> perm(static_cast<size_t>(m));
  const int64_t count = numel_of(batch);
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < m; ++i) perm[size_t(i)] = i;
    for (int64_t i = 0; i < k; ++i) std::swap(perm[size_t(i)], perm[size_t(pp[b * k + i] - 1)]);
    // Row j of L U is row perm[j] of A: A = P (L U) with P[perm[j], j] = 1.
    for (int64_t j = 0; j < m; ++j) out[b * m * m + perm[size_t(j)] * m + j] = 1.0;
  }
  return cast(tc::to_device(p, pivots->device), dtype);
}

}  // namespace tc::ops::linalg::detail
