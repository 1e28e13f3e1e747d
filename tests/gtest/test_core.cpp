// The core: 16-bit float conversions, the handle table under threads,
// staged init from many threads, copies between strides and dtypes.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "abi/handles.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "tc.h"

namespace {

int64_t flag(const char* name) {
  int64_t v = -1;
  EXPECT_EQ(tc_get_flag(name, &v), TC_OK);
  return v;
}

TEST(Half, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float f = tc::Half::to_float(uint16_t(bits));
    if (std::isnan(f)) continue;
    ASSERT_EQ(tc::Half::from_float(f), bits) << "half bits " << bits;
  }
}

TEST(Half, RoundsToNearestEven) {
  EXPECT_EQ(tc::Half::from_float(1.0f + 1.0f / 2048), 0x3c00);  // halfway: to even (down)
  EXPECT_EQ(tc::Half::from_float(1.0f + 3.0f / 2048), 0x3c02);  // halfway: to even (up)
  EXPECT_EQ(tc::Half::from_float(65520.0f), 0x7c00);            // overflows to inf
  EXPECT_EQ(tc::Half::from_float(5.96046448e-08f), 0x0001);     // smallest subnormal
  EXPECT_EQ(tc::Half::from_float(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(tc::Half::to_float(tc::Half::from_float(NAN))));
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(tc::BFloat16::from_float(1.0f), 0x3f80);
  EXPECT_EQ(tc::BFloat16::from_float(1.00390625f), 0x3f80);  // halfway: to even
  EXPECT_EQ(tc::BFloat16::from_float(1.01171875f), 0x3f82);  // halfway: to even (up)
  EXPECT_EQ(float(tc::BFloat16(3.0f)), 3.0f);
}

class Core : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(tc_init(nullptr), TC_OK); }
  void TearDown() override {
    EXPECT_EQ(flag("live_tensors"), 0);
    ASSERT_EQ(tc_shutdown(), TC_OK);
  }
};

TEST_F(Core, CopyBetweenStridesAndDtypes) {
  // A transposed int32 view copied into a float64 tensor.
  tc::Tensor src = tc::arange(0, 6, 1, tc::DType::i32);
  tc::Tensor t = tc::make_view(src, tc::Dims{3, 2}, tc::Dims{1, 3}, 0);
  EXPECT_FALSE(t->is_contiguous());
  tc::Tensor dst = tc::empty(tc::Dims{3, 2}, tc::DType::f64);
  tc::copy_into(dst, t);
  const double* d = dst->data_as<double>();
  const double expected[] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(d[i], expected[i]);
  // Out-of-range and NaN floats going to integers are defined (0).
  tc::Tensor f = tc::full(tc::Dims{2}, NAN, tc::DType::f32);
  tc::Tensor i8 = tc::cast(f, tc::DType::i8);
  EXPECT_EQ(i8->data_as<int8_t>()[0], 0);
  // Broadcast source (stride 0).
  tc::Tensor one = tc::full(tc::Dims{1}, 7, tc::DType::f32);
  tc::Tensor wide = tc::make_view(one, tc::Dims{4}, tc::Dims{0}, 0);
  tc::Tensor copy = tc::clone_data(wide);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(copy->data_as<float>()[i], 7.0f);
}

TEST_F(Core, IntegerSumsAreExactAndWrapLikePyTorch) {
  // 20 uint8 ones: GCC 12 -O3 once miscompiled the 8-lane sum to 13.
  for (int64_t n : {7, 8, 9, 20, 1001}) {
    tc::Tensor ones = tc::ones(tc::Dims{n}, tc::DType::u8);
    tc::Tensor s = tc::ops::sum(ones, tc::Dims{}, false);
    EXPECT_EQ(s->dtype, tc::DType::i64);
    EXPECT_EQ(s->data_as<int64_t>()[0], n);
  }
  tc::Tensor big = tc::full(tc::Dims{2}, 0, tc::DType::i64);
  big->data_as<int64_t>()[0] = INT64_MAX;
  big->data_as<int64_t>()[1] = 1;
  EXPECT_EQ(tc::ops::sum(big, tc::Dims{}, false)->data_as<int64_t>()[0], INT64_MIN);
}

TEST_F(Core, LargeTensorPrintoutIsSummarized) {
  tc::Tensor t = tc::arange(0, 2000, 1, tc::DType::f32);
  const std::string s = tc::to_string(t);
  EXPECT_EQ(s, "tensor([   0.,    1.,    2.,  ..., 1997., 1998., 1999.])");
}

TEST_F(Core, PrintoutChoosesScientificForWideRanges) {
  tc::Tensor t = tc::full(tc::Dims{2}, 1e-5, tc::DType::f64);
  t->data_as<double>()[1] = 12345.5;
  EXPECT_EQ(tc::to_string(t), "tensor([1.0000e-05, 1.2346e+04], dtype=float64)");
}

TEST(Threads, InitCreateRetainFreeAndFlagsAtOnce) {
  constexpr int kThreads = 8;
  constexpr int kIters = 300;
  ASSERT_EQ(tc_init(nullptr), TC_OK);  // keeps the library up while threads cycle their own references
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kThreads; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kIters; ++i) {
        if (tc_init(nullptr) != TC_OK) ++errors;
        const int64_t shape[1] = {int64_t(i % 7 + 1)};
        tc_tensor t = nullptr, u = nullptr;
        if (tc_full(shape, 1, double(w), TC_FLOAT32, TC_CPU, &t) != TC_OK) ++errors;
        if (tc_tensor_retain(t, &u) != TC_OK) ++errors;
        if (tc_tensor_free(t) != TC_OK) ++errors;
        double v = -1;
        tc_tensor first = nullptr;
        int64_t numel = 0;
        if (tc_tensor_numel(u, &numel) != TC_OK || numel != shape[0]) ++errors;
        int64_t flagv = 0;
        if (tc_get_flag("live_tensors", &flagv) != TC_OK) ++errors;
        if (tc_set_flag("grad_enabled", i % 2) != TC_OK) ++errors;
        if (tc_get_flag("grad_enabled", &flagv) != TC_OK || flagv != i % 2) ++errors;  // per thread
        float buf[8];
        if (tc_tensor_copy_to(u, buf, numel * 4) != TC_OK || buf[0] != float(w)) ++errors;
        (void)v;
        (void)first;
        if (tc_tensor_free(u) != TC_OK) ++errors;
        if (tc_tensor_free(u) != TC_ERR_INVALID_HANDLE) ++errors;  // double free is caught
        if (tc_shutdown() != TC_OK) ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(flag("live_tensors"), 0);
  EXPECT_EQ(flag("live_handles"), 0);
  ASSERT_EQ(tc_shutdown(), TC_OK);
}

TEST(Threads, FreeingAHandleWhileAnotherThreadReadsItNeverCrashes) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  std::atomic<uint64_t> shared{0};
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    while (!stop.load()) {
      int64_t n = 0;
      tc_tensor h = reinterpret_cast<tc_tensor>(shared.load());
      const int32_t rc = tc_tensor_numel(h, &n);
      if (rc == TC_OK)
        EXPECT_EQ(n, 16);
      else
        EXPECT_EQ(rc, TC_ERR_INVALID_HANDLE);
    }
  });
  for (int i = 0; i < 2000; ++i) {
    const int64_t shape[1] = {16};
    tc_tensor t = nullptr;
    ASSERT_EQ(tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &t), TC_OK);
    shared.store(reinterpret_cast<uint64_t>(t));
    ASSERT_EQ(tc_tensor_free(t), TC_OK);
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(flag("live_tensors"), 0);
  ASSERT_EQ(tc_shutdown(), TC_OK);
}

TEST(Errors, EveryExceptionKindBecomesAStatus) {
  // tc_init with a bad options struct: the guard's Error path.
  tc_init_options o{};
  o.size = 1;
  EXPECT_EQ(tc_init(&o), TC_ERR_INVALID_ARGUMENT);
  char buf[256];
  int64_t needed = 0;
  ASSERT_EQ(tc_last_error_copy(buf, sizeof buf, &needed), TC_OK);
  EXPECT_NE(std::strstr(buf, "tc_init: options->size is 1"), nullptr) << buf;
  EXPECT_EQ(needed, int64_t(std::strlen(buf)) + 1);
}

}  // namespace
