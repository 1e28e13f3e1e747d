// torch.fft on FFTW 3 (TC_WITH_FFTW=ON; see cpu/fft_fftw.h). One single-row
// plan per (kind, length, direction, alignment), float (fftwf_) and double
// (fftw_), cached for the process. FFTW's planner is not thread-safe: plans
// are made under one lock. Executing a plan on new arrays (fftw_execute_dft
// and friends) is thread-safe, so the rows of a batch run in parallel, each
// with the cached plan. Plans are made with FFTW_ESTIMATE (no timing runs:
// planning stays fast and never touches the caller's data).
#include "cpu/fft_fftw.h"

#include <fftw3.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>

#include "core/parallel_for.h"

namespace tc::cpu {

namespace {

// The FFTW API of one precision.
template <typename R>
struct Fftw;

template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static void* malloc(size_t bytes) { return fftwf_malloc(bytes); }
  static void free(void* p) { fftwf_free(p); }
  static int alignment_of(const float* p) { return fftwf_alignment_of(const_cast<float*>(p)); }
  static Plan c2c(int n, Complex* i, Complex* o, int sign, unsigned f) {
    return fftwf_plan_dft_1d(n, i, o, sign, f);
  }
  static Plan r2c(int n, float* i, Complex* o, unsigned f) { return fftwf_plan_dft_r2c_1d(n, i, o, f); }
  static Plan c2r(int n, Complex* i, float* o, unsigned f) { return fftwf_plan_dft_c2r_1d(n, i, o, f); }
  static void exec_c2c(Plan p, Complex* i, Complex* o) { fftwf_execute_dft(p, i, o); }
  static void exec_r2c(Plan p, float* i, Complex* o) { fftwf_execute_dft_r2c(p, i, o); }
  static void exec_c2r(Plan p, Complex* i, float* o) { fftwf_execute_dft_c2r(p, i, o); }
};

template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static void* malloc(size_t bytes) { return fftw_malloc(bytes); }
  static void free(void* p) { fftw_free(p); }
  static int alignment_of(const double* p) { return fftw_alignment_of(const_cast<double*>(p)); }
  static Plan c2c(int n, Complex* i, Complex* o, int sign, unsigned f) {
    return fftw_plan_dft_1d(n, i, o, sign, f);
  }
  static Plan r2c(int n, double* i, Complex* o, unsigned f) { return fftw_plan_dft_r2c_1d(n, i, o, f); }
  static Plan c2r(int n, Complex* i, double* o, unsigned f) { return fftw_plan_dft_c2r_1d(n, i, o, f); }
  static void exec_c2c(Plan p, Complex* i, Complex* o) { fftw_execute_dft(p, i, o); }
  static void exec_r2c(Plan p, double* i, Complex* o) { fftw_execute_dft_r2c(p, i, o); }
  static void exec_c2r(Plan p, Complex* i, double* o) { fftw_execute_dft_c2r(p, i, o); }
};

// FFTW's planner (and its malloc'ed planning arrays) under one lock, for both precisions.
std::mutex& planner_mutex() {
  static std::mutex mu;
  return mu;
}

// The cached plan of (kind, n, inverse, aligned): never destroyed (plans live as long as the process).
template <typename R>
typename Fftw<R>::Plan plan_for(FftKind kind, int n, bool inverse, bool aligned) {
  using F = Fftw<R>;
  using Key = std::tuple<int, int, bool, bool>;
  static std::map<Key, typename F::Plan> cache;
  std::lock_guard<std::mutex> lock(planner_mutex());
  const Key key(int(kind), n, inverse, aligned);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  // Planning arrays from fftw_malloc (SIMD-aligned); FFTW_ESTIMATE leaves them untouched.
  const size_t bytes = sizeof(typename F::Complex) * size_t(n + 2);
  void* a = F::malloc(bytes);
  void* b = F::malloc(bytes);
  TC_CHECK(a != nullptr && b != nullptr, TC_ERR_OUT_OF_MEMORY, "fft: no memory for an FFTW plan of length ",
           n);
  unsigned flags = FFTW_ESTIMATE | (aligned ? 0u : unsigned(FFTW_UNALIGNED));
  typename F::Plan p = nullptr;
  auto* ca = static_cast<typename F::Complex*>(a);
  auto* cb = static_cast<typename F::Complex*>(b);
  switch (kind) {
    case FftKind::c2c:
      p = F::c2c(n, ca, cb, inverse ? FFTW_BACKWARD : FFTW_FORWARD, flags);
      break;
    case FftKind::r2c:
      p = F::r2c(n, static_cast<R*>(a), cb, flags);
      break;
    case FftKind::c2r:
      // A 1-D c2r plan may keep its input (FFTW destroys it by default).
      p = F::c2r(n, ca, static_cast<R*>(b), flags | FFTW_PRESERVE_INPUT);
      break;
  }
  F::free(a);
  F::free(b);
  TC_CHECK(p != nullptr, TC_ERR_INTERNAL, "fft: FFTW made no plan for length ", n);
  cache.emplace(key, p);
  return p;
}

template <typename R>
void run(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) {
  using F = Fftw<R>;
  const int64_t in_len = in->shape.back(), out_len = out->shape.back();
  const int n = int(kind == FftKind::c2r ? out_len : in_len);
  const int64_t batch = out->numel() / out_len;
  const int64_t in_values = kind == FftKind::r2c ? in_len : 2 * in_len;
  const int64_t out_values = kind == FftKind::c2r ? out_len : 2 * out_len;
  // The reals a row writes (r2c: n / 2 + 1 pairs, the rest of a two-sided row is the caller's).
  const int64_t written = kind == FftKind::c2r ? n : kind == FftKind::r2c ? 2 * (n / 2 + 1) : 2 * int64_t(n);
  // FFTW's input pointers are not const; c2r's plan preserves its input and the others never write it.
  R* src = const_cast<R*>(static_cast<const R*>(in->data()));
  R* dst = static_cast<R*>(out->data());
  // Every row shares the base's alignment only when the rows' strides keep it.
  const bool aligned =
      F::alignment_of(src) == 0 && F::alignment_of(dst) == 0 &&
      (batch == 1 || (F::alignment_of(src + in_values) == 0 && F::alignment_of(dst + out_values) == 0));
  typename F::Plan plan = plan_for<R>(kind, n, inverse, aligned);
  const R s = R(scale);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1));
  parallel_for(batch, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      R* i = src + r * in_values;
      R* o = dst + r * out_values;
      switch (kind) {
        case FftKind::c2c:
          F::exec_c2c(plan, reinterpret_cast<typename F::Complex*>(i),
                      reinterpret_cast<typename F::Complex*>(o));
          break;
        case FftKind::r2c:
          F::exec_r2c(plan, i, reinterpret_cast<typename F::Complex*>(o));
          break;
        case FftKind::c2r:
          F::exec_c2r(plan, reinterpret_cast<typename F::Complex*>(i), o);
          break;
      }
      if (s != R(1)) {
        for (int64_t k = 0; k < written; ++k) o[k] *= s;
      }
    }
  });
}

}  // namespace

void fftw_transform(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) {
  if (complex_part_dtype(in->dtype) == DType::f64) {
    run<double>(kind, out, in, inverse, scale);
  } else {
    run<float>(kind, out, in, inverse, scale);
  }
}

}  // namespace tc::cpu
