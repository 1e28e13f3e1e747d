// The dtype registry: codes (the TC_* values of tc.h), names, element sizes,
// the two 16-bit float types, type promotion and a dispatch macro that turns
// a runtime dtype into a C++ type.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/error.h"

namespace tc {

enum class DType : int32_t {
  f32 = TC_FLOAT32,
  f64 = TC_FLOAT64,
  f16 = TC_FLOAT16,
  bf16 = TC_BFLOAT16,
  i8 = TC_INT8,
  i16 = TC_INT16,
  i32 = TC_INT32,
  i64 = TC_INT64,
  u8 = TC_UINT8,
  b8 = TC_BOOL,
  c64 = TC_COMPLEX64,  // (float, float) pairs; only some ops take them (tc.h)
  c128 = TC_COMPLEX128,
};

// IEEE binary16, stored as bits; arithmetic goes through float.
struct Half {
  uint16_t bits;
  Half() = default;
  Half(float f) : bits(from_float(f)) {}  // NOLINT: implicit like a number
  operator float() const { return to_float(bits); }
  static uint16_t from_float(float f);
  static float to_float(uint16_t h);
};

// bfloat16: the upper half of a float32, rounded to nearest even.
struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  BFloat16(float f) : bits(from_float(f)) {}  // NOLINT
  operator float() const {
    uint32_t u = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  static uint16_t from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
  }
};

bool dtype_valid(int32_t code) noexcept;
inline bool is_floating_dtype_inline(DType d) noexcept {
  return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16;
}
const char* dtype_name(DType d) noexcept;
// Inline: asked on every tensor access.
inline int64_t dtype_size(DType d) noexcept {
  constexpr int8_t kSizes[TC_DTYPE_COUNT] = {4, 8, 2, 2, 1, 2, 4, 8, 1, 1, 8, 16};
  return uint32_t(d) < uint32_t(TC_DTYPE_COUNT) ? kSizes[int32_t(d)] : 0;
}
bool is_floating(DType d) noexcept;
bool is_integral(DType d) noexcept;  // integers, not bool
inline bool is_complex(DType d) noexcept { return d == DType::c64 || d == DType::c128; }
// Floating or complex: the dtypes a tensor requiring gradients may have.
inline bool is_differentiable(DType d) noexcept { return is_complex(d) || is_floating_dtype_inline(d); }
// complex64 -> float32, complex128 -> float64 (the dtype of a part); others unchanged.
inline DType complex_part_dtype(DType d) noexcept {
  return d == DType::c64 ? DType::f32 : d == DType::c128 ? DType::f64 : d;
}
// float64 -> complex128, any other -> complex64 (PyTorch's toComplexType for
// the floats; the integer dtypes take the default complex64).
inline DType to_complex_dtype(DType d) noexcept {
  return d == DType::f64 || d == DType::c128 ? DType::c128 : DType::c64;
}
// The value to store when a caller fills a tensor of dtype with value, or
// TC_ERR_INVALID_ARGUMENT ("value cannot be converted to type int8
// without overflow", as PyTorch) when storing value as dtype overflows, by
// c10's checked_convert rules: bool takes anything; floating dtypes take
// inf and NaN, not finite values past their range; integers take neither,
// and an integral value (a Python int) may be negative for uint8 (it wraps,
// -1 -> 255), a fractional one truncates but must lie in range. Used where a
// caller's value fills a tensor (tc_full, tc_fill_).
double checked_fill_value(const char* op, double value, DType dtype);
// Throws TC_ERR_DTYPE for an unknown code; arg names the argument.
DType to_dtype(int32_t code, const char* arg);
// PyTorch's promote_types for two dtypes.
DType promote_types(DType a, DType b) noexcept;

template <typename T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::f64;
};
template <>
struct dtype_of<Half> {
  static constexpr DType value = DType::f16;
};
template <>
struct dtype_of<BFloat16> {
  static constexpr DType value = DType::bf16;
};
template <>
struct dtype_of<int8_t> {
  static constexpr DType value = DType::i8;
};
template <>
struct dtype_of<int16_t> {
  static constexpr DType value = DType::i16;
};
template <>
struct dtype_of<int32_t> {
  static constexpr DType value = DType::i32;
};
template <>
struct dtype_of<int64_t> {
  static constexpr DType value = DType::i64;
};
template <>
struct dtype_of<uint8_t> {
  static constexpr DType value = DType::u8;
};
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::b8;
};

}  // namespace tc

// TC_DISPATCH_ALL(dtype, "tc_add", [&] { using T = scalar_t; ... });
// Invokes the body with `scalar_t` bound to the C++ type of dtype.
#define TC_DISPATCH_CASE_(D, TYPE, ...) \
  case ::tc::DType::D: {                \
    using scalar_t = TYPE;              \
    return __VA_ARGS__();               \
  }
#define TC_DISPATCH_ALL(dtype, what, ...)                                                             \
  [&] {                                                                                               \
    switch (dtype) {                                                                                  \
      TC_DISPATCH_CASE_(f32, float, __VA_ARGS__)                                                      \
      TC_DISPATCH_CASE_(f64, double, __VA_ARGS__)                                                     \
      TC_DISPATCH_CASE_(f16, ::tc::Half, __VA_ARGS__)                                                 \
      TC_DISPATCH_CASE_(bf16, ::tc::BFloat16, __VA_ARGS__)                                            \
      TC_DISPATCH_CASE_(i8, int8_t, __VA_ARGS__)                                                      \
      TC_DISPATCH_CASE_(i16, int16_t, __VA_ARGS__)                                                    \
      TC_DISPATCH_CASE_(i32, int32_t, __VA_ARGS__)                                                    \
      TC_DISPATCH_CASE_(i64, int64_t, __VA_ARGS__)                                                    \
      TC_DISPATCH_CASE_(u8, uint8_t, __VA_ARGS__)                                                     \
      TC_DISPATCH_CASE_(b8, bool, __VA_ARGS__)                                                        \
      case ::tc::DType::c64:                                                                          \
      case ::tc::DType::c128:                                                                         \
        break;                                                                                        \
    }                                                                                                 \
    ::tc::fail(TC_ERR_DTYPE, ::tc::str(what, ": not supported for dtype ", ::tc::dtype_name(dtype))); \
  }()
// Float32 and float64 only (the compute dtypes on the CPU).
#define TC_DISPATCH_FLOATING(dtype, what, ...)                                                               \
  [&] {                                                                                                      \
    switch (dtype) {                                                                                         \
      TC_DISPATCH_CASE_(f32, float, __VA_ARGS__)                                                             \
      TC_DISPATCH_CASE_(f64, double, __VA_ARGS__)                                                            \
      default:                                                                                               \
        break;                                                                                               \
    }                                                                                                        \
    ::tc::fail(TC_ERR_DTYPE,                                                                                 \
               ::tc::str(what, ": expected a float32 or float64 tensor but got ", ::tc::dtype_name(dtype))); \
  }()
// Float32, float64 and the integer types (no bool, no 16-bit floats).
#define TC_DISPATCH_NUMERIC(dtype, what, ...)                                                \
  [&] {                                                                                      \
    switch (dtype) {                                                                         \
      TC_DISPATCH_CASE_(f32, float, __VA_ARGS__)                                             \
      TC_DISPATCH_CASE_(f64, double, __VA_ARGS__)                                            \
      TC_DISPATCH_CASE_(i8, int8_t, __VA_ARGS__)                                             \
      TC_DISPATCH_CASE_(i16, int16_t, __VA_ARGS__)                                           \
      TC_DISPATCH_CASE_(i32, int32_t, __VA_ARGS__)                                           \
      TC_DISPATCH_CASE_(i64, int64_t, __VA_ARGS__)                                           \
      TC_DISPATCH_CASE_(u8, uint8_t, __VA_ARGS__)                                            \
      default:                                                                               \
        break;                                                                               \
    }                                                                                        \
    ::tc::fail(TC_ERR_DTYPE, ::tc::str(what, ": dtype ", ::tc::dtype_name(dtype),            \
                                       " is not supported (expected float32, float64 or an " \
                                       "integer dtype)"));                                   \
  }()
