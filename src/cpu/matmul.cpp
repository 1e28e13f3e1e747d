#include "cpu/matmul.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/init.h"
#include "cpu/loops.h"
#include "cpu/small_matmul.h"

namespace tc::cpu {

namespace {

// C *= beta (beta == 0 overwrites, so NaN garbage in an empty C never leaks).
template <typename T>
void scale_c(int64_t m, int64_t n, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * ldc;
    if (beta == T(0)) {
      std::fill(row, row + n, T(0));
    } else {
      for (int64_t j = 0; j < n; ++j) row[j] *= beta;
    }
  }
}

}  // namespace

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
          int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) return scale_c(m, n, beta, c, ldc);
  sync_omp_threads();  // oneDNN's OpenMP threading reads the calling thread's setting
  // Below ~2^18 multiply-adds a fork/join costs more than it saves (and on a
  // loaded machine a descheduled worker stalls the whole call), so small
  // products run on the calling thread.
  const double madds = double(m) * double(n) * double(k);
  const bool small = madds <= double(1 << 18);
  const int threads = omp_get_max_threads();
  // A product up to 128^3 that runs on one thread goes to a kept oneDNN
  // matmul primitive (cpu/small_matmul.h); tiny ones stay on sgemm, whose
  // call costs less than a primitive's dispatch there.
  if (alpha == 1.0f && beta == 0.0f && madds <= double(1 << 21) && std::min({m, n, k}) >= 32 &&
      (small || threads == 1) && !omp_in_parallel()) {
    if (threads > 1) omp_set_num_threads(1);
    const bool done = small_matmul_f32(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
    if (threads > 1) omp_set_num_threads(threads);
    if (done) return;
  }
  if (small && threads > 1 && !omp_in_parallel()) omp_set_num_threads(1);
  const dnnl_status_t st =
      dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (small && threads > 1 && !omp_in_parallel()) omp_set_num_threads(threads);
  TC_CHECK(st == dnnl_success, TC_ERR_INTERNAL, "dnnl_sgemm failed with status ", int(st), " (m=", m,
           " n=", n, " k=", k, " lda=", lda, " ldb=", ldb, " ldc=", ldc, ")");
}

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
          int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  scale_c(m, n, beta, c, ldc);
  if (k == 0 || alpha == 0.0) return;
  // Pack B as row-major K x N so the inner loop is a unit-stride axpy the
  // compiler vectorizes; A is read through its strides (one scalar per row).
  std::vector<double> bp(size_t(k) * size_t(n));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) bp[p * n + j] = trans_b ? b[j * ldb + p] : b[p * ldb + j];
  const int64_t as_row = trans_a ? 1 : lda, as_col = trans_a ? lda : 1;
  // Each row of C belongs to one thread and sums in a fixed order, so the
  // result does not depend on the thread count; a thread takes whole rows
  // once it gets kParallelGrain multiply-adds (off OpenMP below that).
  const int64_t row_grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n * k, 1));
  parallel_for(m, row_grain, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      double* crow = c + i * ldc;
      const double* arow = a + i * as_row;
      for (int64_t p = 0; p < k; ++p) {
        const double av = alpha * arow[p * as_col];
        const double* brow = bp.data() + p * n;
        for (int64_t j = 0; j < n; ++j) crow[j] += av * brow[j];
      }
    }
  });
}

}  // namespace tc::cpu
