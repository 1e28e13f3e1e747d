// CUDA kernels of the sort, scan and search row primitives (src/backend/backend.h):
// every kernel walks the rows of a contiguous [R, n] tensor, one thread per
// row (or per searched value), in the CPU kernels' order, so results match
// src/cpu/sort_scan.cpp bit for bit (float32 scans accumulate in double, as
// there). Sorting is a stable bottom-up merge sort of each row's indices in a
// scratch tensor; NaN sorts above every number. One thread per row is simple
// and exact; it is fast for many short rows, not for one long row (unique and
// the global median sort a single row).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/error.h"
#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "cuda/sort_scan.h"

namespace tc::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int64_t kMaxBlocks = int64_t(1) << 20;

int blocks_for(int64_t n) {
  return int(std::min<int64_t>(std::max<int64_t>((n + kThreads - 1) / kThreads, 1), kMaxBlocks));
}
void check_launch() { TC_CUDA_CHECK(cudaGetLastError()); }
void use_device(const Tensor& t) { TC_CUDA_CHECK(cudaSetDevice(device_index(t->device))); }

#define TC_ROW_LOOP(r, n)                                                   \
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < (n); \
       r += int64_t(gridDim.x) * blockDim.x)

template <typename C>
__device__ bool is_nan_c(C v) {
  if constexpr (std::is_floating_point_v<C>) {
    return v != v;
  } else {
    return false;
  }
}

// a < b with NaN above every number, on compute values.
template <typename C>
__device__ bool less_nan_last(C a, C b) {
  if (is_nan_c(a)) return false;
  if (is_nan_c(b)) return true;
  return a < b;
}

// Stable merge sort of the positions 0..n-1 of row by value (descending:
// reversed comparison, still stable). The result lands in `order`; `tmp`
// is scratch of the same length.
template <typename T>
__device__ void sort_row(const T* row, int64_t n, bool descending, int64_t* order, int64_t* tmp) {
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  int64_t* src = order;
  int64_t* dst = tmp;
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        const auto x = to_compute(row[src[i]]), y = to_compute(row[src[j]]);
        // Take from the right run only when strictly before: stability.
        const bool right_first = descending ? less_nan_last(x, y) : less_nan_last(y, x);
        dst[k++] = right_first ? src[j++] : src[i++];
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int64_t* s = src;
    src = dst;
    dst = s;
  }
  if (src != order)
    for (int64_t i = 0; i < n; ++i) order[i] = src[i];
}

template <typename T>
__global__ void sort_rows_kernel(T* values, int64_t* indices, const T* a, int64_t rows, int64_t n,
                                 bool descending, int64_t* tmp) {
  TC_ROW_LOOP(r, rows) {
    const T* row = a + r * n;
    int64_t* order = indices + r * n;
    sort_row(row, n, descending, order, tmp + r * n);
    if (values)
      for (int64_t t = 0; t < n; ++t) values[r * n + t] = row[order[t]];
  }
}

template <typename T>
__global__ void kth_rows_kernel(T* values, int64_t* indices, const T* a, int64_t rows, int64_t n, int64_t k,
                                bool nan_first, int64_t* scratch) {
  TC_ROW_LOOP(r, rows) {
    const T* row = a + r * n;
    int64_t pick = -1;
    if (nan_first)
      for (int64_t j = 0; j < n && pick < 0; ++j)
        if (is_nan_c(to_compute(row[j]))) pick = j;
    if (pick < 0) {
      int64_t* order = scratch + 2 * r * n;
      sort_row(row, n, false, order, order + n);
      pick = order[k];
    }
    values[r] = row[pick];
    indices[r] = pick;
  }
}

template <typename T>
__global__ void mode_rows_kernel(T* values, int64_t* indices, const T* a, int64_t rows, int64_t n,
                                 int64_t* scratch) {
  TC_ROW_LOOP(r, rows) {
    const T* row = a + r * n;
    int64_t* order = scratch + 2 * r * n;
    sort_row(row, n, false, order, order + n);
    // The first longest run of equal values (the smallest value); its last
    // element is the value's last occurrence.
    int64_t best_len = 0, best_last = order[0], run = 0;
    for (int64_t t = 0; t < n; ++t) {
      const auto v = to_compute(row[order[t]]);
      const auto prev = t > 0 ? to_compute(row[order[t - 1]]) : v;
      const bool same = t > 0 && (prev == v || (is_nan_c(v) && is_nan_c(prev)));
      run = same ? run + 1 : 1;
      if (run > best_len) {
        best_len = run;
        best_last = order[t];
      }
    }
    values[r] = row[best_last];
    indices[r] = best_last;
  }
}

template <typename T>
__global__ void prod_rows_kernel(T* out, const T* a, int64_t rows, int64_t n) {
  TC_ROW_LOOP(r, rows) {
    const T* row = a + r * n;
    if constexpr (std::is_same_v<T, int64_t>) {
      uint64_t acc = 1;  // wrapping, as the CPU's wrapping_mul
      for (int64_t j = 0; j < n; ++j) acc *= uint64_t(row[j]);
      out[r] = int64_t(acc);
    } else {
      double acc = 1;
      for (int64_t j = 0; j < n; ++j) acc *= double(to_compute(row[j]));
      out[r] = from_compute<T>(acc);
    }
  }
}

template <typename T>
__global__ void scan_rows_kernel(ScanKind kind, T* out, int64_t* indices, const T* a, int64_t rows,
                                 int64_t n) {
  using C = compute_t<T>;
  TC_ROW_LOOP(r, rows) {
    const T* x = a + r * n;
    T* y = out + r * n;
    if (kind == ScanKind::prod) {
      if constexpr (std::is_floating_point_v<C>) {
        double acc = 1;
        for (int64_t j = 0; j < n; ++j) y[j] = from_compute<T>(acc *= double(to_compute(x[j])));
      } else if constexpr (std::is_same_v<T, int64_t>) {
        uint64_t acc = 1;
        for (int64_t j = 0; j < n; ++j) y[j] = int64_t(acc *= uint64_t(x[j]));
      }
    } else if (kind == ScanKind::max || kind == ScanKind::min) {
      const bool is_max = kind == ScanKind::max;
      C best = to_compute(x[0]);
      int64_t at = 0;
      for (int64_t j = 0; j < n; ++j) {
        const C v = to_compute(x[j]);
        if (!is_nan_c(best) && (is_nan_c(v) || (is_max ? v >= best : v <= best))) {
          best = v;
          at = j;
        }
        y[j] = x[at];
        indices[r * n + j] = at;
      }
    } else if constexpr (std::is_floating_point_v<C>) {  // logsumexp
      double acc = -INFINITY;
      for (int64_t j = 0; j < n; ++j) {
        const double v = double(to_compute(x[j]));
        const double hi = fmax(acc, v), lo = fmin(acc, v);
        if (v != v || acc != acc) {
          acc = NAN;
        } else if (hi == -INFINITY || (isinf(hi) && hi == lo)) {
          acc = hi;
        } else {
          acc = hi + log1p(exp(lo - hi));
        }
        y[j] = from_compute<T>(acc);
      }
    }
  }
}

template <typename T>
__global__ void scan_rows_backward_kernel(ScanKind kind, T* gx, const T* g, const T* a, const T* y,
                                          int64_t rows, int64_t n) {
  TC_ROW_LOOP(r, rows) {
    const T *x = a + r * n, *gr = g + r * n, *yr = y + r * n;
    T* out = gx + r * n;
    auto X = [&](int64_t i) { return double(to_compute(x[i])); };
    auto G = [&](int64_t i) { return double(to_compute(gr[i])); };
    auto Y = [&](int64_t i) { return double(to_compute(yr[i])); };
    if (kind == ScanKind::prod) {
      // As the CPU kernel: before the first zero z, sum_{k >= i} g_k y_k / x_i;
      // at z, the products that skip x_z; after it, 0.
      int64_t z = n;
      for (int64_t j = 0; j < n && z == n; ++j)
        if (X(j) == 0.0) z = j;
      double tail = 0;
      for (int64_t i = n - 1; i >= 0; --i) {
        tail += G(i) * Y(i);
        out[i] = from_compute<T>(i < z ? tail / X(i) : 0.0);
      }
      if (z < n) {
        double run = z > 0 ? Y(z - 1) : 1.0, sum = 0;
        for (int64_t k = z; k < n; ++k) {
          if (k > z) run *= X(k);
          sum += G(k) * run;
        }
        out[z] = from_compute<T>(sum);
      }
    } else {
      // logsumexp: t_i = g_i + exp(y_i - y_{i+1}) t_{i+1}; gx_i = exp(x_i - y_i) t_i.
      double t = 0;
      for (int64_t i = n - 1; i >= 0; --i) {
        const double yi = Y(i);
        const double decay = i + 1 < n ? (yi == -INFINITY ? 0.0 : exp(yi - Y(i + 1))) : 0.0;
        t = G(i) + decay * t;
        out[i] = from_compute<T>(yi == -INFINITY ? 0.0 : exp(X(i) - yi) * t);
      }
    }
  }
}

// One thread: the sorted values are walked in order (the distinct values'
// positions depend on every element before them).
template <typename T>
__global__ void unique_sorted_kernel(T* values, int64_t* inverse, int64_t* counts, const T* sorted,
                                     const int64_t* order, int64_t n, int64_t* count_out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  int64_t u = -1;
  for (int64_t t = 0; t < n; ++t) {
    if (t == 0 || !(to_compute(sorted[t]) == to_compute(sorted[t - 1]))) {
      ++u;
      values[u] = sorted[t];
      counts[u] = 0;
    }
    ++counts[u];
    inverse[order[t]] = u;
  }
  *count_out = u + 1;
}

template <typename T>
__global__ void searchsorted_kernel(void* out, bool out_i32, const T* seq, int64_t s_rows, int64_t m,
                                    const T* v, int64_t rows, int64_t k, bool right) {
  TC_ROW_LOOP(p, rows * k) {
    const int64_t r = p / k;
    const T* row = seq + (s_rows == 1 ? 0 : r) * m;
    const auto x = to_compute(v[p]);
    int64_t lo = 0, hi = m;  // the first position whose element is > x (right) or >= x (left)
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const auto e = to_compute(row[mid]);
      const bool go_right = right ? !less_nan_last(x, e) : less_nan_last(e, x);
      if (go_right)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (out_i32)
      static_cast<int32_t*>(out)[p] = int32_t(lo);
    else
      static_cast<int64_t*>(out)[p] = lo;
  }
}

int64_t rows_of(const Tensor& a, int64_t& n) {
  n = a->shape[a->ndim() - 1];
  return n == 0 ? 0 : a->numel() / n;
}

}  // namespace

void sort_rows(const Tensor& values, const Tensor& indices, const Tensor& a, bool descending) {
  use_device(a);
  int64_t n;
  const int64_t rows = rows_of(a, n);
  if (rows == 0) return;
  Tensor tmp = empty(a->shape, DType::i64, a->device);
  dispatch_all(a->dtype, "sort", [&](auto tag) {
    using T = decltype(tag);
    sort_rows_kernel<T><<<blocks_for(rows), kThreads>>>(values ? values->data_as<T>() : nullptr,
                                                        indices->data_as<int64_t>(), a->data_as<T>(), rows, n,
                                                        descending, tmp->data_as<int64_t>());
  });
  check_launch();
}

void prod_rows(const Tensor& out, const Tensor& a) {
  use_device(a);
  const int64_t n = a->shape[a->ndim() - 1], rows = out->numel();
  if (rows == 0) return;
  if (a->dtype == DType::i64) {
    prod_rows_kernel<int64_t>
        <<<blocks_for(rows), kThreads>>>(out->data_as<int64_t>(), a->data_as<int64_t>(), rows, n);
  } else {
    dispatch_float(a->dtype, "prod", [&](auto tag) {
      using T = decltype(tag);
      prod_rows_kernel<T><<<blocks_for(rows), kThreads>>>(out->data_as<T>(), a->data_as<T>(), rows, n);
    });
  }
  check_launch();
}

void kth_rows(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, bool nan_first) {
  use_device(a);
  int64_t n;
  const int64_t rows = rows_of(a, n);
  if (rows == 0) return;
  Tensor scratch = empty({rows, 2 * n}, DType::i64, a->device);
  dispatch_all(a->dtype, "kthvalue", [&](auto tag) {
    using T = decltype(tag);
    kth_rows_kernel<T><<<blocks_for(rows), kThreads>>>(values->data_as<T>(), indices->data_as<int64_t>(),
                                                       a->data_as<T>(), rows, n, k, nan_first,
                                                       scratch->data_as<int64_t>());
  });
  check_launch();
}

void mode_rows(const Tensor& values, const Tensor& indices, const Tensor& a) {
  use_device(a);
  int64_t n;
  const int64_t rows = rows_of(a, n);
  if (rows == 0) return;
  Tensor scratch = empty({rows, 2 * n}, DType::i64, a->device);
  dispatch_all(a->dtype, "mode", [&](auto tag) {
    using T = decltype(tag);
    mode_rows_kernel<T><<<blocks_for(rows), kThreads>>>(values->data_as<T>(), indices->data_as<int64_t>(),
                                                        a->data_as<T>(), rows, n,
                                                        scratch->data_as<int64_t>());
  });
  check_launch();
}

void scan_rows(ScanKind kind, const Tensor& out, const Tensor& indices, const Tensor& a) {
  use_device(a);
  int64_t n;
  const int64_t rows = rows_of(a, n);
  if (rows == 0) return;
  dispatch_all(a->dtype, "scan", [&](auto tag) {
    using T = decltype(tag);
    scan_rows_kernel<T><<<blocks_for(rows), kThreads>>>(
        kind, out->data_as<T>(), indices ? indices->data_as<int64_t>() : nullptr, a->data_as<T>(), rows, n);
  });
  check_launch();
}

void scan_rows_backward(ScanKind kind, const Tensor& gx, const Tensor& g, const Tensor& a, const Tensor& y) {
  use_device(a);
  int64_t n;
  const int64_t rows = rows_of(a, n);
  if (rows == 0) return;
  dispatch_float(a->dtype, "scan backward", [&](auto tag) {
    using T = decltype(tag);
    scan_rows_backward_kernel<T><<<blocks_for(rows), kThreads>>>(kind, gx->data_as<T>(), g->data_as<T>(),
                                                                 a->data_as<T>(), y->data_as<T>(), rows, n);
  });
  check_launch();
}

int64_t unique_sorted(const Tensor& values, const Tensor& inverse, const Tensor& counts, const Tensor& sorted,
                      const Tensor& order) {
  use_device(sorted);
  const int64_t n = sorted->numel();
  if (n == 0) return 0;
  Tensor count = empty({1}, DType::i64, sorted->device);
  dispatch_all(sorted->dtype, "unique", [&](auto tag) {
    using T = decltype(tag);
    unique_sorted_kernel<T><<<1, 1>>>(values->data_as<T>(), inverse->data_as<int64_t>(),
                                      counts->data_as<int64_t>(), sorted->data_as<T>(),
                                      order->data_as<int64_t>(), n, count->data_as<int64_t>());
  });
  check_launch();
  int64_t u = 0;
  TC_CUDA_CHECK(cudaMemcpy(&u, count->data(), sizeof u, cudaMemcpyDeviceToHost));
  return u;
}

void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, bool right) {
  use_device(values);
  const int64_t s_rows = seq->shape[0], m = seq->shape[1], rows = values->shape[0], k = values->shape[1];
  if (rows * k == 0) return;
  dispatch_all(seq->dtype, "searchsorted", [&](auto tag) {
    using T = decltype(tag);
    searchsorted_kernel<T><<<blocks_for(rows * k), kThreads>>>(out->data(), out->dtype == DType::i32,
                                                               seq->data_as<T>(), s_rows, m,
                                                               values->data_as<T>(), rows, k, right);
  });
  check_launch();
}

}  // namespace tc::cuda
