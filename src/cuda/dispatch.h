// How a core op hands its work to the CUDA backend. The ops' .cpp files are
// compiled by the C++ compiler in every build; the backend's kernels exist
// only when libtc is built with CUDA. An op therefore calls a kernel through
// TC_CUDA_CALL: in a CPU-only build the call is compiled out (no CUDA tensor
// can exist there, so the branch is never taken) and the op still links.
//
//   if (on_cuda(out)) { TC_CUDA_CALL(cuda::binary(op, out, a, b)); return out; }
//
// The kernel entry points live in src/cuda/<area>.h: plain C++ declarations
// over tc::Tensor (no CUDA types), implemented in src/cuda/<area>.cu.
#pragma once
#include "abi/status.h"
#include "tensor.h"

namespace tc {
inline bool on_cuda(const Tensor& t) { return device_type(t->device) == TC_DEVICE_CUDA; }
}  // namespace tc

#if TC_HAVE_CUDA
#define TC_CUDA_CALL(...) (__VA_ARGS__)
#else
#define TC_CUDA_CALL(...) ::tc::fail(TC_ERR_NOT_COMPILED, "libtc was built without CUDA")
#endif
