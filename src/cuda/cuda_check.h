// CUDA error translation: every failing CUDA call becomes TC_ERR_DEVICE (or
// TC_ERR_OUT_OF_MEMORY) with the call and CUDA's error name and string.
#pragma once
#include "core/error.h"

namespace tc {
[[noreturn]] void cuda_fail(const char* call, int error);
}  // namespace tc

#define TC_CUDA_CHECK(call)                                           \
  do {                                                                \
    const auto tc_cuda_err_ = (call);                                 \
    if (tc_cuda_err_ != 0) ::tc::cuda_fail(#call, int(tc_cuda_err_)); \
  } while (0)
