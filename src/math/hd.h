// TC_HD marks code shared by the host and the device: compiled by nvcc it is
// __host__ __device__; compiled by the C++ compiler (the CPU tests that check
// the GPU's math on a machine without a GPU) it is plain code.
#pragma once
#ifdef __CUDACC__
#define TC_HD __host__ __device__
#else
#define TC_HD
#endif
