// The CPU's discrete Fourier transforms (Backend::fft): float32 through
// kissfft (Debian's libkissfft-dev, BSD; its library is built for float
// only), float64 through DoubleFft (cpu/fft_double.h). Plans are cached per
// (length, direction): the read-only ones (kiss_fft's, DoubleFft) shared
// between threads under a lock, kiss_fftr's (whose state holds a scratch
// buffer) per thread. Rows of the batch run in parallel (OpenMP).
#include <kiss_fft.h>
#include <kiss_fftr.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/parallel_for.h"
#include "cpu/cpu_backend.h"
#include "cpu/fft_double.h"

namespace tc::cpu {

namespace {

using cf = std::complex<float>;
using cd = std::complex<double>;
using Key = std::pair<int64_t, bool>;  // (length, inverse)

struct KissPlan {
  kiss_fft_cfg cfg = nullptr;
  KissPlan(int64_t n, bool inverse) : cfg(kiss_fft_alloc(int(n), inverse ? 1 : 0, nullptr, nullptr)) {
    TC_CHECK(cfg != nullptr, TC_ERR_OUT_OF_MEMORY, "fft: no memory for a kissfft plan of length ", n);
  }
  ~KissPlan() { kiss_fft_free(cfg); }
  KissPlan(const KissPlan&) = delete;
  KissPlan& operator=(const KissPlan&) = delete;
};

struct KissRealPlan {
  kiss_fftr_cfg cfg = nullptr;
  KissRealPlan(int64_t n, bool inverse) : cfg(kiss_fftr_alloc(int(n), inverse ? 1 : 0, nullptr, nullptr)) {
    TC_CHECK(cfg != nullptr, TC_ERR_OUT_OF_MEMORY, "fft: no memory for a kissfft real plan of length ", n);
  }
  ~KissRealPlan() { kiss_fftr_free(cfg); }
  KissRealPlan(const KissRealPlan&) = delete;
  KissRealPlan& operator=(const KissRealPlan&) = delete;
};

// The shared plan of (n, inverse), made on first use.
template <typename Plan>
std::shared_ptr<const Plan> shared_plan(int64_t n, bool inverse) {
  static std::mutex mu;
  static std::map<Key, std::shared_ptr<const Plan>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[Key(n, inverse)];
  if (!slot) slot = std::make_shared<const Plan>(n, inverse);
  return slot;
}

// kiss_fftr writes a scratch buffer inside its plan: one per thread.
kiss_fftr_cfg thread_real_plan(int64_t n, bool inverse) {
  thread_local std::map<Key, std::unique_ptr<KissRealPlan>> cache;
  auto& slot = cache[Key(n, inverse)];
  if (!slot) slot = std::make_unique<KissRealPlan>(n, inverse);
  return slot->cfg;
}

// One complex DFT of length n with its plan: in -> out (no aliasing).
void c2c_row(const KissPlan& plan, const cf* in, cf* out, std::vector<cd>&) {
  kiss_fft(plan.cfg, reinterpret_cast<const kiss_fft_cpx*>(in), reinterpret_cast<kiss_fft_cpx*>(out));
}
void c2c_row(const DoubleFft& plan, const cd* in, cd* out, std::vector<cd>& work) {
  work.resize(size_t(plan.work_size()));
  plan.run(in, out, work.data());
}

// The rows of one thread's share of a batch: plans fetched once, scratch kept.
template <typename R>
struct Rows {
  using C = std::complex<R>;
  using Plan = std::conditional_t<std::is_same_v<R, float>, KissPlan, DoubleFft>;
  int64_t n;  // the signal length
  bool inverse;
  std::shared_ptr<const Plan> plans[2];  // forward, inverse
  std::vector<C> a, b;                   // scratch of length n
  std::vector<cd> work;

  Rows(int64_t length, bool inv) : n(length), inverse(inv) {}

  const Plan& plan(bool inv) {
    auto& p = plans[inv ? 1 : 0];
    if (!p) p = shared_plan<Plan>(n, inv);
    return *p;
  }

  void c2c(const C* in, C* out) { c2c_row(plan(inverse), in, out, work); }

  // The first n/2 + 1 outputs of the forward DFT of a real row.
  void r2c(const R* in, C* out) {
    if constexpr (std::is_same_v<R, float>) {
      if (n % 2 == 0) {
        kiss_fftr(thread_real_plan(n, false), in, reinterpret_cast<kiss_fft_cpx*>(out));
        return;
      }
    }
    a.resize(size_t(n));
    b.resize(size_t(n));
    for (int64_t j = 0; j < n; ++j) a[size_t(j)] = C(in[j], 0);
    c2c_row(plan(false), a.data(), b.data(), work);
    for (int64_t k = 0; k <= n / 2; ++k) out[k] = b[size_t(k)];
  }

  // The real inverse DFT (unnormalized) of the Hermitian signal whose first n/2 + 1 entries are in.
  void c2r(const C* in, R* out) {
    if constexpr (std::is_same_v<R, float>) {
      if (n % 2 == 0) {
        kiss_fftri(thread_real_plan(n, true), reinterpret_cast<const kiss_fft_cpx*>(in), out);
        return;
      }
    }
    a.resize(size_t(n));
    b.resize(size_t(n));
    for (int64_t k = 0; k <= n / 2; ++k) a[size_t(k)] = in[k];
    for (int64_t k = n / 2 + 1; k < n; ++k) a[size_t(k)] = std::conj(in[n - k]);
    c2c_row(plan(true), a.data(), b.data(), work);
    for (int64_t j = 0; j < n; ++j) out[j] = b[size_t(j)].real();
  }
};

template <typename R>
void run(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) {
  using C = std::complex<R>;
  const int64_t in_len = in->shape.back(), out_len = out->shape.back();
  const int64_t n = kind == FftKind::c2r ? out_len : in_len;
  const int64_t batch = out->numel() / out_len;
  // The values a row writes: complex pairs count as two.
  const int64_t out_values = kind == FftKind::c2r ? out_len : 2 * out_len;
  const R s = R(scale);
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1));
  parallel_for(batch, grain, [&](int64_t lo, int64_t hi) {
    Rows<R> rows(n, inverse);
    for (int64_t r = lo; r < hi; ++r) {
      R* o = static_cast<R*>(out->data()) + r * out_values;
      switch (kind) {
        case FftKind::c2c:
          rows.c2c(static_cast<const C*>(in->data()) + r * in_len, reinterpret_cast<C*>(o));
          break;
        case FftKind::r2c:
          rows.r2c(static_cast<const R*>(in->data()) + r * in_len, reinterpret_cast<C*>(o));
          break;
        case FftKind::c2r:
          rows.c2r(static_cast<const C*>(in->data()) + r * in_len, o);
          break;
      }
      if (s != R(1)) {
        for (int64_t i = 0; i < out_values; ++i) o[i] *= s;
      }
    }
  });
}

}  // namespace

void CpuBackend::fft(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) const {
  TC_CHECK(in->is_contiguous() && out->is_contiguous() && in->ndim() > 0 && out->ndim() > 0, TC_ERR_INTERNAL,
           "fft: the backend takes contiguous tensors of at least one dim");
  if (out->numel() == 0) return;
  const int64_t n = kind == FftKind::c2r ? out->shape.back() : in->shape.back();
  TC_CHECK(n <= INT_MAX, TC_ERR_INVALID_ARGUMENT, "fft: a transform of length ", n,
           " is longer than the CPU's FFTs take (2^31 - 1)");
  const DType part = complex_part_dtype(in->dtype);
  if (part == DType::f64) {
    run<double>(kind, out, in, inverse, scale);
  } else {
    TC_CHECK(part == DType::f32, TC_ERR_DTYPE,
             "fft: expected float32/complex64 or float64/complex128 data but got ", dtype_name(in->dtype));
    run<float>(kind, out, in, inverse, scale);
  }
}

}  // namespace tc::cpu
