// RMSprop and Adagrad through the C ABI: three steps from fixed gradients
// give the weights torch.optim 1.13 computed on the same inputs (float64),
// float32 parameters follow within float32 rounding, and a state dict
// saved after two steps and loaded into a fresh optimizer continues exactly.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "nn_test_util.h"
#include "tc_binary_ops.h"

namespace {

using nntest::H;

class OptimMore : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(tc_init(nullptr), TC_OK); }
  void TearDown() override { EXPECT_EQ(tc_shutdown(), TC_OK); }
};

tc_rmsprop_options rmsprop_options() {
  tc_rmsprop_options o{};
  o.size = sizeof o;
  o.lr = 0.01;
  o.alpha = 0.9;
  o.eps = 1e-8;
  o.weight_decay = 0.1;
  o.momentum = 0.9;
  o.centered = 1;
  return o;
}

tc_adagrad_options adagrad_options() {
  tc_adagrad_options o{};
  o.size = sizeof o;
  o.lr = 0.1;
  o.lr_decay = 0.05;
  o.weight_decay = 0.1;
  o.initial_accumulator_value = 0.2;
  o.eps = 1e-10;
  return o;
}

using Make = std::function<int32_t(tc_tensor*, tc_optimizer*)>;

// Steps `steps` times with grad = (s + 1) * [0.3, -0.2, 0.1] (s counted from `first`),
// each gradient from a backward.
void run(tc_optimizer opt, tc_tensor w, int32_t dtype, int first, int steps) {
  for (int s = first; s < first + steps; ++s) {
    const double k = s + 1;
    // d/dw sum(w * c) = c.
    H c = nntest::tensor({0.3 * k, -0.2 * k, 0.1 * k}, {3}, dtype), prod, loss;
    ASSERT_EQ(tc_mul(w, c, prod.out()), TC_OK);
    ASSERT_EQ(tc_sum(prod, nullptr, 0, 0, loss.out()), TC_OK);
    ASSERT_EQ(tc_backward(loss, nullptr, 0), TC_OK) << nntest::last_error();
    ASSERT_EQ(tc_optimizer_step(opt), TC_OK) << nntest::last_error();
    ASSERT_EQ(tc_optimizer_zero_grad(opt), TC_OK);
  }
}

void expect_torch_weights(const Make& make, const std::vector<double>& want) {
  for (int32_t dtype : {TC_FLOAT64, TC_FLOAT32}) {
    H w = nntest::tensor({1.0, -2.0, 0.5}, {3}, dtype);
    ASSERT_EQ(tc_tensor_set_requires_grad(w, 1), TC_OK);
    tc_tensor ws[] = {w.get()};
    tc_optimizer opt = nullptr;
    ASSERT_EQ(make(ws, &opt), TC_OK) << nntest::last_error();
    run(opt, w, dtype, 0, 3);
    const std::vector<double> got = nntest::read(w);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], dtype == TC_FLOAT64 ? 1e-14 : 1e-6);
    EXPECT_EQ(tc_optimizer_free(opt), TC_OK);
  }
}

TEST_F(OptimMore, RmspropStepsMatchTorch) {
  const tc_rmsprop_options o = rmsprop_options();
  expect_torch_weights([&](tc_tensor* ws, tc_optimizer* out) { return tc_optimizer_rmsprop(ws, 1, &o, out); },
                       {0.8225390648858356, -1.8256617534398596, 0.3236427377740092});
}

TEST_F(OptimMore, AdagradStepsMatchTorch) {
  const tc_adagrad_options o = adagrad_options();
  expect_torch_weights([&](tc_tensor* ws, tc_optimizer* out) { return tc_optimizer_adagrad(ws, 1, &o, out); },
                       {0.7947404010628045, -1.804377570175268, 0.37486890839475234});
}

TEST_F(OptimMore, StateDictsContinueExactly) {
  const tc_rmsprop_options ro = rmsprop_options();
  const tc_adagrad_options ao = adagrad_options();
  const Make makers[] = {
      [&](tc_tensor* ws, tc_optimizer* out) { return tc_optimizer_rmsprop(ws, 1, &ro, out); },
      [&](tc_tensor* ws, tc_optimizer* out) { return tc_optimizer_adagrad(ws, 1, &ao, out); }};
  for (const Make& make : makers) {
    H a = nntest::tensor({1.0, -2.0, 0.5}, {3}), b = nntest::tensor({0.0, 0.0, 0.0}, {3});
    ASSERT_EQ(tc_tensor_set_requires_grad(a, 1), TC_OK);
    ASSERT_EQ(tc_tensor_set_requires_grad(b, 1), TC_OK);
    tc_tensor as[] = {a.get()}, bs[] = {b.get()};
    tc_optimizer oa = nullptr, ob = nullptr;
    ASSERT_EQ(make(as, &oa), TC_OK);
    ASSERT_EQ(make(bs, &ob), TC_OK);
    run(oa, a, TC_FLOAT64, 0, 2);
    int32_t prev = 0;  // the copy into a leaf that requires grad, outside autograd
    ASSERT_EQ(tc_set_grad_enabled(0, &prev), TC_OK);
    ASSERT_EQ(tc_copy_(b, a), TC_OK) << nntest::last_error();
    ASSERT_EQ(tc_set_grad_enabled(prev, nullptr), TC_OK);
    tc_tensor_dict sd = nullptr;
    ASSERT_EQ(tc_optimizer_state_dict(oa, &sd), TC_OK);
    ASSERT_EQ(tc_optimizer_load_state_dict(ob, sd), TC_OK) << nntest::last_error();
    EXPECT_EQ(tc_tensor_dict_free(sd), TC_OK);
    run(oa, a, TC_FLOAT64, 2, 2);
    run(ob, b, TC_FLOAT64, 2, 2);
    EXPECT_EQ(nntest::read(a), nntest::read(b));
    EXPECT_EQ(tc_optimizer_free(oa), TC_OK);
    EXPECT_EQ(tc_optimizer_free(ob), TC_OK);
  }
}

TEST_F(OptimMore, BadOptionsChangeNothing) {
  H w = nntest::tensor({1.0}, {1});
  ASSERT_EQ(tc_tensor_set_requires_grad(w, 1), TC_OK);
  tc_tensor ws[] = {w.get()};
  tc_rmsprop_options ro = rmsprop_options();
  ro.alpha = -1;
  tc_optimizer out = nullptr;
  EXPECT_EQ(tc_optimizer_rmsprop(ws, 1, &ro, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(nntest::last_error().find("alpha"), std::string::npos);
  EXPECT_EQ(out, nullptr);
  tc_adagrad_options ao = adagrad_options();
  ao.lr_decay = -0.5;
  EXPECT_EQ(tc_optimizer_adagrad(ws, 1, &ao, &out), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
}

}  // namespace
