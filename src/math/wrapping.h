// Wrapping integer arithmetic shared by the CPU kernels and the CUDA kernels
// (TC_HD), so both backends overflow the same way.
#pragma once
#include <type_traits>

#include "math/hd.h"

namespace tc {

// Integer arithmetic wraps around, as in PyTorch; done in the unsigned type
// because signed overflow is undefined behaviour in C++ (UBSan and the
// fuzzer found it). Floating types compute as usual.
template <typename T, bool = std::is_integral_v<T>&& std::is_signed_v<T>>
struct WrapOf {
  using type = T;
};
template <typename T>
struct WrapOf<T, true> {
  using type = std::make_unsigned_t<T>;
};
template <typename T>
using wrap_t = typename WrapOf<T>::type;
template <typename T>
TC_HD inline T wrapping_add(T x, T y) {
  return T(wrap_t<T>(x) + wrap_t<T>(y));
}
template <typename T>
TC_HD inline T wrapping_sub(T x, T y) {
  return T(wrap_t<T>(x) - wrap_t<T>(y));
}
template <typename T>
TC_HD inline T wrapping_mul(T x, T y) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Promote narrow types past int so the product itself cannot overflow.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return T(U(x) * U(y));
  } else {
    return T(x * y);
  }
}
template <typename T>
TC_HD inline T wrapping_neg(T x) {
  return T(wrap_t<T>(0) - wrap_t<T>(x));
}

}  // namespace tc
