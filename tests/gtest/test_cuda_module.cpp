// What the core says about the CUDA module without loading it: cuda_available
// and tc_config account for a missing module file and for a failed stage
// (src/backend/cuda_loader.cpp). The loading itself is tested by tests/module.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backend/cuda_loader.h"
#include "tc.h"

namespace {

// Sets TC_CUDA_MODULE for one test, restoring the previous value.
class ModuleEnv {
 public:
  explicit ModuleEnv(const std::string& path) {
    if (const char* old = std::getenv("TC_CUDA_MODULE")) old_ = old, had_ = true;
    setenv("TC_CUDA_MODULE", path.c_str(), 1);
  }
  ~ModuleEnv() {
    if (had_)
      setenv("TC_CUDA_MODULE", old_.c_str(), 1);
    else
      unsetenv("TC_CUDA_MODULE");
  }

 private:
  std::string old_;
  bool had_ = false;
};

std::string config() {
  int64_t needed = 0;
  EXPECT_EQ(tc_config(nullptr, 0, &needed), TC_OK);
  std::string s(size_t(needed), '\0');
  EXPECT_EQ(tc_config(s.data(), needed, &needed), TC_OK);
  return s;
}

}  // namespace

TEST(CudaModule, MissingFileIsAReasonBeforeAnyLoad) {
  ModuleEnv env("/nonexistent/dir/libtc_cuda.so");
  ASSERT_TRUE(tc::cuda_stage_configured());  // TC_CUDA_MODULE makes the stage lazy in any build
  const std::string why = tc::cuda_module_unusable_reason();
  EXPECT_NE(why.find("/nonexistent/dir/libtc_cuda.so"), std::string::npos) << why;
  EXPECT_NE(why.find("missing"), std::string::npos) << why;
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  int64_t available = -1;
  ASSERT_EQ(tc_get_flag("cuda_available", &available), TC_OK);
  EXPECT_EQ(available, 0);
  EXPECT_NE(config().find("not loaded yet"), std::string::npos) << config();
  ASSERT_EQ(tc_shutdown(), TC_OK);
}

TEST(CudaModule, AFailedStageIsTheReasonAfterwards) {
  // A readable file that is not a library: present, so no reason until the
  // stage runs; then the stage's failure is.
  ModuleEnv env(TC_HEADER_PATH);
  EXPECT_EQ(tc::cuda_module_unusable_reason(), "");
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  EXPECT_EQ(tc_backend_init("cuda"), TC_ERR_UNAVAILABLE);
  const std::string why = tc::cuda_module_unusable_reason();
  EXPECT_NE(why.find("the cuda stage failed"), std::string::npos) << why;
  EXPECT_NE(why.find(TC_HEADER_PATH), std::string::npos) << why;
  const std::string c = config();
  EXPECT_NE(c.find(std::string("CUDA module:  ") + TC_HEADER_PATH + ": not loaded: could not be loaded"),
            std::string::npos)
      << c;
  int64_t available = -1, cudnn = -1;
  ASSERT_EQ(tc_get_flag("cuda_available", &available), TC_OK);
  ASSERT_EQ(tc_get_flag("has_cudnn", &cudnn), TC_OK);
  EXPECT_EQ(available, 0);
  EXPECT_EQ(cudnn, 0);
  ASSERT_EQ(tc_shutdown(), TC_OK);
}
