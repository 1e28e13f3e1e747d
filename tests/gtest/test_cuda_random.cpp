// The generator and the optimizers on CUDA. On the CPU (always): Philox4x32-10
// of src/math/philox.h against the Random123 known-answer vectors, and the CPU
// generator against the shared sample mapping the CUDA kernel also uses. With
// a GPU: rand/randn/bernoulli on CUDA equal the CPU's for the same seed, and
// SGD/Adam/AdamW steps on CUDA parameters equal the CPU's bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/tensor.h"
#include "gradcheck.h"
#include "math/philox.h"
#include "ops/optim.h"
#include "tc.h"

using tc::DType;
using tc::Tensor;

namespace {

const int32_t kCuda0 = TC_DEVICE(TC_DEVICE_CUDA, 0);

using tc_test::last_error;

// Skips unless the cuda stage runs (no GPU, no driver, CPU-only build).
class CudaRandom : public tc_test::CudaTest {};

// The raw bytes of t, any device.
std::vector<unsigned char> bytes_of(const Tensor& t) {
  Tensor c = tc::contiguous(tc::to_device(t, tc::kCPU));
  const auto* p = static_cast<const unsigned char*>(c->data());
  return std::vector<unsigned char>(p, p + c->numel() * c->itemsize());
}

std::vector<double> values_of(const Tensor& t) { return tc_test::values(tc::to_device(t, tc::kCPU)); }

}  // namespace

// ---- CPU: the shared Philox header ----

TEST(Philox, RandomKnownAnswerVectors) {
  // Random123's kat_vectors, "philox4x32 10": counter[4] key[2] -> output[4].
  struct Kat {
    uint32_t ctr[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    uint32_t out[4];
    tc::philox4x32_10(k.ctr, k.key, out);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(out[i], k.out[i]) << "word " << i << " of ctr " << std::hex << k.ctr[0];
  }
  // libtc's form: key = seed, counter = (counter, 0, 0) with the 64-bit
  // counter split low word first.
  const uint32_t ctr[4] = {0x03707344u, 0x13198a2eu, 0, 0}, key[2] = {0x299f31d0u, 0xa4093822u};
  uint32_t full[4], mine[4];
  tc::philox4x32_10(ctr, key, full);
  tc::philox4x32(0xa4093822299f31d0ull, 0x13198a2e03707344ull, mine);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(full[i], mine[i]);
}

TEST(Philox, CpuGeneratorFollowsTheSharedMapping) {
  // tc_rand/tc_randn on the CPU are exactly philox_samples over consecutive
  // counters from 0 after tc_manual_seed: the stream the CUDA kernel makes.
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const uint64_t seed = 0x1234abcdULL;
  for (DType dt : {DType::f32, DType::f64}) {
    for (tc::RandDist dist : {tc::RandDist::uniform, tc::RandDist::normal, tc::RandDist::bernoulli}) {
      tc::rng_manual_seed(seed);
      Tensor t = tc::empty({11}, dt);
      if (dist == tc::RandDist::uniform) tc::fill_uniform(t, -2.0, 3.0);
      if (dist == tc::RandDist::normal) tc::fill_normal(t, 0.5, 2.0);
      if (dist == tc::RandDist::bernoulli) tc::fill_bernoulli(t, 0.3);
      const double a = dist == tc::RandDist::uniform ? -2.0 : dist == tc::RandDist::normal ? 0.5 : 0.3;
      const double b = dist == tc::RandDist::uniform ? 3.0 : dist == tc::RandDist::normal ? 2.0 : 0.0;
      const std::vector<double> got = tc_test::values(t);
      const int per = dt == DType::f32 ? 4 : 2;
      for (int i = 0; i < 11; ++i) {
        double want;
        if (dt == DType::f32) {
          float v[4];
          tc::philox_samples<float>(seed, uint64_t(i / per), dist, a, b, v);
          want = v[i % per];
        } else {
          double v[4];
          tc::philox_samples<double>(seed, uint64_t(i / per), dist, a, b, v);
          want = v[i % per];
        }
        EXPECT_EQ(got[size_t(i)], want) << tc::dtype_name(dt) << " dist " << int(dist) << " element " << i;
      }
      // The next request starts after the counters this one reserved.
      const uint64_t calls = (11 + uint64_t(per) - 1) / uint64_t(per);
      EXPECT_EQ(tc::rng_reserve(1).offset, calls);
    }
  }
  ASSERT_EQ(tc_shutdown(), TC_OK);
}

// ---- CUDA: the generator ----

TEST_F(CudaRandom, RandAndRandnEqualTheCpuForOneSeed) {
  for (int32_t dtype : {TC_FLOAT32, TC_FLOAT64, TC_FLOAT16, TC_BFLOAT16}) {
    for (int64_t n : {int64_t(1), int64_t(7), int64_t(1003), int64_t((1 << 20) + 3)}) {
      for (bool normal : {false, true}) {
        tc_tensor cpu = nullptr, gpu = nullptr;
        const auto make = normal ? tc_randn : tc_rand;
        ASSERT_EQ(tc_manual_seed(77), TC_OK);
        ASSERT_EQ(make(&n, 1, dtype, TC_CPU, &cpu), TC_OK);
        ASSERT_EQ(tc_manual_seed(77), TC_OK);
        ASSERT_EQ(make(&n, 1, dtype, kCuda0, &gpu), TC_OK) << last_error();
        std::vector<double> c(static_cast<size_t>(n)), g(static_cast<size_t>(n));
        tc_tensor c64 = nullptr, g64 = nullptr, g_host = nullptr;
        ASSERT_EQ(tc_to_dtype(cpu, TC_FLOAT64, &c64), TC_OK);
        ASSERT_EQ(tc_to_device(gpu, TC_CPU, &g_host), TC_OK) << last_error();
        ASSERT_EQ(tc_to_dtype(g_host, TC_FLOAT64, &g64), TC_OK);
        ASSERT_EQ(tc_tensor_copy_to(c64, c.data(), n * 8), TC_OK);
        ASSERT_EQ(tc_tensor_copy_to(g64, g.data(), n * 8), TC_OK);
        int64_t differ = 0;
        for (size_t i = 0; i < size_t(n); ++i) {
          if (c[i] == g[i]) continue;
          ++differ;
          // Only normal samples may differ, by the device's libm rounding:
          // an ulp of the double, rarely visible after rounding to the dtype.
          ASSERT_TRUE(normal) << "uniform sample " << i << " differs: " << c[i] << " vs " << g[i];
          const double tol = dtype == TC_FLOAT64 ? 1e-14 : dtype == TC_FLOAT32 ? 2.4e-7 : 1e-2;
          ASSERT_LE(std::fabs(c[i] - g[i]), tol * std::fmax(1.0, std::fabs(c[i]))) << "sample " << i;
        }
        if (dtype != TC_FLOAT64) {
          EXPECT_LE(differ, n / 10000) << "dtype " << dtype << " n " << n;
        }
        for (tc_tensor t : {cpu, gpu, c64, g64, g_host}) tc_tensor_free(t);
      }
    }
  }
}

TEST_F(CudaRandom, CountersContinueAcrossDevices) {
  // A CUDA request reserves exactly the counters a CPU one would: what
  // follows it on the CPU is the same either way.
  const int64_t n = 1001;
  tc_tensor a1 = nullptr, a2 = nullptr, b1 = nullptr, b2 = nullptr;
  ASSERT_EQ(tc_manual_seed(5), TC_OK);
  ASSERT_EQ(tc_rand(&n, 1, TC_FLOAT32, TC_CPU, &a1), TC_OK);
  ASSERT_EQ(tc_randn(&n, 1, TC_FLOAT64, TC_CPU, &a2), TC_OK);
  ASSERT_EQ(tc_manual_seed(5), TC_OK);
  ASSERT_EQ(tc_rand(&n, 1, TC_FLOAT32, kCuda0, &b1), TC_OK) << last_error();
  ASSERT_EQ(tc_randn(&n, 1, TC_FLOAT64, TC_CPU, &b2), TC_OK);
  std::vector<double> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  ASSERT_EQ(tc_tensor_copy_to(a2, x.data(), n * 8), TC_OK);
  ASSERT_EQ(tc_tensor_copy_to(b2, y.data(), n * 8), TC_OK);
  EXPECT_EQ(x, y);
  for (tc_tensor t : {a1, a2, b1, b2}) tc_tensor_free(t);
}

TEST_F(CudaRandom, BernoulliAndUniformRangeEqualTheCpu) {
  for (DType dt : {DType::f32, DType::f16, DType::bf16, DType::f64}) {
    Tensor c = tc::empty({33, 17}, dt), g = tc::empty({33, 17}, dt, kCuda0);
    tc::rng_manual_seed(9);
    tc::fill_bernoulli(c, 0.25);
    tc::rng_manual_seed(9);
    tc::fill_bernoulli(g, 0.25);
    EXPECT_EQ(bytes_of(c), bytes_of(g)) << tc::dtype_name(dt);
    tc::rng_manual_seed(10);
    tc::fill_uniform(c, -3.0, 0.5);
    tc::rng_manual_seed(10);
    tc::fill_uniform(g, -3.0, 0.5);
    EXPECT_EQ(bytes_of(c), bytes_of(g)) << tc::dtype_name(dt);
    for (double v : values_of(g)) ASSERT_TRUE(v >= -3.0 && v < 0.5) << v;
  }
}

// ---- CUDA: the optimizers ----

namespace {

struct Pair {
  Tensor cpu, gpu;
};

// A float32 [37, 5] and a float64 [129] parameter, the same on both devices.
std::vector<Pair> make_params() {
  std::vector<Pair> ps;
  for (auto [shape, dt] : {std::pair<tc::Dims, DType>{{37, 5}, DType::f32}, {{129}, DType::f64}}) {
    Tensor c = tc::empty(shape, dt);
    tc::fill_normal(c, 0.0, 1.0);
    Tensor g = tc::to_device(c, kCuda0);
    c->requires_grad = true;
    g->requires_grad = true;
    ps.push_back({c, g});
  }
  return ps;
}

void set_grads(std::vector<Pair>& ps) {
  for (Pair& p : ps) {
    Tensor gr = tc::empty(p.cpu->shape, p.cpu->dtype);
    tc::fill_normal(gr, 0.1, 0.7);
    p.cpu->set_grad(gr);
    p.gpu->set_grad(tc::to_device(gr, kCuda0));
  }
}

template <typename Make>
void expect_same_steps(const char* what, Make make) {
  std::vector<Pair> ps = make_params();
  std::vector<Tensor> cpu_params, gpu_params;
  for (Pair& p : ps) {
    cpu_params.push_back(p.cpu);
    gpu_params.push_back(p.gpu);
  }
  auto cpu_opt = make(cpu_params);
  auto gpu_opt = make(gpu_params);
  for (int step = 0; step < 4; ++step) {
    set_grads(ps);
    cpu_opt->step();
    gpu_opt->step();
    for (size_t i = 0; i < ps.size(); ++i)
      ASSERT_EQ(bytes_of(ps[i].cpu), bytes_of(ps[i].gpu))
          << what << ": parameter " << i << " after step " << step;
  }
}

}  // namespace

TEST_F(CudaRandom, SgdStepsEqualTheCpu) {
  using tc::optim::make_sgd;
  expect_same_steps("sgd", [](std::vector<Tensor> p) { return make_sgd(p, {0.1, 0, 0, 0, false}); });
  expect_same_steps("sgd wd", [](std::vector<Tensor> p) { return make_sgd(p, {0.05, 0, 0, 0.01, false}); });
  expect_same_steps("sgd momentum", [](std::vector<Tensor> p) {
    return make_sgd(p, {0.1, 0.9, 0.1, 0.001, false});
  });
  expect_same_steps("sgd nesterov", [](std::vector<Tensor> p) {
    return make_sgd(p, {0.1, 0.9, 0, 0.01, true});
  });
}

TEST_F(CudaRandom, AdamAndAdamWStepsEqualTheCpu) {
  using tc::optim::make_adam;
  expect_same_steps("adam", [](std::vector<Tensor> p) {
    return make_adam(p, {1e-3, 0.9, 0.999, 1e-8, 0, false});
  });
  expect_same_steps("adam wd", [](std::vector<Tensor> p) {
    return make_adam(p, {1e-2, 0.8, 0.99, 1e-6, 0.1, false});
  });
  expect_same_steps("adamw", [](std::vector<Tensor> p) {
    return make_adam(p, {1e-2, 0.9, 0.999, 1e-8, 0.05, true});
  });
}

TEST_F(CudaRandom, OptimizerRejectsAGradOnAnotherDevice) {
  Tensor p = tc::zeros({4}, DType::f32, kCuda0);
  p->requires_grad = true;
  auto opt = tc::optim::make_sgd({p}, {0.1, 0, 0, 0, false});
  p->grad() = tc::ones({4}, DType::f32);  // on the CPU
  try {
    opt->step();
    ADD_FAILURE() << "a CPU grad for a CUDA parameter was accepted";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_DEVICE) << e.what();
  }
}
