// The CPU's FFTs on FFTW 3 (Debian's libfftw3-dev), built only with
// TC_WITH_FFTW=ON. FFTW is GPL: a libtc linked with it is distributed under
// the GPL (tc_config() says so). Backend::fft (cpu/fft.cpp) calls this in place
// of libtc's own FFT when the option is on.
#pragma once
#include "cpu/cpu_backend.h"

namespace tc::cpu {

// Backend::fft's contract (contiguous tensors, batched along the last dim).
void fftw_transform(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale);

}  // namespace tc::cpu
