// Writes libtc refuses: read-only memory
// (tc_tensor_set_readonly, DLPack's read-only flag), in-place writes into
// overlapping elements (expanded views), fill values a dtype cannot hold; and
// torch.chunk's piece count on a zero-size dim. Each refused write must leave
// the data unchanged.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "abi/dlpack.h"
#include "tc.h"
#include "tc_binary_ops.h"

namespace {

class WriteGuards : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(tc_init(nullptr), TC_OK); }
  void TearDown() override {
    int64_t live = -1;
    EXPECT_EQ(tc_get_flag("live_handles", &live), TC_OK);
    EXPECT_EQ(live, 0) << "a test leaked handles";
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
};

std::vector<float> values(tc_tensor t) {
  int64_t n = 0;
  EXPECT_EQ(tc_tensor_numel(t, &n), TC_OK);
  std::vector<float> v(static_cast<size_t>(n));
  EXPECT_EQ(tc_tensor_copy_to(t, v.data(), n * 4), TC_OK);
  return v;
}

int32_t last_code() {
  int32_t c = -1;
  tc_last_error_code(&c);
  return c;
}

TEST_F(WriteGuards, ReadOnlyBlobRefusesEveryWriteAndKeepsItsBytes) {
  static float data[6] = {1, 2, 3, 4, 5, 6};
  const int64_t shape[] = {2, 3};
  tc_tensor t = nullptr, other = nullptr, view = nullptr, sum = nullptr;
  ASSERT_EQ(tc_from_blob(data, shape, nullptr, 2, TC_FLOAT32, nullptr, nullptr, &t), TC_OK);
  int32_t ro = -1;
  ASSERT_EQ(tc_tensor_is_readonly(t, &ro), TC_OK);
  EXPECT_EQ(ro, 0);
  ASSERT_EQ(tc_tensor_set_readonly(t), TC_OK);
  ASSERT_EQ(tc_tensor_is_readonly(t, &ro), TC_OK);
  EXPECT_EQ(ro, 1);
  ASSERT_EQ(tc_ones(shape, 2, TC_FLOAT32, TC_CPU, &other), TC_OK);
  // A view shares the storage, so it is read-only too.
  ASSERT_EQ(tc_transpose(t, 0, 1, &view), TC_OK);
  ASSERT_EQ(tc_tensor_is_readonly(view, &ro), TC_OK);
  EXPECT_EQ(ro, 1);

  EXPECT_EQ(tc_add_(t, other), TC_ERR_INVALID_ARGUMENT);
  const char* msg = nullptr;
  tc_last_error(&msg);
  EXPECT_NE(std::strstr(msg, "read-only"), nullptr) << msg;
  EXPECT_NE(std::strstr(msg, "tc_add_"), nullptr) << msg;
  EXPECT_EQ(tc_mul_(view, view), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_fill_(t, 0), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_zero_(view), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_copy_(t, other), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_uniform_(t, 0, 1), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_normal_(t, 0, 1), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_kaiming_uniform_(t, 0), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_xavier_uniform_(t, 1), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(values(t), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  int64_t version = -1;
  ASSERT_EQ(tc_tensor_version(t, &version), TC_OK);
  EXPECT_EQ(version, 0) << "a refused write bumped the version";

  // Reading and out-of-place ops work.
  ASSERT_EQ(tc_add(t, other, &sum), TC_OK);
  EXPECT_EQ(values(sum), (std::vector<float>{2, 3, 4, 5, 6, 7}));
  for (tc_tensor h : {t, other, view, sum}) tc_tensor_free(h);
}

TEST_F(WriteGuards, OptimizerStepOnAReadOnlyParameterChangesNothing) {
  const int64_t shape[] = {3};
  tc_tensor w = nullptr, frozen = nullptr, y = nullptr, loss = nullptr, both = nullptr;
  ASSERT_EQ(tc_full(shape, 1, 2.0, TC_FLOAT32, TC_CPU, &w), TC_OK);
  ASSERT_EQ(tc_full(shape, 1, 3.0, TC_FLOAT32, TC_CPU, &frozen), TC_OK);
  ASSERT_EQ(tc_tensor_set_requires_grad(w, 1), TC_OK);
  ASSERT_EQ(tc_tensor_set_requires_grad(frozen, 1), TC_OK);
  ASSERT_EQ(tc_mul(w, frozen, &both), TC_OK);
  ASSERT_EQ(tc_sum(both, nullptr, 0, 0, &loss), TC_OK);
  ASSERT_EQ(tc_backward(loss, nullptr, 0), TC_OK);
  tc_tensor params[] = {w, frozen};
  tc_sgd_options o{};
  o.size = sizeof o;
  o.lr = 0.5;
  tc_optimizer opt = nullptr;
  ASSERT_EQ(tc_optimizer_sgd(params, 2, &o, &opt), TC_OK);
  ASSERT_EQ(tc_tensor_set_readonly(frozen), TC_OK);
  EXPECT_EQ(tc_optimizer_step(opt), TC_ERR_INVALID_ARGUMENT);
  // Neither parameter moved: the step is refused before it writes any.
  EXPECT_EQ(values(w), (std::vector<float>{2, 2, 2}));
  EXPECT_EQ(values(frozen), (std::vector<float>{3, 3, 3}));
  // Without a grad the read-only parameter is not written, so the step runs.
  ASSERT_EQ(tc_tensor_clear_grad(frozen), TC_OK);
  ASSERT_EQ(tc_optimizer_step(opt), TC_OK);
  EXPECT_EQ(values(w), (std::vector<float>{0.5f, 0.5f, 0.5f}));  // 2 - 0.5 * 3
  (void)y;
  tc_optimizer_free(opt);
  for (tc_tensor h : {w, frozen, both, loss}) tc_tensor_free(h);
}

// A DLPack producer's buffer flagged read-only is never written by libtc,
// and libtc's own read-only tensors export with the flag.
struct Producer {
  float data[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  int deleted = 0;
  DLManagedTensorVersioned m{};
};

TEST_F(WriteGuards, DlpackReadOnlyFlagIsHonouredBothWays) {
  Producer p;
  p.m.version.major = DLPACK_MAJOR_VERSION;
  p.m.version.minor = DLPACK_MINOR_VERSION;
  p.m.manager_ctx = &p;
  p.m.deleter = [](DLManagedTensorVersioned* self) { ++static_cast<Producer*>(self->manager_ctx)->deleted; };
  p.m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  p.m.dl_tensor.data = p.data;
  p.m.dl_tensor.device.device_type = kDLCPU;
  p.m.dl_tensor.ndim = 1;
  p.m.dl_tensor.dtype.code = kDLFloat;
  p.m.dl_tensor.dtype.bits = 32;
  p.m.dl_tensor.dtype.lanes = 1;
  p.m.dl_tensor.shape = p.shape;
  tc_tensor t = nullptr;
  ASSERT_EQ(tc_from_dlpack(&p.m, 1, &t), TC_OK);
  int32_t ro = 0;
  ASSERT_EQ(tc_tensor_is_readonly(t, &ro), TC_OK);
  EXPECT_EQ(ro, 1);
  EXPECT_EQ(tc_fill_(t, 9), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(p.data[0], 1.0f);

  void* exported = nullptr;
  ASSERT_EQ(tc_to_dlpack(t, &exported), TC_OK);
  auto* e = static_cast<DLManagedTensorVersioned*>(exported);
  EXPECT_EQ(e->flags & DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_READ_ONLY);
  e->deleter(e);
  ASSERT_EQ(tc_tensor_free(t), TC_OK);
  EXPECT_EQ(p.deleted, 1);

  // A writable tensor exports without the flag.
  const int64_t shape[] = {2};
  tc_tensor w = nullptr;
  ASSERT_EQ(tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &w), TC_OK);
  ASSERT_EQ(tc_to_dlpack(w, &exported), TC_OK);
  e = static_cast<DLManagedTensorVersioned*>(exported);
  EXPECT_EQ(e->flags & DLPACK_FLAG_BITMASK_READ_ONLY, 0u);
  e->deleter(e);
  tc_tensor_free(w);
}

// PyTorch: "unsupported operation: more than one element of the written-to
// tensor refers to a single memory location". Before the fix tc_add_ on a
// 2^62-element expanded view did not return.
TEST_F(WriteGuards, InPlaceOnAnExpandedViewIsRefusedAtOnce) {
  const int64_t one[] = {1};
  const int64_t huge[] = {int64_t(1) << 62};
  tc_tensor x = nullptr, e = nullptr, y = nullptr;
  ASSERT_EQ(tc_ones(one, 1, TC_FLOAT32, TC_CPU, &x), TC_OK);
  ASSERT_EQ(tc_expand(x, huge, 1, &e), TC_OK);
  EXPECT_EQ(tc_add_(e, x), TC_ERR_INVALID_ARGUMENT);
  const char* msg = nullptr;
  tc_last_error(&msg);
  EXPECT_NE(std::strstr(msg, "single memory location"), nullptr) << msg;
  EXPECT_EQ(tc_fill_(e, 2), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_copy_(e, x), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(values(x), (std::vector<float>{1}));
  // Writing the base, or a size-1 expand (no element is shared), is fine.
  const int64_t same[] = {1, 1};
  ASSERT_EQ(tc_expand(x, same, 2, &y), TC_OK);
  EXPECT_EQ(tc_fill_(y, 3), TC_OK);
  EXPECT_EQ(tc_add_(x, x), TC_OK);
  EXPECT_EQ(values(x), (std::vector<float>{6}));
  for (tc_tensor h : {x, e, y}) tc_tensor_free(h);
}

struct FillCase {
  double value;
  int32_t dtype;
  bool ok;
  double stored;  // what the element reads back as (when ok)
};

// The values torch.full / Tensor.fill_ (1.13) accept and refuse.
TEST_F(WriteGuards, FillValuesFollowPyTorchsOverflowRules) {
  const double inf = INFINITY, nan = NAN;
  const FillCase cases[] = {
      {300, TC_INT8, false, 0},
      {-129, TC_INT8, false, 0},
      {127, TC_INT8, true, 127},
      {nan, TC_INT64, false, 0},
      {inf, TC_INT64, false, 0},
      {1e308, TC_INT64, false, 0},
      {-9223372036854775808.0, TC_INT64, true, -9223372036854775808.0},
      {9223372036854775808.0, TC_INT64, false, 0},
      {2.5, TC_INT32, true, 2},
      {-2.5, TC_INT32, true, -2},
      {-1, TC_UINT8, true, 255},
      {255.7, TC_UINT8, false, 0},
      {1e308, TC_FLOAT32, false, 0},
      {inf, TC_FLOAT32, true, inf},
      {1e10, TC_FLOAT16, false, 0},
      {65504, TC_FLOAT16, true, 65504},
      {1e300, TC_BFLOAT16, false, 0},
      {300, TC_BOOL, true, 1},
      {1e308, TC_FLOAT64, true, 1e308},
  };
  const int64_t shape[] = {2};
  for (const FillCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "value " << c.value << ", dtype " << c.dtype);
    tc_tensor t = nullptr, z = nullptr, d = nullptr;
    const int32_t rc = tc_full(shape, 1, c.value, c.dtype, TC_CPU, &t);
    ASSERT_EQ(tc_zeros(shape, 1, c.dtype, TC_CPU, &z), TC_OK);
    const int32_t frc = tc_fill_(z, c.value);
    if (!c.ok) {
      EXPECT_EQ(rc, TC_ERR_INVALID_ARGUMENT);
      EXPECT_EQ(t, nullptr);
      EXPECT_EQ(frc, TC_ERR_INVALID_ARGUMENT);
      const char* msg = nullptr;
      tc_last_error(&msg);
      EXPECT_NE(std::strstr(msg, "without overflow"), nullptr) << msg;
      tc_tensor_free(z);
      continue;
    }
    ASSERT_EQ(rc, TC_OK);
    ASSERT_EQ(frc, TC_OK);
    for (tc_tensor x : {t, z}) {
      ASSERT_EQ(tc_to_dtype(x, TC_FLOAT64, &d), TC_OK);
      double got[2] = {0, 0};
      ASSERT_EQ(tc_tensor_copy_to(d, got, sizeof got), TC_OK);
      EXPECT_EQ(got[0], c.stored);
      EXPECT_EQ(got[1], c.stored);
      tc_tensor_free(d);
    }
    tc_tensor_free(t);
    tc_tensor_free(z);
  }
}

TEST_F(WriteGuards, ChunkOfAZeroSizeDimGivesChunksPieces) {
  const int64_t shape[] = {0, 3};
  tc_tensor x = nullptr;
  ASSERT_EQ(tc_zeros(shape, 2, TC_FLOAT32, TC_CPU, &x), TC_OK);
  tc_tensor outs[4] = {};
  int64_t count = 0;
  ASSERT_EQ(tc_chunk(x, 3, 0, outs, 4, &count), TC_OK);
  ASSERT_EQ(count, 3);  // torch.chunk(torch.zeros(0, 3), 3, 0): three (0, 3) tensors
  for (int64_t i = 0; i < count; ++i) {
    int64_t s[2] = {-1, -1};
    ASSERT_EQ(tc_tensor_shape(outs[i], s, 2), TC_OK);
    EXPECT_EQ(s[0], 0);
    EXPECT_EQ(s[1], 3);
    tc_tensor_free(outs[i]);
  }
  // Along the size-3 dim: three (0, 1) pieces, as before.
  ASSERT_EQ(tc_chunk(x, 3, 1, outs, 4, &count), TC_OK);
  EXPECT_EQ(count, 3);
  for (int64_t i = 0; i < count; ++i) tc_tensor_free(outs[i]);
  // Too many pieces to hand out is an error, not millions of handles.
  EXPECT_EQ(tc_chunk(x, int64_t(1) << 40, 0, outs, 4, &count), TC_ERR_INVALID_ARGUMENT);
  tc_tensor_free(x);
}

TEST_F(WriteGuards, SmallContractBreaks) {
  const char* name = nullptr;
  int32_t settable = -1;
  EXPECT_EQ(tc_flag_info(0, &name, nullptr), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_flag_info(0, nullptr, &settable), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(settable, -1);
  EXPECT_EQ(tc_flag_info(0, &name, &settable), TC_OK);
  // The handle is checked before the value.
  EXPECT_EQ(tc_optimizer_set_lr(nullptr, NAN), TC_ERR_INVALID_HANDLE);
  EXPECT_EQ(last_code(), TC_ERR_INVALID_HANDLE);
}

}  // namespace
