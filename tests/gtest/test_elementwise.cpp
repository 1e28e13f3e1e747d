// Elementwise ops: values, broadcasting, type promotion, dtype/shape errors,
// gradients (broadcast and non-contiguous inputs included).
#include <cmath>

#include "gradcheck.h"
#include "math/elementwise_math.h"

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
