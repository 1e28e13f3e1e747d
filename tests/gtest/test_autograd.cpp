// The autograd engine: dependency order, gradients that meet, leaves, retain_grad,
// no-grad, and every autograd error (through the C ABI where the message matters).
#include "gradcheck.h"
#include "math/rows/unary_exp.h"
#include "math/rows/unary_relu.h"
#include "math/rows/unary_sigmoid.h"
#include "math/rows/unary_tanh.h"
#include "tc_binary_ops.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class Autograd : public TcTest {};

namespace {
int32_t expect_code(const std::function<void()>& f) {
  try {
    f();
  } catch (const tc::Error& e) {
    return e.code();
  }
  return TC_OK;
}
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tc::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_F(Autograd, TinyGraphHandComputed) {
  // y = relu(x * w + b).sum(): dy/dw = x where active, dy/db = count of active.
  Tensor x = tensor({1, -2, 3}, {3}), w = tensor({2}, {1}), b = tensor({0.5}, {});
  w->requires_grad = true;
  b->requires_grad = true;
  Tensor y = ops::sum(ops::unary(ops::row::relu, ops::add(ops::mul(x, w), b)), {}, false);
  EXPECT_DOUBLE_EQ(tc::read_element(y, 0), 2.5 + 6.5);
  tc::autograd::backward(y, nullptr, false);
  EXPECT_EQ(values(w->grad()), (std::vector<double>{4}));
  EXPECT_EQ(values(b->grad()), (std::vector<double>{2}));
  EXPECT_EQ(w->grad()->shape, w->shape);
  EXPECT_EQ(b->grad()->shape, b->shape);
}

TEST_F(Autograd, GradientsThatMeetAreSummedAndAccumulate) {
  Tensor x = tensor({3}, {1});
  x->requires_grad = true;
  // y = x*x + x*x*x: dy/dx = 2x + 3x^2 = 6 + 27
  Tensor sq = ops::mul(x, x);
  Tensor y = ops::add(sq, ops::mul(sq, x));
  tc::autograd::backward(y, nullptr, true);
  EXPECT_EQ(values(x->grad()), (std::vector<double>{33}));
  tc::autograd::backward(y, nullptr, false);  // accumulates
  EXPECT_EQ(values(x->grad()), (std::vector<double>{66}));
}

TEST_F(Autograd, DiamondGraphChecked) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        Tensor a = ops::unary(ops::row::tanh, x[0]);
        Tensor b = ops::mul(a, x[1]);
        Tensor c = ops::unary(ops::row::exp, a);
        return ops::add(ops::mul(b, c), ops::sum(a, {1}, true));
      },
      {randn({3, 4}), randn({4})}));
}

TEST_F(Autograd, RootIsALeaf) {
  Tensor x = tensor({1, 2}, {2});
  x->requires_grad = true;
  tc::autograd::backward(x, tensor({5, 6}, {2}), false);
  EXPECT_EQ(values(x->grad()), (std::vector<double>{5, 6}));
}

TEST_F(Autograd, RetainGradOfNonLeaf) {
  Tensor x = tensor({1, 2}, {2});
  x->requires_grad = true;
  Tensor h = ops::mul_scalar(x, 3);
  tc::autograd::retain_grad(h);
  Tensor y = ops::sum(ops::mul(h, h), {}, false);
  tc::autograd::backward(y, nullptr, false);
  ASSERT_TRUE(h->grad());
  EXPECT_EQ(values(h->grad()), (std::vector<double>{6, 12}));
  EXPECT_EQ(values(x->grad()), (std::vector<double>{18, 36}));
  Tensor other = ops::mul_scalar(x, 2);  // not retained: no grad kept
  tc::autograd::backward(ops::sum(other, {}, false), nullptr, false);
  EXPECT_FALSE(other->grad());
}

TEST_F(Autograd, NoGradAndDetach) {
  Tensor x = randn({2});
  x->requires_grad = true;
  {
    tc::NoGradGuard ng;
    Tensor y = ops::mul(x, x);
    EXPECT_FALSE(y->requires_grad);
    EXPECT_FALSE(y->grad_fn);
  }
  Tensor d = ops::detach(x);
  EXPECT_FALSE(d->requires_grad);
  EXPECT_TRUE(d->is_leaf());
  EXPECT_EQ(d->storage, x->storage);
}

TEST_F(Autograd, FreedGraphError) {
  Tensor x = randn({3});
  x->requires_grad = true;
  Tensor y = ops::sum(ops::mul(x, x), {}, false);
  tc::autograd::backward(y, nullptr, false);
  const std::string msg = message_of([&] { tc::autograd::backward(y, nullptr, false); });
  EXPECT_NE(msg.find("Trying to backward through the graph a second time"), std::string::npos) << msg;
  EXPECT_NE(msg.find("MulBackward"), std::string::npos) << msg;
  EXPECT_NE(msg.find("retain_graph"), std::string::npos) << msg;
  EXPECT_EQ(expect_code([&] { tc::autograd::backward(y, nullptr, false); }), TC_ERR_AUTOGRAD);
}

TEST_F(Autograd, InPlaceModifiedSavedTensorError) {
  Tensor a = randn({3}), x = randn({3});
  x->requires_grad = true;
  Tensor y = ops::sum(ops::mul(a, x), {}, false);
  ops::add_(a, tensor({1}, {1}));  // a was saved by MulBackward
  const std::string msg = message_of([&] { tc::autograd::backward(y, nullptr, false); });
  EXPECT_NE(msg.find("a tensor MulBackward saved was modified in place: version 1, expected 0"),
            std::string::npos)
      << msg;
  EXPECT_EQ(expect_code([&] { tc::autograd::backward(y, nullptr, true); }), TC_ERR_AUTOGRAD);
  // The output of exp is saved too: modifying it through a view is caught.
  Tensor z = ops::unary(ops::row::exp, x);
  Tensor zd = ops::detach(z);
  ops::mul_(zd, tensor({2}, {}));
  EXPECT_EQ(expect_code([&] { tc::autograd::backward(ops::sum(z, {}, false), nullptr, false); }),
            TC_ERR_AUTOGRAD);
}

TEST_F(Autograd, RootErrors) {
  Tensor x = randn({3});
  EXPECT_EQ(expect_code([&] { tc::autograd::backward(x, nullptr, false); }), TC_ERR_AUTOGRAD);  // no grad
  x->requires_grad = true;
  Tensor y = ops::mul_scalar(x, 2);
  const std::string msg = message_of([&] { tc::autograd::backward(y, nullptr, true); });
  EXPECT_NE(msg.find("one-element"), std::string::npos) << msg;
  EXPECT_EQ(expect_code([&] { tc::autograd::backward(y, nullptr, true); }), TC_ERR_AUTOGRAD);
  // A gradient of the wrong shape or dtype: the shape and dtype codes, like every other op.
  EXPECT_EQ(expect_code([&] { tc::autograd::backward(y, randn({4}), true); }), TC_ERR_SHAPE);
  EXPECT_EQ(expect_code([&] { tc::autograd::backward(y, randn({3}, DType::f32), true); }), TC_ERR_DTYPE);
  EXPECT_NE(
      message_of([&] { tc::autograd::backward(y, randn({4}), true); }).find("the gradient has shape [4]"),
      std::string::npos);
  tc::autograd::backward(y, tensor({1, 2, 3}, {3}), false);
  EXPECT_EQ(values(x->grad()), (std::vector<double>{2, 4, 6}));
}

TEST_F(Autograd, InPlaceOnTensorsRequiringGrad) {
  Tensor x = randn({3});
  x->requires_grad = true;
  EXPECT_EQ(expect_code([&] { ops::add_(x, tensor({1}, {1})); }), TC_ERR_AUTOGRAD);
  Tensor y = ops::mul_scalar(x, 2);
  EXPECT_EQ(expect_code([&] { ops::mul_(y, tensor({1}, {1})); }), TC_ERR_AUTOGRAD);
  {
    tc::NoGradGuard ng;  // allowed under no-grad (what optimizers do)
    const int64_t v = x->version();
    ops::add_(x, tensor({1}, {1}));
    EXPECT_EQ(x->version(), v + 1);
  }
}

TEST_F(Autograd, ThroughTheAbi) {
  int64_t shape[] = {3};
  tc_tensor x = nullptr, y = nullptr, s = nullptr, g = nullptr;
  ASSERT_TRUE(ok(tc_full(shape, 1, 2.0, TC_FLOAT32, TC_CPU, &x)));
  EXPECT_TRUE(ok(tc_tensor_grad(x, &g)));
  EXPECT_EQ(g, nullptr);
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(x, 1)));
  ASSERT_TRUE(ok(tc_mul(x, x, &y)));
  char name[64];
  int64_t needed = 0;
  ASSERT_TRUE(ok(tc_tensor_grad_fn_name(y, name, sizeof name, &needed)));
  EXPECT_STREQ(name, "MulBackward");
  int32_t leaf = -1;
  ASSERT_TRUE(ok(tc_tensor_is_leaf(y, &leaf)));
  EXPECT_EQ(leaf, 0);
  EXPECT_EQ(tc_tensor_set_requires_grad(y, 0), TC_ERR_AUTOGRAD);
  EXPECT_EQ(tc_backward(y, nullptr, 1), TC_ERR_AUTOGRAD);  // non-scalar without grad
  EXPECT_NE(last_error().find("tc_backward"), std::string::npos);
  ASSERT_TRUE(ok(tc_sum(y, nullptr, 0, 0, &s)));
  ASSERT_TRUE(ok(tc_backward(s, nullptr, 0)));
  ASSERT_TRUE(ok(tc_tensor_grad(x, &g)));
  ASSERT_NE(g, nullptr);
  float buf[3];
  ASSERT_TRUE(ok(tc_tensor_copy_to(g, buf, sizeof buf)));
  EXPECT_EQ(buf[0], 4.0f);
  EXPECT_EQ(tc_backward(s, nullptr, 0), TC_ERR_AUTOGRAD);
  EXPECT_NE(last_error().find("second time"), std::string::npos);
  ASSERT_TRUE(ok(tc_tensor_clear_grad(x)));
  tc_tensor none = nullptr;
  ASSERT_TRUE(ok(tc_tensor_grad(x, &none)));
  EXPECT_EQ(none, nullptr);
  int32_t prev = -1;
  ASSERT_TRUE(ok(tc_set_grad_enabled(0, &prev)));
  EXPECT_EQ(prev, 1);
  tc_tensor z = nullptr;
  ASSERT_TRUE(ok(tc_mul(x, x, &z)));
  int32_t rg = -1;
  ASSERT_TRUE(ok(tc_tensor_requires_grad(z, &rg)));
  EXPECT_EQ(rg, 0);
  ASSERT_TRUE(ok(tc_set_grad_enabled(prev, nullptr)));
  tc_tensor ints = nullptr;
  ASSERT_TRUE(ok(tc_zeros(shape, 1, TC_INT64, TC_CPU, &ints)));
  EXPECT_EQ(tc_tensor_set_requires_grad(ints, 1), TC_ERR_DTYPE);
  for (tc_tensor t : {x, y, s, g, z, ints}) EXPECT_TRUE(ok(tc_tensor_free(t)));
}

TEST_F(Autograd, GraphDiesWithItsTensors) {
  // No reference cycles: outputs saved by their own node (exp) are freed too.
  {
    Tensor x = randn({4});
    x->requires_grad = true;
    Tensor y = ops::unary(ops::row::exp, ops::unary(ops::row::sigmoid, x));
    Tensor z = ops::sum(y, {}, false);
  }
  int64_t live = -1;
  tc_get_flag("live_tensors", &live);
  EXPECT_EQ(live, 0);
}
