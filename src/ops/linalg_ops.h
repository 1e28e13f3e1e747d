// torch.linalg's factorizations and solves (src/ops/linalg_lapack.cpp, their
// backward formulas in src/ops/linalg_backward.cpp). A header of its own so
// that adding one rebuilds the linalg files only. Matrices are the last two
// dims; leading dims are batches (broadcast between the operands of a
// solve). float32/float64 on the CPU (LAPACK).
#pragma once
#include <tuple>
#include <utility>

#include "core/tensor.h"

namespace tc::ops::linalg {

// info: int32 [batch...] (LAPACK's code per matrix). check_errors throws
// PyTorch's message naming the batch element instead of returning a
// non-zero info.
std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& a, bool pivot, bool check_errors);
std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& a, bool pivot);  // P, L, U
Tensor lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint);
std::pair<Tensor, Tensor> inv_ex(const Tensor& a, bool check_errors);
Tensor det(const Tensor& a);
std::pair<Tensor, Tensor> slogdet(const Tensor& a);  // sign, logabsdet
std::pair<Tensor, Tensor> solve_ex(const Tensor& a, const Tensor& b, bool left, bool check_errors);
Tensor solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular);
std::pair<Tensor, Tensor> cholesky_ex(const Tensor& a, bool upper, bool check_errors);
// tc_linalg_qr's modes (plain numbers in tc.h: a new constant there would
// rewrite tc_constants.h, which every file includes).
constexpr int32_t kQrReduced = 0, kQrComplete = 1, kQrR = 2;
// mode: kQrReduced, kQrComplete, kQrR (Q is then an empty tensor).
std::pair<Tensor, Tensor> qr(const Tensor& a, int32_t mode);
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool full_matrices);
Tensor svdvals(const Tensor& a);
std::pair<Tensor, Tensor> eigh(const Tensor& a, bool upper);  // eigenvalues, eigenvectors
Tensor eigvalsh(const Tensor& a, bool upper);

// linalg_more.cpp: the product of Householder reflectors (orgqr), the
// eigendecomposition of general matrices (geev) and least squares.
Tensor householder_product(const Tensor& a, const Tensor& tau);
// eigenvalues [..., n, 2], eigenvectors [..., n, n, 2] (an empty tensor
// without vectors): complex numbers as (real, imaginary) pairs in the last
// dim, torch.view_as_real's layout. Differentiable (PyTorch 1.13's linalg_eig_backward, real part).
std::pair<Tensor, Tensor> eig(const Tensor& a, bool vectors);
// solution, residuals, rank, singular_values as torch.linalg.lstsq fills
// them for the driver (kLstsqGels...); rcond < 0: eps * max(m, n).
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& a, const Tensor& b, double rcond,
                                                 int32_t driver);

namespace detail {
// The backward nodes' gradient formulas (linalg_backward.cpp), composed of
// recorded ops; a null gradient is zero.
Tensor inv_backward(const Tensor& g, const Tensor& inverse);
Tensor det_backward(const Tensor& g, const Tensor& a, const Tensor& det);
Tensor slogdet_backward(const Tensor& g_logabsdet, const Tensor& a);
Tensor cholesky_backward(const Tensor& g, const Tensor& l, bool upper);
std::pair<Tensor, Tensor> triangular_solve_backward(const Tensor& g, const Tensor& a, const Tensor& x,
                                                    bool upper, bool left, bool unitriangular);
Tensor qr_backward(const Tensor& gq, const Tensor& gr, const Tensor& q, const Tensor& r, int32_t mode);
Tensor svd_backward(const Tensor& gu, const Tensor& gs, const Tensor& gvh, const Tensor& u, const Tensor& s,
                    const Tensor& vh, bool full_matrices);
Tensor eigh_backward(const Tensor& gl, const Tensor& gv, const Tensor& l, const Tensor& v);
// A = P L U (square): the gradient from gL, gU (either may be null).
Tensor lu_backward(const Tensor& gl, const Tensor& gu, const Tensor& p, const Tensor& l, const Tensor& u);
// The permutation matrices [batch..., m, m] of LAPACK pivots (A = P L U).
Tensor pivots_to_permutation(const Tensor& pivots, int64_t m, DType dtype);
}  // namespace detail

}  // namespace tc::ops::linalg
