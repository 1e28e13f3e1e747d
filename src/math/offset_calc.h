// Index arithmetic of the CUDA elementwise kernels, shared with the CPU tests:
// a linear index over an op's (broadcast) shape becomes one byte offset per
// operand. The host builds an OffsetCalc once per launch, with dims coalesced
// the way src/cpu/loops.h's StridedLoop does (size-1 dims dropped, a dim merged
// into the one inside it when every operand steps through both as one); the
// device then only divides by the remaining sizes. Divisions of indices below
// 2^31 use a multiply-high by a magic number (IntDivider, as in PyTorch's
// OffsetCalculator), because a 64-bit division is a long software sequence on
// the GPU.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "math/hd.h"

namespace tc::cuda {

// n / d and n % d for 0 <= n < 2^31 and 1 <= d < 2^31: q = (mulhi(n, m) + n) >> s.
struct IntDivider {
  uint32_t divisor = 1;
  uint32_t magic = 0;
  uint32_t shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t(1) << shift) < d) ++shift;
    const uint64_t one = 1;
    magic = uint32_t(((one << 32) * ((one << shift) - d)) / d + 1);
  }
  TC_HD uint32_t div(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t t = __umulhi(n, magic);
#else
    const uint32_t t = uint32_t((uint64_t(n) * magic) >> 32);
#endif
    return (t + n) >> shift;
  }
};

// Byte offsets of N operands (operand 0 is usually the output) for a linear
// index in row-major order over the op's shape.
template <int N>
struct OffsetCalc {
  int ndim = 0;        // coalesced dims, innermost first
  bool small = false;  // every linear index < 2^31: 32-bit division by IntDivider
  int64_t sizes[TC_MAX_DIMS];
  IntDivider divs[TC_MAX_DIMS];
  int64_t strides[TC_MAX_DIMS][N];  // bytes

  TC_HD void get(int64_t linear, int64_t (&off)[N]) const {
    for (int k = 0; k < N; ++k) off[k] = 0;
    if (small) {
      uint32_t rem = uint32_t(linear);
      for (int d = 0; d < ndim; ++d) {
        // The outermost dim needs no division: what remains is its index.
        const uint32_t q = d + 1 < ndim ? divs[d].div(rem) : 0;
        const int64_t idx = int64_t(rem - q * divs[d].divisor);
        for (int k = 0; k < N; ++k) off[k] += idx * strides[d][k];
        rem = q;
      }
    } else {
      int64_t rem = linear;
      for (int d = 0; d < ndim; ++d) {
        const int64_t q = d + 1 < ndim ? rem / sizes[d] : 0;
        const int64_t idx = rem - q * sizes[d];
        for (int k = 0; k < N; ++k) off[k] += idx * strides[d][k];
        rem = q;
      }
    }
  }
};

// The element strides of an operand of `shape` broadcast to `out` (dims aligned
// to the right; 0 where the operand has size 1 or lacks the dim).
inline Dims broadcast_strides_to(const Dims& shape, const Dims& strides, const Dims& out) {
  Dims s = Dims::filled(out.size(), 0);
  const int64_t lead = out.size() - shape.size();
  for (int64_t i = 0; i < shape.size(); ++i) s[lead + i] = shape[i] == 1 ? 0 : strides[i];
  return s;
}

// The calculator for `shape`, whose numel is > 0, and N operands with the
// given element strides over it (already broadcast: shape.size() entries
// each) and element sizes. force_64 is for the tests of the 64-bit path.
template <int N>
OffsetCalc<N> make_offset_calc(const Dims& shape, const Dims (&strides)[N], const int64_t (&itemsize)[N],
                               bool force_64 = false) {
  OffsetCalc<N> c;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    bool merge = c.ndim > 0;
    for (int k = 0; k < N && merge; ++k) {
      merge = strides[k][d] * itemsize[k] == c.strides[c.ndim - 1][k] * c.sizes[c.ndim - 1];
    }
    if (merge) {
      c.sizes[c.ndim - 1] *= shape[d];
    } else {
      c.sizes[c.ndim] = shape[d];
      for (int k = 0; k < N; ++k) c.strides[c.ndim][k] = strides[k][d] * itemsize[k];
      ++c.ndim;
    }
  }
  const int64_t n = numel_of(shape);
  c.small = !force_64 && n <= int64_t(INT32_MAX);
  if (c.small) {
    for (int d = 0; d < c.ndim; ++d) c.divs[d] = IntDivider(uint32_t(c.sizes[d]));
  }
  return c;
}

}  // namespace tc::cuda
