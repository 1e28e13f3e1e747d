// conv2d, max_pool2d and avg_pool2d: values against a direct reference loop
// and hand-computed results (float32 and float64), gradients against finite
// differences (float64), and the error cases.
#include <gtest/gtest.h>

#include "nn_test_util.h"

using namespace nntest;

namespace {

class Conv : public Fixture {};

struct Params {
  int64_t stride[2], padding[2], dilation[2], groups;
};

// The definition of conv2d, one output element at a time.
std::vector<double> conv_ref(const std::vector<double>& x, const std::vector<int64_t>& xs,
                             const std::vector<double>& w, const std::vector<int64_t>& ws,
                             const std::vector<double>* b, const Params& p, std::vector<int64_t>& out_shape) {
  const int64_t n = xs[0], c = xs[1], h = xs[2], wd = xs[3], o = ws[0], cg = ws[1], kh = ws[2], kw = ws[3];
  const int64_t og = o / p.groups;
  const int64_t ho = (h + 2 * p.padding[0] - p.dilation[0] * (kh - 1) - 1) / p.stride[0] + 1;
  const int64_t wo = (wd + 2 * p.padding[1] - p.dilation[1] * (kw - 1) - 1) / p.stride[1] + 1;
  out_shape = {n, o, ho, wo};
  std::vector<double> y(static_cast<size_t>(n * o * ho * wo));
  for (int64_t ni = 0; ni < n; ++ni)
    for (int64_t oi = 0; oi < o; ++oi)
      for (int64_t i = 0; i < ho; ++i)
        for (int64_t j = 0; j < wo; ++j) {
          double s = b ? (*b)[oi] : 0.0;
          const int64_t g = oi / og;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t a = 0; a < kh; ++a)
              for (int64_t bb = 0; bb < kw; ++bb) {
                const int64_t ih = i * p.stride[0] - p.padding[0] + a * p.dilation[0];
                const int64_t iw = j * p.stride[1] - p.padding[1] + bb * p.dilation[1];
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                s += x[((ni * c + g * cg + ci) * h + ih) * wd + iw] * w[((oi * cg + ci) * kh + a) * kw + bb];
              }
          y[((ni * o + oi) * ho + i) * wo + j] = s;
        }
  (void)c;
  return y;
}

TEST_F(Conv, Conv2dMatchesReference) {
  const Params cases[] = {{{1, 1}, {0, 0}, {1, 1}, 1},
                          {{2, 1}, {1, 2}, {1, 1}, 1},
                          {{1, 2}, {2, 1}, {2, 1}, 2},
                          {{2, 2}, {1, 1}, {1, 2}, 4}};
  for (const Params& p : cases) {
    for (int32_t dt : {TC_FLOAT32, TC_FLOAT64}) {
      SCOPED_TRACE(p.groups);
      const std::vector<int64_t> xs = {2, 4, 7, 6}, ws = {8, 4 / p.groups, 3, 2};
      const std::vector<double> xv = values(2 * 4 * 7 * 6, 1), wv = values(8 * ws[1] * 3 * 2, 2),
                                bv = values(8, 3);
      H x = tensor(xv, xs, dt), w = tensor(wv, ws, dt), b = tensor(bv, {8}, dt), y, y0;
      ASSERT_EQ(tc_conv2d(x, w, b, p.stride, p.padding, p.dilation, p.groups, y.out()), TC_OK)
          << last_error();
      std::vector<int64_t> os;
      const std::vector<double> want = conv_ref(xv, xs, wv, ws, &bv, p, os);
      EXPECT_EQ(shape(y), os);
      expect_near(read(y), want, dt == TC_FLOAT32 ? 1e-5 : 1e-12);
      ASSERT_EQ(tc_conv2d(x, w, nullptr, p.stride, p.padding, p.dilation, p.groups, y0.out()), TC_OK);
      expect_near(read(y0), conv_ref(xv, xs, wv, ws, nullptr, p, os), dt == TC_FLOAT32 ? 1e-5 : 1e-12);
    }
  }
}

TEST_F(Conv, Conv2dGradients) {
  const Params cases[] = {{{1, 1}, {1, 1}, {1, 1}, 1}, {{2, 1}, {1, 0}, {2, 1}, 2}};
  for (const Params& p : cases) {
    H x = random({2, 2, 5, 4}, 1, TC_FLOAT64, true), w = random({4, 2 / p.groups, 3, 2}, 2, TC_FLOAT64, true);
    H b = random({4}, 3, TC_FLOAT64, true);
    gradcheck(
        [&p](const std::vector<tc_tensor>& in) {
          tc_tensor out = nullptr;
          EXPECT_EQ(tc_conv2d(in[0], in[1], in[2], p.stride, p.padding, p.dilation, p.groups, &out), TC_OK)
              << last_error();
          return out;
        },
        {x, w, b});
  }
  H x = random({1, 1, 4, 4}, 1, TC_FLOAT64, true), w = random({1, 1, 2, 2}, 2, TC_FLOAT64, true), y;
  const int64_t one[2] = {1, 1}, zero[2] = {0, 0};
  ASSERT_EQ(tc_conv2d(x, w, nullptr, one, zero, one, 1, y.out()), TC_OK);
  EXPECT_EQ(grad_fn(y), "ConvolutionBackward");
}

TEST_F(Conv, Conv2dErrors) {
  H x = random({1, 4, 5, 5}, 1), w = random({6, 2, 3, 3}, 2), w3 = random({6, 4, 3}, 3), b = random({5}, 4);
  H big = random({6, 4, 7, 7}, 5), wf = random({6, 4, 3, 3}, 6, TC_FLOAT32), x3 = random({4, 5, 5}, 7);
  H w4 = random({6, 4, 3, 3}, 8);
  const int64_t one[2] = {1, 1}, zero[2] = {0, 0}, bad[2] = {0, 1}, neg[2] = {-1, 0};
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_conv2d(x, w, nullptr, one, zero, one, 1, &out), TC_ERR_SHAPE);  // 2 vs 4 channels
  EXPECT_EQ(tc_conv2d(x, w, nullptr, one, zero, one, 2, &out), TC_OK);
  ASSERT_EQ(tc_tensor_free(out), TC_OK);
  out = nullptr;
  EXPECT_EQ(tc_conv2d(x, w4, nullptr, one, zero, one, 3, &out), TC_ERR_SHAPE);  // 3 does not divide 4
  EXPECT_EQ(tc_conv2d(x, w3, nullptr, one, zero, one, 1, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_conv2d(x3, w4, nullptr, one, zero, one, 1, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_conv2d(x, w4, b, one, zero, one, 1, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_conv2d(x, big, nullptr, one, zero, one, 1, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_conv2d(x, wf, nullptr, one, zero, one, 1, &out), TC_ERR_DTYPE);
  EXPECT_EQ(tc_conv2d(x, w4, nullptr, bad, zero, one, 1, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_conv2d(x, w4, nullptr, one, neg, one, 1, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_conv2d(x, w4, nullptr, one, zero, bad, 1, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_conv2d(x, w4, nullptr, one, zero, one, 0, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_conv2d(x, w4, nullptr, nullptr, zero, one, 1, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
}

TEST_F(Conv, PoolingValues) {
  // 1 x 1 x 4 x 4 of 0..15.
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[i] = i;
  const int64_t k2[2] = {2, 2}, zero[2] = {0, 0}, one[2] = {1, 1}, k3[2] = {3, 3};
  for (int32_t dt : {TC_FLOAT32, TC_FLOAT64}) {
    H x = tensor(v, {1, 1, 4, 4}, dt), mp, ap, app, mpp;
    ASSERT_EQ(tc_max_pool2d(x, k2, nullptr, zero, mp.out()), TC_OK) << last_error();  // stride = kernel
    EXPECT_EQ(shape(mp), (std::vector<int64_t>{1, 1, 2, 2}));
    expect_near(read(mp), {5, 7, 13, 15}, 0);
    ASSERT_EQ(tc_avg_pool2d(x, k2, nullptr, zero, ap.out()), TC_OK);
    expect_near(read(ap), {2.5, 4.5, 10.5, 12.5}, 1e-6);
    // Padding counts in the divisor (count_include_pad): the corner window
    // [[pad, pad], [pad, 0]] averages 0 over 4.
    ASSERT_EQ(tc_avg_pool2d(x, k2, k2, one, app.out()), TC_OK);
    EXPECT_EQ(shape(app), (std::vector<int64_t>{1, 1, 3, 3}));
    expect_near(read(app),
                {0 / 4.0, (1 + 2) / 4.0, 3 / 4.0, (4 + 8) / 4.0, (5 + 6 + 9 + 10) / 4.0, (7 + 11) / 4.0,
                 12 / 4.0, (13 + 14) / 4.0, 15 / 4.0},
                1e-6);
    // Max over a padded 3x3 window with stride 1: padding never wins.
    ASSERT_EQ(tc_max_pool2d(x, k3, one, one, mpp.out()), TC_OK);
    expect_near(read(mpp), {5, 6, 7, 7, 9, 10, 11, 11, 13, 14, 15, 15, 13, 14, 15, 15}, 0);
  }
}

TEST_F(Conv, PoolingGradients) {
  const int64_t k2[2] = {2, 2}, k3[2] = {3, 2}, s1[2] = {1, 2}, zero[2] = {0, 0}, pad[2] = {1, 1};
  H x = random({2, 3, 5, 6}, 4, TC_FLOAT64, true);  // distinct values: no ties for max
  for (int variant = 0; variant < 4; ++variant) {
    gradcheck(
        [&](const std::vector<tc_tensor>& in) {
          tc_tensor out = nullptr;
          const int64_t* k = variant % 2 ? k3 : k2;
          const int64_t* s = variant % 2 ? s1 : nullptr;
          const int64_t* p = variant % 2 ? pad : zero;
          EXPECT_EQ((variant < 2 ? tc_max_pool2d : tc_avg_pool2d)(in[0], k, s, p, &out), TC_OK)
              << last_error();
          return out;
        },
        {x});
  }
  H y;
  ASSERT_EQ(tc_max_pool2d(x, k2, nullptr, zero, y.out()), TC_OK);
  EXPECT_EQ(grad_fn(y), "MaxPool2DBackward");
  ASSERT_EQ(tc_avg_pool2d(x, k2, nullptr, zero, y.out()), TC_OK);
  EXPECT_EQ(grad_fn(y), "AvgPool2DBackward");
}

TEST_F(Conv, PoolingErrors) {
  H x = random({1, 1, 4, 4}, 1), x3 = random({1, 4, 4}, 2),
    i = tensor(std::vector<double>(16, 1), {1, 1, 4, 4}, TC_INT64);
  const int64_t k2[2] = {2, 2}, k9[2] = {9, 9}, k0[2] = {0, 2}, zero[2] = {0, 0}, big_pad[2] = {2, 2},
                s0[2] = {0, 1};
  tc_tensor out = nullptr;
  for (auto fn : {tc_max_pool2d, tc_avg_pool2d}) {
    EXPECT_EQ(fn(x3, k2, nullptr, zero, &out), TC_ERR_SHAPE);
    EXPECT_EQ(fn(x, k9, nullptr, zero, &out), TC_ERR_SHAPE);
    EXPECT_EQ(fn(x, k0, nullptr, zero, &out), TC_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(fn(x, k2, s0, zero, &out), TC_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(fn(x, k2, nullptr, big_pad, &out), TC_ERR_INVALID_ARGUMENT);  // more than half the kernel
    EXPECT_EQ(fn(x, nullptr, nullptr, zero, &out), TC_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(fn(x, k2, nullptr, nullptr, &out), TC_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(fn(i, k2, nullptr, zero, &out), TC_ERR_DTYPE);
  }
  EXPECT_EQ(out, nullptr);
}

}  // namespace
