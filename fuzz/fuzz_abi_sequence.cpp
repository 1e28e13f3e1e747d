// libFuzzer harness: the input bytes drive a sequence of ABI calls (create,
// view, ops, backward, free, retain, flags, in-place ops, optimizers, custom
// functions, hooks, an op library's op when TC_FUZZ_OP_LIBRARY names
// examples/op_library's build) over a
// small pool of handle slots, including freed, double-freed and forged
// handles. The oracle, besides the sanitizers: every status is a known code
// and never TC_ERR_INTERNAL, every failure leaves a message naming the
// function and its handle out-param untouched, and once the input's own
// handles are freed, live_handles and live_tensors are back where they were
// (no leak, no over-free, no autograd reference cycle).
//
// Sizes are kept small (dims 0..6) except for deliberately extreme values
// that libtc must reject before allocating (negative, INT64_MIN/MAX, 2^62):
// a huge but valid request would only test the machine's memory.
//
// Threads: one step kind runs a block of the sequence on 2 or 3 threads at
// once (ThreadPart), each driven by its own slice of the input, over the
// pool's handles (shared, never freed or written in place by them) and slots
// of its own: ops, views, retain/free, backward with and without
// retain_graph, grad reads, clear_grad, requires_grad, the shared
// optimizer's step/zero_grad/lr, nested tc_init/tc_shutdown, DLPack. The
// same oracle holds on every thread. No two threads write one tensor's data
// (in-place ops only touch a thread's own fresh tensors; the optimizer's
// steps and grad accumulation are serialized by libtc); reads of data that
// a step or an accumulation writes at the same time are races tc.h leaves to
// the caller, harmless here: the fuzzer build is ASan+UBSan, not TSan, and
// the oracle never looks at values. The interleaving is not reproducible,
// the oracle does not depend on it.
//
// Collectives (step 28) run on a process group of size 1 made once at start
// ("mpi": MPI initializes as a singleton world without mpirun, once per
// process); on that group they complete at once, so the fuzzer checks their
// argument checks, works and handles, not the transport (tests/dist/ does).
#include <fuzzer/FuzzedDataProvider.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "abi/dlpack.h"
#include "fuzz_ops_generated.h"
#include "tc.h"
#include "tc_binary_ops.h"
#include "tc_scalar_ops.h"
#include "tc_unary_ops.h"

namespace {

constexpr int kSlots = 8;
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

[[noreturn]] void die(const char* fn, const std::string& why) {
  const char* msg = "";
  tc_last_error(&msg);
  std::fprintf(stderr, "fuzz_abi_sequence: %s: %s (last error: %s)\n", fn, why.c_str(), msg ? msg : "(null)");
  std::abort();
}

// Callbacks for the custom-function and hook actions: they call back into
// libtc on the handles they are lent (and may fail, which must come back as
// a status).
int32_t fuzz_forward(void*, const tc_tensor* in, int64_t n, const int32_t*, tc_tensor* out, int64_t* n_out,
                     tc_tensor* saved, int64_t* n_saved) {
  if (n < 1) return TC_OK;
  int32_t rc = tc_mul(in[0], in[0], &out[0]);
  if (rc != TC_OK) return rc;
  *n_out = 1;
  rc = tc_tensor_retain(in[0], &saved[0]);
  if (rc == TC_OK) *n_saved = 1;
  return rc;
}
int32_t fuzz_backward(void*, const tc_tensor* saved, int64_t, const tc_tensor* g, int64_t, const int32_t*,
                      tc_tensor* gin, int64_t) {
  tc_tensor t = nullptr;
  int32_t rc = tc_mul(saved[0], g[0], &t);
  if (rc != TC_OK) return rc;
  rc = tc_mul_scalar(t, 2.0, &gin[0]);
  tc_tensor_free(t);
  return rc;
}
int32_t fuzz_grad_hook(void*, tc_tensor g, tc_tensor* replacement) {
  return tc_mul_scalar(g, 0.5, replacement);
}
int32_t fuzz_post_hook(void*, tc_tensor t) {
  tc_tensor g = nullptr;
  const int32_t rc = tc_tensor_grad(t, &g);
  if (g) tc_tensor_free(g);
  return rc;
}
// Saved-tensor hooks: pack keeps a handle per token (unless the input made
// it fail); unpack hands it back or fails; free drops it. The graphs that
// hold tokens die with the pool, so nothing is left by the leak check.
struct FuzzSaved {
  std::map<uint64_t, tc_tensor> kept;
  uint64_t next = 0;
  bool fail_pack = false, fail_unpack = false;
};
FuzzSaved g_saved;
int32_t fuzz_pack(void* ctx, tc_tensor t, uint64_t* token) {
  auto* s = static_cast<FuzzSaved*>(ctx);
  if (s->fail_pack) return TC_ERR_INVALID_ARGUMENT;
  tc_tensor kept = nullptr;
  const int32_t rc = tc_tensor_retain(t, &kept);
  if (rc != TC_OK) return rc;
  *token = ++s->next;
  s->kept[*token] = kept;
  return TC_OK;
}
int32_t fuzz_unpack(void* ctx, uint64_t token, tc_tensor* out) {
  auto* s = static_cast<FuzzSaved*>(ctx);
  auto it = s->kept.find(token);
  if (it == s->kept.end()) die("fuzz_unpack", "a token libtc had freed came back");
  return s->fail_unpack ? 77 : tc_tensor_retain(it->second, out);
}
void fuzz_free(void* ctx, uint64_t token) {
  auto* s = static_cast<FuzzSaved*>(ctx);
  auto it = s->kept.find(token);
  if (it == s->kept.end()) die("fuzz_free", "a token freed twice, or never given");
  tc_tensor_free(it->second);
  s->kept.erase(it);
}

// A process group of one (MPI's singleton world), made once: MPI is
// initialized once per process. NULL when libtc has no usable MPI module.
tc_process_group g_pg = nullptr;

tc_tensor untouched() { return reinterpret_cast<tc_tensor>(uintptr_t(0x5A5A5A5A5A5A5A5AULL)); }

// Checks one status against the ABI's promises.
// TC_FUZZ_TRACE=1 prints every checked call and its status (to read a finding).
const bool g_trace = std::getenv("TC_FUZZ_TRACE") != nullptr;
void check(const char* fn, int32_t rc) {
  if (g_trace) std::fprintf(stderr, "trace: %s -> %d\n", fn, int(rc));
  if (rc < 0 || rc >= TC_STATUS_COUNT) die(fn, "unknown status " + std::to_string(rc));
  if (rc == TC_OK) return;
  if (rc == TC_ERR_INTERNAL) die(fn, "TC_ERR_INTERNAL");
  int32_t code = -1;
  tc_last_error_code(&code);
  if (code != rc) die(fn, "tc_last_error_code differs from the status");
  const char* msg = nullptr;
  tc_last_error(&msg);
  if (!msg || !std::strstr(msg, fn)) die(fn, "the message does not name the function");
}

struct Pool {
  tc_tensor h[kSlots] = {};
  bool owned[kSlots] = {};
  tc_optimizer opt = nullptr;
  bool opt_owned = false;

  // Stores a new handle in slot i (freeing what we owned there).
  void put(int i, tc_tensor t) {
    if (owned[i]) check("tc_tensor_free", tc_tensor_free(h[i]));
    h[i] = t;
    owned[i] = true;
  }
  void release_all() {
    for (int i = 0; i < kSlots; ++i) {
      if (owned[i]) {
        const int32_t rc = tc_tensor_free(h[i]);
        if (rc != TC_OK) die("tc_tensor_free", "could not free a handle the harness owns");
      }
      owned[i] = false;
      h[i] = nullptr;
    }
    if (opt_owned && tc_optimizer_free(opt) != TC_OK)
      die("tc_optimizer_free", "could not free the optimizer");
    opt_owned = false;
    opt = nullptr;
  }
};

// One thread's part of a concurrent block: its own bytes, the pool's handles
// (every thread of the block reads them; none frees them or writes their
// data), and slots of its own.
class ThreadPart {
 public:
  static constexpr int kMine = 4;

  ThreadPart(const ThreadPart&) = delete;
  ThreadPart& operator=(const ThreadPart&) = delete;
  ThreadPart(std::vector<uint8_t> bytes, const Pool& pool)
      : bytes_(std::move(bytes)), in_(bytes_.data(), bytes_.size()), opt_(pool.opt) {
    for (int i = 0; i < kSlots; ++i) shared_[i] = pool.h[i];
  }

  void run() {
    int steps = 0;
    while (in_.remaining_bytes() > 0 && steps++ < 16) step();
    tc_set_grad_enabled(1, nullptr);  // per thread: leave it as found
  }
  // The handles this thread made and still owns (the caller adopts them).
  std::vector<tc_tensor> results() const {
    std::vector<tc_tensor> out;
    for (int i = 0; i < kMine; ++i)
      if (mine_[i]) out.push_back(mine_[i]);
    return out;
  }

 private:
  std::vector<uint8_t> bytes_;
  FuzzedDataProvider in_;
  tc_tensor shared_[kSlots];
  tc_optimizer opt_;
  tc_tensor mine_[kMine] = {};
  // Whether mine_[i] has storage of its own (a factory or clone): only then
  // may this thread write its data in place.
  bool fresh_[kMine] = {};

  // A handle to read: one of the pool's (live, freed or NULL), one of this
  // thread's, or forged.
  tc_tensor readable() {
    switch (in_.ConsumeIntegralInRange<int>(0, 7)) {
      case 0:
        return nullptr;
      case 1:
        return reinterpret_cast<tc_tensor>(in_.ConsumeIntegral<uint64_t>());
      case 2:
      case 3:
        return mine_[in_.ConsumeIntegralInRange<int>(0, kMine - 1)];
      default:
        return shared_[in_.ConsumeIntegralInRange<int>(0, kSlots - 1)];
    }
  }
  void put(int i, tc_tensor t, bool fresh) {
    if (mine_[i]) check("tc_tensor_free", tc_tensor_free(mine_[i]));
    mine_[i] = t;
    fresh_[i] = fresh;
  }
  template <typename F>
  void make(const char* name, bool fresh, F fn) {
    const int dst = in_.ConsumeIntegralInRange<int>(0, kMine - 1);
    tc_tensor out = untouched();
    const int32_t rc = fn(&out);
    check(name, rc);
    if (rc == TC_OK) {
      if (out == untouched()) die(name, "succeeded without writing its out-param");
      if (out) put(dst, out, fresh);
    } else if (out != untouched()) {
      die(name, "wrote its out-param on failure");
    }
  }
  std::vector<int64_t> small_shape() {
    std::vector<int64_t> s(in_.ConsumeIntegralInRange<size_t>(0, 3));
    for (auto& x : s) x = in_.ConsumeIntegralInRange<int64_t>(0, 5);
    return s;
  }

  void step() {
    switch (in_.ConsumeIntegralInRange<int>(0, 12)) {
      case 0: {  // factories: fresh storage
        const std::vector<int64_t> s = small_shape();
        const int32_t dt = in_.ConsumeBool() ? TC_FLOAT32 : TC_FLOAT64;
        if (in_.ConsumeBool()) {
          make("tc_randn", true,
               [&](tc_tensor* o) { return tc_randn(s.data(), int64_t(s.size()), dt, TC_CPU, o); });
        } else {
          make("tc_ones", true,
               [&](tc_tensor* o) { return tc_ones(s.data(), int64_t(s.size()), dt, TC_CPU, o); });
        }
        break;
      }
      case 1: {
        tc_tensor a = readable();
        make("tc_clone", true, [&](tc_tensor* o) { return tc_clone(a, o); });
        break;
      }
      case 2: {  // ops reading shared tensors
        tc_tensor a = readable(), b = readable();
        switch (in_.ConsumeIntegralInRange<int>(0, 5)) {
          case 0:
            make("tc_add", false, [&](tc_tensor* o) { return tc_add(a, b, o); });
            break;
          case 1:
            make("tc_mul", false, [&](tc_tensor* o) { return tc_mul(a, b, o); });
            break;
          case 2:
            make("tc_matmul", false, [&](tc_tensor* o) { return tc_matmul(a, b, o); });
            break;
          case 3:
            make("tc_sum", false, [&](tc_tensor* o) { return tc_sum(a, nullptr, 0, 0, o); });
            break;
          case 4:
            make("tc_tanh", false, [&](tc_tensor* o) { return tc_tanh(a, o); });
            break;
          default:
            make("tc_mse_loss", false, [&](tc_tensor* o) {
              return tc_mse_loss(a, b, in_.ConsumeIntegralInRange<int32_t>(0, 2), o);
            });
        }
        break;
      }
      case 3: {  // views and other handles to the same tensor
        tc_tensor a = readable();
        switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
          case 0:
            make("tc_transpose", false, [&](tc_tensor* o) { return tc_transpose(a, 0, -1, o); });
            break;
          case 1:
            make("tc_tensor_retain", false, [&](tc_tensor* o) { return tc_tensor_retain(a, o); });
            break;
          case 2:
            make("tc_detach", false, [&](tc_tensor* o) { return tc_detach(a, o); });
            break;
          default:
            make("tc_contiguous", false, [&](tc_tensor* o) { return tc_contiguous(a, o); });
        }
        break;
      }
      case 4: {  // free one of this thread's handles
        const int i = in_.ConsumeIntegralInRange<int>(0, kMine - 1);
        if (mine_[i]) {
          if (tc_tensor_free(mine_[i]) != TC_OK)
            die("tc_tensor_free", "could not free a thread's own handle");
          mine_[i] = nullptr;
        }
        break;
      }
      case 5: {  // backward, maybe through a graph another thread also runs
        tc_tensor root = readable();
        check("tc_backward", tc_backward(root, nullptr, in_.ConsumeIntegralInRange<int32_t>(0, 1)));
        break;
      }
      case 6: {  // grads: the handle (its data may be accumulated into meanwhile)
        tc_tensor t = readable();
        switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
          case 0:
            make("tc_tensor_grad", false, [&](tc_tensor* o) { return tc_tensor_grad(t, o); });
            break;
          case 1:
            check("tc_tensor_clear_grad", tc_tensor_clear_grad(t));
            break;
          case 2:
            check("tc_tensor_set_requires_grad",
                  tc_tensor_set_requires_grad(t, in_.ConsumeIntegralInRange<int32_t>(0, 1)));
            break;
          default:
            check("tc_tensor_retain_grad", tc_tensor_retain_grad(t));
        }
        break;
      }
      case 7: {  // the pool's optimizer, shared (libtc serializes its state)
        switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
          case 0:
            check("tc_optimizer_step", tc_optimizer_step(opt_));
            break;
          case 1:
            check("tc_optimizer_zero_grad", tc_optimizer_zero_grad(opt_));
            break;
          case 2:
            check("tc_optimizer_set_lr",
                  tc_optimizer_set_lr(opt_, in_.ConsumeFloatingPointInRange<double>(0, 1)));
            break;
          default: {
            double lr = 0;
            check("tc_optimizer_get_lr", tc_optimizer_get_lr(opt_, &lr));
          }
        }
        break;
      }
      case 8: {  // in place, only into this thread's own fresh tensors
        const int i = in_.ConsumeIntegralInRange<int>(0, kMine - 1);
        if (!mine_[i] || !fresh_[i]) break;
        tc_tensor src = readable();
        int32_t prev = 1;
        check("tc_set_grad_enabled", tc_set_grad_enabled(0, &prev));
        switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
          case 0:
            check("tc_add_", tc_add_(mine_[i], src));
            break;
          case 1:
            check("tc_fill_", tc_fill_(mine_[i], in_.ConsumeFloatingPoint<double>()));
            break;
          case 2:
            check("tc_copy_", tc_copy_(mine_[i], src));
            break;
          default:
            check("tc_uniform_", tc_uniform_(mine_[i], 0, 1));
        }
        check("tc_set_grad_enabled", tc_set_grad_enabled(prev, nullptr));
        break;
      }
      case 9: {  // nested init (the harness holds one reference) and flags
        int64_t v = 0;
        check("tc_init", tc_init(nullptr));
        check("tc_get_flag", tc_get_flag(in_.ConsumeBool() ? "live_tensors" : "live_handles", &v));
        check("tc_shutdown", tc_shutdown());
        break;
      }
      case 10:  // this thread's grad mode
        check("tc_set_grad_enabled", tc_set_grad_enabled(in_.ConsumeIntegralInRange<int32_t>(0, 1), nullptr));
        break;
      case 11: {  // DLPack round trip: shares the tensor's storage
        tc_tensor a = readable();
        void* m = nullptr;
        const int32_t rc = tc_to_dlpack(a, &m);
        check("tc_to_dlpack", rc);
        if (rc == TC_OK) {
          tc_tensor back = untouched();
          const int32_t rc2 = tc_from_dlpack(m, 1, &back);
          check("tc_from_dlpack", rc2);
          if (rc2 == TC_OK) {
            put(in_.ConsumeIntegralInRange<int>(0, kMine - 1), back, false);
          } else {
            auto* v = static_cast<DLManagedTensorVersioned*>(m);
            v->deleter(v);
          }
        }
        break;
      }
      default: {  // accessors
        tc_tensor a = readable();
        int64_t dims[TC_MAX_DIMS];
        int64_t v = 0;
        int32_t same = 0;
        check("tc_tensor_shape", tc_tensor_shape(a, dims, TC_MAX_DIMS));
        check("tc_tensor_version", tc_tensor_version(a, &v));
        check("tc_tensor_same", tc_tensor_same(a, readable(), &same));
      }
    }
  }
};

// Runs one ThreadPart per slice at once (released together), then returns
// the handles they made, in a fixed order.
std::vector<tc_tensor> run_concurrently(std::vector<std::vector<uint8_t>> slices, const Pool& pool) {
  // Not movable (the provider points into the part's own bytes): by pointer.
  std::vector<std::unique_ptr<ThreadPart>> parts;
  for (auto& s : slices) parts.push_back(std::make_unique<ThreadPart>(std::move(s), pool));
  std::atomic<int> arrived{0};
  const int n = int(parts.size());
  std::vector<std::thread> threads;
  for (auto& p : parts) {
    ThreadPart* part = p.get();
    threads.emplace_back([&arrived, n, part] {
      arrived.fetch_add(1);
      while (arrived.load() < n) std::this_thread::yield();
      part->run();
    });
  }
  for (auto& t : threads) t.join();
  std::vector<tc_tensor> made;
  for (const auto& p : parts) {
    const std::vector<tc_tensor> r = p->results();
    made.insert(made.end(), r.begin(), r.end());
  }
  return made;
}

class Runner {
 public:
  Runner(const uint8_t* data, size_t size) : in_(data, size) {}

  void run() {
    int steps = 0;
    while (in_.remaining_bytes() > 0 && steps++ < 64) step();
    pool_.release_all();
  }

 private:
  FuzzedDataProvider in_;
  Pool pool_;

  int slot() { return in_.ConsumeIntegralInRange<int>(0, kSlots - 1); }
  // A handle argument: usually a slot (live, freed or empty), sometimes forged.
  tc_tensor handle() {
    const int i = slot();
    switch (in_.ConsumeIntegralInRange<int>(0, 15)) {
      case 0:
        return nullptr;
      case 1:  // another generation of the same slot
        return reinterpret_cast<tc_tensor>(reinterpret_cast<uint64_t>(pool_.h[i]) + (uint64_t(1) << 32));
      case 2:  // the optimizer, as a tensor
        return reinterpret_cast<tc_tensor>(pool_.opt);
      case 3:
        return reinterpret_cast<tc_tensor>(in_.ConsumeIntegral<uint64_t>());
      default:
        return pool_.h[i];
    }
  }
  int64_t dim_size() {
    if (in_.ConsumeIntegralInRange<int>(0, 31) == 0) {
      static const int64_t extreme[] = {-1, -2, kI64Min, kI64Max, int64_t(1) << 62, kI64Max / 2};
      return extreme[in_.ConsumeIntegralInRange<int>(0, 5)];
    }
    return in_.ConsumeIntegralInRange<int64_t>(0, 6);
  }
  int64_t dim_index() {
    if (in_.ConsumeIntegralInRange<int>(0, 15) == 0) return in_.ConsumeIntegral<int64_t>();
    return in_.ConsumeIntegralInRange<int64_t>(-4, 4);
  }
  std::vector<int64_t> shape(bool small_only = false) {
    int64_t n = in_.ConsumeIntegralInRange<int64_t>(0, 4);
    if (in_.ConsumeIntegralInRange<int>(0, 63) == 0) n = in_.ConsumeIntegralInRange<int64_t>(0, 20);
    std::vector<int64_t> s(static_cast<size_t>(n));
    for (auto& x : s) x = small_only ? in_.ConsumeIntegralInRange<int64_t>(-1, 6) : dim_size();
    return s;
  }
  int32_t dtype() {
    if (in_.ConsumeIntegralInRange<int>(0, 15) == 0) return in_.ConsumeIntegral<int32_t>();
    return in_.ConsumeIntegralInRange<int32_t>(0, TC_DTYPE_COUNT - 1);
  }

#include "fuzz_shape_creation.inc"

  // Argument draws of the generated calls (fuzz_custom_generated.inc).
  // A dim argument: usually in [-4, 4], sometimes TC_DIM_ALL or any value.
  int64_t fuzz_dim() { return in_.ConsumeIntegralInRange<int>(0, 7) ? dim_index() : TC_DIM_ALL; }
  // An int64 argument: small (sizes, counts, indices), sometimes any value.
  int64_t fuzz_int() {
    return in_.ConsumeIntegralInRange<int>(0, 15) ? in_.ConsumeIntegralInRange<int64_t>(-3, 4)
                                                  : in_.ConsumeIntegral<int64_t>();
  }
  // A double argument: usually a small value, sometimes NaN, infinite or any.
  double fuzz_double() {
    static constexpr double kSpecial[] = {0.0, 0.5, 1.0, -1.0, 2.0, 1e-6, NAN, INFINITY, -INFINITY};
    if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) return in_.ConsumeFloatingPoint<double>();
    return kSpecial[in_.ConsumeIntegralInRange<size_t>(0, std::size(kSpecial) - 1)];
  }
  // An int64 list argument (dims, sizes) of up to 4 small entries.
  std::vector<int64_t> fuzz_list() {
    std::vector<int64_t> v(static_cast<size_t>(in_.ConsumeIntegralInRange<int>(0, 4)));
    for (auto& x : v) x = fuzz_int();
    return v;
  }
  // A fixed-size int64 array argument (stride, padding) of n small entries, and
  // its pointer: sometimes NULL.
  std::vector<int64_t> fuzz_array(int n) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (auto& x : v) x = fuzz_int();
    return v;
  }
  const int64_t* fuzz_ptr(const std::vector<int64_t>& v) {
    return in_.ConsumeIntegralInRange<int>(0, 15) ? v.data() : nullptr;
  }
  // Up to 3 tensor handles (a tensors argument).
  std::vector<tc_tensor> fuzz_handles() {
    std::vector<tc_tensor> v(static_cast<size_t>(in_.ConsumeIntegralInRange<int>(0, 3)));
    for (auto& h : v) h = handle();
    return v;
  }
  // A list's count: its size, sometimes wrong (negative, or past the array
  // when the array is empty: count 1 with a NULL pointer).
  template <typename T>
  int64_t fuzz_count(const std::vector<T>& v) {
    if (in_.ConsumeIntegralInRange<int>(0, 15)) return int64_t(v.size());
    return v.empty() ? in_.ConsumeIntegralInRange<int64_t>(-1, 1)
                     : in_.ConsumeIntegralInRange<int64_t>(-1, 0);
  }
  // A dtype code (dtype(): usually valid); named apart from the args called dtype.
  int32_t fuzz_dtype() { return dtype(); }
  // A device code: the CPU, or sometimes an invalid or absent device.
  int32_t fuzz_device() {
    static constexpr int32_t kDevices[] = {TC_CPU, TC_CPU, TC_CPU, -1, TC_DEVICE(7, 0), TC_DEVICE(0, 3)};
    return kDevices[in_.ConsumeIntegralInRange<size_t>(0, std::size(kDevices) - 1)];
  }

#include "fuzz_custom_generated.inc"

  // Calls fn(out) and stores a new handle in slot `dst`, checking the
  // out-param promise.
  // tc_rnn over input a: weights the input's size implies (so the recurrence
  // runs) or whatever is in the slots, any mode, layers, directions and states.
  void rnn(tc_tensor a, tc_tensor hx) {
    tc_rnn_options o{};
    o.size = in_.ConsumeBool() ? sizeof o : 0;
    o.mode = in_.ConsumeIntegralInRange<int32_t>(-1, 4);
    o.num_layers = in_.ConsumeIntegralInRange<int64_t>(0, 2);
    o.has_biases = in_.ConsumeBool();
    o.bidirectional = in_.ConsumeBool();
    o.batch_first = in_.ConsumeBool();
    o.train = in_.ConsumeBool();
    o.dropout = in_.ConsumeIntegralInRange<int>(0, 2) * 0.5;
    std::vector<tc_tensor> ws, made;
    int64_t ndim = 0, shape[TC_MAX_DIMS] = {};
    int32_t dtype = TC_FLOAT32;
    const bool fit = in_.ConsumeBool() && tc_tensor_ndim(a, &ndim) == TC_OK && ndim >= 2 && ndim <= 3 &&
                     tc_tensor_shape(a, shape, TC_MAX_DIMS) == TC_OK && tc_tensor_dtype(a, &dtype) == TC_OK;
    if (fit) {  // weights of the sizes the input and mode imply (hidden 2)
      const int64_t gates = o.mode == TC_RNN_LSTM ? 4 : o.mode == TC_RNN_GRU ? 3 : 1, h = 2;
      for (int64_t l = 0; l < std::max<int64_t>(o.num_layers, 1); ++l)
        for (int d = 0; d < (o.bidirectional ? 2 : 1); ++d) {
          const int64_t in = l == 0 ? shape[ndim - 1] : h * (o.bidirectional ? 2 : 1);
          const int64_t shapes[4][2] = {{gates * h, in}, {gates * h, h}, {gates * h, 0}, {gates * h, 0}};
          for (int k = 0; k < (o.has_biases ? 4 : 2); ++k) {
            tc_tensor w = nullptr;
            if (tc_randn(shapes[k], k < 2 ? 2 : 1, dtype, TC_CPU, &w) == TC_OK) {
              ws.push_back(w);
              made.push_back(w);
            }
          }
        }
    } else {
      for (int k = in_.ConsumeIntegralInRange<int>(0, 5); k > 0; --k) ws.push_back(handle());
    }
    tc_tensor cx = in_.ConsumeBool() ? nullptr : handle();
    if (in_.ConsumeBool()) hx = nullptr;
    tc_tensor out = untouched(), h_n = untouched(), c_n = untouched();
    const int32_t rc =
        tc_rnn(a, hx, cx, ws.empty() ? nullptr : ws.data(), int64_t(ws.size()), &o, &out, &h_n, &c_n);
    check("tc_rnn", rc);
    if (rc == TC_OK) {
      pool_.put(slot(), out);
      pool_.put(slot(), h_n);
      if (c_n) pool_.put(slot(), c_n);
    } else if (out != untouched() || h_n != untouched() || c_n != untouched()) {
      die("tc_rnn", "wrote an out-param on failure");
    }
    for (tc_tensor w : made) tc_tensor_free(w);
  }

  // A function with n (<= 4) handle out-params: all written on success, none on failure.
  template <typename F>
  void make_n(const char* name, int n, F fn) {
    tc_tensor outs[4] = {untouched(), untouched(), untouched(), untouched()};
    const int32_t rc = fn(outs);
    check(name, rc);
    for (int i = 0; i < n; ++i) {
      if (rc == TC_OK && outs[i] == untouched()) die(name, "succeeded without writing an out-param");
      if (rc != TC_OK && outs[i] != untouched()) die(name, "wrote an out-param on failure");
    }
    if (rc == TC_OK)
      for (int i = 0; i < n; ++i) pool_.put(slot(), outs[i]);
  }

  template <typename F>
  void make(const char* name, F fn) {
    const int dst = slot();
    tc_tensor out = untouched();
    const int32_t rc = fn(&out);
    check(name, rc);
    if (rc == TC_OK) {
      if (out == untouched()) die(name, "succeeded without writing its out-param");
      if (out) pool_.put(dst, out);  // tc_tensor_grad may give NULL
    } else if (out != untouched()) {
      die(name, "wrote its out-param on failure");
    }
  }

  // tc_tensor_free_many over up to 6 entries: slots (owned, freed, empty,
  // repeated), NULL, or a slot's next generation (which may be another
  // slot's live handle once the table reused the slot). Exactly the first
  // occurrence of each owned handle is freed; any other entry makes it fail,
  // freeing the owned ones all the same.
  void free_many() {
    tc_tensor hs[6];
    int owner[6];
    const int n = in_.ConsumeIntegralInRange<int>(0, 6);
    bool expect_ok = true;
    for (int k = 0; k < n; ++k) {
      const int i = slot();
      switch (in_.ConsumeIntegralInRange<int>(0, 7)) {
        case 0:
          hs[k] = nullptr;
          break;
        case 1:
          hs[k] = reinterpret_cast<tc_tensor>(reinterpret_cast<uint64_t>(pool_.h[i]) + (uint64_t(1) << 32));
          break;
        default:
          hs[k] = pool_.h[i];
      }
      owner[k] = -1;  // the owned slot holding this value, if any
      for (int j = 0; j < kSlots && hs[k]; ++j)
        if (pool_.owned[j] && pool_.h[j] == hs[k]) owner[k] = j;
      for (int j = 0; j < k && owner[k] >= 0; ++j)
        if (hs[j] == hs[k]) owner[k] = -1;  // a repeat: skipped by libtc
      if (owner[k] < 0) expect_ok = false;
    }
    const int32_t rc = tc_tensor_free_many(hs, n);
    check("tc_tensor_free_many", rc);
    if (expect_ok != (rc == TC_OK)) die("tc_tensor_free_many", "status disagrees with the entries' validity");
    if (!expect_ok && rc != TC_ERR_INVALID_HANDLE)
      die("tc_tensor_free_many", "a bad entry gave another code");
    for (int k = 0; k < n; ++k) {
      if (owner[k] < 0) continue;
      if (tc_tensor_free(hs[k]) == TC_OK) die("tc_tensor_free_many", "left a valid entry unfreed");
      pool_.owned[owner[k]] = false;
    }
  }

#include "fuzz_step_autograd.inc"
#include "fuzz_step_ops.inc"
#include "fuzz_step_system.inc"
#include "fuzz_step_tensors.inc"

  // One step: a call of one of the step_* functions (fuzz_step_*.inc), picked
  // by the input.
  void step() {
    using Step = void (Runner::*)();
    static constexpr Step kSteps[] = {
        &Runner::step_factories,               // 0
        &Runner::step_from_data,               // 1
        &Runner::step_free,                    // 2
        &Runner::step_retain,                  // 3
        &Runner::step_views,                   // 4
        &Runner::step_binary,                  // 5
        &Runner::step_unary,                   // 6
        &Runner::step_reductions,              // 7
        &Runner::step_backward,                // 8
        &Runner::step_autograd_accessors,      // 9
        &Runner::step_modes,                   // 10
        &Runner::step_inplace,                 // 11
        &Runner::step_rnn,                     // 12
        &Runner::step_split_chunk,             // 13
        &Runner::step_conversions,             // 14
        &Runner::step_optimizers,              // 15
        &Runner::step_read_data,               // 16
        &Runner::step_to_string,               // 17
        &Runner::step_indexing,                // 18
        &Runner::step_pooling,                 // 19
        &Runner::step_initializers,            // 20
        &Runner::step_accessors,               // 21
        &Runner::step_dlpack,                  // 22
        &Runner::step_seeds,                   // 23
        &Runner::step_optimizer_view_inplace,  // 24
        &Runner::step_tensor_new,              // 25
        &Runner::step_functions_hooks,         // 26
        &Runner::step_threads,                 // 27
        &Runner::step_collectives,             // 28
        &Runner::step_shared_memory,           // 29
        &Runner::step_generated,               // 30
    };
    (this->*kSteps[in_.ConsumeIntegralInRange<size_t>(0, std::size(kSteps) - 1)])();
  }
};

int64_t flag(const char* name) {
  int64_t v = -1;
  if (tc_get_flag(name, &v) != TC_OK) die("tc_get_flag", name);
  return v;
}

int64_t g_tensors0 = 0, g_handles0 = 0;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tc_init_options o{};
  o.size = sizeof o;
  o.num_threads = 1;  // deterministic and cheap; threads are the TSan test's job
  o.use_seed = 1;
  o.seed = 1;
  if (tc_init(&o) != TC_OK) die("tc_init", "failed");
  if (tc_process_group_create("mpi", nullptr, &g_pg) != TC_OK) g_pg = nullptr;
  g_tensors0 = flag("live_tensors");
  g_handles0 = flag("live_handles");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Runner(data, size).run();
  // Restore this thread's settings for the next input.
  tc_set_grad_enabled(1, nullptr);
  tc_set_anomaly_mode(0, 1, nullptr, nullptr);  // process-wide
  tc_set_flag("deterministic", 0);
  tc_set_flag("default_dtype", TC_FLOAT32);
  tc_manual_seed(1);
  const int64_t tensors = flag("live_tensors"), handles = flag("live_handles");
  if (handles != g_handles0) die("live_handles", std::to_string(handles - g_handles0) + " handles leaked");
  if (tensors != g_tensors0)
    die("live_tensors", std::to_string(tensors - g_tensors0) + " tensors leaked (a cycle?)");
  return 0;
}
