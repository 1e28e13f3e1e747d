// The CPU loops that split work through cpu::parallel_for (random fills,
// randint, linspace/logspace, strided copies, RMSprop/Adagrad steps, softmax
// and cross-entropy rows, linear's bias-gradient column sums, float64 GEMM
// rows) give the same bits at 1 and 2 threads, above and below the size
// where they go parallel: each element (or row, or column) is computed by
// one thread from its index alone. A split that skipped or overlapped a
// range would differ from the 1-thread result, which is one call over the
// whole range.
#include <cstring>
#include <functional>
#include <new>
#include <string>

#include "autograd/node.h"
#include "backend/backend.h"
#include "core/rng.h"
#include "cpu/kernels.h"
#include "cpu/loops.h"
#include "gradcheck.h"
#include "math/optim_math.h"
#include "math/rows/binary_add.h"
#include "math/rows/binary_mul.h"
#include "math/rows/compare_gt.h"
#include "ops/ops.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

namespace {

class ParallelSites : public TcTest {};

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor ca = tc::contiguous(a), cb = tc::contiguous(b);
  return ca->dtype == cb->dtype && ca->shape == cb->shape &&
         std::memcmp(ca->data(), cb->data(), size_t(ca->numel() * ca->itemsize())) == 0;
}

// f() at 1 thread and at 2 threads (each call from the same generator
// state), compared bit for bit.
void expect_thread_independent(const char* what, const std::function<std::vector<Tensor>()>& f) {
  const tc::PhiloxState st = tc::rng_get_state();
  tc::set_num_threads(1);
  const std::vector<Tensor> one = f();
  tc::rng_set_state(st);
  tc::set_num_threads(2);
  const std::vector<Tensor> two = f();
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(same_bits(one[i], two[i])) << what << ", result " << i;
}

// Sizes below, at and well above the parallel grain (odd, so the last
// thread's range is short and a float Philox call is partly used).
const int64_t kSizes[] = {1001, 65537, 300001};

}  // namespace

TEST_F(ParallelSites, RandomFillsAndRandint) {
  for (int64_t n : kSizes) {
    for (DType dt : {DType::f32, DType::f64}) {
      expect_thread_independent("uniform/normal", [&] {
        return std::vector<Tensor>{uniform({n}, -1, 1, dt), randn({n}, dt)};
      });
    }
    expect_thread_independent(
        "randint", [&] { return std::vector<Tensor>{ops::randint(-5, 1000, {n}, DType::i64, tc::kCPU)}; });
  }
  // Not a constant: the fill really draws (guards the test itself).
  Tensor u = uniform({300001}, 0, 1, DType::f32);
  EXPECT_NE(tc::read_element(u, 0), tc::read_element(u, 299999));
}

TEST_F(ParallelSites, LinspaceAndLogspace) {
  for (int64_t n : kSizes) {
    expect_thread_independent("linspace/logspace", [&] {
      return std::vector<Tensor>{ops::linspace(-3.0, 7.5, n, DType::f64, tc::kCPU),
                                 ops::logspace(-2.0, 2.0, n, 10.0, DType::f32, tc::kCPU)};
    });
  }
  // The ends are exact (the values come from both ends toward the middle).
  Tensor l = ops::linspace(-3.0, 7.5, 300001, DType::f64, tc::kCPU);
  EXPECT_EQ(tc::read_element(l, 0), -3.0);
  EXPECT_EQ(tc::read_element(l, 300000), 7.5);
}

TEST_F(ParallelSites, StridedCopies) {
  for (int64_t rows : {int64_t(7), int64_t(513), int64_t(3001)}) {
    Tensor a = randn({rows, 257}, DType::f32);
    expect_thread_independent("strided copy", [&] {
      // A transposed view made contiguous, and a float -> double cast of it.
      Tensor t = ops::transpose(a, 0, 1);
      return std::vector<Tensor>{tc::contiguous(t), tc::cast(t, DType::f64)};
    });
    Tensor c = tc::contiguous(ops::transpose(a, 0, 1));
    for (int64_t i : {int64_t(0), rows - 1, rows / 2})
      EXPECT_EQ(tc::read_element(c, 5 * rows + i), tc::read_element(a, i * 257 + 5));
  }
}

TEST_F(ParallelSites, RmspropAndAdagradSteps) {
  for (int64_t n : kSizes) {
    for (DType dt : {DType::f32, DType::f64}) {
      Tensor w0 = randn({n}, dt), g = randn({n}, dt), s0 = uniform({n}, 0, 1, dt);
      expect_thread_independent("rmsprop/adagrad", [&] {
        Tensor w = ops::clone(w0), sq = ops::clone(s0), gavg = tc::zeros({n}, dt), buf = tc::zeros({n}, dt);
        tc::optim::RmspropStep rs{0.01, 0.99, 1e-8, 0.1, 0.9};
        tc::backend_for(w).rmsprop_step(w, g, sq, gavg, buf, rs);
        Tensor w2 = ops::clone(w0), sum = ops::clone(s0);
        tc::optim::AdagradStep as{0.01, 1e-10, 0.0};
        tc::backend_for(w2).adagrad_step(w2, g, sum, as);
        return std::vector<Tensor>{w, sq, gavg, buf, w2, sum};
      });
    }
  }
}

TEST_F(ParallelSites, SoftmaxAndCrossEntropyRows) {
  for (int64_t rows : {int64_t(31), int64_t(3001), int64_t(9001)}) {
    for (DType dt : {DType::f32, DType::f64}) {
      Tensor x0 = randn({rows, 37}, dt);
      Tensor target = ops::randint(0, 37, {rows}, DType::i64, tc::kCPU);
      expect_thread_independent("softmax/cross_entropy", [&] {
        Tensor x = ops::clone(x0);
        x->requires_grad = true;
        Tensor s = ops::softmax(x, 1), ls = ops::log_softmax(x, 1);
        Tensor loss = ops::cross_entropy(x, target, TC_REDUCTION_MEAN);
        // d/dx of sum(softmax * w) + sum(log_softmax * w) + loss: all three backward kernels.
        Tensor w = ops::linspace(-1.0, 1.0, rows * 37, dt, tc::kCPU);
        Tensor wv = tc::make_view(w, {rows, 37}, {37, 1}, 0);
        const auto mul = [](const Tensor& a, const Tensor& b) { return ops::binary(ops::row::mul, a, b); };
        const auto add = [](const Tensor& a, const Tensor& b) { return ops::binary(ops::row::add, a, b); };
        Tensor total = add(add(ops::sum(mul(s, wv), {}, false), ops::sum(mul(ls, wv), {}, false)), loss);
        tc::autograd::backward(total, Tensor(), false);
        Tensor gx = x->grad();
        x->set_grad(Tensor());
        return std::vector<Tensor>{s, ls, loss, gx};
      });
    }
  }
}

TEST_F(ParallelSites, LinearBiasGradientColumnSums) {
  for (int64_t rows : {int64_t(64), int64_t(1024), int64_t(4099)}) {
    for (DType dt : {DType::f32, DType::f64}) {
      Tensor x0 = randn({rows, 33}, dt), w = randn({300, 33}, dt), b0 = randn({300}, dt);
      expect_thread_independent("linear bias gradient", [&] {
        Tensor b = ops::clone(b0);
        b->requires_grad = true;
        Tensor y = ops::linear(x0, w, b);
        Tensor total = ops::sum(ops::binary(ops::row::mul, y, y), {}, false);
        tc::autograd::backward(total, Tensor(), false);
        Tensor gb = b->grad();
        b->set_grad(Tensor());
        return std::vector<Tensor>{gb};
      });
    }
  }
}

TEST_F(ParallelSites, Float64GemmRows) {
  for (int64_t m : {int64_t(3), int64_t(301), int64_t(2001)}) {
    Tensor a = randn({m, 57}), b = randn({203, 57});
    expect_thread_independent("float64 gemm", [&] {
      // b transposed: the packed-B path reading a strided operand.
      return std::vector<Tensor>{ops::matmul(a, ops::transpose(b, 0, 1))};
    });
  }
}

// Linear's bias-gradient column sums are one of the per-instruction-set
// kernels (src/cpu/kernels.h): every set this CPU runs gives the baseline
// set's bytes, for full 64-column blocks, a short last block, and a strided
// (non-unit column stride) gradient; and the sums are the float64 sums.
TEST_F(ParallelSites, ColumnSumsEqualAcrossKernelSets) {
  const std::string in_use = tc::cpu::kernels().name;
  const tc::cpu::KernelSet* avail[4] = {};
  const int n = tc::cpu::available_kernel_sets(avail, 4);
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor g = randn({1031, 300}, dt);
    Tensor gt = ops::transpose(randn({300, 1031}, dt), 0, 1);  // [1031, 300], column stride 1031
    auto sums = [&] {
      return std::vector<Tensor>{tc::backend_for(g).column_sums(g), tc::backend_for(gt).column_sums(gt)};
    };
    ASSERT_TRUE(tc::cpu::select_kernels("baseline"));
    const std::vector<Tensor> expected = sums();
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE(tc::cpu::select_kernels(avail[i]->name));
      const std::vector<Tensor> got = sums();
      for (size_t k = 0; k < got.size(); ++k)
        EXPECT_TRUE(same_bits(expected[k], got[k])) << avail[i]->name << " result " << k;
    }
    // Against a plain float64 sum over the rows, in order.
    for (int64_t j : {int64_t(0), int64_t(63), int64_t(64), int64_t(299)}) {
      double ref = 0;
      for (int64_t i = 0; i < 1031; ++i) ref += tc::read_element(g, i * 300 + j);
      EXPECT_EQ(tc::read_element(expected[0], j), dt == DType::f32 ? double(float(ref)) : ref) << j;
    }
  }
  tc::cpu::select_kernels(in_use.c_str());
}

// nonzero and count_nonzero (cpu/indexing.cpp) split their input into
// per-thread blocks through cpu::parallel_for: the coordinates come out in
// row-major order and the counts agree at 1 and 2 threads, above and below
// the grain, for float, integer and bool inputs; and they are the counts of
// a plain loop (so a skipped or doubled block would show).
TEST_F(ParallelSites, NonzeroAndCountNonzero) {
  for (int64_t n : kSizes) {
    Tensor u = uniform({n}, -1, 1, DType::f64);
    Tensor sparse = ops::mul(u, ops::compare_scalar(ops::row::gt, u, 0.6));  // ~20% nonzero
    Tensor as_int = tc::cast(ops::mul_scalar(sparse, 10.0), DType::i32);
    Tensor as_bool = tc::cast(sparse, DType::b8);
    for (const Tensor& t : {sparse, as_int, as_bool}) {
      const Tensor t2 = ops::reshape(t, {n, 1});
      expect_thread_independent("nonzero/count_nonzero", [&] {
        return std::vector<Tensor>{ops::nonzero(t2), ops::count_nonzero(t, {})};
      });
      int64_t want = 0;
      for (int64_t i = 0; i < n; ++i) want += tc::read_element(t, i) != 0;
      EXPECT_EQ(tc::read_element(ops::count_nonzero(t, {}), 0), double(want)) << n;
      EXPECT_EQ(ops::nonzero(t)->shape, (tc::Dims{want, 1})) << n;
    }
  }
}

// Adaptive pooling (cpu/adaptive_pool.cpp) splits planes across threads:
// each plane is one thread's, so values, indices and gradients are the same
// bits at 1 and 2 threads, below and above the grain (small planes: many per
// chunk; the global pool of a ResNet head; output larger than the input).
TEST_F(ParallelSites, AdaptivePooling) {
  struct Case {
    tc::Dims shape;
    int64_t out[2];
  };
  const Case cases[] = {
      {{3, 5, 7, 6}, {3, 4}}, {{32, 64, 7, 7}, {1, 1}}, {{8, 16, 56, 56}, {7, 7}}, {{4, 300, 5, 3}, {9, 7}}};
  for (const Case& c : cases)
    for (DType dt : {DType::f32, DType::f64}) {
      expect_thread_independent("adaptive pools", [&] {
        Tensor x = randn(c.shape, dt);
        x->requires_grad = true;
        Tensor a = ops::adaptive_avg_pool2d(x, c.out);
        auto [m, ix] = ops::adaptive_max_pool2d(x, c.out);
        tc::autograd::backward(ops::sum(ops::add(a, m), {}, false), nullptr, false);
        return std::vector<Tensor>{a, m, ix, x->grad()};
      });
    }
}

// An exception thrown in one thread's range (a kernel's scratch allocation
// failing) comes out of parallel_for in the calling thread, after the other
// ranges ran, instead of leaving the OpenMP region (std::terminate).
TEST_F(ParallelSites, AnExceptionInAWorkersRangeReachesTheCaller) {
  tc::set_num_threads(2);
  const int64_t n = 4 * tc::cpu::kParallelGrain;
  std::vector<int> ran(2, 0);
  EXPECT_THROW(tc::cpu::parallel_for(n, tc::cpu::kParallelGrain,
                                     [&](int64_t begin, int64_t) {
                                       ran[begin == 0 ? 0 : 1] = 1;
                                       if (begin != 0) throw std::bad_alloc();
                                     }),
               std::bad_alloc);
  EXPECT_EQ(ran[0] + ran[1], 2);  // both ranges ran: the region was not abandoned
  // And a plain run afterwards still splits and finishes.
  int64_t total = 0;
  tc::cpu::parallel_for(n, tc::cpu::kParallelGrain, [&](int64_t begin, int64_t end) {
#pragma omp atomic
    total += end - begin;
  });
  EXPECT_EQ(total, n);
}
