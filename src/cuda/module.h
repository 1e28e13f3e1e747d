// The pieces of the CUDA module that its entry point (src/cuda/module.cpp)
// hands to the core.
#pragma once
#include <string>

#include "backend/backend.h"
#include "core/device_hooks.h"
#include "dist/nccl_api.h"

namespace tc::cuda {

const Backend& backend_table();    // cuda_backend.cpp
const DeviceHooks& hooks_table();  // backend.cpp
void stage_init();                 // backend.cpp: finds the devices; throws why not
void stage_shutdown() noexcept;    // backend.cpp
// Whether conv2d and avg_pool2d run through cuDNN (src/cuda/cudnn.cpp).
constexpr bool has_cudnn() noexcept {
#ifdef TC_HAVE_CUDNN
  return true;
#else
  return false;
#endif
}
std::string library_versions();
// NCCL for process groups (src/cuda/nccl.cpp); nullptr when built without it.
const tc_nccl_api* nccl_table();  // module.cpp: "CUDA runtime ..., cuBLAS ..."

}  // namespace tc::cuda
