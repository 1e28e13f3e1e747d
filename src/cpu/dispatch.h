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

#include <type_traits>

namespace tc::cpu {

// Integer arithmetic wraps around, as in PyTorch; done in the unsigned type
// because signed overflow is undefined behaviour in C++ (UBSan and the
// fuzzer found it). Floating types compute as usual.
template <typename T, bool = std::is_integral_v<T>&& std::is_signed_v<T>>
struct wrap_of {
  using type = T;
};
template <typename T>
struct wrap_of<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using wrap_t = typename wrap_of<T>::type;
template <typename T>
inline T wrapping_add(T x, T y) {
  return T(wrap_t<T>(x) + wrap_t<T>(y));
}
template <typename T>
inline T wrapping_sub(T x, T y) {
  return T(wrap_t<T>(x) - wrap_t<T>(y));
}
template <typename T>
inline T wrapping_mul(T x, T y) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Promote narrow types past int so the product itself cannot overflow.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return T(U(x) * U(y));
  } else {
    return T(x * y);
  }
}
template <typename T>
inline T wrapping_neg(T x) {
  return T(wrap_t<T>(0) - wrap_t<T>(x));
}

}  // namespace tc::cpu
