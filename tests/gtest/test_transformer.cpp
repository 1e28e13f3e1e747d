// The transformer and sampling ops (src/ops/transformer.cpp): values against
// the formulas (computed here in double), gradients against float64 finite
// differences, and the sampling ops' distributions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "gradcheck.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;

namespace {

class Transformer : public TcTest {};

// Per row of [R, C]: (x - mean) / sqrt(var + eps) (rms: x / sqrt(mean(x^2) + eps)).
std::vector<double> norm_reference(const std::vector<double>& x, int64_t rows, int64_t cols, double eps,
                                   bool rms) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mu = 0, ss = 0;
    if (!rms) {
      for (int64_t j = 0; j < cols; ++j) mu += x[size_t(r * cols + j)];
      mu /= double(cols);
    }
    for (int64_t j = 0; j < cols; ++j) ss += std::pow(x[size_t(r * cols + j)] - mu, 2);
    const double rs = 1.0 / std::sqrt(ss / double(cols) + eps);
    for (int64_t j = 0; j < cols; ++j) y[size_t(r * cols + j)] = (x[size_t(r * cols + j)] - mu) * rs;
  }
  return y;
}

TEST_F(Transformer, LayerNormAndRmsNormValues) {
  for (DType dt : {DType::f32, DType::f64}) {
    for (bool rms : {false, true}) {
      Tensor x = tc::cast(randn({4, 2, 5}), dt);
      Tensor y = rms ? tc::ops::rms_norm(x, {2, 5}, nullptr, 1e-5)
                     : tc::ops::layer_norm(x, {2, 5}, nullptr, nullptr, 1e-5);
      const std::vector<double> want = norm_reference(values(x), 4, 10, 1e-5, rms);
      const std::vector<double> got = values(y);
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], dt == DType::f32 ? 1e-5 : 1e-12) << i << (rms ? " rms" : " layer");
    }
  }
  // weight and bias scale and shift each column.
  Tensor x = randn({3, 4}), w = randn({4}), b = randn({4});
  Tensor y = tc::ops::layer_norm(x, {4}, w, b, 1e-5);
  const std::vector<double> base = norm_reference(values(x), 3, 4, 1e-5, false), got = values(y),
                            wv = values(w), bv = values(b);
  for (size_t i = 0; i < base.size(); ++i) EXPECT_NEAR(got[i], base[i] * wv[i % 4] + bv[i % 4], 1e-12);
}

TEST_F(Transformer, NormGradients) {
  for (bool affine : {false, true}) {
    Inputs in = {randn({3, 2, 4}), affine ? randn({2, 4}) : Tensor(), affine ? randn({2, 4}) : Tensor()};
    EXPECT_TRUE(gradcheck(
        [](const Inputs& x) {
          return tc::ops::layer_norm(x[0], {2, 4}, x[1], x[2], 1e-5);
        },
        in));
    Inputs rin = {randn({5, 3}), affine ? randn({3}) : Tensor()};
    EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::rms_norm(x[0], {3}, x[1], 1e-6); }, rin));
  }
  // A non-contiguous input and many rows (several blocks of the weight-gradient sum, in parallel).
  Inputs big = {noncontiguous(randn({70, 6})), randn({6}), randn({6})};
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return tc::ops::layer_norm(x[0], {6}, x[1], x[2], 1e-5); }, big));
  // Only the weight wants a gradient.
  Tensor x = randn({4, 3}), w = randn({3});
  w->requires_grad = true;
  Tensor y = tc::ops::layer_norm(x, {3}, w, nullptr, 1e-5);
  tc::autograd::backward(tc::ops::sum(y, {}, false), nullptr, false);
  ASSERT_TRUE(w->grad());
  EXPECT_FALSE(x->grad());
  // d sum(y) / d w[j] = sum over rows of xhat[r, j].
  const std::vector<double> xh = norm_reference(values(x), 4, 3, 1e-5, false), gw = values(w->grad());
  for (int64_t j = 0; j < 3; ++j) {
    double s = 0;
    for (int64_t r = 0; r < 4; ++r) s += xh[size_t(r * 3 + j)];
    EXPECT_NEAR(gw[size_t(j)], s, 1e-12);
  }
}

TEST_F(Transformer, NormErrors) {
  Tensor x = randn({2, 3});
  EXPECT_EQ(code_of([&] { tc::ops::layer_norm(x, {2}, nullptr, nullptr, 1e-5); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { tc::ops::layer_norm(x, {1, 2, 3}, nullptr, nullptr, 1e-5); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { tc::ops::layer_norm(x, {3}, randn({2}), nullptr, 1e-5); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { tc::ops::rms_norm(x, {3}, tc::cast(randn({3}), DType::f32), 1e-5); }),
            TC_ERR_DTYPE);
  EXPECT_EQ(code_of([&] { tc::ops::rms_norm(x, {3}, nullptr, -1.0); }), TC_ERR_INVALID_ARGUMENT);
}

TEST_F(Transformer, TrilTriuValuesAndGradients) {
  Tensor a = randn({2, 3, 4});
  for (int64_t diag : {-1, 0, 1, 5, -5}) {
    const std::vector<double> av = values(a), lo = values(tc::ops::tril(a, diag)),
                              up = values(tc::ops::triu(a, diag));
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          const size_t k = size_t((b * 3 + i) * 4 + j);
          EXPECT_EQ(lo[k], j - i <= diag ? av[k] : 0.0);
          EXPECT_EQ(up[k], j - i >= diag ? av[k] : 0.0);
        }
  }
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return tc::ops::tril(x[0], 0); }, {noncontiguous(randn({4, 3}))}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::triu(x[0], 1); }, {randn({2, 3, 3})}));
  // Any dtype: a bool causal mask.
  Tensor m = tc::ops::triu(tc::ones({3, 3}, DType::b8), 1);
  EXPECT_EQ(values(m), (std::vector<double>{0, 1, 1, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(code_of([&] { tc::ops::tril(randn({3}), 0); }), TC_ERR_SHAPE);
}

TEST_F(Transformer, MaskedFill) {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor mask = tc::cast(tensor({1, 0, 1}, {3}), DType::b8);  // broadcast over rows
  EXPECT_EQ(values(tc::ops::masked_fill(a, mask, -1)), (std::vector<double>{-1, 2, -1, -1, 5, -1}));
  EXPECT_TRUE(
      gradcheck([&](const Inputs& x) { return tc::ops::masked_fill(x[0], mask, 7.0); }, {randn({2, 3})}));
  EXPECT_EQ(code_of([&] { tc::ops::masked_fill(a, a, 0.0); }), TC_ERR_DTYPE);
}

TEST_F(Transformer, CumsumValuesAndGradients) {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(values(tc::ops::cumsum(a, 1)), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(tc::ops::cumsum(a, 0)), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  Tensor ints = tc::ops::cumsum(tc::cast(a, DType::i32), -1);
  EXPECT_EQ(ints->dtype, DType::i64);
  EXPECT_EQ(values(ints), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  for (int64_t d : {0, 1, 2})
    EXPECT_TRUE(gradcheck([d](const Inputs& x) { return tc::ops::cumsum(x[0], d); },
                          {noncontiguous(randn({3, 4, 2}))}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::cumsum(x[0], 0); }, {randn({})}));
  EXPECT_EQ(code_of([&] { tc::ops::cumsum(a, 2); }), TC_ERR_INDEX);
}

TEST_F(Transformer, BmmMatchesMatmul) {
  Tensor a = randn({2, 2, 3}), b = randn({2, 3, 2});
  EXPECT_EQ(values(tc::ops::bmm(a, b)), values(tc::ops::matmul(a, b)));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::bmm(x[0], x[1]); }, {a, b}));
  EXPECT_EQ(code_of([&] { tc::ops::bmm(randn({2, 4}), b); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { tc::ops::bmm(randn({2, 2, 4}), b); }), TC_ERR_SHAPE);
}

TEST_F(Transformer, AddmmBaddbmm) {
  Tensor input = randn({3}), m1 = randn({2, 4}), m2 = randn({4, 3});
  const std::vector<double> got = values(tc::ops::addmm(input, m1, m2, 0.5, 2.0)),
                            prod = values(tc::ops::matmul(m1, m2)), iv = values(input);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], 0.5 * iv[i % 3] + 2.0 * prod[i], 1e-12);
  // beta = 0 ignores input, NaN included.
  Tensor nan = tc::full({2, 3}, NAN, DType::f64);
  EXPECT_EQ(values(tc::ops::addmm(nan, m1, m2, 0.0, 1.0)), prod);
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::addmm(x[0], x[1], x[2], 0.5, -1.5); },
                        {randn({2, 3}), randn({2, 4}), randn({4, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::baddbmm(x[0], x[1], x[2], 2.0, 0.5); },
                        {randn({1, 3}), randn({2, 2, 4}), randn({2, 4, 3})}));
  EXPECT_EQ(code_of([&] { tc::ops::addmm(randn({4}), m1, m2, 1.0, 1.0); }), TC_ERR_SHAPE);
}

// softmax(q k^T / sqrt(E) + mask) v, computed here in double.
std::vector<double> attention_reference(const Tensor& q, const Tensor& k, const Tensor& v, int64_t bh,
                                        int64_t l, int64_t s, int64_t e, int64_t ev, bool causal,
                                        const std::vector<double>* add_mask) {
  const std::vector<double> qv = values(q), kv = values(k), vv = values(v);
  std::vector<double> out(size_t(bh * l * ev), 0.0);
  for (int64_t b = 0; b < bh; ++b)
    for (int64_t i = 0; i < l; ++i) {
      std::vector<double> sc(static_cast<size_t>(s));
      double mx = -INFINITY;
      for (int64_t j = 0; j < s; ++j) {
        double d = 0;
        for (int64_t t = 0; t < e; ++t)
          d += qv[size_t((b * l + i) * e + t)] * kv[size_t((b * s + j) * e + t)];
        d /= std::sqrt(double(e));
        if (add_mask) d += (*add_mask)[size_t(i * s + j)];
        if (causal && j > i) d = -INFINITY;
        sc[size_t(j)] = d;
        mx = std::max(mx, d);
      }
      double z = 0;
      for (double& x : sc) z += (x = std::exp(x - mx));
      for (int64_t j = 0; j < s; ++j)
        for (int64_t t = 0; t < ev; ++t)
          out[size_t((b * l + i) * ev + t)] += sc[size_t(j)] / z * vv[size_t((b * s + j) * ev + t)];
    }
  return out;
}

TEST_F(Transformer, AttentionValues) {
  Tensor q = randn({2, 3, 4, 8}), k = randn({2, 3, 5, 8}), v = randn({2, 3, 5, 6});
  auto close = [](const std::vector<double>& a, const std::vector<double>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12) << i;
  };
  close(values(tc::ops::scaled_dot_product_attention(q, k, v, nullptr, 0.0, false)),
        attention_reference(q, k, v, 6, 4, 5, 8, 6, false, nullptr));
  close(values(tc::ops::scaled_dot_product_attention(q, k, v, nullptr, 0.0, true)),
        attention_reference(q, k, v, 6, 4, 5, 8, 6, true, nullptr));
  // An additive mask and the same mask as bool (0 -> attend, -inf -> not).
  Tensor add = randn({4, 5});
  const std::vector<double> addv = values(add);
  close(values(tc::ops::scaled_dot_product_attention(q, k, v, add, 0.0, false)),
        attention_reference(q, k, v, 6, 4, 5, 8, 6, false, &addv));
  Tensor keep = tc::ops::triu(tc::ones({5, 4}, DType::b8), 0);
  keep = tc::ops::transpose(keep, 0, 1);  // [4, 5], true where j <= i
  close(values(tc::ops::scaled_dot_product_attention(q, k, v, keep, 0.0, false)),
        attention_reference(q, k, v, 6, 4, 5, 8, 6, true, nullptr));
}

TEST_F(Transformer, CausalAttentionInFloat32) {
  // The float32 kernel's exp is a polynomial: within a few ulp of the
  // float64 result, also for large scores (exp underflows to 0, never NaN).
  for (double mag : {1.0, 30.0}) {
    Tensor q = tc::ops::mul_scalar(randn({3, 7, 16}), mag), k = randn({3, 9, 16}), v = randn({3, 9, 5});
    const std::vector<double> want =
        values(tc::ops::scaled_dot_product_attention(q, k, v, nullptr, 0.0, true));
    const std::vector<double> got = values(tc::ops::scaled_dot_product_attention(
        tc::cast(q, DType::f32), tc::cast(k, DType::f32), tc::cast(v, DType::f32), nullptr, 0.0, true));
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 2e-5 * (1 + std::fabs(want[i]))) << i;
  }
}

TEST_F(Transformer, AttentionGradients) {
  Inputs in = {randn({2, 3, 2}), randn({2, 4, 2}), randn({2, 4, 2})};
  for (bool causal : {false, true}) {
    EXPECT_TRUE(gradcheck(
        [causal](const Inputs& x) {
          return tc::ops::scaled_dot_product_attention(x[0], x[1], x[2], nullptr, 0.0, causal);
        },
        in));
  }
  Inputs masked = {randn({3, 2}), randn({3, 2}), randn({3, 2}), randn({3, 3})};
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        return tc::ops::scaled_dot_product_attention(x[0], x[1], x[2], x[3], 0.0, false);
      },
      masked));
}

TEST_F(Transformer, AttentionDropoutKeepsRowsScaled) {
  // With dropout p the weights are zero or scaled by 1/(1-p); v = ones makes
  // each output the sum of a row's kept weights, so its mean is about 1.
  Tensor q = randn({1, 64, 8}), k = randn({1, 64, 8}), v = tc::ones({1, 64, 1}, DType::f64);
  Tensor out = tc::ops::scaled_dot_product_attention(q, k, v, nullptr, 0.5, false);
  double mean = 0;
  for (double x : values(out)) mean += x / 64.0;
  EXPECT_NEAR(mean, 1.0, 0.3);
}

TEST_F(Transformer, TopkValuesIndicesAndGradient) {
  Tensor a = tensor({3, 1, 4, 1, 5, 9, 2, 6}, {2, 4});
  auto [v, i] = tc::ops::topk(a, 2, 1, true, true);
  EXPECT_EQ(values(v), (std::vector<double>{4, 3, 9, 6}));
  EXPECT_EQ(values(i), (std::vector<double>{2, 0, 1, 3}));
  auto [vs, is] = tc::ops::topk(a, 1, 0, false, true);
  EXPECT_EQ(values(vs), (std::vector<double>{3, 1, 2, 1}));
  EXPECT_EQ(values(is), (std::vector<double>{0, 0, 1, 0}));
  // NaN ranks largest.
  Tensor n = tensor({1, NAN, 3}, {3});
  auto [nv, ni] = tc::ops::topk(n, 1, 0, true, true);
  EXPECT_TRUE(std::isnan(values(nv)[0]));
  EXPECT_EQ(values(ni)[0], 1);
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::topk(x[0], 2, 0, true, true).first; },
                        {randn({4, 3})}));
  EXPECT_EQ(code_of([&] { tc::ops::topk(a, 5, 1, true, true); }), TC_ERR_INVALID_ARGUMENT);
}

TEST_F(Transformer, MultinomialFollowsTheWeights) {
  Tensor p = tensor({1, 0, 3, 0, 1, 0}, {2, 3});
  const int64_t n = 4000;
  Tensor s = tc::ops::multinomial(p, n, true);
  ASSERT_EQ(s->shape, (tc::Dims{2, n}));
  const std::vector<double> sv = values(s);
  int64_t c0 = 0;
  for (int64_t t = 0; t < n; ++t) {
    EXPECT_TRUE(sv[size_t(t)] == 0 || sv[size_t(t)] == 2);
    EXPECT_EQ(sv[size_t(n + t)], 1);
    c0 += sv[size_t(t)] == 0;
  }
  EXPECT_NEAR(double(c0) / n, 0.25, 0.03);
  // Without replacement: every category once.
  Tensor perm = tc::ops::multinomial(tensor({1, 2, 3, 4}, {4}), 4, false);
  std::vector<double> pv = values(perm);
  std::sort(pv.begin(), pv.end());
  EXPECT_EQ(pv, (std::vector<double>{0, 1, 2, 3}));
  // The same seed gives the same draws.
  tc::rng_manual_seed(7);
  const std::vector<double> first = values(tc::ops::multinomial(p, 10, true));
  tc::rng_manual_seed(7);
  EXPECT_EQ(values(tc::ops::multinomial(p, 10, true)), first);
  EXPECT_EQ(code_of([&] { tc::ops::multinomial(p, 2, false); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { tc::ops::multinomial(tensor({0, 0}, {2}), 1, true); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { tc::ops::multinomial(tensor({1, NAN}, {2}), 1, true); }), TC_ERR_INVALID_ARGUMENT);
}

// split's pieces share one backward node (SplitBackward), which copies each
// piece's gradient into one buffer and zero-fills only under pieces that got
// none; the GPT block's qkv split. Non-contiguous input, an uneven last piece,
// and an unused piece.
TEST_F(Transformer, SplitGradientsThroughOneNode) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        const std::vector<Tensor> p = tc::ops::split(x[0], 2, 1);  // [3, 6] -> three [3, 2]
        return tc::ops::add(tc::ops::mul(p[0], p[1]), tc::ops::mul(p[2], p[2]));
      },
      {noncontiguous(randn({3, 6}))}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        const std::vector<Tensor> p = tc::ops::split(x[0], 2, 0);  // [5, 3] -> [2, 3], [2, 3], [1, 3]
        return tc::ops::mul(p[0], p[2]);                           // p[1] gets no gradient
      },
      {randn({5, 3})}));
  Tensor x = randn({2, 7});
  x->requires_grad = true;
  const std::vector<Tensor> p = tc::ops::split(x, 3, -1);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_STREQ(p[0]->grad_fn->name(), "SplitBackward");
  EXPECT_EQ(p[0]->grad_fn.get(), p[2]->grad_fn.get());
}

// unbind's slices share one backward node too (UnbindBackward).
TEST_F(Transformer, UnbindGradientsThroughOneNode) {
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        const std::vector<Tensor> p = tc::ops::unbind(x[0], 1);  // [4, 3, 2] -> three [4, 2]
        return tc::ops::add(tc::ops::mul(p[0], p[1]), tc::ops::mul(p[2], p[2]));
      },
      {noncontiguous(randn({4, 3, 2}))}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        const std::vector<Tensor> p = tc::ops::unbind(x[0], -1);
        return tc::ops::mul(p[0], p[3]);  // p[1] and p[2] get no gradient
      },
      {randn({2, 4})}));
  Tensor x = randn({3, 2});
  x->requires_grad = true;
  const std::vector<Tensor> p = tc::ops::unbind(x, 0);
  EXPECT_STREQ(p[0]->grad_fn->name(), "UnbindBackward");
  EXPECT_EQ(p[0]->grad_fn.get(), p[2]->grad_fn.get());
}

// A matmul whose output gradient arrives transposed (attention's
// y.transpose(1, 2)) feeds the GEMMs through its strides, without a copy.
TEST_F(Transformer, MatmulGradientFromATransposedOutput) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::transpose(tc::ops::matmul(x[0], x[1]), 1, 2); },
                        {randn({2, 3, 4, 5}), noncontiguous(randn({2, 3, 5, 2}))}));
}

}  // namespace
