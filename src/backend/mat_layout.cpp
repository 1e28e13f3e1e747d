// How a strided matrix can be handed to a GEMM (src/backend/backend.h): used by the
// CPU and CUDA backends alike, so the CUDA module compiles its own copy.
#include <algorithm>

#include "backend/backend.h"

namespace tc {

MatLayout mat_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  MatLayout l;
  // A size-1 dim's stride never matters, so it cannot block a layout.
  if (cols <= 1 || cs == 1) {
    const int64_t ld = rows <= 1 ? std::max<int64_t>(cols, 1) : rs;
    if (ld >= std::max<int64_t>(cols, 1)) return {true, false, ld};
  }
  if (rows <= 1 || rs == 1) {
    const int64_t ld = cols <= 1 ? std::max<int64_t>(rows, 1) : cs;
    if (ld >= std::max<int64_t>(rows, 1)) return {true, true, ld};
  }
  return l;
}

}  // namespace tc
