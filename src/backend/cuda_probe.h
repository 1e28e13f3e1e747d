// Answers "is CUDA usable now?" without creating a CUDA context and without
// initializing the driver in this process (which would make CUDA unusable in
// a child after fork()): the driver library is only looked for, and devices
// are counted through NVML, as PyTorch does with PYTORCH_NVML_BASED_CUDA_CHECK.
#pragma once
#include <string>

namespace tc {

struct CudaProbe {
  bool available = false;
  int device_count = 0;
  std::string reason;  // why it is unavailable ("" when available)
};

// Probes once per process and caches the answer.
const CudaProbe& cuda_probe();

}  // namespace tc
