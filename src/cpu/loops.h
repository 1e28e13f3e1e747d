// The CPU loop machinery every elementwise and reduction kernel is built on:
// an N-operand strided iterator that coalesces dims (so contiguous and
// broadcast operands collapse to one or two flat loops), hands each kernel
// rows with their inner byte strides (so the kernel can take a vectorizable
// contiguous path), and splits the index range across OpenMP threads only
// when there is enough work to pay for waking them.
#pragma once
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>

#include "core/init.h"
#include "core/parallel_for.h"
#include "core/tensor.h"

namespace tc::cpu {

// The host's thread loop (core/parallel_for.h), under the names the kernels use.
using ::tc::kParallelGrain;
using ::tc::parallel_for;

// One operand of a loop: its data and its element strides over the loop's shape
// (0 where it is broadcast).
struct Operand {
  char* data;
  Dims strides;  // elements
  int64_t itemsize;
};

inline Operand operand(const Tensor& t) { return {static_cast<char*>(t->data()), t->strides, t->itemsize()}; }

// The strides of t broadcast to shape (t's dims aligned to the right; stride 0 where
// t has size 1 or lacks the dim). The caller has checked that the shapes broadcast.
inline Dims broadcast_strides(const Tensor& t, const Dims& shape) {
  Dims s = Dims::filled(shape.size(), 0);
  const int64_t off = shape.size() - t->ndim();
  for (int64_t i = 0; i < t->ndim(); ++i) s[off + i] = t->shape[i] == 1 ? 0 : t->strides[i];
  return s;
}
inline Operand operand(const Tensor& t, const Dims& shape) {
  return {static_cast<char*>(t->data()), broadcast_strides(t, shape), t->itemsize()};
}

// N operands walked together over one shape, with dims coalesced.
template <int N>
struct StridedLoop {
  int ndim = 0;
  int64_t sizes[TC_MAX_DIMS];
  int64_t strides[N][TC_MAX_DIMS];  // bytes
  char* base[N];
  bool empty = false;  // some dim is 0: run() calls no row

  StridedLoop(const Dims& shape, const Operand (&ops)[N]) {
    for (int k = 0; k < N; ++k) base[k] = ops[k].data;
    // Walk from the innermost dim outwards, dropping size-1 dims and merging a dim
    // into the one inside it when every operand steps through both as one.
    int64_t rs[TC_MAX_DIMS];
    int64_t rst[N][TC_MAX_DIMS];
    int n = 0;
    // An element-less loop never runs a row; its strides may be anything (a
    // fuzzed view's 2^62 times the itemsize overflows), so none is multiplied.
    for (int64_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 0) {
        empty = true;
        return;
      }
    }
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      if (shape[d] == 1) continue;
      bool merge = n > 0;
      for (int k = 0; k < N && merge; ++k) {
        merge = ops[k].strides[d] * ops[k].itemsize == rst[k][n - 1] * rs[n - 1];
      }
      if (merge) {
        rs[n - 1] *= shape[d];
      } else {
        rs[n] = shape[d];
        for (int k = 0; k < N; ++k) rst[k][n] = ops[k].strides[d] * ops[k].itemsize;
        ++n;
      }
    }
    ndim = n;
    for (int i = 0; i < n; ++i) {  // back to outermost-first order
      sizes[i] = rs[n - 1 - i];
      for (int k = 0; k < N; ++k) strides[k][i] = rst[k][n - 1 - i];
    }
  }

  // Calls row(ptrs, count, inner_strides) for each run of the innermost dim that
  // lies in the linear index range [begin, end).
  template <typename F>
  void run(int64_t begin, int64_t end, F&& row) const {
    if (begin >= end || empty) return;
    if (ndim == 0) {
      char* p[N];
      int64_t zero[N] = {};
      for (int k = 0; k < N; ++k) p[k] = base[k];
      row(p, int64_t(1), zero);
      return;
    }
    const int last = ndim - 1;
    int64_t idx[TC_MAX_DIMS];
    int64_t rem = begin;
    for (int d = last; d >= 0; --d) {
      idx[d] = rem % sizes[d];
      rem /= sizes[d];
    }
    int64_t inner[N];
    for (int k = 0; k < N; ++k) inner[k] = strides[k][last];
    int64_t cur = begin;
    while (cur < end) {
      char* p[N];
      for (int k = 0; k < N; ++k) {
        char* q = base[k];
        for (int d = 0; d <= last; ++d) q += idx[d] * strides[k][d];
        p[k] = q;
      }
      const int64_t cnt = std::min(sizes[last] - idx[last], end - cur);
      row(p, cnt, inner);
      cur += cnt;
      idx[last] += cnt;
      for (int d = last; d > 0 && idx[d] == sizes[d]; --d) {
        idx[d] = 0;
        ++idx[d - 1];
      }
    }
  }
};

// The contiguous inner loops, compiled once per kernel and shared by the
// whole-tensor fast path and the contiguous runs of the strided walk (inlined,
// each would be a second vectorized copy of the same loop).
template <typename O, typename A, typename F>
__attribute__((noinline)) void run1_contiguous(O* o, const A* x, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
}
template <typename O, typename A, typename B, typename F>
__attribute__((noinline)) void run2_contiguous(O* o, const A* x, const B* y, int64_t n, const F& f) {
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
}

// out[i] = f(a[i]) over out's shape (a broadcast to it).
template <typename O, typename A, typename F>
void map1(const Tensor& out, const Tensor& a, F f) {
  if (a->shape == out->shape && out->is_contiguous() && a->is_contiguous()) {
    // The common case, without the strided machinery (it dominates tiny ops).
    O* o = out->data_as<O>();
    const A* x = a->data_as<A>();
    parallel_for(out->numel(), kParallelGrain,
                 [&](int64_t lo, int64_t hi) { run1_contiguous<O, A>(o + lo, x + lo, hi - lo, f); });
    return;
  }
  const Operand ops[2] = {operand(out), operand(a, out->shape)};
  StridedLoop<2> loop(out->shape, ops);
  parallel_for(out->numel(), kParallelGrain, [&](int64_t b, int64_t e) {
    loop.run(b, e, [&](char** p, int64_t n, const int64_t* s) {
      O* o = reinterpret_cast<O*>(p[0]);
      const A* x = reinterpret_cast<const A*>(p[1]);
      if (s[0] == sizeof(O) && s[1] == sizeof(A)) {
        run1_contiguous<O, A>(o, x, n, f);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<O*>(p[0] + i * s[0]) = f(*reinterpret_cast<const A*>(p[1] + i * s[1]));
        }
      }
    });
  });
}

// out[i] = f(a[i], b[i]) over out's shape (a and b broadcast to it).
template <typename O, typename A, typename B, typename F>
void map2(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  if (a->shape == out->shape && b->shape == out->shape && out->is_contiguous() && a->is_contiguous() &&
      b->is_contiguous()) {
    // The common case, without the strided machinery (it dominates tiny ops).
    O* o = out->data_as<O>();
    const A* x = a->data_as<A>();
    const B* y = b->data_as<B>();
    parallel_for(out->numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
      run2_contiguous<O, A, B>(o + lo, x + lo, y + lo, hi - lo, f);
    });
    return;
  }
  const Operand ops[3] = {operand(out), operand(a, out->shape), operand(b, out->shape)};
  StridedLoop<3> loop(out->shape, ops);
  parallel_for(out->numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
    loop.run(lo, hi, [&](char** p, int64_t n, const int64_t* s) {
      O* o = reinterpret_cast<O*>(p[0]);
      const A* x = reinterpret_cast<const A*>(p[1]);
      const B* y = reinterpret_cast<const B*>(p[2]);
      if (s[0] == sizeof(O) && s[1] == sizeof(A) && s[2] == sizeof(B)) {
        run2_contiguous<O, A, B>(o, x, y, n, f);
      } else if (s[0] == sizeof(O) && s[1] == sizeof(A) && s[2] == 0) {
        const B yv = *y;
        for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
      } else if (s[0] == sizeof(O) && s[1] == 0 && s[2] == sizeof(B)) {
        const A xv = *x;
        for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<O*>(p[0] + i * s[0]) =
              f(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]));
        }
      }
    });
  });
}

// out[i] = f(a[i], b[i], c[i]) (for where and fused backward formulas).
template <typename O, typename A, typename B, typename C, typename F>
void map3(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, F f) {
  const Operand ops[4] = {operand(out), operand(a, out->shape), operand(b, out->shape),
                          operand(c, out->shape)};
  StridedLoop<4> loop(out->shape, ops);
  parallel_for(out->numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
    loop.run(lo, hi, [&](char** p, int64_t n, const int64_t* s) {
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<O*>(p[0] + i * s[0]) =
            f(*reinterpret_cast<const A*>(p[1] + i * s[1]), *reinterpret_cast<const B*>(p[2] + i * s[2]),
              *reinterpret_cast<const C*>(p[3] + i * s[3]));
      }
    });
  });
}

}  // namespace tc::cpu
