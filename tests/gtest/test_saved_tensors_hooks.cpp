// Saved-tensor hooks through the C ABI (tc_saved_tensors_hooks_push/pop):
// the gradients they give, how often pack/unpack/free run (free exactly once
// per token), release, failing callbacks' statuses, and the per-thread stack.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "abi/api.h"
#include "gradcheck.h"
#include "tc_binary_ops.h"
#include "tc_scalar_ops.h"
#include "tc_unary_ops.h"

using namespace tc_test;

namespace {

// A pair of hooks keeping a retained handle per token; counts every call.
struct Recorder {
  std::map<uint64_t, tc_tensor> kept;
  std::map<uint64_t, int> freed;  // token -> how many times free ran for it
  uint64_t next = 100;
  int packs = 0, unpacks = 0, releases = 0;
  int fail_pack_at = -1;  // the pack call (0-based) that fails with TC_ERR_SHAPE
  int32_t unpack_status = TC_OK;
  bool unpack_writes = true;
  double scale = 1.0;  // pack keeps t * scale
};

int32_t rec_pack(void* ctx, tc_tensor t, uint64_t* token) {
  auto* r = static_cast<Recorder*>(ctx);
  if (r->packs++ == r->fail_pack_at) {
    tc_set_last_error(TC_ERR_SHAPE, "pack refused");
    return TC_ERR_SHAPE;
  }
  tc_tensor kept = nullptr;
  const int32_t rc = r->scale == 1.0 ? tc_tensor_retain(t, &kept) : tc_mul_scalar(t, r->scale, &kept);
  if (rc != TC_OK) return rc;
  *token = r->next++;
  r->kept[*token] = kept;
  return TC_OK;
}

int32_t rec_unpack(void* ctx, uint64_t token, tc_tensor* out) {
  auto* r = static_cast<Recorder*>(ctx);
  ++r->unpacks;
  if (r->unpack_status != TC_OK) return r->unpack_status;
  if (!r->unpack_writes) return TC_OK;
  auto it = r->kept.find(token);
  if (it == r->kept.end()) return TC_ERR_INTERNAL;
  return tc_tensor_retain(it->second, out);
}

void rec_free(void* ctx, uint64_t token) {
  auto* r = static_cast<Recorder*>(ctx);
  ++r->freed[token];
  auto it = r->kept.find(token);
  if (it != r->kept.end()) {
    tc_tensor_free(it->second);
    r->kept.erase(it);
  }
}

void rec_release(void*, void* ctx) { ++static_cast<Recorder*>(ctx)->releases; }

int64_t depth() {
  int64_t d = -1;
  EXPECT_EQ(tc_saved_tensors_hooks_depth(&d), TC_OK);
  return d;
}

tc_tensor leaf(const std::vector<double>& v) {
  const int64_t n = int64_t(v.size());
  tc_tensor t = nullptr;
  EXPECT_EQ(tc_from_data(v.data(), n * 8, &n, 1, TC_FLOAT64, &t), TC_OK);
  EXPECT_EQ(tc_tensor_set_requires_grad(t, 1), TC_OK);
  return t;
}

std::vector<double> grad_of(tc_tensor t) {
  tc_tensor g = nullptr;
  EXPECT_EQ(tc_tensor_grad(t, &g), TC_OK);
  std::vector<double> v = g ? values(tc::get_tensor(g, "g")) : std::vector<double>{};
  if (g) tc_tensor_free(g);
  return v;
}

// sum(exp(x * x)): MulBackward saves x twice, ExpBackward its output.
tc_tensor forward(tc_tensor x, int32_t* status = nullptr) {
  tc_tensor a = nullptr, b = nullptr, s = nullptr;
  int32_t rc = tc_mul(x, x, &a);
  if (rc == TC_OK) rc = tc_exp(a, &b);
  if (rc == TC_OK) rc = tc_sum(b, nullptr, 0, 0, &s);
  if (a) tc_tensor_free(a);
  if (b) tc_tensor_free(b);
  if (status) *status = rc;
  return s;
}

std::string last_error() {
  const char* m = nullptr;
  tc_last_error(&m);
  return m ? m : "";
}

class SavedTensorsHooks : public TcTest {};

TEST_F(SavedTensorsHooks, RoundTripGivesThePlainGradientAndFreesEveryTokenOnce) {
  const std::vector<double> v = {0.5, -1.0, 0.25};
  tc_tensor x0 = leaf(v), x1 = leaf(v);
  tc_tensor plain = forward(x0);
  ASSERT_EQ(tc_backward(plain, nullptr, 0), TC_OK);

  Recorder r;
  ASSERT_EQ(tc_saved_tensors_hooks_push(rec_pack, rec_unpack, rec_free, &r, rec_release), TC_OK);
  EXPECT_EQ(depth(), 1);
  tc_tensor hooked = forward(x1);
  ASSERT_EQ(tc_saved_tensors_hooks_pop(), TC_OK);
  EXPECT_EQ(depth(), 0);
  ASSERT_NE(hooked, nullptr);
  const int packs = r.packs;
  EXPECT_GE(packs, 2);  // at least mul's two operands
  EXPECT_EQ(r.unpacks, 0);
  EXPECT_EQ(r.releases, 0);  // the graph holds the pair

  ASSERT_EQ(tc_backward(hooked, nullptr, 1), TC_OK);  // retain: tokens stay
  EXPECT_EQ(r.unpacks, packs);
  EXPECT_TRUE(r.freed.empty());
  ASSERT_EQ(tc_backward(hooked, nullptr, 0), TC_OK);  // frees them
  EXPECT_EQ(r.unpacks, 2 * packs);
  EXPECT_EQ(int(r.freed.size()), packs);
  for (const auto& [token, n] : r.freed) EXPECT_EQ(n, 1) << "token " << token;
  EXPECT_TRUE(r.kept.empty());
  const std::vector<double> g0 = grad_of(x0), g1 = grad_of(x1);
  ASSERT_EQ(g0.size(), v.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(g1[i], 2 * g0[i], 1e-12);  // two passes accumulated

  // No token left: nothing holds the pair any more.
  EXPECT_EQ(r.releases, 1);
  // A third backward finds the saved tensors freed, as without hooks.
  EXPECT_EQ(tc_backward(hooked, nullptr, 0), TC_ERR_AUTOGRAD);
  EXPECT_EQ(r.unpacks, 2 * packs);
  tc_tensor_free(hooked);
  EXPECT_EQ(r.releases, 1);
  for (tc_tensor t : {plain, x0, x1}) tc_tensor_free(t);
}

TEST_F(SavedTensorsHooks, APackedTensorThatChangedChangesTheGradient) {
  tc_tensor x = leaf({1.0, 2.0}), y = leaf({3.0, -1.0});
  Recorder r;
  r.scale = 2.0;
  ASSERT_EQ(tc_saved_tensors_hooks_push(rec_pack, rec_unpack, rec_free, &r, nullptr), TC_OK);
  tc_tensor p = nullptr, s = nullptr;
  ASSERT_EQ(tc_mul(x, y, &p), TC_OK);
  ASSERT_EQ(tc_saved_tensors_hooks_pop(), TC_OK);
  ASSERT_EQ(tc_sum(p, nullptr, 0, 0, &s), TC_OK);
  ASSERT_EQ(tc_backward(s, nullptr, 0), TC_OK);
  EXPECT_EQ(grad_of(x), (std::vector<double>{6.0, -2.0}));  // d/dx = 2y
  EXPECT_EQ(grad_of(y), (std::vector<double>{2.0, 4.0}));
  EXPECT_EQ(r.packs, 2);
  EXPECT_EQ(int(r.freed.size()), 2);
  for (tc_tensor t : {s, p, x, y}) tc_tensor_free(t);
}

TEST_F(SavedTensorsHooks, TheGraphOwnsTheTokensUntilItDies) {
  tc_tensor x = leaf({0.1, 0.2});
  Recorder r;
  ASSERT_EQ(tc_saved_tensors_hooks_push(rec_pack, rec_unpack, rec_free, &r, rec_release), TC_OK);
  tc_tensor s = forward(x);
  ASSERT_EQ(tc_saved_tensors_hooks_pop(), TC_OK);
  EXPECT_EQ(r.releases, 0);
  EXPECT_TRUE(r.freed.empty());
  tc_tensor_free(s);  // no backward: the graph dies with its root
  EXPECT_EQ(int(r.freed.size()), r.packs);
  for (const auto& [token, n] : r.freed) EXPECT_EQ(n, 1) << "token " << token;
  EXPECT_EQ(r.unpacks, 0);
  EXPECT_EQ(r.releases, 1);
  tc_tensor_free(x);
}

TEST_F(SavedTensorsHooks, AFailingPackFailsTheOpWithItsStatusAndFreesWhatItPacked) {
  tc_tensor x = leaf({1.0, 2.0});
  Recorder r;
  r.fail_pack_at = 1;  // mul's second operand
  ASSERT_EQ(tc_saved_tensors_hooks_push(rec_pack, rec_unpack, rec_free, &r, rec_release), TC_OK);
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_mul(x, x, &out), TC_ERR_SHAPE);
  EXPECT_EQ(out, nullptr);
  const std::string m = last_error();
  EXPECT_NE(m.find("tc_mul"), std::string::npos) << m;
  EXPECT_NE(m.find("pack hook"), std::string::npos) << m;
  EXPECT_NE(m.find("pack refused"), std::string::npos) << m;
  EXPECT_EQ(r.packs, 2);
  EXPECT_EQ(int(r.freed.size()), 1);  // the first operand's token
  EXPECT_TRUE(r.kept.empty());
  // Ops saving nothing run as before.
  tc_tensor a = nullptr;
  EXPECT_EQ(tc_add(x, x, &a), TC_OK);
  ASSERT_EQ(tc_saved_tensors_hooks_pop(), TC_OK);
  EXPECT_EQ(r.releases, 1);
  tc_tensor_free(a);
  tc_tensor_free(x);
}

TEST_F(SavedTensorsHooks, AFailingOrEmptyUnpackFailsTheBackwardNamingTheNode) {
  for (const bool writes : {true, false}) {
    tc_tensor x = leaf({1.0, 2.0});
    Recorder r;
    r.unpack_status = writes ? 77 : TC_OK;  // 77: not a status, so TC_ERR_CALLBACK
    r.unpack_writes = writes;
    ASSERT_EQ(tc_saved_tensors_hooks_push(rec_pack, rec_unpack, rec_free, &r, nullptr), TC_OK);
    tc_tensor p = nullptr, s = nullptr;
    ASSERT_EQ(tc_mul(x, x, &p), TC_OK);
    ASSERT_EQ(tc_saved_tensors_hooks_pop(), TC_OK);
    ASSERT_EQ(tc_sum(p, nullptr, 0, 0, &s), TC_OK);
    EXPECT_EQ(tc_backward(s, nullptr, 0), TC_ERR_CALLBACK);
    const std::string m = last_error();
    EXPECT_NE(m.find("MulBackward"), std::string::npos) << m;
    EXPECT_NE(m.find("unpack hook"), std::string::npos) << m;
    if (!writes) {
      EXPECT_NE(m.find("wrote no tensor"), std::string::npos) << m;
    }
    EXPECT_EQ(grad_of(x), std::vector<double>{});
    for (tc_tensor t : {s, p, x}) tc_tensor_free(t);
    EXPECT_EQ(int(r.freed.size()), 2);
    EXPECT_TRUE(r.kept.empty());
  }
}

TEST_F(SavedTensorsHooks, MisuseIsRefusedAndReleaseRunsOnce) {
  Recorder r;
  EXPECT_EQ(tc_saved_tensors_hooks_pop(), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_saved_tensors_hooks_push(nullptr, rec_unpack, rec_free, &r, rec_release),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(r.releases, 1);
  EXPECT_EQ(tc_saved_tensors_hooks_push(rec_pack, nullptr, nullptr, &r, rec_release),
            TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(r.releases, 2);
  EXPECT_EQ(tc_saved_tensors_hooks_depth(nullptr), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(depth(), 0);
  // free_token may be NULL: then the hooks keep nothing that needs freeing.
  ASSERT_EQ(tc_saved_tensors_hooks_push(rec_pack, rec_unpack, nullptr, &r, rec_release), TC_OK);
  ASSERT_EQ(tc_saved_tensors_hooks_pop(), TC_OK);
  EXPECT_EQ(r.releases, 3);  // popped, and no graph holds it
}

TEST_F(SavedTensorsHooks, NestedPairsUseTheTopOneAndTheStackIsPerThread) {
  tc_tensor x = leaf({1.0, 2.0});
  Recorder outer, inner;
  ASSERT_EQ(tc_saved_tensors_hooks_push(rec_pack, rec_unpack, rec_free, &outer, nullptr), TC_OK);
  ASSERT_EQ(tc_saved_tensors_hooks_push(rec_pack, rec_unpack, rec_free, &inner, nullptr), TC_OK);
  EXPECT_EQ(depth(), 2);
  tc_tensor p = nullptr, q = nullptr;
  ASSERT_EQ(tc_mul(x, x, &p), TC_OK);
  EXPECT_EQ(inner.packs, 2);
  EXPECT_EQ(outer.packs, 0);
  int64_t other_depth = -1;
  int other_status = -1;
  std::thread t([&] {
    other_status = tc_saved_tensors_hooks_depth(&other_depth);
    tc_tensor r2 = nullptr;
    if (tc_mul(x, x, &r2) == TC_OK) tc_tensor_free(r2);
  });
  t.join();
  EXPECT_EQ(other_status, TC_OK);
  EXPECT_EQ(other_depth, 0);
  EXPECT_EQ(inner.packs + outer.packs, 2);  // the other thread's op used no hooks
  ASSERT_EQ(tc_saved_tensors_hooks_pop(), TC_OK);
  ASSERT_EQ(tc_mul(p, x, &q), TC_OK);
  EXPECT_EQ(outer.packs, 2);
  ASSERT_EQ(tc_saved_tensors_hooks_pop(), TC_OK);
  for (tc_tensor h : {q, p, x}) tc_tensor_free(h);
  EXPECT_EQ(int(inner.freed.size()), 2);
  EXPECT_EQ(int(outer.freed.size()), 2);
}

}  // namespace
