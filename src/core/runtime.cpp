// Runtime settings: thread count, grad mode (per thread), determinism and
// the default dtype. Plain atomics: they are read on every op.
#include <omp.h>
#include <pthread.h>

#include <atomic>

#include "core/init.h"

namespace tc {

namespace {
std::atomic<int> g_num_threads{1};
std::atomic<int> g_threads_epoch{0};  // bumped on every change
std::atomic<bool> g_deterministic{false};
std::atomic<int32_t> g_default_dtype{TC_FLOAT32};
thread_local bool t_grad_enabled = true;
std::atomic<bool> g_forked_child{false};

// Fork safety. GNU OpenMP (libgomp) is not fork-safe: a forked child has
// none of the parent's OpenMP worker threads, yet its pool still lists them,
// and the first parallel region with more than one thread waits for them
// forever. So a forked child (a DataLoader worker, a Hogwild process started
// by fork) computes on one thread, as PyTorch's DataLoader workers do
// (torch.set_num_threads(1)); set_num_threads there keeps it at 1. A child
// started by spawn or forkserver is a fresh process and is not affected.
void on_fork_child() noexcept {
  g_forked_child.store(true);
  g_num_threads.store(1);
  g_threads_epoch.fetch_add(1);
  omp_set_num_threads(1);
}
struct ForkHandler {
  ForkHandler() { pthread_atfork(nullptr, nullptr, on_fork_child); }
};
const ForkHandler g_fork_handler;
}  // namespace

int num_threads() noexcept { return g_num_threads.load(std::memory_order_relaxed); }

void set_num_threads(int n) {
  TC_CHECK(n >= 1 && n <= 4096, TC_ERR_INVALID_ARGUMENT, "num_threads must be in [1, 4096], got ", n);
  if (g_forked_child.load()) n = 1;  // see on_fork_child
  g_num_threads.store(n);
  g_threads_epoch.fetch_add(1);
  sync_omp_threads();
}

void sync_omp_threads() noexcept {
  // omp_set_num_threads only affects the calling thread, so each thread that
  // enters oneDNN catches up with the setting once per change.
  thread_local int seen_epoch = -1;
  const int epoch = g_threads_epoch.load(std::memory_order_relaxed);
  if (seen_epoch != epoch) {
    omp_set_num_threads(num_threads());
    seen_epoch = epoch;
  }
}

bool grad_enabled() noexcept { return t_grad_enabled; }
void set_grad_enabled(bool on) noexcept { t_grad_enabled = on; }
bool deterministic() noexcept { return g_deterministic.load(std::memory_order_relaxed); }
void set_deterministic(bool on) noexcept { g_deterministic.store(on); }
DType default_dtype() noexcept { return DType(g_default_dtype.load(std::memory_order_relaxed)); }
void set_default_dtype(DType d) {
  TC_CHECK(d == DType::f32 || d == DType::f64, TC_ERR_INVALID_ARGUMENT,
           "default_dtype must be float32 or float64, got ", dtype_name(d));
  g_default_dtype.store(int32_t(d));
}

}  // namespace tc
