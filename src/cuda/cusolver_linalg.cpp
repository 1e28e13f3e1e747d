// The CUDA linalg table (backend/linalg_backend.h) on cuSOLVER's dense
// routines, in the CUDA module: getrf/getrs (LU, solve, inverse), potrf
// (Cholesky), geqrf + orgqr (QR, Householder products), gesvd (SVD) and
// syevd (symmetric eigendecomposition), one call per matrix of the batch on
// the default stream (where the allocator and the copies run). cuSOLVER is
// column-major: a row-major matrix read column-major is its transpose, so
// the kernels transpose into a scratch buffer with cublas<t>geam and back,
// except where the transpose does not matter (a symmetric matrix is its own
// transpose: potrf and syevd run in place with the triangle swapped; the SVD
// of a wide matrix is the SVD of its tall transpose with U and V swapped).
// eig and lstsq stay the default (TC_ERR_NOT_IMPLEMENTED naming the device).
// Infos are written by cuSOLVER into the int32 info tensors on the device.
#include "cuda/cusolver_linalg.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "backend/linalg_backend.h"
#include "core/dtype.h"
#include "core/error.h"
#include "cuda/caching_allocator.h"
#include "cuda/cuda_check.h"

namespace tc::cuda {
namespace {

[[noreturn]] void solver_fail(const char* call, int status) {
  fail(TC_ERR_DEVICE, str(call, " failed: cuSOLVER/cuBLAS status ", status));
}
#define TC_SOLVER_CHECK(call)                                  \
  do {                                                         \
    const int tc_solver_st_ = int(call);                       \
    if (tc_solver_st_ != 0) solver_fail(#call, tc_solver_st_); \
  } while (0)

// One cuSOLVER and one cuBLAS handle per device, made on first use; a
// handle is used by one thread at a time (the entry's lock).
struct DeviceSolver {
  std::mutex mu;
  cusolverDnHandle_t solver = nullptr;
  cublasHandle_t blas = nullptr;
};
std::mutex g_registry_mu;
std::vector<DeviceSolver*>& registry() {
  static auto* r = new std::vector<DeviceSolver*>();  // outlives static destruction
  return *r;
}
DeviceSolver& device_solver(int32_t index) {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  auto& r = registry();
  if (size_t(index) >= r.size()) r.resize(size_t(index) + 1, nullptr);
  if (!r[size_t(index)]) r[size_t(index)] = new DeviceSolver();
  DeviceSolver& d = *r[size_t(index)];
  if (!d.solver) {
    TC_CUDA_CHECK(cudaSetDevice(index));
    TC_SOLVER_CHECK(cusolverDnCreate(&d.solver));
    TC_SOLVER_CHECK(cusolverDnSetStream(d.solver, nullptr));
    TC_SOLVER_CHECK(cublasCreate(&d.blas));
    TC_SOLVER_CHECK(cublasSetStream(d.blas, nullptr));
  }
  return d;
}

// Device scratch from the module's caching allocator, freed at scope exit.
struct Scratch {
  Scratch(int64_t bytes, int32_t device)
      : dev(device), p(cuda_cache_alloc(std::max<int64_t>(bytes, 16), device)) {}
  ~Scratch() { cuda_cache_free(p, dev); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(p);
  }
  int32_t dev;
  void* p;
};

int64_t rows(const Tensor& t) { return t->shape[t->ndim() - 2]; }
int64_t cols(const Tensor& t) { return t->shape[t->ndim() - 1]; }
int64_t batch_of(const Tensor& t) {
  const int64_t per = rows(t) * cols(t);
  return per == 0 ? 0 : t->numel() / per;
}

// The s/d routines by type.
struct F32 {
  using T = float;
  static cublasStatus_t geam(cublasHandle_t h, int m, int n, const T* a, int lda, T* c, int ldc) {
    const T one = 1, zero = 0;
    return cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
  }
  static cusolverStatus_t getrf_ws(cusolverDnHandle_t h, int m, int n, T* a, int* lw) {
    return cusolverDnSgetrf_bufferSize(h, m, n, a, m, lw);
  }
  static cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T* a, T* w, int* piv, int* info) {
    return cusolverDnSgetrf(h, m, n, a, m, w, piv, info);
  }
  static cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k, const T* a,
                                const int* piv, T* b, int* info) {
    return cusolverDnSgetrs(h, t, n, k, a, n, piv, b, n, info);
  }
  static cusolverStatus_t potrf_ws(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int* lw) {
    return cusolverDnSpotrf_bufferSize(h, u, n, a, n, lw);
  }
  static cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, T* w, int lw,
                                int* info) {
    return cusolverDnSpotrf(h, u, n, a, n, w, lw, info);
  }
  static cusolverStatus_t geqrf_ws(cusolverDnHandle_t h, int m, int n, T* a, int* lw) {
    return cusolverDnSgeqrf_bufferSize(h, m, n, a, m, lw);
  }
  static cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T* a, T* tau, T* w, int lw, int* info) {
    return cusolverDnSgeqrf(h, m, n, a, m, tau, w, lw, info);
  }
  static cusolverStatus_t orgqr_ws(cusolverDnHandle_t h, int m, int n, int k, const T* a, const T* tau,
                                   int* lw) {
    return cusolverDnSorgqr_bufferSize(h, m, n, k, a, m, tau, lw);
  }
  static cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T* a, const T* tau, T* w, int lw,
                                int* info) {
    return cusolverDnSorgqr(h, m, n, k, a, m, tau, w, lw, info);
  }
  static cusolverStatus_t gesvd_ws(cusolverDnHandle_t h, int m, int n, int* lw) {
    return cusolverDnSgesvd_bufferSize(h, m, n, lw);
  }
  static cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, T* a,
                                T* s, T* u, int ldu, T* vt, int ldvt, T* w, int lw, int* info) {
    return cusolverDnSgesvd(h, ju, jv, m, n, a, m, s, u, ldu, vt, ldvt, w, lw, nullptr, info);
  }
  static cusolverStatus_t syevd_ws(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n,
                                   const T* a, const T* wv, int* lw) {
    return cusolverDnSsyevd_bufferSize(h, j, u, n, a, n, wv, lw);
  }
  static cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T* a,
                                T* wv, T* w, int lw, int* info) {
    return cusolverDnSsyevd(h, j, u, n, a, n, wv, w, lw, info);
  }
  static cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d,
                             int m, int n, const T* a, int lda, T* b, int ldb) {
    const T one = 1;
    return cublasStrsm(h, CUBLAS_SIDE_RIGHT, u, t, d, m, n, &one, a, lda, b, ldb);
  }
};
struct F64 {
  using T = double;
  static cublasStatus_t geam(cublasHandle_t h, int m, int n, const T* a, int lda, T* c, int ldc) {
    const T one = 1, zero = 0;
    return cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
  }
  static cusolverStatus_t getrf_ws(cusolverDnHandle_t h, int m, int n, T* a, int* lw) {
    return cusolverDnDgetrf_bufferSize(h, m, n, a, m, lw);
  }
  static cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T* a, T* w, int* piv, int* info) {
    return cusolverDnDgetrf(h, m, n, a, m, w, piv, info);
  }
  static cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k, const T* a,
                                const int* piv, T* b, int* info) {
    return cusolverDnDgetrs(h, t, n, k, a, n, piv, b, n, info);
  }
  static cusolverStatus_t potrf_ws(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int* lw) {
    return cusolverDnDpotrf_bufferSize(h, u, n, a, n, lw);
  }
  static cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, T* w, int lw,
                                int* info) {
    return cusolverDnDpotrf(h, u, n, a, n, w, lw, info);
  }
  static cusolverStatus_t geqrf_ws(cusolverDnHandle_t h, int m, int n, T* a, int* lw) {
    return cusolverDnDgeqrf_bufferSize(h, m, n, a, m, lw);
  }
  static cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T* a, T* tau, T* w, int lw, int* info) {
    return cusolverDnDgeqrf(h, m, n, a, m, tau, w, lw, info);
  }
  static cusolverStatus_t orgqr_ws(cusolverDnHandle_t h, int m, int n, int k, const T* a, const T* tau,
                                   int* lw) {
    return cusolverDnDorgqr_bufferSize(h, m, n, k, a, m, tau, lw);
  }
  static cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T* a, const T* tau, T* w, int lw,
                                int* info) {
    return cusolverDnDorgqr(h, m, n, k, a, m, tau, w, lw, info);
  }
  static cusolverStatus_t gesvd_ws(cusolverDnHandle_t h, int m, int n, int* lw) {
    return cusolverDnDgesvd_bufferSize(h, m, n, lw);
  }
  static cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, T* a,
                                T* s, T* u, int ldu, T* vt, int ldvt, T* w, int lw, int* info) {
    return cusolverDnDgesvd(h, ju, jv, m, n, a, m, s, u, ldu, vt, ldvt, w, lw, nullptr, info);
  }
  static cusolverStatus_t syevd_ws(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n,
                                   const T* a, const T* wv, int* lw) {
    return cusolverDnDsyevd_bufferSize(h, j, u, n, a, n, wv, lw);
  }
  static cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T* a,
                                T* wv, T* w, int lw, int* info) {
    return cusolverDnDsyevd(h, j, u, n, a, n, wv, w, lw, info);
  }
  static cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d,
                             int m, int n, const T* a, int lda, T* b, int ldb) {
    const T one = 1;
    return cublasDtrsm(h, CUBLAS_SIDE_RIGHT, u, t, d, m, n, &one, a, lda, b, ldb);
  }
};

// Runs f.template operator()<F32 or F64>() by dtype.
template <typename Fn>
void by_dtype(DType d, Fn&& f) {
  if (d == DType::f32)
    f(F32{});
  else if (d == DType::f64)
    f(F64{});
  else
    fail(TC_ERR_DTYPE, "cuSOLVER: float32 and float64 only");
}

// dst (column-major r x c, ld r) = src (row-major r x c): one geam.
template <typename L, typename T>
void to_col_major(cublasHandle_t h, const T* src, T* dst, int64_t r, int64_t c) {
  TC_SOLVER_CHECK(L::geam(h, int(r), int(c), src, int(c), dst, int(r)));
}
// dst (row-major r x c) = src (column-major r x c, ld r).
template <typename L, typename T>
void to_row_major(cublasHandle_t h, const T* src, T* dst, int64_t r, int64_t c) {
  TC_SOLVER_CHECK(L::geam(h, int(c), int(r), src, int(r), dst, int(c)));
}

struct CusolverLinalg final : LinalgBackend {
  CusolverLinalg() : LinalgBackend("cuda") {}
  bool available() const override { return true; }

  void lu_factor(const Tensor& a, const Tensor& pivots, const Tensor& info) const override {
    const int64_t m = rows(a), n = cols(a), k = std::min(m, n), count = batch_of(a);
    const int32_t dev = device_index(a->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    by_dtype(a->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      Scratch col(m * n * int64_t(sizeof(T)), dev);
      int lw = 0;
      TC_SOLVER_CHECK(L::getrf_ws(ds.solver, int(m), int(n), col.as<T>(), &lw));
      Scratch work(int64_t(lw) * int64_t(sizeof(T)), dev);
      for (int64_t b = 0; b < count; ++b) {
        T* mat = a->data_as<T>() + b * m * n;
        to_col_major<L>(ds.blas, mat, col.as<T>(), m, n);
        TC_SOLVER_CHECK(L::getrf(ds.solver, int(m), int(n), col.as<T>(), work.as<T>(),
                                 pivots->data_as<int32_t>() + b * k, info->data_as<int32_t>() + b));
        to_row_major<L>(ds.blas, col.as<T>(), mat, m, n);
      }
    });
  }

  void lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool trans) const override {
    const int64_t n = rows(lu), k = cols(b), count = batch_of(lu);
    const int32_t dev = device_index(lu->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    by_dtype(lu->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      Scratch lc(n * n * int64_t(sizeof(T)), dev), bc(n * k * int64_t(sizeof(T)), dev), inf(4, dev);
      for (int64_t i = 0; i < count; ++i) {
        to_col_major<L>(ds.blas, lu->data_as<T>() + i * n * n, lc.as<T>(), n, n);
        T* pb = b->data_as<T>() + i * n * k;
        to_col_major<L>(ds.blas, pb, bc.as<T>(), n, k);
        TC_SOLVER_CHECK(L::getrs(ds.solver, trans ? CUBLAS_OP_T : CUBLAS_OP_N, int(n), int(k), lc.as<T>(),
                                 pivots->data_as<int32_t>() + i * n, bc.as<T>(), inf.as<int>()));
        to_row_major<L>(ds.blas, bc.as<T>(), pb, n, k);
      }
    });
  }

  void lu_inverse(const Tensor& lu, const Tensor& pivots) const override {
    // A^-1 = solve(A, I), written over the factors.
    const int64_t n = rows(lu), count = batch_of(lu);
    const int32_t dev = device_index(lu->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    by_dtype(lu->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      Scratch lc(n * n * int64_t(sizeof(T)), dev), x(n * n * int64_t(sizeof(T)), dev), inf(4, dev);
      std::vector<T> eye(size_t(n * n), T(0));
      for (int64_t i = 0; i < n; ++i) eye[size_t(i * n + i)] = T(1);
      for (int64_t i = 0; i < count; ++i) {
        T* mat = lu->data_as<T>() + i * n * n;
        to_col_major<L>(ds.blas, mat, lc.as<T>(), n, n);
        TC_CUDA_CHECK(cudaMemcpy(x.p, eye.data(), sizeof(T) * size_t(n * n), cudaMemcpyHostToDevice));
        TC_SOLVER_CHECK(L::getrs(ds.solver, CUBLAS_OP_N, int(n), int(n), lc.as<T>(),
                                 pivots->data_as<int32_t>() + i * n, x.as<T>(), inf.as<int>()));
        to_row_major<L>(ds.blas, x.as<T>(), mat, n, n);
      }
    });
  }

  void cholesky(const Tensor& a, bool upper, const Tensor& info) const override {
    // Symmetric: factored in place, column-major with the triangle swapped.
    const int64_t n = rows(a), count = batch_of(a);
    const int32_t dev = device_index(a->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    by_dtype(a->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      if (count == 0) return;
      int lw = 0;
      TC_SOLVER_CHECK(L::potrf_ws(ds.solver, uplo, int(n), a->data_as<T>(), &lw));
      Scratch work(int64_t(lw) * int64_t(sizeof(T)), dev);
      for (int64_t b = 0; b < count; ++b) {
        T* mat = a->data_as<T>() + b * n * n;
        TC_SOLVER_CHECK(
            L::potrf(ds.solver, uplo, int(n), mat, work.as<T>(), lw, info->data_as<int32_t>() + b));
        // potrf leaves the other triangle as it was: zero it, row by row.
        for (int64_t i = 0; i < n; ++i) {
          T* start = upper ? mat + i * n : mat + i * n + i + 1;
          const int64_t len = upper ? i : n - i - 1;
          if (len > 0) TC_CUDA_CHECK(cudaMemsetAsync(start, 0, sizeof(T) * size_t(len), nullptr));
        }
      }
    });
  }

  void triangular_solve(const Tensor& a, const Tensor& b, bool upper, bool trans, bool unit) const override {
    // Row-major X = op(A)^-1 B is column-major X^T = B^T op(A)^-T: a
    // right-side trsm on M = A^T (column-major view of A), in place.
    const int64_t n = rows(a), k = cols(b), count = batch_of(b);
    const int32_t dev = device_index(a->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    by_dtype(a->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      for (int64_t i = 0; i < count; ++i)
        TC_SOLVER_CHECK(L::trsm(ds.blas, upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER,
                                trans ? CUBLAS_OP_T : CUBLAS_OP_N,
                                unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, int(k), int(n),
                                a->data_as<T>() + i * n * n, int(n), b->data_as<T>() + i * n * k, int(k)));
    });
  }

  void qr(const Tensor& a, const Tensor& q, const Tensor& r) const override {
    const int64_t m = rows(a), n = cols(a), k = std::min(m, n), count = batch_of(a);
    const int64_t kq = q ? cols(q) : 0, kr = rows(r), wc = std::max(n, kq);
    const int32_t dev = device_index(a->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    by_dtype(a->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      Scratch col(m * wc * int64_t(sizeof(T)), dev), tau((k + 1) * int64_t(sizeof(T)), dev), inf(4, dev);
      Scratch rowbuf(m * wc * int64_t(sizeof(T)), dev);
      int lw1 = 0, lw2 = 0;
      TC_SOLVER_CHECK(L::geqrf_ws(ds.solver, int(m), int(n), col.as<T>(), &lw1));
      if (q) TC_SOLVER_CHECK(L::orgqr_ws(ds.solver, int(m), int(kq), int(k), col.as<T>(), tau.as<T>(), &lw2));
      Scratch work(int64_t(std::max(lw1, lw2)) * int64_t(sizeof(T)), dev);
      for (int64_t b = 0; b < count; ++b) {
        TC_CUDA_CHECK(cudaMemsetAsync(col.p, 0, sizeof(T) * size_t(m * wc), nullptr));
        to_col_major<L>(ds.blas, a->data_as<T>() + b * m * n, col.as<T>(), m, n);
        TC_SOLVER_CHECK(L::geqrf(ds.solver, int(m), int(n), col.as<T>(), tau.as<T>(), work.as<T>(),
                                 std::max(lw1, lw2), inf.as<int>()));
        // R: the upper triangle of the first kr rows (row-major, zeros below).
        to_row_major<L>(ds.blas, col.as<T>(), rowbuf.as<T>(), m, n);
        T* rr = r->data_as<T>() + b * kr * n;
        TC_CUDA_CHECK(cudaMemsetAsync(rr, 0, sizeof(T) * size_t(kr * n), nullptr));
        for (int64_t i = 0; i < std::min(kr, m); ++i)
          TC_CUDA_CHECK(cudaMemcpyAsync(rr + i * n + i, rowbuf.as<T>() + i * n + i, sizeof(T) * size_t(n - i),
                                        cudaMemcpyDeviceToDevice, nullptr));
        if (!q) continue;
        TC_SOLVER_CHECK(L::orgqr(ds.solver, int(m), int(kq), int(k), col.as<T>(), tau.as<T>(), work.as<T>(),
                                 std::max(lw1, lw2), inf.as<int>()));
        to_row_major<L>(ds.blas, col.as<T>(), q->data_as<T>() + b * m * kq, m, kq);
      }
    });
  }

  void svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh,
           const Tensor& info) const override {
    // gesvd wants m >= n. The row-major buffer read column-major is A^T
    // (n x m): when n >= m it is already tall, and A^T = U' S V'^T gives
    // A = V' S U'^T, so U_A is V'^T's buffer and Vh_A is U''s, no
    // transpose at all. A tall A is transposed into column-major first.
    const int64_t m = rows(a), n = cols(a), k = std::min(m, n), count = batch_of(a);
    const bool full = u && cols(u) == m && rows(vh) == n && m != n;
    const int32_t dev = device_index(a->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    by_dtype(a->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      const bool wide = n >= m;
      const int64_t mm = wide ? n : m, nn = wide ? m : n;  // the tall column-major problem mm x nn
      const int64_t ucols = full ? mm : k;
      Scratch work_a(mm * nn * int64_t(sizeof(T)), dev), uu(mm * ucols * int64_t(sizeof(T)), dev),
          vt(nn * nn * int64_t(sizeof(T)), dev);
      int lw = 0;
      TC_SOLVER_CHECK(L::gesvd_ws(ds.solver, int(mm), int(nn), &lw));
      Scratch work(int64_t(lw) * int64_t(sizeof(T)), dev);
      const signed char job_u = !u ? 'N' : (full ? 'A' : 'S'), job_v = !u ? 'N' : 'A';
      for (int64_t b = 0; b < count; ++b) {
        const T* src = a->data_as<T>() + b * m * n;
        if (wide)
          TC_CUDA_CHECK(
              cudaMemcpyAsync(work_a.p, src, sizeof(T) * size_t(m * n), cudaMemcpyDeviceToDevice, nullptr));
        else
          to_col_major<L>(ds.blas, src, work_a.as<T>(), m, n);
        TC_SOLVER_CHECK(L::gesvd(ds.solver, job_u, job_v, int(mm), int(nn), work_a.as<T>(),
                                 s->data_as<T>() + b * k, uu.as<T>(), int(mm), vt.as<T>(), int(nn),
                                 work.as<T>(), lw, info->data_as<int32_t>() + b));
        if (!u) continue;
        T* pu = u->data_as<T>() + b * m * cols(u);
        T* pv = vh->data_as<T>() + b * rows(vh) * n;
        if (wide) {  // U_A = (V'^T)'s buffer (m x m), Vh_A = U''s buffer read row-major (ucols x n)
          TC_CUDA_CHECK(
              cudaMemcpyAsync(pu, vt.p, sizeof(T) * size_t(m * m), cudaMemcpyDeviceToDevice, nullptr));
          TC_CUDA_CHECK(
              cudaMemcpyAsync(pv, uu.p, sizeof(T) * size_t(ucols * n), cudaMemcpyDeviceToDevice, nullptr));
        } else {  // U (m x ucols column-major) and V^T (n x n column-major) to row-major
          to_row_major<L>(ds.blas, uu.as<T>(), pu, m, ucols);
          to_row_major<L>(ds.blas, vt.as<T>(), pv, n, n);
        }
      }
    });
  }

  void eigh(const Tensor& a, const Tensor& w, bool upper, bool vectors, const Tensor& info) const override {
    // Symmetric: read column-major with the triangle swapped; the vectors
    // come back as columns of a column-major matrix, transposed into a.
    const int64_t n = rows(a), count = batch_of(a);
    const int32_t dev = device_index(a->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    const cusolverEigMode_t job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    by_dtype(a->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      if (count == 0) return;
      Scratch col(n * n * int64_t(sizeof(T)), dev);
      int lw = 0;
      TC_SOLVER_CHECK(L::syevd_ws(ds.solver, job, uplo, int(n), col.as<T>(), w->data_as<T>(), &lw));
      Scratch work(int64_t(lw) * int64_t(sizeof(T)), dev);
      for (int64_t b = 0; b < count; ++b) {
        T* mat = a->data_as<T>() + b * n * n;
        TC_CUDA_CHECK(
            cudaMemcpyAsync(col.p, mat, sizeof(T) * size_t(n * n), cudaMemcpyDeviceToDevice, nullptr));
        TC_SOLVER_CHECK(L::syevd(ds.solver, job, uplo, int(n), col.as<T>(), w->data_as<T>() + b * n,
                                 work.as<T>(), lw, info->data_as<int32_t>() + b));
        if (vectors) to_row_major<L>(ds.blas, col.as<T>(), mat, n, n);
      }
    });
  }

  void householder_product(const Tensor& a, const Tensor& tau) const override {
    const int64_t m = rows(a), n = cols(a), k = cols(tau), count = batch_of(a);
    const int32_t dev = device_index(a->device);
    DeviceSolver& ds = device_solver(dev);
    std::lock_guard<std::mutex> lock(ds.mu);
    by_dtype(a->dtype, [&](auto l) {
      using L = decltype(l);
      using T = typename L::T;
      Scratch col(m * n * int64_t(sizeof(T)), dev), inf(4, dev);
      int lw = 0;
      TC_SOLVER_CHECK(L::orgqr_ws(ds.solver, int(m), int(n), int(k), col.as<T>(), tau->data_as<T>(), &lw));
      Scratch work(int64_t(lw) * int64_t(sizeof(T)), dev);
      for (int64_t b = 0; b < count; ++b) {
        T* mat = a->data_as<T>() + b * m * n;
        to_col_major<L>(ds.blas, mat, col.as<T>(), m, n);
        TC_SOLVER_CHECK(L::orgqr(ds.solver, int(m), int(n), int(k), col.as<T>(), tau->data_as<T>() + b * k,
                                 work.as<T>(), lw, inf.as<int>()));
        to_row_major<L>(ds.blas, col.as<T>(), mat, m, n);
      }
    });
  }
};

}  // namespace

const LinalgBackend& linalg_table() {
  static const CusolverLinalg table;
  return table;
}

void linalg_shutdown() noexcept {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  for (DeviceSolver*& d : registry()) {
    if (!d) continue;
    if (d->solver) cusolverDnDestroy(d->solver);
    if (d->blas) cublasDestroy(d->blas);
    delete d;
    d = nullptr;
  }
}

}  // namespace tc::cuda
