// Concurrency through the C ABI (run under TSan and ASan by scripts/sanitize.sh).
//
// tc.h's contract: a data race on a tensor's *data* is the caller's business,
// but libtc's own bookkeeping (handles, grads, graphs, optimizer state, live
// counts, init) is always safe. Races once broke it five ways; this file makes
// that class of bug hard to bring back:
//  - ActionPair: a table of every mutating action on one shared tensor,
//    graph and optimizer, and a test for every pair of them (an action with
//    itself included), each action on half of the threads. Every status must
//    be one the contract allows for that action next to that partner, and
//    live_tensors/live_handles must be back at their baseline at the end.
//  - ConcurrencyBackward: N threads backpropagate through one graph at once:
//    without retain_graph exactly one pass succeeds, and failed passes change
//    nothing (the grad is a whole number of passes, bit for bit).
//  - ConcurrencyShutdown: the last tc_shutdown races calls in flight.
// New actions go into kActions: every pair with them is then tested.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tc.h"
#include "tc_binary_ops.h"

#if defined(__SANITIZE_THREAD__)
#define TC_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TC_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TC_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TC_UNDER_ASAN 1
#endif
#endif

namespace {

// Elements of the shared leaf: big enough that accumulating into its grad or
// stepping on it takes long enough for racing calls to overlap.
constexpr int64_t kN = 4096;
constexpr int kThreads = 4;
// Per thread. TSan reports unordered accesses whether or not they collide in
// time, so a few iterations suffice there; elsewhere only a collision shows
// (a crash, a wrong count, an ASan report), so more of them, fewer in the
// slower ASan build. One pair takes about a second at most in Release, a few
// under a sanitizer.
#ifdef TC_UNDER_TSAN
constexpr int kIters = 300;
#elif defined(TC_UNDER_ASAN)
constexpr int kIters = 1000;
#else
constexpr int kIters = 2000;
#endif
constexpr double kLrs[] = {1e-3, 2e-3};

int64_t flag(const char* name) {
  int64_t v = -1;
  tc_get_flag(name, &v);
  return v;
}

std::string status_name(int32_t rc) {
  const char* s = nullptr;
  if (tc_status_name(rc, &s) != TC_OK || !s) return "status " + std::to_string(rc);
  return s;
}

// Spins (yielding: 2 cores, many threads) until every thread has arrived.
void arrive_and_wait(std::atomic<int>& arrived, int count) {
  arrived.fetch_add(1);
  while (arrived.load() < count) std::this_thread::yield();
}

// Failures seen by worker threads: counted, the first few kept with the
// failing thread's tc_last_error message.
class Report {
 public:
  void expect(int32_t rc, std::initializer_list<int32_t> allowed, const std::string& what) {
    for (int32_t a : allowed)
      if (rc == a) return;
    fail(what + " returned " + status_name(rc));
  }
  void fail(const std::string& what) {
    const char* msg = "";
    tc_last_error(&msg);
    std::lock_guard<std::mutex> g(mu_);
    if (messages_.size() < 10) messages_.push_back(what + " (last error: " + (msg ? msg : "") + ")");
    ++count_;
  }
  int count() {
    std::lock_guard<std::mutex> g(mu_);
    return count_;
  }
  std::string summary() {
    std::lock_guard<std::mutex> g(mu_);
    std::string s;
    for (const std::string& m : messages_) s += "\n  " + m;
    return s;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> messages_;
  int count_ = 0;
};

tc_tensor from_floats(const std::vector<float>& v) {
  tc_tensor t = nullptr;
  const int64_t shape[] = {int64_t(v.size())};
  tc_from_data(v.data(), int64_t(v.size() * sizeof(float)), shape, 1, TC_FLOAT32, &t);
  return t;
}

// ---- the shared objects every action works on ----

struct Shared {
  tc_tensor x = nullptr;            // leaf, requires grad: the parameter
  tc_tensor src = nullptr;          // source of tc_copy_ (never written)
  tc_tensor one = nullptr;          // operand of tc_add_ (never written)
  tc_tensor root = nullptr;         // sum(x * x): the graph every thread backpropagates through
  tc_optimizer opt = nullptr;       // Adam over x
  std::atomic<int> noretain_ok{0};  // successful passes without retain_graph through root
  // The caller's own lock on x's data: see races_on_data.
  std::mutex data_mu;

  bool make() {
    std::vector<float> xv(kN), sv(kN);
    for (int64_t i = 0; i < kN; ++i) {
      xv[size_t(i)] = float(i % 7 - 3);
      sv[size_t(i)] = float(i % 5);
    }
    x = from_floats(xv);
    src = from_floats(sv);
    const int64_t shape[] = {kN};
    if (!x || !src || tc_ones(shape, 1, TC_FLOAT32, TC_CPU, &one) != TC_OK) return false;
    if (tc_tensor_set_requires_grad(x, 1) != TC_OK) return false;
    tc_tensor sq = nullptr;
    if (tc_mul(x, x, &sq) != TC_OK) return false;
    const int32_t rc = tc_sum(sq, nullptr, 0, 0, &root);
    tc_tensor_free(sq);
    if (rc != TC_OK) return false;
    // x starts with a grad (from a graph of its own), so that steps have
    // something to do even when no backward runs beside them.
    tc_tensor sq2 = nullptr, s2 = nullptr;
    bool graded = tc_mul(x, x, &sq2) == TC_OK && tc_sum(sq2, nullptr, 0, 0, &s2) == TC_OK &&
                  tc_backward(s2, nullptr, 0) == TC_OK;
    for (tc_tensor t : {sq2, s2})
      if (t) tc_tensor_free(t);
    if (!graded) return false;
    tc_adam_options o{};
    o.size = sizeof o;
    o.lr = kLrs[0];
    o.beta1 = 0.9;
    o.beta2 = 0.999;
    o.eps = 1e-8;
    return tc_optimizer_adam(&x, 1, &o, &opt) == TC_OK;
  }
  ~Shared() {
    for (tc_tensor t : {x, src, one, root})
      if (t) tc_tensor_free(t);
    if (opt) tc_optimizer_free(opt);
  }
};

// ---- the actions ----

// What an action does that can make a racing action fail, legitimately, with
// TC_ERR_AUTOGRAD.
enum Effect : unsigned {
  kBumpsVersion = 1,         // writes x in place: graphs that saved x are stale
  kFreesSharedGraph = 2,     // backward without retain_graph through root
  kHoldsSharedGraph = 4,     // backward with retain_graph through root: a pass that would free it fails
  kTogglesRequiresGrad = 8,  // a forward at that moment records no graph
  kAnything = ~0u,
};

// Accesses to *data* (not bookkeeping), which tc.h leaves to the caller.
enum DataAccess : unsigned {
  kReadsX = 1,
  kWritesX = 2,
  kReadsGradData = 4,   // outside the grad's lock (an optimizer step)
  kWritesGradData = 8,  // under the grad's lock (accumulation)
};

struct Ctx {
  Shared& s;
  Report& report;
  int thread;
  int iter;
  bool may_fail;  // the partner's (or this action's own) effects may make it fail with TC_ERR_AUTOGRAD

  void expect(int32_t rc, const char* what) { report.expect(rc, {TC_OK}, what); }
  void expect_backward(int32_t rc, const char* what) {
    if (may_fail)
      report.expect(rc, {TC_OK, TC_ERR_AUTOGRAD}, what);
    else
      report.expect(rc, {TC_OK}, what);
  }
};

struct Action {
  const char* name;
  unsigned data;         // DataAccess bits
  unsigned effects;      // Effect bits it has on every other action
  unsigned fails_on;     // Effect bits (of the partner or of itself) that may make it fail
  bool self_serialized;  // libtc serializes it against itself, data included
  void (*run)(Ctx&);
};

void backward_retain(Ctx& c) {
  c.expect_backward(tc_backward(c.s.root, nullptr, 1), "tc_backward(root, retain=1)");
}

void backward_noretain(Ctx& c) {
  // Racing passes without retain_graph: at most one ever succeeds (checked
  // after the run); the rest, and every later one, get TC_ERR_AUTOGRAD.
  const int32_t rc = tc_backward(c.s.root, nullptr, 0);
  c.report.expect(rc, {TC_OK, TC_ERR_AUTOGRAD}, "tc_backward(root, retain=0)");
  if (rc == TC_OK) c.s.noretain_ok.fetch_add(1);
}

void backward_fresh(Ctx& c) {
  // A graph of this thread's own over the shared leaf: forward, a pass with
  // retain_graph, then the last pass without.
  tc_tensor sq = nullptr, s = nullptr;
  c.expect(tc_mul(c.s.x, c.s.x, &sq), "tc_mul(x, x)");
  c.expect(tc_sum(sq, nullptr, 0, 0, &s), "tc_sum");
  if (s) {
    c.expect_backward(tc_backward(s, nullptr, 1), "tc_backward(own graph, retain=1)");
    c.expect_backward(tc_backward(s, nullptr, 0), "tc_backward(own graph, retain=0)");
  }
  for (tc_tensor t : {sq, s})
    if (t) c.expect(tc_tensor_free(t), "tc_tensor_free(own graph)");
}

void clear_grad(Ctx& c) { c.expect(tc_tensor_clear_grad(c.s.x), "tc_tensor_clear_grad(x)"); }

void zero_grad(Ctx& c) { c.expect(tc_optimizer_zero_grad(c.s.opt), "tc_optimizer_zero_grad"); }

void step(Ctx& c) { c.expect(tc_optimizer_step(c.s.opt), "tc_optimizer_step"); }

void learning_rate(Ctx& c) {
  c.expect(tc_optimizer_set_lr(c.s.opt, kLrs[(c.thread + c.iter) % 2]), "tc_optimizer_set_lr");
  double lr = -1;
  c.expect(tc_optimizer_get_lr(c.s.opt, &lr), "tc_optimizer_get_lr");
  if (lr != kLrs[0] && lr != kLrs[1]) c.report.fail("tc_optimizer_get_lr gave " + std::to_string(lr));
}

void in_place(Ctx& c) {
  // In-place on a leaf that requires grad is allowed only with grad mode off
  // (per thread).
  int32_t prev = 1;
  c.expect(tc_set_grad_enabled(0, &prev), "tc_set_grad_enabled(0)");
  switch (c.iter % 3) {
    case 0:
      c.expect(tc_add_(c.s.x, c.s.one), "tc_add_(x, one)");
      break;
    case 1:
      c.expect(tc_fill_(c.s.x, double(c.iter % 5)), "tc_fill_(x)");
      break;
    default:
      c.expect(tc_copy_(c.s.x, c.s.src), "tc_copy_(x, src)");
  }
  c.expect(tc_set_grad_enabled(prev, nullptr), "tc_set_grad_enabled(prev)");
}

void retain_free(Ctx& c) {
  tc_tensor hx = nullptr, hr = nullptr;
  c.expect(tc_tensor_retain(c.s.x, &hx), "tc_tensor_retain(x)");
  c.expect(tc_tensor_retain(c.s.root, &hr), "tc_tensor_retain(root)");
  int32_t same = 0;
  c.expect(tc_tensor_same(hx, c.s.x, &same), "tc_tensor_same");
  if (same != 1) c.report.fail("a retained handle is not the same tensor");
  for (tc_tensor t : {hx, hr})
    if (t) c.expect(tc_tensor_free(t), "tc_tensor_free(retained)");
}

void grad_read(Ctx& c) {
  // The handle only: reading the grad's values while another thread
  // accumulates into them would be a (permitted) race on data.
  tc_tensor g = nullptr;
  c.expect(tc_tensor_grad(c.s.x, &g), "tc_tensor_grad(x)");
  if (!g) return;
  int64_t numel = -1;
  c.expect(tc_tensor_numel(g, &numel), "tc_tensor_numel(grad)");
  if (numel != kN) c.report.fail("the grad has " + std::to_string(numel) + " elements");
  c.expect(tc_tensor_free(g), "tc_tensor_free(grad)");
}

void requires_grad(Ctx& c) {
  c.expect(tc_tensor_set_requires_grad(c.s.x, 0), "tc_tensor_set_requires_grad(x, 0)");
  int32_t v = -1;
  c.expect(tc_tensor_requires_grad(c.s.x, &v), "tc_tensor_requires_grad(x)");
  if (v != 0 && v != 1) c.report.fail("tc_tensor_requires_grad gave " + std::to_string(v));
  c.expect(tc_tensor_set_requires_grad(c.s.x, 1), "tc_tensor_set_requires_grad(x, 1)");
}

void init_cycle(Ctx& c) {
  // The test holds an outer tc_init: these only count references.
  c.expect(tc_init(nullptr), "tc_init (nested)");
  int64_t v = -1;
  c.expect(tc_get_flag("live_handles", &v), "tc_get_flag(live_handles)");
  c.expect(tc_shutdown(), "tc_shutdown (nested)");
}

const Action kActions[] = {
    {"backward_retain", kReadsX | kWritesGradData, kHoldsSharedGraph, kBumpsVersion | kFreesSharedGraph,
     false, backward_retain},
    {"backward_noretain", kReadsX | kWritesGradData, kFreesSharedGraph, kAnything, false, backward_noretain},
    {"backward_fresh", kReadsX | kWritesGradData, 0, kBumpsVersion | kTogglesRequiresGrad, false,
     backward_fresh},
    {"clear_grad", 0, 0, 0, false, clear_grad},
    {"zero_grad", 0, 0, 0, false, zero_grad},
    {"step", kReadsGradData | kWritesX, kBumpsVersion, 0, true, step},
    {"learning_rate", 0, 0, 0, false, learning_rate},
    {"in_place", kWritesX, kBumpsVersion, 0, false, in_place},
    {"retain_free", 0, 0, 0, false, retain_free},
    {"grad_read", 0, 0, 0, false, grad_read},
    {"requires_grad", 0, kTogglesRequiresGrad, 0, false, requires_grad},
    {"init_cycle", 0, 0, 0, false, init_cycle},
};
constexpr int kActionCount = int(sizeof kActions / sizeof kActions[0]);

// Whether a and b, run at once, race on data (tc.h: the caller's business).
// The caller then orders them, as a correct program must; under TSan this
// test does, so that any report is about libtc's bookkeeping. Elsewhere the
// pairs run unordered too: a race on data must never break the bookkeeping
// (statuses, counts), whatever values it leaves in the data.
bool races_on_data(const Action& a, const Action& b) {
  if (&a == &b && a.self_serialized) return false;
  auto writes_over = [](unsigned w, unsigned o) { return (w & kWritesX) && (o & (kReadsX | kWritesX)); };
  auto reads_grad_under = [](unsigned r, unsigned w) {
    return (r & kReadsGradData) && (w & kWritesGradData);
  };
  return writes_over(a.data, b.data) || writes_over(b.data, a.data) || reads_grad_under(a.data, b.data) ||
         reads_grad_under(b.data, a.data);
}

#ifdef TC_UNDER_TSAN
constexpr bool kCallerOrdersDataRaces = true;
#else
constexpr bool kCallerOrdersDataRaces = false;
#endif

struct Pair {
  int a, b;
};

std::vector<Pair> all_pairs() {
  std::vector<Pair> pairs;
  for (int a = 0; a < kActionCount; ++a)
    for (int b = a; b < kActionCount; ++b) pairs.push_back({a, b});
  return pairs;
}

class ActionPair : public ::testing::TestWithParam<Pair> {};

TEST_P(ActionPair, AllowedStatusesAndNoLeak) {
  const Action& a = kActions[GetParam().a];
  const Action& b = kActions[GetParam().b];
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const int64_t tensors0 = flag("live_tensors"), handles0 = flag("live_handles");
  {
    Shared s;
    ASSERT_TRUE(s.make()) << "setting up the shared objects failed";
    const unsigned effects = a.effects | b.effects;
    // Two threads run each action: an action races with its partner and with
    // its own other thread.
    const bool a_orders = kCallerOrdersDataRaces && (races_on_data(a, b) || races_on_data(a, a));
    const bool b_orders = kCallerOrdersDataRaces && (races_on_data(a, b) || races_on_data(b, b));
    Report report;
    std::atomic<int> arrived{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t) {
      const Action* act = t % 2 == 0 ? &a : &b;
      const bool order_data = t % 2 == 0 ? a_orders : b_orders;
      pool.emplace_back([&, t, act, order_data] {
        Ctx c{s, report, t, 0, (act->fails_on & effects) != 0};
        arrive_and_wait(arrived, kThreads);
        for (int i = 0; i < kIters; ++i) {
          c.iter = i;
          if (order_data) {
            std::lock_guard<std::mutex> g(s.data_mu);
            act->run(c);
          } else {
            act->run(c);
          }
        }
      });
    }
    for (auto& th : pool) th.join();
    EXPECT_EQ(report.count(), 0) << report.summary();

    const bool has_noretain =
        std::string(a.name) == "backward_noretain" || std::string(b.name) == "backward_noretain";
    if (has_noretain) {
      const int ok = s.noretain_ok.load();
      EXPECT_LE(ok, 1) << "passes without retain_graph through one graph succeeded " << ok << " times";
      // Nothing else could stop the first of them.
      if ((effects & (kBumpsVersion | kHoldsSharedGraph)) == 0) {
        EXPECT_EQ(ok, 1) << "no pass without retain_graph succeeded";
      }
    }
    if (std::string(a.name) == "backward_retain" && std::string(b.name) == "backward_retain") {
      // Only retained passes: the graph stays usable, and one last pass
      // without retain_graph frees it.
      EXPECT_EQ(tc_backward(s.root, nullptr, 0), TC_OK);
      EXPECT_EQ(tc_backward(s.root, nullptr, 0), TC_ERR_AUTOGRAD);
    }
  }
  EXPECT_EQ(flag("live_tensors"), tensors0) << "tensors leaked (or were freed twice)";
  EXPECT_EQ(flag("live_handles"), handles0) << "handles leaked";
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

INSTANTIATE_TEST_SUITE_P(Concurrency, ActionPair, ::testing::ValuesIn(all_pairs()),
                         [](const ::testing::TestParamInfo<Pair>& info) {
                           return std::string(kActions[info.param.a].name) + "__" +
                                  kActions[info.param.b].name;
                         });

// ---- several backward passes over one graph ----

constexpr int kPassThreads = 8;
// Rounds, each on a fresh graph: how often racing passes overlap depends on
// the scheduler (TSan needs no overlap to see a race).
#ifdef TC_UNDER_TSAN
constexpr int kRounds = 20;
#else
constexpr int kRounds = 100;
#endif

// A fresh leaf x of small integers, a chain y = x * s1 * ... * sK of
// constant +-1 factors (every node saves tensors, and a pass is long enough
// for racing passes to overlap), root = sum(y * x). One pass adds
// 2 * x * s1 * ... * sK to x's grad: small integers, so any number of passes
// sums exactly.
struct Graph {
  static constexpr int64_t kLen = 4096;
  static constexpr int kChain = 16;
  std::vector<float> once;  // one pass's gradient
  tc_tensor x = nullptr, root = nullptr;
  explicit Graph(int seed) : once(size_t(kLen)) {
    std::vector<float> xv(static_cast<size_t>(kLen)), sign(static_cast<size_t>(kLen), 1.0f);
    for (int64_t i = 0; i < kLen; ++i) xv[size_t(i)] = float((i + seed) % 9 - 4);
    x = from_floats(xv);
    if (!x || tc_tensor_set_requires_grad(x, 1) != TC_OK) return;
    tc_tensor y = nullptr;
    if (tc_tensor_retain(x, &y) != TC_OK) return;
    for (int k = 0; k < kChain && y; ++k) {
      std::vector<float> sv(static_cast<size_t>(kLen));
      for (int64_t i = 0; i < kLen; ++i) {
        sv[size_t(i)] = (i * 7 + k * 3 + seed) % 5 < 2 ? -1.0f : 1.0f;
        sign[size_t(i)] *= sv[size_t(i)];
      }
      tc_tensor s = from_floats(sv), next = nullptr;
      if (s) tc_mul(y, s, &next);
      for (tc_tensor t : {s, y})
        if (t) tc_tensor_free(t);
      y = next;
    }
    tc_tensor yx = nullptr;
    if (y && tc_mul(y, x, &yx) == TC_OK) tc_sum(yx, nullptr, 0, 0, &root);
    for (tc_tensor t : {y, yx})
      if (t) tc_tensor_free(t);
    for (int64_t i = 0; i < kLen; ++i) once[size_t(i)] = 2.0f * xv[size_t(i)] * sign[size_t(i)];
  }
  ~Graph() {
    for (tc_tensor t : {x, root})
      if (t) tc_tensor_free(t);
  }
  // Whether x's grad is exactly `passes` gradients of one pass (no grad for 0).
  ::testing::AssertionResult grad_is(int passes) const {
    tc_tensor g = nullptr;
    if (tc_tensor_grad(x, &g) != TC_OK) return ::testing::AssertionFailure() << "tc_tensor_grad failed";
    if (!g) {
      if (passes == 0) return ::testing::AssertionSuccess();
      return ::testing::AssertionFailure() << "no grad after " << passes << " successful passes";
    }
    std::vector<float> gv(static_cast<size_t>(kLen), NAN);
    const int32_t rc = tc_tensor_copy_to(g, gv.data(), kLen * int64_t(sizeof(float)));
    tc_tensor_free(g);
    if (rc != TC_OK) return ::testing::AssertionFailure() << "tc_tensor_copy_to failed";
    for (int64_t i = 0; i < kLen; ++i) {
      const float want = float(passes) * once[size_t(i)];
      if (gv[size_t(i)] != want)
        return ::testing::AssertionFailure() << "grad[" << i << "] is " << gv[size_t(i)] << ", not " << want
                                             << " (" << passes << " passes)";
    }
    return ::testing::AssertionSuccess();
  }
};

// Runs tc_backward(root, NULL, retain(i)) on kPassThreads threads released
// together; returns each thread's status.
template <typename Retain>
std::vector<int32_t> race_backward(tc_tensor root, Retain retain) {
  std::vector<int32_t> rc(kPassThreads, -1);
  std::atomic<int> arrived{0};
  std::vector<std::thread> pool;
  for (int i = 0; i < kPassThreads; ++i) {
    pool.emplace_back([&, i] {
      arrive_and_wait(arrived, kPassThreads);
      rc[size_t(i)] = tc_backward(root, nullptr, retain(i));
    });
  }
  for (auto& t : pool) t.join();
  return rc;
}

TEST(ConcurrencyBackward, ExactlyOnePassWithoutRetainGraphSucceeds) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const int64_t tensors0 = flag("live_tensors"), handles0 = flag("live_handles");
  for (int round = 0; round < kRounds; ++round) {
    {
      Graph g(round);
      ASSERT_TRUE(g.root);
      const std::vector<int32_t> rc = race_backward(g.root, [](int) { return 0; });
      int ok = 0;
      for (int32_t r : rc) {
        EXPECT_TRUE(r == TC_OK || r == TC_ERR_AUTOGRAD) << "round " << round << ": " << status_name(r);
        ok += r == TC_OK;
      }
      EXPECT_EQ(ok, 1) << "round " << round << ": " << ok << " of " << kPassThreads
                       << " passes without retain_graph succeeded";
      EXPECT_TRUE(g.grad_is(1)) << "round " << round;
    }
    // A bug once: after racing passes, freeing every handle left tensors alive.
    ASSERT_EQ(flag("live_tensors"), tensors0) << "round " << round;
    ASSERT_EQ(flag("live_handles"), handles0) << "round " << round;
  }
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

TEST(ConcurrencyBackward, PassesWithRetainGraphRunTogether) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const int64_t tensors0 = flag("live_tensors"), handles0 = flag("live_handles");
  for (int round = 0; round < kRounds; ++round) {
    Graph g(round);
    ASSERT_TRUE(g.root);
    for (int32_t r : race_backward(g.root, [](int) { return 1; }))
      EXPECT_EQ(r, TC_OK) << "round " << round << ": " << status_name(r);
    EXPECT_TRUE(g.grad_is(kPassThreads)) << "round " << round;
    // The graph is intact: one last pass without retain_graph, then none.
    EXPECT_EQ(tc_backward(g.root, nullptr, 0), TC_OK);
    EXPECT_EQ(tc_backward(g.root, nullptr, 1), TC_ERR_AUTOGRAD);
    EXPECT_TRUE(g.grad_is(kPassThreads + 1)) << "round " << round;
  }
  EXPECT_EQ(flag("live_tensors"), tensors0);
  EXPECT_EQ(flag("live_handles"), handles0);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

TEST(ConcurrencyBackward, MixedPassesFailedOnesChangeNothing) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const int64_t tensors0 = flag("live_tensors"), handles0 = flag("live_handles");
  for (int round = 0; round < kRounds; ++round) {
    Graph g(round);
    ASSERT_TRUE(g.root);
    const std::vector<int32_t> rc = race_backward(g.root, [](int i) { return i % 2; });
    int ok = 0, ok_without_retain = 0;
    for (int i = 0; i < kPassThreads; ++i) {
      const int32_t r = rc[size_t(i)];
      EXPECT_TRUE(r == TC_OK || r == TC_ERR_AUTOGRAD) << "round " << round << ": " << status_name(r);
      ok += r == TC_OK;
      if (i % 2 == 0) ok_without_retain += r == TC_OK;
    }
    EXPECT_LE(ok_without_retain, 1) << "round " << round;
    // Every successful pass added one gradient; failed ones added nothing.
    EXPECT_TRUE(g.grad_is(ok)) << "round " << round << ": " << ok << " passes succeeded";
    // ...and freed nothing: the graph is usable unless a pass without
    // retain_graph succeeded.
    EXPECT_EQ(tc_backward(g.root, nullptr, 0), ok_without_retain ? TC_ERR_AUTOGRAD : TC_OK)
        << "round " << round;
  }
  EXPECT_EQ(flag("live_tensors"), tensors0);
  EXPECT_EQ(flag("live_handles"), handles0);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

// ---- the last tc_shutdown against calls in flight ----

// Workers call into libtc (a long matmul among short calls) while the main
// thread drops the last reference. Each call either finishes before the
// shutdown (TC_OK) or sees it (TC_ERR_NOT_INITIALIZED), and once a thread
// has seen it no later call succeeds. A handle a call got is never valid
// after the next tc_init, which starts with nothing alive.
TEST(ConcurrencyShutdown, LastShutdownRacesCallsInFlight) {
  int32_t up = -1;
  tc_is_initialized(&up);
  ASSERT_EQ(up, 0) << "this test must own the last reference";
  constexpr int kShutdownRounds = 4, kWorkers = 4, kMaxCalls = 48;
  constexpr int64_t kM = 384;  // a matmul of some milliseconds: likely in flight at the shutdown
  int down_seen = 0;
  for (int round = 0; round < kShutdownRounds; ++round) {
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    const int64_t mshape[] = {kM, kM}, small[] = {8};
    tc_tensor A = nullptr, B = nullptr;
    ASSERT_EQ(tc_rand(mshape, 2, TC_FLOAT32, TC_CPU, &A), TC_OK);
    ASSERT_EQ(tc_rand(mshape, 2, TC_FLOAT32, TC_CPU, &B), TC_OK);
    struct Worker {
      std::vector<tc_tensor> got;
      std::vector<std::string> bad;
      int down = 0;
    };
    std::vector<Worker> workers(kWorkers);
    std::atomic<int> started{0};
    std::vector<std::thread> pool;
    for (int w = 0; w < kWorkers; ++w) {
      pool.emplace_back([&, w] {
        Worker& me = workers[size_t(w)];
        for (int i = 0; i < kMaxCalls && me.down < 3; ++i) {
          tc_tensor out = nullptr;
          int32_t rc;
          const char* what;
          switch ((i + w) % 4) {
            case 0:
              what = "tc_matmul";
              rc = tc_matmul(A, B, &out);
              break;
            case 1:
              what = "tc_zeros";
              rc = tc_zeros(small, 1, TC_FLOAT32, TC_CPU, &out);
              break;
            case 2:
              what = "tc_tensor_retain";
              rc = tc_tensor_retain(A, &out);
              break;
            default: {
              what = "tc_get_flag";
              int64_t v = 0;
              rc = tc_get_flag("live_tensors", &v);
            }
          }
          if (i == 0) started.fetch_add(1);
          if (rc == TC_OK && out) me.got.push_back(out);  // kept: checked after the next tc_init
          if (rc == TC_OK && me.down > 0) {
            me.bad.push_back(std::string(what) + " succeeded after an earlier call saw libtc shut down");
          } else if (rc == TC_ERR_NOT_INITIALIZED) {
            ++me.down;
          } else if (rc != TC_OK) {
            me.bad.push_back(std::string(what) + " returned " + status_name(rc));
          }
        }
      });
    }
    while (started.load() < kWorkers) std::this_thread::yield();
    EXPECT_EQ(tc_shutdown(), TC_OK);
    for (auto& t : pool) t.join();
    for (const Worker& w : workers) {
      for (const std::string& b : w.bad) ADD_FAILURE() << "round " << round << ": " << b;
      down_seen += w.down > 0;
    }

    ASSERT_EQ(tc_init(nullptr), TC_OK);
    EXPECT_EQ(flag("live_handles"), 0) << "round " << round << ": handles survived the last tc_shutdown";
    EXPECT_EQ(flag("live_tensors"), 0) << "round " << round << ": tensors survived the last tc_shutdown";
    std::vector<tc_tensor> stale = {A, B};
    for (const Worker& w : workers) stale.insert(stale.end(), w.got.begin(), w.got.end());
    int valid = 0;
    for (tc_tensor h : stale) {
      int64_t numel = -1;
      const int32_t rc = tc_tensor_numel(h, &numel);
      if (rc != TC_ERR_INVALID_HANDLE) ++valid;
      if (rc == TC_OK) tc_tensor_free(h);  // so that later rounds start clean even when this one fails
    }
    EXPECT_EQ(valid, 0) << "round " << round << ": " << valid << " of " << stale.size()
                        << " handles from before the shutdown are valid after the next tc_init";
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
  // Not an assertion (timing decides it): how often the race was really run.
  std::printf("last shutdown vs calls in flight: %d of %d worker threads saw the shutdown\n", down_seen,
              kShutdownRounds * kWorkers);
}

}  // namespace
