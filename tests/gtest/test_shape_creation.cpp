// The shape, creation and matrix ops (ops/shape_creation.cpp, einsum.cpp,
// random_sampling.cpp): values (the expected numbers printed by PyTorch 1.13
// for the same inputs), float64 finite-difference gradchecks on contiguous
// and non-contiguous inputs, 0-d and empty inputs, the ABI's errors, and the
// random ops' determinism under tc_manual_seed and their distributions.
#include <algorithm>
#include <cmath>
#include <set>

#include "gradcheck.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

namespace {

class ShapeCreation : public TcTest {};

// 0, 1, ..., n-1 in shape.
Tensor iota(const tc::Dims& shape, DType dtype = DType::f64) {
  std::vector<double> v(size_t(tc::numel_of(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i);
  return tensor(v, shape, dtype);
}

using V = std::vector<double>;

}  // namespace

// Expected values: torch 1.13 on x = arange(6.).reshape(2, 3) etc.
TEST_F(ShapeCreation, ShapeOpValuesMatchTorch) {
  for (DType dt : {DType::f32, DType::f64, DType::i64, DType::i32}) {
    Tensor x = iota({2, 3}, dt);
    EXPECT_EQ(values(ops::flip(x, {1})), (V{2, 1, 0, 5, 4, 3}));
    EXPECT_EQ(values(ops::roll(x, {1}, {1})), (V{2, 0, 1, 5, 3, 4}));
    EXPECT_EQ(values(ops::roll(x, {-2}, {})), (V{2, 3, 4, 5, 0, 1}));
    Tensor r = ops::repeat(x, {2, 2});
    EXPECT_EQ(r->shape, (tc::Dims{4, 6}));
    EXPECT_EQ(values(r), (V{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
    EXPECT_EQ(values(ops::tile(iota({3}, dt), {2, 2})), (V{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
    EXPECT_EQ(values(ops::repeat_interleave(x, 2, 0)), (V{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
    EXPECT_EQ(values(ops::repeat_interleave(x, tensor({2, 0, 1}, {3}, DType::i64), 1)),
              (V{0, 0, 2, 3, 3, 5}));
    Tensor d1 = ops::diag(tensor({1, 2}, {2}, dt), 1);
    EXPECT_EQ(d1->shape, (tc::Dims{3, 3}));
    EXPECT_EQ(values(d1), (V{0, 1, 0, 0, 0, 2, 0, 0, 0}));
    EXPECT_EQ(values(ops::diag(iota({3, 4}, dt), -1)), (V{4, 9}));
    Tensor dg = ops::diagonal(iota({2, 3, 4}, dt), 1, 1, 2);
    EXPECT_EQ(dg->shape, (tc::Dims{2, 3}));
    EXPECT_EQ(values(dg), (V{1, 6, 11, 13, 18, 23}));
    EXPECT_EQ(values(ops::movedim(iota({2, 3, 4}, dt), {0}, {2})),
              (V{0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23}));
    EXPECT_EQ(values(ops::outer(tensor({1, 2}, {2}, dt), tensor({3, 4, 5}, {3}, dt))),
              (V{3, 4, 5, 6, 8, 10}));
    Tensor dot = ops::dot(tensor({1, 2, 3}, {3}, dt), tensor({4, 5, 6}, {3}, dt));
    EXPECT_EQ(dot->ndim(), 0);
    EXPECT_EQ(dot->dtype, dt);
    EXPECT_EQ(values(dot), (V{32}));
    EXPECT_EQ(values(ops::pad(x, {1, -1, 0, 1}, TC_PAD_CONSTANT, -1)), (V{-1, 0, 1, -1, 3, 4, -1, -1, -1}));
    Tensor x3 = iota({1, 2, 3}, dt);
    EXPECT_EQ(values(ops::pad(x3, {2, 1}, TC_PAD_REFLECT, 0)), (V{2, 1, 0, 1, 2, 1, 5, 4, 3, 4, 5, 4}));
    EXPECT_EQ(values(ops::pad(x3, {1, 2}, TC_PAD_REPLICATE, 0)), (V{0, 0, 1, 2, 2, 2, 3, 3, 4, 5, 5, 5}));
    EXPECT_EQ(values(ops::pad(x3, {2, 1}, TC_PAD_CIRCULAR, 0)), (V{1, 2, 0, 1, 2, 0, 4, 5, 3, 4, 5, 3}));
  }
}

TEST_F(ShapeCreation, EinsumValuesMatchTorch) {
  Tensor x = iota({2, 3});
  Tensor y = ops::add_scalar(x, 1);
  EXPECT_EQ(values(ops::einsum("ij,kj->ik", {x, y})), (V{8, 17, 26, 62}));
  EXPECT_EQ(values(ops::einsum("ii->i", {iota({3, 3})})), (V{0, 4, 8}));
  EXPECT_EQ(values(ops::einsum("...i,...i->...", {x, x})), (V{5, 50}));
  // Integer operands multiply and sum, and keep their dtype in a contraction.
  Tensor xi = iota({2, 3}, DType::i32), yi = tc::cast(y, DType::i32);
  Tensor ei = ops::einsum("ij,kj->ik", {xi, yi});
  EXPECT_EQ(ei->dtype, DType::i32);
  EXPECT_EQ(values(ei), (V{8, 17, 26, 62}));
  // Matches a product of matmuls for a chain of four operands.
  Tensor a = randn({2, 3}), b = randn({3, 4}), c = randn({4, 5}), d = randn({5, 2});
  const V chain = values(ops::einsum("ij,jk,kl,lm->im", {a, b, c, d}));
  const V ref = values(ops::matmul(ops::matmul(ops::matmul(a, b), c), d));
  ASSERT_EQ(chain.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(chain[i], ref[i], 1e-12);
}

TEST_F(ShapeCreation, CreationValuesMatchTorch) {
  EXPECT_EQ(values(ops::eye(2, 3, DType::f32, tc::kCPU)), (V{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(values(ops::eye(2, 2, DType::b8, tc::kCPU)), (V{1, 0, 0, 1}));
  EXPECT_EQ(ops::eye(0, 3, DType::f32, tc::kCPU)->shape, (tc::Dims{0, 3}));
  EXPECT_EQ(values(ops::linspace(-1, 2, 4, DType::f32, tc::kCPU)), (V{-1, 0, 1, 2}));
  EXPECT_EQ(values(ops::logspace(0, 3, 4, 2, DType::f64, tc::kCPU)), (V{1, 2, 4, 8}));
  EXPECT_EQ(ops::linspace(0, 1, 0, DType::f32, tc::kCPU)->numel(), 0);
  EXPECT_EQ(values(ops::linspace(3, 9, 1, DType::i64, tc::kCPU)), (V{3}));
  // The last value is exactly end (PyTorch fills from both ends).
  EXPECT_EQ(values(ops::linspace(0.1, 0.7, 7, DType::f64, tc::kCPU)).back(), 0.7);
  auto grid = ops::meshgrid({iota({2}), iota({3})}, false);
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_EQ(grid[0]->shape, (tc::Dims{2, 3}));
  EXPECT_EQ(values(grid[0]), (V{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(values(grid[1]), (V{0, 1, 2, 0, 1, 2}));
  auto xy = ops::meshgrid({iota({2}), iota({3})}, true);
  EXPECT_EQ(xy[0]->shape, (tc::Dims{3, 2}));
  EXPECT_EQ(values(xy[0]), (V{0, 1, 0, 1, 0, 1}));
}

TEST_F(ShapeCreation, ViewsShareStorage) {
  Tensor x = iota({3, 4});
  EXPECT_EQ(ops::diagonal(x, 0, 0, 1)->storage, x->storage);
  EXPECT_EQ(ops::broadcast_to(x, {2, 3, 4})->storage, x->storage);
  EXPECT_EQ(ops::movedim(x, {0}, {1})->storage, x->storage);
  EXPECT_EQ(ops::flatten(x, 0, 1)->storage, x->storage);
  EXPECT_EQ(ops::unflatten(x, 1, {2, 2})->storage, x->storage);
  for (const Tensor& s : ops::unbind(x, 1)) EXPECT_EQ(s->storage, x->storage);
  // Copies: the results own new storage, also where nothing moves.
  EXPECT_NE(ops::flip(x, {})->storage, x->storage);
  EXPECT_NE(ops::roll(x, {0}, {0})->storage, x->storage);
  EXPECT_NE(ops::repeat(x, {1, 1})->storage, x->storage);
  EXPECT_NE(ops::pad(x, {0, 0}, TC_PAD_REFLECT, 0)->storage, x->storage);
}

TEST_F(ShapeCreation, Gradchecks) {
  using F = std::function<Tensor(const Inputs&)>;
  const std::vector<std::pair<const char*, F>> cases = {
      {"flip",
       [](const Inputs& x) {
         return ops::flip(x[0], {0, -1});
       }},
      {"roll",
       [](const Inputs& x) {
         return ops::roll(x[0], {1, -4}, {0, 1});
       }},
      {"roll flat", [](const Inputs& x) { return ops::roll(x[0], {5}, {}); }},
      {"repeat",
       [](const Inputs& x) {
         return ops::repeat(x[0], {2, 1, 3});
       }},
      {"tile", [](const Inputs& x) { return ops::tile(x[0], {2}); }},
      {"repeat_interleave", [](const Inputs& x) { return ops::repeat_interleave(x[0], 2, 1); }},
      {"repeat_interleave flat", [](const Inputs& x) { return ops::repeat_interleave(x[0], 3, TC_DIM_ALL); }},
      {"repeat_interleave tensor",
       [](const Inputs& x) {
         return ops::repeat_interleave(x[0], tensor({3, 0, 1}, {3}, DType::i64), 0);
       }},
      {"diag", [](const Inputs& x) { return ops::diag(x[0], 1); }},
      {"diag of a row", [](const Inputs& x) { return ops::diag(ops::select(x[0], 0, 1), -2); }},
      {"diagonal", [](const Inputs& x) { return ops::diagonal(x[0], -1, 1, 0); }},
      {"pad constant",
       [](const Inputs& x) {
         return ops::pad(x[0], {2, -1, -1, 1}, TC_PAD_CONSTANT, 3);
       }},
      {"pad reflect",
       [](const Inputs& x) {
         return ops::pad(x[0], {2, 1, 1, 2}, TC_PAD_REFLECT, 0);
       }},
      {"pad replicate",
       [](const Inputs& x) {
         return ops::pad(x[0], {3, 1, 0, 2}, TC_PAD_REPLICATE, 0);
       }},
      {"pad circular",
       [](const Inputs& x) {
         return ops::pad(x[0], {2, 3, 1, 0}, TC_PAD_CIRCULAR, 0);
       }},
      {"movedim", [](const Inputs& x) { return ops::movedim(x[0], {0}, {1}); }},
      {"flatten", [](const Inputs& x) { return ops::flatten(x[0], 0, -1); }},
      {"unflatten",
       [](const Inputs& x) {
         return ops::unflatten(x[0], 1, {2, -1});
       }},
      {"broadcast_to",
       [](const Inputs& x) {
         return ops::broadcast_to(ops::narrow(x[0], 0, 0, 1), {2, 3, 4});
       }},
      {"unbind", [](const Inputs& x) { return ops::stack(ops::unbind(x[0], 1), 0); }},
      {"meshgrid",
       [](const Inputs& x) {
         return ops::stack(ops::meshgrid({ops::select(x[0], 0, 0), ops::select(x[0], 1, 1)}, true), 0);
       }},
      {"outer", [](const Inputs& x) { return ops::outer(ops::select(x[0], 0, 0), ops::select(x[0], 1, 2)); }},
      {"dot", [](const Inputs& x) { return ops::dot(ops::select(x[0], 0, 0), ops::select(x[0], 0, 2)); }},
      {"einsum matmul",
       [](const Inputs& x) {
         return ops::einsum("ij,kj->ik", {x[0], x[0]});
       }},
      {"einsum trace", [](const Inputs& x) { return ops::einsum("ii", {ops::narrow(x[0], 1, 0, 3)}); }},
      {"einsum ellipsis",
       [](const Inputs& x) {
         return ops::einsum("...j,j->...", {x[0], ops::select(x[0], 0, 1)});
       }},
  };
  for (bool nc : {false, true}) {
    for (const auto& [name, f] : cases) {
      Tensor x = randn({3, 4});
      if (nc) x = noncontiguous(x);
      EXPECT_TRUE(gradcheck(f, {x})) << name << (nc ? " (non-contiguous)" : "");
    }
  }
  // Three operands with a batch dim, and a diagonal of a 3-D operand.
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return ops::einsum("bij,bjk,k->bi", {x[0], x[1], x[2]});
      },
      {randn({2, 3, 4}), randn({2, 4, 5}), randn({5})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::einsum("iij->ji", {x[0]}); }, {randn({3, 3, 2})}));
}

TEST_F(ShapeCreation, ZeroDimAndEmpty) {
  Tensor s = tensor({2.5}, {});
  EXPECT_EQ(ops::flip(s, {0})->ndim(), 0);
  EXPECT_EQ(ops::flatten(s, 0, -1)->shape, (tc::Dims{1}));
  EXPECT_EQ(ops::repeat(s, {2, 3})->shape, (tc::Dims{2, 3}));
  EXPECT_EQ(values(ops::repeat_interleave(s, 3, TC_DIM_ALL)), (V{2.5, 2.5, 2.5}));
  EXPECT_EQ(ops::roll(s, {1}, {})->ndim(), 0);
  EXPECT_EQ(values(ops::einsum("->", {s})), (V{2.5}));
  EXPECT_EQ(values(ops::einsum(",->", {s, s})), (V{6.25}));
  Tensor e = tc::zeros({0, 3}, DType::f64);
  EXPECT_EQ(ops::flip(e, {0, 1})->shape, e->shape);
  EXPECT_EQ(ops::roll(e, {2}, {1})->shape, e->shape);
  EXPECT_EQ(ops::repeat(e, {2, 2})->shape, (tc::Dims{0, 6}));
  EXPECT_EQ(ops::diagonal(e, 0, 0, 1)->shape, (tc::Dims{0}));
  EXPECT_EQ(ops::diagonal(e, 5, 0, 1)->shape, (tc::Dims{0}));
  EXPECT_EQ(ops::pad(e, {1, 1}, TC_PAD_CONSTANT, 0)->shape, (tc::Dims{0, 5}));
  EXPECT_TRUE(ops::unbind(e, 0).empty());
  Tensor ee = ops::einsum("ij,jk->ik", {tc::zeros({2, 0}, DType::f64), tc::zeros({0, 3}, DType::f64)});
  EXPECT_EQ(ee->shape, (tc::Dims{2, 3}));
  EXPECT_EQ(values(ee), V(6, 0.0));
  EXPECT_EQ(ops::randint(0, 3, {0, 2}, DType::i64, tc::kCPU)->numel(), 0);
  EXPECT_EQ(ops::randperm(0, DType::i64, tc::kCPU)->numel(), 0);
}

// Bad input: a clear error naming the function and the problem, through the ABI.
TEST_F(ShapeCreation, AbiErrors) {
  tc_tensor a = nullptr, out = nullptr;
  const int64_t shape[] = {2, 3};
  ASSERT_TRUE(ok(tc_zeros(shape, 2, TC_FLOAT32, TC_CPU, &a)));
  auto expect_err = [&](int32_t rc, int32_t code, const char* fn, const char* what) {
    EXPECT_EQ(rc, code) << what;
    const std::string msg = last_error();
    EXPECT_NE(msg.find(fn), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
    EXPECT_EQ(out, nullptr);
  };
  const int64_t dup[] = {0, -2};
  expect_err(tc_flip(a, dup, 2, &out), TC_ERR_INVALID_ARGUMENT, "tc_flip", "appears multiple times");
  const int64_t sh2[] = {1, 2};
  expect_err(tc_roll(a, sh2, 2, nullptr, 0, &out), TC_ERR_INVALID_ARGUMENT, "tc_roll",
             "shifts must have one");
  const int64_t one[] = {2};
  expect_err(tc_repeat(a, one, 1, &out), TC_ERR_INVALID_ARGUMENT, "tc_repeat", "can not be smaller");
  expect_err(tc_repeat_interleave(a, -1, 0, &out), TC_ERR_INVALID_ARGUMENT, "tc_repeat_interleave",
             "non-negative");
  expect_err(tc_diagonal(a, 0, 1, -1, &out), TC_ERR_INVALID_ARGUMENT, "tc_diagonal", "cannot be identical");
  expect_err(tc_eye(-1, 2, TC_FLOAT32, TC_CPU, &out), TC_ERR_INVALID_ARGUMENT, "tc_eye", "n must be");
  expect_err(tc_linspace(0, 1, -1, TC_FLOAT32, TC_CPU, &out), TC_ERR_INVALID_ARGUMENT, "tc_linspace",
             "non-negative");
  const int64_t odd[] = {1, 2, 3};
  expect_err(tc_pad(a, odd, 3, TC_PAD_CONSTANT, 0, &out), TC_ERR_INVALID_ARGUMENT, "tc_pad",
             "divisible by 2");
  const int64_t big[] = {3, 3};
  expect_err(tc_pad(a, big, 2, TC_PAD_REFLECT, 0, &out), TC_ERR_INVALID_ARGUMENT, "tc_pad", "should be less");
  expect_err(tc_pad(a, one, 0, 7, 0, &out), TC_ERR_INVALID_ARGUMENT, "tc_pad", "unknown mode");
  expect_err(tc_flatten(a, 1, 0, &out), TC_ERR_INVALID_ARGUMENT, "tc_flatten", "cannot come after");
  const int64_t bad_sizes[] = {4, -1};
  expect_err(tc_unflatten(a, 1, bad_sizes, 2, &out), TC_ERR_SHAPE, "tc_unflatten", "invalid for input");
  expect_err(tc_outer(a, a, &out), TC_ERR_SHAPE, "tc_outer", "1-D");
  expect_err(tc_dot(a, a, &out), TC_ERR_SHAPE, "tc_dot", "1D tensors");
  tc_tensor pair[] = {a, a};
  expect_err(tc_einsum("ij,jk->ik", pair, 2, &out), TC_ERR_SHAPE, "tc_einsum", "broadcast");
  expect_err(tc_einsum("ij->k", pair, 1, &out), TC_ERR_INVALID_ARGUMENT, "tc_einsum", "does not appear");
  expect_err(tc_einsum("ij", pair, 2, &out), TC_ERR_INVALID_ARGUMENT, "tc_einsum", "2 were provided");
  expect_err(tc_einsum("i.j", pair, 1, &out), TC_ERR_INVALID_ARGUMENT, "tc_einsum", "ellipsis");
  expect_err(tc_randint(5, 5, shape, 2, TC_INT64, TC_CPU, &out), TC_ERR_INVALID_ARGUMENT, "tc_randint",
             "low < high");
  expect_err(tc_randint(0, 300, shape, 2, TC_UINT8, TC_CPU, &out), TC_ERR_INVALID_ARGUMENT, "tc_randint",
             "out of bounds");
  expect_err(tc_randperm(-1, TC_INT64, TC_CPU, &out), TC_ERR_INVALID_ARGUMENT, "tc_randperm", "non-negative");
  expect_err(tc_bernoulli_p(a, 1.5, &out), TC_ERR_INVALID_ARGUMENT, "tc_bernoulli_p", "0 <= p <= 1");
  tc_tensor probs = nullptr;
  ASSERT_TRUE(ok(tc_full(shape, 2, 2.0, TC_FLOAT32, TC_CPU, &probs)));
  expect_err(tc_bernoulli(probs, &out), TC_ERR_INVALID_ARGUMENT, "tc_bernoulli", "[0, 1]");
  EXPECT_TRUE(ok(tc_tensor_free(probs)));
  EXPECT_TRUE(ok(tc_tensor_free(a)));
}

TEST_F(ShapeCreation, RandintIsSeededBoundedAndUniform) {
  const int64_t n = 60000;
  tc_manual_seed(42);
  Tensor a = ops::randint(-3, 7, {n}, DType::i64, tc::kCPU);
  tc_manual_seed(42);
  Tensor b = ops::randint(-3, 7, {n}, DType::i64, tc::kCPU);
  EXPECT_EQ(values(a), values(b));
  std::vector<double> counts(10, 0.0);
  for (double v : values(a)) {
    ASSERT_GE(v, -3);
    ASSERT_LE(v, 6);
    counts[size_t(v + 3)] += 1;
  }
  // Chi-square with 9 degrees of freedom: 27.88 is its p = 0.001 quantile.
  double chi2 = 0;
  for (double c : counts) chi2 += (c - n / 10.0) * (c - n / 10.0) / (n / 10.0);
  EXPECT_LT(chi2, 27.88);
  // The next draw differs (the generator advanced).
  EXPECT_NE(values(ops::randint(-3, 7, {n}, DType::i64, tc::kCPU)), values(a));
  Tensor i8 = ops::randint(-128, 128, {1000}, DType::i8, tc::kCPU);
  EXPECT_EQ(i8->dtype, DType::i8);
  const V v8 = values(i8);
  EXPECT_LT(*std::min_element(v8.begin(), v8.end()), -100);
  EXPECT_GT(*std::max_element(v8.begin(), v8.end()), 100);
}

TEST_F(ShapeCreation, RandpermIsAPermutationAndUniform) {
  tc_manual_seed(5);
  const V p = values(ops::randperm(5000, DType::i64, tc::kCPU));
  std::set<double> seen(p.begin(), p.end());
  EXPECT_EQ(seen.size(), 5000u);
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), 4999);
  tc_manual_seed(5);
  EXPECT_EQ(values(ops::randperm(5000, DType::i64, tc::kCPU)), p);
  // Where element 0 lands, over many permutations of 4: uniform.
  std::vector<double> where(4, 0.0);
  const int trials = 8000;
  for (int t = 0; t < trials; ++t) {
    const V q = values(ops::randperm(4, DType::i32, tc::kCPU));
    where[size_t(std::find(q.begin(), q.end(), 0.0) - q.begin())] += 1;
  }
  double chi2 = 0;
  for (double c : where) chi2 += (c - trials / 4.0) * (c - trials / 4.0) / (trials / 4.0);
  EXPECT_LT(chi2, 16.27);  // 3 degrees of freedom, p = 0.001
}

TEST_F(ShapeCreation, BernoulliMatchesItsProbabilities) {
  tc_manual_seed(9);
  const int64_t n = 40000;
  Tensor probs = ops::broadcast_to(tensor({0, 0.25, 0.5, 1}, {4}), {n, 4});
  Tensor s = ops::bernoulli(probs);
  EXPECT_EQ(s->dtype, DType::f64);
  const V m = values(ops::mean(s, {0}, false));
  EXPECT_EQ(m[0], 0);
  EXPECT_EQ(m[3], 1);
  EXPECT_NEAR(m[1], 0.25, 5 * std::sqrt(0.25 * 0.75 / n));
  EXPECT_NEAR(m[2], 0.5, 5 * std::sqrt(0.25 / n));
  Tensor q = ops::bernoulli(tc::zeros({n}, DType::i32), 0.75);
  EXPECT_EQ(q->dtype, DType::i32);
  EXPECT_NEAR(values(ops::mean(tc::cast(q, DType::f64), {}, false))[0], 0.75, 5 * std::sqrt(0.75 * 0.25 / n));
}
