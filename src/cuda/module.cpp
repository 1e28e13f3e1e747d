// The CUDA module's one export (src/backend/cuda_module_api.h): checks that libtc.so
// and this module were built together, keeps the core's function table, and
// hands back the Backend and DeviceHooks tables and the stage. Nothing here
// touches the GPU: a machine without a driver loads the module fine and the
// stage's init() then says why CUDA is unusable.
#include "cuda/module.h"

#include <cublas_api.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include "core/error.h"
#include "cuda/cudnn.h"
#include "cuda/cudnn_rnn.h"
#include "cuda/cusolver_linalg.h"
#include "cuda/host_forward.h"

namespace tc::cuda {

namespace {

void copy_message(char* dst, size_t cap, const char* text) {
  if (!dst || cap == 0) return;
  std::snprintf(dst, cap, "%s", text);
}

// The stage's body behind the noexcept boundary: a tc::Error's code and
// message, anything else as TC_ERR_INTERNAL.
template <typename F>
int32_t guarded(char* msg, size_t cap, F&& body) noexcept {
  try {
    body();
    copy_message(msg, cap, "");
    return TC_OK;
  } catch (const Error& e) {
    copy_message(msg, cap, e.what());
    return e.code() != TC_OK ? e.code() : TC_ERR_INTERNAL;
  } catch (const std::bad_alloc&) {
    copy_message(msg, cap, "out of memory in the CUDA module");
    return TC_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    copy_message(msg, cap, e.what());
    return TC_ERR_INTERNAL;
  } catch (...) {
    copy_message(msg, cap, "an unknown exception in the CUDA module");
    return TC_ERR_INTERNAL;
  }
}

int32_t module_stage_init(char* msg, size_t cap) noexcept { return guarded(msg, cap, stage_init); }
void module_stage_shutdown() noexcept { stage_shutdown(); }

std::string& versions_text() {
  static std::string* s = new std::string();  // outlives static destruction
  return *s;
}

}  // namespace

std::string library_versions() {
  std::string s = str("CUDA runtime ", CUDART_VERSION, ", cuBLAS ", CUBLAS_VERSION);
#ifdef TC_HAVE_CUDNN
  s += str(", cuDNN ", cudnn_version());
#endif
  return s;
}

}  // namespace tc::cuda

extern "C" __attribute__((visibility("default"))) int32_t tc_cuda_module_init(
    uint32_t abi_version, const tc_cuda_host_api* host, tc_cuda_module_api* out) noexcept {
  using namespace tc;
  if (!out) return TC_ERR_INVALID_ARGUMENT;
  // The stable prefix first: a core of another version reads these.
  const uint32_t core_size = out->size;
  out->abi_version = TC_CUDA_MODULE_ABI_VERSION;
  out->message[0] = '\0';
  if (abi_version != TC_CUDA_MODULE_ABI_VERSION) {
    cuda::copy_message(out->message, sizeof out->message,
                       str("the module implements CUDA module ABI version ", TC_CUDA_MODULE_ABI_VERSION,
                           " but libtc asks for version ", abi_version)
                           .c_str());
    return TC_ERR_UNAVAILABLE;
  }
  out->size = sizeof(tc_cuda_module_api);
  return cuda::guarded(out->message, sizeof out->message, [&] {
    TC_CHECK(core_size == sizeof(tc_cuda_module_api), TC_ERR_UNAVAILABLE, "libtc's module table is ",
             core_size, " bytes but the module's is ", sizeof(tc_cuda_module_api));
    TC_CHECK(host && host->size == sizeof(tc_cuda_host_api), TC_ERR_UNAVAILABLE, "libtc's function table is ",
             host ? host->size : 0, " bytes but the module expects ", sizeof(tc_cuda_host_api));
    TC_CHECK(host->build_id && std::strcmp(host->build_id, TC_CUDA_MODULE_BUILD_ID) == 0, TC_ERR_UNAVAILABLE,
             "libtc was built as '", host->build_id ? host->build_id : "?", "' but the module as '",
             TC_CUDA_MODULE_BUILD_ID, "' (they must come from one build)");
    TC_CHECK(host->layout == tc_cuda_layout(), TC_ERR_UNAVAILABLE,
             "libtc and the module disagree on the layout of the types they share (",
             "another build configuration?)");
    cuda::g_host = host;
    cuda::versions_text() = cuda::library_versions();
    out->build_id = TC_CUDA_MODULE_BUILD_ID;
    out->has_cudnn = cuda::has_cudnn() ? 1 : 0;
    out->versions = cuda::versions_text().c_str();
    out->backend = &cuda::backend_table();
    out->hooks = &cuda::hooks_table();
    out->init = cuda::module_stage_init;
    out->shutdown = cuda::module_stage_shutdown;
    out->nccl = cuda::nccl_table();
    out->linalg = &cuda::linalg_table();
#ifdef TC_HAVE_CUDNN
    out->rnn_layers = &cuda::rnn_layer_table();
#else
    out->rnn_layers = nullptr;
#endif
  });
}
