// Adaptive average and max pooling (src/ops/adaptive_pool.cpp, the CPU
// kernels of src/cpu/adaptive_pool.cpp): values, indices and gradients
// against PyTorch 1.13 (adaptive_pool_expected.inc, from
// adaptive_pool_expected.py) in float64 and float32, gradients against
// central finite differences, PyTorch's tie and NaN rule, unbatched,
// non-contiguous and empty inputs, and the window helpers shared with CUDA.
#include <cmath>
#include <limits>
#include <vector>

#include "gradcheck.h"
#include "math/adaptive_pool.h"
#include "ops/ops.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

namespace {

struct AdaptiveCase {
  bool two_d;
  tc::Dims shape;
  std::vector<int64_t> out, out_shape;
  std::vector<double> avg, avg_grad, max, max_index, max_grad;
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// clang-format off
#include "adaptive_pool_expected.inc"
// clang-format on

class AdaptivePool : public TcTest {};

std::vector<double> seq(int64_t n, double a = 0.37, double b = 0.1) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = std::sin(a * double(i) + b);
  return v;
}
std::vector<double> upstream(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = std::cos(0.3 * double(i));
  return v;
}
int64_t numel(const tc::Dims& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Tensor avg(const AdaptiveCase& c, const Tensor& x) {
  return c.two_d ? ops::adaptive_avg_pool2d(x, c.out.data()) : ops::adaptive_avg_pool1d(x, c.out[0]);
}
std::pair<Tensor, Tensor> max(const AdaptiveCase& c, const Tensor& x) {
  return c.two_d ? ops::adaptive_max_pool2d(x, c.out.data()) : ops::adaptive_max_pool1d(x, c.out[0]);
}

void expect_values(const Tensor& t, const std::vector<double>& want, double tol, const char* what) {
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << ", element " << i;
}

// The input's gradient for the upstream gradient cos(0.3 i).
Tensor input_grad(const Tensor& x, const Tensor& y) {
  x->set_grad(nullptr);
  tc::autograd::backward(y, tensor(upstream(y->numel()), y->shape, y->dtype), false);
  return x->grad();
}

TEST_F(AdaptivePool, ValuesIndicesAndGradientsMatchPyTorch) {
  for (const AdaptiveCase& c : kCases) {
    for (DType dt : {DType::f64, DType::f32}) {
      const double tol = dt == DType::f64 ? 1e-12 : 2e-6;
      SCOPED_TRACE(testing::Message() << (c.two_d ? "2-D " : "1-D ") << c.shape << " -> "
                                      << tc::Dims(c.out_shape) << " " << tc::dtype_name(dt));
      Tensor x = leaf(seq(numel(c.shape)), c.shape, dt);
      Tensor a = avg(c, x);
      EXPECT_EQ(a->shape, tc::Dims(c.out_shape));
      expect_values(a, c.avg, tol, "average");
      expect_values(input_grad(x, a), c.avg_grad, tol, "average's gradient");
      auto [m, ix] = max(c, x);
      EXPECT_EQ(ix->dtype, DType::i64);
      EXPECT_EQ(ix->shape, tc::Dims(c.out_shape));
      expect_values(m, c.max, tol, "max");
      expect_values(ix, c.max_index, 0, "max indices");
      expect_values(input_grad(x, m), c.max_grad, tol, "max's gradient");
    }
  }
}

TEST_F(AdaptivePool, GradientsMatchFiniteDifferences) {
  const int64_t o34[] = {3, 4}, o11[] = {1, 1}, o95[] = {9, 5};
  for (const int64_t* o : {o34, o11, o95}) {
    // A permutation keeps every window's maximum away from a tie.
    std::vector<double> v(2 * 3 * 7 * 6);
    for (size_t i = 0; i < v.size(); ++i) v[i] = double((i * 37) % v.size()) / 10.0;
    Tensor x = tensor(v, {2, 3, 7, 6});
    EXPECT_TRUE(gradcheck([&](const Inputs& in) { return ops::adaptive_avg_pool2d(in[0], o); }, {x}));
    EXPECT_TRUE(gradcheck([&](const Inputs& in) { return ops::adaptive_max_pool2d(in[0], o).first; }, {x}));
    // Non-contiguous and unbatched.
    Tensor xn = noncontiguous(tensor(std::vector<double>(v.begin(), v.begin() + 3 * 7 * 6), {3, 7, 6}));
    EXPECT_TRUE(gradcheck([&](const Inputs& in) { return ops::adaptive_avg_pool2d(in[0], o); }, {xn}));
    EXPECT_TRUE(gradcheck([&](const Inputs& in) { return ops::adaptive_max_pool2d(in[0], o).first; }, {xn}));
    Tensor l = tensor(std::vector<double>(v.begin(), v.begin() + 2 * 3 * 11), {2, 3, 11});
    EXPECT_TRUE(gradcheck([&](const Inputs& in) { return ops::adaptive_avg_pool1d(in[0], o[0] + 1); }, {l}));
    EXPECT_TRUE(
        gradcheck([&](const Inputs& in) { return ops::adaptive_max_pool1d(in[0], o[1] + 1).first; }, {l}));
  }
}

TEST_F(AdaptivePool, TiesTakeTheFirstMaximumAndNaNPropagates) {
  const int64_t o[] = {2, 3};
  for (DType dt : {DType::f64, DType::f32}) {
    auto [m, ix] = ops::adaptive_max_pool2d(tensor(kTiesIn, {1, 1, 4, 5}, dt), o);
    expect_values(m, kTiesMax, 0, "ties' max");
    expect_values(ix, kTiesIndex, 0, "ties' indices");
    auto [mn, ixn] = ops::adaptive_max_pool2d(tensor(kNanIn, {1, 1, 4, 5}, dt), o);
    const std::vector<double> got = values(mn);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(std::isnan(got[i]), std::isnan(kNanMax[i])) << "element " << i;
      if (!std::isnan(kNanMax[i])) {
        EXPECT_EQ(got[i], kNanMax[i]) << "element " << i;
      }
    }
    expect_values(ixn, kNanIndex, 0, "NaN indices");
  }
  // The gradient of tied windows goes to the first maximum only, summed where
  // windows share it (index 3 is the maximum of two windows).
  Tensor x = leaf(kTiesIn, {1, 1, 4, 5});
  Tensor g = input_grad(x, ops::adaptive_max_pool2d(x, o).first);
  const std::vector<double> up = upstream(6);
  std::vector<double> want(20, 0.0);
  for (size_t i = 0; i < 6; ++i) want[size_t(kTiesIndex[i])] += up[i];
  expect_values(g, want, 0, "ties' gradient");
}

TEST_F(AdaptivePool, NonContiguousInputsGiveTheContiguousResults) {
  const int64_t o[] = {3, 2};
  for (DType dt : {DType::f64, DType::f32}) {
    Tensor x = tensor(seq(4 * 5 * 7), {4, 5, 7}, dt);
    Tensor xn = noncontiguous(x);
    ASSERT_FALSE(xn->is_contiguous());
    EXPECT_EQ(values(ops::adaptive_avg_pool2d(xn, o)), values(ops::adaptive_avg_pool2d(x, o)));
    EXPECT_EQ(values(ops::adaptive_max_pool2d(xn, o).second), values(ops::adaptive_max_pool2d(x, o).second));
    EXPECT_EQ(values(ops::adaptive_avg_pool1d(xn, 3)), values(ops::adaptive_avg_pool1d(x, 3)));
    EXPECT_EQ(values(ops::adaptive_max_pool1d(xn, 4).first), values(ops::adaptive_max_pool1d(x, 4).first));
  }
}

TEST_F(AdaptivePool, EmptyBatchesGiveEmptyResultsAndGradients) {
  const int64_t o[] = {3, 3};
  Tensor x = leaf({}, {0, 2, 4, 5});
  Tensor a = ops::adaptive_avg_pool2d(x, o);
  EXPECT_EQ(a->shape, (tc::Dims{0, 2, 3, 3}));
  auto [m, ix] = ops::adaptive_max_pool2d(x, o);
  EXPECT_EQ(ix->shape, (tc::Dims{0, 2, 3, 3}));
  tc::autograd::backward(ops::sum(ops::add(a, m), {}, false), nullptr, false);
  ASSERT_TRUE(x->grad());
  EXPECT_EQ(x->grad()->shape, x->shape);
  EXPECT_EQ(ops::adaptive_max_pool1d(tensor({}, {0, 3, 4}), 2).first->shape, (tc::Dims{0, 3, 2}));
}

// Output size 0 gives an empty result and a zero gradient, as PyTorch's.
TEST_F(AdaptivePool, OutputSizeZeroGivesEmptyResults) {
  const int64_t o02[] = {0, 2}, o30[] = {3, 0};
  for (const int64_t* o : {o02, o30}) {
    Tensor x = leaf(seq(2 * 3 * 5 * 4), {2, 3, 5, 4});
    Tensor a = ops::adaptive_avg_pool2d(x, o);
    auto [m, ix] = ops::adaptive_max_pool2d(x, o);
    EXPECT_EQ(a->shape, (tc::Dims{2, 3, o[0], o[1]}));
    EXPECT_EQ(ix->shape, (tc::Dims{2, 3, o[0], o[1]}));
    tc::autograd::backward(ops::sum(ops::add(a, m), {}, false), nullptr, false);
    ASSERT_TRUE(x->grad());
    EXPECT_EQ(values(x->grad()), std::vector<double>(120, 0.0));
  }
  EXPECT_EQ(ops::adaptive_max_pool1d(tensor(seq(6), {2, 3}), 0).second->shape, (tc::Dims{2, 0}));
}

TEST_F(AdaptivePool, BadArgumentsAreRefusedWithTheirShapes) {
  const int64_t o[] = {2, 2}, negative[] = {-1, 2};
  EXPECT_EQ(code_of([&] { ops::adaptive_avg_pool2d(tensor({1, 2}, {2}), o); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::adaptive_max_pool1d(tensor({1, 2}, {2}), 1); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] { ops::adaptive_avg_pool2d(tensor({}, {1, 2, 0, 3}), o); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] {
              ops::adaptive_avg_pool2d(tensor({1, 2, 3, 4}, {1, 1, 2, 2}), negative);
            }),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::adaptive_max_pool1d(tensor({1, 2}, {1, 2}), -1); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::adaptive_avg_pool1d(tensor({1, 2}, {1, 2}, DType::i64), 1); }), TC_ERR_DTYPE);
  try {
    ops::adaptive_max_pool2d(tensor(seq(5), {5}), o);
    ADD_FAILURE() << "no error";
  } catch (const tc::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "adaptive_max_pool2d: x must be [N, C, H, W] or [C, H, W] but has shape [5]"),
              std::string::npos)
        << e.what();
  }
}

// The windows' helpers (math/adaptive_pool.h, which the CUDA kernels share)
// against their definitions, and the "windows holding i" ranges the CUDA
// backwards gather over against a search of every window.
TEST_F(AdaptivePool, WindowHelpersFollowTheDefinition) {
  for (int64_t in = 1; in <= 13; ++in)
    for (int64_t out = 1; out <= 13; ++out) {
      for (int64_t o = 0; o < out; ++o) {
        EXPECT_EQ(tc::adaptive_begin(o, in, out), int64_t(std::floor(double(o * in) / double(out))));
        EXPECT_EQ(tc::adaptive_end(o, in, out), int64_t(std::ceil(double((o + 1) * in) / double(out))));
      }
      for (int64_t i = 0; i < in; ++i) {
        int64_t first = -1, last = -1;
        for (int64_t o = 0; o < out; ++o)
          if (tc::adaptive_begin(o, in, out) <= i && i < tc::adaptive_end(o, in, out)) {
            if (first < 0) first = o;
            last = o;
          }
        EXPECT_EQ(tc::adaptive_first_holding(i, in, out), first) << in << " -> " << out << ", input " << i;
        EXPECT_EQ(tc::adaptive_last_holding(i, in, out), last) << in << " -> " << out << ", input " << i;
      }
    }
  // No overflow at the largest sizes the ops accept.
  const int64_t big = int64_t(1) << 31;
  EXPECT_EQ(tc::adaptive_begin(big - 1, big, big), big - 1);
  EXPECT_EQ(tc::adaptive_end(big - 1, big, big), big);
  EXPECT_EQ(tc::adaptive_last_holding(big - 1, big, 3), 2);
}

// The CUDA kernels (src/cuda/adaptive_pool.cu) against the CPU's: values,
// indices and gradients, including overlapping windows, an output larger
// than the input, the global pool and NaN (skipped without a GPU).
class CudaAdaptivePool : public CudaTest {};

TEST_F(CudaAdaptivePool, MatchesTheCpu) {
  const tc::Device cuda = TC_DEVICE(TC_DEVICE_CUDA, 0);
  const int64_t sizes[][2] = {{3, 4}, {1, 1}, {9, 8}, {7, 2}};
  for (const auto& o : sizes)
    for (DType dt : {DType::f64, DType::f32}) {
      std::vector<double> v = values(randn({2, 3, 7, 6}));
      v[5] = kNaN;
      Tensor x = tensor(v, {2, 3, 7, 6}, dt);
      Tensor xd = tc::to_device(x, cuda);
      x->requires_grad = xd->requires_grad = true;
      Tensor a = ops::adaptive_avg_pool2d(x, o), ad = ops::adaptive_avg_pool2d(xd, o);
      auto [m, ix] = ops::adaptive_max_pool2d(x, o);
      auto [md, ixd] = ops::adaptive_max_pool2d(xd, o);
      const double tol = dt == DType::f64 ? 1e-12 : 1e-5;
      Tensor g = randn(a->shape, dt);
      tc::autograd::backward(ops::sum(ops::add(ops::mul(a, g), ops::mul(m, g)), {}, false), nullptr, false);
      tc::autograd::backward(
          ops::sum(ops::add(ops::mul(ad, tc::to_device(g, cuda)), ops::mul(md, tc::to_device(g, cuda))), {},
                   false),
          nullptr, false);
      const std::vector<double> pairs[][2] = {
          {values(a), values(tc::to_device(ad, tc::kCPU))},
          {values(m), values(tc::to_device(md, tc::kCPU))},
          {values(ix), values(tc::to_device(ixd, tc::kCPU))},
      };
      for (const auto& p : pairs) {
        ASSERT_EQ(p[0].size(), p[1].size());
        for (size_t i = 0; i < p[0].size(); ++i) {
          if (std::isnan(p[0][i])) {
            EXPECT_TRUE(std::isnan(p[1][i])) << i;
          } else {
            EXPECT_NEAR(p[0][i], p[1][i], tol * (1 + std::fabs(p[0][i]))) << i;
          }
        }
      }
      // The NaN's window sends its gradient to the NaN on both devices.
      const std::vector<double> gx = values(x->grad()), gxd = values(tc::to_device(xd->grad(), tc::kCPU));
      for (size_t i = 0; i < gx.size(); ++i) {
        if (std::isnan(gx[i])) continue;
        EXPECT_NEAR(gx[i], gxd[i], tol * (1 + std::fabs(gx[i]))) << i;
      }
    }
}

}  // namespace
