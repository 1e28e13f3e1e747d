// The CPU kernel sets (src/cpu/kernels.h): the default build compiles the
// elementwise maps, reductions, softmax family, losses and transformer
// primitives for baseline x86-64, AVX2 and AVX-512 and picks one from CPUID. Every set this CPU runs must
// give the same bytes as the baseline set (no FMA contraction, fixed reduction order), forward and backward,
// contiguous, broadcast and strided, optimizer steps and random samples; tc_config names the set in use.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cpu/kernels.h"
#include "tc.h"
#include "tc_binary_ops.h"
#include "tc_scalar_ops.h"
#include "tc_unary_ops.h"

namespace {

struct Init {
  Init() { EXPECT_EQ(tc_init(nullptr), TC_OK); }
  ~Init() { tc_shutdown(); }
};

std::vector<char> bytes_of(tc_tensor t) {
  int64_t n = 0;
  EXPECT_EQ(tc_tensor_numel(t, &n), TC_OK);
  tc_tensor c = nullptr;
  EXPECT_EQ(tc_contiguous(t, &c), TC_OK);
  int32_t dtype = 0;
  EXPECT_EQ(tc_tensor_dtype(c, &dtype), TC_OK);
  std::vector<char> out(size_t(n) * (dtype == TC_FLOAT64 || dtype == TC_INT64 ? 8 : 4));
  EXPECT_EQ(tc_tensor_copy_to(c, out.data(), int64_t(out.size())), TC_OK);
  tc_tensor_free(c);
  return out;
}

// A workload over every kind of kernel: binary (contiguous, broadcast,
// transposed), unary, scalar, clamp, where-like relu, reductions (all, dim 0,
// dim 1), max, backward formulas, SGD and AdamW steps, the generator; its
// results' bytes, in order.
std::vector<std::vector<char>> workload(int32_t dtype) {
  std::vector<std::vector<char>> results;
  EXPECT_EQ(tc_manual_seed(1234), TC_OK);
  const int64_t shape[2] = {67, 1031}, row[2] = {1, 1031};
  tc_tensor a = nullptr, b = nullptr, r = nullptr;
  EXPECT_EQ(tc_randn(shape, 2, dtype, TC_CPU, &a), TC_OK);
  EXPECT_EQ(tc_randn(shape, 2, dtype, TC_CPU, &b), TC_OK);
  EXPECT_EQ(tc_randn(row, 2, dtype, TC_CPU, &r), TC_OK);
  EXPECT_EQ(tc_tensor_set_requires_grad(a, 1), TC_OK);
  tc_tensor bt = nullptr, bt2 = nullptr;
  EXPECT_EQ(tc_transpose(b, 0, 1, &bt), TC_OK);  // a strided view
  EXPECT_EQ(tc_contiguous(bt, &bt2), TC_OK);     // the same values, contiguous
  std::vector<tc_tensor> made;
  auto keep = [&](tc_tensor t) {
    results.push_back(bytes_of(t));
    made.push_back(t);
    return t;
  };
  tc_tensor t = nullptr;
  EXPECT_EQ(tc_add(a, b, &t), TC_OK);
  tc_tensor sum_ab = keep(t);
  EXPECT_EQ(tc_mul(a, r, &t), TC_OK);  // broadcast
  tc_tensor prod = keep(t);
  EXPECT_EQ(tc_mul(bt, bt2, &t), TC_OK);  // strided times contiguous
  keep(t);
  EXPECT_EQ(tc_exp(a, &t), TC_OK);
  tc_tensor e = keep(t);
  EXPECT_EQ(tc_tanh(sum_ab, &t), TC_OK);
  tc_tensor th = keep(t);
  EXPECT_EQ(tc_sigmoid(prod, &t), TC_OK);
  tc_tensor sg = keep(t);
  EXPECT_EQ(tc_relu(bt, &t), TC_OK);
  keep(t);
  EXPECT_EQ(tc_mul_scalar(e, 0.37, &t), TC_OK);
  tc_tensor ms = keep(t);
  EXPECT_EQ(tc_clamp(a, -0.5, 0.75, &t), TC_OK);
  tc_tensor cl = keep(t);
  const int64_t d0[1] = {0}, d1[1] = {1};
  EXPECT_EQ(tc_sum(th, nullptr, 0, 0, &t), TC_OK);
  keep(t);
  EXPECT_EQ(tc_sum(sg, d0, 1, 0, &t), TC_OK);
  keep(t);
  EXPECT_EQ(tc_sum(ms, d1, 1, 1, &t), TC_OK);
  keep(t);
  EXPECT_EQ(tc_max(cl, &t), TC_OK);
  keep(t);
  // Backward through exp, tanh, sigmoid, mul, clamp: the fused formulas.
  tc_tensor l1 = nullptr, l2 = nullptr, l3 = nullptr, loss = nullptr, g = nullptr;
  EXPECT_EQ(tc_add(th, sg, &l1), TC_OK);
  EXPECT_EQ(tc_add(l1, ms, &l2), TC_OK);
  EXPECT_EQ(tc_mul(l2, cl, &l3), TC_OK);
  EXPECT_EQ(tc_sum(l3, nullptr, 0, 0, &loss), TC_OK);
  EXPECT_EQ(tc_backward(loss, nullptr, 0), TC_OK);
  EXPECT_EQ(tc_tensor_grad(a, &g), TC_OK);
  if (g) results.push_back(bytes_of(g));
  // The optimizer steps (SGD with momentum and Nesterov, then AdamW) on a.
  tc_sgd_options so = {};
  so.size = sizeof so;
  so.nesterov = 1;
  so.lr = 0.1;
  so.momentum = 0.9;
  so.weight_decay = 0.01;
  tc_adam_options ao = {};
  ao.size = sizeof ao;
  ao.decoupled_weight_decay = 1;
  ao.lr = 0.01;
  ao.beta1 = 0.9;
  ao.beta2 = 0.999;
  ao.eps = 1e-8;
  ao.weight_decay = 0.01;
  tc_optimizer sgd = nullptr, adam = nullptr;
  EXPECT_EQ(tc_optimizer_sgd(&a, 1, &so, &sgd), TC_OK);
  EXPECT_EQ(tc_optimizer_step(sgd), TC_OK);
  EXPECT_EQ(tc_optimizer_step(sgd), TC_OK);
  results.push_back(bytes_of(a));
  EXPECT_EQ(tc_optimizer_adam(&a, 1, &ao, &adam), TC_OK);
  EXPECT_EQ(tc_optimizer_step(adam), TC_OK);
  EXPECT_EQ(tc_optimizer_step(adam), TC_OK);
  results.push_back(bytes_of(a));
  tc_optimizer_free(sgd);
  tc_optimizer_free(adam);
  // The generator: uniform and normal samples.
  tc_tensor u = nullptr;
  EXPECT_EQ(tc_rand(shape, 2, dtype, TC_CPU, &u), TC_OK);
  keep(u);
  for (tc_tensor x : {l1, l2, l3, loss, g, bt, bt2, a, b, r}) tc_tensor_free(x);
  for (tc_tensor x : made) tc_tensor_free(x);
  return results;
}

// The softmax family, cross-entropy, layer/RMS norm and causal attention,
// forward and backward, cumsum and topk (nn.cpp, transformer.cpp): the
// bytes of the outputs and of the input's gradient, in order.
std::vector<std::vector<char>> nn_workload(int32_t dtype) {
  std::vector<std::vector<char>> results;
  EXPECT_EQ(tc_manual_seed(99), TC_OK);
  const int64_t shape[2] = {37, 515}, qshape[3] = {2, 29, 40};
  tc_tensor x = nullptr, q = nullptr, target = nullptr;
  EXPECT_EQ(tc_randn(shape, 2, dtype, TC_CPU, &x), TC_OK);
  EXPECT_EQ(tc_randn(qshape, 3, dtype, TC_CPU, &q), TC_OK);
  std::vector<int64_t> labels(37);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = int64_t((i * 131) % 515);
  const int64_t n[1] = {37};
  EXPECT_EQ(tc_from_data(labels.data(), int64_t(labels.size() * 8), n, 1, TC_INT64, &target), TC_OK);
  EXPECT_EQ(tc_tensor_set_requires_grad(x, 1), TC_OK);
  EXPECT_EQ(tc_tensor_set_requires_grad(q, 1), TC_OK);
  std::vector<tc_tensor> made;
  auto keep = [&](tc_tensor t) {
    results.push_back(bytes_of(t));
    made.push_back(t);
    return t;
  };
  tc_tensor t = nullptr, t2 = nullptr;
  EXPECT_EQ(tc_softmax(x, 1, &t), TC_OK);
  tc_tensor sm = keep(t);
  EXPECT_EQ(tc_log_softmax(x, 0, &t), TC_OK);
  tc_tensor lsm = keep(t);
  EXPECT_EQ(tc_cross_entropy(x, target, TC_REDUCTION_MEAN, &t), TC_OK);
  tc_tensor ce = keep(t);
  const int64_t last[1] = {515};
  EXPECT_EQ(tc_layer_norm(x, last, 1, nullptr, nullptr, 1e-5, &t), TC_OK);
  tc_tensor ln = keep(t);
  EXPECT_EQ(tc_rms_norm(x, last, 1, nullptr, 1e-6, &t), TC_OK);
  tc_tensor rn = keep(t);
  EXPECT_EQ(tc_scaled_dot_product_attention(q, q, q, nullptr, 0.0, 1, &t), TC_OK);
  tc_tensor at = keep(t);
  EXPECT_EQ(tc_cumsum(x, 1, &t), TC_OK);
  keep(t);
  EXPECT_EQ(tc_topk(x, 5, 1, 1, 1, &t, &t2), TC_OK);
  keep(t);
  keep(t2);
  // One loss over every differentiable result, then the inputs' gradients.
  tc_tensor parts[6] = {sm, lsm, ln, rn, at, ce}, total = nullptr;
  for (tc_tensor part : parts) {
    tc_tensor sq = nullptr, s = nullptr, acc = nullptr;
    EXPECT_EQ(tc_mul(part, part, &sq), TC_OK);
    EXPECT_EQ(tc_sum(sq, nullptr, 0, 0, &s), TC_OK);
    if (total) {
      EXPECT_EQ(tc_add(total, s, &acc), TC_OK);
      tc_tensor_free(total);
      tc_tensor_free(s);
      total = acc;
    } else {
      total = s;
    }
    tc_tensor_free(sq);
  }
  EXPECT_EQ(tc_backward(total, nullptr, 0), TC_OK);
  for (tc_tensor leaf : {x, q}) {
    tc_tensor g = nullptr;
    EXPECT_EQ(tc_tensor_grad(leaf, &g), TC_OK);
    if (g) keep(g);
  }
  for (tc_tensor y : {total, x, q, target}) tc_tensor_free(y);
  for (tc_tensor y : made) tc_tensor_free(y);
  return results;
}

TEST(CpuKernels, TheSetInUseIsNamedAndRunnable) {
  Init init;
  const tc::cpu::KernelSet* avail[4];
  const int n = tc::cpu::available_kernel_sets(avail, 4);
  ASSERT_GE(n, 1);
  EXPECT_STREQ(avail[n - 1]->name, "baseline") << "the baseline set is always there, last";
  const std::string in_use = tc::cpu::kernels().name;
  bool found = false;
  for (int i = 0; i < n; ++i) found = found || in_use == avail[i]->name;
  EXPECT_TRUE(found) << in_use;
  char buf[8192];
  int64_t needed = 0;
  ASSERT_EQ(tc_config(buf, sizeof buf, &needed), TC_OK);
  EXPECT_NE(std::string(buf).find("CPU kernels:  " + in_use), std::string::npos) << buf;
  EXPECT_FALSE(tc::cpu::select_kernels("no-such-set"));
  EXPECT_STREQ(tc::cpu::kernels().name, in_use.c_str()) << "a failed select changes nothing";
}

TEST(CpuKernels, EverySetGivesTheBaselinesBytes) {
  Init init;
  const tc::cpu::KernelSet* avail[4];
  const int n = tc::cpu::available_kernel_sets(avail, 4);
  const std::string in_use = tc::cpu::kernels().name;
  if (n < 2) GTEST_SKIP() << "only the " << avail[0]->name << " set runs here";
  for (int32_t dtype : {TC_FLOAT32, TC_FLOAT64}) {
    ASSERT_TRUE(tc::cpu::select_kernels("baseline"));
    const auto expected = workload(dtype);
    ASSERT_EQ(expected.size(), 17u);
    for (int i = 0; i < n - 1; ++i) {
      ASSERT_TRUE(tc::cpu::select_kernels(avail[i]->name));
      const auto got = workload(dtype);
      ASSERT_EQ(got.size(), expected.size());
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_TRUE(got[k] == expected[k])
            << avail[i]->name << " result " << k << " dtype " << dtype << " differs from the baseline set's";
      }
    }
  }
  tc::cpu::select_kernels(in_use.c_str());
}

TEST(CpuKernels, EverySetGivesTheBaselinesBytesForNnAndTransformerKernels) {
  Init init;
  const tc::cpu::KernelSet* avail[4];
  const int n = tc::cpu::available_kernel_sets(avail, 4);
  const std::string in_use = tc::cpu::kernels().name;
  if (n < 2) GTEST_SKIP() << "only the " << avail[0]->name << " set runs here";
  for (int32_t dtype : {TC_FLOAT32, TC_FLOAT64}) {
    ASSERT_TRUE(tc::cpu::select_kernels("baseline"));
    const auto expected = nn_workload(dtype);
    ASSERT_EQ(expected.size(), 11u);
    for (int i = 0; i < n - 1; ++i) {
      ASSERT_TRUE(tc::cpu::select_kernels(avail[i]->name));
      const auto got = nn_workload(dtype);
      ASSERT_EQ(got.size(), expected.size());
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_TRUE(got[k] == expected[k])
            << avail[i]->name << " result " << k << " dtype " << dtype << " differs from the baseline set's";
      }
    }
  }
  tc::cpu::select_kernels(in_use.c_str());
}

}  // namespace
