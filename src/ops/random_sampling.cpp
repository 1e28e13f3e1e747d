// Integer and Bernoulli sampling from the default generator (rng.h):
// randint, randperm and bernoulli. randint and randperm draw 64-bit Philox
// words on the host (deterministic under tc_manual_seed, independent of the
// thread count) and move the result to the device, as PyTorch's CPU
// generator does; bernoulli compares uniform samples (filled on the tensor's
// own device) with the probabilities.
#include <cmath>
#include <limits>

#include "core/init.h"
#include "core/parallel_for.h"
#include "core/rng.h"
#include "math/rows/compare_lt.h"
#include "ops/internal.h"

namespace tc::ops {

using namespace detail;

namespace {

// 64 random bits for element i of a request that reserved counters from `st`
// (each counter gives 128 bits: two elements).
inline uint64_t random_word(const PhiloxState& st, int64_t i) {
  uint32_t r[4];
  philox4x32(st.seed, st.offset + uint64_t(i / 2), r);
  const int k = int(i % 2) * 2;
  return (uint64_t(r[k]) << 32) | r[k + 1];
}

// [lo, hi] of the values dtype holds exactly (integers up to 2^53 for doubles).
void dtype_range(DType d, double& lo, double& hi) {
  switch (d) {
    case DType::b8:
      lo = 0, hi = 1;
      return;
    case DType::u8:
      lo = 0, hi = 255;
      return;
    case DType::i8:
      lo = -128, hi = 127;
      return;
    case DType::i16:
      lo = -32768, hi = 32767;
      return;
    case DType::i32:
      lo = -2147483648.0, hi = 2147483647.0;
      return;
    case DType::i64:
      lo = -9223372036854775808.0, hi = 9223372036854775807.0;
      return;
    case DType::f16:
      lo = -2048, hi = 2048;
      return;
    case DType::bf16:
      lo = -256, hi = 256;
      return;
    case DType::f32:
      lo = -16777216.0, hi = 16777216.0;
      return;
    default:
      lo = -9007199254740992.0, hi = 9007199254740992.0;
      return;
  }
}

Tensor moved_to(Tensor t, DType dtype, Device device) {
  Tensor c = tc::cast(t, dtype);
  return device == kCPU ? c : tc::to_device(c, device);
}

}  // namespace

Tensor randint(int64_t low, int64_t high, const Dims& shape, DType dtype, Device device) {
  const char* op = "randint";
  TC_CHECK(low < high, TC_ERR_INVALID_ARGUMENT, op, ": expected low < high, but got low=", low,
           " high=", high);
  double lo = 0, hi = 0;
  dtype_range(dtype, lo, hi);
  TC_CHECK(double(low) >= lo && double(high - 1) <= hi, TC_ERR_INVALID_ARGUMENT, op, ": [", low, ", ", high,
           ") is out of bounds for ", dtype_name(dtype));
  const int64_t n = checked_numel(shape, "shape");
  Tensor out = empty(shape, DType::i64);
  if (n > 0) {
    // The range as unsigned (high - low may pass INT64_MAX); modulo of 64
    // random bits, as PyTorch's random_(from, to) does.
    const uint64_t range = uint64_t(high) - uint64_t(low);
    const PhiloxState st = rng_reserve(uint64_t((n + 1) / 2));
    int64_t* p = out->data_as<int64_t>();
    // Element i from counter word i alone: the same values at any thread count.
    parallel_for(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) p[i] = int64_t(uint64_t(low) + random_word(st, i) % range);
    });
  }
  return moved_to(out, dtype, device);
}

Tensor randperm(int64_t n, DType dtype, Device device) {
  const char* op = "randperm";
  TC_CHECK(n >= 0, TC_ERR_INVALID_ARGUMENT, op, ": n must be non-negative, got ", n);
  double lo = 0, hi = 0;
  dtype_range(dtype, lo, hi);
  TC_CHECK(dtype != DType::b8 || n <= 2, TC_ERR_INVALID_ARGUMENT, op, ": n (", n, ") is too large for bool");
  TC_CHECK(n == 0 || double(n - 1) <= hi, TC_ERR_INVALID_ARGUMENT, op, ": n (", n,
           ") is too large for the result dtype ", dtype_name(dtype));
  Tensor out = empty({n}, DType::i64);
  if (n > 0) {
    // Fisher-Yates from the last position down (sequential: each swap depends
    // on the ones before), with the random words drawn up front.
    const PhiloxState st = rng_reserve(uint64_t((n + 1) / 2));
    int64_t* p = out->data_as<int64_t>();
    for (int64_t i = 0; i < n; ++i) p[i] = i;
    for (int64_t i = n - 1; i > 0; --i) {
      const int64_t j = int64_t(random_word(st, i) % uint64_t(i + 1));
      std::swap(p[i], p[j]);
    }
  }
  return moved_to(out, dtype, device);
}

Tensor bernoulli(const Tensor& probs) {
  const char* op = "bernoulli";
  TC_CHECK(is_floating(probs->dtype), TC_ERR_DTYPE, op, ": probs must be a floating tensor but is ",
           describe(probs));
  if (probs->numel() > 0) {
    NoGradGuard ng;
    const double lo = read_element(min_all(probs), 0), hi = read_element(max_all(probs), 0);
    TC_CHECK(lo >= 0 && hi <= 1, TC_ERR_INVALID_ARGUMENT, op,
             ": expected all probabilities in [0, 1], but got ", "values in [", lo, ", ", hi, "]");
  }
  NoGradGuard ng;
  Tensor u = empty(probs->shape, DType::f64, probs->device);
  fill_uniform(u, 0.0, 1.0);
  // u < p is 1 with probability p (u in [0, 1): p = 0 never, p = 1 always).
  return tc::cast(binary(row::lt, u, probs), probs->dtype);
}

Tensor bernoulli(const Tensor& a, double p) {
  const char* op = "bernoulli";
  TC_CHECK(p >= 0 && p <= 1, TC_ERR_INVALID_ARGUMENT, op, ": expected 0 <= p <= 1, but got p=", p);
  TC_CHECK(a->dtype != DType::f16 && a->dtype != DType::bf16 ? true : a->device != kCPU, TC_ERR_DTYPE, op,
           ": a is ", dtype_name(a->dtype), ", which the CPU only converts");
  Tensor out = empty(a->shape, a->dtype, a->device);
  if (out->numel() == 0) return out;
  if (is_floating(a->dtype)) {
    fill_bernoulli(out, p);
  } else {
    Tensor f = empty(a->shape, DType::f32, a->device);
    fill_bernoulli(f, p);
    copy_into(out, f);
  }
  return out;
}

}  // namespace tc::ops
