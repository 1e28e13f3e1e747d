// The losses and distances of src/ops/losses.cpp: values against PyTorch 1.13
// (the expected numbers were printed by torch.nn.functional on the same
// inputs, float64), gradients against central finite differences (float64)
// over every reduction, weights, ignore_index, label smoothing, probability
// targets, N-d, broadcast, non-contiguous, 0-d and empty inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gradcheck.h"

namespace {

using namespace tc_test;
using tc::Tensor;
namespace ops = tc::ops;

class Losses : public TcTest {};

constexpr int32_t kNone = TC_REDUCTION_NONE, kMean = TC_REDUCTION_MEAN, kSum = TC_REDUCTION_SUM;
constexpr int32_t kReductions[] = {kNone, kMean, kSum};

void expect_values(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

Tensor i64(const std::vector<double>& v, const tc::Dims& shape) { return tensor(v, shape, tc::DType::i64); }

// ---- values against PyTorch ----

TEST_F(Losses, CrossEntropyWeightsIgnoreIndexLabelSmoothingMatchTorch) {
  const Tensor x = tensor({0.2, -1.3, 0.7, 1.1, 0.4, -0.6, -0.5, 0.9, 0.3, 0.0, 0.8, -1.2}, {4, 3});
  const Tensor t = i64({2, -100, 0, 1}, {4});
  const Tensor w = tensor({0.5, 2.0, 1.5}, {3});
  expect_values(ops::cross_entropy_ex(x, t, w, -100, 0.2, kNone),
                {1.0972701488082528, 0.0, 1.0568217522451753, 1.0860287666589943});
  expect_values(ops::cross_entropy_ex(x, t, w, -100, 0.2, kMean), {0.8100301669281056});
  expect_values(ops::cross_entropy_ex(x, t, w, -100, 0.2, kSum), {3.2401206677124224});
  // nll_loss on the same scores: the weighted mean divides by the weights of the targets kept.
  expect_values(ops::nll_loss_ex(x, t, w, -100, kNone), {-1.05, 0.0, 0.25, -1.6});
  expect_values(ops::nll_loss_ex(x, t, w, -100, kMean), {-0.6});
  expect_values(ops::nll_loss_ex(x, t, w, -100, kSum), {-2.4});
}

TEST_F(Losses, CrossEntropyProbabilityTargetsMatchTorch) {
  const Tensor x = tensor({0.2, -1.3, 0.7, 1.1, 0.4, -0.6, -0.5, 0.9, 0.3, 0.0, 0.8, -1.2}, {4, 3});
  const Tensor p =
      ops::softmax(tensor({0.3, 0.1, -0.2, 0.5, -0.4, 0.2, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0}, {4, 3}), 1);
  const Tensor w = tensor({0.5, 2.0, 1.5}, {3});
  expect_values(ops::cross_entropy_ex(x, p, w, -100, 0.1, kNone),
                {2.151294605729506, 1.7577785981153866, 1.4657904550335283, 2.6381778523598136});
  expect_values(ops::cross_entropy_ex(x, p, w, -100, 0.1, kMean), {2.003260377809559});
  expect_values(ops::cross_entropy_ex(x, p, w, -100, 0.1, kSum), {8.013041511238235});
}

TEST_F(Losses, ElementwiseLossesMatchTorch) {
  expect_values(ops::binary_cross_entropy(tensor({0.1, 0.6, 0.9, 0.35}, {4}),
                                          tensor({0.0, 1.0, 0.3, 0.5}, {4}), nullptr, kNone),
                {0.10536051565782628, 0.5108256237659907, 1.6434177197931799, 0.740302520295566});
  // Logits far out (-30, 40) stay finite and exact: the stable form.
  expect_values(ops::binary_cross_entropy_with_logits(tensor({-30.0, -0.5, 0.0, 2.0, 40.0}, {5}),
                                                      tensor({1.0, 0.0, 0.5, 1.0, 0.0}, {5}), nullptr,
                                                      tensor({3.0}, {}), kNone),
                {90.00000000000028, 0.4740769841801067, 1.3862943611198906, 0.38078403312891784, 40.0},
                1e-10);
  const Tensor a = tensor({0.0, 0.2, 3.0}, {3}), b = tensor({1.0, 0.0, 0.0}, {3});
  expect_values(ops::smooth_l1_loss(a, b, kNone, 0.5), {0.75, 0.04, 2.75});
  expect_values(ops::huber_loss(a, b, kNone, 0.5), {0.375, 0.02, 1.375});
  expect_values(ops::l1_loss(a, b, kSum), {4.2});
  expect_values(ops::kl_div(tensor({-1.0, -0.5, -2.0}, {3}), tensor({0.0, 0.3, 0.7}, {3}), kSum, false),
                {0.9391356979451063});
}

TEST_F(Losses, DistancesMatchTorch) {
  expect_values(ops::cosine_similarity(tensor({1, 2, 3, 0, 0, 0}, {2, 3}),
                                       tensor({1, 0, -1, 1, 1, 1}, {2, 3}), 1, 1e-8),
                {-0.37796447300922725, 0.0});
  expect_values(
      ops::pairwise_distance(tensor({1, 2, 3}, {1, 3}), tensor({0, 0.5, 5}, {1, 3}), 3, 1e-6, false),
      {2.313032364408415}, 1e-10);
  expect_values(ops::normalize(tensor({3, 4, 0, 0}, {2, 2}), 2, 1, 1e-12), {0.6, 0.8, 0.0, 0.0});
}

TEST_F(Losses, AllIgnoredMeanIsNanAndEmptyBatchesWork) {
  const Tensor x = randn({2, 3});
  const Tensor t = i64({-100, -100}, {2});
  EXPECT_TRUE(std::isnan(values(ops::cross_entropy_ex(x, t, nullptr, -100, 0.0, kMean))[0]));
  EXPECT_EQ(values(ops::cross_entropy_ex(x, t, nullptr, -100, 0.0, kSum))[0], 0.0);
  const Tensor e = ops::cross_entropy_ex(randn({0, 3}), i64({}, {0}), nullptr, -100, 0.0, kNone);
  EXPECT_EQ(e->shape, (tc::Dims{0}));
  EXPECT_EQ(ops::l1_loss(randn({0, 2}), randn({0, 2}), kNone)->shape, (tc::Dims{0, 2}));
  EXPECT_EQ(values(ops::l1_loss(randn({0}), randn({0}), kSum))[0], 0.0);
}

TEST_F(Losses, Float32ResultsAreFloat32AndClose) {
  const Tensor x = randn({3, 4}), t = i64({0, 3, 1}, {3});
  const Tensor y64 = ops::cross_entropy_ex(x, t, nullptr, 1, 0.1, kMean);
  const Tensor y32 = ops::cross_entropy_ex(tc::cast(x, tc::DType::f32), t, nullptr, 1, 0.1, kMean);
  EXPECT_EQ(y32->dtype, tc::DType::f32);
  EXPECT_NEAR(values(y32)[0], values(y64)[0], 1e-5);
  const Tensor b32 = ops::binary_cross_entropy_with_logits(
      tc::cast(x, tc::DType::f32), tc::cast(uniform({3, 4}, 0, 1), tc::DType::f32), nullptr, nullptr, kSum);
  EXPECT_EQ(b32->dtype, tc::DType::f32);
}

TEST_F(Losses, TheFusedPathAndTheComposedPathAgree) {
  // No weight, no smoothing and every target a class: the fused kernel of
  // tc_cross_entropy; an ignore_index among the classes forces the composition.
  const Tensor x = randn({5, 4}), t = i64({0, 3, 1, 2, 2}, {5});
  for (int32_t r : kReductions) {
    const std::vector<double> fused = values(ops::cross_entropy_ex(x, t, nullptr, -100, 0.0, r));
    const std::vector<double> composed = values(ops::cross_entropy_ex(x, t, nullptr, 7, 0.0, r));
    const std::vector<double> via_nll =
        values(ops::nll_loss_ex(ops::log_softmax(x, 1), t, nullptr, 3 + 10, r));
    ASSERT_EQ(fused.size(), composed.size());
    for (size_t i = 0; i < fused.size(); ++i) {
      EXPECT_NEAR(fused[i], composed[i], 1e-12);
      EXPECT_NEAR(fused[i], via_nll[i], 1e-12);
    }
  }
}

TEST_F(Losses, BadArgumentsThrowNamingTheOp) {
  const Tensor x = randn({2, 3});
  try {
    ops::cross_entropy_ex(x, i64({0, 5}, {2}), nullptr, -100, 0.0, kMean);
    FAIL() << "no throw";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_INDEX);
    EXPECT_NE(std::string(e.what()).find("cross_entropy_ex: target 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ops::binary_cross_entropy(tensor({1.5}, {1}), tensor({1.0}, {1}), nullptr, kMean), tc::Error);
  EXPECT_THROW(ops::cross_entropy_ex(x, ops::softmax(x, 1), nullptr, 2, 0.0, kMean), tc::Error);
  EXPECT_THROW(ops::nll_loss_ex(randn({2, 3, 4}), i64({0, 1}, {2}), nullptr, -100, kMean), tc::Error);
}

// ---- gradients against finite differences (float64) ----

TEST_F(Losses, GradcheckElementwiseLosses) {
  for (int32_t r : kReductions) {
    SCOPED_TRACE(r);
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::l1_loss(x[0], x[1], r); },
                          {randn({3, 4}), noncontiguous(randn({3, 4}))}));
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::l1_loss(x[0], x[1], r); },
                          {randn({2, 3}), randn({3})}));  // broadcast target
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::smooth_l1_loss(x[0], x[1], r, 0.7); },
                          {randn({3, 4}), randn({3, 4})}));
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::smooth_l1_loss(x[0], x[1], r, 0.0); },
                          {randn({5}), randn({5})}));
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::huber_loss(x[0], x[1], r, 0.6); },
                          {randn({3, 4}), randn({3, 4})}));
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::binary_cross_entropy(x[0], x[1], x[2], r); },
                          {uniform({3, 4}, 0.05, 0.95), uniform({3, 4}, 0, 1), uniform({4}, 0.5, 2)}));
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::binary_cross_entropy(x[0], x[1], nullptr, r); },
                          {uniform({}, 0.05, 0.95), uniform({}, 0, 1)}));  // 0-d
    EXPECT_TRUE(gradcheck(
        [r](const Inputs& x) { return ops::binary_cross_entropy_with_logits(x[0], x[1], x[2], x[3], r); },
        {uniform({3, 4}, -4, 4), uniform({3, 4}, 0, 1), uniform({3, 1}, 0.5, 2), uniform({4}, 0.5, 3)}));
    EXPECT_TRUE(gradcheck(
        [r](const Inputs& x) {
          return ops::binary_cross_entropy_with_logits(x[0], x[1], nullptr, nullptr, r);
        },
        {noncontiguous(randn({4, 3})), uniform({4, 3}, 0, 1)}));
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::kl_div(x[0], x[1], r, false); },
                          {randn({3, 4}), uniform({3, 4}, 0.1, 1)}));
    EXPECT_TRUE(gradcheck([r](const Inputs& x) { return ops::kl_div(x[0], x[1], r, true); },
                          {randn({3, 4}), randn({3, 4})}));
  }
}

TEST_F(Losses, BceGradientsStayFiniteAtZeroAndOne) {
  const Tensor x = tensor({0.0, 1.0, 0.5}, {3});
  x->requires_grad = true;
  Tensor loss = ops::binary_cross_entropy(x, tensor({0.0, 1.0, 1.0}, {3}), nullptr, kSum);
  tc::autograd::backward(loss, nullptr, false);
  for (double g : values(x->grad())) EXPECT_TRUE(std::isfinite(g)) << g;
  const Tensor z = tensor({0.0, 0.0}, {2});
  z->requires_grad = true;
  loss = ops::normalize(z, 2, 0, 1e-12);
  tc::autograd::backward(ops::sum(loss, {}, false), nullptr, false);
  for (double g : values(z->grad())) EXPECT_TRUE(std::isfinite(g)) << g;
}

TEST_F(Losses, GradcheckClassLosses) {
  const Tensor t3 = i64({0, 2, -100, 1, 1, 0, 2, -100, 0, 0, 1, 2, 2, 1, 0, -100}, {2, 4, 2});  // [N, d1, d2]
  const Tensor t1 = i64({1, 0, 2}, {3});
  for (int32_t r : kReductions) {
    SCOPED_TRACE(r);
    EXPECT_TRUE(gradcheck([&](const Inputs& x) { return ops::nll_loss_ex(x[0], t3, x[1], -100, r); },
                          {randn({2, 3, 4, 2}), uniform({3}, 0.5, 2)}));
    EXPECT_TRUE(
        gradcheck([&](const Inputs& x) { return ops::cross_entropy_ex(x[0], t3, x[1], -100, 0.25, r); },
                  {randn({2, 3, 4, 2}), uniform({3}, 0.5, 2)}));
    EXPECT_TRUE(
        gradcheck([&](const Inputs& x) { return ops::cross_entropy_ex(x[0], t3, nullptr, -100, 0.0, r); },
                  {randn({2, 3, 4, 2})}));
    EXPECT_TRUE(
        gradcheck([&](const Inputs& x) { return ops::cross_entropy_ex(x[0], t1, nullptr, 2, 0.1, r); },
                  {noncontiguous(randn({3, 3}))}));
    EXPECT_TRUE(gradcheck(
        [&](const Inputs& x) { return ops::cross_entropy_ex(x[0], i64({2}, {}), x[1], -100, 0.3, r); },
        {randn({4}), uniform({4}, 0.5, 2)}));  // [C] logits, 0-d target
    EXPECT_TRUE(gradcheck(
        [&](const Inputs& x) {
          return ops::cross_entropy_ex(x[0], ops::softmax(x[1], 1), x[2], -100, 0.2, r);
        },
        {randn({2, 3, 2}), randn({2, 3, 2}), uniform({3}, 0.5, 2)}));  // probability targets, N-d
  }
}

TEST_F(Losses, GradcheckDistances) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::cosine_similarity(x[0], x[1], -1, 1e-8); },
                        {randn({2, 1, 4}), randn({3, 4})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::cosine_similarity(x[0], x[1], 0, 1e-8); },
                        {noncontiguous(randn({3, 2})), randn({3, 2})}));
  for (double p : {1.0, 2.0, 3.0, 0.5, std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(p);
    EXPECT_TRUE(gradcheck([p](const Inputs& x) { return ops::pairwise_distance(x[0], x[1], p, 1e-6, p > 2); },
                          {randn({3, 5}), randn({3, 5})}));
    EXPECT_TRUE(gradcheck([p](const Inputs& x) { return ops::normalize(x[0], p, 1, 1e-12); },
                          {noncontiguous(randn({3, 4}))}));
  }
}

}  // namespace
