// Adaptive pooling's geometry and PyTorch's windows, shared by the CPU
// (src/cpu/adaptive_pool.cpp) and CUDA (src/cuda/adaptive_pool.cu) kernels.
// Output o of an axis of `in` inputs pooled to `out` outputs reads the inputs
// [floor(o * in / out), ceil((o + 1) * in / out)) (aten's AdaptivePooling.h),
// written so that no product exceeds (out - 1) * in + in (sizes are <= 2^31).
#pragma once
#include <cstdint>

#include "math/hd.h"

namespace tc {

// planes = the product of the dims before the pooled ones (N * C, or C for
// an unbatched input); the 1-D pools are h = ho = 1.
struct AdaptivePoolGeom {
  int64_t planes, h, w, ho, wo;
};

TC_HD inline int64_t adaptive_begin(int64_t o, int64_t in, int64_t out) {
  return (o / out) * in + ((o % out) * in) / out;
}
TC_HD inline int64_t adaptive_end(int64_t o, int64_t in, int64_t out) { return 1 + ((o + 1) * in - 1) / out; }

// The outputs [first, last] whose windows hold input i (every output when
// in <= out holds at least one input; each input is in at least one window).
TC_HD inline int64_t adaptive_first_holding(int64_t i, int64_t in, int64_t out) { return (i * out) / in; }
TC_HD inline int64_t adaptive_last_holding(int64_t i, int64_t in, int64_t out) {
  const int64_t last = ((i + 1) * out + in - 1) / in - 1;
  return last < out - 1 ? last : out - 1;
}

}  // namespace tc
