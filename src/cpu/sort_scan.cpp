// The CPU's sort, scan and search primitives (src/backend/backend.h): every kernel
// works on the rows of a contiguous [R, n] tensor (the ops move the dim last),
// rows in parallel (OpenMP through parallel_for), each row on one thread, so
// results never depend on the thread count. Sorting is std::stable_sort with
// NaN above every number; searches are std::lower_bound/upper_bound.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "cpu/cpu_backend.h"
#include "cpu/dispatch.h"
#include "cpu/loops.h"

namespace tc::cpu {
namespace {

int64_t rows_grain(int64_t cols) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(cols, 1) / 4);
}

template <typename T>
bool isnan_v(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    (void)v;
    return false;
  }
}

// a < b with NaN above every number (NaNs equal among themselves).
template <typename T>
bool less_nan_last(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// The row's positions in stable ascending (or descending) order.
template <typename T>
void stable_order(std::vector<int64_t>& order, const T* row, int64_t n, bool descending) {
  order.resize(size_t(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  if (descending) {
    std::stable_sort(order.begin(), order.end(),
                     [row](int64_t i, int64_t j) { return less_nan_last(row[j], row[i]); });
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [row](int64_t i, int64_t j) { return less_nan_last(row[i], row[j]); });
  }
}

template <typename T>
void rows_of(const Tensor& a, int64_t& rows, int64_t& n) {
  n = a->ndim() == 0 ? 1 : a->shape[a->ndim() - 1];
  rows = n == 0 ? 0 : a->numel() / n;
}

}  // namespace

void CpuBackend::sort_rows(const Tensor& values, const Tensor& indices, const Tensor& a,
                           bool descending) const {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "sort", [&] {
    using T = scalar_t;
    int64_t rows, n;
    rows_of<T>(a, rows, n);
    const T* pa = a->data_as<T>();
    T* pv = values ? values->data_as<T>() : nullptr;
    int64_t* pi = indices->data_as<int64_t>();
    parallel_for(rows, rows_grain(n), [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> order;
      for (int64_t r = lo; r < hi; ++r) {
        const T* row = pa + r * n;
        stable_order(order, row, n, descending);
        for (int64_t t = 0; t < n; ++t) {
          pi[r * n + t] = order[size_t(t)];
          if (pv) pv[r * n + t] = row[order[size_t(t)]];
        }
      }
    });
  });
}

void CpuBackend::prod_rows(const Tensor& out, const Tensor& a) const {
  const int64_t n = a->shape[a->ndim() - 1], rows = out->numel();
  auto run = [&](auto* pa, auto* po, auto one) {
    using A = decltype(one);
    parallel_for(rows, rows_grain(n), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        A acc = one;
        const auto* row = pa + r * n;
        for (int64_t j = 0; j < n; ++j) {
          if constexpr (std::is_integral_v<A>) {
            acc = wrapping_mul(acc, A(row[j]));
          } else {
            acc *= A(row[j]);
          }
        }
        po[r] = std::remove_pointer_t<decltype(po)>(acc);
      }
    });
  };
  if (a->dtype == DType::i64) return run(a->data_as<int64_t>(), out->data_as<int64_t>(), int64_t(1));
  TC_DISPATCH_FLOATING(a->dtype, "prod", [&] {
    // float32 accumulates in double: one rounding at the end.
    run(a->data_as<scalar_t>(), out->data_as<scalar_t>(), double(1));
  });
}

void CpuBackend::kth_rows(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k,
                          bool nan_first) const {
  TC_DISPATCH_NUMERIC(a->dtype, "kthvalue", [&] {
    using T = scalar_t;
    int64_t rows, n;
    rows_of<T>(a, rows, n);
    const T* pa = a->data_as<T>();
    T* pv = values->data_as<T>();
    int64_t* pi = indices->data_as<int64_t>();
    parallel_for(rows, rows_grain(n), [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t r = lo; r < hi; ++r) {
        const T* row = pa + r * n;
        int64_t pick = -1;
        if (nan_first) {
          for (int64_t j = 0; j < n && pick < 0; ++j)
            if (isnan_v(row[j])) pick = j;
        }
        if (pick < 0) {
          std::iota(order.begin(), order.end(), int64_t(0));
          // Rank k of the stable order: ties broken by position.
          std::nth_element(order.begin(), order.begin() + k, order.end(), [row](int64_t i, int64_t j) {
            if (less_nan_last(row[i], row[j])) return true;
            if (less_nan_last(row[j], row[i])) return false;
            return i < j;
          });
          pick = order[size_t(k)];
        }
        pv[r] = row[pick];
        pi[r] = pick;
      }
    });
  });
}

void CpuBackend::mode_rows(const Tensor& values, const Tensor& indices, const Tensor& a) const {
  TC_DISPATCH_NUMERIC(a->dtype, "mode", [&] {
    using T = scalar_t;
    int64_t rows, n;
    rows_of<T>(a, rows, n);
    const T* pa = a->data_as<T>();
    T* pv = values->data_as<T>();
    int64_t* pi = indices->data_as<int64_t>();
    parallel_for(rows, rows_grain(n), [&](int64_t lo, int64_t hi) {
      std::vector<int64_t> order;
      for (int64_t r = lo; r < hi; ++r) {
        const T* row = pa + r * n;
        stable_order(order, row, n, false);
        // Runs of equal values in ascending order: the first longest run wins
        // (the smallest value); its last element is the last occurrence.
        int64_t best_len = 0, best_last = order[0], run = 0;
        for (int64_t t = 0; t < n; ++t) {
          const T v = row[order[size_t(t)]];
          const T prev = t > 0 ? row[order[size_t(t - 1)]] : v;
          const bool same = t > 0 && (prev == v || (isnan_v(v) && isnan_v(prev)));
          run = same ? run + 1 : 1;
          if (run > best_len) {  // a strictly longer run: a later equal one never wins
            best_len = run;
            best_last = order[size_t(t)];
          }
        }
        pv[r] = row[best_last];
        pi[r] = best_last;
      }
    });
  });
}

void CpuBackend::scan_rows(ScanKind kind, const Tensor& out, const Tensor& indices, const Tensor& a) const {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "scan", [&] {
    using T = scalar_t;
    int64_t rows, n;
    rows_of<T>(a, rows, n);
    const T* pa = a->data_as<T>();
    T* po = out->data_as<T>();
    int64_t* pi = indices ? indices->data_as<int64_t>() : nullptr;
    parallel_for(rows, rows_grain(n), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T* x = pa + r * n;
        T* y = po + r * n;
        switch (kind) {
          case ScanKind::prod: {
            if constexpr (std::is_same_v<T, bool>) {
              TC_CHECK(false, TC_ERR_INTERNAL, "cumprod: bool rows reach the kernel");
            } else if constexpr (std::is_integral_v<T>) {
              T acc = 1;
              for (int64_t j = 0; j < n; ++j) y[j] = acc = wrapping_mul(acc, x[j]);
            } else {
              double acc = 1;  // float32 accumulates in double
              for (int64_t j = 0; j < n; ++j) y[j] = T(acc *= double(x[j]));
            }
            break;
          }
          case ScanKind::max:
          case ScanKind::min: {
            const bool is_max = kind == ScanKind::max;
            T best = x[0];
            int64_t at = 0;
            for (int64_t j = 0; j < n; ++j) {
              const T v = x[j];
              if (!isnan_v(best) && (isnan_v(v) || (is_max ? v >= best : v <= best))) {
                best = v;
                at = j;
              }
              y[j] = best;
              pi[r * n + j] = at;
            }
            break;
          }
          case ScanKind::logsumexp: {
            if constexpr (std::is_floating_point_v<T>) {
              // log(exp(acc) + exp(v)) = max + log1p(exp(min - max)).
              double acc = -INFINITY;
              for (int64_t j = 0; j < n; ++j) {
                const double v = double(x[j]);
                const double hi_v = std::max(acc, v), lo_v = std::min(acc, v);
                if (std::isnan(v) || std::isnan(acc)) {
                  acc = NAN;
                } else if (hi_v == -INFINITY || (std::isinf(hi_v) && hi_v == lo_v)) {
                  acc = hi_v;
                } else {
                  acc = hi_v + std::log1p(std::exp(lo_v - hi_v));
                }
                y[j] = T(acc);
              }
            }
            break;
          }
        }
      }
    });
  });
}

void CpuBackend::scan_rows_backward(ScanKind kind, const Tensor& gx, const Tensor& g, const Tensor& a,
                                    const Tensor& y) const {
  TC_DISPATCH_FLOATING(a->dtype, "scan backward", [&] {
    using T = scalar_t;
    int64_t rows, n;
    rows_of<T>(a, rows, n);
    const T* pa = a->data_as<T>();
    const T* pg = g->data_as<T>();
    const T* py = y->data_as<T>();
    T* pgx = gx->data_as<T>();
    parallel_for(rows, rows_grain(n), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T *x = pa + r * n, *gr = pg + r * n, *yr = py + r * n;
        T* out = pgx + r * n;
        if (kind == ScanKind::prod) {
          // d y_k / d x_i = prod_{j <= k, j != i} x_j. Before the first zero z:
          // sum_{k >= i} g_k y_k / x_i; at z: the products that skip x_z; after: 0.
          int64_t z = n;
          for (int64_t j = 0; j < n && z == n; ++j)
            if (x[j] == T(0)) z = j;
          double tail = 0;
          for (int64_t i = n - 1; i >= 0; --i) {
            tail += double(gr[i]) * double(yr[i]);
            if (i < z)
              out[i] = T(tail / double(x[i]));
            else
              out[i] = T(0);
          }
          if (z < n) {
            double before = z > 0 ? double(yr[z - 1]) : 1.0, run = before, sum = 0;
            for (int64_t k = z; k < n; ++k) {
              if (k > z) run *= double(x[k]);
              sum += double(gr[k]) * run;
            }
            out[z] = T(sum);
          }
        } else {
          // d y_k / d x_i = exp(x_i - y_k) for k >= i. With t_i = sum_{k >= i}
          // g_k exp(y_i - y_k) (y rises, so every exponent is <= 0):
          // t_i = g_i + exp(y_i - y_{i+1}) t_{i+1}, and gx_i = exp(x_i - y_i) t_i.
          double t = 0;
          for (int64_t i = n - 1; i >= 0; --i) {
            const double yi = double(yr[i]);
            const double decay = i + 1 < n ? (yi == -INFINITY ? 0.0 : std::exp(yi - double(yr[i + 1]))) : 0.0;
            t = double(gr[i]) + decay * t;
            out[i] = yi == -INFINITY ? T(0) : T(std::exp(double(x[i]) - yi) * t);
          }
        }
      }
    });
  });
}

int64_t CpuBackend::unique_sorted(const Tensor& values, const Tensor& inverse, const Tensor& counts,
                                  const Tensor& sorted, const Tensor& order) const {
  return TC_DISPATCH_NUMERIC_OR_BOOL(sorted->dtype, "unique", [&]() -> int64_t {
    using T = scalar_t;
    const int64_t n = sorted->numel();
    const T* ps = sorted->data_as<T>();
    const int64_t* po = order->data_as<int64_t>();
    T* pv = values->data_as<T>();
    int64_t *pinv = inverse->data_as<int64_t>(), *pc = counts->data_as<int64_t>();
    int64_t u = -1;
    for (int64_t t = 0; t < n; ++t) {
      // NaN equals nothing, so every NaN is its own value (as PyTorch).
      if (t == 0 || !(ps[t] == ps[t - 1])) {
        ++u;
        pv[u] = ps[t];
        pc[u] = 0;
      }
      ++pc[u];
      pinv[po[t]] = u;
    }
    return u + 1;
  });
}

void CpuBackend::searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, bool right) const {
  TC_DISPATCH_NUMERIC(seq->dtype, "searchsorted", [&] {
    using T = scalar_t;
    const int64_t m = seq->shape[1], s_rows = seq->shape[0];
    const int64_t k = values->shape[1], rows = values->shape[0];
    const T* ps = seq->data_as<T>();
    const T* pv = values->data_as<T>();
    const bool i32 = out->dtype == DType::i32;
    parallel_for(rows, rows_grain(k * 8), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T* row = ps + (s_rows == 1 ? 0 : r) * m;
        for (int64_t j = 0; j < k; ++j) {
          const T v = pv[r * k + j];
          const T* at = right ? std::upper_bound(row, row + m, v, less_nan_last<T>)
                              : std::lower_bound(row, row + m, v, less_nan_last<T>);
          const int64_t pos = at - row;
          if (i32)
            out->data_as<int32_t>()[r * k + j] = int32_t(pos);
          else
            out->data_as<int64_t>()[r * k + j] = pos;
        }
      }
    });
  });
}

}  // namespace tc::cpu
