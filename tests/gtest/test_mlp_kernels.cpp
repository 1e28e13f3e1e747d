// The MLP step's non-GEMM kernels as made faster for the MLP targets:
// cross-entropy's float32 rows in blocks whose exps vectorize (a polynomial
// exp in double instead of libm's) and split across threads, and linear's
// bias fill split across threads. Checked: float32 results against the
// previous formulation with libm's exp, to the last bit but next to a
// rounding tie; special values (-inf, far below the row max, NaN);
// the same bits in every kernel set and at 1 and 2 threads; gradients against
// float64 finite differences.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "cpu/kernels.h"
#include "gradcheck.h"
#include "math/rows/binary_add.h"
#include "math/scalar_op_enum.h"
#include "ops/ops.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

namespace {

class MlpKernels : public TcTest {};

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor ca = tc::contiguous(a), cb = tc::contiguous(b);
  return ca->dtype == cb->dtype && ca->shape == cb->shape &&
         std::memcmp(ca->data(), cb->data(), size_t(ca->numel() * ca->itemsize())) == 0;
}

// Logits spread over [-scale, scale] with, when `special`, a row holding
// -inf, a row with entries ~800 below its max (exp underflows even in
// double), a row of equal values and a NaN row.
Tensor logits(int64_t n, int64_t c, double scale, bool special) {
  Tensor x = ops::binary_scalar(ops::ScalarOp::mul, randn({n, c}), scale);
  if (special && n >= 4) {
    double* p = x->data_as<double>();
    p[0 * c + 0] = -std::numeric_limits<double>::infinity();
    p[1 * c + 0] = 5.0;
    for (int64_t j = 1; j < c; ++j) p[1 * c + j] = -800.0 + double(j);
    for (int64_t j = 0; j < c; ++j) p[2 * c + j] = 0.25;
    p[3 * c + c / 2] = std::nan("");
  }
  return x;
}

// cross_entropy with reduction none: the per-row losses and the softmax
// (from the gradient of the summed loss: probs - onehot).
struct CeResult {
  Tensor loss, grad;
};
CeResult cross_entropy_of(const Tensor& x0, const Tensor& target) {
  Tensor x = ops::clone(x0);
  x->requires_grad = true;
  Tensor loss = ops::cross_entropy(x, target, TC_REDUCTION_NONE);
  tc::autograd::backward(ops::sum(loss, {}, false), Tensor(), false);
  Tensor g = x->grad();
  x->set_grad(Tensor());
  return {loss, g};
}

// |got - want| within `ulps` float32 ulps of want (NaN matches NaN).
::testing::AssertionResult close_f32(const Tensor& got32, const Tensor& want64, double ulps,
                                     const char* what) {
  const int64_t n = got32->numel();
  for (int64_t i = 0; i < n; ++i) {
    const double g = tc::read_element(got32, i), w = tc::read_element(want64, i);
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) && std::isnan(g)) continue;
      return ::testing::AssertionFailure() << what << "[" << i << "]: " << g << " vs " << w;
    }
    const double wf = double(float(w));
    const double ulp = std::max(double(std::nextafter(float(wf), INFINITY) - float(wf)),
                                double(std::numeric_limits<float>::denorm_min()));
    if (!(std::abs(g - wf) <= ulps * ulp)) {
      return ::testing::AssertionFailure()
             << what << "[" << i << "]: " << g << " vs " << wf << " (float64 " << w << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

// The float32 rows as the kernel computed them before (and PyTorch's CPU
// kernel does): max and x - max in float, exp by libm in double, each prob
// rounded to float, then scaled by 1 / sum; loss in double.
void reference_f32(const Tensor& x, const Tensor& target, std::vector<double>& probs,
                   std::vector<double>& losses) {
  const int64_t n = x->shape[0], c = x->shape[1];
  const float* px = x->data_as<float>();
  probs.assign(size_t(n * c), 0.0);
  losses.assign(size_t(n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const float* row = px + i * c;
    float mx = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < c; ++j) mx = std::max(mx, row[j]);
    double sum = 0;
    std::vector<float> e(static_cast<size_t>(c));
    for (int64_t j = 0; j < c; ++j) {
      const double v = std::exp(double(row[j] - mx));
      e[j] = float(v);
      sum += v;
    }
    for (int64_t j = 0; j < c; ++j) probs[i * c + j] = float(double(e[j]) * (1.0 / sum));
    const int64_t t = int64_t(tc::read_element(target, i));
    losses[i] = float(double(mx) + std::log(sum) - double(row[t]));
  }
}

// Shapes: the MLP's [1024, 10] (blocks of 204 rows, the last one short), a
// short last block of 1001 rows, one class (2048 rows a block), two rows a
// block, the widest rows the block path takes (2048 classes, one row a
// block) and wider rows (the row-at-a-time path). The polynomial exp is within 2 ulp of
// libm's in double, so a float prob can differ only next to a rounding tie:
// by 1 float ulp. The probs are checked through the gradient of the summed
// loss (probs - onehot; the target's entry is compared as prob - 1).
TEST_F(MlpKernels, CrossEntropyFloat32MatchesLibmReference) {
  const int64_t shapes[][2] = {{1024, 10}, {1001, 10}, {2100, 1}, {130, 1024}, {5, 2048}, {9, 2100}};
  for (const auto& s : shapes) {
    const int64_t n = s[0], c = s[1];
    for (double scale : {1.0, 30.0}) {
      Tensor x32 = tc::cast(logits(n, c, scale, true), DType::f32);
      Tensor target = ops::randint(0, c, {n}, DType::i64, tc::kCPU);
      std::vector<double> probs, losses;
      reference_f32(x32, target, probs, losses);
      for (int64_t i = 0; i < n; ++i) probs[i * c + int64_t(tc::read_element(target, i))] -= 1.0;
      Tensor want_grad = tensor(probs, {n, c}), want_loss = tensor(losses, {n});
      for (int threads : {1, 2}) {
        tc::set_num_threads(threads);
        const CeResult r = cross_entropy_of(x32, target);
        const std::string where = std::to_string(n) + "x" + std::to_string(c) + " scale " +
                                  std::to_string(scale) + " threads " + std::to_string(threads);
        // Rows wider than 2048 classes take their exps in float (math/fast_math.h,
        // within 1 ulp, as torch computes them), so a prob may be 2 ulps off libm's.
        EXPECT_TRUE(close_f32(r.grad, want_grad, c > 2048 ? 2 : 1, "grad")) << where;
        EXPECT_TRUE(close_f32(r.loss, want_loss, 1, "loss")) << where;
      }
    }
  }
  tc::set_num_threads(1);
}

TEST_F(MlpKernels, CrossEntropySpecialRows) {
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor x = tc::cast(logits(8, 10, 3.0, true), dt);
    Tensor target = ops::randint(1, 10, {8}, DType::i64, tc::kCPU);
    const CeResult r = cross_entropy_of(x, target);
    // Row 0: the -inf class has probability 0; its gradient is exactly 0 (not the target).
    EXPECT_EQ(tc::read_element(r.grad, 0), 0.0);
    // Row 1: classes ~800 below the max have probability 0 in either dtype.
    for (int64_t j = 1; j < 10; ++j) {
      const double g = tc::read_element(r.grad, 10 + j);
      const double onehot = tc::read_element(target, 1) == j ? 1.0 : 0.0;
      EXPECT_EQ(g, -onehot) << j;
    }
    // Row 2: equal logits, probability 1/10 each, loss log(10).
    EXPECT_NEAR(tc::read_element(r.loss, 2), std::log(10.0), dt == DType::f32 ? 1e-6 : 1e-14);
    // Row 3: a NaN logit makes the row's loss NaN.
    EXPECT_TRUE(std::isnan(tc::read_element(r.loss, 3)));
  }
}

// Every kernel set the CPU runs gives the baseline set's bits, at 1 and 2
// threads (the block path splits whole blocks of rows).
TEST_F(MlpKernels, CrossEntropySameBitsInEveryKernelSetAndThreadCount) {
  const std::string in_use = tc::cpu::kernels().name;
  const tc::cpu::KernelSet* avail[4] = {};
  const int sets = tc::cpu::available_kernel_sets(avail, 4);
  for (int64_t n : {int64_t(63), int64_t(1024), int64_t(5001)}) {
    Tensor x = tc::cast(logits(n, 10, 10.0, true), DType::f32);
    Tensor target = ops::randint(0, 10, {n}, DType::i64, tc::kCPU);
    ASSERT_TRUE(tc::cpu::select_kernels("baseline"));
    tc::set_num_threads(1);
    const CeResult want = cross_entropy_of(x, target);
    for (int i = 0; i < sets; ++i) {
      ASSERT_TRUE(tc::cpu::select_kernels(avail[i]->name));
      for (int threads : {1, 2}) {
        tc::set_num_threads(threads);
        const CeResult got = cross_entropy_of(x, target);
        EXPECT_TRUE(same_bits(got.loss, want.loss)) << avail[i]->name << " n " << n << " threads " << threads;
        EXPECT_TRUE(same_bits(got.grad, want.grad)) << avail[i]->name << " n " << n << " threads " << threads;
      }
    }
  }
  tc::cpu::select_kernels(in_use.c_str());
  tc::set_num_threads(1);
}

TEST_F(MlpKernels, CrossEntropyGradcheck) {
  for (int64_t n : {int64_t(3), int64_t(70)}) {
    Tensor x = logits(n, 5, 2.0, false);
    Tensor target = ops::randint(0, 5, {n}, DType::i64, tc::kCPU);
    for (int32_t red : {TC_REDUCTION_NONE, TC_REDUCTION_MEAN, TC_REDUCTION_SUM}) {
      EXPECT_TRUE(gradcheck([&](const Inputs& in) { return ops::cross_entropy(in[0], target, red); }, {x}))
          << n << " reduction " << red;
    }
  }
}

// Linear's bias fill before the GEMM, split across threads: the same bits at
// 1 and 2 threads (rows below and above the split), and the values of
// x @ W^T + b from matmul and add; gradients by finite differences.
TEST_F(MlpKernels, LinearBiasFillAcrossThreads) {
  for (int64_t rows : {int64_t(7), int64_t(1024), int64_t(3001)}) {
    for (DType dt : {DType::f32, DType::f64}) {
      Tensor x = randn({rows, 40}, dt), w = randn({256, 40}, dt), b = randn({256}, dt);
      tc::set_num_threads(1);
      Tensor one = ops::linear(x, w, b);
      tc::set_num_threads(2);
      Tensor two = ops::linear(x, w, b);
      EXPECT_TRUE(same_bits(one, two)) << rows;
      // A strided bias (every other element) is copied contiguous first.
      Tensor b2 = tc::make_view(ops::cat({b, b}, 0), {256}, {2}, 0);
      Tensor strided = ops::linear(x, w, b2);
      Tensor want = ops::binary(ops::row::add, ops::matmul(x, ops::transpose(w, 0, 1)), tc::contiguous(b2));
      const double tol = dt == DType::f32 ? 1e-4 : 1e-12;
      const std::vector<double> got = values(strided), ref = values(want);
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], ref[i], tol * (1 + std::abs(ref[i]))) << i;
    }
  }
  tc::set_num_threads(2);
  Tensor x = randn({5, 4}), w = randn({3, 4}), b = randn({3});
  EXPECT_TRUE(gradcheck([](const Inputs& in) { return ops::linear(in[0], in[1], in[2]); }, {x, w, b}));
  tc::set_num_threads(1);
}
