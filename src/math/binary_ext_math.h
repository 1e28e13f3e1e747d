// Per-element helpers of the binary rows beyond the arithmetic (atan2, fmod,
// remainder, floor_divide, div_trunc, copysign, hypot, logaddexp(2), the tensor
// clamp bounds, the bitwise ops and shifts), shared by the CPU loops and the
// CUDA kernels (TC_HD). Included by math/elementwise_math.h inside tc::ew.
//
// Every binary row's forward is instantiated for every compute type (the
// kernels switch over the whole family), so each helper compiles for float,
// double, the integer types and bool, and gives C(0) for the types its row
// never receives (the core's dtype checks keep them away). Integer division
// by zero never reaches a kernel either (the core raises ZeroDivisionError
// first, as PyTorch); the helpers still return 0 there, so no path is UB.
#pragma once

namespace tc::ew {

template <typename C>
constexpr bool is_int_compute = std::is_integral_v<C> && !std::is_same_v<C, bool>;

// float / double dispatch of the C math functions (the device has both).
#define TC_EW_MATH2(name, fn)                                        \
  template <typename C>                                              \
  TC_HD inline C name(C x, C y) {                                    \
    if constexpr (std::is_same_v<C, float>) {                        \
      return ::fn##f(x, y);                                          \
    } else if constexpr (std::is_same_v<C, double>) {                \
      return ::fn(x, y);                                             \
    } else {                                                         \
      (void)x;                                                       \
      (void)y;                                                       \
      return C(0); /* unreachable: floating rows promote integers */ \
    }                                                                \
  }
TC_EW_MATH2(atan2_value, atan2)
TC_EW_MATH2(copysign_value, copysign)
TC_EW_MATH2(hypot_value, hypot)
#undef TC_EW_MATH2

// Integer x / y and x % y rounded toward zero; y == 0 gives 0 (never asked)
// and y == -1 avoids the INT_MIN / -1 trap: it wraps, as PyTorch (-128 // -1
// is -128 in int8).
template <typename C>
TC_HD inline C int_div_trunc(C x, C y) {
  if (y == C(0)) return C(0);
  if constexpr (std::is_signed_v<C>) {
    if (y == C(-1)) return wrapping_neg(x);
  }
  return C(x / y);
}
template <typename C>
TC_HD inline C int_mod_trunc(C x, C y) {
  if (y == C(0)) return C(0);
  if constexpr (std::is_signed_v<C>) {
    if (y == C(-1)) return C(0);
  }
  return C(x % y);
}

template <typename C>
TC_HD inline C fmod_value(C x, C y) {
  if constexpr (std::is_same_v<C, float>) {
    return ::fmodf(x, y);
  } else if constexpr (std::is_same_v<C, double>) {
    return ::fmod(x, y);
  } else if constexpr (is_int_compute<C>) {
    return int_mod_trunc(x, y);
  } else {
    (void)y;
    return x;  // bool: never asked
  }
}

// Python's %: the result takes b's sign (PyTorch's formula, also for floats:
// -7 % inf is inf, 1 % 0.0 is nan).
template <typename C>
TC_HD inline C remainder_value(C x, C y) {
  if constexpr (is_float_compute<C> || is_int_compute<C>) {
    C mod = fmod_value(x, y);
    if (mod != C(0) && is_negative(y) != is_negative(mod)) mod = C(mod + y);  // (unsigned: never)
    return mod;
  } else {
    (void)y;
    return x;
  }
}

// a // b: PyTorch's div_floor (floating: computed from fmod so that it is
// consistent with remainder; b == 0 gives a / b, inf or nan).
template <typename C>
TC_HD inline C floor_divide_value(C x, C y) {
  if constexpr (is_float_compute<C>) {
    if (y == C(0)) return x / y;
    const C mod = fmod_value(x, y);
    C div = (x - mod) / y;
    if (mod != C(0) && ((y < C(0)) != (mod < C(0)))) div -= C(1);
    if (div == C(0)) return copysign_value(C(0), x / y);
    C fl = floor_value(div);
    if (div - fl > C(0.5)) fl += C(1);
    return fl;
  } else if constexpr (is_int_compute<C>) {
    const C q = int_div_trunc(x, y);
    if constexpr (std::is_signed_v<C>) {
      if (y != C(0) && y != C(-1) && ((x < C(0)) != (y < C(0))) && C(x % y) != C(0)) return C(q - C(1));
    }
    return q;
  } else {
    (void)y;
    return x;
  }
}

template <typename C>
TC_HD inline C div_trunc_value(C x, C y) {
  if constexpr (is_float_compute<C>) {
    return trunc_value(C(x / y));
  } else if constexpr (is_int_compute<C>) {
    return int_div_trunc(x, y);
  } else {
    (void)y;
    return x;
  }
}

// log(e^x + e^y) = max + log1p(e^-|x - y|); equal infinities give themselves
// (not inf - inf = nan), as PyTorch.
template <typename C>
TC_HD inline C logaddexp_value(C x, C y) {
  if constexpr (is_float_compute<C>) {
    if (is_inf(x) && x == y) return x;
    const C m = x > y ? x : y;
    return m + m_log1p(m_exp(-m_fabs(x - y)));
  } else {
    (void)y;
    return x;
  }
}
template <typename C>
TC_HD inline C logaddexp2_value(C x, C y) {
  if constexpr (is_float_compute<C>) {
    if (is_inf(x) && x == y) return x;
    const C m = x > y ? x : y;
    return m + m_log1p(m_pow(C(2), -m_fabs(x - y))) / C(0.69314718055994530942);
  } else {
    (void)y;
    return x;
  }
}

// clamp with tensor bounds: NaN in either operand propagates.
template <typename C>
TC_HD inline C clamp_min_value(C x, C y) {
  return is_nan(x) ? x : is_nan(y) ? y : (x < y ? y : x);
}
template <typename C>
TC_HD inline C clamp_max_value(C x, C y) {
  return is_nan(x) ? x : is_nan(y) ? y : (y < x ? y : x);
}

// Bitwise ops: integers and bool (bool & bool stays bool).
#define TC_EW_BITWISE(name, op)             \
  template <typename C>                     \
  TC_HD inline C name(C x, C y) {           \
    if constexpr (std::is_integral_v<C>) {  \
      return C(x op y);                     \
    } else {                                \
      (void)y;                              \
      return x; /* floating: never asked */ \
    }                                       \
  }
TC_EW_BITWISE(bitwise_and_value, &)
TC_EW_BITWISE(bitwise_or_value, |)
TC_EW_BITWISE(bitwise_xor_value, ^)
#undef TC_EW_BITWISE

// Shifts of integer tensors. x << y wraps (done in the unsigned type); a count
// below 0 or at least the bit width gives 0 (<<) or the sign (>>), as PyTorch
// 2 defines it (1.13 left it to the hardware, which masks the count).
template <typename C>
TC_HD inline C shift_left_value(C x, C y) {
  if constexpr (is_int_compute<C>) {
    constexpr int bits = int(sizeof(C) * 8);
    if (is_negative(y) || y >= C(bits)) return C(0);
    using U = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;
    return C(std::make_unsigned_t<C>(U(std::make_unsigned_t<C>(x)) << unsigned(y)));
  } else {
    (void)y;
    return x;
  }
}
template <typename C>
TC_HD inline C shift_right_value(C x, C y) {
  if constexpr (is_int_compute<C>) {
    constexpr int bits = int(sizeof(C) * 8);
    if (is_negative(y) || y >= C(bits)) return is_negative(x) ? C(-1) : C(0);
    return C(x >> unsigned(y));  // arithmetic for signed types (C++20, and every compiler before)
  } else {
    (void)y;
    return x;
  }
}

}  // namespace tc::ew
