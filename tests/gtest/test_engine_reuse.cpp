// What the engine now keeps between steps (autograd/engine.cpp): a leaf's
// AccumulateGrad node, cached weakly on the leaf and shared by the graphs
// that record it, and each thread's backward scratch (node list, pending
// gradients). These tests would fail if the cached node outlived its use or
// pinned the leaf, or if a pass saw what an earlier, a failed or an enclosing
// pass left in the scratch.
#include <thread>

#include "autograd/function.h"
#include "autograd/hooks.h"
#include "gradcheck.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class EngineReuse : public TcTest {};

namespace {
void backward(const Tensor& root, bool retain = false) { tc::autograd::backward(root, nullptr, retain); }
}  // namespace

TEST_F(EngineReuse, GraphsRecordingOneLeafShareItsAccumulateGrad) {
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor w = leaf({1, 2}, {2}, dt);
    Tensor y1 = ops::mul(w, w), y2 = ops::add(w, w);
    ASSERT_EQ(y1->grad_fn->next.size(), 2u);
    EXPECT_EQ(y1->grad_fn->next[0].node, y1->grad_fn->next[1].node);
    EXPECT_EQ(y1->grad_fn->next[0].node, y2->grad_fn->next[0].node);
    EXPECT_STREQ(y1->grad_fn->next[0].node->name(), "AccumulateGrad");
    backward(ops::sum(y1, {}, false));
    backward(ops::sum(y2, {}, false));  // 2w + 2 accumulated over both graphs
    EXPECT_EQ(values(w->grad()), (std::vector<double>{4, 6}));
  }
}

TEST_F(EngineReuse, CachedNodeDiesWithItsGraphsAndNeverPinsTheLeaf) {
  std::weak_ptr<tc::TensorImpl> gone;
  std::weak_ptr<tc::autograd::Node> node;
  {
    Tensor w = leaf({3}, {1});
    Tensor y = ops::mul(w, w);
    node = y->grad_fn->next[0].node;
    gone = w;
  }  // the graph (y) and the leaf die: the node held the leaf, nothing holds the node
  EXPECT_TRUE(node.expired());
  EXPECT_TRUE(gone.expired());
  // A new graph over a live leaf whose old graph died gets a new node that works.
  Tensor w = leaf({3}, {1});
  std::weak_ptr<tc::autograd::Node> first;
  {
    Tensor y = ops::mul(w, w);
    first = y->grad_fn->next[0].node;
  }
  EXPECT_TRUE(first.expired());
  backward(ops::sum(ops::mul(w, w), {}, false));
  EXPECT_EQ(values(w->grad()), (std::vector<double>{6}));
}

TEST_F(EngineReuse, FailedPassLeavesNothingForTheNext) {
  Tensor w = leaf({1, 2, 3}, {3});
  Tensor x = tensor({1, 1, 1}, {3});
  Tensor root = ops::sum(ops::mul(ops::mul(w, x), w), {}, false);
  ops::add_(x, tensor({1, 1, 1}, {3}));  // x was saved: this backward must fail
  EXPECT_ANY_THROW(backward(root));
  w->set_grad(nullptr);
  // The same thread's next passes, small and over the linear-scan limit.
  backward(ops::sum(ops::mul(w, w), {}, false));
  EXPECT_EQ(values(w->grad()), (std::vector<double>{2, 4, 6}));
  Tensor chain = w;
  for (int i = 0; i < 40; ++i) chain = ops::mul(chain, tensor({1, 1, 1}, {3}));
  w->set_grad(nullptr);
  backward(ops::sum(chain, {}, false));
  EXPECT_EQ(values(w->grad()), (std::vector<double>{1, 1, 1}));
  w->set_grad(nullptr);
  backward(ops::sum(ops::add(w, w), {}, false));
  EXPECT_EQ(values(w->grad()), (std::vector<double>{2, 2, 2}));
}

TEST_F(EngineReuse, BackwardInsideAHookOfABackwardOnTheSameThread) {
  Tensor w = leaf({1, 2}, {2}), v = leaf({5, 7}, {2});
  Tensor inner_root = ops::sum(ops::mul(v, v), {}, false);
  bool ran = false;
  auto reg = tc::autograd::register_grad_hook(w, [&](const Tensor&) {
    backward(inner_root);  // a whole pass nested in the outer one's scratch
    ran = true;
    return Tensor();
  });
  Tensor y = ops::mul(ops::mul(w, w), tensor({3, 3}, {2}));
  backward(ops::sum(y, {}, false));
  EXPECT_TRUE(ran);
  EXPECT_EQ(values(w->grad()), (std::vector<double>{6, 12}));
  EXPECT_EQ(values(v->grad()), (std::vector<double>{10, 14}));
}

TEST_F(EngineReuse, ThreadsSharingALeafAccumulateEveryGradient) {
  Tensor w = leaf({1}, {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) backward(ops::sum(ops::mul(w, tensor({1}, {1})), {}, false));
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(values(w->grad()), (std::vector<double>{800}));
}
