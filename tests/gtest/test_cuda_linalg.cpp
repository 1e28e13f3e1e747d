// matmul and linear on CUDA (cuBLAS) against the CPU, for every shape the CPU
// matmul accepts and float32/float64/float16/bfloat16, forward and backward;
// the matmul-precision setting through the ABI. The CUDA tests skip with the
// reason without a usable GPU; the precision and flag tests run everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "core/rng.h"
#include "core/tensor.h"
#include "gradcheck.h"
#include "ops/ops.h"
#include "tc.h"

using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

namespace {

const int32_t kCuda0 = TC_DEVICE(TC_DEVICE_CUDA, 0);

using tc_test::last_error;

class CudaLinalg : public tc_test::CudaTest {
 protected:
  void TearDown() override {
    tc_set_matmul_precision(TC_MATMUL_PRECISION_HIGHEST);
    tc_test::TcTest::TearDown();
  }
};

// Uniform [-1, 1) values of dtype on the CPU (float16/bfloat16 rounded from
// float64 samples, so the float64 reference sees exactly the same inputs).
Tensor input(const tc::Dims& shape, DType dt) {
  Tensor t = tc::empty(shape, DType::f64);
  tc::fill_uniform(t, -1.0, 1.0);
  return tc::cast(t, dt);
}

std::vector<double> host_values(const Tensor& t) { return tc_test::values(tc::to_device(t, tc::kCPU)); }

// Per-dtype tolerance on |got - want| <= tol * (1 + |want|), for products of
// [-1, 1) values with k <= 64 (output rounding dominates for 16-bit floats).
double tolerance(DType dt) {
  switch (dt) {
    case DType::f64:
      return 1e-12;
    case DType::f32:
      return 2e-5;
    case DType::f16:
      return 2e-3;
    default:
      return 1.6e-2;  // bfloat16: 8 significant bits
  }
}

void expect_close(const Tensor& got, const Tensor& want, DType dt, const std::string& what) {
  ASSERT_EQ(got->shape, want->shape) << what;
  EXPECT_EQ(got->dtype, dt) << what;
  const std::vector<double> g = host_values(got), w = host_values(want);
  const double tol = tolerance(dt);
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_LE(std::fabs(g[i] - w[i]), tol * (1 + std::fabs(w[i]))) << what << " element " << i;
}

// The float64 CPU reference of an op over CPU inputs of dtype dt.
Tensor f64(const Tensor& t) { return tc::cast(t, DType::f64); }

struct Shapes {
  tc::Dims a, b;
};

const Shapes kMatmulShapes[] = {
    {{5}, {5}},                    // dot
    {{3, 5}, {5}},                 // matrix x vector
    {{5}, {5, 4}},                 // vector x matrix
    {{3, 5}, {5, 4}},              // matrix product
    {{1, 1}, {1, 1}},              // 1 x 1
    {{64, 33}, {33, 17}},          // odd sizes
    {{2, 3, 5}, {5, 4}},           // batched x matrix (one tall GEMM)
    {{3, 5}, {2, 5, 4}},           // matrix x batched
    {{4, 3, 5}, {4, 5, 2}},        // batched x batched
    {{2, 1, 3, 5}, {6, 5, 4}},     // broadcast batch dims on both sides
    {{3, 1, 2, 5}, {1, 4, 5, 3}},  // broadcast, interleaved
    {{2, 3, 5}, {5}},              // batched x vector
    {{5}, {2, 5, 3}},              // vector x batched
    {{2, 0}, {0, 3}},              // k = 0: zeros
    {{0, 3, 5}, {5, 4}},           // empty batch
    {{3, 0}, {0}},                 // empty dot rows
};

}  // namespace

// ---- everywhere: the precision setting and the flag ----

TEST(MatmulPrecision, SetGetAndMisuse) {
  int32_t v = -1;
  EXPECT_EQ(tc_get_matmul_precision(&v), TC_ERR_NOT_INITIALIZED);
  EXPECT_EQ(v, -1);
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  ASSERT_EQ(tc_get_matmul_precision(&v), TC_OK);
  EXPECT_EQ(v, TC_MATMUL_PRECISION_HIGHEST);
  for (int32_t p : {TC_MATMUL_PRECISION_HIGH, TC_MATMUL_PRECISION_MEDIUM, TC_MATMUL_PRECISION_HIGHEST}) {
    ASSERT_EQ(tc_set_matmul_precision(p), TC_OK);
    ASSERT_EQ(tc_get_matmul_precision(&v), TC_OK);
    EXPECT_EQ(v, p);
  }
  for (int32_t bad : {-1, 3, 1 << 30}) {
    EXPECT_EQ(tc_set_matmul_precision(bad), TC_ERR_INVALID_ARGUMENT);
    EXPECT_NE(last_error().find("tc_set_matmul_precision"), std::string::npos) << last_error();
  }
  ASSERT_EQ(tc_get_matmul_precision(&v), TC_OK);
  EXPECT_EQ(v, TC_MATMUL_PRECISION_HIGHEST);  // unchanged by the bad calls
  EXPECT_EQ(tc_get_matmul_precision(nullptr), TC_ERR_INVALID_ARGUMENT);
  // CPU products ignore the setting: the same bits either way.
  Tensor a = input({17, 19}, DType::f32), b = input({19, 13}, DType::f32);
  Tensor x = ops::matmul(a, b);
  ASSERT_EQ(tc_set_matmul_precision(TC_MATMUL_PRECISION_HIGH), TC_OK);
  Tensor y = ops::matmul(a, b);
  ASSERT_EQ(tc_set_matmul_precision(TC_MATMUL_PRECISION_HIGHEST), TC_OK);
  EXPECT_EQ(tc_test::values(x), tc_test::values(y));
  a.reset(), b.reset(), x.reset(), y.reset();
  ASSERT_EQ(tc_shutdown(), TC_OK);
}

TEST(MatmulPrecision, HasCublasFollowsHasCuda) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  int64_t cuda = -1, cublas = -1;
  ASSERT_EQ(tc_get_flag("has_cuda", &cuda), TC_OK);
  ASSERT_EQ(tc_get_flag("has_cublas", &cublas), TC_OK);
  EXPECT_EQ(cublas, cuda);
  ASSERT_EQ(tc_shutdown(), TC_OK);
}

// ---- CUDA ----

TEST_F(CudaLinalg, MatmulEveryShapeAndDtypeMatchesTheCpu) {
  for (DType dt : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    for (const Shapes& s : kMatmulShapes) {
      Tensor a = input(s.a, dt), b = input(s.b, dt);
      Tensor want = ops::matmul(f64(a), f64(b));
      Tensor got = ops::matmul(tc::to_device(a, kCuda0), tc::to_device(b, kCuda0));
      EXPECT_EQ(got->device, kCuda0);
      std::ostringstream what;
      what << tc::dtype_name(dt) << " " << s.a << " x " << s.b;
      expect_close(got, tc::cast(want, dt) /* same rounding of the reference */, dt, what.str());
    }
  }
}

TEST_F(CudaLinalg, MatmulStridedOperandsNeedNoCopyAndMatch) {
  for (DType dt : {DType::f32, DType::bf16}) {
    // Transposed and sliced operands.
    Tensor a = input({6, 4}, dt), b = input({5, 6}, dt);
    Tensor at = ops::transpose(a, 0, 1);     // [4, 6], column-major
    Tensor bt = ops::transpose(b, 0, 1);     // [6, 5]
    Tensor bs = ops::slice(bt, 1, 0, 5, 2);  // [6, 3], strided columns
    Tensor want = ops::matmul(f64(at), f64(bs));
    Tensor ga = ops::transpose(tc::to_device(a, kCuda0), 0, 1);
    Tensor gb = ops::slice(ops::transpose(tc::to_device(b, kCuda0), 0, 1), 1, 0, 5, 2);
    expect_close(ops::matmul(ga, gb), tc::cast(want, dt), dt, "strided");
  }
}

TEST_F(CudaLinalg, LinearWithAndWithoutBiasMatchesTheCpu) {
  for (DType dt : {DType::f32, DType::f64, DType::f16, DType::bf16}) {
    for (const tc::Dims& xs : {tc::Dims{5, 7}, tc::Dims{2, 3, 7}, tc::Dims{7}, tc::Dims{0, 7}}) {
      Tensor x = input(xs, dt), w = input({4, 7}, dt), bias = input({4}, dt);
      for (bool with_bias : {false, true}) {
        Tensor want = ops::linear(f64(x), f64(w), with_bias ? f64(bias) : Tensor());
        Tensor got = ops::linear(tc::to_device(x, kCuda0), tc::to_device(w, kCuda0),
                                 with_bias ? tc::to_device(bias, kCuda0) : Tensor());
        std::ostringstream what;
        what << tc::dtype_name(dt) << " linear " << xs << (with_bias ? " + bias" : "");
        expect_close(got, tc::cast(want, dt), dt, what.str());
      }
    }
  }
  // in_features = 0: the bias alone, or zeros.
  Tensor x = tc::zeros({3, 0}, DType::f32, kCuda0), w = tc::zeros({2, 0}, DType::f32, kCuda0);
  Tensor b = tc::to_device(tc_test::tensor({1.5, -2}, {2}, DType::f32), kCuda0);
  EXPECT_EQ(host_values(ops::linear(x, w, b)), (std::vector<double>{1.5, -2, 1.5, -2, 1.5, -2}));
  EXPECT_EQ(host_values(ops::linear(x, w, Tensor())), std::vector<double>(6, 0.0));
}

TEST_F(CudaLinalg, Tf32OnlyWhenThePrecisionAllowsIt) {
  // 1 + 2^-14 is exact in float32 but not in TF32 (10 mantissa bits): a plain
  // float32 product keeps it, whatever cuBLAS picks.
  const int64_t n = 256;
  Tensor a = tc::full({n, n}, 1.0 + std::ldexp(1.0, -14), DType::f32, kCuda0);
  Tensor b = tc::full({n, n}, 1.0, DType::f32, kCuda0);
  const double exact = double(n) * (1.0 + std::ldexp(1.0, -14));
  ASSERT_EQ(tc_set_matmul_precision(TC_MATMUL_PRECISION_HIGHEST), TC_OK);
  for (double v : host_values(ops::matmul(a, b))) ASSERT_EQ(v, exact);
  ASSERT_EQ(tc_set_matmul_precision(TC_MATMUL_PRECISION_HIGH), TC_OK);
  const std::vector<double> high = host_values(ops::matmul(a, b));
  for (double v : high) ASSERT_NEAR(v, exact, exact * 1e-3);  // TF32 error bound
  if (high[0] != exact) std::printf("  (TF32 observed: %.9g instead of %.9g)\n", high[0], exact);
}

TEST_F(CudaLinalg, MatmulBackwardMatchesTheCpu) {
  const Shapes cases[] = {
      {{3, 5}, {5, 4}},
      {{5}, {5}},
      {{3, 5}, {5}},
      {{5}, {5, 4}},
      {{2, 3, 5}, {5, 4}},
      {{3, 5}, {2, 5, 4}},
      {{2, 1, 3, 5}, {6, 5, 4}},
      {{3, 1, 2, 5}, {1, 4, 5, 3}},
  };
  for (DType dt : {DType::f32, DType::f64}) {
    for (const Shapes& s : cases) {
      Tensor a = input(s.a, dt), b = input(s.b, dt);
      Tensor ca = f64(a), cb = f64(b);
      ca->requires_grad = cb->requires_grad = true;
      Tensor cout = ops::matmul(ca, cb);
      Tensor g = input(cout->shape, dt);
      tc::autograd::backward(cout, f64(g), false);
      Tensor ga = tc::to_device(a, kCuda0), gb = tc::to_device(b, kCuda0);
      ga->requires_grad = gb->requires_grad = true;
      Tensor gout = ops::matmul(ga, gb);
      tc::autograd::backward(gout, tc::to_device(g, kCuda0), false);
      std::ostringstream what;
      what << tc::dtype_name(dt) << " " << s.a << " x " << s.b;
      ASSERT_TRUE(ga->grad() && gb->grad()) << what.str();
      EXPECT_EQ(ga->grad()->device, kCuda0);
      expect_close(ga->grad(), tc::cast(ca->grad(), dt), dt, what.str() + ": grad a");
      expect_close(gb->grad(), tc::cast(cb->grad(), dt), dt, what.str() + ": grad b");
    }
  }
}

TEST_F(CudaLinalg, LinearBackwardMatchesTheCpu) {
  for (DType dt : {DType::f32, DType::f64, DType::bf16}) {
    Tensor x = input({2, 6, 7}, dt), w = input({4, 7}, dt), bias = input({4}, dt);
    Tensor cx = f64(x), cw = f64(w), cb = f64(bias);
    for (const Tensor& t : {cx, cw, cb}) t->requires_grad = true;
    Tensor cout = ops::linear(cx, cw, cb);
    Tensor g = input(cout->shape, dt);
    tc::autograd::backward(cout, f64(g), false);
    Tensor gx = tc::to_device(x, kCuda0), gw = tc::to_device(w, kCuda0), gbias = tc::to_device(bias, kCuda0);
    for (const Tensor& t : {gx, gw, gbias}) t->requires_grad = true;
    Tensor gout = ops::linear(gx, gw, gbias);
    tc::autograd::backward(gout, tc::to_device(g, kCuda0), false);
    // bfloat16 sums of 12 rounded terms: a looser bound than one product.
    const DType tol_dt = dt;
    expect_close(gx->grad(), tc::cast(cx->grad(), dt), tol_dt, "linear grad x");
    expect_close(gw->grad(), tc::cast(cw->grad(), dt), tol_dt, "linear grad weight");
    expect_close(gbias->grad(), tc::cast(cb->grad(), dt), tol_dt, "linear grad bias");
  }
}

TEST_F(CudaLinalg, MixedDevicesAndIntegersAreErrors) {
  Tensor a = tc::zeros({2, 3}, DType::f32, kCuda0), b = tc::zeros({3, 2}, DType::f32);
  try {
    ops::matmul(a, b);
    ADD_FAILURE() << "cuda x cpu accepted";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_DEVICE) << e.what();
  }
  Tensor i = tc::zeros({2, 3}, DType::i64, kCuda0), j = tc::zeros({3, 2}, DType::i64, kCuda0);
  try {
    ops::matmul(i, j);
    ADD_FAILURE() << "int64 matmul accepted";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_DTYPE) << e.what();
  }
  Tensor h = tc::zeros({3, 2}, DType::f16, kCuda0);
  try {
    ops::matmul(a, h);
    ADD_FAILURE() << "float32 x float16 accepted";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_DTYPE) << e.what();
  }
}
