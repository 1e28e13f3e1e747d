// Elementwise ops: values, broadcasting, type promotion, dtype/shape errors,
// gradients (broadcast and non-contiguous inputs included).
#include <cmath>
#include <limits>

#include "gradcheck.h"
#include "math/elementwise_math.h"
#include "ops/frexp.h"
#include "row_domains.h"
#include "tc_binary_ops.h"
#include "tc_scalar_ops.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

class Elementwise : public TcTest {};

TEST_F(Elementwise, AddBroadcastValues) {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, DType::f32);
  Tensor b = tensor({10, 20, 30}, {3}, DType::f32);
  Tensor c = ops::add(a, b);
  EXPECT_EQ(c->shape, (tc::Dims{2, 3}));
  EXPECT_EQ(c->dtype, DType::f32);
  EXPECT_EQ(values(c), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  Tensor col = tensor({1, 2}, {2, 1});
  EXPECT_EQ(values(ops::mul(col, tensor({1, 2, 3}, {3}))), (std::vector<double>{1, 2, 3, 2, 4, 6}));
}

TEST_F(Elementwise, AllBinaryOpsValues) {
  Tensor a = tensor({1, -2, 3}, {3}), b = tensor({2, 2, -3}, {3});
  EXPECT_EQ(values(ops::sub(a, b)), (std::vector<double>{-1, -4, 6}));
  EXPECT_EQ(values(ops::div(a, b)), (std::vector<double>{0.5, -1, -1}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::pow, a, tensor({2, 3, 0}, {3}))),
            (std::vector<double>{1, -8, 1}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::maximum, a, b)), (std::vector<double>{2, 2, 3}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::minimum, a, b)), (std::vector<double>{1, -2, -3}));
  Tensor eq = ops::binary(ops::BinaryOp::eq, a, tensor({1, 2, 3}, {3}));
  EXPECT_EQ(eq->dtype, DType::b8);
  EXPECT_EQ(values(eq), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::ne, a, b)), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::lt, a, b)), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::le, a, b)), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::gt, a, b)), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::ge, a, b)), (std::vector<double>{0, 0, 1}));
}

TEST_F(Elementwise, IntegerArithmeticAndPow) {
  Tensor a = tensor({7, -3, 2}, {3}, DType::i64), b = tensor({2, 2, 10}, {3}, DType::i64);
  Tensor s = ops::add(a, b);
  EXPECT_EQ(s->dtype, DType::i64);
  EXPECT_EQ(values(s), (std::vector<double>{9, -1, 12}));
  EXPECT_EQ(values(ops::mul(a, b)), (std::vector<double>{14, -6, 20}));
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::pow, a, b)), (std::vector<double>{49, 9, 1024}));
  Tensor d = ops::div(a, b);  // true division gives the default float dtype
  EXPECT_EQ(d->dtype, DType::f32);
  EXPECT_EQ(values(d), (std::vector<double>{3.5, -1.5, 0.2f}));
}

TEST_F(Elementwise, TypePromotion) {
  Tensor i32 = tensor({1, 2}, {2}, DType::i32), f32 = tensor({1, 2}, {2}, DType::f32);
  Tensor f64 = tensor({1, 2}, {2}, DType::f64), u8 = tensor({1, 2}, {2}, DType::u8);
  Tensor i8 = tensor({1, 2}, {2}, DType::i8);
  EXPECT_EQ(ops::add(i32, f32)->dtype, DType::f32);
  EXPECT_EQ(ops::add(f32, f64)->dtype, DType::f64);
  EXPECT_EQ(ops::add(u8, i8)->dtype, DType::i16);
  // A 0-dim tensor only decides when of a higher category.
  EXPECT_EQ(ops::add(f32, tensor({1}, {}, DType::f64))->dtype, DType::f32);
  EXPECT_EQ(ops::add(i32, tensor({1}, {}, DType::f64))->dtype, DType::f64);
  EXPECT_EQ(ops::add(i8, tensor({1}, {}, DType::i64))->dtype, DType::i8);
  EXPECT_EQ(ops::result_type({tensor({1}, {}, DType::i64), tensor({1}, {}, DType::i32)}), DType::i64);
  // A python-like float scalar does not widen a float tensor, and makes ints default-float.
  EXPECT_EQ(ops::add_scalar(f32, 2.5)->dtype, DType::f32);
  EXPECT_EQ(ops::add_scalar(f64, 2.5)->dtype, DType::f64);
  Tensor r = ops::add_scalar(i32, 2.5);
  EXPECT_EQ(r->dtype, DType::f32);
  EXPECT_EQ(values(r), (std::vector<double>{3.5, 4.5}));
  // bool promotes under arithmetic with a number type.
  Tensor mask = ops::binary(ops::BinaryOp::gt, f32, tensor({1.5}, {}, DType::f32));
  EXPECT_EQ(values(ops::mul(mask, f32)), (std::vector<double>{0, 2}));
}

TEST_F(Elementwise, Errors) {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3}), b = tensor({1, 2, 3, 4}, {4});
  try {
    ops::add(a, b);
    FAIL() << "expected a shape error";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_SHAPE);
    EXPECT_STREQ(e.what(), "add: a has shape [2, 3] and b has shape [4]: cannot broadcast (dim 1: 3 vs 4)");
  }
  Tensor t = tensor({1, 0}, {2}, DType::b8);
  for (auto op : {ops::BinaryOp::add, ops::BinaryOp::sub, ops::BinaryOp::mul}) {
    try {
      ops::binary(op, t, t);
      FAIL() << "bool arithmetic must fail";
    } catch (const tc::Error& e) {
      EXPECT_EQ(e.code(), TC_ERR_DTYPE);
      EXPECT_NE(std::string(e.what()).find("bool"), std::string::npos);
    }
  }
  EXPECT_EQ(values(ops::binary(ops::BinaryOp::eq, t, t)),
            (std::vector<double>{1, 1}));  // comparisons are fine
  Tensor ints = tensor({1, 2}, {2}, DType::i32);
  for (int o = 0; o < int(ops::UnaryOp::count_); ++o) {  // every integer-only unary op rejects floats
    const auto op = ops::UnaryOp(o);
    if (tc::ew::unary_info(op).floats) continue;
    EXPECT_EQ(code_of([&] { ops::unary(op, a); }), TC_ERR_DTYPE) << o;
  }
  Tensor half = tc::cast(tensor({1}, {1}), DType::f16);
  try {
    ops::add(half, half);
    FAIL();
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_DTYPE);
  }
  try {
    ops::where(ints, a, a);
    FAIL();
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_DTYPE);
  }
}

TEST_F(Elementwise, UnaryValues) {
  Tensor x = tensor({-1, 0, 2}, {3});
  EXPECT_EQ(values(ops::unary(ops::UnaryOp::neg, x)), (std::vector<double>{1, 0, -2}));
  EXPECT_EQ(values(ops::unary(ops::UnaryOp::abs, x)), (std::vector<double>{1, 0, 2}));
  EXPECT_EQ(values(ops::unary(ops::UnaryOp::relu, x)), (std::vector<double>{0, 0, 2}));
  auto v = values(ops::unary(ops::UnaryOp::sigmoid, x));
  EXPECT_NEAR(v[0], 1 / (1 + std::exp(1.0)), 1e-12);
  EXPECT_NEAR(v[1], 0.5, 1e-12);
  v = values(ops::unary(ops::UnaryOp::gelu, x));
  EXPECT_NEAR(v[0], -0.15865525393145707, 1e-12);  // torch.nn.functional.gelu(-1.)
  EXPECT_NEAR(v[2], 1.9544997361036416, 1e-12);
  v = values(ops::unary(ops::UnaryOp::softplus, tensor({-1, 0, 2, 30}, {4})));
  EXPECT_NEAR(v[0], 0.31326168751822286, 1e-12);  // torch.nn.functional.softplus(-1.)
  EXPECT_NEAR(v[1], 0.69314718055994529, 1e-12);
  EXPECT_NEAR(v[2], 2.1269280110429727, 1e-12);
  EXPECT_EQ(v[3], 30.0);  // beyond the threshold (20): x itself
  v = values(ops::unary(ops::UnaryOp::exp, x));
  EXPECT_NEAR(v[2], std::exp(2.0), 1e-12);
  v = values(ops::clamp(x, -0.5, NAN));
  EXPECT_EQ(v, (std::vector<double>{-0.5, 0, 2}));
  EXPECT_EQ(values(ops::clamp(x, NAN, 1)), (std::vector<double>{-1, 0, 1}));
  EXPECT_EQ(values(ops::clamp(tensor({-3, 5}, {2}, DType::i64), 0, 4)), (std::vector<double>{0, 4}));
  EXPECT_EQ(values(ops::unary(ops::UnaryOp::neg, tensor({3}, {1}, DType::i32))), (std::vector<double>{-3}));
}

TEST_F(Elementwise, UnaryMathAndActivationValues) {
  using U = ops::UnaryOp;
  auto at = [](U op, double x) { return values(ops::unary(op, tensor({x}, {})))[0]; };
  // Expected values from PyTorch 1.13 (float64).
  EXPECT_NEAR(at(U::erfinv, 0.5), 0.4769362762044699, 1e-15);
  EXPECT_NEAR(at(U::erfinv, -0.999), -2.3267537655135153, 1e-12);
  EXPECT_NEAR(at(U::acosh, 2.0), 1.3169578969248166, 1e-15);
  EXPECT_NEAR(at(U::logsigmoid, -800.0), -800.0, 1e-12);  // stable far out
  EXPECT_NEAR(at(U::selu, -1.0), -1.1113307378125625, 1e-15);
  EXPECT_NEAR(at(U::mish, 1.0), 0.8650983882673103, 1e-15);
  EXPECT_NEAR(at(U::gelu_tanh, 1.0), 0.8411919906082768, 1e-15);
  EXPECT_NEAR(at(U::hardswish, 1.0), 2.0 / 3.0, 1e-15);
  EXPECT_EQ(values(ops::unary(U::round, tensor({0.5, 1.5, 2.5, -0.5, -1.5}, {5}))),
            (std::vector<double>{0, 2, 2, -0, -2}));  // halves to even
  EXPECT_EQ(values(ops::unary(U::sign, tensor({-3, 0, NAN, 2}, {4}))), (std::vector<double>{-1, 0, 0, 1}));
  // Parameters: leaky_relu's slope, hardtanh's bounds; the defaults without them.
  EXPECT_EQ(values(ops::unary(U::leaky_relu, tensor({-2, 3}, {2}), 0.25, 0)), (std::vector<double>{-0.5, 3}));
  EXPECT_EQ(values(ops::unary(U::leaky_relu, tensor({-2, 3}, {2}))), (std::vector<double>{-0.02, 3}));
  EXPECT_EQ(values(ops::unary(U::hardtanh, tensor({-2, 0.5, 3}, {3}), -1, 2)),
            (std::vector<double>{-1, 0.5, 2}));
  // Bool results, integer and bool inputs.
  Tensor nan = ops::unary(U::isnan, tensor({NAN, 1, INFINITY}, {3}));
  EXPECT_EQ(nan->dtype, DType::b8);
  EXPECT_EQ(values(nan), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(values(ops::unary(U::isfinite, tensor({NAN, 1, -INFINITY}, {3}))),
            (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values(ops::unary(U::isinf, tensor({NAN, 1, -INFINITY}, {3}, DType::f32))),
            (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(values(ops::unary(U::logical_not, tensor({0, 2}, {2}, DType::i32))), (std::vector<double>{1, 0}));
  Tensor bn = ops::unary(U::bitwise_not, tensor({5, -1}, {2}, DType::i64));
  EXPECT_EQ(bn->dtype, DType::i64);
  EXPECT_EQ(values(bn), (std::vector<double>{-6, 0}));
  EXPECT_EQ(values(ops::unary(U::bitwise_not, tensor({1, 0}, {2}, DType::b8))), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(ops::unary(U::bitwise_not, tensor({5}, {1}, DType::u8))), (std::vector<double>{250}));
  Tensor fl = ops::unary(U::floor, tensor({-3, 4}, {2}, DType::i32));  // integers stay integers
  EXPECT_EQ(fl->dtype, DType::i32);
  EXPECT_EQ(values(ops::unary(U::square, tensor({-3, 4}, {2}, DType::i64))), (std::vector<double>{9, 16}));
  // Integer and bool inputs to floating ops promote to the default float dtype.
  Tensor e = ops::unary(U::exp, tensor({0, 1}, {2}, DType::i64));
  EXPECT_EQ(e->dtype, DType::f32);
  EXPECT_NEAR(values(e)[1], std::exp(1.0), 1e-6);
  EXPECT_EQ(ops::unary(U::sin, tensor({1, 0}, {2}, DType::b8))->dtype, DType::f32);
  EXPECT_EQ(values(ops::unary(U::rsqrt, tensor({4}, {1}, DType::u8))), (std::vector<double>{0.5}));
}

TEST_F(Elementwise, ScalarOps) {
  Tensor x = tensor({1, 2, 4}, {3});
  EXPECT_EQ(values(ops::binary_scalar(ops::ScalarOp::sub, x, 1)), (std::vector<double>{0, 1, 3}));
  EXPECT_EQ(values(ops::binary_scalar(ops::ScalarOp::div, x, 2)), (std::vector<double>{0.5, 1, 2}));
  EXPECT_EQ(values(ops::binary_scalar(ops::ScalarOp::pow, x, 3)), (std::vector<double>{1, 8, 64}));
  EXPECT_EQ(values(ops::binary_scalar(ops::ScalarOp::rsub, x, 1)), (std::vector<double>{0, -1, -3}));
  EXPECT_EQ(values(ops::binary_scalar(ops::ScalarOp::rdiv, x, 4)), (std::vector<double>{4, 2, 1}));
  EXPECT_EQ(values(ops::mul_scalar(x, -1)), (std::vector<double>{-1, -2, -4}));
}

TEST_F(Elementwise, WhereValuesAndPromotion) {
  Tensor c = tensor({1, 0, 1}, {3}, DType::b8);
  Tensor r = ops::where(c, tensor({1, 2, 3}, {3}, DType::i64), tensor({-1}, {1}, DType::f32));
  EXPECT_EQ(r->dtype, DType::f32);
  EXPECT_EQ(values(r), (std::vector<double>{1, -1, 3}));
}

TEST_F(Elementwise, LargeParallelMatchesSerial) {
  const int64_t n = 1 << 20;
  Tensor a = randn({n}, DType::f32), b = randn({n}, DType::f32);
  Tensor c = ops::add(a, b);
  const float* pa = a->data_as<float>();
  const float* pb = b->data_as<float>();
  const float* pc = c->data_as<float>();
  for (int64_t i = 0; i < n; i += 997) ASSERT_EQ(pc[i], pa[i] + pb[i]);
  // Broadcast over a non-contiguous operand.
  Tensor m = randn({512, 1024}), row = randn({512});
  Tensor mt = tc::make_view(m, {1024, 512}, {1, 1024}, 0);
  Tensor r = ops::mul(mt, row);
  for (int64_t i = 0; i < 1024; i += 37) {
    for (int64_t j = 0; j < 512; j += 41) {
      ASSERT_EQ(tc::read_element(r, i * 512 + j),
                m->data_as<double>()[j * 1024 + i] * row->data_as<double>()[j]);
    }
  }
}

TEST_F(Elementwise, GradBinary) {
  auto check = [](ops::BinaryOp op, const Inputs& xs) {
    return gradcheck([op](const Inputs& x) { return ops::binary(op, x[0], x[1]); }, xs);
  };
  for (int o = 0; o < ops::kArithmeticBinaryOps; ++o) {  // the whole family (binary_ops.def)
    const auto op = ops::BinaryOp(o);
    if (op == ops::BinaryOp::pow) continue;            // a positive base only: below
    if (!tc::ew::binary_differentiable(op)) continue;  // the bitwise ops and shifts
    // A gradient PyTorch does not implement (igamma's a, nextafter): backward
    // raises; SpecialFunctionGradients checks those rows.
    if (!tc::ew::binary_grad_implemented(op, false) || !tc::ew::binary_grad_implemented(op, true)) continue;
    // Jumps where a / b crosses an integer (any b near 0 has them within eps):
    // test_binary_ext.cpp gradchecks these away from them.
    if (op == ops::BinaryOp::fmod || op == ops::BinaryOp::remainder || op == ops::BinaryOp::floor_divide ||
        op == ops::BinaryOp::div_trunc)
      continue;
    EXPECT_TRUE(check(op, {randn({3, 4}), uniform({4}, 0.5, 2)})) << int(op);        // broadcast b
    EXPECT_TRUE(check(op, {uniform({2, 1, 3}, 0.5, 2), randn({4, 1})})) << int(op);  // both broadcast
    EXPECT_TRUE(check(op, {noncontiguous(randn({3, 4})), uniform({3, 4}, 1, 2)})) << int(op);
  }
  EXPECT_TRUE(check(ops::BinaryOp::pow, {uniform({3, 4}, 0.5, 2), randn({4})}));
  // Mixed dtypes: the float32 input's gradient comes back as float32.
  Tensor a = randn({3}), b32 = randn({3}, DType::f32);
  a->requires_grad = true;
  b32->requires_grad = true;
  Tensor y = ops::sum(ops::mul(a, b32), {}, false);
  tc::autograd::backward(y, nullptr, false);
  ASSERT_TRUE(b32->grad());
  EXPECT_EQ(b32->grad()->dtype, DType::f32);
  EXPECT_NEAR(tc::read_element(b32->grad(), 1), tc::read_element(a, 1), 1e-6);
}

TEST_F(Elementwise, GradUnaryScalarClampWhere) {
  for (int o = 0; o < int(ops::UnaryOp::count_); ++o) {  // the whole family (unary_ops.def)
    const auto op = ops::UnaryOp(o);
    if (!tc::ew::unary_differentiable(op)) continue;
    EXPECT_TRUE(gradcheck([op](const Inputs& x) { return ops::unary(op, x[0]); },
                          {noncontiguous(unary_sample(op, {3, 5}))}))
        << int(op);
    // Broadcast-free 0-d and empty inputs keep their shapes through backward.
    EXPECT_TRUE(gradcheck([op](const Inputs& x) { return ops::unary(op, x[0]); }, {unary_sample(op, {})}))
        << int(op);
    EXPECT_TRUE(gradcheck([op](const Inputs& x) { return ops::unary(op, x[0]); }, {unary_sample(op, {0, 3})}))
        << int(op);
  }
  // softplus beyond its threshold (x > 20: x itself, gradient 1) and far below it.
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::unary(ops::UnaryOp::softplus, x[0]); },
                        {uniform({5}, 20.5, 30)}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::unary(ops::UnaryOp::softplus, x[0]); },
                        {uniform({5}, -30, -10)}));
  for (int o = 0; o < int(ops::ScalarOp::count_); ++o) {
    const auto op = ops::ScalarOp(o);
    EXPECT_TRUE(gradcheck([op](const Inputs& x) { return ops::binary_scalar(op, x[0], 1.7); },
                          {uniform({2, 3}, 0.5, 2)}))
        << int(op);
  }
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::clamp(x[0], -0.5, 0.5); }, {randn({10})}));
  Tensor c = ops::binary(ops::BinaryOp::gt, randn({3, 4}), tensor({0}, {}));
  EXPECT_TRUE(
      gradcheck([c](const Inputs& x) { return ops::where(c, x[0], x[1]); }, {randn({4}), randn({3, 1})}));
}

TEST_F(Elementwise, GradFnNames) {
  Tensor a = randn({2}), b = randn({2});
  a->requires_grad = true;
  EXPECT_STREQ(ops::mul(a, b)->grad_fn->name(), "MulBackward");
  EXPECT_STREQ(ops::add(a, b)->grad_fn->name(), "AddBackward");
  EXPECT_STREQ(ops::unary(ops::UnaryOp::relu, a)->grad_fn->name(), "ReluBackward");
  EXPECT_FALSE(ops::binary(ops::BinaryOp::lt, a, b)->requires_grad);
  tc::NoGradGuard ng;
  EXPECT_FALSE(ops::mul(a, b)->requires_grad);
}

TEST_F(Elementwise, ThroughTheAbi) {
  int64_t shape[] = {2};
  tc_tensor a = nullptr, b = nullptr, c = nullptr;
  ASSERT_TRUE(ok(tc_full(shape, 1, 2.0, TC_FLOAT32, TC_CPU, &a)));
  ASSERT_TRUE(ok(tc_full(shape, 1, 3.0, TC_FLOAT32, TC_CPU, &b)));
  ASSERT_TRUE(ok(tc_mul(a, b, &c)));
  double v = 0;
  float buf[2];
  ASSERT_TRUE(ok(tc_tensor_copy_to(c, buf, sizeof buf)));
  EXPECT_EQ(buf[1], 6.0f);
  tc_tensor bad = reinterpret_cast<tc_tensor>(0x1234);
  tc_tensor untouched = reinterpret_cast<tc_tensor>(0x77);
  EXPECT_EQ(tc_add(a, bad, &untouched), TC_ERR_INVALID_HANDLE);
  // No handle is made on failure (the out-param is left alone or NULLed, as tc.h says).
  EXPECT_TRUE(untouched == reinterpret_cast<tc_tensor>(0x77) || untouched == nullptr);
  EXPECT_EQ(tc_add(a, b, nullptr), TC_ERR_INVALID_ARGUMENT);
  int64_t s3[] = {3};
  tc_tensor d = nullptr;
  ASSERT_TRUE(ok(tc_zeros(s3, 1, TC_FLOAT32, TC_CPU, &d)));
  EXPECT_EQ(tc_sub(a, d, &untouched), TC_ERR_SHAPE);
  EXPECT_NE(last_error().find("cannot broadcast"), std::string::npos);
  tc_tensor s = nullptr;
  ASSERT_TRUE(ok(tc_add_scalar(c, 1.0, &s)));
  EXPECT_NE(tc_tensor_item(s, &v), TC_OK);  // two elements: no item
  tc_tensor one = nullptr;
  ASSERT_TRUE(ok(tc_max(s, &one)));
  ASSERT_TRUE(ok(tc_tensor_item(one, &v)));
  EXPECT_EQ(v, 7.0);
  tc_tensor_free(one);
  for (tc_tensor t : {a, b, c, d, s}) tc_tensor_free(t);
}

// The special functions (torch.special's rows). Expected values from PyTorch
// 1.13 (float64), poles and infinities included.
TEST_F(Elementwise, SpecialFunctionValues) {
  using U = ops::UnaryOp;
  auto run = [](U op, std::vector<double> xs, double p = NAN) {
    const Tensor x = tensor(xs, {int64_t(xs.size())});
    return values(std::isnan(p) ? ops::unary(op, x) : ops::unary(op, x, p, 0));
  };
  auto expect_near = [](const std::vector<double>& got, const std::vector<double>& want, double rtol) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i]) || std::isinf(want[i])) {
        EXPECT_TRUE(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i]) << i << ": " << got[i];
      } else {
        EXPECT_NEAR(got[i], want[i], rtol * std::abs(want[i]) + 1e-300) << i;
      }
    }
  };
  const double inf = INFINITY;
  expect_near(
      run(U::lgamma, {0.5, -2.5, 100.0, 1e-8, 0, -1, -inf, NAN}),
      {0.5723649429247001, -0.05624371649767405, 359.1342053695754, 18.42068073818021, inf, inf, inf, NAN},
      1e-15);
  expect_near(run(U::digamma, {1.0, -2.5, 0.25, 30.0, 0.0, -0.0, -1, inf, -inf}),
              {-0.5772156649015328, 1.1031566406452433, -4.2274535333762655, 3.384438132685525, -inf, inf,
               NAN, inf, NAN},
              1e-14);
  expect_near(run(U::polygamma, {0.5, -1.5, 7.0, 0.0}, 1),
              {4.934802202073678, 9.37924664484954, 0.1535451779624394, inf}, 1e-14);
  expect_near(run(U::polygamma, {0.5, -1.5, 7.0, 0.0, -1.0}, 3),
              {97.40909103400242, 194.59427621918758, 0.007198198563125444, inf, inf}, 1e-14);
  expect_near(run(U::polygamma, {1.0}, 0), {-0.5772156649015328}, 1e-15);  // n = 0: digamma
  expect_near(run(U::mvlgamma, {2.5, 4.0}, 3), {1.8809954616117743, 5.402975080909175}, 1e-14);
  expect_near(run(U::i0, {0.5, -3.0, 40.0, inf}),
              {1.0634833707413236, 4.880792585865024, 1.48947747934199e+16, NAN}, 1e-14);
  expect_near(run(U::i0e, {0.5, -3.0, 40.0, -inf}),
              {0.6450352704491501, 0.24300035416182536, 0.06327827987523532, 0}, 1e-14);
  expect_near(run(U::i1, {0.5, -3.0, 40.0, 0.0}),
              {0.25789430539089636, -3.9533702174026093, 1.4707396163259354e+16, 0}, 1e-14);
  expect_near(run(U::i1e, {0.5, -3.0, 40.0}),
              {0.15642080318487173, -0.19682671329730084, 0.06248222907444206}, 1e-14);
  expect_near(
      run(U::erfcx, {-2.0, 0.5, 15.0, 1e5, -30, inf, -inf}),
      {108.94090438997797, 0.6156903441929258, 0.03752960638850577, 5.6418958351954685e-06, inf, 0, inf},
      1e-14);
  expect_near(run(U::ndtr, {-1.0, 0.3, 3.0}), {0.15865525393145702, 0.6179114221889527, 0.9986501019683699},
              1e-15);
  expect_near(run(U::log_ndtr, {-40.0, -1.5, 0.5, 6.0, -inf}),
              {-804.6084420137539, -2.7059444008238898, -0.36894641528865635, -9.865876455243713e-10, -inf},
              1e-14);
  expect_near(run(U::entr, {0.5, 2.0, -1, 0, NAN, inf}),
              {0.34657359027997264, -1.3862943611198906, -inf, 0, NAN, -inf}, 1e-15);
  // Float32 (computed in double, rounded; lgamma is lgammaf).
  const Tensor xf = tensor({0.5, 3.0}, {2}, DType::f32);
  EXPECT_EQ(ops::unary(U::digamma, xf)->dtype, DType::f32);
  EXPECT_NEAR(values(ops::unary(U::digamma, xf))[0], -1.9635100260214235, 1e-6);
  EXPECT_NEAR(values(ops::unary(U::lgamma, xf))[1], std::log(2.0), 1e-6);
  // Integer inputs promote to the default float dtype.
  const Tensor ints = tensor({1, 2}, {2}, DType::i64);
  EXPECT_EQ(ops::unary(U::lgamma, ints)->dtype, DType::f32);
  EXPECT_EQ(ops::unary(U::polygamma, ints, 1, 0)->dtype, DType::f32);
  // polygamma's n and mvlgamma's p are checked, as in PyTorch.
  EXPECT_EQ(code_of([&] { ops::unary(U::polygamma, xf, -1, 0); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::unary(U::polygamma, xf, 1.5, 0); }), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(code_of([&] { ops::unary(U::mvlgamma, xf, 0, 0); }), TC_ERR_INVALID_ARGUMENT);
}

TEST_F(Elementwise, SpecialBinaryValues) {
  using B = ops::BinaryOp;
  const double inf = INFINITY;
  auto run = [](B op, std::vector<double> a, std::vector<double> b, DType d = DType::f64) {
    return ops::binary(op, tensor(a, {int64_t(a.size())}, d), tensor(b, {int64_t(b.size())}, d));
  };
  auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  const std::vector<double> p = values(run(B::igamma, {0.5, 3.0, 10.0}, {0.2, 2.0, 12.0}));
  const std::vector<double> q = values(run(B::igammac, {0.5, 3.0, 10.0}, {0.2, 2.0, 12.0}));
  const std::vector<double> p_want = {0.47291074313446185, 0.3233235838169364, 0.7576078383294875};
  const std::vector<double> q_want = {0.5270892568655381, 0.6766764161830636, 0.24239216167051245};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(p[i], p_want[i], 1e-14 * p_want[i]) << i;
    EXPECT_NEAR(q[i], q_want[i], 1e-14 * q_want[i]) << i;
  }
  // Special values (PyTorch's): a or x negative, a = 0, x = 0, infinities.
  const std::vector<double> a = {0, 0, -1, 1, inf, 1, inf}, x = {0, 1, 1, -1, 1, inf, inf};
  const std::vector<double> p_edge = {NAN, 1, NAN, NAN, 0, 1, NAN}, q_edge = {NAN, 0, NAN, NAN, 1, 0, NAN};
  const std::vector<double> pe = values(run(B::igamma, a, x)), qe = values(run(B::igammac, a, x));
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same(pe[i], p_edge[i])) << i << ": " << pe[i];
    EXPECT_TRUE(same(qe[i], q_edge[i])) << i << ": " << qe[i];
  }
  // float32 stays float32; integer operands are refused, as PyTorch.
  EXPECT_EQ(run(B::igamma, {1}, {1}, DType::f32)->dtype, DType::f32);
  EXPECT_EQ(code_of([&] { run(B::igamma, {1}, {1}, DType::i64); }), TC_ERR_DTYPE);
  EXPECT_EQ(code_of([&] { run(B::nextafter, {1}, {1}, DType::i32); }), TC_ERR_DTYPE);
  EXPECT_EQ(values(run(B::nextafter, {1.0, 0.0, 1.0}, {2.0, -1.0, 1.0})),
            (std::vector<double>{std::nextafter(1.0, 2.0), -std::numeric_limits<double>::denorm_min(), 1.0}));
  EXPECT_EQ(values(run(B::nextafter, {1.0}, {2.0}, DType::f32))[0], double(std::nextafterf(1.0f, 2.0f)));
  // gcd, lcm: integers only (PyTorch's values, INT64_MIN wrapping included).
  const Tensor g = run(B::gcd, {-4, 0, 6, 0}, {6, 0, -9, 5}, DType::i64);
  EXPECT_EQ(g->dtype, DType::i64);
  EXPECT_EQ(values(g), (std::vector<double>{2, 0, 3, 5}));
  EXPECT_EQ(values(run(B::lcm, {-4, 0, 6, 0}, {6, 0, -9, 5}, DType::i64)),
            (std::vector<double>{12, 0, 18, 0}));
  EXPECT_EQ(values(run(B::gcd, {-128, 12}, {0, 18}, DType::i8)), (std::vector<double>{-128, 6}));
  // Narrow types: PyTorch's abs(a / g * b) is taken in int, then truncated.
  EXPECT_EQ(values(run(B::lcm, {-2, 4}, {127, 6}, DType::i8)), (std::vector<double>{-2, 12}));
  EXPECT_EQ(values(run(B::lcm, {200}, {3}, DType::u8)), (std::vector<double>{88}));
  // gcd(INT32_MIN, -INT32_MAX) wraps to -1; lcm's INT32_MIN / -1 must not trap
  // (PyTorch dies of SIGFPE there): the quotient wraps.
  EXPECT_EQ(values(run(B::lcm, {-2147483648.0}, {-2147483647.0}, DType::i32)),
            (std::vector<double>{-2147483648.0}));
  EXPECT_EQ(values(run(B::gcd, {5, 200}, {10, 150}, DType::u8)), (std::vector<double>{5, 50}));
  const Tensor big = tensor({-9223372036854775807.0 - 1}, {1}, DType::i64);
  EXPECT_EQ(tc::read_element(ops::binary(B::gcd, big, tensor({0}, {1}, DType::i64)), 0),
            -9223372036854775807.0 - 1);
  EXPECT_EQ(code_of([&] { run(B::gcd, {1}, {1}, DType::f32); }), TC_ERR_DTYPE);
  EXPECT_EQ(code_of([&] { run(B::lcm, {1}, {1}, DType::b8); }), TC_ERR_DTYPE);
}

TEST_F(Elementwise, SpecialFunctionGradients) {
  using U = ops::UnaryOp;
  using B = ops::BinaryOp;
  auto unary_p = [](U op, double p) {
    return [op, p](const Inputs& x) { return ops::unary(op, x[0], p, 0); };
  };
  // Negative non-integers (the reflection formulas) and large x.
  for (U op : {U::lgamma, U::digamma}) {
    EXPECT_TRUE(gradcheck(unary_p(op, 0), {uniform({6}, -2.9, -2.1)})) << int(op);
    EXPECT_TRUE(gradcheck(unary_p(op, 0), {uniform({6}, 15, 40)})) << int(op);
  }
  for (double n : {1.0, 2.0, 3.0}) {
    EXPECT_TRUE(gradcheck(unary_p(U::polygamma, n), {uniform({3, 2}, 0.5, 4)})) << n;
    EXPECT_TRUE(gradcheck(unary_p(U::polygamma, n), {uniform({4}, -1.9, -1.1)})) << n;
  }
  EXPECT_TRUE(gradcheck(unary_p(U::mvlgamma, 3), {uniform({5}, 1.2, 6)}));
  // (gradcheck differentiates a weighted sum of the outputs, so they stay
  // moderate: I0, I1 and erfcx grow like exp(|x|) and exp(x^2).)
  for (U op : {U::i0, U::i1}) EXPECT_TRUE(gradcheck(unary_p(op, 0), {uniform({6}, -12, 12)})) << int(op);
  for (U op : {U::i0e, U::i1e, U::log_ndtr})
    EXPECT_TRUE(gradcheck(unary_p(op, 0), {uniform({6}, -35, 35)})) << int(op);  // both sides of 30
  EXPECT_TRUE(gradcheck(unary_p(U::erfcx, 0), {uniform({6}, -2, 35)}));          // both sides of 12
  EXPECT_TRUE(gradcheck(unary_p(U::log_ndtr, 0), {uniform({4}, -60, -20)}));
  // igamma, igammac: differentiable in x only; backward for a raises, as PyTorch's.
  const Tensor a = uniform({2, 3}, 0.5, 5);
  for (B op : {B::igamma, B::igammac}) {
    EXPECT_TRUE(
        gradcheck([a, op](const Inputs& x) { return ops::binary(op, a, x[0]); }, {uniform({2, 3}, 0.2, 6)}))
        << int(op);
    EXPECT_TRUE(gradcheck([op](const Inputs& x) { return ops::binary(op, tensor({2.5}, {}), x[0]); },
                          {uniform({3}, 0.5, 4)}))
        << int(op);  // broadcast a
  }
  for (B op : {B::igamma, B::igammac, B::nextafter}) {
    Tensor x = uniform({3}, 0.5, 2), y = uniform({3}, 0.5, 2);
    x->requires_grad = true;
    const Tensor out = ops::sum(ops::binary(op, x, y), {}, false);
    EXPECT_EQ(code_of([&] { tc::autograd::backward(out, nullptr, false); }), TC_ERR_NOT_IMPLEMENTED)
        << int(op);
  }
  Tensor y = uniform({3}, 0.5, 2);
  y->requires_grad = true;
  EXPECT_EQ(code_of([&] {
              tc::autograd::backward(ops::sum(ops::binary(B::nextafter, uniform({3}, 0, 1), y), {}, false),
                                     nullptr, false);
            }),
            TC_ERR_NOT_IMPLEMENTED);
  EXPECT_STREQ(ops::binary(B::igamma, uniform({3}, 1, 2), y)->grad_fn->name(), "IgammaBackward");
}

TEST_F(Elementwise, Frexp) {
  const double inf = INFINITY, tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> xs = {8.0,
                                  -0.3,
                                  1.0,
                                  0.0,
                                  -0.0,
                                  inf,
                                  -inf,
                                  NAN,
                                  1e-310,
                                  tiny,
                                  1.7976931348623157e308,
                                  std::nextafter(1.0, 0.0)};
  const auto [m, e] = ops::frexp(tensor(xs, {int64_t(xs.size())}));
  EXPECT_EQ(m->dtype, DType::f64);
  EXPECT_EQ(e->dtype, DType::i32);
  const std::vector<double> mv = values(m), ev = values(e);
  for (size_t i = 0; i < xs.size(); ++i) {
    int want_e = 0;
    const double want_m = std::frexp(xs[i], &want_e);  // libm's frexp: the definition
    EXPECT_TRUE((std::isnan(want_m) && std::isnan(mv[i])) ||
                (mv[i] == want_m && std::signbit(mv[i]) == std::signbit(want_m)))
        << xs[i] << ": " << mv[i];
    EXPECT_EQ(ev[i], std::isfinite(xs[i]) ? want_e : 0) << xs[i];
  }
  // float32, subnormals included.
  const std::vector<double> fs = {3.0, double(std::numeric_limits<float>::denorm_min()),
                                  3.4028234663852886e38, -1e-40};
  const auto [mf, ef] = ops::frexp(tensor(fs, {4}, DType::f32));
  EXPECT_EQ(mf->dtype, DType::f32);
  for (size_t i = 0; i < fs.size(); ++i) {
    int want_e = 0;
    const float want_m = std::frexp(float(fs[i]), &want_e);
    EXPECT_EQ(values(mf)[i], double(want_m)) << fs[i];
    EXPECT_EQ(values(ef)[i], want_e) << fs[i];
  }
  EXPECT_EQ(code_of([] { ops::frexp(tensor({1}, {1}, DType::i64)); }), TC_ERR_DTYPE);
  // The mantissa's gradient is g / 2^exponent (PyTorch's); the exponent has none.
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return ops::frexp(x[0]).first; }, {uniform({2, 3}, -20, 20)}));
  Tensor x = uniform({3}, 1, 2);
  x->requires_grad = true;
  EXPECT_FALSE(ops::frexp(x).second->requires_grad);
}
