// The tc_linalg_* functions: check handles and out-pointers, call the core
// (ops/linalg_lapack.cpp), hand out the results. Out-params are written
// last, only on success; several results become handles together.
#include <cmath>
#include <initializer_list>

#include "abi/api.h"
#include "ops/linalg_ops.h"

using tc::api;
using tc::get_tensor;
using tc::out_ptr;
namespace la = tc::ops::linalg;

namespace {
// Writes the handles of ts to outs (all or none).
void hand_out(std::initializer_list<tc::Tensor> ts, std::initializer_list<tc_tensor*> outs) {
  tc_tensor hs[4];
  tc::new_handles(std::vector<tc::Tensor>(ts), hs);
  int i = 0;
  for (tc_tensor* o : outs) *o = hs[i++];
}
}  // namespace

extern "C" {

int32_t tc_linalg_lu_factor_ex(tc_tensor a, int32_t pivot, int32_t check_errors, tc_tensor* LU,
                               tc_tensor* pivots, tc_tensor* info) {
  return api(__func__, [&] {
    out_ptr(LU, "LU");
    out_ptr(pivots, "pivots");
    out_ptr(info, "info");
    auto [lu, p, inf] = la::lu_factor_ex(get_tensor(a, "a"), pivot != 0, check_errors != 0);
    hand_out({lu, p, inf}, {LU, pivots, info});
  });
}

int32_t tc_linalg_lu(tc_tensor a, int32_t pivot, tc_tensor* P, tc_tensor* L, tc_tensor* U) {
  return api(__func__, [&] {
    out_ptr(P, "P");
    out_ptr(L, "L");
    out_ptr(U, "U");
    auto [p, l, u] = la::lu(get_tensor(a, "a"), pivot != 0);
    hand_out({p, l, u}, {P, L, U});
  });
}

int32_t tc_linalg_lu_solve(tc_tensor LU, tc_tensor pivots, tc_tensor B, int32_t left, int32_t adjoint,
                           tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = tc::new_handle(la::lu_solve(get_tensor(LU, "LU"), get_tensor(pivots, "pivots"), get_tensor(B, "B"),
                                       left != 0, adjoint != 0));
  });
}

int32_t tc_linalg_inv_ex(tc_tensor a, int32_t check_errors, tc_tensor* inverse, tc_tensor* info) {
  return api(__func__, [&] {
    out_ptr(inverse, "inverse");
    out_ptr(info, "info");
    auto [x, inf] = la::inv_ex(get_tensor(a, "a"), check_errors != 0);
    hand_out({x, inf}, {inverse, info});
  });
}

int32_t tc_linalg_det(tc_tensor a, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = tc::new_handle(la::det(get_tensor(a, "a")));
  });
}

int32_t tc_linalg_slogdet(tc_tensor a, tc_tensor* sign, tc_tensor* logabsdet) {
  return api(__func__, [&] {
    out_ptr(sign, "sign");
    out_ptr(logabsdet, "logabsdet");
    auto [s, l] = la::slogdet(get_tensor(a, "a"));
    hand_out({s, l}, {sign, logabsdet});
  });
}

int32_t tc_linalg_solve_ex(tc_tensor A, tc_tensor B, int32_t left, int32_t check_errors, tc_tensor* result,
                           tc_tensor* info) {
  return api(__func__, [&] {
    out_ptr(result, "result");
    out_ptr(info, "info");
    auto [x, inf] = la::solve_ex(get_tensor(A, "A"), get_tensor(B, "B"), left != 0, check_errors != 0);
    hand_out({x, inf}, {result, info});
  });
}

int32_t tc_linalg_solve_triangular(tc_tensor A, tc_tensor B, int32_t upper, int32_t left,
                                   int32_t unitriangular, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = tc::new_handle(la::solve_triangular(get_tensor(A, "A"), get_tensor(B, "B"), upper != 0, left != 0,
                                               unitriangular != 0));
  });
}

int32_t tc_linalg_cholesky_ex(tc_tensor a, int32_t upper, int32_t check_errors, tc_tensor* L,
                              tc_tensor* info) {
  return api(__func__, [&] {
    out_ptr(L, "L");
    out_ptr(info, "info");
    auto [l, inf] = la::cholesky_ex(get_tensor(a, "a"), upper != 0, check_errors != 0);
    hand_out({l, inf}, {L, info});
  });
}

int32_t tc_linalg_qr(tc_tensor a, int32_t mode, tc_tensor* Q, tc_tensor* R) {
  return api(__func__, [&] {
    out_ptr(Q, "Q");
    out_ptr(R, "R");
    auto [q, r] = la::qr(get_tensor(a, "a"), mode);
    hand_out({q, r}, {Q, R});
  });
}

int32_t tc_linalg_svd(tc_tensor a, int32_t full_matrices, tc_tensor* U, tc_tensor* S, tc_tensor* Vh) {
  return api(__func__, [&] {
    out_ptr(U, "U");
    out_ptr(S, "S");
    out_ptr(Vh, "Vh");
    auto [u, s, vh] = la::svd(get_tensor(a, "a"), full_matrices != 0);
    hand_out({u, s, vh}, {U, S, Vh});
  });
}

int32_t tc_linalg_svdvals(tc_tensor a, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = tc::new_handle(la::svdvals(get_tensor(a, "a")));
  });
}

int32_t tc_linalg_eigh(tc_tensor a, int32_t upper, tc_tensor* eigenvalues, tc_tensor* eigenvectors) {
  return api(__func__, [&] {
    out_ptr(eigenvalues, "eigenvalues");
    out_ptr(eigenvectors, "eigenvectors");
    auto [w, v] = la::eigh(get_tensor(a, "a"), upper != 0);
    hand_out({w, v}, {eigenvalues, eigenvectors});
  });
}

int32_t tc_linalg_eigvalsh(tc_tensor a, int32_t upper, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = tc::new_handle(la::eigvalsh(get_tensor(a, "a"), upper != 0));
  });
}

int32_t tc_linalg_householder_product(tc_tensor A, tc_tensor tau, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = tc::new_handle(la::householder_product(get_tensor(A, "A"), get_tensor(tau, "tau")));
  });
}

int32_t tc_linalg_eig(tc_tensor a, int32_t compute_v, tc_tensor* eigenvalues, tc_tensor* eigenvectors) {
  return api(__func__, [&] {
    out_ptr(eigenvalues, "eigenvalues");
    out_ptr(eigenvectors, "eigenvectors");
    auto [w, v] = la::eig(get_tensor(a, "a"), compute_v != 0);
    hand_out({w, v}, {eigenvalues, eigenvectors});
  });
}

int32_t tc_linalg_lstsq(tc_tensor A, tc_tensor B, double rcond, int32_t driver, tc_tensor* solution,
                        tc_tensor* residuals, tc_tensor* rank, tc_tensor* singular_values) {
  return api(__func__, [&] {
    out_ptr(solution, "solution");
    out_ptr(residuals, "residuals");
    out_ptr(rank, "rank");
    out_ptr(singular_values, "singular_values");
    TC_CHECK(!std::isnan(rcond), TC_ERR_INVALID_ARGUMENT, "rcond must not be NaN");
    auto [x, r, k, s] = la::lstsq(get_tensor(A, "A"), get_tensor(B, "B"), rcond, driver);
    hand_out({x, r, k, s}, {solution, residuals, rank, singular_values});
  });
}

}  // extern "C"
