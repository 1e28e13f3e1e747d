#include "core/dtype.h"

#include <cmath>

namespace tc {

namespace {
struct DTypeInfo {
  const char* name;
  int64_t size;
};
constexpr DTypeInfo kInfo[TC_DTYPE_COUNT] = {
    {"float32", 4}, {"float64", 8}, {"float16", 2}, {"bfloat16", 2}, {"int8", 1},      {"int16", 2},
    {"int32", 4},   {"int64", 8},   {"uint8", 1},   {"bool", 1},     {"complex64", 8}, {"complex128", 16},
};
}  // namespace

bool dtype_valid(int32_t code) noexcept { return code >= 0 && code < TC_DTYPE_COUNT; }
const char* dtype_name(DType d) noexcept {
  return dtype_valid(int32_t(d)) ? kInfo[int32_t(d)].name : "unknown";
}
bool is_floating(DType d) noexcept { return is_floating_dtype_inline(d); }
bool is_integral(DType d) noexcept {
  return d == DType::i8 || d == DType::i16 || d == DType::i32 || d == DType::i64 || d == DType::u8;
}

DType to_dtype(int32_t code, const char* arg) {
  TC_CHECK(dtype_valid(code), TC_ERR_DTYPE, "unknown dtype code ", code, " for ", arg, " (expected 0..",
           TC_DTYPE_COUNT - 1, ", a TC_FLOAT32-style constant)");
  return DType(code);
}

DType promote_types(DType a, DType b) noexcept {
  if (a == b) return a;
  // Complex with anything: complex128 if either side carries a float64 (or
  // is complex128), else complex64 (PyTorch's table).
  if (is_complex(a) || is_complex(b)) {
    const bool wide = a == DType::c128 || b == DType::c128 || a == DType::f64 || b == DType::f64;
    return wide ? DType::c128 : DType::c64;
  }
  // PyTorch's promotion table, in code order f32 f64 f16 bf16 i8 i16 i32 i64 u8 b8.
  using D = DType;
  static const D table[10][10] = {
      /* f32 */ {D::f32, D::f64, D::f32, D::f32, D::f32, D::f32, D::f32, D::f32, D::f32, D::f32},
      /* f64 */ {D::f64, D::f64, D::f64, D::f64, D::f64, D::f64, D::f64, D::f64, D::f64, D::f64},
      /* f16 */ {D::f32, D::f64, D::f16, D::f32, D::f16, D::f16, D::f16, D::f16, D::f16, D::f16},
      /* bf16*/ {D::f32, D::f64, D::f32, D::bf16, D::bf16, D::bf16, D::bf16, D::bf16, D::bf16, D::bf16},
      /* i8  */ {D::f32, D::f64, D::f16, D::bf16, D::i8, D::i16, D::i32, D::i64, D::i16, D::i8},
      /* i16 */ {D::f32, D::f64, D::f16, D::bf16, D::i16, D::i16, D::i32, D::i64, D::i16, D::i16},
      /* i32 */ {D::f32, D::f64, D::f16, D::bf16, D::i32, D::i32, D::i32, D::i64, D::i32, D::i32},
      /* i64 */ {D::f32, D::f64, D::f16, D::bf16, D::i64, D::i64, D::i64, D::i64, D::i64, D::i64},
      /* u8  */ {D::f32, D::f64, D::f16, D::bf16, D::i16, D::i16, D::i32, D::i64, D::u8, D::u8},
      /* b8  */ {D::f32, D::f64, D::f16, D::bf16, D::i8, D::i16, D::i32, D::i64, D::u8, D::b8},
  };
  return table[int32_t(a)][int32_t(b)];
}

uint16_t Half::from_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7fffffffu;
  if (absx > 0x7f800000u) return uint16_t(sign | 0x7e00u);   // NaN
  if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow (incl. inf)
  if (absx < 0x38800000u) {
    // Subnormal half (or zero): let the FPU round by adding a magic number.
    float a;
    std::memcpy(&a, &absx, 4);
    a += 0.5f;  // 2^-1: aligns the half subnormal bits at the bottom of the mantissa
    uint32_t r;
    std::memcpy(&r, &a, 4);
    return uint16_t(sign | (r - 0x3f000000u));
  }
  // Normal: rebias the exponent and round the mantissa to nearest even.
  uint32_t mant_odd = (absx >> 13) & 1u;
  uint32_t v = absx + 0xc8000fffu + mant_odd;  // (-112 << 23) + rounding bias
  return uint16_t(sign | (v >> 13));
}

float Half::to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    float f = std::ldexp(float(mant), -24);
    std::memcpy(&bits, &f, 4);
    bits |= sign;
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

double checked_fill_value(const char* op, double value, DType dtype) {
  double lo = 0, hi = 0;  // the dtype's finite range
  switch (dtype) {
    case DType::b8:
      return value;
    case DType::f64:
    case DType::c128:
      return value;  // every double fits
    case DType::f32:
    case DType::c64:
      hi = 3.4028234663852886e38;
      break;
    case DType::f16:
      hi = 65504.0;
      break;
    case DType::bf16:
      hi = 3.3895313892515355e38;
      break;
    case DType::i8:
      lo = -128, hi = 127;
      break;
    case DType::i16:
      lo = -32768, hi = 32767;
      break;
    case DType::i32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    case DType::i64:
      lo = -9223372036854775808.0, hi = 9223372036854775807.0;  // hi rounds to 2^63: refused below
      break;
    case DType::u8:
      lo = 0, hi = 255;
      break;
  }
  bool ok;
  if (is_floating(dtype) || is_complex(dtype)) {
    lo = -hi;
    ok = std::isnan(value) || std::isinf(value) || (value >= lo && value <= hi);
  } else if (std::isnan(value) || std::isinf(value)) {
    ok = false;
  } else if (dtype == DType::u8 && value == std::trunc(value)) {
    ok = value >= -255 && value <= 255;  // a negative int wraps, as a Python int does in PyTorch
  } else {
    // 2^63 is a double but not an int64 (PyTorch's check lets it through and
    // stores -2^63; libtc refuses it).
    ok = value >= lo && (dtype == DType::i64 ? value < 9223372036854775808.0 : value <= hi);
  }
  TC_CHECK(ok, TC_ERR_INVALID_ARGUMENT, op, ": value ", value, " cannot be converted to type ",
           dtype_name(dtype), " without overflow");
  return dtype == DType::u8 && value < 0 ? value + 256 : value;
}

}  // namespace tc
