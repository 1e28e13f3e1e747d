// The CUDA module's whole-layer recurrences on cuDNN's RNN API
// (src/cuda/cudnn_rnn.cpp), handed to the core through
// tc_cuda_module_api::rnn_layers; compiled when the toolkit has cuDNN.
#pragma once
#include "backend/rnn_device_layer.h"

namespace tc::cuda {

#ifdef TC_HAVE_CUDNN
const rnn_fused::LayerKernels& rnn_layer_table();
// Destroys the handles and the cached descriptors (the stage's shutdown,
// before the allocator's cache is emptied).
void rnn_shutdown() noexcept;
#endif

}  // namespace tc::cuda
