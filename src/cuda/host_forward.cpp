// The core's functions, as the CUDA module sees them: each forwards through
// the table libtc.so passed to tc_cuda_module_init (src/backend/cuda_module_api.h),
// since libtc.so exports nothing but its C ABI. The kernels and the Backend
// base class (src/backend/backend_defaults.cpp) call these as they would the core's.
#include "cuda/host_forward.h"

#include "core/error.h"
#include "core/init.h"
#include "cuda/blas.h"
#include "ops/ops.h"

namespace tc::cuda {
const tc_cuda_host_api* g_host = nullptr;
}  // namespace tc::cuda

#define TC_CUDA_FORWARD(ret, qualified, field, params, args, spec) \
  ret qualified params spec { return ::tc::cuda::g_host->field args; }
TC_CUDA_HOST_FUNCTIONS(TC_CUDA_FORWARD)
#undef TC_CUDA_FORWARD
