// Views: shared storage, shapes/strides, reshape's view-or-copy rule, errors,
// and gradients through every view (non-contiguous bases included).
#include "gradcheck.h"
#include "math/rows/unary_tanh.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class Views : public TcTest {};

TEST_F(Views, ShareStorageAndShapes) {
  Tensor a = tensor({0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor t = ops::transpose(a, 0, 1);
  EXPECT_EQ(t->shape, (tc::Dims{3, 2}));
  EXPECT_EQ(t->strides, (tc::Dims{1, 3}));
  EXPECT_EQ(t->storage, a->storage);
  EXPECT_EQ(values(t), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(values(ops::narrow(a, 1, 1, 2)), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(values(ops::slice(a, 1, 0, 100, 2)), (std::vector<double>{0, 2, 3, 5}));
  EXPECT_EQ(values(ops::slice(a, 1, -2, 3, 1)), (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(values(ops::select(a, 0, -1)), (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(ops::unsqueeze(a, -1)->shape, (tc::Dims{2, 3, 1}));
  EXPECT_EQ(ops::squeeze(ops::unsqueeze(a, 0), TC_DIM_ALL)->shape, (tc::Dims{2, 3}));
  EXPECT_EQ(ops::squeeze(a, 0)->shape, (tc::Dims{2, 3}));  // size 2: unchanged
  EXPECT_EQ(ops::permute(ops::unsqueeze(a, 0), {2, 0, 1})->shape, (tc::Dims{3, 1, 2}));
  Tensor e = ops::expand(tensor({1, 2}, {2, 1}), {-1, 3});
  EXPECT_EQ(values(e), (std::vector<double>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(e->strides[1], 0);
  EXPECT_EQ(ops::expand(tensor({1}, {1}), {4, 2, 1})->shape, (tc::Dims{4, 2, 1}));
  // Writes through a view show in the base.
  ops::fill_(ops::select(a, 0, 1), 9);
  EXPECT_EQ(values(a), (std::vector<double>{0, 1, 2, 9, 9, 9}));
}

TEST_F(Views, ReshapeViewOrCopy) {
  Tensor a = tensor({0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor r = ops::reshape(a, {3, -1});
  EXPECT_EQ(r->shape, (tc::Dims{3, 2}));
  EXPECT_EQ(r->storage, a->storage);
  Tensor t = ops::transpose(a, 0, 1);
  Tensor flat = ops::reshape(t, {6});  // no view possible: copies
  EXPECT_NE(flat->storage, a->storage);
  EXPECT_EQ(values(flat), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(code_of([&] { ops::view(t, {6}); }), TC_ERR_SHAPE);
  EXPECT_EQ(ops::view(t, {3, 2, 1})->storage, a->storage);  // adding a dim is fine
  EXPECT_EQ(code_of([&] { ops::reshape(a, {4, -1}); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::reshape(a, {-1, -1}); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::reshape(a, {5}); }), TC_ERR_SHAPE);
  Tensor c = ops::contiguous(t);
  EXPECT_TRUE(c->is_contiguous());
  EXPECT_EQ(ops::contiguous(a), a);  // already contiguous: itself
  Tensor k = ops::clone(a);
  EXPECT_NE(k->storage, a->storage);
}

TEST_F(Views, Errors) {
  Tensor a = randn({2, 3});
  EXPECT_EQ(code_of([&] { ops::transpose(a, 0, 2); }), TC_ERR_INDEX);
  EXPECT_EQ(code_of([&] { ops::permute(a, {0}); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::permute(a, {0, 0}); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::narrow(a, 1, 2, 2); }), TC_ERR_INDEX);
  EXPECT_EQ(code_of([&] { ops::select(a, 0, 2); }), TC_ERR_INDEX);
  EXPECT_EQ(code_of([&] { ops::slice(a, 0, 0, 1, 0); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::expand(a, {2, 4}); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::expand(a, {3}); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::unsqueeze(a, 4); }), TC_ERR_INDEX);
  // Sizes whose product wraps around int64 are caught, not taken for a valid shape.
  EXPECT_EQ(code_of([&] { ops::reshape(a, {(int64_t(1) << 62) + 3, 2}); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::narrow(a, 1, 1, INT64_MAX); }), TC_ERR_INDEX);
  EXPECT_NE(code_of([&] { ops::expand(a, {INT64_MAX, INT64_MAX, 2, 3}); }), TC_OK);
}

TEST_F(Views, ToDtypeAndDevice) {
  Tensor a = tensor({1.5, -2.5}, {2});
  Tensor i = ops::to_dtype(a, DType::i32);
  EXPECT_EQ(i->dtype, DType::i32);
  EXPECT_EQ(values(i), (std::vector<double>{1, -2}));
  EXPECT_EQ(ops::to_dtype(a, DType::f64), a);
  EXPECT_EQ(ops::to_device(a, tc::kCPU), a);
  a->requires_grad = true;
  Tensor f = ops::to_dtype(a, DType::f32);
  EXPECT_TRUE(f->requires_grad);
  EXPECT_STREQ(f->grad_fn->name(), "ToCopyBackward");
  EXPECT_FALSE(ops::to_dtype(a, DType::i64)->requires_grad);
  tc::autograd::backward(ops::sum(f, {}, false), nullptr, false);
  EXPECT_EQ(a->grad()->dtype, DType::f64);
  EXPECT_EQ(values(a->grad()), (std::vector<double>{1, 1}));
}

TEST_F(Views, Gradients) {
  auto one = [](std::function<Tensor(const Tensor&)> f, const Tensor& x) {
    return gradcheck([f](const Inputs& in) { return ops::unary(ops::row::tanh, f(in[0])); }, {x});
  };
  for (bool nc : {false, true}) {
    auto in = [nc](tc::Dims s) { return nc ? noncontiguous(randn(s)) : randn(s); };
    EXPECT_TRUE(one([](const Tensor& x) { return ops::reshape(x, {4, 3}); }, in({3, 4})));
    EXPECT_TRUE(one([](const Tensor& x) { return ops::transpose(x, 0, 1); }, in({3, 4})));
    EXPECT_TRUE(one([](const Tensor& x) { return ops::permute(x, {2, 0, 1}); }, in({2, 3, 4})));
    EXPECT_TRUE(one([](const Tensor& x) { return ops::narrow(x, 1, 1, 2); }, in({3, 4})));
    EXPECT_TRUE(one([](const Tensor& x) { return ops::slice(x, 0, 0, 5, 2); }, in({5, 2})));
    EXPECT_TRUE(one([](const Tensor& x) { return ops::select(x, 1, 2); }, in({3, 4})));
    EXPECT_TRUE(one([](const Tensor& x) { return ops::squeeze(ops::unsqueeze(x, 1), 1); }, in({3, 4})));
    EXPECT_TRUE(one(
        [](const Tensor& x) {
          return ops::expand(ops::unsqueeze(x, 0), {2, 3, 4});
        },
        in({3, 4})));
    EXPECT_TRUE(one([](const Tensor& x) { return ops::contiguous(x); }, in({3, 4})));
    EXPECT_TRUE(one([](const Tensor& x) { return ops::clone(x); }, in({3, 4})));
  }
  EXPECT_TRUE(one([](const Tensor& x) { return ops::expand(x, {2, 3, 4}); }, randn({3, 1})));
  // Two overlapping views of one leaf: their gradients add up.
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) { return ops::mul(ops::narrow(x[0], 0, 0, 2), ops::narrow(x[0], 0, 1, 2)); },
      {randn({3, 2})}));
}

TEST_F(Views, ThroughTheAbi) {
  int64_t shape[] = {2, 3};
  tc_tensor a = nullptr, r = nullptr, t = nullptr, c = nullptr, k = nullptr, d = nullptr;
  ASSERT_TRUE(ok(tc_arange(0, 6, 1, TC_FLOAT32, TC_CPU, &a)));
  ASSERT_TRUE(ok(tc_reshape(a, shape, 2, &r)));
  ASSERT_TRUE(ok(tc_transpose(r, 0, -1, &t)));
  int32_t contig = -1;
  ASSERT_TRUE(ok(tc_tensor_is_contiguous(t, &contig)));
  EXPECT_EQ(contig, 0);
  ASSERT_TRUE(ok(tc_contiguous(t, &c)));
  ASSERT_TRUE(ok(tc_tensor_is_contiguous(c, &contig)));
  EXPECT_EQ(contig, 1);
  float buf[6];
  ASSERT_TRUE(ok(tc_tensor_copy_to(c, buf, sizeof buf)));
  EXPECT_EQ(buf[1], 3.0f);
  ASSERT_TRUE(ok(tc_to_dtype(c, TC_FLOAT64, &k)));
  int32_t dt = -1;
  ASSERT_TRUE(ok(tc_tensor_dtype(k, &dt)));
  EXPECT_EQ(dt, TC_FLOAT64);
  int64_t flat[] = {6};
  tc_tensor bad = nullptr;
  EXPECT_EQ(tc_view(t, flat, 1, &bad), TC_ERR_SHAPE);
  EXPECT_EQ(tc_to_dtype(c, 99, &bad), TC_ERR_DTYPE);
  ASSERT_TRUE(ok(tc_select(r, 1, 2, &d)));
  int64_t n = 0;
  ASSERT_TRUE(ok(tc_tensor_numel(d, &n)));
  EXPECT_EQ(n, 2);
  for (tc_tensor x : {a, r, t, c, k, d}) tc_tensor_free(x);
}
