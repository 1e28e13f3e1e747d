// The CPU's linalg table (backend/linalg_backend.h) on LAPACKE (Debian's
// LAPACK over OpenBLAS): getrf/getrs/getri, potrf, geqrf + orgqr, gesdd and
// syevd in float and double, one call per matrix of the batch. LAPACKE's
// row-major interface keeps libtc's layout (it transposes into a scratch
// buffer itself). LAPACKE checks its inputs for NaN and then refuses the
// call (info < 0) instead of iterating: such a matrix gets NaN results, so
// NaN input never hangs. The triangular solve is a plain substitution loop,
// which gives infinities for a zero pivot as PyTorch's trsm does (LAPACK's
// trtrs refuses singular triangles). Built without LAPACKE (TC_HAVE_LAPACK
// unset), every primitive but the triangular solve is TC_ERR_NOT_COMPILED.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backend/linalg_backend.h"
#include "core/dtype.h"
#include "core/error.h"

#ifdef TC_HAVE_LAPACK
#include <lapacke.h>
#endif

namespace tc {

void LinalgBackend::not_supported(const char* primitive) const {
  fail(TC_ERR_NOT_IMPLEMENTED, str("linalg: ", primitive, " is not supported on ", name,
                                   " tensors (libtc's linear algebra runs on the CPU only)"));
}
void LinalgBackend::lu_factor(const Tensor&, const Tensor&, const Tensor&) const {
  not_supported("lu_factor");
}
void LinalgBackend::lu_solve(const Tensor&, const Tensor&, const Tensor&, bool) const {
  not_supported("lu_solve");
}
void LinalgBackend::lu_inverse(const Tensor&, const Tensor&) const { not_supported("inv"); }
void LinalgBackend::cholesky(const Tensor&, bool, const Tensor&) const { not_supported("cholesky"); }
void LinalgBackend::triangular_solve(const Tensor&, const Tensor&, bool, bool, bool) const {
  not_supported("solve_triangular");
}
void LinalgBackend::qr(const Tensor&, const Tensor&, const Tensor&) const { not_supported("qr"); }
void LinalgBackend::svd(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_supported("svd");
}
void LinalgBackend::eigh(const Tensor&, const Tensor&, bool, bool, const Tensor&) const {
  not_supported("eigh");
}

namespace cpu {
namespace {

int64_t rows(const Tensor& t) { return t->shape[t->ndim() - 2]; }
int64_t cols(const Tensor& t) { return t->shape[t->ndim() - 1]; }
int64_t batch_of(const Tensor& t) {
  const int64_t per = rows(t) * cols(t);
  return per == 0 ? 0 : t->numel() / per;
}

template <typename T>
void fill_nan(T* p, int64_t n) {
  std::fill(p, p + n, std::numeric_limits<T>::quiet_NaN());
}

// op(A)^-1 b by substitution: A [n, n] row-major, b [n, k]; op(A) is upper
// triangular when upper != trans.
template <typename T>
void substitute(const T* a, T* b, int64_t n, int64_t k, bool upper, bool trans, bool unit) {
  auto at = [&](int64_t i, int64_t j) { return trans ? a[j * n + i] : a[i * n + j]; };
  const bool eff_upper = upper != trans;
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = eff_upper ? n - 1 - step : step;
    T* bi = b + i * k;
    const int64_t j0 = eff_upper ? i + 1 : 0, j1 = eff_upper ? n : i;
    for (int64_t j = j0; j < j1; ++j) {
      const T c = at(i, j);
      if (c == T(0)) continue;
      const T* bj = b + j * k;
      for (int64_t c2 = 0; c2 < k; ++c2) bi[c2] -= c * bj[c2];
    }
    if (!unit) {
      const T d = at(i, i);
      for (int64_t c2 = 0; c2 < k; ++c2) bi[c2] /= d;
    }
  }
}

#ifdef TC_HAVE_LAPACK
// Overloads naming LAPACKE's s/d routines by type.
lapack_int getrf(lapack_int m, lapack_int n, float* a, lapack_int* p) {
  return LAPACKE_sgetrf(LAPACK_ROW_MAJOR, m, n, a, n, p);
}
lapack_int getrf(lapack_int m, lapack_int n, double* a, lapack_int* p) {
  return LAPACKE_dgetrf(LAPACK_ROW_MAJOR, m, n, a, n, p);
}
lapack_int getrs(char t, lapack_int n, lapack_int k, const float* a, const lapack_int* p, float* b) {
  return LAPACKE_sgetrs(LAPACK_ROW_MAJOR, t, n, k, a, n, p, b, k);
}
lapack_int getrs(char t, lapack_int n, lapack_int k, const double* a, const lapack_int* p, double* b) {
  return LAPACKE_dgetrs(LAPACK_ROW_MAJOR, t, n, k, a, n, p, b, k);
}
lapack_int getri(lapack_int n, float* a, const lapack_int* p) {
  return LAPACKE_sgetri(LAPACK_ROW_MAJOR, n, a, n, p);
}
lapack_int getri(lapack_int n, double* a, const lapack_int* p) {
  return LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, a, n, p);
}
lapack_int potrf(char uplo, lapack_int n, float* a) {
  return LAPACKE_spotrf(LAPACK_ROW_MAJOR, uplo, n, a, n);
}
lapack_int potrf(char uplo, lapack_int n, double* a) {
  return LAPACKE_dpotrf(LAPACK_ROW_MAJOR, uplo, n, a, n);
}
lapack_int geqrf(lapack_int m, lapack_int n, float* a, lapack_int lda, float* tau) {
  return LAPACKE_sgeqrf(LAPACK_ROW_MAJOR, m, n, a, lda, tau);
}
lapack_int geqrf(lapack_int m, lapack_int n, double* a, lapack_int lda, double* tau) {
  return LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, m, n, a, lda, tau);
}
lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, float* a, lapack_int lda, const float* tau) {
  return LAPACKE_sorgqr(LAPACK_ROW_MAJOR, m, n, k, a, lda, tau);
}
lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, double* a, lapack_int lda, const double* tau) {
  return LAPACKE_dorgqr(LAPACK_ROW_MAJOR, m, n, k, a, lda, tau);
}
lapack_int gesdd(char job, lapack_int m, lapack_int n, float* a, float* s, float* u, lapack_int ldu,
                 float* vt, lapack_int ldvt) {
  return LAPACKE_sgesdd(LAPACK_ROW_MAJOR, job, m, n, a, n, s, u, ldu, vt, ldvt);
}
lapack_int gesdd(char job, lapack_int m, lapack_int n, double* a, double* s, double* u, lapack_int ldu,
                 double* vt, lapack_int ldvt) {
  return LAPACKE_dgesdd(LAPACK_ROW_MAJOR, job, m, n, a, n, s, u, ldu, vt, ldvt);
}
lapack_int syevd(char job, char uplo, lapack_int n, float* a, float* w) {
  return LAPACKE_ssyevd(LAPACK_ROW_MAJOR, job, uplo, n, a, n, w);
}
lapack_int syevd(char job, char uplo, lapack_int n, double* a, double* w) {
  return LAPACKE_dsyevd(LAPACK_ROW_MAJOR, job, uplo, n, a, n, w);
}

struct LapackBackend final : LinalgBackend {
  LapackBackend() : LinalgBackend("cpu") {}
  bool available() const override { return true; }

  void lu_factor(const Tensor& a, const Tensor& pivots, const Tensor& info) const override {
    const int64_t m = rows(a), n = cols(a), k = std::min(m, n), count = batch_of(a);
    int32_t* piv = pivots->data_as<int32_t>();
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.lu_factor", [&] {
      using T = scalar_t;
      T* p = a->data_as<T>();
      std::vector<lapack_int> ip(size_t(k) + 1);
      for (int64_t b = 0; b < count; ++b) {
        T* mat = p + b * m * n;
        lapack_int r = getrf(lapack_int(m), lapack_int(n), mat, ip.data());
        if (r < 0) {  // NaN input, refused: NaN factors and the identity permutation
          fill_nan(mat, m * n);
          for (int64_t i = 0; i < k; ++i) ip[size_t(i)] = lapack_int(i + 1);
          r = 0;
        }
        for (int64_t i = 0; i < k; ++i) piv[b * k + i] = int32_t(ip[size_t(i)]);
        inf[b] = int32_t(r);
      }
    });
  }

  void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool trans) const override {
    const int64_t n = rows(lu), k = cols(b), count = batch_of(lu);
    const int32_t* piv = pivots->data_as<int32_t>();
    TC_DISPATCH_FLOATING(lu->dtype, "linalg.lu_solve", [&] {
      using T = scalar_t;
      const T* pl = lu->data_as<T>();
      T* pb = b->data_as<T>();
      std::vector<lapack_int> ip(size_t(n) + 1);
      for (int64_t i = 0; i < count; ++i) {
        for (int64_t j = 0; j < n; ++j) ip[size_t(j)] = lapack_int(piv[i * n + j]);
        if (getrs(trans ? 'T' : 'N', lapack_int(n), lapack_int(k), pl + i * n * n, ip.data(),
                  pb + i * n * k) < 0)
          fill_nan(pb + i * n * k, n * k);
      }
    });
  }

  void lu_inverse(const Tensor& lu, const Tensor& pivots) const override {
    const int64_t n = rows(lu), count = batch_of(lu);
    const int32_t* piv = pivots->data_as<int32_t>();
    TC_DISPATCH_FLOATING(lu->dtype, "linalg.inv", [&] {
      using T = scalar_t;
      T* pl = lu->data_as<T>();
      std::vector<lapack_int> ip(size_t(n) + 1);
      for (int64_t i = 0; i < count; ++i) {
        for (int64_t j = 0; j < n; ++j) ip[size_t(j)] = lapack_int(piv[i * n + j]);
        if (getri(lapack_int(n), pl + i * n * n, ip.data()) != 0) fill_nan(pl + i * n * n, n * n);
      }
    });
  }

  void cholesky(const Tensor& a, bool upper, const Tensor& info) const override {
    const int64_t n = rows(a), count = batch_of(a);
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.cholesky", [&] {
      using T = scalar_t;
      T* p = a->data_as<T>();
      for (int64_t b = 0; b < count; ++b) {
        T* mat = p + b * n * n;
        lapack_int r = potrf(upper ? 'U' : 'L', lapack_int(n), mat);
        if (r < 0) {
          fill_nan(mat, n * n);
          r = 0;
        }
        inf[b] = int32_t(r);
        // potrf leaves the other triangle as it was.
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j)
            if (upper ? j < i : j > i) mat[i * n + j] = T(0);
      }
    });
  }

  void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool trans, bool unit) const override {
    const int64_t n = rows(a), k = cols(b), count = batch_of(b);
    TC_DISPATCH_FLOATING(a->dtype, "linalg.solve_triangular", [&] {
      using T = scalar_t;
      for (int64_t i = 0; i < count; ++i)
        substitute(a->data_as<T>() + i * n * n, b->data_as<T>() + i * n * k, n, k, upper, trans, unit);
    });
  }

  void qr(const Tensor& a, const Tensor& q, const Tensor& r) const override {
    const int64_t m = rows(a), n = cols(a), k = std::min(m, n), count = batch_of(a);
    const int64_t kq = q ? cols(q) : 0, kr = rows(r);
    const int64_t ldw = std::max(n, kq);
    TC_DISPATCH_FLOATING(a->dtype, "linalg.qr", [&] {
      using T = scalar_t;
      std::vector<T> w(size_t(std::max<int64_t>(m * ldw, 1))), tau(size_t(k) + 1);
      for (int64_t b = 0; b < count; ++b) {
        const T* src = a->data_as<T>() + b * m * n;
        std::fill(w.begin(), w.end(), T(0));
        for (int64_t i = 0; i < m; ++i) std::memcpy(&w[size_t(i * ldw)], src + i * n, sizeof(T) * size_t(n));
        T* rr = r->data_as<T>() + b * kr * n;
        if (geqrf(lapack_int(m), lapack_int(n), w.data(), lapack_int(ldw), tau.data()) < 0) {
          fill_nan(rr, kr * n);
          if (q) fill_nan(q->data_as<T>() + b * m * kq, m * kq);
          continue;
        }
        for (int64_t i = 0; i < kr; ++i)
          for (int64_t j = 0; j < n; ++j) rr[i * n + j] = (j >= i && i < m) ? w[size_t(i * ldw + j)] : T(0);
        if (!q) continue;
        orgqr(lapack_int(m), lapack_int(kq), lapack_int(k), w.data(), lapack_int(ldw), tau.data());
        T* qq = q->data_as<T>() + b * m * kq;
        for (int64_t i = 0; i < m; ++i) std::memcpy(qq + i * kq, &w[size_t(i * ldw)], sizeof(T) * size_t(kq));
      }
    });
  }

  void svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
           const Tensor& info) const override {
    const int64_t m = rows(a), n = cols(a), k = std::min(m, n), count = batch_of(a);
    const int64_t uc = u ? cols(u) : 0, vr = vh ? rows(vh) : 0;
    const char job = !u ? 'N' : (uc == m && vr == n && (m != k || n != k) ? 'A' : 'S');
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.svd", [&] {
      using T = scalar_t;
      std::vector<T> w(size_t(std::max<int64_t>(m * n, 1)));
      T dummy[1];
      for (int64_t b = 0; b < count; ++b) {
        std::memcpy(w.data(), a->data_as<T>() + b * m * n, sizeof(T) * size_t(m * n));
        T* ps = s->data_as<T>() + b * k;
        T* pu = u ? u->data_as<T>() + b * m * uc : dummy;
        T* pv = vh ? vh->data_as<T>() + b * vr * n : dummy;  // LAPACKE checks ldvt >= n even for 'N'
        const lapack_int r = gesdd(job, lapack_int(m), lapack_int(n), w.data(), ps, pu,
                                   lapack_int(u ? uc : 1), pv, lapack_int(n));
        inf[b] = int32_t(r == 0 ? 0 : (r < 0 ? 1 : r));
        if (r != 0) {
          fill_nan(ps, k);
          if (u) fill_nan(pu, m * uc);
          if (vh) fill_nan(pv, vr * n);
        }
      }
    });
  }

  void eigh(const Tensor& a, const Tensor& w, bool upper, bool vectors, const Tensor& info) const override {
    const int64_t n = rows(a), count = batch_of(a);
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.eigh", [&] {
      using T = scalar_t;
      for (int64_t b = 0; b < count; ++b) {
        T* mat = a->data_as<T>() + b * n * n;
        T* pw = w->data_as<T>() + b * n;
        const lapack_int r = syevd(vectors ? 'V' : 'N', upper ? 'U' : 'L', lapack_int(n), mat, pw);
        inf[b] = int32_t(r == 0 ? 0 : (r < 0 ? 1 : r));
        if (r != 0) {
          fill_nan(pw, n);
          fill_nan(mat, n * n);
        }
      }
    });
  }
};
#else
// Without LAPACKE: the triangular solve only (it needs no LAPACK).
struct LapackBackend final : LinalgBackend {
  LapackBackend() : LinalgBackend("cpu (built without LAPACK)") {}
  void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool trans, bool unit) const override {
    const int64_t n = rows(a), k = cols(b), count = batch_of(b);
    TC_DISPATCH_FLOATING(a->dtype, "linalg.solve_triangular", [&] {
      using T = scalar_t;
      for (int64_t i = 0; i < count; ++i)
        substitute(a->data_as<T>() + i * n * n, b->data_as<T>() + i * n * k, n, k, upper, trans, unit);
    });
  }
};
#endif

}  // namespace
}  // namespace cpu

// Defined here rather than in backend/ (which may not include cpu/): the CPU
// table for CPU tensors, a refusing default naming the device for the rest.
const LinalgBackend& linalg_backend_for(Device device) {
  static const cpu::LapackBackend cpu_table;
  if (device_type(device) == device_type(kCPU)) return cpu_table;
  static const LinalgBackend cuda_default("cuda");
  return cuda_default;
}

}  // namespace tc
