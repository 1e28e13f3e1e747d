// The core's function table inside the CUDA module (src/cuda/host_forward.cpp).
#pragma once
#include "backend/cuda_module_api.h"

namespace tc::cuda {
// Set by tc_cuda_module_init before anything else in the module runs.
extern const tc_cuda_host_api* g_host;
}  // namespace tc::cuda
