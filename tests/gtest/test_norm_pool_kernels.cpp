// The fused batch_norm / group_norm kernels (src/cpu/norm_layers.cpp) and
// the pooling kernels of the full geometry (src/cpu/pool.cpp): gradients
// against central finite differences in float64 (non-contiguous inputs,
// channels of size 1, eval mode, dilation, ceil_mode, count_include_pad,
// divisor_override), the kernels against the generic forms of the backend
// base class (the ops, src/backend/backend_norm_defaults.cpp), float32 against
// float64, and the errors PyTorch raises. Values against PyTorch 1.13 are
// tests/python/test_norm_pool_kernels.py's.
#include "backend/backend.h"
#include "gradcheck.h"
#include "math/scalar_op_enum.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class NormPoolKernels : public TcTest {};

namespace {

double max_abs_diff(const Tensor& a, const Tensor& b) {
  const std::vector<double> va = values(a), vb = values(b);
  EXPECT_EQ(va.size(), vb.size());
  double m = 0;
  for (size_t i = 0; i < va.size() && i < vb.size(); ++i) m = std::max(m, std::abs(va[i] - vb[i]));
  return m;
}

// The backend base class's generic forms (through the ops), to compare the
// CPU kernels with: a Backend that overrides nothing.
struct GenericBackend : tc::Backend {
  GenericBackend() : Backend("generic", false) {}
};

Tensor bn_train(const Inputs& x) { return ops::batch_norm(x[0], x[1], x[2], {}, {}, true, 0.1, 1e-4); }

}  // namespace

TEST_F(NormPoolKernels, BatchNormTrainingGradients) {
  for (const tc::Dims& shape :
       {tc::Dims{4, 3, 2, 3}, tc::Dims{5, 1, 3}, tc::Dims{6, 2}, tc::Dims{2, 2, 1, 1}}) {
    const int64_t c = shape[1];
    EXPECT_TRUE(gradcheck(bn_train, {randn(shape), randn({c}), randn({c})})) << shape;
  }
  // non-contiguous x, no affine parameters
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return ops::batch_norm(x[0], {}, {}, {}, {}, true, 0.1, 1e-5); },
                {noncontiguous(randn({3, 4, 5}))}));
}

TEST_F(NormPoolKernels, BatchNormEvalGradients) {
  Tensor rm = randn({3}), rv = uniform({3}, 0.5, 2.0);
  EXPECT_TRUE(
      gradcheck([&](const Inputs& x) { return ops::batch_norm(x[0], x[1], x[2], rm, rv, false, 0.1, 1e-3); },
                {noncontiguous(randn({4, 3, 5})), randn({3}), randn({3})}));
}

TEST_F(NormPoolKernels, GroupNormGradients) {
  for (auto [shape, groups] :
       {std::pair{tc::Dims{2, 6, 5}, int64_t(3)}, std::pair{tc::Dims{3, 4, 2, 2}, int64_t(4)},
        std::pair{tc::Dims{2, 4}, int64_t(1)}}) {
    const int64_t c = shape[1], gr = groups;
    EXPECT_TRUE(gradcheck([gr](const Inputs& x) { return ops::group_norm(x[0], gr, x[1], x[2], 1e-5); },
                          {randn(shape), randn({c}), randn({c})}))
        << shape;
  }
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::group_norm(x[0], 2, {}, {}, 1e-5); },
                        {noncontiguous(randn({3, 4, 6}))}));
}

TEST_F(NormPoolKernels, CpuKernelsMatchTheGenericForms) {
  const GenericBackend generic;
  const tc::Backend& cpu = tc::backend_for(tc::kCPU);
  Tensor x = randn({3, 4, 5, 2}), w = randn({4}), b = randn({4}), g = randn({3, 4, 5, 2});
  auto run = [&](const tc::Backend& be, bool training) {
    std::vector<Tensor> out;
    Tensor y = tc::empty(x->shape, DType::f64), mean = tc::empty({4}, DType::f64),
           invstd = tc::empty({4}, DType::f64), var = tc::empty({4}, DType::f64);
    be.batch_norm_forward(y, mean, invstd, var, x, w, b, 1e-3);
    Tensor gx = tc::empty(x->shape, DType::f64), gw = tc::empty({4}, DType::f64),
           gb = tc::empty({4}, DType::f64);
    be.batch_norm_backward(gx, gw, gb, g, x, mean, invstd, w, training);
    Tensor y2 = tc::empty(x->shape, DType::f64);
    be.batch_norm_apply(y2, x, mean, invstd, w, b);
    Tensor gy = tc::empty(x->shape, DType::f64), gm = tc::empty({3, 2}, DType::f64),
           gi = tc::empty({3, 2}, DType::f64);
    be.group_norm_forward(gy, gm, gi, x, w, b, 2, 1e-3);
    Tensor ggx = tc::empty(x->shape, DType::f64), ggw = tc::empty({4}, DType::f64),
           ggb = tc::empty({4}, DType::f64);
    be.group_norm_backward(ggx, ggw, ggb, g, x, gm, gi, w, 2);
    return std::vector<Tensor>{y, mean, invstd, var, gx, gw, gb, y2, gy, gm, gi, ggx, ggw, ggb};
  };
  for (bool training : {true, false}) {
    const std::vector<Tensor> a = run(cpu, training), e = run(generic, training);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_LT(max_abs_diff(a[i], e[i]), 1e-12) << "output " << i;
  }
}

TEST_F(NormPoolKernels, Float32StatisticsOfALargeMean) {
  // float32 x = 1000 + noise: the one-pass statistics keep the variance.
  Tensor x64 = ops::add_scalar(randn({8, 3, 16, 16}), 1000.0);
  Tensor x32 = tc::cast(x64, DType::f32);
  Tensor y32 = ops::batch_norm(x32, {}, {}, {}, {}, true, 0.1, 1e-5);
  Tensor y64 = ops::batch_norm(tc::cast(x32, DType::f64), {}, {}, {}, {}, true, 0.1, 1e-5);
  EXPECT_LT(max_abs_diff(y32, y64), 2e-3);
  Tensor g32 = ops::group_norm(x32, 3, {}, {}, 1e-5);
  Tensor g64 = ops::group_norm(tc::cast(x32, DType::f64), 3, {}, {}, 1e-5);
  EXPECT_LT(max_abs_diff(g32, g64), 2e-3);
}

TEST_F(NormPoolKernels, RunningStatisticsAndErrors) {
  Tensor x = randn({4, 2, 3}), rm = tc::zeros({2}, DType::f64), rv = tc::ones({2}, DType::f64);
  ops::batch_norm(x, {}, {}, rm, rv, true, 0.25, 1e-5);
  // running = 0.75 running + 0.25 batch (unbiased variance)
  Tensor mu = ops::mean(x, {0, 2}, false);
  Tensor var = ops::binary_scalar(
      ops::ScalarOp::mul,
      ops::mean(ops::mul(ops::sub(x, ops::reshape(mu, {1, 2, 1})), ops::sub(x, ops::reshape(mu, {1, 2, 1}))),
                {0, 2}, false),
      12.0 / 11.0);
  EXPECT_LT(max_abs_diff(rm, ops::mul_scalar(mu, 0.25)), 1e-14);
  EXPECT_LT(max_abs_diff(rv, ops::add_scalar(ops::mul_scalar(var, 0.25), 0.75)), 1e-14);
  // one value per channel: PyTorch's "Expected more than 1 value per channel when training"
  try {
    ops::batch_norm(randn({1, 3, 1, 1}), {}, {}, {}, {}, true, 0.1, 1e-5);
    ADD_FAILURE() << "no error";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("more than 1 value per channel"), std::string::npos) << e.what();
  }
}

TEST_F(NormPoolKernels, PoolingGradientsOfTheFullGeometry) {
  // distinct values: no ties between the taps of a window
  Tensor x = ops::mul_scalar(
      tc::cast(ops::reshape(ops::randperm(2 * 3 * 7 * 6, DType::i64, tc::kCPU), {2, 3, 7, 6}), DType::f64),
      0.1);
  struct MaxCase {
    int64_t k[2], s[2], p[2], d[2];
    bool ceil;
  };
  for (const MaxCase& m :
       {MaxCase{{3, 3}, {2, 2}, {1, 1}, {1, 1}, false}, MaxCase{{2, 2}, {2, 2}, {0, 0}, {2, 2}, false},
        MaxCase{{3, 2}, {2, 1}, {1, 1}, {1, 2}, true}, MaxCase{{2, 2}, {2, 2}, {1, 0}, {1, 1}, true}}) {
    EXPECT_TRUE(gradcheck(
        [&](const Inputs& in) {
          return ops::max_pool2d_with_indices(in[0], m.k, m.s, m.p, m.d, m.ceil).first;
        },
        {noncontiguous(x)}));
  }
  struct AvgCase {
    int64_t k[2], s[2], p[2];
    bool ceil, include_pad;
    int64_t divisor;
  };
  for (const AvgCase& a :
       {AvgCase{{3, 3}, {2, 2}, {1, 1}, true, false, 0}, AvgCase{{2, 3}, {2, 3}, {1, 1}, true, true, 5},
        AvgCase{{3, 3}, {2, 1}, {1, 1}, false, true, 0}, AvgCase{{2, 2}, {2, 2}, {0, 0}, false, true, 3}}) {
    EXPECT_TRUE(gradcheck(
        [&](const Inputs& in) {
          return ops::avg_pool2d_ex(in[0], a.k, a.s, a.p, a.ceil, a.include_pad, a.divisor);
        },
        {randn({2, 2, 5, 7})}));
  }
}

TEST_F(NormPoolKernels, MaxPoolIndicesAreSavedAndChecked) {
  Tensor x = randn({1, 2, 4, 4});
  x->requires_grad = true;
  const int64_t k[2] = {2, 2}, p[2] = {0, 0}, d[2] = {1, 1};
  auto [y, idx] = ops::max_pool2d_with_indices(x, k, nullptr, p, d, false);
  // Modifying the returned indices in place invalidates the backward, as in PyTorch.
  ops::copy_(idx, tc::zeros(idx->shape, DType::i64));
  try {
    tc::autograd::backward(ops::sum(y, {}, false), nullptr, false);
    ADD_FAILURE() << "no error";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_AUTOGRAD) << e.what();
  }
}
