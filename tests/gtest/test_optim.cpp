// SGD and Adam/AdamW against hand-computed torch.optim updates; initializers.
#include <cmath>

#include "gradcheck.h"
#include "ops/optim.h"
#include "tc_binary_ops.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class Optim : public TcTest {};

namespace {
// A one-element float64 parameter with the given value and gradient.
Tensor param(double value, double grad) {
  Tensor p = tensor({value}, {1});
  p->requires_grad = true;
  p->set_grad(tensor({grad}, {1}));
  return p;
}
}  // namespace

TEST_F(Optim, SgdPlainAndWeightDecay) {
  Tensor p = param(1.0, 0.5);
  auto opt = tc::optim::make_sgd({p}, {0.1, 0, 0, 0.2, false});
  opt->step();  // d = 0.5 + 0.2*1 = 0.7; p = 1 - 0.07
  EXPECT_NEAR(values(p)[0], 0.93, 1e-12);
  p->set_grad(nullptr);
  opt->step();  // no grad: skipped
  EXPECT_NEAR(values(p)[0], 0.93, 1e-12);
}

TEST_F(Optim, SgdMomentumDampeningNesterov) {
  // torch: buf1 = g1; buf2 = m*buf1 + (1-damp)*g2.
  Tensor p = param(1.0, 1.0);
  auto opt = tc::optim::make_sgd({p}, {0.1, 0.9, 0.5, 0, false});
  opt->step();  // buf = 1, p = 0.9
  p->set_grad(tensor({2.0}, {1}));
  opt->step();  // buf = 0.9 + 0.5*2 = 1.9, p = 0.9 - 0.19
  EXPECT_NEAR(values(p)[0], 0.71, 1e-12);

  Tensor q = param(1.0, 1.0);
  auto nest = tc::optim::make_sgd({q}, {0.1, 0.9, 0, 0, true});
  nest->step();  // buf = 1, d = 1 + 0.9 = 1.9, q = 0.81
  EXPECT_NEAR(values(q)[0], 0.81, 1e-12);
  q->set_grad(tensor({2.0}, {1}));
  nest->step();  // buf = 0.9 + 2 = 2.9, d = 2 + 2.61 = 4.61, q = 0.81 - 0.461
  EXPECT_NEAR(values(q)[0], 0.349, 1e-12);
}

TEST_F(Optim, AdamAndAdamW) {
  const double lr = 0.1, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = 0.1;
  Tensor p = param(1.0, 0.5);
  auto adam = tc::optim::make_adam({p}, {lr, b1, b2, eps, wd, false});
  // Hand-computed torch.optim.Adam, two steps.
  double w = 1.0, m = 0, v = 0;
  for (int t = 1; t <= 2; ++t) {
    const double g = 0.5 + wd * w;
    m = b1 * m + (1 - b1) * g;
    v = b2 * v + (1 - b2) * g * g;
    const double denom = std::sqrt(v) / std::sqrt(1 - std::pow(b2, t)) + eps;
    w -= lr / (1 - std::pow(b1, t)) * m / denom;
    adam->step();
    EXPECT_NEAR(values(p)[0], w, 1e-12) << "step " << t;
  }
  Tensor q = param(1.0, 0.5);
  auto adamw = tc::optim::make_adam({q}, {lr, b1, b2, eps, wd, true});
  adamw->step();
  // AdamW: w *= 1 - lr*wd, then the plain Adam step (first step moves by lr * sign).
  EXPECT_NEAR(values(q)[0], 1.0 * (1 - lr * wd) - lr * 0.5 / (0.5 + eps), 1e-12);
}

TEST_F(Optim, TrainsALinearModelThroughTheAbi) {
  // Fit y = 3x - 1 with SGD through the C ABI.
  int64_t s1[] = {1}, sx[] = {8, 1};
  tc_tensor w = nullptr, b = nullptr, x = nullptr, y = nullptr;
  ASSERT_TRUE(ok(tc_zeros(s1, 1, TC_FLOAT32, TC_CPU, &w)));
  ASSERT_TRUE(ok(tc_zeros(s1, 1, TC_FLOAT32, TC_CPU, &b)));
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(w, 1)));
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(b, 1)));
  float xs[8], ys[8];
  for (int i = 0; i < 8; ++i) {
    xs[i] = float(i) / 4 - 1;
    ys[i] = 3 * xs[i] - 1;
  }
  ASSERT_TRUE(ok(tc_from_data(xs, sizeof xs, sx, 2, TC_FLOAT32, &x)));
  ASSERT_TRUE(ok(tc_from_data(ys, sizeof ys, sx, 2, TC_FLOAT32, &y)));
  tc_tensor params[] = {w, b};
  tc_sgd_options o = {sizeof(tc_sgd_options), 0, 0.1, 0.9, 0, 0};
  tc_optimizer opt = nullptr;
  ASSERT_TRUE(ok(tc_optimizer_sgd(params, 2, &o, &opt)));
  for (int it = 0; it < 200; ++it) {
    tc_tensor p = nullptr, e = nullptr, sq = nullptr, l = nullptr;
    ASSERT_TRUE(ok(tc_optimizer_zero_grad(opt)));
    ASSERT_TRUE(ok(tc_mul(x, w, &p)));
    ASSERT_TRUE(ok(tc_add_(p, b) == TC_ERR_AUTOGRAD ? TC_OK : TC_ERR_INTERNAL));  // p requires grad
    tc_tensor p2 = nullptr;
    ASSERT_TRUE(ok(tc_add(p, b, &p2)));
    ASSERT_TRUE(ok(tc_sub(p2, y, &e)));
    ASSERT_TRUE(ok(tc_mul(e, e, &sq)));
    ASSERT_TRUE(ok(tc_mean(sq, nullptr, 0, 0, &l)));
    ASSERT_TRUE(ok(tc_backward(l, nullptr, 0)));
    ASSERT_TRUE(ok(tc_optimizer_step(opt)));
    for (tc_tensor t : {p, p2, e, sq, l}) tc_tensor_free(t);
  }
  double wv = 0, bv = 0, lr = 0;
  ASSERT_TRUE(ok(tc_tensor_item(w, &wv)));
  ASSERT_TRUE(ok(tc_tensor_item(b, &bv)));
  EXPECT_NEAR(wv, 3.0, 1e-3);
  EXPECT_NEAR(bv, -1.0, 1e-3);
  ASSERT_TRUE(ok(tc_optimizer_get_lr(opt, &lr)));
  EXPECT_EQ(lr, 0.1);
  ASSERT_TRUE(ok(tc_optimizer_set_lr(opt, 0.01)));
  ASSERT_TRUE(ok(tc_optimizer_get_lr(opt, &lr)));
  EXPECT_EQ(lr, 0.01);
  EXPECT_EQ(tc_optimizer_set_lr(opt, -1), TC_ERR_INVALID_ARGUMENT);
  ASSERT_TRUE(ok(tc_optimizer_free(opt)));
  EXPECT_EQ(tc_optimizer_free(opt), TC_ERR_INVALID_HANDLE);
  EXPECT_EQ(tc_optimizer_step(reinterpret_cast<tc_optimizer>(w)), TC_ERR_INVALID_HANDLE);
  for (tc_tensor t : {w, b, x, y}) tc_tensor_free(t);
}

TEST_F(Optim, OptionErrors) {
  int64_t s1[] = {2};
  tc_tensor w = nullptr, ints = nullptr;
  ASSERT_TRUE(ok(tc_zeros(s1, 1, TC_FLOAT32, TC_CPU, &w)));
  ASSERT_TRUE(ok(tc_zeros(s1, 1, TC_INT64, TC_CPU, &ints)));
  tc_optimizer opt = nullptr;
  tc_sgd_options o = {sizeof(tc_sgd_options), 0, 0.1, 0, 0, 0};
  EXPECT_EQ(tc_optimizer_sgd(&w, 1, &o, &opt), TC_ERR_AUTOGRAD);  // does not require grad
  EXPECT_EQ(tc_optimizer_sgd(&ints, 1, &o, &opt), TC_ERR_DTYPE);
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(w, 1)));
  o.nesterov = 1;
  EXPECT_EQ(tc_optimizer_sgd(&w, 1, &o, &opt), TC_ERR_INVALID_ARGUMENT);  // nesterov without momentum
  o.nesterov = 0;
  o.size = 4;
  EXPECT_EQ(tc_optimizer_sgd(&w, 1, &o, &opt), TC_ERR_INVALID_ARGUMENT);
  tc_adam_options a = {sizeof(tc_adam_options), 0, 1e-3, 0.9, 1.0, 1e-8, 0};
  EXPECT_EQ(tc_optimizer_adam(&w, 1, &a, &opt), TC_ERR_INVALID_ARGUMENT);  // beta2 = 1
  EXPECT_EQ(tc_optimizer_adam(&w, 0, &a, &opt), TC_ERR_INVALID_ARGUMENT);
  tc_tensor_free(w);
  tc_tensor_free(ints);
}

TEST_F(Optim, Initializers) {
  Tensor w = tc::zeros({64, 32, 3, 3}, DType::f32);
  tc::optim::kaiming_uniform_(w, std::sqrt(5.0));
  const double fan_in = 32 * 9;
  const double bound = std::sqrt(3.0) * std::sqrt(2.0 / 6.0) / std::sqrt(fan_in);
  double lo = 1e9, hi = -1e9, sum = 0;
  for (double v : values(w)) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  EXPECT_GE(lo, -bound);
  EXPECT_LE(hi, bound);
  EXPECT_GT(hi, 0.9 * bound);  // actually spread over the range
  EXPECT_LT(std::abs(sum / double(w->numel())), bound / 20);
  Tensor x = tc::zeros({100, 50}, DType::f64);
  tc::optim::xavier_uniform_(x, 2.0);
  const double xb = 2.0 * std::sqrt(6.0 / 150.0);
  for (double v : values(x)) ASSERT_LE(std::abs(v), xb);
  // Same seed, same values.
  tc_manual_seed(7);
  Tensor a = tc::zeros({10, 10}, DType::f32);
  tc::optim::xavier_uniform_(a, 1.0);
  tc_manual_seed(7);
  Tensor b = tc::zeros({10, 10}, DType::f32);
  tc::optim::xavier_uniform_(b, 1.0);
  EXPECT_EQ(values(a), values(b));
  try {
    tc::optim::kaiming_uniform_(tc::zeros({3}, DType::f32), 0);
    FAIL();
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_SHAPE);
  }
  Tensor n = tc::zeros({2000}, DType::f64);
  tc::optim::normal_(n, 1.0, 0.5);
  const auto nv = values(n);
  double mean = 0;
  for (double v : nv) mean += v / double(nv.size());
  EXPECT_NEAR(mean, 1.0, 0.05);
}
