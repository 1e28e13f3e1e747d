// The CPU's advanced-indexing kernels (src/backend/backend.h): gather and put through
// precomputed storage offsets (src/ops/indexing.cpp builds them), and nonzero.
// Puts run the sliced positions s in parallel and, for each, the indexed
// positions b in order: duplicates resolve deterministically (last writer
// wins; sums, products, max/min in index order) without atomics.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "cpu/cpu_backend.h"
#include "cpu/dispatch.h"
#include "cpu/loops.h"

namespace tc::cpu {

namespace {

// Walks the positions s of the sliced dims [S...] in row-major order, keeping
// the element offset of each of up to two strided operands (an odometer: no
// division per element after the start).
struct SliceWalk {
  const Dims& shape;
  const int64_t* st0;
  const int64_t* st1;  // may be null
  int64_t idx[TC_MAX_DIMS] = {};
  int64_t off0 = 0, off1 = 0;

  SliceWalk(const Dims& shape_, const int64_t* s0, const int64_t* s1, int64_t start)
      : shape(shape_), st0(s0), st1(s1) {
    for (int64_t k = int64_t(shape.size()) - 1, rem = start; k >= 0; --k) {
      idx[k] = rem % shape[k];
      rem /= shape[k];
      off0 += idx[k] * st0[k];
      if (st1) off1 += idx[k] * st1[k];
    }
  }
  void next() {
    for (int64_t k = int64_t(shape.size()) - 1; k >= 0; --k) {
      off0 += st0[k];
      if (st1) off1 += st1[k];
      if (++idx[k] < shape[k]) return;
      off0 -= idx[k] * st0[k];
      if (st1) off1 -= idx[k] * st1[k];
      idx[k] = 0;
    }
  }
};

// out (or values) [nb, S...]: its stride over b and its strides over S.
int64_t b_stride(const Tensor& t) { return t->strides[0]; }
const int64_t* s_strides(const Tensor& t) { return t->strides.data() + 1; }

template <typename T, typename Op>
void put_loop(const Tensor& a, const Tensor& offs, const Tensor& values, Op op) {
  T* dst = static_cast<T*>(a->data());
  const T* src = static_cast<const T*>(values->data());
  const int64_t* po = offs->data_as<int64_t>();
  const int64_t nb = offs->numel(), ns = a->numel();
  const int64_t vb = b_stride(values);
  // Enough sliced positions per thread: parallel over s; else one thread
  // (ns == 1, pure element indexing, keeps its index order).
  parallel_for(ns, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(nb, 1)),
               [&](int64_t lo, int64_t hi) {
                 SliceWalk w(a->shape, a->strides.data(), s_strides(values), lo);
                 for (int64_t s = lo; s < hi; ++s, w.next()) {
                   for (int64_t b = 0; b < nb; ++b) {
                     T& d = dst[po[b] + w.off0];
                     d = op(d, src[b * vb + w.off1]);
                   }
                 }
               });
}

// A float -0.0 is zero: compare the value, not the bits (16-bit floats through double).
template <typename T>
bool is_nonzero(T v) {
  return static_cast<double>(v) != 0.0;
}
inline bool is_nonzero(bool v) { return v; }

}  // namespace

void CpuBackend::index_offsets_gather(const Tensor& out, const Tensor& a, const Tensor& offs) const {
  const int64_t nb = offs->numel(), ns = a->numel();
  if (nb == 0 || ns == 0) return;
  const int64_t* po = offs->data_as<int64_t>();
  const int64_t ob = b_stride(out);
  dispatch_bits(a->itemsize(), "index kernels", [&](auto bits) {
    using B = decltype(bits);
    const B* src = static_cast<const B*>(a->data());
    B* dst = static_cast<B*>(out->data());
    parallel_for(nb * ns, kParallelGrain, [&](int64_t lo, int64_t hi) {
      int64_t b = lo / ns, s = lo % ns;
      SliceWalk w(a->shape, a->strides.data(), s_strides(out), s);
      for (int64_t p = lo; p < hi; ++p) {
        dst[b * ob + w.off1] = src[po[b] + w.off0];
        w.next();  // wraps to offset 0 after the last s
        if (++s == ns) {
          s = 0;
          ++b;
        }
      }
    });
  });
}

void CpuBackend::index_offsets_put(const Tensor& a, const Tensor& offs, const Tensor& values,
                                   IndexPutMode mode) const {
  if (offs->numel() == 0 || a->numel() == 0) return;
  if (mode == IndexPutMode::assign) {
    dispatch_bits(a->itemsize(), "index kernels", [&](auto bits) {
      using B = decltype(bits);
      put_loop<B>(a, offs, values, [](B, B v) { return v; });
    });
    return;
  }
  TC_DISPATCH_NUMERIC_OR_BOOL(a->dtype, "index_put", [&] {
    using T = scalar_t;
    put_loop<T>(a, offs, values, [mode](T cur, T v) { return index_put::combine(mode, cur, v); });
  });
}

namespace {

// nonzero's split: at most one block per thread, each of at least
// kParallelGrain elements (one block, on the calling thread, below that).
// A block is counted and written by one thread, so the result is the same
// at any thread count.
struct Blocks {
  int64_t count, size;
};
Blocks blocks_of(int64_t n) {
  const int64_t nb = std::max<int64_t>(1, std::min<int64_t>(num_threads(), n / kParallelGrain));
  return {nb, (n + nb - 1) / nb};
}

template <typename T>
int64_t count_range(const T* q, int64_t begin, int64_t end) {
  int64_t k = 0;
  for (int64_t i = begin; i < end; ++i) k += is_nonzero(q[i]) ? 1 : 0;
  return k;
}

// counts[t] = the nonzeros of block t.
template <typename T>
std::vector<int64_t> block_counts(const T* q, int64_t n, const Blocks& b) {
  std::vector<int64_t> counts(size_t(b.count), 0);
  parallel_for(b.count, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t)
      counts[size_t(t)] = count_range(q, t * b.size, std::min(n, (t + 1) * b.size));
  });
  return counts;
}

template <typename T>
int64_t count_kernel(const T* q, int64_t n) {
  const std::vector<int64_t> counts = block_counts(q, n, blocks_of(n));
  return std::accumulate(counts.begin(), counts.end(), int64_t(0));
}

// Each block counts its range, a prefix sum gives where its rows start, then
// each writes its coordinates: row-major order, in parallel.
template <typename T>
void nonzero_kernel(const T* q, const Dims& shape, int64_t* po) {
  const int64_t n = numel_of(shape), nd = int64_t(shape.size());
  const Blocks b = blocks_of(n);
  const std::vector<int64_t> counts = block_counts(q, n, b);
  std::vector<int64_t> start(size_t(b.count), 0);
  for (int64_t t = 1; t < b.count; ++t) start[size_t(t)] = start[size_t(t) - 1] + counts[size_t(t) - 1];
  parallel_for(b.count, 1, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      int64_t row = start[size_t(t)];
      for (int64_t i = t * b.size; i < std::min(n, (t + 1) * b.size); ++i) {
        if (!is_nonzero(q[i])) continue;
        for (int64_t k = nd - 1, rem = i; k >= 0; --k) {
          po[row * nd + k] = rem % shape[size_t(k)];
          rem /= shape[size_t(k)];
        }
        ++row;
      }
    }
  });
}

}  // namespace

int64_t CpuBackend::count_nonzero(const Tensor& a) const {
  if (a->numel() == 0) return 0;
  Tensor c = tc::contiguous(a);
  return TC_DISPATCH_ALL(c->dtype, "nonzero",
                         [&] { return count_kernel(c->data_as<scalar_t>(), c->numel()); });
}

void CpuBackend::nonzero(const Tensor& out, const Tensor& a) const {
  Tensor c = tc::contiguous(a);
  if (c->numel() == 0 || out->numel() == 0) return;
  TC_DISPATCH_ALL(c->dtype, "nonzero",
                  [&] { nonzero_kernel(c->data_as<scalar_t>(), c->shape, out->data_as<int64_t>()); });
}

}  // namespace tc::cpu
