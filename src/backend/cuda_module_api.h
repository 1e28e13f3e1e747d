// The internal boundary between libtc.so and the CUDA module (libtc_cuda.so),
// which the lazy cuda stage opens with dlopen (src/backend/cuda_loader.cpp). Keeping
// every CUDA library (cudart, cuBLAS, cuBLASLt, cuDNN) out of libtc.so means
// a process that never touches a GPU never maps them.
//
// The module exports one C symbol, tc_cuda_module_init (TC_CUDA_MODULE_ENTRY).
// The core hands it a tc_cuda_host_api: the core's C++ functions the kernels
// call (tensor creation, copies, a few ops, the CUDA hooks), as plain
// function pointers, because libtc.so exports only the tc_* C ABI. The module
// defines each such function itself as a forwarder through that table
// (src/cuda/host_forward.cpp), so the kernels compile as if they were part of
// the core. In return it fills a tc_cuda_module_api: its versions, whether it
// has cuDNN, and the stage's init/shutdown.
//
// Both sides are built by one build with one compiler, so C++ objects
// (Tensor, Dims, Backend, DeviceHooks) cross this boundary; the build_id
// string (version, compiler, C++ ABI) and TC_CUDA_MODULE_ABI_VERSION guard
// that, and the sizes of both tables are compared too. Exceptions: the entry
// point and the stage's init/shutdown are noexcept and report failures as a
// status code plus a message (a broken module can never unwind into tc_init).
// The Backend's and DeviceHooks' functions, which run only after the stage
// succeeded, throw tc::Error as the core's own code does; the core catches it
// by type (libstdc++ matches the type by name across the two libraries).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "backend/backend.h"
#include "backend/cuda_probe.h"
#include "backend/linalg_backend.h"
#include "backend/rnn_device_layer.h"
#include "core/device_hooks.h"
#include "core/tensor.h"
#include "dist/nccl_api.h"
#include "tc_constants.h"

// Bumped whenever either table or anything crossing it changes (2: the nccl
// table; 3: Backend gained the kept-CDF GELU and adaptive pooling entries;
// 4: the cuSOLVER linalg table; 5: the cuDNN recurrent-layer table).
#define TC_CUDA_MODULE_ABI_VERSION 5u
#define TC_CUDA_MODULE_ENTRY "tc_cuda_module_init"

#define TC_CUDA_MODULE_STR2(x) #x
#define TC_CUDA_MODULE_STR(x) TC_CUDA_MODULE_STR2(x)
// What must match between libtc.so and the module besides the ABI version:
// both are compiled from one tree by one compiler with one C++ ABI.
#define TC_CUDA_MODULE_BUILD_ID \
  TC_VERSION_STRING " " TC_CXX_COMPILER " cxx11abi=" TC_CUDA_MODULE_STR(_GLIBCXX_USE_CXX11_ABI)

// The core's functions the module calls, as X(return type, qualified name,
// field, parameter list, argument list, exception specification). The module
// defines each `qualified name` as a forwarder (src/cuda/host_forward.cpp);
// the core fills each field with the function's address (src/backend/cuda_loader.cpp).
#define TC_CUDA_HOST_FUNCTIONS(X)                                                                     \
  X(tc::Tensor, tc::empty, empty, (const tc::Dims& shape, tc::DType dtype, tc::Device device),        \
    (shape, dtype, device), )                                                                         \
  X(tc::Tensor, tc::zeros, zeros, (const tc::Dims& shape, tc::DType dtype, tc::Device device),        \
    (shape, dtype, device), )                                                                         \
  X(tc::Tensor, tc::ones, ones, (const tc::Dims& shape, tc::DType dtype, tc::Device device),          \
    (shape, dtype, device), )                                                                         \
  X(tc::Tensor, tc::scalar_tensor, scalar_tensor, (double value, tc::DType dtype, tc::Device device), \
    (value, dtype, device), )                                                                         \
  X(tc::Tensor, tc::make_view, make_view,                                                             \
    (const tc::Tensor& base, const tc::Dims& shape, const tc::Dims& strides, int64_t offset),         \
    (base, shape, strides, offset), )                                                                 \
  X(void, tc::copy_into, copy_into, (const tc::Tensor& dst, const tc::Tensor& src), (dst, src), )     \
  X(tc::Tensor, tc::contiguous, contiguous, (const tc::Tensor& t), (t), )                             \
  X(tc::Tensor, tc::ops::binary, ops_binary,                                                          \
    (tc::ops::BinaryOp op, const tc::Tensor& a, const tc::Tensor& b), (op, a, b), )                   \
  X(tc::Tensor, tc::ops::binary_scalar, ops_binary_scalar,                                            \
    (tc::ops::ScalarOp op, const tc::Tensor& a, double s), (op, a, s), )                              \
  X(tc::Tensor, tc::ops::sum, ops_sum, (const tc::Tensor& a, const tc::Dims& dims, bool keepdim),     \
    (a, dims, keepdim), )                                                                             \
  X(tc::Tensor, tc::ops::mean, ops_mean, (const tc::Tensor& a, const tc::Dims& dims, bool keepdim),   \
    (a, dims, keepdim), )                                                                             \
  X(tc::Tensor, tc::ops::sum_to_size, ops_sum_to_size, (const tc::Tensor& g, const tc::Dims& shape),  \
    (g, shape), )                                                                                     \
  X(bool, tc::grad_enabled, grad_enabled, (), (), noexcept)                                           \
  X(void, tc::set_grad_enabled, set_grad_enabled, (bool on), (on), noexcept)                          \
  X(bool, tc::deterministic, deterministic, (), (), noexcept)                                         \
  X(int32_t, tc::matmul_precision, matmul_precision, (), (), noexcept)                                \
  X(const tc::CudaProbe&, tc::cuda_probe, cuda_probe, (), (), )                                       \
  X(const tc::DeviceHooks&, tc::require_cuda, require_cuda, (int32_t device_index), (device_index), )

// A fingerprint of the layouts of the C++ types that cross, as each side was
// compiled (a sanitizer or option difference shows here).
constexpr uint64_t tc_cuda_layout() {
  const uint64_t sizes[] = {sizeof(tc::TensorImpl), sizeof(tc::Storage),     sizeof(tc::Dims),
                            sizeof(tc::Backend),    sizeof(tc::DeviceHooks), sizeof(tc::CudaProbe),
                            sizeof(tc::Tensor),     sizeof(std::string)};
  uint64_t h = 1469598103934665603ull;
  for (uint64_t v : sizes) h = (h ^ v) * 1099511628211ull;
  return h;
}

struct tc_cuda_host_api {
  uint32_t size;  // sizeof(tc_cuda_host_api)
  uint32_t abi_version;
  const char* build_id;
  uint64_t layout;  // tc_cuda_layout(): the sizes of the types that cross
#define TC_CUDA_HOST_FIELD(ret, qualified, field, params, args, spec) ret(*field) params;
  TC_CUDA_HOST_FUNCTIONS(TC_CUDA_HOST_FIELD)
#undef TC_CUDA_HOST_FIELD
};

struct tc_cuda_module_api {
  // A stable prefix, written by every module version (also on failure), so a
  // module of another version can say which version it is.
  uint32_t size;  // sizeof(tc_cuda_module_api) as the module knows it
  uint32_t abi_version;
  char message[512];  // why the entry point failed ("" on success)

  const char* build_id;
  int32_t has_cudnn;             // the module computes conv/pool/batch norm with cuDNN
  const char* versions;          // "CUDA runtime 13000, cuBLAS ..., cuDNN ..." (build-time)
  const tc::Backend* backend;    // registered for TC_DEVICE_CUDA once init succeeds
  const tc::DeviceHooks* hooks;  // the same
  // The stage: finds the driver and devices (no CUDA work before). Returns
  // TC_OK or a status code with the reason in msg (cap bytes, terminated).
  int32_t (*init)(char* msg, size_t cap) noexcept;
  // Releases cuBLAS/cuDNN handles and the allocator's cache (every tensor is gone).
  void (*shutdown)() noexcept;
  // The "nccl" process groups' transport (src/dist/nccl_api.h); NULL when
  // the module was built without NCCL.
  const tc_nccl_api* nccl;
  // torch.linalg's factorizations on cuSOLVER (src/cuda/cusolver_linalg.cpp),
  // registered for CUDA tensors with the backend.
  const tc::LinalgBackend* linalg;
  // Whole recurrent layers on cuDNN's RNN API (src/cuda/cudnn_rnn.cpp);
  // NULL when the module was built without cuDNN.
  const tc::rnn_fused::LayerKernels* rnn_layers;
};

// The module's one export. Returns TC_OK, or a status code with the reason in
// out->message; out->size and out->abi_version are written either way.
extern "C" typedef int32_t (*tc_cuda_module_init_fn)(uint32_t abi_version, const tc_cuda_host_api* host,
                                                     tc_cuda_module_api* out);
