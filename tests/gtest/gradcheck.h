// A reusable finite-difference gradient checker for the GoogleTest suite, plus
// the small helpers op tests share (a fixture that initializes libtc and checks
// for leaked tensors, tensor <-> vector conversions, seeded random inputs).
//
// Usage:
//   using namespace tc_test;
//   std::vector<tc::Tensor> xs = {randn({3, 4}), randn({4})};   // float64 leaves
//   EXPECT_TRUE(gradcheck([](const Inputs& x) { return tc::ops::mul(x[0], x[1]); }, xs));
//
// gradcheck marks every floating input as requiring grad, builds the scalar
// L = sum(f(x) * w) for a fixed random w of f's output shape, runs backward, and
// compares each input's gradient, element by element, with the central
// difference (L(x + eps) - L(x - eps)) / 2eps. Inputs may be non-contiguous
// (e.g. make them with noncontiguous()); elements are perturbed in place through
// their strides. Use float64 inputs: float32 differences are too coarse.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/function.h"
#include "core/init.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "tc.h"

namespace tc_test {

using Inputs = std::vector<tc::Tensor>;

// Initializes libtc for each test and checks that every tensor died by the end.
class TcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    tc_manual_seed(1234);
  }
  void TearDown() override {
    int64_t live = -1;
    EXPECT_EQ(tc_get_flag("live_tensors", &live), TC_OK);
    EXPECT_EQ(live, 0) << "tensors leaked by this test";
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
};

inline tc::Tensor randn(const tc::Dims& shape, tc::DType dtype = tc::DType::f64) {
  tc::Tensor t = tc::empty(shape, dtype);
  tc::fill_normal(t, 0.0, 1.0);
  return t;
}

inline tc::Tensor uniform(const tc::Dims& shape, double lo, double hi, tc::DType dtype = tc::DType::f64) {
  tc::Tensor t = tc::empty(shape, dtype);
  tc::fill_uniform(t, lo, hi);
  return t;
}

// A tensor of the given shape and dtype from values in row-major order.
inline tc::Tensor tensor(const std::vector<double>& values, const tc::Dims& shape,
                         tc::DType dtype = tc::DType::f64) {
  tc::Tensor t = tc::empty(shape, tc::DType::f64);
  for (size_t i = 0; i < values.size(); ++i) t->data_as<double>()[i] = values[i];
  return tc::cast(t, dtype);
}

// tensor() as a leaf that requires grad.
inline tc::Tensor leaf(const std::vector<double>& values, const tc::Dims& shape,
                       tc::DType dtype = tc::DType::f64) {
  tc::Tensor t = tensor(values, shape, dtype);
  t->requires_grad = true;
  return t;
}

inline std::vector<double> values(const tc::Tensor& t) {
  std::vector<double> v(size_t(t->numel()));
  for (int64_t i = 0; i < t->numel(); ++i) v[size_t(i)] = tc::read_element(t, i);
  return v;
}

// The same values as t, in a non-contiguous layout (a transposed copy viewed back).
inline tc::Tensor noncontiguous(const tc::Tensor& t) {
  if (t->ndim() < 2) {  // every other element of a twice-as-long buffer
    tc::Tensor big = tc::zeros(tc::Dims{2 * std::max<int64_t>(t->numel(), 1)}, t->dtype);
    tc::Tensor v = tc::make_view(big, t->shape, t->ndim() ? tc::Dims{2} : tc::Dims{}, 0);
    tc::copy_into(v, t);
    return v;
  }
  tc::Dims perm_shape = t->shape;
  std::swap(perm_shape[0], perm_shape[1]);
  tc::Tensor base = tc::empty(perm_shape, t->dtype);
  tc::Dims strides = base->strides;
  std::swap(strides[0], strides[1]);
  tc::Tensor v = tc::make_view(base, t->shape, strides, 0);
  tc::copy_into(v, t);
  return v;
}

// Address of logical element i (row-major) of a float64 tensor with any strides.
inline double* element(const tc::Tensor& t, int64_t i) {
  int64_t off = 0;
  for (int64_t d = t->ndim() - 1; d >= 0; --d) {
    off += (i % t->shape[d]) * t->strides[d];
    i /= t->shape[d];
  }
  return t->data_as<double>() + off;
}

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-4;
};

inline ::testing::AssertionResult gradcheck(const std::function<tc::Tensor(const Inputs&)>& f,
                                            const Inputs& inputs, GradcheckOptions opt = {}) {
  for (const tc::Tensor& x : inputs) {
    if (x && x->dtype == tc::DType::f64) {
      x->requires_grad = true;
      x->set_grad(nullptr);
    }
  }
  tc::Tensor out = f(inputs);
  if (!out->requires_grad) return ::testing::AssertionFailure() << "the output does not require grad";
  const tc::Tensor w = randn(out->shape, out->dtype);
  auto loss = [&](const tc::Tensor& y) {
    tc::NoGradGuard ng;
    return tc::read_element(tc::ops::sum(tc::ops::mul(y, w), {}, false), 0);
  };
  tc::autograd::backward(tc::ops::sum(tc::ops::mul(out, w), {}, false), nullptr, false);
  for (size_t k = 0; k < inputs.size(); ++k) {
    const tc::Tensor& x = inputs[k];
    if (!x || x->dtype != tc::DType::f64) continue;
    if (!x->grad()) return ::testing::AssertionFailure() << "input " << k << " got no gradient";
    if (x->grad()->shape != x->shape) {
      return ::testing::AssertionFailure()
             << "input " << k << " has shape " << x->shape << " but its grad has " << x->grad()->shape;
    }
    for (int64_t i = 0; i < x->numel(); ++i) {
      double* p = element(x, i);
      const double orig = *p;
      double plus, minus;
      {
        tc::NoGradGuard ng;
        *p = orig + opt.eps;
        plus = loss(f(inputs));
        *p = orig - opt.eps;
        minus = loss(f(inputs));
        *p = orig;
      }
      const double numeric = (plus - minus) / (2 * opt.eps);
      const double analytic = tc::read_element(x->grad(), i);
      if (!(std::abs(analytic - numeric) <= opt.atol + opt.rtol * std::abs(numeric))) {
        return ::testing::AssertionFailure() << "input " << k << " (shape " << x->shape << "), element " << i
                                             << ": analytic " << analytic << " vs numeric " << numeric;
      }
    }
  }
  for (const tc::Tensor& x : inputs) {
    if (x) x->set_grad(nullptr);
  }
  return ::testing::AssertionSuccess();
}

// Runs a C ABI call and checks its status, printing the last error on failure.
inline ::testing::AssertionResult ok(int32_t status) {
  if (status == TC_OK) return ::testing::AssertionSuccess();
  const char* msg = "";
  tc_last_error(&msg);
  return ::testing::AssertionFailure() << "status " << status << ": " << msg;
}

inline std::string last_error() {
  const char* msg = "";
  tc_last_error(&msg);
  return msg;
}

// A TcTest that skips, with libtc's reason, unless the cuda stage runs (no GPU,
// no driver, a CPU-only build): the fixture of every GPU parity test.
class CudaTest : public TcTest {
 protected:
  void SetUp() override {
    TcTest::SetUp();
    if (tc_backend_init("cuda") != TC_OK) GTEST_SKIP() << "no usable CUDA GPU: " << last_error();
  }
};

// The status a core call throws (TC_OK when it does not throw).
inline int32_t code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tc::Error& e) {
    return e.code();
  }
  return TC_OK;
}

}  // namespace tc_test
