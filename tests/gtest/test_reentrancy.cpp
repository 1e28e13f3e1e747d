// Re-entrancy: every callback libtc makes calls back into libtc from inside
// the callback, from every context libtc runs it in (run under TSan and ASan
// by scripts/sanitize.sh).
//
// A case is (callback, trigger, body):
//  - callback: a row of kCallbacks, one per callback libtc makes today. Each
//    row makes a float32 [4] tensor whose death runs the callback once.
//    NEW CALLBACKS (hooks, custom functions, op libraries) GET A ROW THERE,
//    or, when no tensor's death runs them, in kInsideCalls below: callbacks
//    libtc runs inside one of its calls (gradient and post-accumulate hooks
//    and custom functions' backward inside tc_backward, a forward inside
//    tc_function_apply, release callbacks inside tc_hook_remove and the
//    tc_tensor_free that kills a custom function's node).
//  - trigger: what kills the tensor, and so where the callback runs: the
//    last tc_tensor_free on this thread or on another one, inside
//    tc_backward (a pass without retain_graph frees the saved tensors),
//    tc_optimizer_free (the optimizer held the last reference to its
//    parameter), the failing call that created it (tc_from_blob), or the
//    last tc_shutdown.
//  - body: what the callback does in libtc, with the statuses it may get:
//
//    body           libtc live (trigger is not the   during the last tc_shutdown
//                   last tc_shutdown)
//    query          tc_get_flag: TC_OK               TC_OK or TC_ERR_NOT_INITIALIZED
//    make_free      tc_zeros, retain, free, and a    TC_OK, or TC_ERR_NOT_INITIALIZED (and
//                   nested tc_from_blob: all TC_OK   TC_ERR_INVALID_HANDLE for a handle
//                                                    made there); the nested deleter
//                                                    still runs exactly once
//    init_shutdown  tc_init, tc_shutdown: TC_OK      tc_init: TC_OK or an error (libtc may
//                                                    refuse to start while it tears down);
//                                                    if TC_OK, tc_shutdown: TC_OK
//    init_only      tc_init: TC_OK (the test then    tc_init: TC_OK or an error; the test
//                   drops that reference)            shuts down what it started
//    shutdown_only  tc_shutdown: TC_OK (the test     tc_shutdown: TC_ERR_NOT_INITIALIZED
//                   holds an extra reference)        (no reference is left to drop)
//    shutdown_last  tc_shutdown of the last          (same as shutdown_only)
//                   reference, inside the call
//                   that ran the callback: TC_OK
//                   or an error, libtc down after
//                   TC_OK
//
// Whatever happens: no crash, no deadlock (each case runs on its own thread
// with a deadline; a case that misses it fails the run, since the stuck
// thread holds libtc's locks), the callback runs exactly once, libtc is down
// at the end, and a fresh tc_init starts with live_handles == 0 and
// live_tensors == 0 and works.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "abi/dlpack.h"
#include "tc.h"
#include "tc_binary_ops.h"

namespace {

// Generous: a case takes milliseconds, even under TSan.
constexpr int kDeadlineSeconds = 10;

int64_t flag(const char* name) {
  int64_t v = -1;
  tc_get_flag(name, &v);
  return v;
}

bool initialized() {
  int32_t up = -1;
  tc_is_initialized(&up);
  return up == 1;
}

std::string status_name(int32_t rc) {
  const char* s = nullptr;
  if (tc_status_name(rc, &s) != TC_OK || !s) return "status " + std::to_string(rc);
  return s;
}

enum class Body { query, make_free, init_shutdown, init_only, shutdown_only, shutdown_last };
enum class Trigger { free, free_other_thread, backward, optimizer_free, failed_creation, last_shutdown };

const char* body_name(Body b) {
  switch (b) {
    case Body::query:
      return "query";
    case Body::make_free:
      return "make_free";
    case Body::init_shutdown:
      return "init_shutdown";
    case Body::init_only:
      return "init_only";
    case Body::shutdown_only:
      return "shutdown_only";
    case Body::shutdown_last:
      return "shutdown_last";
  }
  return "?";
}

const char* trigger_name(Trigger t) {
  switch (t) {
    case Trigger::free:
      return "free";
    case Trigger::free_other_thread:
      return "free_other_thread";
    case Trigger::backward:
      return "backward";
    case Trigger::optimizer_free:
      return "optimizer_free";
    case Trigger::failed_creation:
      return "failed_creation";
    case Trigger::last_shutdown:
      return "last_shutdown";
  }
  return "?";
}

// One case's state, shared by the test and the callback.
struct Reentry {
  Body body = Body::query;
  bool teardown = false;  // the callback runs inside the last tc_shutdown
  std::atomic<int> fired{0};
  std::atomic<int> nested_fired{0};  // the deleter of the tensor make_free makes inside the callback
  int32_t init_rc = -1;              // a re-entrant tc_init's status (the test balances it)
  int32_t shutdown_rc = -1;          // a re-entrant tc_shutdown's status
  std::mutex mu;
  std::vector<std::string> violations;

  alignas(16) float data[4] = {1, 2, 3, 4};
  float nested_data[2] = {5, 6};
  int64_t shape[1] = {4};
  DLManagedTensorVersioned versioned{};  // a DLPack producer's tensors (libtc calls their deleters)
  DLManagedTensor legacy{};
  DLManagedTensorVersioned* exported = nullptr;  // a tc_to_dlpack export the test consumes

  void violation(const std::string& what) {
    std::lock_guard<std::mutex> g(mu);
    violations.push_back(what);
  }
  void expect(int32_t rc, std::initializer_list<int32_t> allowed, const char* what) {
    for (int32_t a : allowed)
      if (rc == a) return;
    const char* msg = "";
    tc_last_error(&msg);
    violation(std::string("inside the callback, ") + what + " returned " + status_name(rc) +
              " (last error: " + (msg ? msg : "") + ")");
  }
};

void count_nested(void*, void* ctx) { static_cast<Reentry*>(ctx)->nested_fired.fetch_add(1); }

// The callback's body: calls into libtc, checking each status against the
// table at the top of this file.
void reenter(Reentry& r) {
  const bool live = !r.teardown;
  switch (r.body) {
    case Body::query: {
      int64_t v = -1;
      if (live)
        r.expect(tc_get_flag("live_tensors", &v), {TC_OK}, "tc_get_flag");
      else
        r.expect(tc_get_flag("live_tensors", &v), {TC_OK, TC_ERR_NOT_INITIALIZED}, "tc_get_flag");
      int32_t up = -1;
      r.expect(tc_is_initialized(&up), {TC_OK}, "tc_is_initialized");
      if (live && up != 1) r.violation("tc_is_initialized gave " + std::to_string(up) + " while libtc is up");
      break;
    }
    case Body::make_free: {
      const std::initializer_list<int32_t> ok = {TC_OK};
      const std::initializer_list<int32_t> down = {TC_OK, TC_ERR_NOT_INITIALIZED, TC_ERR_INVALID_HANDLE};
      const std::initializer_list<int32_t>& allowed = live ? ok : down;
      tc_tensor t = nullptr, t2 = nullptr, nested = nullptr;
      const int64_t shape[] = {3};
      r.expect(tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &t), allowed, "tc_zeros");
      if (t) r.expect(tc_tensor_retain(t, &t2), allowed, "tc_tensor_retain");
      for (tc_tensor h : {t, t2})
        if (h) r.expect(tc_tensor_free(h), allowed, "tc_tensor_free");
      // A callback within the callback.
      const int64_t nshape[] = {2};
      r.expect(tc_from_blob(r.nested_data, nshape, nullptr, 1, TC_FLOAT32, count_nested, &r, &nested),
               allowed, "tc_from_blob");
      if (nested) r.expect(tc_tensor_free(nested), allowed, "tc_tensor_free(from_blob)");
      break;
    }
    case Body::init_shutdown:
      r.init_rc = tc_init(nullptr);
      if (live) r.expect(r.init_rc, {TC_OK}, "tc_init");
      if (r.init_rc < 0 || r.init_rc >= TC_STATUS_COUNT) r.violation("tc_init returned an unknown status");
      if (r.init_rc == TC_OK) {
        r.shutdown_rc = tc_shutdown();
        r.expect(r.shutdown_rc, {TC_OK}, "tc_shutdown after its tc_init");
      }
      break;
    case Body::init_only:
      r.init_rc = tc_init(nullptr);
      if (live) r.expect(r.init_rc, {TC_OK}, "tc_init");
      if (r.init_rc < 0 || r.init_rc >= TC_STATUS_COUNT) r.violation("tc_init returned an unknown status");
      break;
    case Body::shutdown_only:
      r.shutdown_rc = tc_shutdown();
      r.expect(r.shutdown_rc, {live ? TC_OK : TC_ERR_NOT_INITIALIZED}, "tc_shutdown");
      break;
    case Body::shutdown_last:
      r.shutdown_rc = tc_shutdown();
      if (r.shutdown_rc < 0 || r.shutdown_rc >= TC_STATUS_COUNT)
        r.violation("tc_shutdown returned an unknown status");
      break;
  }
}

void fire(Reentry& r) {
  if (r.fired.fetch_add(1) != 0) {
    r.violation("the callback ran more than once");
    return;
  }
  reenter(r);
}

// ---- the callbacks libtc makes: one row each ----

void blob_deleter(void* data, void* ctx) {
  Reentry& r = *static_cast<Reentry*>(ctx);
  if (data != r.data) r.violation("the tc_from_blob deleter got another pointer");
  fire(r);
}

int32_t make_from_blob(Reentry& r, tc_tensor* out) {
  return tc_from_blob(r.data, r.shape, nullptr, 1, TC_FLOAT32, blob_deleter, &r, out);
}

// tc_from_blob with a dtype no build has: the deleter runs before it returns.
int32_t fail_from_blob(Reentry& r) {
  tc_tensor out = nullptr;
  return tc_from_blob(r.data, r.shape, nullptr, 1, 12345, blob_deleter, &r, &out);
}

DLTensor dl_tensor_of(Reentry& r) {
  DLTensor t{};
  t.data = r.data;
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.ndim = 1;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = r.shape;
  t.strides = nullptr;
  t.byte_offset = 0;
  return t;
}

void versioned_deleter(DLManagedTensorVersioned* self) { fire(*static_cast<Reentry*>(self->manager_ctx)); }

int32_t make_dlpack_versioned(Reentry& r, tc_tensor* out) {
  DLManagedTensorVersioned& m = r.versioned;
  m.version.major = DLPACK_MAJOR_VERSION;
  m.version.minor = DLPACK_MINOR_VERSION;
  m.manager_ctx = &r;
  m.deleter = versioned_deleter;
  m.flags = 0;
  m.dl_tensor = dl_tensor_of(r);
  return tc_from_dlpack(&m, 1, out);
}

void legacy_deleter(DLManagedTensor* self) { fire(*static_cast<Reentry*>(self->manager_ctx)); }

int32_t make_dlpack_legacy(Reentry& r, tc_tensor* out) {
  DLManagedTensor& m = r.legacy;
  m.manager_ctx = &r;
  m.deleter = legacy_deleter;
  m.dl_tensor = dl_tensor_of(r);
  return tc_from_dlpack(&m, 0, out);
}

// The consumer's side of tc_to_dlpack: libtc's deleter of an export holding
// the last reference to its tensor, called by the consumer from inside a
// callback libtc makes (so libtc frees a tensor while it is running one).
void blob_deleter_releasing_export(void* data, void* ctx) {
  Reentry& r = *static_cast<Reentry*>(ctx);
  if (DLManagedTensorVersioned* m = r.exported) {
    r.exported = nullptr;
    m->deleter(m);
  }
  blob_deleter(data, ctx);
}

int32_t make_export_released_in_callback(Reentry& r, tc_tensor* out) {
  tc_tensor e = nullptr;
  int32_t rc = tc_ones(r.shape, 1, TC_FLOAT32, TC_CPU, &e);
  if (rc != TC_OK) return rc;
  void* m = nullptr;
  rc = tc_to_dlpack(e, &m);
  tc_tensor_free(e);  // the export now holds the last reference
  if (rc != TC_OK) return rc;
  r.exported = static_cast<DLManagedTensorVersioned*>(m);
  return tc_from_blob(r.data, r.shape, nullptr, 1, TC_FLOAT32, blob_deleter_releasing_export, &r, out);
}

// libtc's export imported back: when the import dies libtc calls its own
// export's deleter, which drops the exported tensor, whose tc_from_blob
// deleter then runs: a callback at the end of a chain of libtc's own.
int32_t make_round_trip(Reentry& r, tc_tensor* out) {
  tc_tensor e = nullptr;
  int32_t rc = make_from_blob(r, &e);
  if (rc != TC_OK) return rc;
  void* m = nullptr;
  rc = tc_to_dlpack(e, &m);
  if (rc == TC_OK) {
    rc = tc_from_dlpack(m, 1, out);
    if (rc != TC_OK)
      static_cast<DLManagedTensorVersioned*>(m)->deleter(static_cast<DLManagedTensorVersioned*>(m));
  }
  tc_tensor_free(e);
  return rc;
}

struct Callback {
  const char* name;
  // A float32 [4] tensor whose death runs the callback (which runs r.body).
  int32_t (*make)(Reentry& r, tc_tensor* out);
  // A call that fails and, failing, runs the callback before returning; NULL
  // when libtc has none (tc_from_dlpack leaves a failed import to the caller).
  int32_t (*make_failing)(Reentry& r);
};

// The table of callbacks. Add a row for every new callback libtc makes.
const Callback kCallbacks[] = {
    {"from_blob_deleter", make_from_blob, fail_from_blob},
    {"dlpack_import_deleter", make_dlpack_versioned, nullptr},
    {"dlpack_legacy_import_deleter", make_dlpack_legacy, nullptr},
    {"dlpack_export_deleter_in_callback", make_export_released_in_callback, nullptr},
    {"dlpack_round_trip_deleters", make_round_trip, nullptr},
};
constexpr int kCallbackCount = int(sizeof kCallbacks / sizeof kCallbacks[0]);

struct Case {
  int callback;
  Trigger trigger;
  Body body;
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  const Trigger triggers[] = {Trigger::free,           Trigger::free_other_thread, Trigger::backward,
                              Trigger::optimizer_free, Trigger::failed_creation,   Trigger::last_shutdown};
  const Body bodies[] = {Body::query,     Body::make_free,     Body::init_shutdown,
                         Body::init_only, Body::shutdown_only, Body::shutdown_last};
  for (int c = 0; c < kCallbackCount; ++c)
    for (Trigger t : triggers)
      for (Body b : bodies) {
        if (t == Trigger::failed_creation && !kCallbacks[c].make_failing) continue;
        if (t == Trigger::last_shutdown && b == Body::shutdown_last) continue;  // = shutdown_only there
        cases.push_back({c, t, b});
      }
  return cases;
}

// Kills the tensor with the trigger; returns the status of the call that ran
// the callback. Leaves handles it made (none survive) freed.
void trigger_live(const Case& c, Reentry& r) {
  const Callback& cb = kCallbacks[c.callback];
  // The callback's own tc_shutdown of the last reference may take libtc down
  // under the call that ran it: that call may then report the shutdown.
  const bool may_go_down = c.body == Body::shutdown_last;
  auto outer_ok = [&](int32_t rc, const char* what) {
    if (rc == TC_OK || (may_go_down && rc == TC_ERR_NOT_INITIALIZED)) return;
    ADD_FAILURE() << what << " (which ran the callback) returned " << status_name(rc);
  };
  if (c.trigger == Trigger::failed_creation) {
    const int32_t rc = cb.make_failing(r);
    EXPECT_NE(rc, TC_OK) << "the failing creation succeeded";
    EXPECT_EQ(r.fired.load(), 1) << "the callback did not run before the failing call returned";
    return;
  }
  tc_tensor t = nullptr;
  ASSERT_EQ(cb.make(r, &t), TC_OK) << "making the tensor failed";
  ASSERT_EQ(r.fired.load(), 0) << "the callback ran while its tensor lived";
  switch (c.trigger) {
    case Trigger::free:
      outer_ok(tc_tensor_free(t), "tc_tensor_free");
      break;
    case Trigger::free_other_thread: {
      int32_t rc = -1;
      std::thread([&] { rc = tc_tensor_free(t); }).join();
      outer_ok(rc, "tc_tensor_free on another thread");
      break;
    }
    case Trigger::backward: {
      // y = w * t saves t (for w's gradient); t's own handle goes, so the
      // pass without retain_graph frees t's last reference.
      tc_tensor w = nullptr, y = nullptr, s = nullptr;
      ASSERT_EQ(tc_ones(r.shape, 1, TC_FLOAT32, TC_CPU, &w), TC_OK);
      ASSERT_EQ(tc_tensor_set_requires_grad(w, 1), TC_OK);
      ASSERT_EQ(tc_mul(w, t, &y), TC_OK);
      ASSERT_EQ(tc_sum(y, nullptr, 0, 0, &s), TC_OK);
      ASSERT_EQ(tc_tensor_free(y), TC_OK);
      ASSERT_EQ(tc_tensor_free(t), TC_OK);
      ASSERT_EQ(r.fired.load(), 0) << "the graph does not hold the saved tensor";
      outer_ok(tc_backward(s, nullptr, 0), "tc_backward");
      EXPECT_EQ(r.fired.load(), 1) << "the pass did not free the saved tensor (the trigger tests nothing)";
      // libtc may be down now (shutdown_last): the handles are then stale.
      const bool up = initialized();
      for (tc_tensor h : {s, w}) {
        EXPECT_EQ(tc_tensor_free(h), up ? TC_OK : TC_ERR_NOT_INITIALIZED);
      }
      break;
    }
    case Trigger::optimizer_free: {
      // The optimizer holds the last reference to its parameter t.
      ASSERT_EQ(tc_tensor_set_requires_grad(t, 1), TC_OK);
      tc_sgd_options o{};
      o.size = sizeof o;
      o.lr = 0.1;
      tc_optimizer opt = nullptr;
      ASSERT_EQ(tc_optimizer_sgd(&t, 1, &o, &opt), TC_OK);
      ASSERT_EQ(tc_tensor_free(t), TC_OK);
      ASSERT_EQ(r.fired.load(), 0) << "the optimizer does not hold its parameter";
      outer_ok(tc_optimizer_free(opt), "tc_optimizer_free");
      break;
    }
    default:
      FAIL() << "not a live trigger";
  }
  EXPECT_EQ(r.fired.load(), 1) << "the callback did not run when its tensor died";
}

void run_case(const Case& c) {
  ASSERT_FALSE(initialized()) << "each case starts and ends with libtc down";
  Reentry r;
  r.body = c.body;
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  if (c.trigger == Trigger::last_shutdown) {
    tc_tensor t = nullptr;
    ASSERT_EQ(kCallbacks[c.callback].make(r, &t), TC_OK) << "making the tensor failed";
    r.teardown = true;  // t is left for the last tc_shutdown to free
    EXPECT_EQ(tc_shutdown(), TC_OK);
    EXPECT_EQ(r.fired.load(), 1) << "the last tc_shutdown did not run the callback";
    // A re-entrant tc_init that worked started libtc again: stop it.
    if ((c.body == Body::init_only || c.body == Body::init_shutdown) && r.init_rc == TC_OK && initialized()) {
      EXPECT_EQ(tc_shutdown(), TC_OK);
    }
  } else {
    // The callback's tc_shutdown drops this extra reference.
    if (c.body == Body::shutdown_only) {
      ASSERT_EQ(tc_init(nullptr), TC_OK);
    }
    trigger_live(c, r);
    if (c.body == Body::init_only && r.init_rc == TC_OK) {
      EXPECT_EQ(tc_shutdown(), TC_OK);
    }
    if (c.body == Body::shutdown_last && r.shutdown_rc == TC_OK) {
      EXPECT_FALSE(initialized()) << "the callback's tc_shutdown of the last reference returned TC_OK "
                                     "but libtc is still up";
    } else {
      EXPECT_EQ(tc_shutdown(), TC_OK);
    }
  }
  for (const std::string& v : r.violations) ADD_FAILURE() << v;
  EXPECT_FALSE(initialized()) << "libtc is still up after the case";
  if (c.body == Body::make_free) {
    EXPECT_EQ(r.nested_fired.load(), 1) << "the nested deleter ran not exactly once";
  }

  // libtc is usable again, and nothing from the case survived.
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  EXPECT_EQ(flag("live_handles"), 0);
  EXPECT_EQ(flag("live_tensors"), 0);
  tc_tensor z = nullptr;
  const int64_t shape[] = {2};
  EXPECT_EQ(tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &z), TC_OK);
  if (z) {
    EXPECT_EQ(tc_tensor_free(z), TC_OK);
  }
  EXPECT_EQ(tc_shutdown(), TC_OK);
  EXPECT_FALSE(initialized());
}

// Runs body on its own thread; a body that misses the deadline deadlocked
// (or nearly so): report it and end the process, whose libtc is wedged.
void run_with_deadline(const std::string& name, std::function<void()> body) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread worker([body = std::move(body), done] {
    body();
    done->set_value();
  });
  if (finished.wait_for(std::chrono::seconds(kDeadlineSeconds)) != std::future_status::ready) {
    std::fprintf(stderr,
                 "\n[  FAILED  ] %s did not finish within %d s: a callback that re-entered libtc "
                 "deadlocked. The stuck thread holds libtc's locks, so the test binary stops here.\n",
                 name.c_str(), kDeadlineSeconds);
    std::fflush(stderr);
    std::fflush(stdout);
    std::_Exit(1);
  }
  worker.join();
}

class ReentryCase : public ::testing::TestWithParam<Case> {};

TEST_P(ReentryCase, ReentersLibtc) {
  const Case c = GetParam();
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(info->test_suite_name()) + "." + info->name();
  run_with_deadline(name, [c] { run_case(c); });
}

INSTANTIATE_TEST_SUITE_P(Reentrancy, ReentryCase, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(kCallbacks[info.param.callback].name) + "__" +
                                  trigger_name(info.param.trigger) + "__" + body_name(info.param.body);
                         });

// DLPack export's deleter belongs to the consumer, who may call it at any
// time: after the last tc_shutdown, and from another session.
TEST(ReentrancyExport, ConsumerCallsTheDeleterAfterShutdown) {
  run_with_deadline("ReentrancyExport.ConsumerCallsTheDeleterAfterShutdown", [] {
    ASSERT_FALSE(initialized());
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    const int64_t shape[] = {16};
    tc_tensor t = nullptr;
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(tc_ones(shape, 1, TC_FLOAT32, TC_CPU, &t), TC_OK);
    ASSERT_EQ(tc_to_dlpack(t, &a), TC_OK);
    ASSERT_EQ(tc_to_dlpack(t, &b), TC_OK);
    ASSERT_EQ(tc_tensor_free(t), TC_OK);
    ASSERT_EQ(tc_shutdown(), TC_OK);
    auto* ma = static_cast<DLManagedTensorVersioned*>(a);
    auto* mb = static_cast<DLManagedTensorVersioned*>(b);
    // Between sessions: libtc is down; the export's data is the consumer's.
    EXPECT_EQ(static_cast<float*>(ma->dl_tensor.data)[15], 1.0f);
    ma->deleter(ma);
    // In the next session: the export still holds its tensor, and releasing
    // it brings the count to zero.
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    EXPECT_EQ(flag("live_handles"), 0);
    EXPECT_EQ(flag("live_tensors"), 1) << "the consumer's export holds one tensor";
    mb->deleter(mb);
    EXPECT_EQ(flag("live_tensors"), 0);
    EXPECT_EQ(tc_shutdown(), TC_OK);
  });
}

// ---- callbacks libtc runs inside one of its calls (hooks, custom functions) ----

int32_t grad_hook_cb(void* c, tc_tensor, tc_tensor*) {
  fire(*static_cast<Reentry*>(c));
  return TC_OK;
}
int32_t post_hook_cb(void* c, tc_tensor) {
  fire(*static_cast<Reentry*>(c));
  return TC_OK;
}
void release_cb(void*, void* c) { fire(*static_cast<Reentry*>(c)); }
int32_t identity_fwd(void*, const tc_tensor* in, int64_t, const int32_t*, tc_tensor* out, int64_t* n_out,
                     tc_tensor*, int64_t*) {
  *n_out = 1;
  return tc_tensor_retain(in[0], &out[0]);
}
int32_t firing_fwd(void* c, const tc_tensor* in, int64_t n, const int32_t* needs, tc_tensor* out,
                   int64_t* n_out, tc_tensor* saved, int64_t* n_saved) {
  fire(*static_cast<Reentry*>(c));
  if (!initialized()) return TC_ERR_NOT_INITIALIZED;
  return identity_fwd(c, in, n, needs, out, n_out, saved, n_saved);
}
int32_t identity_bwd(void*, const tc_tensor*, int64_t, const tc_tensor* g, int64_t, const int32_t*,
                     tc_tensor* gin, int64_t) {
  return tc_tensor_retain(g[0], &gin[0]);
}
int32_t firing_bwd(void* c, const tc_tensor* saved, int64_t ns, const tc_tensor* g, int64_t ng,
                   const int32_t* needs, tc_tensor* gin, int64_t ni) {
  fire(*static_cast<Reentry*>(c));
  if (!initialized()) return TC_ERR_NOT_INITIALIZED;
  return identity_bwd(c, saved, ns, g, ng, needs, gin, ni);
}

tc_tensor leaf4(Reentry& r) {
  tc_tensor x = nullptr;
  tc_ones(r.shape, 1, TC_FLOAT32, TC_CPU, &x);
  tc_tensor_set_requires_grad(x, 1);
  return x;
}
void free_if_up(std::initializer_list<tc_tensor> ts) {
  if (!initialized()) return;  // the callback's tc_shutdown made them stale
  for (tc_tensor t : ts)
    if (t) {
      EXPECT_EQ(tc_tensor_free(t), TC_OK);
    }
}
int32_t apply_identity(Reentry& r, tc_tensor x, tc_function_forward fwd, tc_function_backward bwd,
                       tc_deleter release, tc_tensor* out) {
  tc_function_def d{};
  d.size = sizeof d;
  d.forward = fwd;
  d.backward = bwd;
  d.context = &r;
  d.release = release;
  int64_t n = 0;
  return tc_function_apply(&d, &x, 1, out, 1, &n);
}
int32_t backward_of_sum(tc_tensor y) {
  tc_tensor s = nullptr;
  if (tc_sum(y, nullptr, 0, 0, &s) != TC_OK) return -1;
  const int32_t rc = tc_backward(s, nullptr, 0);
  free_if_up({s});
  return rc;
}

// Each returns the status of the call inside which the callback ran.
int32_t inside_grad_hook(Reentry& r) {
  tc_tensor x = leaf4(r);
  tc_hook h = nullptr;
  EXPECT_EQ(tc_tensor_register_hook(x, grad_hook_cb, &r, nullptr, &h), TC_OK);
  const int32_t rc = backward_of_sum(x);
  if (initialized()) {
    EXPECT_EQ(tc_hook_remove(h), TC_OK);
  }
  free_if_up({x});
  return rc;
}
int32_t inside_post_hook(Reentry& r) {
  tc_tensor x = leaf4(r);
  tc_hook h = nullptr;
  EXPECT_EQ(tc_tensor_register_post_accumulate_grad_hook(x, post_hook_cb, &r, nullptr, &h), TC_OK);
  const int32_t rc = backward_of_sum(x);
  if (initialized()) {
    EXPECT_EQ(tc_hook_remove(h), TC_OK);
  }
  free_if_up({x});
  return rc;
}
int32_t inside_forward(Reentry& r) {
  tc_tensor x = leaf4(r), y = nullptr;
  const int32_t rc = apply_identity(r, x, firing_fwd, identity_bwd, nullptr, &y);
  free_if_up({x, y});
  return rc;
}
int32_t inside_backward(Reentry& r) {
  tc_tensor x = leaf4(r), y = nullptr;
  EXPECT_EQ(apply_identity(r, x, identity_fwd, firing_bwd, nullptr, &y), TC_OK);
  const int32_t rc = backward_of_sum(y);
  free_if_up({x, y});
  return rc;
}
int32_t inside_hook_release(Reentry& r) {
  tc_tensor x = leaf4(r);
  tc_hook h = nullptr;
  EXPECT_EQ(tc_tensor_register_hook(x, grad_hook_cb, &r, release_cb, &h), TC_OK);
  const int32_t rc = tc_hook_remove(h);
  free_if_up({x});
  return rc;
}
int32_t inside_function_release(Reentry& r) {
  tc_tensor x = leaf4(r), y = nullptr;
  EXPECT_EQ(apply_identity(r, x, identity_fwd, identity_bwd, release_cb, &y), TC_OK);
  EXPECT_EQ(r.fired.load(), 0) << "released while its node lives";
  const int32_t rc = tc_tensor_free(y);  // the node dies, and with it the context
  free_if_up({x});
  return rc;
}

// Op libraries' callbacks (tests/op_libraries/bad_ops.c, BAD_CALLBACKS): its
// entry point inside tc_load_library, bad::reenter's forward inside
// tc_op_call and its backward inside tc_backward, each running a hook set
// through the library's bad_ops_set_hook (the test opens the library itself
// to reach it; tc_load_library then finds the same mapping).
using SetHook = void (*)(int32_t, int32_t (*)(void*), void*);
int32_t op_hook(void* c) {
  fire(*static_cast<Reentry*>(c));
  return initialized() ? TC_OK : TC_ERR_NOT_INITIALIZED;
}
struct OpLibraryHooks {
  void* dl = nullptr;
  SetHook set = nullptr;
  OpLibraryHooks() {
    dl = dlopen(TC_TEST_OP_LIBRARY_DIR "/libbad_callbacks.so", RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(dl, nullptr) << dlerror();
    if (dl) set = reinterpret_cast<SetHook>(dlsym(dl, "bad_ops_set_hook"));
    EXPECT_NE(set, nullptr);
  }
  ~OpLibraryHooks() {
    if (set)
      for (int32_t w = 0; w < 3; ++w) set(w, nullptr, nullptr);
    if (dl) dlclose(dl);
  }
};
int32_t load_callbacks_library(tc_library* lib) {
  return tc_load_library(TC_TEST_OP_LIBRARY_DIR "/libbad_callbacks.so", lib);
}
int32_t inside_op_entry(Reentry& r) {
  OpLibraryHooks hooks;
  if (!hooks.set) return -1;
  hooks.set(0, op_hook, &r);
  tc_library lib = nullptr;
  const int32_t rc = load_callbacks_library(&lib);
  if (initialized() && rc == TC_OK) {
    EXPECT_EQ(tc_library_unload(lib), TC_OK);
  }
  return rc;
}
int32_t inside_op_forward(Reentry& r) {
  OpLibraryHooks hooks;
  tc_library lib = nullptr;
  if (!hooks.set || load_callbacks_library(&lib) != TC_OK) return -1;
  hooks.set(1, op_hook, &r);
  tc_tensor x = leaf4(r), y = nullptr;
  int64_t n = 0;
  const int32_t rc = tc_op_call_by_name("bad::reenter", &x, 1, nullptr, 0, &y, 1, &n);
  free_if_up({x, y});
  if (initialized()) {
    EXPECT_EQ(tc_library_unload(lib), TC_OK);
  }
  return rc;
}
int32_t inside_op_backward(Reentry& r) {
  OpLibraryHooks hooks;
  tc_library lib = nullptr;
  if (!hooks.set || load_callbacks_library(&lib) != TC_OK) return -1;
  hooks.set(2, op_hook, &r);
  tc_tensor x = leaf4(r), y = nullptr;
  int64_t n = 0;
  EXPECT_EQ(tc_op_call_by_name("bad::reenter", &x, 1, nullptr, 0, &y, 1, &n), TC_OK);
  const int32_t rc = backward_of_sum(y);
  free_if_up({x, y});
  if (initialized()) {
    EXPECT_EQ(tc_library_unload(lib), TC_OK);
  }
  return rc;
}

struct InsideCall {
  const char* name;
  int32_t (*run)(Reentry& r);
};
// The table of callbacks run inside a call. Add a row for every new one.
const InsideCall kInsideCalls[] = {
    {"grad_hook_in_backward", inside_grad_hook},     {"post_accumulate_hook_in_backward", inside_post_hook},
    {"function_forward_in_apply", inside_forward},   {"function_backward_in_backward", inside_backward},
    {"hook_release_in_remove", inside_hook_release}, {"function_release_in_free", inside_function_release},
    {"op_library_entry_in_load", inside_op_entry},   {"op_forward_in_call", inside_op_forward},
    {"op_backward_in_backward", inside_op_backward},
};

struct InsideCase {
  int call;
  Body body;
};

std::vector<InsideCase> inside_cases() {
  std::vector<InsideCase> cases;
  const Body bodies[] = {Body::query,     Body::make_free,     Body::init_shutdown,
                         Body::init_only, Body::shutdown_only, Body::shutdown_last};
  for (int c = 0; c < int(sizeof kInsideCalls / sizeof kInsideCalls[0]); ++c)
    for (Body b : bodies) cases.push_back({c, b});
  return cases;
}

void run_inside_case(const InsideCase& c) {
  ASSERT_FALSE(initialized());
  Reentry r;
  r.body = c.body;
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  if (c.body == Body::shutdown_only) {
    ASSERT_EQ(tc_init(nullptr), TC_OK);
  }
  const int32_t rc = kInsideCalls[c.call].run(r);
  EXPECT_EQ(r.fired.load(), 1) << "the callback did not run exactly once";
  // A callback that took libtc down fails the call that ran it (or that call
  // had finished its work: releases).
  if (c.body == Body::shutdown_last && r.shutdown_rc == TC_OK) {
    EXPECT_TRUE(rc == TC_OK || rc == TC_ERR_NOT_INITIALIZED) << status_name(rc);
    EXPECT_FALSE(initialized());
  } else {
    EXPECT_EQ(rc, TC_OK) << status_name(rc);
    if (c.body == Body::init_only && r.init_rc == TC_OK) {
      EXPECT_EQ(tc_shutdown(), TC_OK);
    }
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
  for (const std::string& v : r.violations) ADD_FAILURE() << v;
  EXPECT_FALSE(initialized());
  if (c.body == Body::make_free) {
    EXPECT_EQ(r.nested_fired.load(), 1);
  }
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  EXPECT_EQ(flag("live_handles"), 0);
  EXPECT_EQ(flag("live_tensors"), 0);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

class ReentryInside : public ::testing::TestWithParam<InsideCase> {};

TEST_P(ReentryInside, ReentersLibtc) {
  const InsideCase c = GetParam();
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  run_with_deadline(std::string(info->test_suite_name()) + "." + info->name(), [c] { run_inside_case(c); });
}

INSTANTIATE_TEST_SUITE_P(Reentrancy, ReentryInside, ::testing::ValuesIn(inside_cases()),
                         [](const ::testing::TestParamInfo<InsideCase>& info) {
                           return std::string(kInsideCalls[info.param.call].name) + "__" +
                                  body_name(info.param.body);
                         });

}  // namespace
