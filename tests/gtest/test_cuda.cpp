// The CUDA backend through the C ABI. Without a usable GPU every test but the
// first skips with the reason libtc gives; the first checks that reason is
// reported consistently (flags, backend init, creation on cuda).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "tc.h"

namespace {

int64_t flag(const char* name) {
  int64_t v = -1;
  EXPECT_EQ(tc_get_flag(name, &v), TC_OK);
  return v;
}

std::string last_error() {
  const char* m = "";
  tc_last_error(&m);
  return m;
}

class Cuda : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    if (flag("cuda_available") == 0 || tc_backend_init("cuda") != TC_OK) {
      reason_ = last_error();
      GTEST_SKIP() << "no usable CUDA GPU: " << reason_;
    }
  }
  void TearDown() override {
    EXPECT_EQ(flag("live_tensors"), 0);
    ASSERT_EQ(tc_shutdown(), TC_OK);
  }
  std::string reason_;
};

TEST(CudaUnavailable, IsReportedConsistently) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  if (flag("cuda_available") == 1) {
    EXPECT_GE(flag("cuda_device_count"), 1);
  } else {
    EXPECT_EQ(flag("cuda_device_count"), 0);
    const int32_t rc = tc_backend_init("cuda");
    EXPECT_TRUE(rc == TC_ERR_NOT_COMPILED || rc == TC_ERR_UNAVAILABLE) << rc;
    EXPECT_FALSE(last_error().empty());
    const int64_t shape[1] = {4};
    tc_tensor t = nullptr;
    EXPECT_EQ(tc_zeros(shape, 1, TC_FLOAT32, TC_DEVICE(TC_DEVICE_CUDA, 0), &t), rc);
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(flag("cuda_initialized"), 0);
    tc_stage_info info{};
    info.size = sizeof info;
    ASSERT_EQ(tc_init_stage(4, &info), TC_OK);
    EXPECT_STREQ(info.name, "cuda");
    EXPECT_TRUE(info.state == TC_STAGE_FAILED || info.state == TC_STAGE_SKIPPED) << info.state;
    EXPECT_GT(std::strlen(info.message), 0u);
  }
  ASSERT_EQ(tc_shutdown(), TC_OK);
}

TEST_F(Cuda, CreationAndCopiesRoundTrip) {
  const int32_t dev = TC_DEVICE(TC_DEVICE_CUDA, 0);
  const int64_t shape[2] = {3, 5};
  std::vector<float> host(15);
  for (int i = 0; i < 15; ++i) host[size_t(i)] = float(i) * 0.5f;
  tc_tensor h = nullptr, d = nullptr, d2 = nullptr, back = nullptr, f = nullptr, z = nullptr;
  ASSERT_EQ(tc_from_data(host.data(), 60, shape, 2, TC_FLOAT32, &h), TC_OK);
  ASSERT_EQ(tc_to_device(h, dev, &d), TC_OK) << last_error();
  int32_t got_dev = -1;
  ASSERT_EQ(tc_tensor_device(d, &got_dev), TC_OK);
  EXPECT_EQ(got_dev, dev);
  ASSERT_EQ(tc_clone(d, &d2), TC_OK) << last_error();  // device to device
  ASSERT_EQ(tc_to_device(d2, TC_CPU, &back), TC_OK);
  std::vector<float> out(15);
  ASSERT_EQ(tc_tensor_copy_to(back, out.data(), 60), TC_OK);
  EXPECT_EQ(out, host);
  ASSERT_EQ(tc_full(shape, 2, 7.0, TC_FLOAT64, dev, &f), TC_OK) << last_error();
  std::vector<double> fv(15);
  ASSERT_EQ(tc_tensor_copy_to(f, fv.data(), 120), TC_OK);
  for (double v : fv) EXPECT_EQ(v, 7.0);
  ASSERT_EQ(tc_zeros(shape, 2, TC_INT64, dev, &z), TC_OK);
  double item = -1;
  tc_tensor s = nullptr;
  ASSERT_EQ(tc_select(z, 0, 1, &s), TC_OK);
  tc_tensor s2 = nullptr;
  ASSERT_EQ(tc_select(s, 0, 2, &s2), TC_OK);
  ASSERT_EQ(tc_tensor_item(s2, &item), TC_OK);
  EXPECT_EQ(item, 0.0);
  for (tc_tensor t : {h, d, d2, back, f, z, s, s2}) ASSERT_EQ(tc_tensor_free(t), TC_OK);
}

TEST_F(Cuda, CachingAllocatorReusesBlocksAndReportsStats) {
  const int32_t dev = TC_DEVICE(TC_DEVICE_CUDA, 0);
  tc_cuda_memory_stats st{};
  st.size = sizeof st;
  ASSERT_EQ(tc_cuda_empty_cache(), TC_OK);
  const int64_t shape[1] = {1 << 20};
  tc_tensor a = nullptr;
  ASSERT_EQ(tc_empty(shape, 1, TC_FLOAT32, dev, &a), TC_OK);
  ASSERT_EQ(tc_cuda_memory_stats_get(dev, &st), TC_OK);
  EXPECT_GE(st.allocated, int64_t(4) << 20);
  const int64_t reserved = st.reserved;
  ASSERT_EQ(tc_tensor_free(a), TC_OK);
  ASSERT_EQ(tc_cuda_memory_stats_get(dev, &st), TC_OK);
  EXPECT_EQ(st.allocated, 0);
  EXPECT_EQ(st.reserved, reserved);  // cached, not returned
  ASSERT_EQ(tc_empty(shape, 1, TC_FLOAT32, dev, &a), TC_OK);
  ASSERT_EQ(tc_cuda_memory_stats_get(dev, &st), TC_OK);
  EXPECT_EQ(st.reserved, reserved);  // reused
  EXPECT_GE(st.peak_allocated, int64_t(4) << 20);
  ASSERT_EQ(tc_tensor_free(a), TC_OK);
  ASSERT_EQ(tc_cuda_empty_cache(), TC_OK);
  ASSERT_EQ(tc_cuda_memory_stats_get(dev, &st), TC_OK);
  EXPECT_EQ(st.reserved, 0);
}

TEST_F(Cuda, OutOfMemoryIsAStatusWithSizes) {
  const int64_t shape[1] = {int64_t(1) << 40};  // 4 TiB of float32
  tc_tensor t = nullptr;
  EXPECT_EQ(tc_empty(shape, 1, TC_FLOAT32, TC_DEVICE(TC_DEVICE_CUDA, 0), &t), TC_ERR_OUT_OF_MEMORY);
  EXPECT_NE(last_error().find("tried to allocate"), std::string::npos) << last_error();
  EXPECT_EQ(t, nullptr);
}

TEST_F(Cuda, ForkedChildGetsAClearError) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int64_t shape[1] = {4};
    tc_tensor t = nullptr;
    const int32_t rc = tc_zeros(shape, 1, TC_FLOAT32, TC_DEVICE(TC_DEVICE_CUDA, 0), &t);
    _exit(rc == TC_ERR_DEVICE && last_error().find("fork") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
