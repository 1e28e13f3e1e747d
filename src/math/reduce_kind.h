// The reductions every backend implements (src/backend.h): one set, shared by
// the CPU's and CUDA's kernels.
#pragma once

namespace tc {
enum class ReduceKind { sum, max, min };
}  // namespace tc
