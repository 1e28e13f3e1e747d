// The CPU's linalg table (backend/linalg_backend.h) on LAPACKE (Debian's
// LAPACK over OpenBLAS): getrf/getrs/getri, potrf, geqrf + orgqr, gesdd and
// syevd, geev, gels/gelsy/gelsd/gelss in float and double, one call per
// matrix of the batch; a batch of small matrices is spread over the OpenMP
// threads (each matrix on one thread, OpenBLAS's own threads set to 1 for
// the while, so that the two do not oversubscribe the cores). LAPACKE's
// row-major interface keeps libtc's layout (it transposes into a scratch
// buffer itself). LAPACKE checks its inputs for NaN and then refuses the
// call (info < 0) instead of iterating: such a matrix gets NaN results, so
// NaN input never hangs. The triangular solve is a plain substitution loop,
// which gives infinities for a zero pivot as PyTorch's trsm does (LAPACK's
// trtrs refuses singular triangles). Built without LAPACKE (TC_HAVE_LAPACK
// unset), every primitive but the triangular solve is TC_ERR_NOT_COMPILED.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "backend/linalg_backend.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/parallel_for.h"

#ifdef TC_HAVE_LAPACK
#include <lapacke.h>
#endif

namespace tc {

namespace cpu {
namespace {

int64_t rows(const Tensor& t) { return t->shape[t->ndim() - 2]; }
int64_t cols(const Tensor& t) { return t->shape[t->ndim() - 1]; }
int64_t batch_of(const Tensor& t) {
  const int64_t per = rows(t) * cols(t);
  return per == 0 ? 0 : t->numel() / per;
}

// OpenBLAS's thread count, found at run time in the LAPACK libtc loaded (a
// reference LAPACK or another vendor has no such functions: nothing to do).
struct BlasThreads {
  void (*set)(int) = nullptr;
  int (*get)() = nullptr;
};
const BlasThreads& blas_threads() {
  static const BlasThreads t = [] {
    BlasThreads r;
    for (const char* lib : {"libopenblas.so.0", "liblapack.so.3", "libblas.so.3"}) {
      void* h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);  // only if already mapped; kept open
      if (!h) continue;
      r.set = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
      r.get = reinterpret_cast<int (*)()>(dlsym(h, "openblas_get_num_threads"));
      if (r.set && r.get) break;
      r = BlasThreads{};
      dlclose(h);
    }
    return r;
  }();
  return t;
}

// While one is alive (and the batch runs on several OpenMP threads),
// OpenBLAS runs each call on its calling thread: nested in libtc's threads,
// its own pool would oversubscribe the cores. Nested and concurrent scopes
// count, and the last one restores the previous setting.
class SerialBlas {
 public:
  explicit SerialBlas(bool on) : on_(on && blas_threads().set != nullptr) {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(mutex());
    if (depth()++ == 0) {
      saved() = blas_threads().get();
      blas_threads().set(1);
    }
  }
  ~SerialBlas() {
    if (!on_) return;
    std::lock_guard<std::mutex> lock(mutex());
    if (--depth() == 0) blas_threads().set(saved());
  }
  SerialBlas(const SerialBlas&) = delete;
  SerialBlas& operator=(const SerialBlas&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static int& depth() {
    static int d = 0;
    return d;
  }
  static int& saved() {
    static int s = 1;
    return s;
  }
  bool on_;
};

// Runs fn(b) for the matrices b of a batch of `count`, each costing about
// `flops`: across the OpenMP threads when there is enough work, one matrix
// per call on one thread (fn allocates its own scratch).
template <typename F>
void for_each_matrix(int64_t count, int64_t flops, F&& fn) {
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(flops, 1));
  const bool parallel = count >= 2 * grain && num_threads() > 1 && !omp_in_parallel();
  SerialBlas serial(parallel);
  parallel_for(count, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) fn(b);
  });
}
[[maybe_unused]] int64_t cube(int64_t m, int64_t n) { return m * n * std::min(m, n); }

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
// Column-major forms: on a row-major buffer they see its transpose.
lapack_int getrf_cm(lapack_int n, float* a, lapack_int* p) {
  return LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, a, n, p);
}
lapack_int getrf_cm(lapack_int n, double* a, lapack_int* p) {
  return LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, p);
}
lapack_int getrs_cm(char t, lapack_int n, lapack_int k, const float* a, const lapack_int* p, float* b) {
  return LAPACKE_sgetrs(LAPACK_COL_MAJOR, t, n, k, a, n, p, b, n);
}
lapack_int getrs_cm(char t, lapack_int n, lapack_int k, const double* a, const lapack_int* p, double* b) {
  return LAPACKE_dgetrs(LAPACK_COL_MAJOR, t, n, k, a, n, p, b, n);
}
lapack_int getri_cm(lapack_int n, float* a, const lapack_int* p) {
  return LAPACKE_sgetri(LAPACK_COL_MAJOR, n, a, n, p);
}
lapack_int getri_cm(lapack_int n, double* a, const lapack_int* p) {
  return LAPACKE_dgetri(LAPACK_COL_MAJOR, n, a, n, p);
}
lapack_int getri(lapack_int n, float* a, const lapack_int* p) {
  return LAPACKE_sgetri(LAPACK_ROW_MAJOR, n, a, n, p);
}
lapack_int getri(lapack_int n, double* a, const lapack_int* p) {
  return LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, a, n, p);
}
// A symmetric matrix is its own transpose: read column-major, a row-major
// lower triangle is an upper one. So the factorization runs on libtc's
// buffer in place (uplo swapped) without LAPACKE's row-major transposing
// copies in and out, which cost as much as potrf itself for small n.
lapack_int potrf(char uplo, lapack_int n, float* a) {
  return LAPACKE_spotrf(LAPACK_COL_MAJOR, uplo == 'U' ? 'L' : 'U', n, a, n);
}
lapack_int potrf(char uplo, lapack_int n, double* a) {
  return LAPACKE_dpotrf(LAPACK_COL_MAJOR, uplo == 'U' ? 'L' : 'U', n, a, n);
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
// Workspaces kept by each thread from one call to the next. LAPACKE's
// high-level routines allocate theirs (and row-major transposed copies) on
// every call; for a 256x256 SVD that is a few MB of fresh memory whose page
// faults cost about as much as the arithmetic (19 ms a call against 11 ms
// with the memory reused, PyTorch's time). Buffers above kKeepBytes are let
// go after the call, so a huge matrix does not pin its workspace.
constexpr size_t kKeepBytes = size_t(16) << 20;
template <int Slot>
struct Scratch {
  template <typename T>
  static T* get(size_t count) {
    std::vector<unsigned char>& b = buffer();
    const size_t bytes = std::max<size_t>(count, 1) * sizeof(T);
    if (b.size() < bytes) b.resize(bytes);
    return reinterpret_cast<T*>(b.data());
  }
  static void trim() {
    if (buffer().size() > kKeepBytes) std::vector<unsigned char>().swap(buffer());
  }
  static std::vector<unsigned char>& buffer() {
    thread_local std::vector<unsigned char> b;
    return b;
  }
};

// The SVD of a row-major m x n matrix a (overwritten) by gesdd, without
// LAPACKE's copies: read column-major, the buffer is A^T (n x m), and A^T =
// U' S VT' gives A = VT'^T S U'^T, so gesdd's U' (n x k, column-major) is
// libtc's row-major Vh as it lies in memory, and VT' (k x m) its row-major
// U. job 'S', 'A' or 'N' as LAPACK's; u has uc columns, vh n columns. NaN
// input is refused (-1) as LAPACKE's own check would, so LAPACK never
// iterates on it.
template <typename T>
lapack_int gesdd(char job, lapack_int m, lapack_int n, T* a, T* s, T* u, lapack_int uc, T* vh) {
  const int64_t count = int64_t(m) * n;
  for (int64_t i = 0; i < count; ++i)
    if (std::isnan(a[i])) return -1;
  const lapack_int k = std::min(m, n);
  const lapack_int ldu = job == 'N' ? 1 : n, ldvt = job == 'N' ? 1 : uc;
  lapack_int* iwork = Scratch<1>::get<lapack_int>(size_t(8) * size_t(k));
  T query = 0;
  auto call = [&](T* work, lapack_int lwork) {
    if constexpr (sizeof(T) == sizeof(float))
      return LAPACKE_sgesdd_work(LAPACK_COL_MAJOR, job, n, m, a, n, s, vh, ldu, u, ldvt, work, lwork, iwork);
    else
      return LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, job, n, m, a, n, s, vh, ldu, u, ldvt, work, lwork, iwork);
  };
  lapack_int r = call(&query, -1);
  if (r == 0) {
    const lapack_int lwork = std::max<lapack_int>(1, lapack_int(query));
    r = call(Scratch<2>::get<T>(size_t(lwork)), lwork);
  }
  Scratch<1>::trim();
  Scratch<2>::trim();
  return r;
}
lapack_int syevd(char job, char uplo, lapack_int n, float* a, float* w) {
  return LAPACKE_ssyevd(LAPACK_ROW_MAJOR, job, uplo, n, a, n, w);
}
lapack_int syevd(char job, char uplo, lapack_int n, double* a, double* w) {
  return LAPACKE_dsyevd(LAPACK_ROW_MAJOR, job, uplo, n, a, n, w);
}

lapack_int geev(char jobv, lapack_int n, float* a, float* wr, float* wi, float* vr) {
  return LAPACKE_sgeev(LAPACK_ROW_MAJOR, 'N', jobv, n, a, n, wr, wi, nullptr, n, vr, n);
}
lapack_int geev(char jobv, lapack_int n, double* a, double* wr, double* wi, double* vr) {
  return LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', jobv, n, a, n, wr, wi, nullptr, n, vr, n);
}
// One least-squares driver call on a [m, n] and b [max(m, n), k] (row-major).
template <typename T>
lapack_int lstsq_one(int32_t driver, lapack_int m, lapack_int n, lapack_int k, T* a, T* b, T rcond,
                     lapack_int* jpvt, lapack_int* rank, T* s) {
  constexpr bool f = sizeof(T) == sizeof(float);
  const int L = LAPACK_ROW_MAJOR;
  if constexpr (f) {
    switch (driver) {
      case kLstsqGels:
        return LAPACKE_sgels(L, 'N', m, n, k, a, n, b, k);
      case kLstsqGelsy:
        return LAPACKE_sgelsy(L, m, n, k, a, n, b, k, jpvt, rcond, rank);
      case kLstsqGelsd:
        return LAPACKE_sgelsd(L, m, n, k, a, n, b, k, s, rcond, rank);
      default:
        return LAPACKE_sgelss(L, m, n, k, a, n, b, k, s, rcond, rank);
    }
  } else {
    switch (driver) {
      case kLstsqGels:
        return LAPACKE_dgels(L, 'N', m, n, k, a, n, b, k);
      case kLstsqGelsy:
        return LAPACKE_dgelsy(L, m, n, k, a, n, b, k, jpvt, rcond, rank);
      case kLstsqGelsd:
        return LAPACKE_dgelsd(L, m, n, k, a, n, b, k, s, rcond, rank);
      default:
        return LAPACKE_dgelss(L, m, n, k, a, n, b, k, s, rcond, rank);
    }
  }
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
      for_each_matrix(count, cube(m, n), [&](int64_t b) {
        std::vector<lapack_int> ip(size_t(k) + 1);
        T* mat = p + b * m * n;
        lapack_int r = getrf(lapack_int(m), lapack_int(n), mat, ip.data());
        if (r < 0) {  // NaN input, refused: NaN factors and the identity permutation
          fill_nan(mat, m * n);
          for (int64_t i = 0; i < k; ++i) ip[size_t(i)] = lapack_int(i + 1);
          r = 0;
        }
        for (int64_t i = 0; i < k; ++i) piv[b * k + i] = int32_t(ip[size_t(i)]);
        inf[b] = int32_t(r);
      });
    });
  }

  void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool trans) const override {
    const int64_t n = rows(lu), k = cols(b), count = batch_of(lu);
    const int32_t* piv = pivots->data_as<int32_t>();
    TC_DISPATCH_FLOATING(lu->dtype, "linalg.lu_solve", [&] {
      using T = scalar_t;
      const T* pl = lu->data_as<T>();
      T* pb = b->data_as<T>();
      for_each_matrix(count, n * n * (k + 1), [&](int64_t i) {
        std::vector<lapack_int> ip(size_t(n) + 1);
        for (int64_t j = 0; j < n; ++j) ip[size_t(j)] = lapack_int(piv[i * n + j]);
        if (getrs(trans ? 'T' : 'N', lapack_int(n), lapack_int(k), pl + i * n * n, ip.data(),
                  pb + i * n * k) < 0)
          fill_nan(pb + i * n * k, n * k);
      });
    });
  }

  void lu_inverse(const Tensor& lu, const Tensor& pivots) const override {
    const int64_t n = rows(lu), count = batch_of(lu);
    const int32_t* piv = pivots->data_as<int32_t>();
    TC_DISPATCH_FLOATING(lu->dtype, "linalg.inv", [&] {
      using T = scalar_t;
      T* pl = lu->data_as<T>();
      for_each_matrix(count, cube(n, n), [&](int64_t i) {
        std::vector<lapack_int> ip(size_t(n) + 1);
        for (int64_t j = 0; j < n; ++j) ip[size_t(j)] = lapack_int(piv[i * n + j]);
        if (getri(lapack_int(n), pl + i * n * n, ip.data()) != 0) fill_nan(pl + i * n * n, n * n);
      });
    });
  }

  // solve and inverse skip LAPACKE's row-major transposing copies of A: its
  // row-major buffer read column-major is A^T, whose LU (P A^T = L U) solves
  // A X = B with getrs 'T', and whose inverse read row-major is A^-1.
  void solve(const Tensor& a, const Tensor& b, const Tensor& info) const override {
    const int64_t n = rows(a), k = cols(b), count = batch_of(a);
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.solve", [&] {
      using T = scalar_t;
      for_each_matrix(count, cube(n, n) + n * n * k, [&](int64_t i) {
        std::vector<lapack_int> ip(size_t(n) + 1);
        T* mat = a->data_as<T>() + i * n * n;
        T* pb = b->data_as<T>() + i * n * k;
        lapack_int r = getrf_cm(lapack_int(n), mat, ip.data());
        inf[i] = int32_t(r > 0 ? r : 0);
        if (r < 0) {  // NaN input, refused
          fill_nan(pb, n * k);
          return;
        }
        // B column-major (n x k): a transposed copy unless it is one column.
        std::vector<T> bc(k == 1 ? 0 : size_t(n * k));
        T* col = k == 1 ? pb : bc.data();
        if (k != 1)
          for (int64_t row = 0; row < n; ++row)
            for (int64_t c = 0; c < k; ++c) bc[size_t(c * n + row)] = pb[row * k + c];
        if (getrs_cm('T', lapack_int(n), lapack_int(k), mat, ip.data(), col) < 0) fill_nan(col, n * k);
        if (k != 1)
          for (int64_t row = 0; row < n; ++row)
            for (int64_t c = 0; c < k; ++c) pb[row * k + c] = bc[size_t(c * n + row)];
      });
    });
  }

  void inverse(const Tensor& a, const Tensor& info) const override {
    const int64_t n = rows(a), count = batch_of(a);
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.inv", [&] {
      using T = scalar_t;
      for_each_matrix(count, 2 * cube(n, n), [&](int64_t i) {
        std::vector<lapack_int> ip(size_t(n) + 1);
        T* mat = a->data_as<T>() + i * n * n;
        const lapack_int r = getrf_cm(lapack_int(n), mat, ip.data());
        inf[i] = int32_t(r > 0 ? r : 0);
        if (r != 0 || getri_cm(lapack_int(n), mat, ip.data()) != 0) fill_nan(mat, n * n);
      });
    });
  }

  void cholesky(const Tensor& a, bool upper, const Tensor& info) const override {
    const int64_t n = rows(a), count = batch_of(a);
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.cholesky", [&] {
      using T = scalar_t;
      T* p = a->data_as<T>();
      for_each_matrix(count, cube(n, n) / 3, [&](int64_t b) {
        T* mat = p + b * n * n;
        lapack_int r = potrf(upper ? 'U' : 'L', lapack_int(n), mat);
        if (r < 0) {
          fill_nan(mat, n * n);
          r = 0;
        }
        inf[b] = int32_t(r);
        // potrf leaves the other triangle as it was: zeroed row by row.
        for (int64_t i = 0; i < n; ++i) {
          T* row = mat + i * n;
          if (upper)
            std::fill(row, row + i, T(0));
          else
            std::fill(row + i + 1, row + n, T(0));
        }
      });
    });
  }

  void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool trans, bool unit) const override {
    const int64_t n = rows(a), k = cols(b), count = batch_of(b);
    TC_DISPATCH_FLOATING(a->dtype, "linalg.solve_triangular", [&] {
      using T = scalar_t;
      for_each_matrix(count, n * n * k, [&](int64_t i) {
        substitute(a->data_as<T>() + i * n * n, b->data_as<T>() + i * n * k, n, k, upper, trans, unit);
      });
    });
  }

  void qr(const Tensor& a, const Tensor& q, const Tensor& r) const override {
    const int64_t m = rows(a), n = cols(a), k = std::min(m, n), count = batch_of(a);
    const int64_t kq = q ? cols(q) : 0, kr = rows(r);
    const int64_t ldw = std::max(n, kq);
    TC_DISPATCH_FLOATING(a->dtype, "linalg.qr", [&] {
      using T = scalar_t;
      for_each_matrix(count, 2 * cube(m, n), [&](int64_t b) {
        std::vector<T> w(size_t(std::max<int64_t>(m * ldw, 1))), tau(size_t(k) + 1);
        const T* src = a->data_as<T>() + b * m * n;
        for (int64_t i = 0; i < m; ++i) std::memcpy(&w[size_t(i * ldw)], src + i * n, sizeof(T) * size_t(n));
        T* rr = r->data_as<T>() + b * kr * n;
        if (geqrf(lapack_int(m), lapack_int(n), w.data(), lapack_int(ldw), tau.data()) < 0) {
          fill_nan(rr, kr * n);
          if (q) fill_nan(q->data_as<T>() + b * m * kq, m * kq);
          return;
        }
        for (int64_t i = 0; i < kr; ++i)
          for (int64_t j = 0; j < n; ++j) rr[i * n + j] = (j >= i && i < m) ? w[size_t(i * ldw + j)] : T(0);
        if (!q) return;
        orgqr(lapack_int(m), lapack_int(kq), lapack_int(k), w.data(), lapack_int(ldw), tau.data());
        T* qq = q->data_as<T>() + b * m * kq;
        for (int64_t i = 0; i < m; ++i) std::memcpy(qq + i * kq, &w[size_t(i * ldw)], sizeof(T) * size_t(kq));
      });
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
      for_each_matrix(count, 8 * cube(m, n), [&](int64_t b) {
        T* w = Scratch<0>::get<T>(size_t(m * n));
        T dummy[1];
        std::memcpy(w, a->data_as<T>() + b * m * n, sizeof(T) * size_t(m * n));
        T* ps = s->data_as<T>() + b * k;
        T* pu = u ? u->data_as<T>() + b * m * uc : dummy;
        T* pv = vh ? vh->data_as<T>() + b * vr * n : dummy;
        const lapack_int r =
            gesdd<T>(job, lapack_int(m), lapack_int(n), w, ps, pu, lapack_int(u ? uc : 1), pv);
        Scratch<0>::trim();
        inf[b] = int32_t(r == 0 ? 0 : (r < 0 ? -1 : r));  // < 0: LAPACKE refused NaN input
        if (r != 0) {
          fill_nan(ps, k);
          if (u) fill_nan(pu, m * uc);
          if (vh) fill_nan(pv, vr * n);
        }
      });
    });
  }

  void eigh(const Tensor& a, const Tensor& w, bool upper, bool vectors, const Tensor& info) const override {
    const int64_t n = rows(a), count = batch_of(a);
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.eigh", [&] {
      using T = scalar_t;
      for_each_matrix(count, 4 * cube(n, n), [&](int64_t b) {
        T* mat = a->data_as<T>() + b * n * n;
        T* pw = w->data_as<T>() + b * n;
        const lapack_int r = syevd(vectors ? 'V' : 'N', upper ? 'U' : 'L', lapack_int(n), mat, pw);
        inf[b] = int32_t(r == 0 ? 0 : (r < 0 ? 1 : r));
        if (r != 0) {
          fill_nan(pw, n);
          fill_nan(mat, n * n);
        }
      });
    });
  }

  void householder_product(const Tensor& a, const Tensor& tau) const override {
    const int64_t m = rows(a), n = cols(a), k = cols(tau), count = batch_of(a);
    TC_DISPATCH_FLOATING(a->dtype, "linalg.householder_product", [&] {
      using T = scalar_t;
      for_each_matrix(count, 2 * cube(m, n), [&](int64_t b) {
        T* mat = a->data_as<T>() + b * m * n;
        if (orgqr(lapack_int(m), lapack_int(n), lapack_int(k), mat, lapack_int(n),
                  tau->data_as<T>() + b * k) < 0)
          fill_nan(mat, m * n);
      });
    });
  }

  void eig(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) const override {
    const int64_t n = rows(a), count = batch_of(a);
    int32_t* inf = info->data_as<int32_t>();
    TC_DISPATCH_FLOATING(a->dtype, "linalg.eig", [&] {
      using T = scalar_t;
      for_each_matrix(count, 10 * cube(n, n), [&](int64_t b) {
        std::vector<T> wr(size_t(n) + 1), wi(size_t(n) + 1), vr(v ? size_t(n * n) : 1);
        T* mat = a->data_as<T>() + b * n * n;
        T* pw = w->data_as<T>() + b * n * 2;
        T* pv = v ? v->data_as<T>() + b * n * n * 2 : nullptr;
        const lapack_int r = geev(v ? 'V' : 'N', lapack_int(n), mat, wr.data(), wi.data(), vr.data());
        inf[b] = int32_t(r == 0 ? 0 : (r < 0 ? 1 : r));
        if (r != 0) {
          fill_nan(pw, 2 * n);
          if (pv) fill_nan(pv, 2 * n * n);
          return;
        }
        for (int64_t j = 0; j < n; ++j) {
          pw[2 * j] = wr[size_t(j)];
          pw[2 * j + 1] = wi[size_t(j)];
        }
        if (!pv) return;
        // geev packs a complex pair's vectors as two real columns: j (real
        // part) and j + 1 (imaginary part) for the eigenvalue with wi > 0;
        // its conjugate's vector is the conjugate.
        for (int64_t j = 0; j < n; ++j) {
          const bool pair = wi[size_t(j)] != T(0);
          for (int64_t i = 0; i < n; ++i) {
            T re = vr[size_t(i * n + j)], im = T(0);
            if (pair && wi[size_t(j)] > T(0)) {
              im = vr[size_t(i * n + j + 1)];
            } else if (pair) {
              re = vr[size_t(i * n + j - 1)];
              im = -vr[size_t(i * n + j)];
            }
            pv[(i * n + j) * 2] = re;
            pv[(i * n + j) * 2 + 1] = im;
          }
        }
      });
    });
  }

  void lstsq(const Tensor& a, const Tensor& b, int32_t driver, double rcond, const Tensor& rank,
             const Tensor& s, const Tensor& info) const override {
    const int64_t m = rows(a), n = cols(a), k = cols(b), mn = std::min(m, n), count = batch_of(a);
    const int64_t rb = rows(b);
    int32_t* inf = info->data_as<int32_t>();
    int64_t* prank = rank ? rank->data_as<int64_t>() : nullptr;
    TC_DISPATCH_FLOATING(a->dtype, "linalg.lstsq", [&] {
      using T = scalar_t;
      for_each_matrix(count, 4 * cube(m, n) + m * n * k, [&](int64_t i) {
        std::vector<lapack_int> jpvt(size_t(n) + 1, 0);
        std::vector<T> sv(size_t(mn) + 1);
        lapack_int rk = lapack_int(mn);
        T* pb = b->data_as<T>() + i * rb * k;
        const lapack_int r =
            lstsq_one<T>(driver, lapack_int(m), lapack_int(n), lapack_int(k), a->data_as<T>() + i * m * n, pb,
                         T(rcond), jpvt.data(), &rk, sv.data());
        if (r < 0) {  // NaN input, refused: NaN results
          fill_nan(pb, rb * k);
          fill_nan(sv.data(), mn);
          rk = 0;
        }
        inf[i] = int32_t(r > 0 ? r : 0);
        if (prank) prank[i] = int64_t(rk);
        if (s) std::memcpy(s->data_as<T>() + i * mn, sv.data(), sizeof(T) * size_t(mn));
      });
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
      for_each_matrix(count, n * n * k, [&](int64_t i) {
        substitute(a->data_as<T>() + i * n * n, b->data_as<T>() + i * n * k, n, k, upper, trans, unit);
      });
    });
  }
};
#endif

}  // namespace
}  // namespace cpu

// Defined here rather than in backend/ (which may not include cpu/): the CPU
// table for CPU tensors, a refusing default naming the device for the rest.
namespace {
std::atomic<const LinalgBackend*> g_cuda_table{nullptr};
}  // namespace

void register_linalg_backend(const LinalgBackend* cuda_table) noexcept { g_cuda_table.store(cuda_table); }

const LinalgBackend& linalg_backend_for(Device device) {
  static const cpu::LapackBackend cpu_table;
  if (device_type(device) == device_type(kCPU)) return cpu_table;
  if (const LinalgBackend* t = g_cuda_table.load()) return *t;
  static const LinalgBackend cuda_default("cuda");
  return cuda_default;
}

}  // namespace tc
