// cuDNN's share of the CUDA backend (src/cuda/cudnn.cpp), compiled when the
// toolkit has cuDNN (TC_HAVE_CUDNN): conv2d and avg_pool2d, forward and
// backward, with the Backend's contracts (src/backend/backend.h).
#pragma once
#include <string>

#include "backend/backend.h"

namespace tc::cuda {

#ifdef TC_HAVE_CUDNN
void conv2d(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g);
void conv2d_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& x, const Tensor& w,
                     const Tensor& gy, const ConvGeom& g);
void avg_pool2d(const Tensor& y, const Tensor& x, const PoolGeom& g);
void avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const PoolGeom& g);
std::string cudnn_version();     // of the loaded library, "9.19.0"
void cudnn_shutdown() noexcept;  // destroys every handle
#endif

}  // namespace tc::cuda
