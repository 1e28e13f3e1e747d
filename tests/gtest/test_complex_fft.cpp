// The C ABI of complex tensors and of the FFTs: views over one storage,
// arithmetic, the refusal of functions that do not take complex tensors,
// known transforms, and gradients of the transforms against central finite
// differences in float64.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "tc.h"
#include "tc_binary_ops.h"
#include "tc_unary_ops.h"

namespace {

using cd = std::complex<double>;

struct Init {
  Init() { EXPECT_EQ(tc_init(nullptr), TC_OK); }
  ~Init() { tc_shutdown(); }
};

tc_tensor from(const std::vector<cd>& v) {
  tc_tensor t = nullptr;
  const int64_t n = int64_t(v.size());
  EXPECT_EQ(tc_from_data(v.data(), int64_t(v.size() * sizeof(cd)), &n, 1, TC_COMPLEX128, &t), TC_OK);
  return t;
}

tc_tensor from_real(const std::vector<double>& v) {
  tc_tensor t = nullptr;
  const int64_t n = int64_t(v.size());
  EXPECT_EQ(tc_from_data(v.data(), int64_t(v.size() * sizeof(double)), &n, 1, TC_FLOAT64, &t), TC_OK);
  return t;
}

template <typename T>
std::vector<T> values(tc_tensor t) {
  int64_t n = 0;
  EXPECT_EQ(tc_tensor_numel(t, &n), TC_OK);
  std::vector<T> out(static_cast<size_t>(n));
  tc_tensor c = nullptr;
  EXPECT_EQ(tc_contiguous(t, &c), TC_OK);
  EXPECT_EQ(tc_tensor_copy_to(c, out.data(), int64_t(out.size() * sizeof(T))), TC_OK);
  tc_tensor_free(c);
  return out;
}

// The naive DFT (exponent sign).
std::vector<cd> dft(const std::vector<cd>& x, double sign) {
  const size_t n = x.size();
  std::vector<cd> y(n);
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < n; ++j)
      y[k] += x[j] * std::polar(1.0, sign * 2 * M_PI * double(j * k % n) / double(n));
  return y;
}

std::vector<cd> signal(size_t n, int seed) {
  std::vector<cd> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = cd(std::sin(1.3 * double(i) + seed), std::cos(0.7 * double(i * i) - seed));
  return x;
}

TEST(ComplexAbi, ViewsShareOneStorage) {
  Init init;
  tc_tensor z = from({{1, 2}, {3, 4}});
  tc_tensor r = nullptr, back = nullptr, im = nullptr;
  ASSERT_EQ(tc_view_as_real(z, &r), TC_OK);
  int64_t shape[2] = {0, 0}, strides[2] = {0, 0};
  ASSERT_EQ(tc_tensor_shape(r, shape, 2), TC_OK);
  ASSERT_EQ(tc_tensor_strides(r, strides, 2), TC_OK);
  EXPECT_EQ(shape[0], 2);
  EXPECT_EQ(shape[1], 2);
  EXPECT_EQ(strides[0], 2);
  EXPECT_EQ(strides[1], 1);
  ASSERT_EQ(tc_view_as_complex(r, &back), TC_OK);
  ASSERT_EQ(tc_imag(z, &im), TC_OK);
  void *pz = nullptr, *pb = nullptr, *pi = nullptr;
  tc_tensor_data_ptr(z, &pz);
  tc_tensor_data_ptr(back, &pb);
  tc_tensor_data_ptr(im, &pi);
  EXPECT_EQ(pz, pb);
  EXPECT_EQ(static_cast<char*>(pi), static_cast<char*>(pz) + 8);
  EXPECT_EQ(values<double>(im), (std::vector<double>{2, 4}));
  for (tc_tensor t : {z, r, back, im}) tc_tensor_free(t);
}

TEST(ComplexAbi, ArithmeticAndAbs) {
  Init init;
  tc_tensor a = from({{1, 2}, {-3, 0.5}}), b = from({{0.5, -1}, {2, 2}});
  tc_tensor p = nullptr, q = nullptr, m = nullptr, s = nullptr;
  ASSERT_EQ(tc_mul(a, b, &p), TC_OK);
  ASSERT_EQ(tc_div(a, b, &q), TC_OK);
  ASSERT_EQ(tc_abs(a, &m), TC_OK);
  ASSERT_EQ(tc_sum(p, nullptr, 0, 0, &s), TC_OK);
  const auto pv = values<cd>(p), qv = values<cd>(q);
  EXPECT_NEAR(std::abs(pv[0] - cd(1, 2) * cd(0.5, -1)), 0, 1e-15);
  EXPECT_NEAR(std::abs(qv[1] - cd(-3, 0.5) / cd(2, 2)), 0, 1e-15);
  EXPECT_NEAR(values<double>(m)[1], std::abs(cd(-3, 0.5)), 1e-15);
  EXPECT_NEAR(std::abs(values<cd>(s)[0] - (pv[0] + pv[1])), 0, 1e-15);
  for (tc_tensor t : {a, b, p, q, m, s}) tc_tensor_free(t);
}

TEST(ComplexAbi, OtherFunctionsRefuseComplexByName) {
  Init init;
  tc_tensor z = from({{1, 1}}), out = nullptr;
  EXPECT_EQ(tc_exp(z, &out), TC_ERR_DTYPE);
  const char* msg = nullptr;
  ASSERT_EQ(tc_last_error(&msg), TC_OK);
  EXPECT_NE(std::strstr(msg, "tc_exp"), nullptr) << msg;
  EXPECT_EQ(tc_matmul(z, z, &out), TC_ERR_DTYPE);
  const int64_t three = 3;
  EXPECT_EQ(tc_randn(&three, 1, TC_COMPLEX64, TC_CPU, &out), TC_ERR_DTYPE);
  EXPECT_EQ(tc_arange(0, 3, 1, TC_COMPLEX64, TC_CPU, &out), TC_ERR_DTYPE);
  EXPECT_EQ(out, nullptr);
  tc_tensor_free(z);
}

TEST(FftAbi, MatchesTheNaiveDft) {
  Init init;
  for (size_t n : {1, 2, 5, 8, 12, 17, 64}) {
    const auto x = signal(n, int(n));
    tc_tensor t = from(x), f = nullptr, i = nullptr;
    ASSERT_EQ(tc_fft_c2c(t, 0, -1, TC_FFT_NORM_NONE, 1, &f), TC_OK);
    ASSERT_EQ(tc_fft_c2c(t, 0, -1, TC_FFT_NORM_N, 0, &i), TC_OK);
    const auto want_f = dft(x, -1), want_i = dft(x, 1);
    const auto got_f = values<cd>(f), got_i = values<cd>(i);
    for (size_t k = 0; k < n; ++k) {
      EXPECT_NEAR(std::abs(got_f[k] - want_f[k]), 0, 1e-12) << n << " " << k;
      EXPECT_NEAR(std::abs(got_i[k] - want_i[k] / double(n)), 0, 1e-12) << n << " " << k;
    }
    for (tc_tensor u : {t, f, i}) tc_tensor_free(u);
  }
}

TEST(FftAbi, RealTransformsRoundTripInFloat32AndFloat64) {
  Init init;
  for (int32_t dtype : {TC_FLOAT32, TC_FLOAT64}) {
    for (int64_t n : {6, 7, 16}) {
      std::vector<double> x(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) x[size_t(i)] = std::sin(0.9 * double(i)) + 0.1 * double(i);
      tc_tensor t = from_real(x), tt = nullptr, f = nullptr, back = nullptr, back64 = nullptr;
      ASSERT_EQ(tc_to_dtype(t, dtype, &tt), TC_OK);
      ASSERT_EQ(tc_fft_r2c(tt, 0, -1, TC_FFT_NORM_NONE, 1, &f), TC_OK);
      int64_t len = 0;
      tc_tensor_numel(f, &len);
      EXPECT_EQ(len, n / 2 + 1);
      ASSERT_EQ(tc_fft_c2r(f, 0, n, TC_FFT_NORM_N, &back), TC_OK);
      ASSERT_EQ(tc_to_dtype(back, TC_FLOAT64, &back64), TC_OK);
      const auto got = values<double>(back64);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_NEAR(got[size_t(i)], x[size_t(i)], dtype == TC_FLOAT32 ? 1e-5 : 1e-12);
      for (tc_tensor u : {t, tt, f, back, back64}) tc_tensor_free(u);
    }
  }
}

// The loss sum(w * view_as_real(fft(x))) (or sum(w * y) for a real result) through the ABI.
double fft_loss(int which, const std::vector<double>& x, const std::vector<double>& w, tc_tensor* grad) {
  tc_tensor t = from_real(x), in = nullptr, y = nullptr, r = nullptr, wt = from_real(w), prod = nullptr,
            s = nullptr;
  if (grad) {
    EXPECT_EQ(tc_tensor_set_requires_grad(t, 1), TC_OK);
  }
  const int64_t n = int64_t(x.size());
  if (which == 2) {  // c2r of a complex input made of x's pairs
    int64_t shape[2] = {n / 2, 2};
    tc_tensor v = nullptr;
    EXPECT_EQ(tc_view(t, shape, 2, &v), TC_OK);
    EXPECT_EQ(tc_view_as_complex(v, &in), TC_OK);
    tc_tensor_free(v);
    EXPECT_EQ(tc_fft_c2r(in, 0, 7, TC_FFT_NORM_SQRT_N, &y), TC_OK);
    EXPECT_EQ(tc_mul(y, wt, &prod), TC_OK);
  } else {
    in = t;
    tc_tensor_retain(t, &in);
    if (which == 0) {
      EXPECT_EQ(tc_fft_c2c(in, 0, -1, TC_FFT_NORM_NONE, 1, &y), TC_OK);
    } else {
      EXPECT_EQ(tc_fft_r2c(in, 0, 9, TC_FFT_NORM_N, 1, &y), TC_OK);
    }
    tc_tensor pairs = nullptr;
    const int64_t flat = -1;
    EXPECT_EQ(tc_view_as_real(y, &pairs), TC_OK);
    EXPECT_EQ(tc_reshape(pairs, &flat, 1, &r), TC_OK);  // [m, 2] -> [2m], as w
    tc_tensor_free(pairs);
    EXPECT_EQ(tc_mul(r, wt, &prod), TC_OK);
  }
  EXPECT_EQ(tc_sum(prod, nullptr, 0, 0, &s), TC_OK);
  double v = 0;
  EXPECT_EQ(tc_tensor_item(s, &v), TC_OK);
  if (grad != nullptr) {
    EXPECT_EQ(tc_backward(s, nullptr, 0), TC_OK);
    EXPECT_EQ(tc_tensor_grad(t, grad), TC_OK);
  }
  for (tc_tensor u : {t, in, y, r, wt, prod, s})
    if (u) tc_tensor_free(u);
  return v;
}

TEST(FftAbi, GradientsMatchFiniteDifferences) {
  Init init;
  // c2c of a real x [6] -> [6, 2]; r2c with n = 9 -> [5, 2]; c2r of [4] complex -> [7].
  const std::vector<size_t> wsizes = {12, 10, 7};
  for (int which = 0; which < 3; ++which) {
    std::vector<double> x(8), w(wsizes[size_t(which)]);
    if (which == 0) x.resize(6);
    for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(1.7 * double(i) + which);
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(2.3 * double(i) - which);
    tc_tensor g = nullptr;
    fft_loss(which, x, w, &g);
    ASSERT_NE(g, nullptr);
    const auto gv = values<double>(g);
    tc_tensor_free(g);
    for (size_t i = 0; i < x.size(); ++i) {
      auto plus = x, minus = x;
      plus[i] += 1e-6;
      minus[i] -= 1e-6;
      const double fd = (fft_loss(which, plus, w, nullptr) - fft_loss(which, minus, w, nullptr)) / 2e-6;
      EXPECT_NEAR(gv[i], fd, 1e-6) << "transform " << which << " element " << i;
    }
  }
}

}  // namespace
