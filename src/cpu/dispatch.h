// Dispatch over the dtypes CPU kernels compute in, beyond those of dtype.h.
#pragma once
#include "dtype.h"

// Float32, float64, the integer types and bool (for comparisons, max/min, where).
#define TC_DISPATCH_NUMERIC_OR_BOOL(dtype, what, ...)     \
  [&] {                                                   \
    if ((dtype) == ::tc::DType::b8) {                     \
      using scalar_t = bool;                              \
      return __VA_ARGS__();                               \
    }                                                     \
    return TC_DISPATCH_NUMERIC(dtype, what, __VA_ARGS__); \
  }()

#include "math/wrapping.h"

namespace tc::cpu {
using ::tc::wrapping_add;
using ::tc::wrapping_mul;
using ::tc::wrapping_neg;
using ::tc::wrapping_sub;
}  // namespace tc::cpu
