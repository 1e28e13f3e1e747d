// The plans of libtc's CPU FFT (cpu/fft_plan.h): factorization, twiddles,
// Bluestein's chirp-z, the process-wide plan cache, and the pass driver.
#include "cpu/fft_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <utility>

#include "core/parallel_for.h"

namespace tc::cpu {

// The butterfly passes, for baseline x86-64 and (when the compiler targets
// less) again for AVX2 with FMA, chosen per plan from CPUID.
namespace fft_base {
#include "cpu/fft_kernels.inc"
}  // namespace fft_base
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__AVX2__)
#define TC_FFT_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace isa_avx2_fft {
#include "cpu/fft_kernels.inc"
}  // namespace isa_avx2_fft
#pragma GCC pop_options
#endif

namespace {

// Odd primes above this go through Bluestein: a direct p-point DFT costs
// O(p) per value, a chirp-z convolution about 3 FFTs of twice the length.
constexpr int64_t kMaxDirectRadix = 61;

// Values per thread below which a pass is not split further.
constexpr int64_t kPassGrain = 8192;

bool use_avx2() {
#ifdef TC_FFT_AVX2
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
#else
  return false;
#endif
}

template <typename R>
auto pass_function() {
#ifdef TC_FFT_AVX2
  if (use_avx2()) {
    if constexpr (std::is_same_v<R, float>)
      return &isa_avx2_fft::run_pass_f;
    else
      return &isa_avx2_fft::run_pass_d;
  }
#endif
  if constexpr (std::is_same_v<R, float>)
    return &fft_base::run_pass_f;
  else
    return &fft_base::run_pass_d;
}

// exp(-2 pi i k / n) in double, the argument reduced to [0, n) first.
std::pair<double, double> root(int64_t k, int64_t n) {
  k %= n;
  if (k < 0) k += n;
  const double a = 2.0 * M_PI * double(k) / double(n);
  return {std::cos(a), -std::sin(a)};
}

// The radices of n, in pass order; empty when n has a prime factor above kMaxDirectRadix.
std::vector<int> factorize(int64_t n) {
  std::vector<int> f;
  while (n % 4 == 0) {
    f.push_back(4);
    n /= 4;
  }
  if (n % 2 == 0) {
    f.push_back(2);
    n /= 2;
  }
  for (int p = 3; n > 1; p += 2) {
    if (p > kMaxDirectRadix) return {};
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  }
  return f;
}

// The smallest 2^a 3^b 5^c >= n.
int64_t smooth_at_least(int64_t n) {
  int64_t best = INT64_MAX;
  for (int64_t a = 1; a < 2 * n; a *= 2) {
    for (int64_t b = a; b < 2 * n; b *= 3) {
      for (int64_t c = b; c < 2 * n; c *= 5) {
        if (c >= n) {
          best = std::min(best, c);
          break;
        }
      }
    }
  }
  return best;
}

}  // namespace

template <typename R>
FftPlan<R>::FftPlan(int64_t n) : n_(n), pass_(pass_function<R>()) {
  const std::vector<int> radices = n > 1 ? factorize(n) : std::vector<int>{};
  if (n > 1 && radices.empty()) {
    // Bluestein: X_k = c_k sum_j (x_j c_j) conj(c_{k-j}), c_k = exp(-pi i k^2 / n),
    // a circular convolution of length m_ >= 2n - 1 through FFTs of that length.
    m_ = smooth_at_least(2 * n - 1);
    sub_ = fft_plan<R>(m_);
    chirpr_.resize(size_t(n));
    chirpi_.resize(size_t(n));
    std::vector<double> br(size_t(m_), 0.0), bi(size_t(m_), 0.0);
    for (int64_t k = 0; k < n; ++k) {
      // k^2 mod 2n keeps the angle small and exact (k < 2^31).
      const int64_t k2 = (k * k) % (2 * n);
      const double a = M_PI * double(k2) / double(n);
      const double c = std::cos(a), s = -std::sin(a);
      chirpr_[size_t(k)] = R(c);
      chirpi_[size_t(k)] = R(s);
      br[size_t(k)] = c;
      bi[size_t(k)] = -s;
      if (k > 0) {
        br[size_t(m_ - k)] = c;
        bi[size_t(m_ - k)] = -s;
      }
    }
    // The filter's DFT in double (for both element types), divided by m_:
    // the inverse transform of the convolution is unnormalized.
    const FftPlan<double> dplan(m_);
    std::vector<double> fr(static_cast<size_t>(m_)), fi(static_cast<size_t>(m_));
    std::vector<double> work(static_cast<size_t>(dplan.work_reals()));
    dplan.run(br.data(), bi.data(), fr.data(), fi.data(), work.data(), false);
    filtr_.resize(size_t(m_));
    filti_.resize(size_t(m_));
    for (int64_t k = 0; k < m_; ++k) {
      filtr_[size_t(k)] = R(fr[size_t(k)] / double(m_));
      filti_[size_t(k)] = R(fi[size_t(k)] / double(m_));
    }
    return;
  }
  int64_t s = 1;
  for (int p : radices) {
    FftStage<R> st;
    st.p = p;
    st.s = s;
    st.m = n / (s * p);
    const int64_t len = p * st.m;
    st.twr.resize(size_t((p - 1) * st.m));
    st.twi.resize(size_t((p - 1) * st.m));
    for (int r = 1; r < p; ++r) {
      for (int64_t j = 0; j < st.m; ++j) {
        const auto w = root(int64_t(r) * j, len);
        st.twr[size_t((r - 1) * st.m + j)] = R(w.first);
        st.twi[size_t((r - 1) * st.m + j)] = R(w.second);
      }
    }
    if (p > 5) {
      st.rootr.resize(size_t(p));
      st.rooti.resize(size_t(p));
      for (int t = 0; t < p; ++t) {
        const auto w = root(t, p);
        st.rootr[size_t(t)] = R(w.first);
        st.rooti[size_t(t)] = R(w.second);
      }
    }
    stages_.push_back(std::move(st));
    s *= p;
  }
}

template <typename R>
int64_t FftPlan<R>::work_reals() const {
  return m_ > 0 ? 4 * (m_ + kFftGap<R>)+sub_->work_reals() : 2 * n_ + kFftGap<R>;
}

template <typename R>
void FftPlan<R>::run(const R* xr, const R* xi, R* yr, R* yi, R* work, bool parallel) const {
  if (m_ > 0) {
    run_bluestein(xr, xi, yr, yi, work, parallel);
  } else {
    run_stockham(xr, xi, yr, yi, work, parallel);
  }
}

template <typename R>
void FftPlan<R>::run_stockham(const R* xr, const R* xi, R* yr, R* yi, R* work, bool parallel) const {
  const size_t count = stages_.size();
  if (count == 0) {
    std::copy(xr, xr + n_, yr);
    std::copy(xi, xi + n_, yi);
    return;
  }
  if (!(parallel && n_ >= kFftParallelMin && num_threads() > 1)) return run_batch(xr, xi, yr, yi, work, 1);
  R* wr = work;
  R* wi = work + n_ + kFftGap<R>;
  const R* sr = xr;
  const R* si = xi;
  for (size_t i = 0; i < count; ++i) {
    // Ping-pong so that the last pass lands in y.
    const bool to_y = (count - 1 - i) % 2 == 0;
    R* dr = to_y ? yr : wr;
    R* di = to_y ? yi : wi;
    const FftStage<R>& st = stages_[i];
    if (st.m >= st.s) {
      parallel_for(st.m, std::max<int64_t>(1, kPassGrain / (st.s * st.p)),
                   [&](int64_t lo, int64_t hi) { pass_(st, 1, sr, si, dr, di, lo, hi, 0, st.s); });
    } else {
      parallel_for(st.s, std::max<int64_t>(1, kPassGrain / (st.m * st.p)),
                   [&](int64_t lo, int64_t hi) { pass_(st, 1, sr, si, dr, di, 0, st.m, lo, hi); });
    }
    sr = dr;
    si = di;
  }
}

template <typename R>
void FftPlan<R>::run_batch(const R* xr, const R* xi, R* yr, R* yi, R* work, int64_t batch) const {
  const size_t count = stages_.size();
  const int64_t total = n_ * batch;
  if (count == 0) {
    std::copy(xr, xr + total, yr);
    std::copy(xi, xi + total, yi);
    return;
  }
  R* wr = work;
  R* wi = work + total + kFftGap<R>;
  const R* sr = xr;
  const R* si = xi;
  for (size_t i = 0; i < count; ++i) {
    const bool to_y = (count - 1 - i) % 2 == 0;
    R* dr = to_y ? yr : wr;
    R* di = to_y ? yi : wi;
    const FftStage<R>& st = stages_[i];
    pass_(st, batch, sr, si, dr, di, 0, st.m, 0, st.s * batch);
    sr = dr;
    si = di;
  }
}

template <typename R>
void FftPlan<R>::run_bluestein(const R* xr, const R* xi, R* yr, R* yi, R* work, bool parallel) const {
  const int64_t n = n_, m = m_;
  const int64_t stride = m + kFftGap<R>;
  R* ar = work;
  R* ai = work + stride;
  R* br = work + 2 * stride;
  R* bi = work + 3 * stride;
  R* sub_work = work + 4 * stride;
  const R* cr = chirpr_.data();
  const R* ci = chirpi_.data();
  for (int64_t j = 0; j < n; ++j) {
    ar[j] = xr[j] * cr[j] - xi[j] * ci[j];
    ai[j] = xr[j] * ci[j] + xi[j] * cr[j];
  }
  std::fill(ar + n, ar + m, R(0));
  std::fill(ai + n, ai + m, R(0));
  sub_->run(ar, ai, br, bi, sub_work, parallel);
  const R* fr = filtr_.data();
  const R* fi = filti_.data();
  for (int64_t k = 0; k < m; ++k) {
    const R u = br[k], v = bi[k];
    br[k] = u * fr[k] - v * fi[k];
    bi[k] = u * fi[k] + v * fr[k];
  }
  sub_->run(bi, br, ai, ar, sub_work, parallel);  // the inverse: real and imaginary swapped
  for (int64_t k = 0; k < n; ++k) {
    const R u = ar[k], v = ai[k];
    yr[k] = u * cr[k] - v * ci[k];
    yi[k] = u * ci[k] + v * cr[k];
  }
}

template <typename R>
RealTwiddles<R>::RealTwiddles(int64_t n) : wr(size_t(n / 2 + 1)), wi(size_t(n / 2 + 1)) {
  for (int64_t k = 0; k <= n / 2; ++k) {
    const auto w = root(k, n);
    wr[size_t(k)] = R(w.first);
    wi[size_t(k)] = R(w.second);
  }
}

namespace {

// The process-wide cache of T(n). The lock is not held while a plan is made:
// a Bluestein plan asks the cache for its convolution's plan.
template <typename T>
std::shared_ptr<const T> cached(int64_t n) {
  static std::mutex mu;
  static std::map<int64_t, std::shared_ptr<const T>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(n);
    if (it != cache.end()) return it->second;
  }
  auto made = std::make_shared<const T>(n);
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[n];
  if (!slot) slot = std::move(made);  // another thread may have made it meanwhile
  return slot;
}

}  // namespace

template <typename R>
std::shared_ptr<const FftPlan<R>> fft_plan(int64_t n) {
  return cached<FftPlan<R>>(n);
}

template <typename R>
std::shared_ptr<const RealTwiddles<R>> fft_real_twiddles(int64_t n) {
  return cached<RealTwiddles<R>>(n);
}

template class FftPlan<float>;
template class FftPlan<double>;
template struct RealTwiddles<float>;
template struct RealTwiddles<double>;
template std::shared_ptr<const FftPlan<float>> fft_plan<float>(int64_t);
template std::shared_ptr<const FftPlan<double>> fft_plan<double>(int64_t);
template std::shared_ptr<const RealTwiddles<float>> fft_real_twiddles<float>(int64_t);
template std::shared_ptr<const RealTwiddles<double>> fft_real_twiddles<double>(int64_t);

}  // namespace tc::cpu
