// cuFFT behind Backend::fft on CUDA (src/backend/backend.h has the contract).
#pragma once
#include "backend/backend.h"

namespace tc::cuda {

void fft(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale);

}  // namespace tc::cuda
