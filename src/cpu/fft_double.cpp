#include "cpu/fft_double.h"

#include <cmath>
#include <utility>

namespace tc::cpu {

namespace {

bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// exp(sign 2 pi i k / n) for k < n / 2.
std::vector<std::complex<double>> make_twiddles(int64_t n, double sign) {
  std::vector<std::complex<double>> w(size_t(std::max<int64_t>(n / 2, 1)));
  for (int64_t k = 0; k < n / 2; ++k) {
    const double a = sign * 2.0 * M_PI * double(k) / double(n);
    w[size_t(k)] = {std::cos(a), std::sin(a)};
  }
  return w;
}

// In place, a power-of-2 length n with its twiddles.
void radix2(std::complex<double>* a, int64_t n, const std::complex<double>* tw) {
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t half = len / 2, step = n / len;
    for (int64_t i = 0; i < n; i += len) {
      for (int64_t k = 0; k < half; ++k) {
        const std::complex<double> u = a[i + k], v = a[i + k + half] * tw[k * step];
        a[i + k] = u + v;
        a[i + k + half] = u - v;
      }
    }
  }
}

}  // namespace

DoubleFft::DoubleFft(int64_t n, bool inverse) : n_(n) {
  const double sign = inverse ? 1.0 : -1.0;
  if (is_pow2(n)) {
    twiddles_ = make_twiddles(n, sign);
    return;
  }
  m_ = 1;
  while (m_ < 2 * n - 1) m_ <<= 1;
  twiddles_ = make_twiddles(m_, -1.0);
  itwiddles_ = make_twiddles(m_, 1.0);
  chirp_.resize(size_t(n));
  for (int64_t k = 0; k < n; ++k) {
    // k^2 mod 2n keeps the angle's argument small (exact in double).
    const int64_t k2 = int64_t((__int128(k) * k) % (2 * n));
    const double a = sign * M_PI * double(k2) / double(n);
    chirp_[size_t(k)] = {std::cos(a), std::sin(a)};
  }
  filter_.assign(size_t(m_), cd(0, 0));
  filter_[0] = std::conj(chirp_[0]);
  for (int64_t k = 1; k < n; ++k) filter_[size_t(k)] = filter_[size_t(m_ - k)] = std::conj(chirp_[size_t(k)]);
  radix2(filter_.data(), m_, twiddles_.data());
}

void DoubleFft::run(const cd* in, cd* out, cd* work) const {
  if (m_ == 0) {
    for (int64_t i = 0; i < n_; ++i) out[i] = in[i];
    radix2(out, n_, twiddles_.data());
    return;
  }
  // X_k = c_k sum_j (x_j c_j) conj(c_{k-j}): a circular convolution of length m.
  for (int64_t j = 0; j < n_; ++j) work[j] = in[j] * chirp_[size_t(j)];
  for (int64_t j = n_; j < m_; ++j) work[j] = cd(0, 0);
  radix2(work, m_, twiddles_.data());
  for (int64_t j = 0; j < m_; ++j) work[j] *= filter_[size_t(j)];
  radix2(work, m_, itwiddles_.data());
  const double inv_m = 1.0 / double(m_);
  for (int64_t k = 0; k < n_; ++k) out[k] = work[k] * chirp_[size_t(k)] * inv_m;
}

}  // namespace tc::cpu
