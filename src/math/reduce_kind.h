// The reductions every backend implements (src/backend/backend.h): one set, shared by
// the CPU's and CUDA's kernels.
#pragma once

namespace tc {
enum class ReduceKind { sum, max, min };
// The running scans of Backend::scan_rows (cumsum has its own primitive).
enum class ScanKind { prod, max, min, logsumexp };
}  // namespace tc
