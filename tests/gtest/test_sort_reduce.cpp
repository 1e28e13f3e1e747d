// Reductions, scans, sort and search: values and gradients computed
// with PyTorch 1.13 (the printed results pasted below), float64
// finite-difference gradchecks (random inputs, zeros where the op has special
// cases, several and negative dims, keepdim, non-contiguous and 0-d inputs),
// float32 values, and PyTorch's behaviour on empty inputs.
#include <cmath>

#include "gradcheck.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class SortReduce : public TcTest {};

namespace {

void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-12) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << i;
}

// x.grad after backward of out with upstream gradient g (float64).
std::vector<double> grad_of(const Tensor& x, const Tensor& out, const std::vector<double>& g) {
  Tensor gt = tensor(g, out->shape);
  tc::autograd::backward(out, gt, false);
  return values(x->grad());
}

}  // namespace

TEST_F(SortReduce, ProdValuesAndGradientWithZeros) {
  // torch: x.prod(1).backward([1, 2, 3]) for rows with one zero, two zeros, none.
  Tensor x = tensor({2, 0, 3, 0, 4, 0, 1.5, -2, 0.5}, {3, 3});
  x->requires_grad = true;
  Tensor p = ops::prod(x, {1}, false);
  expect_near(values(p), {0, 0, -1.5});
  expect_near(grad_of(x, p, {1, 2, 3}), {0, 6, 0, 0, 0, 0, -3, 2.25, -9});
  // Finite differences: several dims, negative dims, keepdim, non-contiguous.
  EXPECT_TRUE(gradcheck(
      [](const Inputs& in) {
        return ops::prod(in[0], {0, -1}, true);
      },
      {randn({2, 3, 4})}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::prod(in[0], {}, false); },
                        {tensor({1.5, 0, -2, 0.5, 3, 0}, {2, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::prod(in[0], {1}, false); },
                        {noncontiguous(tensor({1.5, 0, -2, 0.5, 3, 0.7}, {2, 3}))}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::prod(in[0], {}, false); }, {tensor({2.5}, {})}));
  // Integers and bools give int64; nothing multiplies to 1 (PyTorch).
  Tensor ip = ops::prod(tensor({2, -3, 4}, {3}, DType::i32), {}, false);
  EXPECT_EQ(ip->dtype, DType::i64);
  EXPECT_EQ(values(ip), (std::vector<double>{-24}));
  EXPECT_EQ(values(ops::prod(tc::zeros({0, 3}, DType::f32), {0}, false)), (std::vector<double>{1, 1, 1}));
  // float32: torch.tensor([0.5, -1.25, 3, 2]).prod() = -3.75.
  expect_near(values(ops::prod(tensor({0.5, -1.25, 3, 2}, {4}, DType::f32), {}, false)), {-3.75}, 1e-6);
}

TEST_F(SortReduce, AmaxAminShareTiedGradients) {
  Tensor y = tensor({1, 3, 3, 2, 2, -1}, {2, 3});
  y->requires_grad = true;
  Tensor a = ops::amax(y, {0, 1}, false);
  EXPECT_EQ(a->ndim(), 0);
  expect_near(grad_of(y, a, {1}), {0, 0.5, 0.5, 0, 0, 0});  // torch
  Tensor z = tensor({1, 3, 3, 2, 2, -1}, {2, 3});
  z->requires_grad = true;
  Tensor m = ops::amin(z, {1}, false);
  expect_near(values(m), {1, -1});
  expect_near(grad_of(z, m, {1, 5}), {1, 0, 0, 0, 0, 5});  // torch
  EXPECT_TRUE(gradcheck(
      [](const Inputs& in) {
        return ops::amax(in[0], {-1, 0}, true);
      },
      {randn({3, 2, 4})}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::amin(in[0], {1}, false); },
                        {noncontiguous(randn({4, 5}))}));
  // An empty reduced dim is an error; an empty kept dim is an empty result.
  EXPECT_THROW(ops::amax(tc::zeros({0, 3}, DType::f32), {0}, false), tc::Error);
  EXPECT_EQ(ops::amax(tc::zeros({0, 3}, DType::f32), {1}, false)->shape, (tc::Dims{0}));
  EXPECT_EQ(values(ops::amax(tensor({2, 7, -1}, {3}, DType::i64), {}, false)), (std::vector<double>{7}));
}

TEST_F(SortReduce, NormValuesAndSubgradientsAtZero) {
  // torch.norm(z, p, 1).backward(ones) with a zero row: the subgradient is 0.
  struct Case {
    double p;
    std::vector<double> norm, grad;
  };
  const Case cases[] = {{2, {0, 5}, {0, 0, 0.6, -0.8}},
                        {1, {0, 7}, {0, 0, 1, -1}},
                        {INFINITY, {0, 4}, {0, 0, 0, -1}},
                        {3, {0, 4.497941445275415}, {0, 0, 0.4448513517305356, -0.7908468475209521}}};
  for (const Case& c : cases) {
    Tensor z = tensor({0, 0, 3, -4}, {2, 2});
    z->requires_grad = true;
    Tensor n = ops::norm(z, c.p, {1}, false);
    expect_near(values(n), c.norm);
    expect_near(grad_of(z, n, {1, 1}), c.grad);
  }
  for (double p : {2.0, 1.0, 3.0, 0.5, -1.5, double(INFINITY), -double(INFINITY)}) {
    EXPECT_TRUE(gradcheck(
        [p](const Inputs& in) {
          return ops::norm(in[0], p, {0, 2}, true);
        },
        {uniform({3, 2, 4}, 0.2, 2.0)}))
        << "p = " << p;
  }
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::norm(in[0], 2.0, {}, false); }, {randn({3, 4})}));
  // float32: torch.norm([0.5, -1.25, 3, 2], 3) = 3.3345656394958496.
  expect_near(values(ops::norm(tensor({0.5, -1.25, 3, 2}, {4}, DType::f32), 3.0, {}, false)),
              {3.3345656394958496}, 1e-6);
  EXPECT_EQ(values(ops::norm(tensor({0, 2, 0, -1}, {4}), 0.0, {}, false)), (std::vector<double>{2}));
  EXPECT_THROW(ops::norm(tensor({1, 2}, {2}, DType::i32), 2.0, {}, false), tc::Error);
}

TEST_F(SortReduce, AllAnyCountNonzero) {
  Tensor a = tensor({1, 0, 2, 3}, {2, 2}, DType::i32);
  EXPECT_EQ(values(ops::all(a, {1}, false)), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(ops::any(a, {0}, true)), (std::vector<double>{1, 1}));
  EXPECT_EQ(ops::all(a, {}, false)->dtype, DType::b8);
  EXPECT_EQ(ops::all(tensor({1, 2}, {2}, DType::u8), {}, false)->dtype, DType::u8);  // PyTorch keeps uint8
  EXPECT_EQ(values(ops::all(tc::zeros({0}, DType::f32), {}, false)), (std::vector<double>{1}));
  EXPECT_EQ(values(ops::any(tc::zeros({0}, DType::f32), {}, false)), (std::vector<double>{0}));
  Tensor c = ops::count_nonzero(a, {0, 1});
  EXPECT_EQ(c->dtype, DType::i64);
  EXPECT_EQ(values(c), (std::vector<double>{3}));
}

TEST_F(SortReduce, VarMeanStdMean) {
  Tensor x = randn({3, 4});
  auto [v, m] = ops::var_mean(x, {1}, 1, true);
  expect_near(values(v), values(ops::var(x, {1}, 1, true)));
  expect_near(values(m), values(ops::mean(x, {1}, true)));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& in) {
        auto [s, mu] = ops::std_mean(in[0], {0}, 0, false);
        return ops::add(s, ops::mul_scalar(mu, 3.0));
      },
      {randn({4, 3})}));
}

TEST_F(SortReduce, ScansValuesAndGradients) {
  // torch: c.cumprod(0).backward([1, 2, 3, 4, 5]) with two zeros.
  Tensor c = tensor({2, 0, 3, 0, 5}, {5});
  c->requires_grad = true;
  Tensor o = ops::cumprod(c, 0);
  expect_near(values(o), {2, 0, 0, 0, 0});
  expect_near(grad_of(c, o, {1, 2, 3, 4, 5}), {1, 22, 0, 0, 0});
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::cumprod(in[0], -2); },
                        {tensor({1.5, 0, -2, 0.5, 3, 0, 0.7, 0, 2}, {3, 3})}));
  EXPECT_TRUE(
      gradcheck([](const Inputs& in) { return ops::cumprod(in[0], 1); }, {noncontiguous(randn({3, 4}))}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::logcumsumexp(in[0], 0); }, {randn({5, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::logcumsumexp(in[0], -1); },
                        {tensor({-30, 40, -2, 38}, {4})}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::cummax(in[0], 1).first; }, {randn({3, 6})}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::cummin(in[0], 0).first; }, {randn({6, 2})}));
  // float32, torch: logcumsumexp and cumprod of [0.5, -1.25, 3, 2].
  Tensor f = tensor({0.5, -1.25, 3, 2}, {1, 4}, DType::f32);
  expect_near(values(ops::logcumsumexp(f, 1)),
              {0.5, 0.6602241396903992, 3.0919857025146484, 3.381328582763672}, 1e-6);
  expect_near(values(ops::cumprod(f, 1)), {0.5, -0.625, -1.875, -3.75}, 1e-6);
  // cummax: the last index of equal values; cumprod of ints gives int64.
  auto [mv, mi] = ops::cummax(tensor({1, 3, 3, 2, 5, 5}, {6}), 0);
  EXPECT_EQ(values(mv), (std::vector<double>{1, 3, 3, 3, 5, 5}));
  EXPECT_EQ(values(mi), (std::vector<double>{0, 1, 2, 2, 4, 5}));
  EXPECT_EQ(ops::cumprod(tensor({1, 2}, {2}, DType::i8), 0)->dtype, DType::i64);
  EXPECT_EQ(ops::cumprod(tc::zeros({0, 2}, DType::f32), 0)->shape, (tc::Dims{0, 2}));
  EXPECT_EQ(ops::logcumsumexp(tensor({2}, {}), 0)->ndim(), 0);
}

TEST_F(SortReduce, SortIsStableAndDifferentiable) {
  auto [v, i] = ops::sort(tensor({2, 1, 2, NAN, 1}, {5}), 0, false);
  EXPECT_EQ(values(i), (std::vector<double>{1, 4, 0, 2, 3}));
  auto [vd, id] = ops::sort(tensor({2, 1, 2, NAN, 1}, {5}), 0, true);
  EXPECT_EQ(values(id), (std::vector<double>{3, 0, 2, 1, 4}));
  EXPECT_EQ(values(ops::argsort(tensor({3, 1, 2}, {3}, DType::i32), 0, false)),
            (std::vector<double>{1, 2, 0}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::sort(in[0], 0, true).first; }, {randn({4, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::sort(in[0], -1, false).first; },
                        {noncontiguous(randn({3, 5}))}));
  EXPECT_EQ(ops::sort(tc::zeros({2, 0}, DType::f32), 1, false).first->shape, (tc::Dims{2, 0}));
  EXPECT_EQ(ops::sort(tensor({4}, {}), 0, false).second->ndim(), 0);
}

TEST_F(SortReduce, OrderStatistics) {
  // torch: x = [[3, 1, 2], [0, 5, 5]]: kthvalue(2, 1) = ([2, 5], [2, 1]),
  // mode(1) = ([1, 5], [1, 2]), median() = 2.
  Tensor x = tensor({3, 1, 2, 0, 5, 5}, {2, 3});
  auto [kv, ki] = ops::kthvalue(x, 2, 1, false);
  EXPECT_EQ(values(kv), (std::vector<double>{2, 5}));
  EXPECT_EQ(values(ki), (std::vector<double>{2, 1}));
  auto [mv, mi] = ops::mode(x, 1, true);
  EXPECT_EQ(mv->shape, (tc::Dims{2, 1}));
  EXPECT_EQ(values(mv), (std::vector<double>{1, 5}));
  EXPECT_EQ(values(mi), (std::vector<double>{1, 2}));
  EXPECT_EQ(values(ops::median(x)), (std::vector<double>{2}));
  EXPECT_TRUE(std::isnan(values(ops::median(tensor({1, NAN, 2}, {3})))[0]));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::median(in[0]); }, {randn({3, 4})}));
  EXPECT_TRUE(
      gradcheck([](const Inputs& in) { return ops::median_dim(in[0], 0, false).first; }, {randn({5, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::kthvalue(in[0], 3, -1, true).first; },
                        {noncontiguous(randn({4, 5}))}));
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::mode(in[0], 1, false).first; }, {randn({3, 4})}));
  EXPECT_THROW(ops::median(tc::zeros({0}, DType::f32)), tc::Error);
  EXPECT_THROW(ops::kthvalue(x, 4, 1, false), tc::Error);
  EXPECT_THROW(ops::mode(tc::zeros({2, 0}, DType::f32), 1, false), tc::Error);
}

TEST_F(SortReduce, UniqueAndSearchsorted) {
  // torch.unique(x, return_inverse=True, return_counts=True) of [[3, 1, 2], [0, 5, 5]].
  auto [u, inv, cnt] = ops::unique(tensor({3, 1, 2, 0, 5, 5}, {2, 3}));
  EXPECT_EQ(values(u), (std::vector<double>{0, 1, 2, 3, 5}));
  EXPECT_EQ(inv->shape, (tc::Dims{2, 3}));
  EXPECT_EQ(values(inv), (std::vector<double>{3, 1, 2, 0, 4, 4}));
  EXPECT_EQ(values(cnt), (std::vector<double>{1, 1, 1, 1, 2}));
  EXPECT_EQ(std::get<0>(ops::unique(tc::zeros({0}, DType::i64)))->numel(), 0);
  // torch.searchsorted([0, 1, 2, 3, 5], [2.5, 5], right=True) = [3, 5].
  Tensor seq = tensor({0, 1, 2, 3, 5}, {5});
  EXPECT_EQ(values(ops::searchsorted(seq, tensor({2.5, 5}, {2}), true, false)), (std::vector<double>{3, 5}));
  EXPECT_EQ(values(ops::searchsorted(seq, tensor({2.5, 5}, {2}), false, false)), (std::vector<double>{3, 4}));
  EXPECT_EQ(ops::searchsorted(seq, tensor({1}, {}), false, true)->dtype, DType::i32);
  // N-D: each row of values searches its own row.
  Tensor seq2 = tensor({0, 1, 2, 10, 20, 30}, {2, 3});
  EXPECT_EQ(values(ops::searchsorted(seq2, tensor({1.5, 15, 1.5, 15}, {2, 2}), false, false)),
            (std::vector<double>{2, 3, 0, 1}));
  EXPECT_THROW(ops::searchsorted(seq2, tensor({1, 2, 3}, {3, 1}), false, false), tc::Error);
}
