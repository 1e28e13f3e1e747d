// Reductions: values, dims/keepdim, dtypes, determinism across thread counts,
// errors, and gradients.
#include <cmath>

#include "gradcheck.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class Reduce : public TcTest {};

TEST_F(Reduce, SumMeanValues) {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(values(ops::sum(a, {}, false)), (std::vector<double>{21}));
  EXPECT_EQ(ops::sum(a, {}, false)->ndim(), 0);
  EXPECT_EQ(values(ops::sum(a, {0}, false)), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(values(ops::sum(a, {-1}, false)), (std::vector<double>{6, 15}));
  Tensor k = ops::sum(a, {1}, true);
  EXPECT_EQ(k->shape, (tc::Dims{2, 1}));
  EXPECT_EQ(values(ops::mean(a, {0, 1}, true)), (std::vector<double>{3.5}));
  EXPECT_EQ(ops::mean(a, {0, 1}, true)->shape, (tc::Dims{1, 1}));
  EXPECT_EQ(values(ops::mean(a, {1}, false)), (std::vector<double>{2, 5}));
  // Integer and bool sums give int64.
  Tensor i = ops::sum(tensor({1, 2, 3}, {3}, DType::i32), {}, false);
  EXPECT_EQ(i->dtype, DType::i64);
  EXPECT_EQ(values(i), (std::vector<double>{6}));
  EXPECT_EQ(values(ops::sum(tensor({1, 0, 1}, {3}, DType::b8), {}, false)), (std::vector<double>{2}));
  // Non-contiguous input, middle dim.
  Tensor b = randn({3, 4, 5});
  Tensor bt = noncontiguous(b);
  auto v1 = values(ops::sum(b, {1}, false)), v2 = values(ops::sum(bt, {1}, false));
  for (size_t j = 0; j < v1.size(); ++j) EXPECT_NEAR(v1[j], v2[j], 1e-12);
  // An empty reduction sums to 0.
  EXPECT_EQ(values(ops::sum(tc::zeros({0, 3}, DType::f32), {0}, false)), (std::vector<double>{0, 0, 0}));
}

TEST_F(Reduce, VarStdLogsumexp) {
  Tensor a = tensor({1, 2, 3, 4}, {4});
  EXPECT_NEAR(values(ops::var(a, {}, 1, false))[0], 5.0 / 3.0, 1e-12);
  EXPECT_NEAR(values(ops::var(a, {}, 0, false))[0], 1.25, 1e-12);
  EXPECT_NEAR(values(ops::std(a, {}, 1, false))[0], std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(values(ops::logsumexp(a, {0}, false))[0], 4.440189698561196, 1e-12);  // numpy
  Tensor big = tensor({1000, 1000}, {2});
  EXPECT_NEAR(values(ops::logsumexp(big, {}, false))[0], 1000 + std::log(2.0), 1e-9);
  Tensor m = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(ops::var(m, {1}, 1, true)->shape, (tc::Dims{2, 1}));
  EXPECT_EQ(values(ops::var(m, {1}, 1, false)), (std::vector<double>{1, 1}));
}

TEST_F(Reduce, MaxMinArg) {
  Tensor a = tensor({3, 7, 7, -1, 0, 2}, {2, 3});
  EXPECT_EQ(values(ops::max_all(a)), (std::vector<double>{7}));
  EXPECT_EQ(values(ops::min_all(a)), (std::vector<double>{-1}));
  auto [v, i] = ops::max_dim(a, 1, false);
  EXPECT_EQ(values(v), (std::vector<double>{7, 2}));
  EXPECT_EQ(values(i), (std::vector<double>{1, 2}));  // first occurrence
  EXPECT_EQ(i->dtype, DType::i64);
  auto [mv, mi] = ops::min_dim(a, 0, true);
  EXPECT_EQ(mv->shape, (tc::Dims{1, 3}));
  EXPECT_EQ(values(mv), (std::vector<double>{-1, 0, 2}));
  EXPECT_EQ(values(mi), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(values(ops::argmax(a, TC_DIM_ALL, false)), (std::vector<double>{1}));
  EXPECT_EQ(values(ops::argmin(a, TC_DIM_ALL, false)), (std::vector<double>{3}));
  EXPECT_EQ(values(ops::argmax(a, 0, false)), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(ops::argmax(tensor({1, 5, 2}, {3}, DType::i32), 0, false)), (std::vector<double>{1}));
  Tensor n = tensor({1, NAN, 3}, {3});
  EXPECT_TRUE(std::isnan(values(ops::max_all(n))[0]));
  EXPECT_EQ(values(ops::argmax(n, 0, false)), (std::vector<double>{1}));
}

TEST_F(Reduce, DeterministicAcrossThreadCounts) {
  Tensor a = randn({3000000}, DType::f32);
  Tensor m = randn({8, 300000}, DType::f32);
  tc::set_num_threads(1);
  const double s1 = values(ops::sum(a, {}, false))[0];
  const auto r1 = values(ops::sum(m, {1}, false));
  const auto c1 = values(ops::sum(m, {0}, false));
  tc::set_num_threads(2);
  const double s2 = values(ops::sum(a, {}, false))[0];
  const auto r2 = values(ops::sum(m, {1}, false));
  const auto c2 = values(ops::sum(m, {0}, false));
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(r1, r2);
  EXPECT_EQ(c1, c2);
  double ref = 0;
  for (int64_t i = 0; i < a->numel(); ++i) ref += a->data_as<float>()[i];
  EXPECT_NEAR(s1, ref, 1e-2);
}

TEST_F(Reduce, Errors) {
  Tensor a = randn({2, 3});
  auto code = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const tc::Error& e) {
      return e.code();
    }
    return TC_OK;
  };
  EXPECT_EQ(code([&] { ops::sum(a, {2}, false); }), TC_ERR_INDEX);
  EXPECT_EQ(code([&] { ops::sum(a, {0, 0}, false); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code([&] { ops::mean(tensor({1}, {1}, DType::i64), {}, false); }), TC_ERR_DTYPE);
  EXPECT_EQ(code([&] { ops::logsumexp(tensor({1}, {1}, DType::i64), {}, false); }), TC_ERR_DTYPE);
  EXPECT_EQ(code([&] { ops::max_all(tc::zeros({0}, DType::f32)); }), TC_ERR_SHAPE);
  EXPECT_EQ(code([&] { ops::max_dim(a, 5, false); }), TC_ERR_INDEX);
  EXPECT_EQ(code([&] { ops::sum(tc::cast(a, DType::f16), {}, false); }), TC_ERR_DTYPE);
}

TEST_F(Reduce, Gradients) {
  auto one = [](std::function<Tensor(const Tensor&)> f, const Tensor& x) {
    return gradcheck([f](const Inputs& in) { return f(in[0]); }, {x});
  };
  EXPECT_TRUE(one([](const Tensor& x) { return ops::sum(x, {}, false); }, randn({3, 4})));
  EXPECT_TRUE(one(
      [](const Tensor& x) {
        return ops::sum(x, {0, 2}, true);
      },
      noncontiguous(randn({3, 4, 2}))));
  EXPECT_TRUE(one([](const Tensor& x) { return ops::mean(x, {1}, false); }, noncontiguous(randn({3, 4}))));
  EXPECT_TRUE(one([](const Tensor& x) { return ops::var(x, {1}, 1, false); }, randn({3, 5})));
  EXPECT_TRUE(one([](const Tensor& x) { return ops::var(x, {}, 0, true); }, randn({3, 5})));
  EXPECT_TRUE(one([](const Tensor& x) { return ops::std(x, {0}, 1, true); }, randn({4, 3})));
  EXPECT_TRUE(
      one([](const Tensor& x) { return ops::logsumexp(x, {1}, false); }, noncontiguous(randn({3, 4}))));
  EXPECT_TRUE(one([](const Tensor& x) { return ops::max_all(x); }, randn({3, 4})));
  EXPECT_TRUE(one([](const Tensor& x) { return ops::min_all(x); }, randn({3, 4})));
  EXPECT_TRUE(
      one([](const Tensor& x) { return ops::max_dim(x, 1, false).first; }, noncontiguous(randn({3, 4}))));
  EXPECT_TRUE(one([](const Tensor& x) { return ops::min_dim(x, 0, true).first; }, randn({3, 4})));
  // Ties in max share the gradient evenly, like torch.max().
  Tensor t = tensor({2, 2, 1}, {3});
  t->requires_grad = true;
  tc::autograd::backward(ops::max_all(t), nullptr, false);
  EXPECT_EQ(values(t->grad()), (std::vector<double>{0.5, 0.5, 0}));
}

TEST_F(Reduce, ThroughTheAbi) {
  int64_t shape[] = {2, 3};
  tc_tensor a = nullptr, s = nullptr, v = nullptr, i = nullptr;
  ASSERT_TRUE(ok(tc_ones(shape, 2, TC_FLOAT32, TC_CPU, &a)));
  int64_t dims[] = {1};
  ASSERT_TRUE(ok(tc_sum(a, dims, 1, 1, &s)));
  int64_t out_shape[2];
  ASSERT_TRUE(ok(tc_tensor_shape(s, out_shape, 2)));
  EXPECT_EQ(out_shape[1], 1);
  ASSERT_TRUE(ok(tc_max_dim(a, 0, 0, &v, &i)));
  int32_t dt = -1;
  ASSERT_TRUE(ok(tc_tensor_dtype(i, &dt)));
  EXPECT_EQ(dt, TC_INT64);
  tc_tensor bad = nullptr;
  int64_t bad_dims[] = {7};
  EXPECT_EQ(tc_mean(a, bad_dims, 1, 0, &bad), TC_ERR_INDEX);
  EXPECT_EQ(tc_sum(a, nullptr, 2, 0, &bad), TC_ERR_INVALID_ARGUMENT);
  for (tc_tensor t : {a, s, v, i}) tc_tensor_free(t);
}
