// The process-wide float32 matmul precision (torch's
// set_float32_matmul_precision; tc_set_matmul_precision): one of
// TC_MATMUL_PRECISION_HIGHEST (the default), _HIGH or _MEDIUM. The CUDA
// matmul (cuda/blas.cpp) and convolution (cuda/cudnn.cpp) read it on every
// float32 product, through the CUDA module's host table.
#pragma once
#include <cstdint>

namespace tc {

int32_t matmul_precision() noexcept;
void set_matmul_precision(int32_t precision) noexcept;  // the caller checked the value

}  // namespace tc
