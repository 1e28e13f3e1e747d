// The cuda stage when libtc is built without the CUDA backend.
#ifndef TC_HAVE_CUDA
#include "abi/status.h"

namespace tc {
void cuda_backend_init() { fail(TC_ERR_NOT_COMPILED, "libtc was built without CUDA"); }
void cuda_backend_shutdown() {}
bool cuda_backend_initialized() noexcept { return false; }
bool cuda_forked_child() noexcept { return false; }
}  // namespace tc
#endif
