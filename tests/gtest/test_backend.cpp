// The backend registry (src/backend/backend.h): the CPU's table, one table per device
// type found by backend_for, registration, and what a backend that leaves a
// primitive out answers.
#include <gtest/gtest.h>

#include <string>

#include "backend/backend.h"
#include "core/error.h"
#include "core/tensor.h"
#include "math/rows/unary_exp.h"
#include "tc.h"

namespace {

using tc::Backend;
using tc::Tensor;

constexpr int32_t kSpareType = tc::kMaxDeviceTypes - 1;  // no real device uses it

// A backend overriding nothing: every primitive is its default.
struct Bare final : Backend {
  Bare() : Backend("bare", false) {}
};

// Registers a table for kSpareType for the test's duration.
struct Registered {
  explicit Registered(const Backend* b) { tc::register_backend(kSpareType, b); }
  ~Registered() { tc::register_backend(kSpareType, nullptr); }
};

TEST(Backend, TheCpuTableIsFoundByDevice) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const Backend& b = tc::backend_for(tc::kCPU);
  EXPECT_STREQ(b.name, "cpu");
  EXPECT_FALSE(b.computes_half);  // the CPU only converts float16/bfloat16
  EXPECT_EQ(&b, &tc::backend_for(tc::empty({2}, tc::DType::f32)));
}

TEST(Backend, CudaIsItsOwnTableOrTheStagesError) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const tc::Device cuda0 = TC_DEVICE(TC_DEVICE_CUDA, 0);
  try {
    const Backend& b = tc::backend_for(cuda0);
    EXPECT_STREQ(b.name, "cuda");
    EXPECT_TRUE(b.computes_half);
    EXPECT_NE(&b, &tc::backend_for(tc::kCPU));
  } catch (const tc::Error& e) {
    // The cuda stage's own failure: not compiled (a CPU-only build), or
    // unavailable (a CUDA build without a usable GPU).
    EXPECT_TRUE(e.code() == TC_ERR_NOT_COMPILED || e.code() == TC_ERR_UNAVAILABLE)
        << e.code() << ": " << e.what();
    EXPECT_EQ(e.code(), tc_backend_init("cuda"));
  }
}

TEST(Backend, ARegisteredTableIsFoundAndAMissingPrimitiveIsNotImplemented) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  static const Bare bare;
  const Registered reg(&bare);
  const tc::Device spare = TC_DEVICE(kSpareType, 0);
  ASSERT_EQ(&tc::backend_for(spare), &bare);
  Tensor t = tc::empty({3}, tc::DType::f32);
  try {
    bare.unary(tc::ops::row::exp, t, t, 0, 0);
    FAIL() << "unary should not be implemented on the bare backend";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_NOT_IMPLEMENTED);
    EXPECT_EQ(std::string(e.what()), "unary: not implemented on bare");
  }
  // fill has a generic form: a copy from a broadcast one-element tensor.
  bare.fill(t, 2.5);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(tc::read_element(t, i), 2.5);
}

TEST(Backend, OneReduceKindSetServesEveryDevice) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  Tensor a = tc::empty({2, 3}, tc::DType::f64);
  double* pa = a->data_as<double>();
  for (int64_t i = 0; i < 6; ++i) pa[i] = double(i + 1);  // [[1 2 3] [4 5 6]]
  Tensor out = tc::empty({2, 1}, tc::DType::f64);
  const Backend& cpu = tc::backend_for(tc::kCPU);
  cpu.reduce(tc::ReduceKind::sum, out, a, 0.5, false);  // a mean's sum with its scale fused
  EXPECT_EQ(tc::read_element(out, 0), 3.0);
  EXPECT_EQ(tc::read_element(out, 1), 7.5);
  cpu.reduce(tc::ReduceKind::max, out, a, 1.0, false);
  EXPECT_EQ(tc::read_element(out, 0), 3.0);
  EXPECT_EQ(tc::read_element(out, 1), 6.0);
}

}  // namespace
