// What the small-op speedup changed on a small op's path, and what must not
// change with it: the per-thread block pool (object_pool.h) that TensorImpl,
// Storage and graph nodes come from, the per-thread live-tensor counts, and
// record_function taking braced lists
// (TensorList) and the op's lambda inline in its node. The recording tests pin
// the semantics the rewritten call sites (binary, unary) must keep: which ops
// save which tensors (and so which fail a second backward or after an
// in-place change, as in PyTorch), and gradients by finite differences.
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "core/object_pool.h"
#include "gradcheck.h"
#include "math/rows/unary_exp.h"
#include "math/rows/unary_relu.h"
#include "math/rows/unary_sin.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

namespace {
void backward(const Tensor& root, bool retain = false) { tc::autograd::backward(root, nullptr, retain); }
int32_t backward_status(const Tensor& root, bool retain = false) {
  try {
    backward(root, retain);
    return TC_OK;
  } catch (const tc::Error& e) {
    return e.code();
  }
}
int32_t add_in_place(const Tensor& self, const Tensor& other) {
  try {
    ops::add_(self, other);
    return TC_OK;
  } catch (const tc::Error& e) {
    return e.code();
  }
}
}  // namespace

TEST(ObjectPool, BlocksAreAlignedWritableAndReusedWithinTheirClass) {
  std::vector<void*> blocks;
  for (size_t n : {size_t(0), size_t(1), size_t(64), size_t(65), size_t(448), size_t(1024)}) {
    void* p = tc::pool_alloc(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % __STDCPP_DEFAULT_NEW_ALIGNMENT__, 0u) << n;
    std::memset(p, 0xab, n);  // the whole request is usable (ASan checks the bounds)
    blocks.push_back(p);
  }
  // A freed block serves the next request of its class, whatever size freed it.
  void* p = tc::pool_alloc(400);
  tc::pool_free(p, 400);
  void* q = tc::pool_alloc(448);
  // Under ASan the pool is off, so that a use after free is caught (GCC and
  // clang name ASan differently, as src/core/object_pool.cpp says).
#if defined(__SANITIZE_ADDRESS__)
#define TC_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TC_TEST_ASAN 1
#endif
#endif
#ifndef TC_TEST_ASAN
  EXPECT_EQ(p, q);
#endif
  std::memset(q, 0, 448);
  tc::pool_free(q, 448);
  const size_t sizes[] = {0, 1, 64, 65, 448, 1024};
  for (size_t i = 0; i < blocks.size(); ++i) tc::pool_free(blocks[i], sizes[i]);
}

TEST(ObjectPool, VectorsGrowFromPoolBlocksToOperatorNewAndBack) {
  // A node's edge vector uses PoolAllocator for any count: pooled while it
  // fits a block (kPoolMaxBytes), operator new beyond.
  std::vector<int64_t, tc::PoolAllocator<int64_t>> v;
  for (int64_t i = 0; i < 1000; ++i) v.push_back(i * 3);
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(v[size_t(i)], i * 3);
  v.resize(5);
  v.shrink_to_fit();
  EXPECT_EQ(v, (std::vector<int64_t, tc::PoolAllocator<int64_t>>{0, 3, 6, 9, 12}));
}

TEST(ObjectPool, ListsAreCappedAndGivenBackAtThreadExit) {
  // More blocks than a list keeps, freed on a thread that then exits: the
  // surplus goes to operator delete at once, the rest when the thread ends
  // (LeakSanitizer in the ASan stage and valgrind would report either leak).
  std::vector<void*> blocks;
  for (int i = 0; i < 3 * tc::kPoolPerClass; ++i) blocks.push_back(tc::pool_alloc(200));
  std::thread t([&] {
    for (void* b : blocks) tc::pool_free(b, 200);
  });
  t.join();
}

class SmallOpCost : public TcTest {};

TEST_F(SmallOpCost, TensorsMadeOnOneThreadDieOnOthers) {
  // Blocks travel: made from this thread's lists, freed into other threads'
  // (which exit while holding them), then this thread makes more.
  for (int round = 0; round < 3; ++round) {
    std::vector<Tensor> made;
    for (int i = 0; i < 500; ++i) made.push_back(ops::add(randn({1}), randn({3})));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      std::vector<Tensor> share(made.begin() + t * 125, made.begin() + (t + 1) * 125);
      threads.emplace_back([share = std::move(share)]() mutable {
        for (Tensor& x : share) x.reset();
      });
    }
    made.clear();
    for (auto& th : threads) th.join();
    int64_t live = -1;
    ASSERT_EQ(tc_get_flag("live_tensors", &live), TC_OK);
    EXPECT_EQ(live, 0);
  }
  // And graphs (pooled nodes) built on one thread, run and freed on another.
  Tensor w = leaf({1, 2, 3}, {3});
  Tensor loss = ops::sum(ops::mul(w, w), {}, false);
  std::thread([loss = std::move(loss)]() mutable {
    backward(loss);
    loss.reset();
  }).join();
  EXPECT_EQ(values(w->grad()), (std::vector<double>{2, 4, 6}));
}

TEST_F(SmallOpCost, LiveTensorCountIsExactAcrossThreadsThatExit) {
  // Each thread counts in its own slot (tensor.cpp): a thread that exits
  // with tensors it made still alive leaves its count behind, and a thread
  // that only destroys tensors counts without a slot.
  const int64_t live0 = tc::live_tensor_count();
  std::vector<Tensor> handed;
  std::thread maker([&] {
    for (int i = 0; i < 10; ++i) handed.push_back(randn({2}));
    Tensor local = randn({3});  // made and destroyed here
  });
  maker.join();
  EXPECT_EQ(tc::live_tensor_count(), live0 + 10);
  std::thread destroyer([&] { handed.resize(4); });
  destroyer.join();
  EXPECT_EQ(tc::live_tensor_count(), live0 + 4);
  handed.clear();
  EXPECT_EQ(tc::live_tensor_count(), live0);
  // Counting threads and a reader at the same time (TSan: no race).
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop.load()) (void)tc::live_tensor_count();
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; ++t)
    workers.emplace_back([] {
      for (int i = 0; i < 200; ++i) Tensor x = ops::add(randn({1}), randn({1}));
    });
  for (auto& w : workers) w.join();
  stop = true;
  reader.join();
  EXPECT_EQ(tc::live_tensor_count(), live0);
}

TEST_F(SmallOpCost, AddSavesNothingAndRunsTwiceMulSavesBothInputs) {
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor a = leaf({1, 2}, {2}, dt), b = leaf({3, 4}, {2}, dt);
    // AddBackward and SumBackward save nothing: PyTorch runs such a graph again.
    Tensor s = ops::sum(ops::add(a, b), {}, false);
    EXPECT_EQ(backward_status(s), TC_OK);
    EXPECT_EQ(backward_status(s), TC_OK);
    EXPECT_EQ(values(a->grad()), (std::vector<double>{2, 2}));
    a->set_grad(nullptr);
    b->set_grad(nullptr);
    // MulBackward saved a and b: the second pass finds them freed.
    Tensor m = ops::sum(ops::mul(a, b), {}, false);
    EXPECT_EQ(backward_status(m), TC_OK);
    EXPECT_EQ(backward_status(m), TC_ERR_AUTOGRAD);
    EXPECT_EQ(values(a->grad()), (std::vector<double>{3, 4}));
    EXPECT_EQ(values(b->grad()), (std::vector<double>{1, 2}));
  }
}

TEST_F(SmallOpCost, SavedInputsAndOutputsStillCatchInPlaceChanges) {
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor one = tensor({1, 1}, {2}, dt);
    // mul saves its inputs: changing one afterwards fails its backward.
    Tensor a = leaf({1, 2}, {2}, dt), x = tensor({3, 4}, {2}, dt);
    Tensor m = ops::sum(ops::mul(a, x), {}, false);
    ASSERT_EQ(add_in_place(x, one), TC_OK);
    EXPECT_EQ(backward_status(m), TC_ERR_AUTOGRAD);
    // add saves nothing: the same change is harmless.
    Tensor y = tensor({3, 4}, {2}, dt);
    Tensor s = ops::sum(ops::add(a, y), {}, false);
    ASSERT_EQ(add_in_place(y, one), TC_OK);
    EXPECT_EQ(backward_status(s), TC_OK);
    // exp saves its output (an alias): changing that output fails its backward.
    Tensor e = ops::unary(ops::row::exp, a);
    Tensor se = ops::sum(ops::mul_scalar(e, 1.0), {}, false);
    {
      tc::NoGradGuard no_grad;
      ops::add_(e, one);  // outside the graph: no new node, only the version bump
    }
    EXPECT_EQ(backward_status(se), TC_ERR_AUTOGRAD);
    // sin saves its input: the same for a change of the input.
    Tensor xi = tensor({0.5, 1.0}, {2}, dt);
    Tensor li = leaf({0.5, 1.0}, {2}, dt);
    Tensor si = ops::sum(ops::unary(ops::row::sin, ops::mul(li, xi)), {}, false);
    EXPECT_EQ(backward_status(si), TC_OK);
    Tensor xj = tensor({0.5, 1.0}, {2}, dt);
    Tensor sj = ops::sum(ops::unary(ops::row::sin, ops::mul(li, xj)), {}, false);
    {
      tc::NoGradGuard no_grad;
      ops::add_(xj, one);  // mul's saved input
    }
    EXPECT_EQ(backward_status(sj), TC_ERR_AUTOGRAD);
  }
}

TEST_F(SmallOpCost, NothingIsRecordedWithoutGrad) {
  Tensor a = randn({3}), b = randn({3});
  EXPECT_EQ(ops::sum(ops::add(a, b), {}, false)->grad_fn, nullptr);
  EXPECT_EQ(ops::unary(ops::row::relu, a)->grad_fn, nullptr);
  Tensor w = leaf({1, 2, 3}, {3});
  {
    tc::NoGradGuard no_grad;
    EXPECT_EQ(ops::sum(ops::mul(w, a), {}, false)->grad_fn, nullptr);
    EXPECT_EQ(ops::unary(ops::row::exp, w)->grad_fn, nullptr);
  }
  EXPECT_STREQ(ops::sum(w, {}, false)->grad_fn->name(), "SumBackward");
  EXPECT_STREQ(ops::mul(w, a)->grad_fn->name(), "MulBackward");
  EXPECT_STREQ(ops::unary(ops::row::exp, w)->grad_fn->name(), "ExpBackward");
}

TEST_F(SmallOpCost, GradientsOfTheRewrittenCallSitesMatchFiniteDifferences) {
  // Broadcast and non-contiguous operands, saving (mul, div, exp: output;
  // sin: input) and non-saving (add, relu) rows, and the tiny graph itself.
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::mul(x[0], x[1]); },
                        {noncontiguous(randn({3, 4})), randn({4})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::add(x[0], x[1]); }, {randn({3, 4}), randn({4})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::div(x[0], x[1]); },
                        {randn({2, 3}), uniform({3}, 1.0, 2.0)}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::unary(ops::row::exp, x[0]); },
                        {noncontiguous(randn({3, 4}))}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::unary(ops::row::sin, x[0]); }, {randn({5})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::unary(ops::row::relu, x[0]); },
                        {tensor({-1.5, -0.5, 0.5, 1.5}, {4})}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return ops::sum(ops::unary(ops::row::relu, ops::add(ops::mul(x[0], x[1]), x[2])), {}, false);
      },
      {tensor({0.5, -1.0, 2.0, -0.25}, {4}), tensor({1.5, 0.75, -2.0, 1.0}, {4}),
       tensor({0.1, 0.2, -0.3, 0.4}, {4})}));
  // 0-d and empty operands.
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::mul(x[0], x[1]); }, {randn({}), randn({3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::add(x[0], x[1]); }, {randn({0, 3}), randn({3})}));
}
