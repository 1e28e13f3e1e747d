// The index arithmetic and reduction order of the CUDA reduction, softmax
// and indexing kernels (src/cuda/reduce.cu), shared by the host and the
// device so that the CPU tests (tests/gtest/test_cuda_reduce_host.cpp) check
// the very code the kernels run.
//
// A ReducePlan splits a shape into kept dims (one output each) and reduced
// dims (R elements per output), for up to three operands that share that
// shape but not their strides. Size-1 dims are dropped and neighbouring dims
// merged where every operand allows it; the order of r (row-major over the
// reduced dims) never changes, so neither does the reduction order.
//
// Reduction order (deterministic: it depends on the shape and strides only):
// the R elements of an output are cut into `chunks` chunks of chunk_len; in a
// chunk, thread t of T accumulates r = t, t + T, ... in order, then the T
// partial results are combined by a fixed halving tree; chunks combine in
// order. Thread mode: one thread reduces its output's R elements in order.
#pragma once
#include <cmath>
#include <cstdint>

#include "math/hd.h"
#include "tc_constants.h"

namespace tc::rplan {

constexpr int kMaxDims = TC_MAX_DIMS;
constexpr int kMaxOperands = 3;

struct ReducePlan {
  int32_t nkept = 0, nred = 0, nops = 0;
  int64_t K = 1, R = 1;  // outputs, elements per output
  int64_t kept_size[kMaxDims];
  int64_t red_size[kMaxDims];
  int64_t kept_stride[kMaxOperands][kMaxDims];
  int64_t red_stride[kMaxOperands][kMaxDims];
};

// Offset in operand op of output k's first element.
TC_HD inline int64_t kept_offset(const ReducePlan& p, int op, int64_t k) {
  int64_t off = 0;
  for (int32_t d = p.nkept - 1; d >= 0; --d) {
    const int64_t s = p.kept_size[d];
    off += (k % s) * p.kept_stride[op][d];
    k /= s;
  }
  return off;
}
// Offset in operand op of element r of an output, relative to its first.
TC_HD inline int64_t red_offset(const ReducePlan& p, int op, int64_t r) {
  if (p.nred == 1) return r * p.red_stride[op][0];
  int64_t off = 0;
  for (int32_t d = p.nred - 1; d >= 0; --d) {
    const int64_t s = p.red_size[d];
    off += (r % s) * p.red_stride[op][d];
    r /= s;
  }
  return off;
}

// shape (ndim dims), reduced[d] marks the reduced dims, strides[op] the
// strides of operand op (nops of them).
inline ReducePlan make_plan(int64_t ndim, const int64_t* shape, const bool* reduced, int nops,
                            const int64_t* const* strides) {
  ReducePlan p;
  p.nops = nops;
  for (int64_t d = 0; d < ndim; ++d) {
    const int64_t size = shape[d];
    if (size == 1) continue;
    const bool red = reduced[d];
    int32_t& n = red ? p.nred : p.nkept;
    int64_t* sizes = red ? p.red_size : p.kept_size;
    auto stride_of = [&](int op) -> int64_t* { return red ? p.red_stride[op] : p.kept_stride[op]; };
    // Merge into the previous dim of the same kind when every operand steps
    // through the two as through one dim.
    bool merge = n > 0 && size != 0 && sizes[n - 1] != 0;
    for (int op = 0; op < nops && merge; ++op) merge = stride_of(op)[n - 1] == strides[op][d] * size;
    if (merge) {
      sizes[n - 1] *= size;
      for (int op = 0; op < nops; ++op) stride_of(op)[n - 1] = strides[op][d];
    } else {
      sizes[n] = size;
      for (int op = 0; op < nops; ++op) stride_of(op)[n] = strides[op][d];
      ++n;
    }
  }
  p.K = 1;
  for (int32_t d = 0; d < p.nkept; ++d) p.K *= p.kept_size[d];
  p.R = 1;
  for (int32_t d = 0; d < p.nred; ++d) p.R *= p.red_size[d];
  return p;
}

// How a plan's outputs are reduced (see the top of the file).
struct Launch {
  bool block = false;  // false: one thread per output
  int32_t threads = 1;
  int64_t chunks = 1, chunk_len = 0;
};

inline int32_t pow2_at_least(int64_t n, int32_t lo, int32_t hi) {
  int32_t t = lo;
  while (t < hi && t < n) t *= 2;
  return t;
}

// Blocks when an output's elements are contiguous in operand 0 (coalesced
// block reads) or when there are too few outputs to fill the GPU with
// threads; long reductions over few outputs are cut into chunks.
inline Launch choose_launch(const ReducePlan& p, bool allow_chunks) {
  Launch l;
  l.chunk_len = p.R;
  const bool rows = p.nred > 0 && p.red_stride[0][p.nred - 1] == 1;
  if (p.R < 32 || !(rows || p.K < 1024)) return l;
  l.block = true;
  l.threads = pow2_at_least(p.R, 32, 256);
  if (allow_chunks && p.K < 256 && p.R > 65536) {
    int64_t chunks = (p.R + 16383) / 16384;
    if (chunks > 1024) chunks = 1024;
    l.chunk_len = (p.R + chunks - 1) / chunks;
    l.chunks = (p.R + l.chunk_len - 1) / l.chunk_len;
  }
  return l;
}

// ---- accumulators ----

template <typename T>
TC_HD inline bool is_nan(T v) {
  return v != v;
}

// Sum in Acc (double for float32/64, float for 16-bit floats, uint64 for
// integers and bool: integer sums wrap as on the CPU).
template <typename Acc>
struct SumOp {
  using acc_t = Acc;
  TC_HD static acc_t identity() { return Acc(0); }
  TC_HD static acc_t from(Acc v, int64_t) { return v; }
  TC_HD static acc_t combine(acc_t a, acc_t b) { return a + b; }
};

// A value and the index it came from; index -1 marks "no element yet".
template <typename V>
struct ArgAcc {
  V v;
  int64_t i;
};

// The maximum (or minimum) and the first index holding it. NaN beats every
// number and the first NaN wins, as the CPU's scan does; equal values keep
// the lower index. Commutative and associative, so any tree gives the scan's
// answer.
template <typename V, bool IsMax>
struct ExtremeOp {
  using acc_t = ArgAcc<V>;
  TC_HD static acc_t identity() { return acc_t{V(0), -1}; }
  TC_HD static acc_t from(V v, int64_t i) { return acc_t{v, i}; }
  TC_HD static acc_t combine(acc_t a, acc_t b) {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i < b.i ? a : b;
      return an ? a : b;
    }
    if (IsMax ? b.v > a.v : b.v < a.v) return b;
    if (IsMax ? a.v > b.v : a.v < b.v) return a;
    return a.i < b.i ? a : b;
  }
};

// What thread t (of T) of a block accumulates of the chunk [r0, r1) of an
// output: r = r0 + t, r0 + t + T, ... in order. load(r) gives an acc_t.
template <typename Op, typename Load>
TC_HD typename Op::acc_t thread_partial(int64_t r0, int64_t r1, int32_t t, int32_t T, Load load) {
  typename Op::acc_t acc = Op::identity();
  for (int64_t r = r0 + t; r < r1; r += T) acc = Op::combine(acc, load(r));
  return acc;
}

// One step of the halving tree over sh[0, 2 * half): sh[t] = sh[t] + sh[t + half].
template <typename Op>
TC_HD inline void tree_step(typename Op::acc_t* sh, int32_t t, int32_t half) {
  if (t < half) sh[t] = Op::combine(sh[t], sh[t + half]);
}

// The host's replay of the kernels' order for one output (the CPU tests
// compare it with a naive reduction). sh: scratch of l.threads entries.
template <typename Op, typename Load>
typename Op::acc_t emulate_output(const Launch& l, int64_t R, Load load, typename Op::acc_t* sh) {
  if (!l.block) return thread_partial<Op>(0, R, 0, 1, load);
  typename Op::acc_t acc = Op::identity();
  for (int64_t g = 0; g < l.chunks; ++g) {
    const int64_t r0 = g * l.chunk_len, r1 = r0 + l.chunk_len < R ? r0 + l.chunk_len : R;
    for (int32_t t = 0; t < l.threads; ++t) sh[t] = thread_partial<Op>(r0, r1, t, l.threads, load);
    for (int32_t half = l.threads / 2; half > 0; half /= 2)
      for (int32_t t = 0; t < l.threads; ++t) tree_step<Op>(sh, t, half);
    acc = Op::combine(acc, sh[0]);
  }
  return acc;
}

// ---- indexing (gather, index_select, their scatter-add adjoints) ----
// Plans over the shape of out (gather) or g (scatter) with dim reduced;
// operands: 0 = out or g, 1 = index positions, 2 = a or gi.

// The position strides of the index: the index's own (contiguous) strides
// for gather; for index_select, its stride along dim and 0 elsewhere.
inline void index_position_strides(int64_t ndim, int64_t dim, bool index_select, const int64_t* index_strides,
                                   int64_t index_ndim, int64_t* out) {
  for (int64_t d = 0; d < ndim; ++d) out[d] = index_select ? 0 : index_strides[d];
  if (index_select && index_ndim == 1) out[dim] = index_strides[0];
}

// Element e (of K * R) of out = a[..., index, ...]; an index outside
// [0, len) (already reported) writes nothing.
template <typename U>
TC_HD inline void gather_element(const ReducePlan& p, int64_t e, U* out, const int64_t* index, const U* a,
                                 int64_t a_dim_stride, int64_t len) {
  const int64_t k = e / p.R, r = e % p.R;
  const int64_t idx = index[kept_offset(p, 1, k) + red_offset(p, 1, r)];
  if (idx < 0 || idx >= len) return;
  out[kept_offset(p, 0, k) + red_offset(p, 0, r)] = a[kept_offset(p, 2, k) + idx * a_dim_stride];
}

// Column k of the adjoint: gi[..., index[r], ...] += g[..., r, ...] for r in
// order (one thread per column: deterministic, the CPU's order).
// add(dst, x) adds x to *dst in the element's compute type.
template <typename T, typename Add>
TC_HD inline void scatter_add_column(const ReducePlan& p, int64_t k, T* gi, const T* g, const int64_t* index,
                                     int64_t gi_dim_stride, Add add) {
  const T* gk = g + kept_offset(p, 0, k);
  const int64_t* ik = index + kept_offset(p, 1, k);
  T* ok = gi + kept_offset(p, 2, k);
  for (int64_t r = 0; r < p.R; ++r)
    add(ok + ik[red_offset(p, 1, r)] * gi_dim_stride, gk[red_offset(p, 0, r)]);
}

}  // namespace tc::rplan
