// Compiled once per kernel set (src/cpu/kernels.h): everything here lives in
// tc::cpu::isa_<set>, so the sets' copies never merge at link time.
#include "cpu/reduce.h"

#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "cpu/dispatch.h"
#include "cpu/kernels.h"
#include "cpu/loops.h"

namespace tc::cpu::TC_CPU_ISA_NS {

namespace {

// Rows are reduced in chunks of this many elements; fixed, so results are too.
constexpr int64_t kChunk = 16384;

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    (void)v;
    return false;
  }
}

template <typename Acc>
struct SumOp {
  static Acc identity() { return Acc(0); }
  static Acc combine(Acc a, Acc b) { return a + b; }
};
template <typename Acc>
struct MaxOp {
  static Acc identity() {
    return std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity()
                                                  : std::numeric_limits<Acc>::lowest();
  }
  // NaN wins: once the accumulator is NaN it stays NaN.
  static Acc combine(Acc a, Acc b) { return (b > a || is_nan(b)) ? b : a; }
};
template <typename Acc>
struct MinOp {
  static Acc identity() {
    return std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity()
                                                  : std::numeric_limits<Acc>::max();
  }
  static Acc combine(Acc a, Acc b) { return (b < a || is_nan(b)) ? b : a; }
};

// A span reduced with 8 independent lanes (so the compiler can vectorize) that
// are combined in a fixed order.
template <typename Op, typename Acc, typename T>
Acc reduce_span(const T* x, int64_t n) {
  Acc lane[8];
  for (auto& l : lane) l = Op::identity();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) lane[j] = Op::combine(lane[j], Acc(x[i + j]));
  }
  for (; i < n; ++i) lane[0] = Op::combine(lane[0], Acc(x[i]));
  return Op::combine(Op::combine(Op::combine(lane[0], lane[1]), Op::combine(lane[2], lane[3])),
                     Op::combine(Op::combine(lane[4], lane[5]), Op::combine(lane[6], lane[7])));
}

// One row in chunks, serially.
template <typename Op, typename Acc, typename T>
Acc reduce_row(const T* x, int64_t n) {
  Acc acc = Op::identity();
  for (int64_t c = 0; c < n; c += kChunk)
    acc = Op::combine(acc, reduce_span<Op, Acc>(x + c, std::min(kChunk, n - c)));
  return acc;
}

// K contiguous rows of R elements.
template <typename Op, typename Acc, typename T, typename O>
void reduce_rows(O* out, const T* in, int64_t K, int64_t R) {
  const int64_t nt = num_threads();
  if (K >= 2 * nt || R <= kChunk) {
    parallel_for(K, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(R, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t k = b; k < e; ++k) out[k] = O(reduce_row<Op, Acc>(in + k * R, R));
                 });
    return;
  }
  // Few long rows: the chunks of a row in parallel, combined in order.
  const int64_t chunks = (R + kChunk - 1) / kChunk;
  // Not std::vector: vector<bool> packs bits, and threads write neighbouring entries.
  std::unique_ptr<Acc[]> partial(new Acc[size_t(chunks)]);
  for (int64_t k = 0; k < K; ++k) {
    const T* row = in + k * R;
    parallel_for(chunks, std::max<int64_t>(1, kParallelGrain / kChunk), [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        partial[size_t(c)] = reduce_span<Op, Acc>(row + c * kChunk, std::min(kChunk, R - c * kChunk));
      }
    });
    Acc acc = Op::identity();
    for (int64_t c = 0; c < chunks; ++c) acc = Op::combine(acc, partial[size_t(c)]);
    out[k] = O(acc);
  }
}

// R contiguous rows of K elements reduced over the rows: out[k] = op over r of in[r, k].
template <typename Op, typename Acc, typename T, typename O>
void reduce_cols(O* out, const T* in, int64_t R, int64_t K) {
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (K + kBlock - 1) / kBlock;
  parallel_for(blocks, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(R * kBlock, 1)),
               [&](int64_t b, int64_t e) {
                 Acc acc[kBlock];
                 for (int64_t blk = b; blk < e; ++blk) {
                   const int64_t k0 = blk * kBlock, kn = std::min(kBlock, K - k0);
                   for (int64_t j = 0; j < kn; ++j) acc[j] = Op::identity();
                   for (int64_t r = 0; r < R; ++r) {
                     const T* row = in + r * K + k0;
                     for (int64_t j = 0; j < kn; ++j) acc[j] = Op::combine(acc[j], Acc(row[j]));
                   }
                   for (int64_t j = 0; j < kn; ++j) out[k0 + j] = O(acc[j]);
                 }
               });
}

template <typename Op, typename Acc, typename T, typename O>
void reduce_typed(const Tensor& out, const Tensor& a) {
  // Kept dims first, reduced dims last.
  Dims kshape, kstrides, rshape, rstrides;
  bool reduced_prefix = true, seen_kept = false;
  for (int64_t d = 0; d < a->ndim(); ++d) {
    if (a->shape[d] == 1) continue;
    if (out->shape[d] == a->shape[d]) {
      kshape.push_back(a->shape[d]);
      kstrides.push_back(a->strides[d]);
      seen_kept = true;
    } else {
      rshape.push_back(a->shape[d]);
      rstrides.push_back(a->strides[d]);
      if (seen_kept) reduced_prefix = false;
    }
  }
  const int64_t K = numel_of(kshape), R = numel_of(rshape);
  O* o = out->data_as<O>();
  if (R == 0 || K == 0) {
    for (int64_t k = 0; k < K; ++k) o[k] = O(Op::identity());
    return;
  }
  Dims pshape = kshape, pstrides = kstrides;
  for (int64_t i = 0; i < rshape.size(); ++i) {
    pshape.push_back(rshape[i]);
    pstrides.push_back(rstrides[i]);
  }
  if (pstrides == contiguous_strides(pshape)) return reduce_rows<Op, Acc>(o, a->data_as<T>(), K, R);
  if (reduced_prefix && a->is_contiguous()) return reduce_cols<Op, Acc>(o, a->data_as<T>(), R, K);
  Tensor packed = tc::contiguous(make_view(a, pshape, pstrides, a->offset));
  reduce_rows<Op, Acc>(o, packed->data_as<T>(), K, R);
}

template <typename T>
void reduce_dispatch_op(Reduce op, const Tensor& out, const Tensor& a) {
  if (op == Reduce::sum) {
    if constexpr (std::is_floating_point_v<T>) {
      return reduce_typed<SumOp<double>, double, T, T>(out, a);
    } else {
      // Integer sums accumulate in uint64: they wrap like PyTorch's int64
      // sums, without signed overflow (undefined behaviour). (Wrapping through
      // casts inside combine() made GCC 12 -O3 miscompile the lane loop.)
      return reduce_typed<SumOp<uint64_t>, uint64_t, T, int64_t>(out, a);
    }
  }
  if (op == Reduce::max) return reduce_typed<MaxOp<T>, T, T, T>(out, a);
  return reduce_typed<MinOp<T>, T, T, T>(out, a);
}

template <typename T>
void arg_rows(bool is_max, T* values, int64_t* indices, const T* in, int64_t K, int64_t R) {
  parallel_for(K, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(R, 1)), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const T* row = in + k * R;
      T best = row[0];
      int64_t bi = 0;
      if (!is_nan(best)) {
        for (int64_t r = 1; r < R; ++r) {
          const T v = row[r];
          if (is_nan(v)) {
            best = v;
            bi = r;
            break;
          }
          if (is_max ? v > best : v < best) {
            best = v;
            bi = r;
          }
        }
      }
      if (values) values[k] = best;
      indices[k] = bi;
    }
  });
}

// Column sums of a [rows, cols] block in double, rows in order (accurate and
// deterministic). Unit-stride rows (every gradient linear's backward sees)
// vectorize, and large blocks split their columns across threads: each
// column is still summed by one thread in row order, so the result does not
// depend on the thread count.
template <typename T>
void column_sums_loop(const T* p, int64_t rows, int64_t cols, int64_t rs, int64_t cs, T* o) {
  if (cs != 1) {
    std::vector<double> acc(size_t(cols), 0.0);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) acc[j] += double(p[i * rs + j * cs]);
    for (int64_t j = 0; j < cols; ++j) o[j] = T(acc[j]);
    return;
  }
  constexpr int64_t kBlock = 64;  // columns per task: a 512-byte accumulator row
  const int64_t blocks = (cols + kBlock - 1) / kBlock;
  // A thread takes whole blocks once it gets kParallelGrain elements
  // (parallel_for stays off OpenMP below that).
  const int64_t block_grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(rows * kBlock, 1));
  parallel_for(blocks, block_grain, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t j0 = b * kBlock, nj = std::min(kBlock, cols - j0);
      double acc[kBlock] = {};
      if (nj == kBlock) {
        // A full block: a constant trip count keeps acc in vector registers.
        for (int64_t i = 0; i < rows; ++i) {
          const T* row = p + i * rs + j0;
          for (int64_t j = 0; j < kBlock; ++j) acc[j] += double(row[j]);
        }
      } else {
        for (int64_t i = 0; i < rows; ++i) {
          const T* row = p + i * rs + j0;
          for (int64_t j = 0; j < nj; ++j) acc[j] += double(row[j]);
        }
      }
      for (int64_t j = 0; j < nj; ++j) o[j0 + j] = T(acc[j]);
    }
  });
}
}  // namespace

void reduce(Reduce op, const Tensor& out, const Tensor& a) {
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "reduce", [&] { reduce_dispatch_op<scalar_t>(op, out, a); });
}

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim) {
  // Move dim last, then rows of R contiguous elements.
  Dims shape, strides;
  for (int64_t d = 0; d < a->ndim(); ++d) {
    if (d == dim) continue;
    shape.push_back(a->shape[d]);
    strides.push_back(a->strides[d]);
  }
  const int64_t R = a->ndim() == 0 ? 1 : a->shape[dim];
  shape.push_back(R);
  strides.push_back(a->ndim() == 0 ? 1 : a->strides[dim]);
  Tensor packed = tc::contiguous(make_view(a, shape, strides, a->offset));
  const int64_t K = numel_of(shape) / std::max<int64_t>(R, 1);
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "arg_reduce", [&] {
    arg_rows<scalar_t>(is_max, values ? values->data_as<scalar_t>() : nullptr, indices->data_as<int64_t>(),
                       packed->data_as<scalar_t>(), K, R);
  });
}

void column_sums(const Tensor& out, const Tensor& g2) {
  TC_DISPATCH_FLOATING(g2->dtype, "LinearBackward", [&] {
    using T = scalar_t;
    column_sums_loop<T>(g2->data_as<T>(), g2->shape[0], g2->shape[1], g2->strides[0], g2->strides[1],
                        out->data_as<T>());
  });
}

}  // namespace tc::cpu::TC_CPU_ISA_NS
