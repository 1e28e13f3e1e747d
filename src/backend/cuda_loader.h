// The cuda stage (src/backend/cuda_loader.cpp): loads the CUDA module and registers
// its tables. Declared for init.cpp, flags.cpp and device_hooks.cpp.
#pragma once
#include <cstdint>
#include <string>

#include "dist/nccl_api.h"

namespace tc {

void cuda_backend_init();      // the stage's body; throws why CUDA is unusable
void cuda_backend_shutdown();  // releases the module's handles and cache
bool cuda_backend_initialized() noexcept;
// Whether tc_init registers a cuda stage: a CUDA build, or TC_CUDA_MODULE set.
bool cuda_stage_configured() noexcept;
// The module path the stage tries, and what became of it ("loaded (...)",
// "not loaded: ..." or "not loaded yet").
std::string cuda_module_path();
std::string cuda_module_status();
int32_t cuda_module_has_cudnn() noexcept;
// Why CUDA cannot work whatever the GPU ("" when it may): no cuda stage, its
// failure, or (before it runs) a missing module file; never loads the module.
std::string cuda_module_unusable_reason();
// The loaded module's NCCL table (src/dist/nccl_api.h): nullptr before the
// cuda stage succeeded or when the module was built without NCCL.
const tc_nccl_api* cuda_module_nccl() noexcept;

}  // namespace tc
