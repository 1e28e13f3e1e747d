// Staged initialization. Each stage is a named function run in order under
// one mutex; its state, time and message are kept for the report. Required
// stages (core, cpu, random, autograd) fail tc_init; the optional cuda stage
// is registered lazy and never fails tc_init.
#include "core/init.h"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <sstream>
#include <thread>

#include "backend/cuda_loader.h"
#include "core/alloc.h"
#include "core/rng.h"

namespace tc {

namespace {

std::mutex g_mu;
int g_refs = 0;
std::atomic<bool> g_initialized{false};
// The last tc_shutdown is tearing down (under g_mu): a tc_init from another
// thread waits for it on g_teardown_done; one from the tearing-down thread
// (a deleter) is refused.
bool g_tearing_down = false;
std::thread::id g_teardown_thread;
std::condition_variable g_teardown_done;
std::vector<StageInfo> g_stages;
std::string g_cpu_features;

const char* state_name(int32_t s) {
  switch (s) {
    case TC_STAGE_PENDING:
      return "pending";
    case TC_STAGE_OK:
      return "ok";
    case TC_STAGE_FAILED:
      return "failed";
    case TC_STAGE_SKIPPED:
      return "skipped";
    case TC_STAGE_LAZY:
      return "lazy";
  }
  return "?";
}

// Runs body as stage `info`, recording state and duration.
void run_stage(StageInfo& info, const std::function<void()>& body) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    body();
    info.state = TC_STAGE_OK;
    info.code = TC_OK;
    info.message.clear();
  } catch (const Error& e) {
    info.state = TC_STAGE_FAILED;
    info.code = e.code();
    info.message = e.what();
  } catch (const std::bad_alloc& e) {
    info.state = TC_STAGE_FAILED;
    info.code = TC_ERR_OUT_OF_MEMORY;
    info.message = e.what();
  } catch (const std::exception& e) {
    info.state = TC_STAGE_FAILED;
    info.code = TC_ERR_INTERNAL;
    info.message = e.what();
  }
  info.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  TC_CHECK(end && *end == '\0' && n > 0 && n <= 4096, TC_ERR_INVALID_ARGUMENT, name, "=", v,
           " is not a thread count in [1, 4096]");
  return int(n);
}

void stage_core() {
  // The registries are static tables; check them once so a broken build
  // fails here, loudly, instead of in the first op.
  for (int32_t d = 0; d < TC_DTYPE_COUNT; ++d) {
    TC_CHECK(dtype_size(DType(d)) > 0, TC_ERR_INTERNAL, "dtype ", d, " has no size");
  }
  TC_CHECK(Half(1.5f) == 1.5f && BFloat16(2.0f) == 2.0f, TC_ERR_INTERNAL,
           "16-bit float conversion is broken");
#ifdef TC_TEST_HOOKS
  if (const char* v = std::getenv("TC_FAIL_ALLOC_AT")) set_fail_alloc_at(std::atoll(v));
#endif
  cpu_free(cpu_alloc(64), 64);  // the allocator works
}

void stage_cpu(const InitOptions& o) {
  const int cores = int(std::thread::hardware_concurrency());
  const int n = o.num_threads > 0 ? o.num_threads : env_int("TC_NUM_THREADS", cores > 0 ? cores : 1);
  TC_CHECK(n >= 1 && n <= 4096, TC_ERR_INVALID_ARGUMENT, "num_threads must be in [1, 4096], got ", n);
  set_num_threads(n);
  std::ostringstream f;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2")) f << "sse4.2 ";
  if (__builtin_cpu_supports("avx")) f << "avx ";
  if (__builtin_cpu_supports("avx2")) f << "avx2 ";
  if (__builtin_cpu_supports("fma")) f << "fma ";
  if (__builtin_cpu_supports("avx512f")) f << "avx512f ";
  g_cpu_features = f.str();
  if (!g_cpu_features.empty()) g_cpu_features.pop_back();
  onednn_init();
}

void stage_random(const InitOptions& o) {
  bool use_seed = o.use_seed;
  uint64_t seed = o.seed;
  if (!use_seed) {
    if (const char* v = std::getenv("TC_SEED")) {
      use_seed = true;
      seed = std::strtoull(v, nullptr, 10);
    }
  }
  rng_init(use_seed, seed);
}

void stage_autograd() {
  // Grad mode is per thread and starts on; the engine keeps no global state
  // beyond the settings, which start from their documented defaults.
  set_grad_enabled(true);
  set_deterministic(false);
  set_default_dtype(DType::f32);
}

void release_backends() {
  cpu_cache_release();
  onednn_shutdown();
  cuda_backend_shutdown();
}

AbiHooks g_abi_hooks;

// Frees what the ABI layer holds (handles, then op libraries), if it is linked.
void release_abi_state() {
  if (g_abi_hooks.release) g_abi_hooks.release();
}

void undo_all() {
  release_abi_state();
  release_backends();
}

StageInfo* find_stage(const std::string& name) {
  for (auto& s : g_stages)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

std::atomic<int64_t> g_calls_in_flight{0};
__thread int32_t t_calls_in_flight = 0;

// Sequentially consistent, paired with CallScope and shutdown's store.
bool is_initialized() noexcept { return g_initialized.load(); }

void set_abi_hooks(const AbiHooks& hooks) noexcept { g_abi_hooks = hooks; }
const AbiHooks& abi_hooks() noexcept { return g_abi_hooks; }

void init(const InitOptions& o) {
  // Bad settings are the caller's error (TC_ERR_INVALID_ARGUMENT), so check
  // them here rather than let the cpu stage fail (which tc_init reports as
  // TC_ERR_INTERNAL).
  TC_CHECK(o.num_threads >= 0 && o.num_threads <= 4096, TC_ERR_INVALID_ARGUMENT,
           "options->num_threads must be in [0, 4096] (0: default) but is ", o.num_threads);
  std::unique_lock<std::mutex> g(g_mu);
  if (g_tearing_down) {
    // Waiting would deadlock when this thread is the one tearing down (a
    // deleter run by the last tc_shutdown) or has a call in flight that the
    // teardown waits for (a callback inside a tc_* call).
    TC_CHECK(std::this_thread::get_id() != g_teardown_thread && t_calls_in_flight == 0,
             TC_ERR_INVALID_ARGUMENT,
             "tc_init was called from a callback while the last tc_shutdown is tearing libtc down; call it "
             "after tc_shutdown returns");
    g_teardown_done.wait(g, [] { return !g_tearing_down; });
  }
  if (g_refs > 0) {
    ++g_refs;
    return;
  }
  g_stages.clear();
  g_stages.push_back({"core", TC_STAGE_PENDING, "", 0.0, true});
  g_stages.push_back({"cpu", TC_STAGE_PENDING, "", 0.0, true});
  g_stages.push_back({"random", TC_STAGE_PENDING, "", 0.0, true});
  g_stages.push_back({"autograd", TC_STAGE_PENDING, "", 0.0, true});
  g_stages.push_back({"cuda", TC_STAGE_PENDING, "", 0.0, false});
  const std::function<void()> bodies[] = {stage_core, [&] { stage_cpu(o); }, [&] { stage_random(o); },
                                          stage_autograd};
  for (size_t i = 0; i < 4; ++i) {
    run_stage(g_stages[i], bodies[i]);
    if (g_stages[i].state != TC_STAGE_OK) {
      undo_all();
      // The stage's own code: a bad setting or an allocation failure is not
      // a bug in libtc.
      const int32_t code = g_stages[i].code != TC_OK ? g_stages[i].code : TC_ERR_INTERNAL;
      fail(code, str("required stage '", g_stages[i].name, "' failed: ", g_stages[i].message));
    }
  }
  StageInfo& cuda = g_stages[4];
  if (cuda_stage_configured()) {  // loads the CUDA module (src/backend/cuda_loader.cpp)
    cuda.state = TC_STAGE_LAZY;
    cuda.message = "runs on first use of a cuda device, or tc_backend_init(\"cuda\")";
    if (o.eager_backends) run_stage(cuda, cuda_backend_init);
  } else {
    cuda.state = TC_STAGE_SKIPPED;
    cuda.message = "libtc was built without CUDA (TC_WITH_CUDA=OFF or no CUDA toolkit at build time)";
  }
  g_refs = 1;
  g_initialized.store(true);
}

void shutdown() {
  {
    std::lock_guard<std::mutex> g(g_mu);
    TC_CHECK(g_refs > 0, TC_ERR_NOT_INITIALIZED,
             "libtc is not initialized: tc_shutdown without a matching tc_init");
    if (--g_refs > 0) return;
    g_initialized.store(false);  // from here on new calls fail with NOT_INITIALIZED
    g_tearing_down = true;
    g_teardown_thread = std::this_thread::get_id();
  }
  // Calls that started before wait for nothing but their own work: let them
  // finish (this thread's own, when tc_shutdown runs inside a callback of a
  // tc_* call, are not waited for). Not under g_mu: they may need it (a lazy
  // backend stage).
  while (g_calls_in_flight.load() > t_calls_in_flight)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  // Deleters run here and may call back into libtc (tc_init is refused,
  // tc_shutdown finds no reference, others find libtc uninitialized).
  // Op libraries close once no op or node holds them: the hook frees the
  // handles first.
  release_abi_state();
  {
    std::lock_guard<std::mutex> g(g_mu);
    release_backends();
    g_tearing_down = false;
    g_teardown_thread = std::thread::id();
  }
  g_teardown_done.notify_all();
}

std::vector<StageInfo> stage_snapshot() {
  std::lock_guard<std::mutex> g(g_mu);
  return g_stages;
}

const StageInfo* stage_at(int64_t index) {
  std::lock_guard<std::mutex> g(g_mu);
  if (index < 0 || index >= int64_t(g_stages.size())) return nullptr;
  return &g_stages[size_t(index)];
}

std::string init_report() {
  std::ostringstream os;
  double total = 0;
  os << "libtc " << TC_VERSION_STRING << " init report\n";
  for (const StageInfo& s : stage_snapshot()) {
    char line[96];
    std::snprintf(line, sizeof line, "  %-9s %-8s %9.3f ms", s.name.c_str(), state_name(s.state),
                  s.duration_ms);
    os << line;
    if (!s.message.empty()) os << "  (" << s.message << ")";
    os << "\n";
    total += s.duration_ms;
  }
  char line[64];
  std::snprintf(line, sizeof line, "  total              %9.3f ms\n", total);
  os << line;
  return os.str();
}

void ensure_backend(const std::string& name) {
  std::lock_guard<std::mutex> g(g_mu);
  StageInfo* s = find_stage(name);
  TC_CHECK(s != nullptr, TC_ERR_INVALID_ARGUMENT, "unknown backend '", name, "' (known: cuda)");
  if (s->state == TC_STAGE_LAZY) run_stage(*s, cuda_backend_init);
  switch (s->state) {
    case TC_STAGE_OK:
      return;
    case TC_STAGE_SKIPPED:
      fail(TC_ERR_NOT_COMPILED, str("backend '", name, "' is not available: ", s->message));
    default:
      fail(TC_ERR_UNAVAILABLE, str("backend '", name, "' is unavailable: ", s->message));
  }
}

const std::string& cpu_features() { return g_cpu_features; }

}  // namespace tc
