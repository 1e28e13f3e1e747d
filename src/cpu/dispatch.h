// Dispatch over the dtypes CPU kernels compute in, beyond those of dtype.h.
#pragma once
#include "core/dtype.h"

// Float32, float64, the integer types and bool (for comparisons, max/min, where).
#define TC_DISPATCH_NUMERIC_OR_BOOL(dtype, what, ...)     \
  [&] {                                                   \
    if ((dtype) == ::tc::DType::b8) {                     \
      using scalar_t = bool;                              \
      return __VA_ARGS__();                               \
    }                                                     \
    return TC_DISPATCH_NUMERIC(dtype, what, __VA_ARGS__); \
  }()

#include <cstdint>

#include "core/error.h"
#include "math/wrapping.h"

namespace tc::cpu {
using ::tc::wrapping_add;
using ::tc::wrapping_mul;
using ::tc::wrapping_neg;
using ::tc::wrapping_sub;

// Calls f with a value of the unsigned type of an element's bytes: gathers,
// puts and copies move bits, whatever the dtype. what names the kernel.
template <typename F>
void dispatch_bits(int64_t itemsize, const char* what, F&& f) {
  switch (itemsize) {
    case 1:
      return f(uint8_t());
    case 2:
      return f(uint16_t());
    case 4:
      return f(uint32_t());
    case 8:
      return f(uint64_t());
    default:
      fail(TC_ERR_INTERNAL, str(what, ": unsupported element size ", itemsize));
  }
}
}  // namespace tc::cpu
