// Staged initialization (tc_init / tc_shutdown) and the runtime settings the
// stages set up. Stages run in order: core, cpu, random, autograd; cuda is
// registered lazy and runs on first use (or tc_backend_init("cuda")).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace tc {

bool is_initialized() noexcept;
// tc_init_options as the core reads it (the ABI layer checks the struct's
// size and copies the fields it has).
struct InitOptions {
  int32_t num_threads = 0;  // 0: $TC_NUM_THREADS, else the number of cores
  bool use_seed = false;    // else $TC_SEED, else a seed from the clock
  uint64_t seed = 0;
  bool eager_backends = false;  // run the cuda stage now rather than on first use
};
// Any thread: one reference per successful call.
void init(const InitOptions& options);
// The last one waits for calls in flight on other threads, then frees every
// handle (running deleters without holding libtc's init lock, so they may
// call back into libtc), then releases the backends.
void shutdown();

// What the ABI layer above the core holds and reports. The core calls these
// but never includes the ABI's headers; abi/core.cpp sets them when libtc is
// loaded. Unset (an object set without the ABI layer): nothing to free or report.
struct AbiHooks {
  void (*release)() = nullptr;                   // frees every handle, then closes the op libraries
  int64_t (*live_handles)() = nullptr;           // the live_handles flag
  std::string (*op_library_report)() = nullptr;  // tc_config's list of loaded ops
};
void set_abi_hooks(const AbiHooks& hooks) noexcept;
const AbiHooks& abi_hooks() noexcept;

// Calls in flight, counted by every tc_* function that needs tc_init (the
// api() guard), so that the last tc_shutdown can wait for them: a call never
// runs against a library being torn down, and never hands out a handle that
// a later tc_init would find valid.
extern std::atomic<int64_t> g_calls_in_flight;
// this thread's share (nested in callbacks). __thread, not thread_local: an
// extern thread_local is reached through a TLS wrapper function on every
// call (it might need dynamic initialization), which doubled the cost of a
// checked ABI call in the default build.
extern __thread int32_t t_calls_in_flight;
class CallScope {
 public:
  // Counts the call before it checks is_initialized() (both sequentially
  // consistent): either the call sees the shutdown, or the shutdown sees it.
  CallScope() noexcept : mine_(&t_calls_in_flight) {
    g_calls_in_flight.fetch_add(1);
    ++*mine_;
  }
  ~CallScope() {
    --*mine_;
    g_calls_in_flight.fetch_sub(1);
  }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  // The thread's counter, looked up once: a shared library finds a
  // thread-local through a __tls_get_addr call, and the body in between
  // (an opaque call) kept the compiler from reusing the first lookup.
  int32_t* const mine_;
};

struct StageInfo {
  std::string name;
  int32_t state;
  std::string message;
  double duration_ms;
  bool required;
  int32_t code = TC_OK;  // the failure's status code (FAILED), so tc_init can return it
};
std::vector<StageInfo> stage_snapshot();
const StageInfo* stage_at(int64_t index);  // stable until shutdown; nullptr if out of range
std::string init_report();
// Runs a lazy stage (by name) if it has not run; throws its failure.
void ensure_backend(const std::string& name);

// CPU features found by the cpu stage ("avx2 fma ...").
const std::string& cpu_features();
// The CPU kernel set in use (src/cpu/kernels.h): "avx512", "avx2", "baseline" or "native".
const char* cpu_kernel_set();
// The oneDNN CPU engine made by the cpu stage (src/cpu/onednn.cpp), as the
// C API's dnnl_engine_t; valid between tc_init and tc_shutdown.
void onednn_init();
void onednn_shutdown();
void* onednn_engine();

// ---- runtime settings (src/core/runtime.cpp) ----
int num_threads() noexcept;
void set_num_threads(int n);  // >= 1
// Makes the calling thread's OpenMP use num_threads() (oneDNN reads it).
void sync_omp_threads() noexcept;
bool grad_enabled() noexcept;  // per thread
void set_grad_enabled(bool on) noexcept;
bool deterministic() noexcept;
void set_deterministic(bool on) noexcept;
DType default_dtype() noexcept;
void set_default_dtype(DType d);  // f32 or f64

// RAII: grad mode off in a scope (used by optimizers and initializers).
class NoGradGuard {
 public:
  NoGradGuard() : prev_(grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace tc
