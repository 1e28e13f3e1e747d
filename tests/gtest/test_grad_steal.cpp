// AccumulateGrad keeps an incoming gradient nobody else holds as the leaf's
// .grad without copying it (autograd/engine.cpp, steals_gradient). These
// tests would fail if a kept buffer were shared: with another leaf, a hook's
// captured tensor, a retained grad, the caller's gradient or a view.
#include "autograd/function.h"
#include "autograd/hooks.h"
#include "gradcheck.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class GradSteal : public TcTest {};

namespace {
void backward(const Tensor& root) { tc::autograd::backward(root, nullptr, false); }
}  // namespace

TEST_F(GradSteal, OneGradientForTwoLeavesGivesTwoBuffers) {
  for (DType dt : {DType::f32, DType::f64}) {
    // AddBackward hands the same tensor (2y) to a and to b: at most one of
    // them may keep it.
    Tensor a = leaf({1, 2, 3}, {3}, dt), b = leaf({4, 5, 6}, {3}, dt);
    Tensor y = ops::add(a, b);
    backward(ops::sum(ops::mul(y, y), {}, false));
    Tensor ga = a->grad(), gb = b->grad();
    ASSERT_TRUE(ga && gb);
    EXPECT_NE(ga->storage, gb->storage);
    EXPECT_EQ(values(ga), (std::vector<double>{10, 14, 18}));
    ops::add_(ga, ga);  // writing one leaf's grad leaves the other's alone
    EXPECT_EQ(values(gb), (std::vector<double>{10, 14, 18}));
    EXPECT_EQ(values(ga), (std::vector<double>{20, 28, 36}));
  }
}

TEST_F(GradSteal, HookThatKeepsTheGradientGetsItsOwnCopy) {
  Tensor a = leaf({1, 2}, {2});
  Tensor captured;
  tc::autograd::register_grad_hook(a, [&](const Tensor& g) {
    captured = g;
    return Tensor();
  });
  backward(ops::sum(ops::mul(a, tensor({1.5, 3}, {2})), {}, false));  // MulBackward's product: new
  ASSERT_TRUE(captured && a->grad());
  EXPECT_NE(captured->storage, a->grad()->storage);
  ops::add_(a->grad(), a->grad());
  EXPECT_EQ(values(captured), (std::vector<double>{1.5, 3}));
  EXPECT_EQ(values(a->grad()), (std::vector<double>{3, 6}));
}

TEST_F(GradSteal, RetainedGradAndLeafGradAreSeparate) {
  // y is a view of a: ViewBackward passes y's gradient on as a view, and y
  // retains its own grad.
  Tensor a = leaf({1, 2, 3, 4}, {4});
  Tensor y = ops::reshape(a, {2, 2});
  tc::autograd::retain_grad(y);
  backward(ops::sum(ops::mul(y, y), {}, false));
  Tensor ga = a->grad(), gy = y->grad();
  ASSERT_TRUE(ga && gy);
  EXPECT_NE(ga->storage, gy->storage);
  ops::add_(ga, ga);
  EXPECT_EQ(values(gy), (std::vector<double>{2, 4, 6, 8}));
  EXPECT_EQ(values(ga), (std::vector<double>{4, 8, 12, 16}));
}

TEST_F(GradSteal, CallersGradientIsNeverKept) {
  Tensor a = leaf({1, 2}, {2});
  Tensor g = tensor({5, 7}, {2});
  tc::autograd::backward(a, g, false);  // a leaf root: .grad from the caller's tensor
  ASSERT_TRUE(a->grad());
  EXPECT_NE(a->grad()->storage, g->storage);
  Tensor b = leaf({1, 2}, {2});
  Tensor y = ops::mul_scalar(b, 1.0);
  tc::autograd::backward(y, g, false);  // MulBackward's product is new; g stays the caller's
  ops::add_(g, g);
  EXPECT_EQ(values(a->grad()), (std::vector<double>{5, 7}));
  EXPECT_EQ(values(b->grad()), (std::vector<double>{5, 7}));
}

TEST_F(GradSteal, TransposedGradientBecomesContiguous) {
  // x.t()'s backward hands x a transposed view: .grad is a dense copy.
  Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = tensor({1, 10}, {2});
  backward(ops::sum(ops::mul(ops::transpose(x, 0, 1), w), {}, false));
  Tensor gx = x->grad();
  ASSERT_TRUE(gx);
  EXPECT_TRUE(gx->is_contiguous());
  EXPECT_EQ(values(gx), (std::vector<double>{1, 1, 1, 10, 10, 10}));
}

TEST_F(GradSteal, KeptGradientAccumulatesInPlaceAcrossBackwards) {
  // linear's weight gradient is a new GEMM result: kept on the first
  // backward, summed into on the second, and equal to twice one pass.
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = leaf({0.5, -1, 2, 1, 0, -0.5}, {2, 3}), b = leaf({0.25, -0.25}, {2});
  for (int pass = 0; pass < 2; ++pass) backward(ops::sum(ops::linear(x, w, b), {}, false));
  EXPECT_EQ(values(w->grad()), (std::vector<double>{10, 14, 18, 10, 14, 18}));
  EXPECT_EQ(values(b->grad()), (std::vector<double>{4, 4}));
}

TEST_F(GradSteal, StealsOnlyAnUnsharedDenseTensor) {
  Tensor g = tc::empty({2, 3}, DType::f32);
  EXPECT_TRUE(tc::autograd::steals_gradient(g));
  Tensor other = g;  // a second reference
  EXPECT_FALSE(tc::autograd::steals_gradient(g));
  other.reset();
  Tensor view = tc::make_view(g, {3}, {1}, 0);  // a live view of its buffer
  EXPECT_FALSE(tc::autograd::steals_gradient(g));
  view.reset();
  Tensor strided = tc::make_view(tc::empty({4}, DType::f32), {2}, {2}, 0);  // every other element
  EXPECT_FALSE(tc::autograd::steals_gradient(strided));
  Tensor part = tc::make_view(tc::empty({4}, DType::f32), {2}, {1}, 0);  // half its buffer
  EXPECT_FALSE(tc::autograd::steals_gradient(part));
  Tensor t = ops::transpose(tc::empty({2, 3}, DType::f32), 0, 1);
  EXPECT_FALSE(tc::autograd::steals_gradient(t));
  Tensor ro = tc::empty({2}, DType::f32);
  ro->storage->read_only = true;
  EXPECT_FALSE(tc::autograd::steals_gradient(ro));
}
