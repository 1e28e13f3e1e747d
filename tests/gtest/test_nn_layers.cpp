// The neural-network layers (ops/nn_layers.cpp) through the C ABI: values
// against PyTorch 1.13 (computed by tests/gtest/nn_layers_expected.py from
// the same sin(a*i+b) inputs), in float64 and float32; gradients against
// central finite differences in float64; running statistics after a step.
#include <gtest/gtest.h>

#include <cmath>

#include "nn_test_util.h"

using namespace nntest;

namespace {

// clang-format off
#include "nn_layers_expected.inc"
// clang-format on

class NnLayers : public Fixture {};

std::vector<double> seq(int64_t n, double a = 0.37, double b = 0.1) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = std::sin(a * double(i) + b);
  return v;
}

int64_t prod(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

H seq_t(const std::vector<int64_t>& shape, double a = 0.37, double b = 0.1, int32_t dt = TC_FLOAT64) {
  return tensor(seq(prod(shape), a, b), shape, dt);
}

H grad_leaf(const std::vector<int64_t>& shape, uint64_t seed) {
  H t = random(shape, seed);
  EXPECT_EQ(tc_tensor_set_requires_grad(t, 1), TC_OK);
  return t;
}

double tol_for(int32_t dt) { return dt == TC_FLOAT64 ? 1e-10 : 2e-5; }

class NnLayersDtype : public Fixture, public ::testing::WithParamInterface<int32_t> {};

TEST_P(NnLayersDtype, BatchNormTrainingUpdatesRunningStats) {
  const int32_t dt = GetParam();
  H x = seq_t({2, 3, 2}, 0.37, 0.1, dt), w = seq_t({3}, 0.5, 1.0, dt), b = seq_t({3}, 0.9, 0.2, dt);
  H rm = tensor({0, 0, 0}, {3}, dt), rv = tensor({1, 1, 1}, {3}, dt), y;
  ASSERT_EQ(tc_batch_norm(x, w, b, rm, rv, 1, 0.1, 1e-5, y.out()), TC_OK) << last_error();
  expect_near(read(y), kBatchNormY, tol_for(dt));
  expect_near(read(rm), kBatchNormRm, tol_for(dt));
  expect_near(read(rv), kBatchNormRv, tol_for(dt));
}

TEST_P(NnLayersDtype, InstanceNormUpdatesRunningStatsWithTheMeanOverN) {
  const int32_t dt = GetParam();
  H x = seq_t({2, 3, 4}, 0.7, 0.3, dt), w = seq_t({3}, 0.5, 1.0, dt), b = seq_t({3}, 0.9, 0.2, dt);
  H rm = tensor({0, 0, 0}, {3}, dt), rv = tensor({1, 1, 1}, {3}, dt), y;
  ASSERT_EQ(tc_instance_norm(x, w, b, rm, rv, 1, 0.2, 1e-5, y.out()), TC_OK) << last_error();
  expect_near(read(y), kInstanceNormY, tol_for(dt));
  expect_near(read(rm), kInstanceNormRm, tol_for(dt));
  expect_near(read(rv), kInstanceNormRv, tol_for(dt));
}

TEST_P(NnLayersDtype, GroupNormAndConvTranspose) {
  const int32_t dt = GetParam();
  H x = seq_t({2, 4, 3}, 0.37, 0.1, dt), w = seq_t({4}, 0.5, 1.0, dt), b = seq_t({4}, 0.9, 0.2, dt), y;
  ASSERT_EQ(tc_group_norm(x, 2, w, b, 1e-5, y.out()), TC_OK) << last_error();
  expect_near(read(y), kGroupNormY, tol_for(dt));
  H xc = seq_t({1, 2, 3, 3}, 0.37, 0.1, dt), wc = seq_t({2, 3, 2, 2}, 0.23, 0.4, dt),
    bc = seq_t({3}, 0.9, 0.2, dt);
  const int64_t st[] = {2, 2}, pad[] = {1, 1}, op[] = {1, 1}, dil[] = {1, 1};
  ASSERT_EQ(tc_conv_transpose2d(xc, wc, bc, st, pad, op, dil, 1, y.out()), TC_OK) << last_error();
  EXPECT_EQ(shape(y), (std::vector<int64_t>{1, 3, 5, 5}));
  expect_near(read(y), kConvTY, tol_for(dt));
}

TEST_P(NnLayersDtype, PoolingWithCeilModeDilationAndIndices) {
  const int32_t dt = GetParam();
  H x = seq_t({1, 1, 5, 5}, 1.3, 0.2, dt), y, ix;
  const int64_t k3[] = {3, 3}, s2[] = {2, 2}, p1[] = {1, 1}, d1[] = {1, 1};
  ASSERT_EQ(tc_max_pool2d_with_indices(x, k3, s2, p1, d1, 1, y.out(), ix.out()), TC_OK) << last_error();
  expect_near(read(y), kMaxPoolY, tol_for(dt));
  expect_near(read(ix), kMaxPoolI, 0);
  H x6 = seq_t({1, 1, 6, 5}, 1.3, 0.2, dt);
  const int64_t k2[] = {2, 2}, s21[] = {2, 1}, p0[] = {0, 0}, d2[] = {2, 2};
  ASSERT_EQ(tc_max_pool2d_with_indices(x6, k2, s21, p0, d2, 1, y.out(), ix.out()), TC_OK) << last_error();
  EXPECT_EQ(shape(y), (std::vector<int64_t>{1, 1, 3, 3}));
  expect_near(read(y), kMaxPoolDilY, tol_for(dt));
  expect_near(read(ix), kMaxPoolDilI, 0);
  ASSERT_EQ(tc_avg_pool2d_ex(x, k3, s2, p1, 1, 0, 0, y.out()), TC_OK) << last_error();
  expect_near(read(y), kAvgPoolY, tol_for(dt));
  H xa = seq_t({1, 1, 5, 7}, 0.7, 0.3, dt);
  const int64_t o23[] = {2, 3}, o32[] = {3, 2};
  ASSERT_EQ(tc_adaptive_avg_pool2d(xa, o23, y.out()), TC_OK) << last_error();
  expect_near(read(y), kAdaptiveAvgY, tol_for(dt));
  ASSERT_EQ(tc_adaptive_max_pool2d(xa, o32, y.out(), ix.out()), TC_OK) << last_error();
  expect_near(read(y), kAdaptiveMaxY, tol_for(dt));
  expect_near(read(ix), kAdaptiveMaxI, 0);
}

TEST_P(NnLayersDtype, InterpolateAndPixelShuffle) {
  const int32_t dt = GetParam();
  H x = seq_t({1, 1, 3, 4}, 0.7, 0.3, dt), y;
  const int64_t size[] = {5, 7};
  ASSERT_EQ(tc_interpolate(x, size, nullptr, TC_INTERP_LINEAR, 0, y.out()), TC_OK) << last_error();
  expect_near(read(y), kBilinearY, tol_for(dt));
  ASSERT_EQ(tc_interpolate(x, size, nullptr, TC_INTERP_LINEAR, 1, y.out()), TC_OK) << last_error();
  expect_near(read(y), kBilinearAlignY, tol_for(dt));
  // scale_factor 1.7: size floor(3 * 1.7) x floor(4 * 1.7), source scale 1 / 1.7.
  const int64_t nsize[] = {5, 6};
  const double sf[] = {1.7, 1.7};
  ASSERT_EQ(tc_interpolate(x, nsize, sf, TC_INTERP_NEAREST, 0, y.out()), TC_OK) << last_error();
  expect_near(read(y), kNearestY, tol_for(dt));
  H xs = seq_t({1, 8, 2, 1}, 0.37, 0.1, dt);
  ASSERT_EQ(tc_pixel_shuffle(xs, 2, y.out()), TC_OK) << last_error();
  EXPECT_EQ(shape(y), (std::vector<int64_t>{1, 2, 4, 2}));
  expect_near(read(y), kPixelShuffleY, tol_for(dt));
  H back;
  ASSERT_EQ(tc_pixel_unshuffle(y, 2, back.out()), TC_OK) << last_error();
  expect_near(read(back), read(xs), 0);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, NnLayersDtype, ::testing::Values(TC_FLOAT64, TC_FLOAT32));

// ---------------------------------------------------------------- gradients

TEST_F(NnLayers, NormGradients) {
  H x = grad_leaf({3, 2, 4}, 1), w = grad_leaf({2}, 2), b = grad_leaf({2}, 3);
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        EXPECT_EQ(tc_batch_norm(in[0], in[1], in[2], nullptr, nullptr, 1, 0.1, 1e-5, &y), TC_OK)
            << last_error();
        return y;
      },
      {x, w, b}, 1e-6, 1e-5);
  H xg = grad_leaf({2, 4, 3}, 4), wg = grad_leaf({4}, 5), bg = grad_leaf({4}, 6);
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        EXPECT_EQ(tc_group_norm(in[0], 2, in[1], in[2], 1e-5, &y), TC_OK) << last_error();
        return y;
      },
      {xg, wg, bg}, 1e-6, 1e-5);
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        EXPECT_EQ(tc_instance_norm(in[0], in[1], in[2], nullptr, nullptr, 1, 0.1, 1e-5, &y), TC_OK)
            << last_error();
        return y;
      },
      {xg, wg, bg}, 1e-6, 1e-5);
}

TEST_F(NnLayers, ConvGradients) {
  H x = grad_leaf({2, 4, 3, 4}, 7), w = grad_leaf({4, 3, 2, 3}, 8), b = grad_leaf({6}, 9);
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        const int64_t st[] = {2, 1}, pad[] = {1, 0}, op[] = {1, 0}, dil[] = {1, 2};
        EXPECT_EQ(tc_conv_transpose2d(in[0], in[1], in[2], st, pad, op, dil, 2, &y), TC_OK) << last_error();
        return y;
      },
      {x, w, b});
  H wc = grad_leaf({3, 4, 2, 3}, 10);
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        const int64_t st[] = {1, 1}, pad[] = {0, 1, 2, 0}, dil[] = {1, 1};
        EXPECT_EQ(tc_conv2d_padded(in[0], in[1], nullptr, st, pad, dil, 1, &y), TC_OK) << last_error();
        return y;
      },
      {x, wc});
}

TEST_F(NnLayers, PoolingAndResamplingGradients) {
  // Distinct values (a permutation) keep every max away from a tie.
  std::vector<double> v(2 * 3 * 5 * 6);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double((i * 37) % v.size()) / 10.0;
  H x = tensor(v, {2, 3, 5, 6});
  ASSERT_EQ(tc_tensor_set_requires_grad(x, 1), TC_OK);
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        const int64_t k[] = {3, 2}, s[] = {2, 2}, p[] = {1, 1}, d[] = {1, 2};
        EXPECT_EQ(tc_max_pool2d_with_indices(in[0], k, s, p, d, 1, &y, nullptr), TC_OK) << last_error();
        return y;
      },
      {x});
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        const int64_t k[] = {3, 3}, s[] = {2, 2}, p[] = {1, 1};
        EXPECT_EQ(tc_avg_pool2d_ex(in[0], k, s, p, 1, 0, 0, &y), TC_OK) << last_error();
        return y;
      },
      {x});
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        const int64_t o[] = {3, 4};
        EXPECT_EQ(tc_adaptive_max_pool2d(in[0], o, &y, nullptr), TC_OK) << last_error();
        return y;
      },
      {x});
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        const int64_t o[] = {4, 4};
        EXPECT_EQ(tc_adaptive_avg_pool2d(in[0], o, &y), TC_OK) << last_error();
        return y;
      },
      {x});
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor y = nullptr;
        const int64_t size[] = {7, 4};
        EXPECT_EQ(tc_interpolate(in[0], size, nullptr, TC_INTERP_LINEAR, 0, &y), TC_OK) << last_error();
        return y;
      },
      {x});
}

TEST_F(NnLayers, EmbeddingPaddingRowGetsNoGradient) {
  H w = grad_leaf({4, 3}, 11), ix = tensor({1, 3, 1, 0}, {4}, TC_INT64), y, g, one;
  ASSERT_EQ(tc_embedding_padding_idx(w, ix, -1, y.out()), TC_OK) << last_error();  // row 3
  const std::vector<double> wv = read(w), yv = read(y);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(yv[3 + j], wv[9 + j]);  // the padding row's value is read
  H s;
  ASSERT_EQ(tc_sum(y, nullptr, 0, 0, s.out()), TC_OK);
  ASSERT_EQ(tc_backward(s, nullptr, 0), TC_OK) << last_error();
  ASSERT_EQ(tc_tensor_grad(w, g.out()), TC_OK);
  expect_near(read(g), {1, 1, 1, 2, 2, 2, 0, 0, 0, 0, 0, 0}, 0);
}

TEST_F(NnLayers, EvalBatchNormLeavesRunningStats) {
  H x = seq_t({4, 2}), rm = tensor({0.5, -1}, {2}), rv = tensor({2, 0.25}, {2}), y;
  ASSERT_EQ(tc_batch_norm(x, nullptr, nullptr, rm, rv, 0, 0.1, 0.0, y.out()), TC_OK) << last_error();
  const std::vector<double> xv = read(x), yv = read(y);
  for (int i = 0; i < 8; ++i) {
    const double mean = i % 2 ? -1 : 0.5, var = i % 2 ? 0.25 : 2;
    EXPECT_NEAR(yv[i], (xv[i] - mean) / std::sqrt(var), 1e-12);
  }
  expect_near(read(rm), {0.5, -1}, 0);
  expect_near(read(rv), {2, 0.25}, 0);
}

TEST_F(NnLayers, FailedCallsLeaveRunningStatsAndOutUntouched) {
  H x = seq_t({3, 2}), rm = tensor({0.5, -1}, {2}), rv = tensor({2, 0.25}, {2}), bad = tensor({1, 1, 1}, {3});
  tc_tensor out = reinterpret_cast<tc_tensor>(0x1);
  EXPECT_EQ(tc_batch_norm(x, bad, nullptr, rm, rv, 1, 0.1, 1e-5, &out), TC_ERR_SHAPE);
  EXPECT_NE(last_error().find("weight must have shape [2]"), std::string::npos) << last_error();
  EXPECT_EQ(out, reinterpret_cast<tc_tensor>(0x1));
  expect_near(read(rm), {0.5, -1}, 0);
  expect_near(read(rv), {2, 0.25}, 0);
}

TEST_F(NnLayers, EmptyBatches) {
  H x, y;
  const int64_t s[] = {0, 2, 4, 4};
  ASSERT_EQ(tc_zeros(s, 4, TC_FLOAT64, TC_CPU, x.out()), TC_OK);
  const int64_t k[] = {2, 2}, p[] = {0, 0}, d[] = {1, 1}, o[] = {3, 3}, size[] = {5, 6};
  ASSERT_EQ(tc_max_pool2d_with_indices(x, k, nullptr, p, d, 1, y.out(), nullptr), TC_OK) << last_error();
  EXPECT_EQ(shape(y), (std::vector<int64_t>{0, 2, 2, 2}));
  ASSERT_EQ(tc_adaptive_avg_pool2d(x, o, y.out()), TC_OK) << last_error();
  EXPECT_EQ(shape(y), (std::vector<int64_t>{0, 2, 3, 3}));
  ASSERT_EQ(tc_interpolate(x, size, nullptr, TC_INTERP_NEAREST, 0, y.out()), TC_OK) << last_error();
  EXPECT_EQ(shape(y), (std::vector<int64_t>{0, 2, 5, 6}));
  ASSERT_EQ(tc_group_norm(x, 2, nullptr, nullptr, 1e-5, y.out()), TC_OK) << last_error();
  EXPECT_EQ(shape(y), (std::vector<int64_t>{0, 2, 4, 4}));
}

}  // namespace
