// Many threads through the ABI at once (run under TSan by scripts/sanitize.sh):
// every thread reads the same shared tensors (ops, copies, printing, retain
// and free of extra handles), creates and frees its own tensors, toggles its
// own grad mode, and runs forward and backward on its own parameters. The
// shared tensors are never written, so any report is a race in libtc's own
// bookkeeping (handle table, live counters, per-thread state, graph).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tc.h"
#include "tc_binary_ops.h"
#include "tc_unary_ops.h"

#pragma weak tc_matmul
#pragma weak tc_add
#pragma weak tc_relu
#pragma weak tc_sum
#pragma weak tc_backward
#pragma weak tc_tensor_set_requires_grad
#pragma weak tc_tensor_grad
#pragma weak tc_set_grad_enabled
#pragma weak tc_tensor_requires_grad
#pragma weak tc_transpose
#pragma weak tc_contiguous

namespace {

bool ops_available() {
  const void* fns[] = {reinterpret_cast<void*>(&tc_matmul),
                       reinterpret_cast<void*>(&tc_add),
                       reinterpret_cast<void*>(&tc_relu),
                       reinterpret_cast<void*>(&tc_sum),
                       reinterpret_cast<void*>(&tc_backward),
                       reinterpret_cast<void*>(&tc_tensor_set_requires_grad),
                       reinterpret_cast<void*>(&tc_tensor_grad),
                       reinterpret_cast<void*>(&tc_set_grad_enabled),
                       reinterpret_cast<void*>(&tc_tensor_requires_grad),
                       reinterpret_cast<void*>(&tc_transpose),
                       reinterpret_cast<void*>(&tc_contiguous)};
  for (const void* f : fns)
    if (!f) return false;
  return true;
}

int64_t flag(const char* name) {
  int64_t v = -1;
  tc_get_flag(name, &v);
  return v;
}

tc_tensor from_floats(const std::vector<float>& v, std::vector<int64_t> shape) {
  tc_tensor t = nullptr;
  tc_from_data(v.data(), int64_t(v.size() * 4), shape.data(), int64_t(shape.size()), TC_FLOAT32, &t);
  return t;
}

double sum_of(tc_tensor t) {
  tc_tensor s = nullptr;
  if (tc_sum(t, nullptr, 0, 0, &s) != TC_OK) return NAN;
  double v = NAN;
  tc_tensor_item(s, &v);
  tc_tensor_free(s);
  return v;
}

TEST(StressThreads, SharedReadsPrivateWritesGradModeAndBackward) {
  if (!ops_available()) GTEST_SKIP() << "the ops this test uses are not all defined yet";
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const int64_t tensors0 = flag("live_tensors");
  const int64_t handles0 = flag("live_handles");

  constexpr int n = 32;
  std::vector<float> av(n * n), bv(n * n);
  for (int i = 0; i < n * n; ++i) {
    av[size_t(i)] = float((i * 7) % 13) / 13.0f - 0.5f;
    bv[size_t(i)] = float((i * 5) % 11) / 11.0f - 0.5f;
  }
  tc_tensor A = from_floats(av, {n, n});
  tc_tensor B = from_floats(bv, {n, n});
  ASSERT_TRUE(A && B);
  // Expected results, computed once before the threads start.
  tc_tensor ab = nullptr, apb = nullptr;
  ASSERT_EQ(tc_matmul(A, B, &ab), TC_OK);
  ASSERT_EQ(tc_add(A, B, &apb), TC_OK);
  const double want_mm = sum_of(ab), want_add = sum_of(apb);
  std::vector<float> want_apb(n * n);
  ASSERT_EQ(tc_tensor_copy_to(apb, want_apb.data(), n * n * 4), TC_OK);
  tc_tensor_free(ab);
  tc_tensor_free(apb);

  const int threads = 8;
  const int iters = 40;
  std::atomic<int> failures{0};
  std::atomic<int> grad_checks{0};
  auto fail = [&](const std::string& what) {
    if (failures.fetch_add(1) < 10) {
      const char* msg = "";
      tc_last_error(&msg);
      ADD_FAILURE() << what << " (last error: " << msg << ")";
    }
  };
  auto worker = [&](int id) {
    std::vector<float> buf(n * n);
    for (int it = 0; it < iters; ++it) {
      // Grad mode is per thread: set it, and read it back.
      const int32_t mode = (it + id) % 2;
      int32_t prev = -1;
      if (tc_set_grad_enabled(mode, &prev) != TC_OK) fail("tc_set_grad_enabled");
      if (flag("grad_enabled") != mode) fail("grad mode leaked between threads");

      // Shared tensors, read only.
      tc_tensor mm = nullptr, sum = nullptr, extra = nullptr, at = nullptr, atc = nullptr;
      if (tc_matmul(A, B, &mm) != TC_OK) fail("tc_matmul on shared tensors");
      if (tc_add(A, B, &sum) != TC_OK) fail("tc_add on shared tensors");
      if (std::fabs(sum_of(mm) - want_mm) > 1e-3 * (1 + std::fabs(want_mm))) fail("matmul result differs");
      if (std::fabs(sum_of(sum) - want_add) > 1e-4 * (1 + std::fabs(want_add))) fail("add result differs");
      if (tc_tensor_copy_to(sum, buf.data(), n * n * 4) != TC_OK ||
          std::memcmp(buf.data(), want_apb.data(), buf.size() * 4))
        fail("copy of add differs");
      if (tc_tensor_retain(A, &extra) != TC_OK || tc_tensor_free(extra) != TC_OK)
        fail("retain/free of a shared tensor");
      if (tc_transpose(B, 0, 1, &at) != TC_OK || tc_contiguous(at, &atc) != TC_OK)
        fail("views of a shared tensor");
      char text[64];
      int64_t needed = 0;
      if (tc_tensor_to_string(A, text, sizeof text, &needed) != TC_OK || needed < 10)
        fail("printing a shared tensor");
      for (tc_tensor t : {mm, sum, at, atc})
        if (t) tc_tensor_free(t);

      // Private parameters: forward, backward, read the gradient.
      std::vector<float> wv(n * 4);
      for (size_t i = 0; i < wv.size(); ++i) wv[i] = float(int(i + id) % 9) / 9.0f - 0.3f;
      tc_tensor w = from_floats(wv, {n, 4});
      if (!w) {
        fail("tc_from_data");
        continue;
      }
      tc_tensor_set_requires_grad(w, 1);
      tc_tensor h = nullptr, r = nullptr, loss = nullptr, g = nullptr;
      if (tc_matmul(A, w, &h) != TC_OK || tc_relu(h, &r) != TC_OK ||
          tc_sum(r, nullptr, 0, 0, &loss) != TC_OK) {
        fail("forward");
      } else {
        int32_t rg = -1;
        tc_tensor_requires_grad(loss, &rg);
        if (rg != mode) fail("requires_grad of the loss does not follow this thread's grad mode");
        if (mode == 1) {
          if (tc_backward(loss, nullptr, 0) != TC_OK) fail("tc_backward");
          if (tc_tensor_grad(w, &g) != TC_OK || g == nullptr) fail("no gradient after backward");
          grad_checks.fetch_add(1);
        } else if (tc_backward(loss, nullptr, 0) != TC_ERR_AUTOGRAD) {
          fail("backward without a graph should be an autograd error");
        }
      }
      for (tc_tensor t : {w, h, r, loss, g})
        if (t) tc_tensor_free(t);
      tc_set_grad_enabled(prev, nullptr);
    }
  };
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker, i);
  for (auto& t : pool) t.join();

  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(grad_checks.load(), threads * iters / 2);
  tc_tensor_free(A);
  tc_tensor_free(B);
  EXPECT_EQ(flag("live_tensors"), tensors0);
  EXPECT_EQ(flag("live_handles"), handles0);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

// Handles freed by one thread while others look them up: every lookup gets
// either the tensor or TC_ERR_INVALID_HANDLE, never a crash or a stale read.
TEST(StressThreads, ConcurrentFreeAndLookup) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const int64_t handles0 = flag("live_handles");
  constexpr int kHandles = 256;
  std::vector<tc_tensor> hs(kHandles);
  const int64_t shape[] = {4};
  for (auto& h : hs) ASSERT_EQ(tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &h), TC_OK);
  std::atomic<bool> go{false};
  std::atomic<int> bad{0};
  std::thread freer([&] {
    while (!go.load()) {
    }
    for (auto& h : hs) {
      if (tc_tensor_free(h) != TC_OK) bad.fetch_add(1);
    }
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&] {
      while (!go.load()) {
      }
      for (int round = 0; round < 4; ++round) {
        for (tc_tensor h : hs) {
          int64_t numel = -1;
          const int32_t rc = tc_tensor_numel(h, &numel);
          if (!(rc == TC_OK && numel == 4) && rc != TC_ERR_INVALID_HANDLE) bad.fetch_add(1);
          tc_tensor extra = nullptr;
          if (tc_tensor_retain(h, &extra) == TC_OK) tc_tensor_free(extra);
        }
      }
    });
  }
  go.store(true);
  freer.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(flag("live_handles"), handles0);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

}  // namespace
