// The code the CUDA elementwise kernels run, checked on the CPU (no GPU
// needed): the index arithmetic of cuda/offset_calc.h against a naive index
// computation, and the per-element math of cuda/elementwise_math.h against the
// CPU ops (forward values, conversions) and against finite differences of the
// forward math (backward formulas, which the CPU's autograd also runs).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "gradcheck.h"
#include "math/elementwise_math.h"
#include "math/offset_calc.h"
#include "row_domains.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;
namespace ew = tc::ew;
using tc::cuda::IntDivider;
using tc::cuda::make_offset_calc;
using tc::cuda::OffsetCalc;

namespace {

// ---- IntDivider and OffsetCalc ----

TEST(CudaOffsetCalc, IntDividerMatchesDivision) {
  std::mt19937_64 rng(7);
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 300; ++d) divisors.push_back(d);
  for (int s = 1; s < 31; ++s) {
    for (int64_t delta : {-1, 0, 1}) {
      const int64_t d = (int64_t(1) << s) + delta;
      if (d >= 1 && d <= INT32_MAX) divisors.push_back(uint32_t(d));
    }
  }
  for (int i = 0; i < 200; ++i) divisors.push_back(uint32_t(1 + rng() % uint64_t(INT32_MAX)));
  for (uint32_t d : divisors) {
    const IntDivider div(d);
    std::vector<uint32_t> ns = {
        0, 1, d - 1, d, d + 1, 2 * d - 1, uint32_t(INT32_MAX), uint32_t(INT32_MAX) - 1};
    for (int i = 0; i < 64; ++i) ns.push_back(uint32_t(rng() % (uint64_t(INT32_MAX) + 1)));
    for (uint32_t n : ns) {
      if (n > uint32_t(INT32_MAX)) continue;
      ASSERT_EQ(div.div(n), n / d) << n << " / " << d;
    }
  }
}

// The byte offset of linear index i of operand k, the slow way.
int64_t naive_offset(const tc::Dims& shape, const tc::Dims& strides, int64_t itemsize, int64_t i) {
  int64_t off = 0;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    off += (i % shape[d]) * strides[d] * itemsize;
    i /= shape[d];
  }
  return off;
}

template <int N>
void check_calc(const tc::Dims& shape, const tc::Dims (&strides)[N], const int64_t (&itemsize)[N]) {
  for (bool force_64 : {false, true}) {
    const OffsetCalc<N> c = make_offset_calc<N>(shape, strides, itemsize, force_64);
    ASSERT_EQ(c.small, !force_64);
    const int64_t n = tc::numel_of(shape);
    for (int64_t i = 0; i < n; ++i) {
      int64_t off[N];
      c.get(i, off);
      for (int k = 0; k < N; ++k) {
        ASSERT_EQ(off[k], naive_offset(shape, strides[k], itemsize[k], i))
            << "shape " << shape << ", operand " << k << " strides " << strides[k] << ", index " << i
            << (force_64 ? " (64-bit path)" : "");
      }
    }
  }
}

TEST(CudaOffsetCalc, RandomShapesStridesAndBroadcasts) {
  std::mt19937 rng(11);
  const int64_t sizes_of[4] = {1, 2, 4, 8};
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t nd = int64_t(rng() % 7);  // 0..6 dims
    tc::Dims shape;
    for (int64_t d = 0; d < nd; ++d) shape.push_back(1 + int64_t(rng() % 4));
    constexpr int N = 3;
    tc::Dims strides[N];
    int64_t itemsize[N];
    for (int k = 0; k < N; ++k) {
      itemsize[k] = sizes_of[rng() % 4];
      const int kind = int(rng() % 4);
      if (kind == 0) {  // contiguous
        strides[k] = tc::contiguous_strides(shape);
      } else if (kind == 1) {  // a permuted contiguous layout (a transposed view)
        std::vector<int64_t> perm(static_cast<size_t>(nd));
        for (int64_t d = 0; d < nd; ++d) perm[size_t(d)] = d;
        std::shuffle(perm.begin(), perm.end(), rng);
        strides[k] = tc::Dims::filled(nd, 0);
        int64_t s = 1;
        for (int64_t j = nd - 1; j >= 0; --j) {
          strides[k][perm[size_t(j)]] = s;
          s *= shape[perm[size_t(j)]];
        }
      } else if (kind == 2) {  // broadcast from a smaller operand shape
        tc::Dims small;
        const int64_t drop = nd ? int64_t(rng() % uint32_t(nd + 1)) : 0;
        for (int64_t d = drop; d < nd; ++d) small.push_back(rng() % 2 ? shape[d] : 1);
        strides[k] = tc::cuda::broadcast_strides_to(small, tc::contiguous_strides(small), shape);
      } else {  // arbitrary strides, negative and zero included
        strides[k] = tc::Dims::filled(nd, 0);
        for (int64_t d = 0; d < nd; ++d) strides[k][d] = int64_t(rng() % 41) - 20;
      }
    }
    check_calc<N>(shape, strides, itemsize);
  }
}

TEST(CudaOffsetCalc, CoalescesLikeTheCpuLoop) {
  {
    const tc::Dims shape{4, 5, 6};
    const tc::Dims s[2] = {tc::contiguous_strides(shape), tc::contiguous_strides(shape)};
    const int64_t is[2] = {4, 2};
    const OffsetCalc<2> c = make_offset_calc<2>(shape, s, is);
    EXPECT_EQ(c.ndim, 1);  // one flat loop
    EXPECT_EQ(c.sizes[0], 120);
    EXPECT_EQ(c.strides[0][0], 4);
    EXPECT_EQ(c.strides[0][1], 2);
  }
  {  // a bias [6] added to [4, 5, 6]: two dims remain (inner 6, outer 20)
    const tc::Dims shape{4, 5, 6};
    const tc::Dims s[2] = {tc::contiguous_strides(shape),
                           tc::cuda::broadcast_strides_to(tc::Dims{6}, tc::Dims{1}, shape)};
    const int64_t is[2] = {4, 4};
    const OffsetCalc<2> c = make_offset_calc<2>(shape, s, is);
    EXPECT_EQ(c.ndim, 2);
    check_calc<2>(shape, s, is);
  }
  {  // every dim of size 1: no dims, offset 0
    const tc::Dims shape{1, 1, 1};
    const tc::Dims s[1] = {tc::Dims{7, 3, 1}};
    const int64_t is[1] = {8};
    const OffsetCalc<1> c = make_offset_calc<1>(shape, s, is);
    EXPECT_EQ(c.ndim, 0);
    int64_t off[1] = {-1};
    c.get(0, off);
    EXPECT_EQ(off[0], 0);
  }
  {  // more than 2^31 elements take the 64-bit path
    const tc::Dims shape{int64_t(1) << 20, int64_t(1) << 12};
    const tc::Dims s[1] = {tc::Dims{1, int64_t(1) << 20}};  // transposed: no coalescing
    const int64_t is[1] = {1};
    const OffsetCalc<1> c = make_offset_calc<1>(shape, s, is);
    EXPECT_FALSE(c.small);
    for (int64_t i : {int64_t(0), int64_t(4097), (int64_t(1) << 32) - 1, int64_t(3) << 30}) {
      int64_t off[1];
      c.get(i, off);
      EXPECT_EQ(off[0], naive_offset(shape, s[0], 1, i)) << i;
    }
  }
}

// ---- forward math against the CPU ops ----

class CudaMathHost : public TcTest {};

// Edge values of each dtype: NaN, infinities, signed zeros, extremes, and
// integers near overflow.
std::vector<double> edge_values(DType d) {
  if (tc::is_floating(d)) {
    const double inf = std::numeric_limits<double>::infinity();
    return {std::nan(""), inf, -inf,  0.0,  -0.0, 1.0,  -1.0, 0.5,
            -2.5,         3.0, 1e-30, 1e30, 7.25, -3.0, 2.0,  1e300};
  }
  if (d == DType::b8) return {0, 1};
  if (d == DType::u8) return {0, 1, 2, 3, 127, 128, 200, 255};
  const double hi = d == DType::i8 ? 127 : d == DType::i16 ? 32767 : d == DType::i32 ? 2147483647.0 : 9.2e18;
  return {0, 1, -1, 2, -2, 3, 5, -7, hi, -hi, -hi - 1, 100};
}

// All pairs of edge values, as two 1-d tensors of dtype d.
std::pair<Tensor, Tensor> all_pairs(DType d) {
  const std::vector<double> v = edge_values(d);
  std::vector<double> a, b;
  for (double x : v) {
    for (double y : v) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const auto n = int64_t(a.size());
  return {tensor(a, {n}, d), tensor(b, {n}, d)};
}

bool same(double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; }

template <typename F>
void for_numeric(DType d, F f) {
  switch (d) {
    case DType::f32:
      return f(float{});
    case DType::f64:
      return f(double{});
    case DType::i8:
      return f(int8_t{});
    case DType::i16:
      return f(int16_t{});
    case DType::i32:
      return f(int32_t{});
    case DType::i64:
      return f(int64_t{});
    case DType::u8:
      return f(uint8_t{});
    case DType::b8:
      return f(bool{});
    default:
      FAIL() << "unexpected dtype";
  }
}

const DType kNumeric[] = {DType::f32, DType::f64, DType::i8, DType::i16, DType::i32, DType::i64, DType::u8};

TEST_F(CudaMathHost, BinaryValuesMatchTheCpuOps) {
  using ops::BinaryOp;
  for (DType d : kNumeric) {
    // not a structured binding: the lambda below captures it (clang 14: C++20 only)
    const auto pairs = all_pairs(d);
    const Tensor a = pairs.first, b0 = pairs.second;
    for (int o = 0; o < ops::kArithmeticBinaryOps; ++o) {
      const auto op = BinaryOp(o);
      if (!ew::binary_computes(op, d)) continue;  // promotes to float (div), or refuses d
      // Integer division by zero raises: those rows divide by 1 instead.
      const Tensor b =
          ew::binary_integer_division(op) && !tc::is_floating(d)
              ? ops::where(ops::binary(BinaryOp::eq, b0, tensor({0}, {}, d)), tensor({1}, {}, d), b0)
              : b0;
      const Tensor cpu = ops::binary(op, a, b);
      for_numeric(d, [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < a->numel(); ++i) {
          const T r = ew::binary_value(op, ew::load(a->data_as<T>() + i), ew::load(b->data_as<T>() + i));
          ASSERT_TRUE(same(double(r), tc::read_element(cpu, i)))
              << "op " << o << ", " << tc::dtype_name(d) << ": " << tc::read_element(a, i) << ", "
              << tc::read_element(b, i) << " gives " << double(r) << " but the CPU gives "
              << tc::read_element(cpu, i);
        }
      });
    }
  }
}

TEST_F(CudaMathHost, ComparisonsMatchTheCpuOps) {
  using ops::BinaryOp;
  for (DType d :
       {DType::f32, DType::f64, DType::i8, DType::i16, DType::i32, DType::i64, DType::u8, DType::b8}) {
    const auto pairs = all_pairs(d);
    const Tensor a = pairs.first, b = pairs.second;
    for (int o = ops::kArithmeticBinaryOps; o < int(BinaryOp::count_); ++o) {
      const Tensor cpu = ops::binary(BinaryOp(o), a, b);
      for_numeric(d, [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < a->numel(); ++i) {
          const bool r =
              ew::compare_value(BinaryOp(o), ew::load(a->data_as<T>() + i), ew::load(b->data_as<T>() + i));
          ASSERT_EQ(double(r), tc::read_element(cpu, i))
              << "op " << o << ", " << tc::dtype_name(d) << ", " << i;
        }
      });
    }
  }
}

// The scalar op with the op chosen at run time (the kernels choose it at compile time).
template <typename C>
C scalar_value(ops::ScalarOp op, C x, double s) {
  const C sc = C(s);
  const ew::PowMode m = ew::pow_mode(s);
  switch (op) {
#define TC_SCALAR_OP(name, ...) \
  case ops::ScalarOp::name:     \
    return ew::scalar_value<ops::ScalarOp::name>(x, sc, m);
#include "math/scalar_ops.def"
    case ops::ScalarOp::count_:
      break;
  }
  return C(0);
}

TEST_F(CudaMathHost, ScalarValuesMatchTheCpuOps) {
  for (DType d : {DType::f32, DType::f64}) {
    const std::vector<double> v = edge_values(d);
    const Tensor a = tensor(v, {int64_t(v.size())}, d);
    for (double s : {2.0, 1.0, 0.5, 0.0, -1.0, 3.0, -1.5, 0.1, 1e40, std::nan("")}) {
      for (int o = 0; o < int(ops::ScalarOp::count_); ++o) {
        const Tensor cpu = ops::binary_scalar(ops::ScalarOp(o), a, s);
        for_numeric(d, [&](auto tag) {
          using T = decltype(tag);
          if constexpr (std::is_floating_point_v<T>) {
            for (int64_t i = 0; i < a->numel(); ++i) {
              const T r = scalar_value(ops::ScalarOp(o), a->data_as<T>()[i], s);
              ASSERT_TRUE(same(double(r), tc::read_element(cpu, i)))
                  << "op " << o << " s " << s << ", " << tc::dtype_name(d) << ": x " << a->data_as<T>()[i];
            }
          }
        });
      }
    }
  }
}

TEST_F(CudaMathHost, UnaryValuesMatchTheCpuOps) {
  for (DType d : kNumeric) {
    const std::vector<double> v = edge_values(d);
    const Tensor a = tensor(v, {int64_t(v.size())}, d);
    for (int o = 0; o < int(ops::UnaryOp::count_); ++o) {
      const auto op = ops::UnaryOp(o);
      // Only the dtypes the row computes in (floating rows promote integers first).
      if (tc::is_floating(d) ? !ew::unary_info(op).floats : !ew::unary_ints(op)) continue;
      const Tensor cpu = ops::unary(op, a);
      for_numeric(d, [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < a->numel(); ++i) {
          const T r = ew::unary_value(op, ew::load(a->data_as<T>() + i));
          ASSERT_TRUE(same(double(r), tc::read_element(cpu, i)))
              << "op " << o << ", " << tc::dtype_name(d) << ": x " << v[size_t(i)] << " gives " << double(r)
              << ", the CPU " << tc::read_element(cpu, i);
        }
      });
    }
  }
}

TEST_F(CudaMathHost, ClampBoundsAndValues) {
  // Independent expectations (the CPU's clamp runs this very code).
  EXPECT_EQ(ew::clamp_bound<int8_t>(-1000), -128);
  EXPECT_EQ(ew::clamp_bound<int8_t>(1000), 127);
  EXPECT_EQ(ew::clamp_bound<uint8_t>(-5), 0);
  EXPECT_EQ(ew::clamp_bound<int64_t>(1e300), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ew::clamp_bound<int64_t>(-1e300), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ew::clamp_bound<int32_t>(-7), -7);
  EXPECT_EQ(ew::clamp_bound<float>(0.1), 0.1f);
  EXPECT_EQ(ew::clamp_value(5, true, 0, true, 3), 3);
  EXPECT_EQ(ew::clamp_value(-5, true, 0, false, 0), 0);
  EXPECT_EQ(ew::clamp_value(-5, false, 0, true, 3), -5);
  EXPECT_TRUE(std::isnan(ew::clamp_value(std::nan(""), true, 0.0, true, 1.0)));  // NaN stays NaN
  const Tensor x = tensor({-3, 0.5, 9, std::nan("")}, {4});
  const Tensor c = ops::clamp(x, -1, std::nan(""));
  const std::vector<double> got = values(c);
  EXPECT_EQ(got[0], -1);
  EXPECT_EQ(got[1], 0.5);
  EXPECT_EQ(got[2], 9);
  EXPECT_TRUE(std::isnan(got[3]));
}

TEST_F(CudaMathHost, IntegerEdgeCases) {
  EXPECT_EQ(ew::wrapping_add<int8_t>(127, 1), -128);
  EXPECT_EQ(ew::wrapping_mul<int16_t>(32767, 2), -2);
  EXPECT_EQ(ew::wrapping_neg<int64_t>(std::numeric_limits<int64_t>::min()),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ew::wrapping_sub<uint8_t>(0, 1), 255);
  EXPECT_EQ(ew::int_pow<int32_t>(2, 31), std::numeric_limits<int32_t>::min());  // wraps
  EXPECT_EQ(ew::int_pow<int32_t>(-1, -3), -1);
  EXPECT_EQ(ew::int_pow<int32_t>(1, -3), 1);
  EXPECT_EQ(ew::int_pow<int32_t>(5, -1), 0);
  EXPECT_EQ(ew::int_pow<uint8_t>(3, 5), 243);
  EXPECT_EQ(ew::unary_value<ops::UnaryOp::abs>(int8_t(-128)), -128);  // wraps like PyTorch
  EXPECT_EQ(ew::unary_value<ops::UnaryOp::relu>(uint8_t(200)), 200);
}

// ---- conversions against tc::cast ----

template <typename F>
void for_all(DType d, F f) {
  switch (d) {
    case DType::f16:
      return f(tc::Half{});
    case DType::bf16:
      return f(tc::BFloat16{});
    default:
      return for_numeric(d, f);
  }
}

const DType kAll[] = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i8,
                      DType::i16, DType::i32, DType::i64, DType::u8,   DType::b8};

TEST_F(CudaMathHost, ConvertMatchesCast) {
  std::vector<double> v = {std::nan(""), INFINITY, -INFINITY, 0.0,   -0.0,   0.5,   -0.5,    1.0,      -1.0,
                           1.5,          2.5,      -129.0,    255.0, 256.0,  300.7, 65504.0, 65520.0,  1e5,
                           -1e10,        3e9,      1e19,      -1e19, 9.3e18, 1e-8,  0.1,     1.0 / 3.0};
  for (DType s : kAll) {
    // The source: the values stored in s (through the CPU's own conversion).
    const Tensor src = tensor(v, {int64_t(v.size())}, s);
    if (s == DType::b8) src->data_as<unsigned char>()[1] = 2;  // a borrowed byte other than 0/1 reads as true
    for (DType d : kAll) {
      // Through a strided destination: the CPU's converting loop (a contiguous
      // copy of one dtype is a plain memmove, on the GPU too).
      const int64_t n = src->numel();
      const Tensor cpu = tc::empty({2 * n}, d);
      tc::copy_into(tc::make_view(cpu, {n}, {2}, 0), src);
      for_all(s, [&](auto stag) {
        using S = decltype(stag);
        for_all(d, [&](auto dtag) {
          using D = decltype(dtag);
          for (int64_t i = 0; i < src->numel(); ++i) {
            D out;
            ew::store(&out, ew::convert<D>(ew::load(src->data_as<S>() + i)));
            ASSERT_EQ(std::memcmp(&out, cpu->data_as<D>() + 2 * i, sizeof(D)), 0)
                << tc::dtype_name(s) << " -> " << tc::dtype_name(d) << ", element " << i << " ("
                << tc::read_element(src, i) << "): " << double(ew::load(&out)) << " vs "
                << tc::read_element(cpu, 2 * i);
          }
        });
      });
    }
  }
}

TEST_F(CudaMathHost, SixteenBitFloatsRoundToNearestEven) {
  // Compute in float, store rounded: 1 + 2^-11 is halfway between two halves
  // and rounds to the even one (1.0); 1 + 3 * 2^-11 rounds up.
  tc::Half h;
  ew::store(&h, 1.0f + std::ldexp(1.0f, -11));
  EXPECT_EQ(ew::load(&h), 1.0f);
  ew::store(&h, 1.0f + 3 * std::ldexp(1.0f, -11));
  EXPECT_EQ(ew::load(&h), 1.0f + std::ldexp(1.0f, -9));
  tc::BFloat16 b;
  ew::store(&b, 1.0f + std::ldexp(1.0f, -8));
  EXPECT_EQ(ew::load(&b), 1.0f);
  ew::store(&b, std::nanf(""));
  EXPECT_TRUE(std::isnan(ew::load(&b)));
  ew::store(&h, 70000.0f);
  EXPECT_TRUE(std::isinf(ew::load(&h)));
}

// ---- backward formulas ----

// d/dx of f at x by central differences in double.
template <typename F>
double numeric_derivative(F f, double x) {
  const double eps = 1e-6 * std::max(1.0, std::abs(x));
  return (f(x + eps) - f(x - eps)) / (2 * eps);
}

bool close(double analytic, double numeric) {
  return std::abs(analytic - numeric) <= 1e-5 + 1e-4 * std::abs(numeric);
}

TEST(CudaGradFormulas, TwoOperandFormulasMatchFiniteDifferences) {
  using ew::Grad;
  using U = ops::UnaryOp;
  const double g = 1.7;
  // Every UnaryOp's formula (unary_ops.def), with the tensor it saves.
  for (int o = 0; o < int(U::count_); ++o) {
    const U op = U(o);
    if (!ew::unary_differentiable(op)) continue;
    const Grad f = ew::unary_grad(op);
    const bool saves_output = ew::unary_save(op) == ew::Save::output;
    for (double x : {-2.3, -0.7, 0.3, 0.9, 1.6, 3.2}) {
      if (!in_unary_domain(op, x)) continue;
      const double saved = saves_output ? ew::unary_value(op, x) : x;
      const double analytic = ew::grad2_value(f, g, saved, ew::GradParams{});
      const double numeric = g * numeric_derivative([&](double t) { return ew::unary_value(op, t); }, x);
      EXPECT_TRUE(close(analytic, numeric))
          << "formula " << int(f) << " at " << x << ": " << analytic << " vs " << numeric;
      // The float version agrees with the double one.
      const float af = ew::grad2_value(f, float(g), float(saved), ew::GradParams{});
      EXPECT_NEAR(af, analytic, 1e-5 + 1e-5 * std::abs(analytic)) << "formula " << int(f) << " at " << x;
    }
  }
  for (double s : {2.0, 3.0, -1.5, 0.5}) {
    ew::GradParams p;
    p.s = s;
    for (double x : {0.4, 1.3, 2.2}) {
      EXPECT_TRUE(close(ew::grad2_value(Grad::pow_scalar, g, x, p),
                        g * numeric_derivative([&](double t) { return std::pow(t, s); }, x)));
      EXPECT_TRUE(close(ew::grad2_value(Grad::rdiv_scalar, g, x, p),
                        g * numeric_derivative([&](double t) { return s / t; }, x)));
    }
  }
  ew::GradParams p0;
  p0.s = 0;
  EXPECT_EQ(ew::grad2_value(Grad::pow_scalar, g, 0.0, p0), 0.0);  // x^0: 0, not 0 * 0^-1 = NaN
}

TEST(CudaGradFormulas, EdgeCases) {
  using ew::Grad;
  const ew::GradParams none;
  EXPECT_EQ(ew::grad2_value(Grad::abs, 2.0, 0.0, none), 0.0);
  EXPECT_EQ(ew::grad2_value(Grad::abs, 2.0, -3.0, none), -2.0);
  EXPECT_EQ(ew::grad2_value(Grad::relu, 2.0, 0.0, none), 0.0);
  EXPECT_TRUE(std::isnan(ew::grad2_value(Grad::relu, std::nan(""), 1.0, none)));
  EXPECT_TRUE(std::isinf(ew::grad2_value(Grad::log, 1.0, 0.0, none)));
  ew::GradParams c;
  c.lo = -1;
  c.hi = 1;
  c.has_lo = c.has_hi = true;
  EXPECT_EQ(ew::grad2_value(Grad::clamp, 2.0, 1.0, c), 2.0);  // the bounds are inside
  EXPECT_EQ(ew::grad2_value(Grad::clamp, 2.0, -1.0, c), 2.0);
  EXPECT_EQ(ew::grad2_value(Grad::clamp, 2.0, 1.5, c), 0.0);
  c.has_hi = false;  // NaN bound = none
  EXPECT_EQ(ew::grad2_value(Grad::clamp, 2.0, 1e9, c), 2.0);
  EXPECT_EQ(ew::grad2_value(Grad::clamp, 2.0, -1.5, c), 0.0);
  EXPECT_EQ(ew::grad2_value(Grad::clamp, 2.0f, std::nanf(""), c), 0.0f);  // NaN input: outside

  EXPECT_EQ(ew::grad3_value(Grad::maximum_a, 2.0, 1.0, 1.0), 1.0);  // ties split
  EXPECT_EQ(ew::grad3_value(Grad::maximum_b, 2.0, 1.0, 1.0), 1.0);
  EXPECT_EQ(ew::grad3_value(Grad::maximum_a, 2.0, 3.0, 1.0), 2.0);
  EXPECT_EQ(ew::grad3_value(Grad::maximum_b, 2.0, 3.0, 1.0), 0.0);
  EXPECT_EQ(ew::grad3_value(Grad::minimum_a, 2.0, 3.0, 1.0), 0.0);
  EXPECT_EQ(ew::grad3_value(Grad::minimum_b, 2.0, 3.0, 1.0), 2.0);
  EXPECT_EQ(ew::grad3_value(Grad::pow_a, 2.0, 0.0, 0.0), 0.0);  // d(x^0)/dx = 0
  EXPECT_EQ(ew::grad3_value(Grad::pow_b, 2.0, 0.0, 2.0), 0.0);  // 0^y: no log(0)
  EXPECT_TRUE(std::isnan(ew::grad3_value(Grad::pow_b, 2.0, -1.0, 2.0)));
  EXPECT_EQ(ew::grad3_value(Grad::div_b, 1.0, 3.0, 2.0), -0.75);
  // A formula of the other family gives 0 rather than garbage.
  EXPECT_EQ(ew::grad3_value(Grad::relu, 1.0, 1.0, 1.0), 0.0);
  EXPECT_EQ(ew::grad2_value(Grad::div_b, 1.0, 1.0, none), 0.0);
}

TEST(CudaGradFormulas, ThreeOperandFormulasMatchFiniteDifferences) {
  using ew::Grad;
  using B = ops::BinaryOp;
  const double g = -0.8;
  for (double x : {0.3, 1.1, 2.7}) {
    for (double y : {-1.2, 0.6, 1.9}) {
      auto along_x = [&](B op) { return [=](double t) { return ew::binary_value(op, t, y); }; };
      auto along_y = [&](B op) { return [=](double t) { return ew::binary_value(op, x, t); }; };
      EXPECT_TRUE(close(ew::grad3_value(Grad::div_b, g, x, y), g * numeric_derivative(along_y(B::div), y)));
      EXPECT_TRUE(close(ew::grad3_value(Grad::pow_a, g, x, y), g * numeric_derivative(along_x(B::pow), x)));
      EXPECT_TRUE(close(ew::grad3_value(Grad::pow_b, g, x, y), g * numeric_derivative(along_y(B::pow), y)));
      EXPECT_TRUE(
          close(ew::grad3_value(Grad::maximum_a, g, x, y), g * numeric_derivative(along_x(B::maximum), x)));
      EXPECT_TRUE(
          close(ew::grad3_value(Grad::maximum_b, g, x, y), g * numeric_derivative(along_y(B::maximum), y)));
      EXPECT_TRUE(
          close(ew::grad3_value(Grad::minimum_a, g, x, y), g * numeric_derivative(along_x(B::minimum), x)));
      EXPECT_TRUE(
          close(ew::grad3_value(Grad::minimum_b, g, x, y), g * numeric_derivative(along_y(B::minimum), y)));
    }
  }
}

}  // namespace
