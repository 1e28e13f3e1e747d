// Elementwise ops, casts, copies and in-place ops on CUDA tensors, compared
// with the CPU backend: every op forward and backward, float32/float64/
// float16/bfloat16/integer/bool as the op allows, contiguous, transposed,
// misaligned (offset by one element) and broadcast operands. float16 and
// bfloat16 are compared with the CPU computing in float32 and rounding the
// result. Without a usable GPU every test skips with the reason libtc gives.
#include <cmath>
#include <cstring>
#include <functional>

#include "gradcheck.h"
#include "math/elementwise_math.h"
#include "row_domains.h"
#include "tc_binary_ops.h"

using namespace tc_test;
using tc::DType;
using tc::str;
using tc::Tensor;
namespace ops = tc::ops;

namespace {

const tc::Device kCuda = TC_DEVICE(TC_DEVICE_CUDA, 0);

class CudaElementwise : public CudaTest {};

Tensor gpu(const Tensor& t) { return tc::to_device(t, kCuda); }
Tensor host(const Tensor& t) { return tc::to_device(t, tc::kCPU); }

bool is16(DType d) { return d == DType::f16 || d == DType::bf16; }

enum class Layout { contiguous, transposed, offset };
const Layout kLayouts[] = {Layout::contiguous, Layout::transposed, Layout::offset};

// A CPU tensor's values on the GPU: contiguous; transposed (or every other
// element, for fewer than 2 dims); or contiguous one element past a 16-byte
// boundary (no vector loads).
Tensor on_gpu(const Tensor& t, Layout l) {
  if (l == Layout::contiguous) return gpu(t);
  if (l == Layout::offset) {
    Tensor big = tc::empty({t->numel() + 1}, t->dtype, kCuda);
    Tensor v = tc::make_view(big, t->shape, tc::contiguous_strides(t->shape), 1);
    tc::copy_into(v, t);  // host -> non-contiguous-storage device view
    return v;
  }
  if (t->ndim() < 2) {
    Tensor big = tc::zeros({2 * std::max<int64_t>(t->numel(), 1)}, t->dtype, kCuda);
    Tensor v = tc::make_view(big, t->shape, t->ndim() ? tc::Dims{2} : tc::Dims{}, 0);
    tc::copy_into(v, t);
    return v;
  }
  tc::Dims perm = t->shape;
  std::swap(perm[0], perm[1]);
  Tensor base = tc::empty(perm, t->dtype, kCuda);
  tc::Dims strides = base->strides;
  std::swap(strides[0], strides[1]);
  Tensor v = tc::make_view(base, t->shape, strides, 0);
  tc::copy_into(v, t);
  EXPECT_FALSE(v->is_contiguous());
  return v;
}

// Random values of dtype d in [lo, hi] (integers: rounded).
Tensor rand(const tc::Dims& shape, DType d, double lo, double hi) {
  Tensor u = uniform(shape, lo, hi);
  if (!tc::is_floating(d)) {
    for (int64_t i = 0; i < u->numel(); ++i) u->data_as<double>()[i] = std::round(u->data_as<double>()[i]);
  }
  return tc::cast(u, d);
}

// got (a CUDA tensor) equals want (a CPU tensor) within rtol/atol; NaNs match NaNs.
::testing::AssertionResult matches(const Tensor& got, const Tensor& want, double rtol = 0, double atol = 0) {
  if (tc::device_type(got->device) != TC_DEVICE_CUDA) return ::testing::AssertionFailure() << "not on cuda";
  if (got->shape != want->shape || got->dtype != want->dtype) {
    return ::testing::AssertionFailure() << "got " << tc::dtype_name(got->dtype) << " " << got->shape
                                         << ", want " << tc::dtype_name(want->dtype) << " " << want->shape;
  }
  const Tensor g = host(got);
  for (int64_t i = 0; i < want->numel(); ++i) {
    const double a = tc::read_element(g, i), b = tc::read_element(want, i);
    const bool ok =
        (std::isnan(a) && std::isnan(b)) || a == b || std::abs(a - b) <= atol + rtol * std::abs(b);
    if (!ok) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << a << ", want " << b << " ("
                                           << tc::dtype_name(want->dtype) << " " << want->shape << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// The CPU's result of f on inputs, for comparison with a GPU result of dtype
// out: float16/bfloat16 inputs computed in float32, the result rounded.
Tensor cpu_ref(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& ins,
               DType out) {
  std::vector<Tensor> c;
  for (const Tensor& t : ins) c.push_back(is16(t->dtype) ? tc::cast(t, DType::f32) : t);
  Tensor r = f(c);
  return r->dtype == out ? r : tc::cast(r, out);
}

// Tolerance of a result: exact for IEEE-exact ops, else a few units in the last place.
double tol(DType d, bool exact) {
  if (exact) return 0;
  switch (d) {
    case DType::f64:
      return 1e-13;
    case DType::f32:
      return 1e-5;
    case DType::f16:
      return 2e-3;
    case DType::bf16:
      return 1.6e-2;
    default:
      return 0;
  }
}

const DType kFloat[] = {DType::f32, DType::f64, DType::f16, DType::bf16};
const DType kArith[] = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i8,
                        DType::i16, DType::i32, DType::i64, DType::u8};

TEST_F(CudaElementwise, BinaryOpsMatchTheCpu) {
  using ops::BinaryOp;
  for (int o = 0; o < int(BinaryOp::count_); ++o) {
    const auto op = BinaryOp(o);
    for (DType d : kArith) {
      const bool floating = tc::is_floating(d);
      // Rows that refuse d (bitwise ops of floats, hypot of integers) do on both devices.
      if (!tc::ew::binary_computes(op, d) && tc::ew::binary_dtypes(op) != tc::ew::BinaryDtypes::floating)
        continue;
      // Shapes: same (odd sizes: vector tails), broadcast, 0-dim with 2-d, large.
      const std::vector<std::pair<tc::Dims, tc::Dims>> shapes = {
          {{7, 9}, {7, 9}}, {{4, 1, 6}, {5, 6}}, {{}, {3, 5}}, {{1 << 17, 3}, {1 << 17, 3}}};
      for (const auto& [sa, sb] : shapes) {
        // Values made in float64, then stored in d: pow gets small exponents and
        // a positive float base, div a divisor away from 0, unsigned types
        // non-negative values, comparisons some ties.
        const bool pow = op == BinaryOp::pow;
        const double lo = d == DType::u8 ? 0 : -40, hi = d == DType::u8 ? 200 : 40;
        Tensor a = pow ? rand(sa, DType::f64, floating ? 0.1 : 0, 3) : rand(sa, DType::f64, lo, hi);
        Tensor b = pow ? rand(sb, DType::f64, floating ? -2 : 0, 4)
                       : rand(sb, DType::f64, op == BinaryOp::div ? 0.5 : lo, hi);
        if (!floating) {
          a = tc::cast(tc::cast(a, DType::i64), DType::f64);
          b = tc::cast(tc::cast(b, DType::i64), DType::f64);
          if (tc::ew::binary_integer_division(op))  // a zero divisor raises ZeroDivisionError
            b = ops::where(ops::binary(BinaryOp::eq, b, tensor({0}, {})), tensor({1}, {}), b);
        }
        if (ops::is_comparison(op) && sa == sb)
          b = ops::where(ops::binary(BinaryOp::gt, b, tensor({0}, {})), b, a);
        a = tc::cast(a, d);
        b = tc::cast(b, d);
        for (Layout l : kLayouts) {
          if (sa.size() == 2 && sa[0] > 1000 && l == Layout::transposed) continue;  // slow on the host
          const Tensor ga = on_gpu(a, l), gb = on_gpu(b, l == Layout::offset ? Layout::contiguous : l);
          const Tensor g = ops::binary(op, ga, gb);
          const Tensor want = cpu_ref(
              [&](const std::vector<Tensor>& x) { return ops::binary(op, x[0], x[1]); }, {a, b}, g->dtype);
          // libm and CUDA's math functions may differ in the last place.
          const bool exact = op != BinaryOp::pow && op != BinaryOp::atan2 && op != BinaryOp::hypot &&
                             op != BinaryOp::logaddexp && op != BinaryOp::logaddexp2;
          EXPECT_TRUE(matches(g, want, tol(g->dtype, exact)))
              << "op " << o << ", " << tc::dtype_name(d) << ", shapes " << sa << " and " << sb << ", layout "
              << int(l);
        }
      }
    }
  }
}

TEST_F(CudaElementwise, ComparisonsOfEveryDtypeAndMixedPromotion) {
  using ops::BinaryOp;
  const Tensor bools_a = tensor({0, 1, 1, 0, 1}, {5}, DType::b8),
               bools_b = tensor({0, 1, 0, 1, 1}, {5}, DType::b8);
  for (int o = ops::kArithmeticBinaryOps; o < int(BinaryOp::count_); ++o) {
    EXPECT_TRUE(matches(ops::binary(BinaryOp(o), gpu(bools_a), gpu(bools_b)),
                        ops::binary(BinaryOp(o), bools_a, bools_b)));
  }
  // NaN compares unequal to everything, in every float dtype.
  const Tensor x = tensor({std::nan(""), 1, INFINITY, -0.0}, {4}),
               y = tensor({std::nan(""), 1, INFINITY, 0.0}, {4});
  for (DType d : kFloat) {
    const Tensor want = ops::binary(BinaryOp::eq, x, y);
    EXPECT_TRUE(matches(ops::binary(BinaryOp::eq, gpu(tc::cast(x, d)), gpu(tc::cast(y, d))), want));
  }
  // Mixed dtypes promote as on the CPU (float16 + float32 = float32; int + float; int / int = float).
  const Tensor h = rand({6, 5}, DType::f16, -3, 3), f = rand({5}, DType::f32, -3, 3);
  const Tensor i = rand({6, 5}, DType::i32, -9, 9), j = rand({6, 5}, DType::i64, 1, 9);
  Tensor g = ops::add(gpu(h), gpu(f));
  EXPECT_EQ(g->dtype, DType::f32);
  EXPECT_TRUE(matches(g, ops::add(tc::cast(h, DType::f32), f)));
  EXPECT_TRUE(matches(ops::mul(gpu(i), gpu(f)), ops::mul(i, f)));
  EXPECT_TRUE(matches(ops::div(gpu(i), gpu(j)), ops::div(i, j)));
  EXPECT_TRUE(matches(ops::sub(gpu(i), gpu(j)), ops::sub(i, j)));
  const Tensor bf = rand({6, 5}, DType::bf16, -3, 3);
  g = ops::mul(gpu(h), gpu(bf));
  EXPECT_EQ(g->dtype, DType::f32);
  EXPECT_TRUE(matches(g, ops::mul(tc::cast(h, DType::f32), tc::cast(bf, DType::f32))));
}

TEST_F(CudaElementwise, ScalarOpsMatchTheCpu) {
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i32}) {
    const Tensor a = rand({33, 17}, d, 0.2, 4);
    for (double s : {2.0, 1.0, 0.5, -1.5, 3.0, 0.0}) {
      for (int o = 0; o < int(ops::ScalarOp::count_); ++o) {
        const auto op = ops::ScalarOp(o);
        for (Layout l : kLayouts) {
          const Tensor g = ops::binary_scalar(op, on_gpu(a, l), s);
          const Tensor want = cpu_ref(
              [&](const std::vector<Tensor>& x) { return ops::binary_scalar(op, x[0], s); }, {a}, g->dtype);
          const bool exact = op != ops::ScalarOp::pow || s == 2 || s == 1 || s == 0.5;
          EXPECT_TRUE(matches(g, want, tol(g->dtype, exact)))
              << "op " << o << ", s " << s << ", " << tc::dtype_name(d) << ", layout " << int(l);
        }
      }
    }
  }
}

TEST_F(CudaElementwise, UnaryOpsMatchTheCpu) {
  for (DType d : kArith) {
    for (int o = 0; o < int(ops::UnaryOp::count_); ++o) {
      const auto op = ops::UnaryOp(o);
      const bool int_ok = tc::ew::unary_ints(op);
      if (tc::is_floating(d) ? !tc::ew::unary_info(op).floats : !int_ok) continue;
      const tc::ew::TestDomain& dom = tc::ew::unary_test_domain(op);
      const bool unbounded_below = dom.lo[0] < -5;
      const Tensor a =
          rand({65, 31}, d, unbounded_below && d == DType::u8 ? 0 : dom.wide_lo(), dom.wide_hi());
      for (Layout l : kLayouts) {
        const Tensor g = ops::unary(op, on_gpu(a, l));
        const Tensor want =
            cpu_ref([&](const std::vector<Tensor>& x) { return ops::unary(op, x[0]); }, {a}, g->dtype);
        const bool exact = int_ok || op == ops::UnaryOp::sqrt;
        // float16 results near 0 are subnormal (6e-8 apart): one unit there is a large relative error.
        EXPECT_TRUE(matches(g, want, tol(d, exact),
                            exact             ? 0
                            : d == DType::f16 ? 1e-7
                                              : 1e-30))
            << "op " << o << ", " << tc::dtype_name(d) << ", layout " << int(l);
      }
    }
  }
  // Edge values: NaN, infinities, signed zeros.
  const Tensor e = tensor({std::nan(""), INFINITY, -INFINITY, 0.0, -0.0, 1e-40, 88.0, -88.0, 20.0}, {9});
  for (DType d : {DType::f32, DType::f64}) {
    for (int o = 0; o < int(ops::UnaryOp::count_); ++o) {
      if (!tc::ew::unary_info(ops::UnaryOp(o)).floats) continue;
      const Tensor a = tc::cast(e, d);
      EXPECT_TRUE(
          matches(ops::unary(ops::UnaryOp(o), gpu(a)), ops::unary(ops::UnaryOp(o), a), tol(d, false), 1e-30))
          << "op " << o << ", " << tc::dtype_name(d);
    }
  }
}

TEST_F(CudaElementwise, ClampAndWhereMatchTheCpu) {
  const double nan = std::nan("");
  for (DType d : kArith) {
    const Tensor a = rand({23, 19}, d, d == DType::u8 ? 0 : -30, 30);
    for (const auto& bounds :
         std::vector<std::pair<double, double>>{{-5, 7}, {nan, 3}, {-2, nan}, {-1e30, 1e30}, {0.5, 2.5}}) {
      // plain copies: a lambda may not capture a structured binding before C++20 (clang 14)
      const double lo = bounds.first, hi = bounds.second;
      for (Layout l : kLayouts) {
        const Tensor g = ops::clamp(on_gpu(a, l), lo, hi);
        const Tensor want =
            cpu_ref([&](const std::vector<Tensor>& x) { return ops::clamp(x[0], lo, hi); }, {a}, g->dtype);
        EXPECT_TRUE(matches(g, want))
            << tc::dtype_name(d) << " [" << lo << ", " << hi << "], layout " << int(l);
      }
    }
  }
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i64, DType::u8, DType::b8}) {
    const Tensor cond =
        ops::binary(ops::BinaryOp::gt, rand({4, 1, 6}, DType::f32, -1, 1), tensor({0}, {}, DType::f32));
    const Tensor a = rand({5, 6}, d, 0, 9), b = rand({6}, d, 0, 9);
    for (Layout l : kLayouts) {
      const Tensor g = ops::where(on_gpu(cond, l), on_gpu(a, l), gpu(b));
      const Tensor want = cpu_ref([&](const std::vector<Tensor>& x) { return ops::where(x[0], x[1], x[2]); },
                                  {cond, a, b}, g->dtype);
      EXPECT_TRUE(matches(g, want)) << tc::dtype_name(d) << ", layout " << int(l);
    }
  }
}

const DType kAll[] = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i8,
                      DType::i16, DType::i32, DType::i64, DType::u8,   DType::b8};

TEST_F(CudaElementwise, CastsBetweenEveryPairOfDtypes) {
  const std::vector<double> v = {std::nan(""), INFINITY, -INFINITY, 0.0,    -0.0,  0.5,     -0.5,    1.5,
                                 2.5,          -129.0,   255.0,     256.0,  300.7, 65504.0, 65520.0, 1e5,
                                 -1e10,        3e9,      1e19,      9.3e18, 1e-8,  1.0 / 3};
  for (DType s : kAll) {
    const Tensor src = tensor(v, {2, 11}, s);
    for (DType d : kAll) {
      for (Layout l : kLayouts) {
        const Tensor g = tc::cast(on_gpu(src, l), d);
        EXPECT_TRUE(matches(g, tc::cast(src, d)))
            << tc::dtype_name(s) << " -> " << tc::dtype_name(d) << ", layout " << int(l);
      }
    }
  }
}

TEST_F(CudaElementwise, BoolBytesAreNormalizedByConvertingCopies) {
  Tensor b = tensor({0, 1, 1, 0}, {4}, DType::b8);
  b->data_as<unsigned char>()[1] = 2;  // borrowed data broke the 0/1 promise
  const Tensor g = gpu(b);             // bytes as they are
  EXPECT_TRUE(matches(tc::cast(g, DType::i32), tensor({0, 1, 1, 0}, {4}, DType::i32)));
  // A strided bool -> bool copy writes 0/1.
  Tensor dst = tc::zeros({8}, DType::b8, kCuda);
  tc::copy_into(tc::make_view(dst, {4}, {2}, 0), g);
  const Tensor back = host(dst);
  EXPECT_EQ(back->data_as<unsigned char>()[2], 1);
}

TEST_F(CudaElementwise, ContiguousCloneAndToDtypeOfViews) {
  const Tensor a = rand({6, 7, 5}, DType::f32, -9, 9);
  const Tensor g = gpu(a);
  const Tensor t = ops::transpose(g, 0, 2);
  const Tensor c = ops::contiguous(t);
  EXPECT_TRUE(c->is_contiguous());
  EXPECT_TRUE(matches(c, tc::contiguous(ops::transpose(a, 0, 2))));
  const Tensor e = ops::expand(ops::slice(g, 1, 1, 7, 3), {4, 6, 2, 5});
  EXPECT_TRUE(matches(ops::clone(e), tc::contiguous(ops::expand(ops::slice(a, 1, 1, 7, 3), {4, 6, 2, 5}))));
  for (DType d : kAll) {
    EXPECT_TRUE(matches(ops::to_dtype(t, d), tc::cast(tc::contiguous(ops::transpose(a, 0, 2)), d)))
        << tc::dtype_name(d);
  }
  // Views back to the host, and between layouts on the device.
  EXPECT_TRUE(matches(gpu(host(t)), tc::contiguous(ops::transpose(a, 0, 2))));
  Tensor dst = tc::empty({5, 7, 6}, DType::f64, kCuda);
  Tensor dst_t = ops::transpose(dst, 0, 2);  // non-contiguous destination
  tc::copy_into(dst_t, g);                   // f32 -> f64 scatter on the device
  EXPECT_TRUE(matches(ops::contiguous(dst_t), tc::cast(a, DType::f64)));
}

TEST_F(CudaElementwise, InPlaceOpsOnContiguousAndStridedSelf) {
  tc::NoGradGuard ng;
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::i32}) {
    for (int o = 0; o < 4; ++o) {
      if (o == 3 && !tc::is_floating(d)) continue;  // int /= int cannot write an int
      const Tensor base = rand({8, 6}, d, 1, 9), other = rand({6}, d, 1, 9);
      for (bool strided : {false, true}) {
        // self: the whole [8, 6] or a [6, 4] transposed slice of it (the rest must stay).
        const Tensor g = gpu(base);
        const Tensor self_g = strided ? ops::transpose(ops::slice(g, 1, 0, 4, 1), 0, 1) : g;
        Tensor want = is16(d) ? tc::cast(base, DType::f32) : tc::clone_data(base);
        const Tensor self_c = strided ? ops::transpose(ops::slice(want, 1, 0, 4, 1), 0, 1) : want;
        const Tensor oth = strided ? tc::cast(rand({8}, d, 1, 9), d) : other;
        const Tensor oth_c = is16(d) ? tc::cast(oth, DType::f32) : oth;
        const int64_t v0 = self_g->version();
        switch (o) {
          case 0:
            ops::add_(self_g, gpu(oth));
            ops::add_(self_c, oth_c);
            break;
          case 1:
            ops::sub_(self_g, gpu(oth));
            ops::sub_(self_c, oth_c);
            break;
          case 2:
            ops::mul_(self_g, gpu(oth));
            ops::mul_(self_c, oth_c);
            break;
          default:
            ops::div_(self_g, gpu(oth));
            ops::div_(self_c, oth_c);
        }
        EXPECT_EQ(self_g->version(), v0 + 1);
        EXPECT_TRUE(matches(g, tc::cast(want, d)))
            << "op " << o << ", " << tc::dtype_name(d) << ", strided " << strided;
      }
    }
  }
}

TEST_F(CudaElementwise, FillZeroAndCopyIntoStridedDestinations) {
  tc::NoGradGuard ng;
  for (DType d : kAll) {
    const Tensor base = rand({5, 8}, d, 0, 9);
    const Tensor g = gpu(base);
    const Tensor want = tc::clone_data(base);
    ops::fill_(ops::slice(g, 1, 1, 8, 2), 2.5);  // columns 1, 3, 5, 7
    ops::fill_(ops::slice(want, 1, 1, 8, 2), 2.5);
    EXPECT_TRUE(matches(g, want)) << "fill_ " << tc::dtype_name(d);
    ops::zero_(ops::transpose(ops::slice(g, 0, 0, 2, 1), 0, 1));  // rows 0, 1 through a transposed view
    ops::zero_(ops::transpose(ops::slice(want, 0, 0, 2, 1), 0, 1));
    EXPECT_TRUE(matches(g, want)) << "zero_ " << tc::dtype_name(d);
    ops::fill_(g, -1);  // contiguous: one fill kernel
    ops::fill_(want, -1);
    EXPECT_TRUE(matches(g, want)) << "fill_ contiguous " << tc::dtype_name(d);
    // copy_: a host row broadcast into a strided device view, then a device view into another.
    const Tensor row = rand({4}, DType::f64, 0, 9);
    ops::copy_(ops::slice(g, 1, 0, 8, 2), row);
    ops::copy_(ops::slice(want, 1, 0, 8, 2), row);
    EXPECT_TRUE(matches(g, want)) << "copy_ from host " << tc::dtype_name(d);
    ops::copy_(ops::slice(g, 1, 1, 8, 2), ops::slice(gpu(tc::cast(want, DType::f32)), 1, 0, 8, 2));
    ops::copy_(ops::slice(want, 1, 1, 8, 2), ops::slice(tc::cast(want, DType::f32), 1, 0, 8, 2));
    EXPECT_TRUE(matches(g, want)) << "copy_ on device " << tc::dtype_name(d);
  }
}

// ---- backward ----

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

// Runs f forward and backward (with a fixed random output gradient) on the CPU
// and on the GPU from the same leaf values, and compares outputs and grads.
void expect_backward_matches(const Fn& f, const std::vector<Tensor>& leaves, double rtol,
                             const std::string& what) {
  std::vector<Tensor> cpu_leaves, gpu_leaves;
  for (const Tensor& t : leaves) {
    cpu_leaves.push_back(tc::clone_data(t));
    gpu_leaves.push_back(gpu(t));
    cpu_leaves.back()->requires_grad = gpu_leaves.back()->requires_grad = tc::is_floating(t->dtype);
  }
  const Tensor out_c = f(cpu_leaves), out_g = f(gpu_leaves);
  ASSERT_TRUE(out_g->requires_grad) << what;
  EXPECT_TRUE(matches(out_g, out_c, rtol, 1e-6)) << what << " (forward)";
  const Tensor w = tc::cast(randn(out_c->shape), out_c->dtype);
  tc::autograd::backward(out_c, w, false);
  tc::autograd::backward(out_g, gpu(w), false);
  for (size_t k = 0; k < leaves.size(); ++k) {
    if (!cpu_leaves[k]->requires_grad) continue;
    ASSERT_TRUE(gpu_leaves[k]->grad()) << what << ": input " << k << " got no gradient";
    EXPECT_TRUE(matches(gpu_leaves[k]->grad(), cpu_leaves[k]->grad(), rtol, 1e-6))
        << what << ": grad of input " << k;
  }
}

TEST_F(CudaElementwise, BackwardOfEveryOpMatchesTheCpu) {
  using ops::BinaryOp;
  for (DType d : {DType::f32, DType::f64}) {
    const double rtol = d == DType::f64 ? 1e-12 : 1e-5;
    const Tensor a = rand({9, 13}, d, 0.2, 2), b = rand({9, 13}, d, -2, 2);
    for (int o = 0; o < ops::kArithmeticBinaryOps; ++o) {
      if (!tc::ew::binary_differentiable(BinaryOp(o))) continue;
      const Tensor bb = o == int(BinaryOp::maximum) || o == int(BinaryOp::minimum)
                            ? ops::where(ops::binary(BinaryOp::gt, b, tensor({0}, {}, d)), a, b)  // ties
                            : b;
      expect_backward_matches(
          [o](const std::vector<Tensor>& x) { return ops::binary(BinaryOp(o), x[0], x[1]); }, {a, bb}, rtol,
          str("binary op ", o, " ", tc::dtype_name(d)));
    }
    for (int o = 0; o < int(ops::ScalarOp::count_); ++o) {
      for (double s : {2.0, 0.5, -1.5}) {
        expect_backward_matches(
            [o, s](const std::vector<Tensor>& x) { return ops::binary_scalar(ops::ScalarOp(o), x[0], s); },
            {a}, rtol, str("scalar op ", o, " s ", s, " ", tc::dtype_name(d)));
      }
    }
    for (int o = 0; o < int(ops::UnaryOp::count_); ++o) {
      if (!tc::ew::unary_differentiable(ops::UnaryOp(o))) continue;
      expect_backward_matches([o](const std::vector<Tensor>& x) { return ops::unary(ops::UnaryOp(o), x[0]); },
                              {unary_sample(ops::UnaryOp(o), {9, 13}, d)}, rtol,
                              str("unary op ", o, " ", tc::dtype_name(d)));
    }
    expect_backward_matches([](const std::vector<Tensor>& x) { return ops::clamp(x[0], -0.5, std::nan("")); },
                            {b}, rtol, "clamp");
    expect_backward_matches([](const std::vector<Tensor>& x) { return ops::clamp(x[0], -0.5, 1.0); }, {b},
                            rtol, "clamp");
    const Tensor cond = ops::binary(BinaryOp::gt, b, tensor({0}, {}, d));
    expect_backward_matches([](const std::vector<Tensor>& x) { return ops::where(x[2], x[0], x[1]); },
                            {a, b, cond}, rtol, "where");
    // Strided inputs: a transposed leaf.
    expect_backward_matches(
        [](const std::vector<Tensor>& x) {
          return ops::mul(ops::transpose(x[0], 0, 1), ops::unary(ops::UnaryOp::tanh, x[1]));
        },
        {a, rand({13, 9}, d, -1, 1)}, rtol, "transposed");
  }
}

TEST_F(CudaElementwise, BackwardInSixteenBitFloats) {
  for (DType d : {DType::f16, DType::bf16}) {
    const Tensor a = rand({17, 8}, d, 0.2, 2), b = rand({17, 8}, d, -2, 2);
    std::vector<Tensor> leaves = {gpu(a), gpu(b)};
    for (Tensor& t : leaves) t->requires_grad = true;
    const Tensor out = ops::mul(ops::unary(ops::UnaryOp::sigmoid, leaves[0]),
                                ops::binary_scalar(ops::ScalarOp::pow, leaves[1], 2));
    EXPECT_EQ(out->dtype, d);
    tc::autograd::backward(out, tc::ones(out->shape, d, kCuda), false);
    // The CPU in float32 from the same values.
    std::vector<Tensor> c = {tc::cast(a, DType::f32), tc::cast(b, DType::f32)};
    for (Tensor& t : c) t->requires_grad = true;
    const Tensor oc =
        ops::mul(ops::unary(ops::UnaryOp::sigmoid, c[0]), ops::binary_scalar(ops::ScalarOp::pow, c[1], 2));
    tc::autograd::backward(oc, tc::ones(oc->shape, DType::f32), false);
    const double rtol = d == DType::f16 ? 1e-2 : 5e-2;
    for (int k = 0; k < 2; ++k) {
      ASSERT_TRUE(leaves[size_t(k)]->grad());
      EXPECT_EQ(leaves[size_t(k)]->grad()->dtype, d);
      EXPECT_TRUE(matches(tc::cast(leaves[size_t(k)]->grad(), DType::f32), c[size_t(k)]->grad(), rtol, 1e-2))
          << tc::dtype_name(d) << " input " << k;
    }
  }
}

TEST_F(CudaElementwise, BackwardThroughBroadcastSumsOnTheGpu) {
  // Needs the CUDA sum of autograd::reduce_to_shape.
  const Tensor a = rand({6, 1, 5}, DType::f32, -2, 2), b = rand({4, 5}, DType::f32, 0.5, 2);
  expect_backward_matches([](const std::vector<Tensor>& x) { return ops::div(x[0], x[1]); }, {a, b}, 1e-5,
                          "broadcast div");
}

TEST_F(CudaElementwise, ErrorsAsOnTheCpu) {
  const Tensor h = tensor({1, 2}, {2}, DType::f16);
  EXPECT_EQ(code_of([&] { ops::add(h, h); }), TC_ERR_DTYPE);  // the CPU keeps rejecting float16 math
  EXPECT_EQ(code_of([&] { ops::add(gpu(h), gpu(h)); }), TC_OK);
  const Tensor f = tensor({1, 2}, {2}, DType::f32);
  EXPECT_EQ(code_of([&] { ops::add(f, gpu(f)); }), TC_ERR_DEVICE);
  const Tensor b = tensor({1, 0}, {2}, DType::b8);
  EXPECT_EQ(code_of([&] { ops::add(gpu(b), gpu(b)); }), TC_ERR_DTYPE);
  EXPECT_EQ(code_of([&] { ops::unary(ops::UnaryOp::bitwise_not, gpu(f)); }), TC_ERR_DTYPE);
  // Integer inputs to floating ops promote, as on the CPU.
  EXPECT_EQ(ops::unary(ops::UnaryOp::exp, gpu(tensor({1}, {1}, DType::i32)))->dtype, DType::f32);
  EXPECT_EQ(code_of([&] { ops::add(gpu(f), gpu(tensor({1, 2, 3}, {3}, DType::f32))); }), TC_ERR_SHAPE);
  EXPECT_EQ(code_of([&] {
              tc::NoGradGuard ng;
              ops::add_(gpu(tensor({1, 2}, {2}, DType::i32)), gpu(f));
            }),
            TC_ERR_DTYPE);
  // Through the C ABI: a status, and the message names the op.
  tc_tensor x = nullptr, y = nullptr, z = nullptr;
  const int64_t shape[1] = {3};
  ASSERT_TRUE(ok(tc_ones(shape, 1, TC_FLOAT16, kCuda, &x)));
  ASSERT_TRUE(ok(tc_ones(shape, 1, TC_FLOAT32, TC_CPU, &y)));
  EXPECT_EQ(tc_add(x, y, &z), TC_ERR_DEVICE);
  EXPECT_EQ(z, nullptr);
  EXPECT_NE(last_error().find("add"), std::string::npos);
  ASSERT_TRUE(ok(tc_mul(x, x, &z)));
  tc_tensor_free(z);
  tc_tensor_free(y);
  tc_tensor_free(x);
}

}  // namespace
