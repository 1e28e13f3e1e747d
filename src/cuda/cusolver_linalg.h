// The CUDA module's linalg table on cuSOLVER (src/cuda/cusolver_linalg.cpp),
// handed to the core through tc_cuda_module_api::linalg.
#pragma once
#include "backend/linalg_backend.h"

namespace tc::cuda {

const LinalgBackend& linalg_table();
// Destroys the cuSOLVER/cuBLAS handles (the cuda stage's shutdown).
void linalg_shutdown() noexcept;

}  // namespace tc::cuda
