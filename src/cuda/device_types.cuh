// One device-type mapping for every CUDA kernel file: a dtype's elements are
// its host scalar type (tc::Half and tc::BFloat16 stored as bits), and each
// computes in math/elementwise_math.h's ew::compute_t (float for the 16-bit
// floats), read and written through ew::load/ew::store, the CPU tests' code.
// The dispatchers call f(T()) with the element type T of a dtype.
#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "core/error.h"
#include "math/compute_math.h"

namespace tc::cuda {

using ew::compute_t;

// An element's value in its compute type, and a compute value stored as T.
template <typename T>
__host__ __device__ inline compute_t<T> to_compute(T v) {
  return ew::load(&v);
}
template <typename T, typename C>
__host__ __device__ inline T from_compute(C v) {
  T r;
  ew::store(&r, compute_t<T>(v));
  return r;
}

[[noreturn]] inline void bad_dtype(const char* what, DType d) {
  fail(TC_ERR_DTYPE, str(what, ": dtype ", dtype_name(d), " is not supported on CUDA"));
}

template <typename F>
void dispatch_float(DType d, const char* what, F&& f) {
  switch (d) {
    case DType::f32:
      return f(float{});
    case DType::f64:
      return f(double{});
    case DType::f16:
      return f(Half{});
    case DType::bf16:
      return f(BFloat16{});
    default:
      bad_dtype(what, d);
  }
}
template <typename F>
void dispatch_int(DType d, const char* what, F&& f) {
  switch (d) {
    case DType::i8:
      return f(int8_t{});
    case DType::i16:
      return f(int16_t{});
    case DType::i32:
      return f(int32_t{});
    case DType::i64:
      return f(int64_t{});
    case DType::u8:
      return f(uint8_t{});
    default:
      bad_dtype(what, d);
  }
}
template <typename F>
void dispatch_all(DType d, const char* what, F&& f) {
  if (is_floating(d)) return dispatch_float(d, what, f);
  if (d == DType::b8) return f(bool{});
  dispatch_int(d, what, f);
}
// Calls f(U()) with U an unsigned type of the element size (copies move bits).
template <typename F>
void dispatch_bits(int64_t size, F&& f) {
  switch (size) {
    case 1:
      return f(uint8_t());
    case 2:
      return f(uint16_t());
    case 4:
      return f(uint32_t());
    case 8:
      return f(uint64_t());
  }
  fail(TC_ERR_INTERNAL, str("cuda: no element type of ", size, " bytes"));
}

}  // namespace tc::cuda
