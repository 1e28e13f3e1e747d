// What a device computes for torch.linalg: the LAPACK-style factorizations
// and solves the linalg ops (src/ops/linalg_lapack.cpp) are built from. It is
// a table of its own beside Backend (backend.h) so that adding a
// factorization rebuilds only the linalg files, not every kernel that
// includes backend.h. The CPU's table (src/cpu/lapack.cpp) calls LAPACKE
// where libtc was built with it; a device without a table (CUDA, for now)
// gets the default, whose every primitive is TC_ERR_NOT_IMPLEMENTED naming
// the device.
//
// Conventions: every tensor is contiguous, row-major, on the table's device,
// float32 or float64 (int32 for pivots and infos); matrices are the last two
// dims and the leading dims are a batch of `count` matrices. Infos get
// LAPACK's code per matrix (0: success; > 0: the 1-based failing pivot or
// minor; the ops build the messages). The kernels never throw for a
// singular or non-positive-definite matrix.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace tc {

// lstsq's drivers, in torch's order of names.
constexpr int32_t kLstsqGels = 0, kLstsqGelsy = 1, kLstsqGelsd = 2, kLstsqGelss = 3;

struct LinalgBackend {
  explicit LinalgBackend(const char* device_name) : name(device_name) {}
  virtual ~LinalgBackend() = default;
  LinalgBackend(const LinalgBackend&) = delete;
  LinalgBackend& operator=(const LinalgBackend&) = delete;

  const char* const name;

  // Whether this table computes (false: the default, which throws).
  virtual bool available() const { return false; }
  // a [B, m, n] is replaced by its LU factors (P A = L U, L unit lower);
  // pivots [B, min(m, n)] 1-based row swaps; info [B].
  virtual void lu_factor(const Tensor& a, const Tensor& pivots, const Tensor& info) const;
  // b [B, n, k] is replaced by A^-1 b (A^-T b when trans) from lu, pivots
  // [B, n, n] / [B, n].
  virtual void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool trans) const;
  // lu [B, n, n] (factored, nonsingular) is replaced by A^-1.
  virtual void lu_inverse(const Tensor& lu, const Tensor& pivots) const;
  // b [B, n, k] is replaced by A^-1 b; a [B, n, n] is destroyed. info [B]:
  // LAPACK's code of some LU of A (> 0: singular; which pivot may differ
  // from lu_factor's). The default: lu_factor, then lu_solve.
  virtual void solve(const Tensor& a, const Tensor& b, const Tensor& info) const;
  // a [B, n, n] is replaced by A^-1 (garbage where singular); info [B] as
  // solve's. The default: lu_factor, then lu_inverse.
  virtual void inverse(const Tensor& a, const Tensor& info) const;
  // a [B, n, n] is replaced by its Cholesky factor (lower, or upper when
  // upper), the other triangle zeroed; info [B].
  virtual void cholesky(const Tensor& a, bool upper, const Tensor& info) const;
  // b [B, n, k] is replaced by op(A)^-1 b, A [B, n, n] triangular (only that
  // triangle read; unit: its diagonal taken as ones); op(A) = A^T when trans.
  // A zero on the diagonal gives infinities, never an error.
  virtual void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool trans, bool unit) const;
  // a [B, m, n] -> q [B, m, kq], r [B, kr, n] (k = min(m, n); reduced: kq =
  // kr = k; complete: kq = kr = m; q null: R only, kr = k).
  virtual void qr(const Tensor& a, const Tensor& q, const Tensor& r) const;
  // a [B, m, n] -> s [B, k] descending; with u/vh (both or neither):
  // u [B, m, m or k], vh [B, n or k, n] (full: the square ones). info [B]:
  // > 0 when the iteration did not converge, < 0 for a non-finite input.
  virtual void svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
                   const Tensor& info) const;
  // a [B, n, n] symmetric (the upper or lower triangle read) -> w [B, n]
  // ascending; when vectors, a is replaced by the eigenvectors (columns).
  // info [B] > 0: no convergence.
  virtual void eigh(const Tensor& a, const Tensor& w, bool upper, bool vectors, const Tensor& info) const;
  // a [B, m, n] (m >= n) holds Householder reflectors below its diagonal
  // (geqrf's layout); it is replaced by the first n columns of
  // H_1 ... H_k, H_i = I - tau_i v_i v_i^T, from tau [B, k] (k <= n).
  virtual void householder_product(const Tensor& a, const Tensor& tau) const;
  // a [B, n, n] general (destroyed) -> w [B, n, 2] eigenvalues as (real,
  // imaginary) pairs, LAPACK's order; v (null: none) [B, n, n, 2] the right
  // eigenvectors (columns, unit norm) the same way. info [B] > 0: no convergence.
  virtual void eig(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) const;
  // Least squares min ||A X - B|| by LAPACK's driver (kLstsqGels, ...):
  // a [B, m, n] (destroyed), b [B, max(m, n), k] in: B in its first m rows,
  // out: X in its first n rows (and, for gels/gelsd/gelss with m > n and
  // full rank, the residual's components below). rank [B] int64 (null for
  // gels), s [B, min(m, n)] (null unless gelsd/gelss); rcond < 0: LAPACK's
  // machine-precision default. info [B] > 0: rank-deficient (gels) or no
  // convergence.
  virtual void lstsq(const Tensor& a, const Tensor& b, int32_t driver, double rcond, const Tensor& rank,
                     const Tensor& s, const Tensor& info) const;

 protected:
  [[noreturn]] void not_supported(const char* primitive) const;
};

// The table for `device`: the CPU's, CUDA's when the CUDA module registered
// one, or the default that refuses.
const LinalgBackend& linalg_backend_for(Device device);
// The CUDA module's table (null: none), set by the cuda stage.
void register_linalg_backend(const LinalgBackend* cuda_table) noexcept;

}  // namespace tc
