// softmax, log_softmax, cross_entropy, nll_loss, mse_loss, dropout and
// embedding: values against hand-computed results, gradients against finite
// differences (float64), and every error case.
#include <gtest/gtest.h>

#include <cmath>

#include "nn_test_util.h"

using namespace nntest;

namespace {

class Nn : public Fixture {};

std::vector<double> softmax_ref(const std::vector<double>& x) {
  double mx = x[0], s = 0;
  for (double v : x) mx = std::max(mx, v);
  for (double v : x) s += std::exp(v - mx);
  std::vector<double> out;
  for (double v : x) out.push_back(std::exp(v - mx) / s);
  return out;
}

TEST_F(Nn, SoftmaxValuesAndStability) {
  for (int32_t dt : {TC_FLOAT32, TC_FLOAT64}) {
    H x = tensor({1, 2, 3, 1000, 1001, 1002}, {2, 3}, dt), y, ly;
    ASSERT_EQ(tc_softmax(x, -1, y.out()), TC_OK) << last_error();
    const std::vector<double> r = softmax_ref({1, 2, 3});
    expect_near(read(y), {r[0], r[1], r[2], r[0], r[1], r[2]}, 1e-6);  // no overflow at 1000
    ASSERT_EQ(tc_log_softmax(x, 1, ly.out()), TC_OK);
    expect_near(
        read(ly),
        {std::log(r[0]), std::log(r[1]), std::log(r[2]), std::log(r[0]), std::log(r[1]), std::log(r[2])},
        1e-6);
  }
  // Along dim 0 of a [2, 3]: each column sums to one.
  H x = tensor({0, 1, 2, 3, 4, 5}, {2, 3}), y;
  ASSERT_EQ(tc_softmax(x, 0, y.out()), TC_OK);
  const std::vector<double> c = softmax_ref({0, 3});
  expect_near(read(y), {c[0], c[0], c[0], c[1], c[1], c[1]}, 1e-12);
}

TEST_F(Nn, SoftmaxGradients) {
  H x = random({3, 4, 5}, 1, TC_FLOAT64, true);
  for (int64_t dim : {0, 1, 2, -1}) {
    for (int log = 0; log < 2; ++log) {
      SCOPED_TRACE(dim);
      gradcheck(
          [dim, log](const std::vector<tc_tensor>& in) {
            tc_tensor out = nullptr;
            EXPECT_EQ((log ? tc_log_softmax : tc_softmax)(in[0], dim, &out), TC_OK) << last_error();
            return out;
          },
          {x});
    }
  }
  H y;
  ASSERT_EQ(tc_softmax(x, 1, y.out()), TC_OK);
  EXPECT_EQ(grad_fn(y), "SoftmaxBackward");
  ASSERT_EQ(tc_log_softmax(x, 1, y.out()), TC_OK);
  EXPECT_EQ(grad_fn(y), "LogSoftmaxBackward");
}

TEST_F(Nn, SoftmaxErrors) {
  H x = random({2, 3}, 1), i = tensor({1, 2}, {2}, TC_INT64);
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_softmax(x, 2, &out), TC_ERR_INDEX);
  EXPECT_EQ(tc_log_softmax(x, -3, &out), TC_ERR_INDEX);
  EXPECT_EQ(tc_softmax(i, 0, &out), TC_ERR_DTYPE);
  EXPECT_EQ(tc_softmax(nullptr, 0, &out), TC_ERR_INVALID_HANDLE);
  EXPECT_EQ(tc_softmax(x, 0, nullptr), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
}

TEST_F(Nn, CrossEntropyValues) {
  const std::vector<double> logits = {1, 2, 3, 0.5, -1, 2};
  const std::vector<double> p0 = softmax_ref({1, 2, 3}), p1 = softmax_ref({0.5, -1, 2});
  const double l0 = -std::log(p0[2]), l1 = -std::log(p1[0]);
  for (int32_t dt : {TC_FLOAT32, TC_FLOAT64}) {
    H x = tensor(logits, {2, 3}, dt), t = tensor({2, 0}, {2}, TC_INT64), none, mean, sum;
    ASSERT_EQ(tc_cross_entropy(x, t, TC_REDUCTION_NONE, none.out()), TC_OK) << last_error();
    EXPECT_EQ(shape(none), (std::vector<int64_t>{2}));
    expect_near(read(none), {l0, l1}, 1e-6);
    ASSERT_EQ(tc_cross_entropy(x, t, TC_REDUCTION_MEAN, mean.out()), TC_OK);
    EXPECT_TRUE(shape(mean).empty());
    expect_near(read(mean), {(l0 + l1) / 2}, 1e-6);
    ASSERT_EQ(tc_cross_entropy(x, t, TC_REDUCTION_SUM, sum.out()), TC_OK);
    expect_near(read(sum), {l0 + l1}, 1e-6);
  }
  // [C] logits with a 0-dim target.
  H x = tensor({1, 2, 3}, {3}), t = tensor({2}, {}, TC_INT64), l;
  ASSERT_EQ(tc_cross_entropy(x, t, TC_REDUCTION_MEAN, l.out()), TC_OK) << last_error();
  expect_near(read(l), {l0}, 1e-12);
}

TEST_F(Nn, CrossEntropyAndNllGradients) {
  H x = random({4, 5}, 2, TC_FLOAT64, true), t = tensor({4, 0, 2, 2}, {4}, TC_INT64);
  for (int32_t red : {TC_REDUCTION_NONE, TC_REDUCTION_MEAN, TC_REDUCTION_SUM}) {
    SCOPED_TRACE(red);
    gradcheck(
        [red, &t](const std::vector<tc_tensor>& in) {
          tc_tensor out = nullptr;
          EXPECT_EQ(tc_cross_entropy(in[0], t, red, &out), TC_OK) << last_error();
          return out;
        },
        {x});
    gradcheck(
        [red, &t](const std::vector<tc_tensor>& in) {
          tc_tensor out = nullptr;
          EXPECT_EQ(tc_nll_loss(in[0], t, red, &out), TC_OK) << last_error();
          return out;
        },
        {x});
  }
  H x1 = random({5}, 3, TC_FLOAT64, true), t1 = tensor({3}, {}, TC_INT64);
  gradcheck(
      [&t1](const std::vector<tc_tensor>& in) {
        tc_tensor out = nullptr;
        EXPECT_EQ(tc_cross_entropy(in[0], t1, TC_REDUCTION_MEAN, &out), TC_OK) << last_error();
        return out;
      },
      {x1});
  H l;
  ASSERT_EQ(tc_cross_entropy(x, t, TC_REDUCTION_MEAN, l.out()), TC_OK);
  EXPECT_EQ(grad_fn(l), "CrossEntropyBackward");
}

TEST_F(Nn, NllLossValues) {
  H lp = tensor({-0.1, -2, -3, -1.5, -0.5, -4}, {2, 3}), t = tensor({0, 2}, {2}, TC_INT64), l, n;
  ASSERT_EQ(tc_nll_loss(lp, t, TC_REDUCTION_MEAN, l.out()), TC_OK) << last_error();
  expect_near(read(l), {(0.1 + 4) / 2}, 1e-12);
  ASSERT_EQ(tc_nll_loss(lp, t, TC_REDUCTION_NONE, n.out()), TC_OK);
  expect_near(read(n), {0.1, 4}, 1e-12);
}

TEST_F(Nn, ClassLossErrors) {
  H x = random({2, 3}, 1), t = tensor({0, 3}, {2}, TC_INT64), neg = tensor({-1, 0}, {2}, TC_INT64);
  H t32 = tensor({0, 1}, {2}, TC_INT32), t3 = tensor({0, 1, 2}, {3}, TC_INT64),
    ok = tensor({0, 1}, {2}, TC_INT64);
  H x3 = random({2, 3, 4}, 2);
  tc_tensor out = nullptr;
  for (auto fn : {tc_cross_entropy, tc_nll_loss}) {
    EXPECT_EQ(fn(x, t, TC_REDUCTION_MEAN, &out), TC_ERR_INDEX);
    EXPECT_NE(last_error().find("target 3"), std::string::npos) << last_error();
    EXPECT_NE(last_error().find("3 classes"), std::string::npos) << last_error();
    EXPECT_EQ(fn(x, neg, TC_REDUCTION_MEAN, &out), TC_ERR_INDEX);
    EXPECT_EQ(fn(x, t32, TC_REDUCTION_MEAN, &out), TC_ERR_DTYPE);
    EXPECT_EQ(fn(x, t3, TC_REDUCTION_MEAN, &out), TC_ERR_SHAPE);
    EXPECT_EQ(fn(x3, ok, TC_REDUCTION_MEAN, &out), TC_ERR_SHAPE);
    EXPECT_EQ(fn(x, ok, 7, &out), TC_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(fn(ok, ok, TC_REDUCTION_MEAN, &out), TC_ERR_DTYPE);
    EXPECT_EQ(fn(x, nullptr, TC_REDUCTION_MEAN, &out), TC_ERR_INVALID_HANDLE);
  }
  EXPECT_EQ(out, nullptr);
}

TEST_F(Nn, MseLoss) {
  H a = tensor({1, 2, 3, 4}, {2, 2}), b = tensor({0, 2, 5, 1}, {2, 2}), l, n;
  ASSERT_EQ(tc_mse_loss(a, b, TC_REDUCTION_MEAN, l.out()), TC_OK) << last_error();
  expect_near(read(l), {(1 + 0 + 4 + 9) / 4.0}, 1e-12);
  ASSERT_EQ(tc_mse_loss(a, b, TC_REDUCTION_NONE, n.out()), TC_OK);
  expect_near(read(n), {1, 0, 4, 9}, 1e-12);
  H x = random({3, 4}, 1, TC_FLOAT64, true), y = random({3, 4}, 2, TC_FLOAT64, true);
  for (int32_t red : {TC_REDUCTION_NONE, TC_REDUCTION_MEAN, TC_REDUCTION_SUM}) {
    gradcheck(
        [red](const std::vector<tc_tensor>& in) {
          tc_tensor out = nullptr;
          EXPECT_EQ(tc_mse_loss(in[0], in[1], red, &out), TC_OK) << last_error();
          return out;
        },
        {x, y});
  }
  H c = random({4, 3}, 3), f = random({3, 4}, 4, TC_FLOAT32);
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_mse_loss(x, c, TC_REDUCTION_MEAN, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_mse_loss(x, f, TC_REDUCTION_MEAN, &out), TC_ERR_DTYPE);
  EXPECT_EQ(tc_mse_loss(x, y, -1, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
}

TEST_F(Nn, Dropout) {
  H x = tensor(std::vector<double>(10000, 1.0), {100, 100}), y, z, e, same;
  ASSERT_EQ(tc_manual_seed(7), TC_OK);
  ASSERT_EQ(tc_dropout(x, 0.25, 1, y.out()), TC_OK) << last_error();
  const std::vector<double> v = read(y);
  int64_t kept = 0;
  for (double d : v) {
    EXPECT_TRUE(d == 0.0 || std::fabs(d - 1 / 0.75) < 1e-12) << d;
    kept += d != 0.0;
  }
  EXPECT_NEAR(double(kept) / 10000, 0.75, 0.03);
  // The same seed gives the same mask.
  ASSERT_EQ(tc_manual_seed(7), TC_OK);
  ASSERT_EQ(tc_dropout(x, 0.25, 1, z.out()), TC_OK);
  EXPECT_EQ(read(z), v);
  // Not training (or p = 0): the input itself. p = 1: zeros.
  ASSERT_EQ(tc_dropout(x, 0.5, 0, e.out()), TC_OK);
  int32_t is_same = 0;
  ASSERT_EQ(tc_tensor_same(x, e, &is_same), TC_OK);
  EXPECT_EQ(is_same, 1);
  ASSERT_EQ(tc_dropout(x, 1.0, 1, same.out()), TC_OK);
  for (double d : read(same)) EXPECT_EQ(d, 0.0);
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_dropout(x, -0.1, 1, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_dropout(x, 1.5, 1, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_dropout(x, NAN, 1, &out), TC_ERR_INVALID_ARGUMENT);
  H i = tensor({1, 2}, {2}, TC_INT64);
  EXPECT_EQ(tc_dropout(i, 0.5, 1, &out), TC_ERR_DTYPE);
  EXPECT_EQ(out, nullptr);
}

TEST_F(Nn, DropoutGradientIsTheScaledMask) {
  H x = random({50, 20}, 1, TC_FLOAT64, true), y, g;
  ASSERT_EQ(tc_dropout(x, 0.5, 1, y.out()), TC_OK);
  EXPECT_EQ(grad_fn(y), "DropoutBackward");
  H ones = tensor(std::vector<double>(1000, 1.0), {50, 20});
  ASSERT_EQ(tc_backward(y, ones, 0), TC_OK) << last_error();
  ASSERT_EQ(tc_tensor_grad(x, g.out()), TC_OK);
  const std::vector<double> yv = read(y), xv = read(x), gv = read(g);
  for (size_t i = 0; i < gv.size(); ++i) {
    if (yv[i] == 0.0) {
      EXPECT_EQ(gv[i], 0.0);
    } else {
      EXPECT_NEAR(gv[i], 2.0, 1e-12);
      EXPECT_NEAR(yv[i], 2.0 * xv[i], 1e-12);
    }
  }
}

TEST_F(Nn, Embedding) {
  H w = tensor({0, 1, 10, 11, 20, 21}, {3, 2}), idx = tensor({2, 0, 2, 1}, {2, 2}, TC_INT64), y;
  ASSERT_EQ(tc_embedding(w, idx, y.out()), TC_OK) << last_error();
  EXPECT_EQ(shape(y), (std::vector<int64_t>{2, 2, 2}));
  expect_near(read(y), {20, 21, 0, 1, 20, 21, 10, 11}, 0);
  // Repeated indices sum their gradients.
  H wg = random({4, 3}, 1, TC_FLOAT64, true), rep = tensor({1, 3, 1, 1}, {4}, TC_INT64);
  gradcheck(
      [&rep](const std::vector<tc_tensor>& in) {
        tc_tensor out = nullptr;
        EXPECT_EQ(tc_embedding(in[0], rep, &out), TC_OK) << last_error();
        return out;
      },
      {wg});
  H bad = tensor({0, 3}, {2}, TC_INT64), i32 = tensor({0, 1}, {2}, TC_INT32), w1 = random({3}, 2);
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_embedding(w, bad, &out), TC_ERR_INDEX);
  EXPECT_NE(last_error().find("index 3"), std::string::npos) << last_error();
  EXPECT_EQ(tc_embedding(w, i32, &out), TC_ERR_DTYPE);
  EXPECT_EQ(tc_embedding(w1, idx, &out), TC_ERR_SHAPE);
  EXPECT_EQ(out, nullptr);
}

}  // namespace
