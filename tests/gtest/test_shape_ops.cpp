// cat, stack, split, chunk, gather, index_select, one_hot, and the in-place ops.
#include "gradcheck.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class ShapeOps : public TcTest {};

TEST_F(ShapeOps, CatStackValuesAndPromotion) {
  Tensor a = tensor({1, 2, 3, 4}, {2, 2}), b = tensor({5, 6}, {1, 2}, DType::i32);
  Tensor c = ops::cat({a, b}, 0);
  EXPECT_EQ(c->shape, (tc::Dims{3, 2}));
  EXPECT_EQ(c->dtype, DType::f64);
  EXPECT_EQ(values(c), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(ops::cat({a, a}, -1)), (std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4}));
  Tensor s = ops::stack({a, a}, 1);
  EXPECT_EQ(s->shape, (tc::Dims{2, 2, 2}));
  EXPECT_EQ(values(s), (std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_EQ(code_of([&] { ops::cat({a, tensor({1, 2, 3}, {1, 3})}, 0); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::cat({a, tensor({1, 2}, {2})}, 0); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::stack({a, b}, 0); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::cat({a}, 2); }), TC_ERR_INDEX);
}

TEST_F(ShapeOps, SplitChunk) {
  Tensor a = tensor({0, 1, 2, 3, 4}, {5});
  auto p = ops::split(a, 2, 0);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(values(p[2]), (std::vector<double>{4}));
  EXPECT_EQ(p[1]->storage, a->storage);
  auto q = ops::chunk(a, 2, 0);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(values(q[0]), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(ops::chunk(tensor({1, 2, 3, 4, 5, 6}, {6}), 4, 0).size(), 3u);  // like torch: ceil pieces
  EXPECT_EQ(code_of([&] { ops::split(a, 0, 0); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::chunk(a, 0, 0); }), TC_ERR_INVALID_ARGUMENT);
}

TEST_F(ShapeOps, GatherIndexSelectOneHot) {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor idx = tensor({2, 0, 1, 1}, {2, 2}, DType::i64);
  EXPECT_EQ(values(ops::gather(a, 1, idx)), (std::vector<double>{3, 1, 5, 5}));
  EXPECT_EQ(values(ops::gather(a, 0, tensor({1, 0, 1}, {1, 3}, DType::i64))), (std::vector<double>{4, 2, 6}));
  EXPECT_EQ(values(ops::index_select(a, 1, tensor({2, 2, 0}, {3}, DType::i64))),
            (std::vector<double>{3, 3, 1, 6, 6, 4}));
  Tensor oh = ops::one_hot(tensor({0, 2, 1}, {3}, DType::i64), -1);
  EXPECT_EQ(oh->dtype, DType::i64);
  EXPECT_EQ(oh->shape, (tc::Dims{3, 3}));
  EXPECT_EQ(values(oh), (std::vector<double>{1, 0, 0, 0, 0, 1, 0, 1, 0}));
  EXPECT_EQ(ops::one_hot(tensor({1}, {1}, DType::i64), 5)->shape, (tc::Dims{1, 5}));
  EXPECT_EQ(code_of([&] { ops::gather(a, 1, tensor({3}, {1, 1}, DType::i64)); }), TC_ERR_INDEX);
  EXPECT_EQ(code_of([&] { ops::gather(a, 1, tensor({0}, {1, 1}, DType::i32)); }), TC_ERR_DTYPE);
  EXPECT_EQ(code_of([&] { ops::gather(a, 1, tensor({0}, {1}, DType::i64)); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::index_select(a, 0, tensor({-1}, {1}, DType::i64)); }), TC_ERR_INDEX);
  EXPECT_EQ(code_of([&] { ops::one_hot(tensor({3}, {1}, DType::i64), 3); }), TC_ERR_INDEX);
}

TEST_F(ShapeOps, Gradients) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return ops::cat({x[0], x[1]}, 1);
      },
      {randn({2, 3}), noncontiguous(randn({2, 2}))}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return ops::stack({x[0], x[1]}, 0);
      },
      {randn({3}), randn({3})}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        auto p = ops::split(x[0], 2, 1);
        return ops::mul(p[0], ops::narrow(p[1], 1, 0, 1));
      },
      {randn({2, 3})}));
  Tensor idx = tensor({2, 0, 2, 1}, {2, 2}, DType::i64);  // repeated index: gradients add
  EXPECT_TRUE(gradcheck([idx](const Inputs& x) { return ops::gather(x[0], 1, idx); },
                        {noncontiguous(randn({2, 3}))}));
  Tensor sel = tensor({1, 1, 0}, {3}, DType::i64);
  EXPECT_TRUE(gradcheck([sel](const Inputs& x) { return ops::index_select(x[0], 0, sel); }, {randn({2, 3})}));
}

TEST_F(ShapeOps, InPlace) {
  Tensor a = tensor({1, 2, 3, 4}, {2, 2});
  const int64_t v0 = a->version();
  ops::add_(a, tensor({10, 20}, {2}));
  EXPECT_EQ(values(a), (std::vector<double>{11, 22, 13, 24}));
  ops::sub_(a, tensor({1}, {}));
  ops::mul_(a, tensor({2}, {1}));
  ops::div_(a, tensor({4}, {}));
  EXPECT_EQ(values(a), (std::vector<double>{5, 10.5, 6, 11.5}));
  EXPECT_EQ(a->version(), v0 + 4);
  ops::fill_(a, 3);
  EXPECT_EQ(values(a), (std::vector<double>{3, 3, 3, 3}));
  ops::zero_(a);
  EXPECT_EQ(values(a), (std::vector<double>{0, 0, 0, 0}));
  ops::copy_(a, tensor({7, 8}, {2}, DType::i32));
  EXPECT_EQ(values(a), (std::vector<double>{7, 8, 7, 8}));
  EXPECT_EQ(a->version(), v0 + 7);
  // Through a view: the base's version moves too (one counter per storage).
  ops::fill_(ops::select(a, 0, 1), 0);
  EXPECT_EQ(values(a), (std::vector<double>{7, 8, 0, 0}));
  EXPECT_EQ(a->version(), v0 + 8);
  // Errors: shape, dtype.
  EXPECT_EQ(code_of([&] { ops::add_(a, tensor({1, 2, 3}, {3})); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::add_(tensor({1}, {1}), tensor({1, 2}, {2})); }), TC_ERR_SHAPE);
  Tensor i = tensor({1, 2}, {2}, DType::i64);
  EXPECT_EQ(code_of([&] { ops::add_(i, tensor({1.5, 1}, {2})); }), TC_ERR_DTYPE);
  EXPECT_EQ(code_of([&] { ops::div_(i, i); }), TC_ERR_DTYPE);
  ops::add_(i, tensor({1, 1}, {2}, DType::i32));
  EXPECT_EQ(values(i), (std::vector<double>{2, 3}));
}

TEST_F(ShapeOps, ThroughTheAbi) {
  int64_t shape[] = {4};
  tc_tensor a = nullptr, b = nullptr, c = nullptr;
  ASSERT_TRUE(ok(tc_arange(0, 4, 1, TC_FLOAT32, TC_CPU, &a)));
  ASSERT_TRUE(ok(tc_ones(shape, 1, TC_FLOAT32, TC_CPU, &b)));
  tc_tensor both[] = {a, b};
  ASSERT_TRUE(ok(tc_cat(both, 2, 0, &c)));
  tc_tensor pieces[4] = {};
  int64_t count = 0;
  EXPECT_EQ(tc_split(c, 3, 0, pieces, 1, &count), TC_ERR_INVALID_ARGUMENT);  // cap too small
  EXPECT_EQ(count, 3);
  EXPECT_EQ(pieces[0], nullptr);
  ASSERT_TRUE(ok(tc_split(c, 3, 0, pieces, 4, &count)));
  EXPECT_EQ(count, 3);
  ASSERT_TRUE(ok(tc_add_(a, b)));
  int64_t version = 0;
  ASSERT_TRUE(ok(tc_tensor_version(a, &version)));
  EXPECT_EQ(version, 1);
  ASSERT_TRUE(ok(tc_fill_(b, 2.0)));
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(b, 1)));
  EXPECT_EQ(tc_mul_(b, a), TC_ERR_AUTOGRAD);
  EXPECT_NE(last_error().find("leaf"), std::string::npos);
  EXPECT_EQ(tc_cat(both, 0, 0, &c), TC_ERR_INVALID_ARGUMENT);
  for (tc_tensor t : {a, b, c, pieces[0], pieces[1], pieces[2]}) tc_tensor_free(t);
}
