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
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "abi/dlpack.h"
#include "fuzz_ops_generated.h"
#include "tc.h"

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

  // A function with n (<= 3) handle out-params: all written on success, none on failure.
  template <typename F>
  void make_n(const char* name, int n, F fn) {
    tc_tensor outs[3] = {untouched(), untouched(), untouched()};
    const int32_t rc = fn(outs);
    check(name, rc);
    for (int i = 0; i < n; ++i) {
      if (rc == TC_OK && outs[i] == untouched()) die(name, "succeeded without writing an out-param");
      if (rc != TC_OK && outs[i] != untouched()) die(name, "wrote an out-param on failure");
    }
    if (rc == TC_OK)
      for (int i = 0; i < n; ++i) pool_.put(slot(), outs[i]);
  }

  // The tc_linalg_* functions on whatever is in the slots (any shape, dtype,
  // values: singular, NaN, empty), with fuzzed flags and modes.
  void linalg_ops() {
    tc_tensor a = handle(), b = handle(), c = handle();
    const int32_t f1 = in_.ConsumeIntegralInRange<int32_t>(-1, 2),
                  f2 = in_.ConsumeIntegralInRange<int32_t>(-1, 2);
    const int32_t f3 = in_.ConsumeIntegralInRange<int32_t>(-1, 3);
    switch (in_.ConsumeIntegralInRange<int>(0, 16)) {
      case 13:
        make("tc_linalg_householder_product",
             [&](tc_tensor* o) { return tc_linalg_householder_product(a, b, o); });
        break;
      case 14:
        make_n("tc_linalg_eig", 2, [&](tc_tensor* o) { return tc_linalg_eig(a, f1, &o[0], &o[1]); });
        break;
      case 15: {
        tc_tensor o4[4] = {nullptr, nullptr, nullptr, nullptr};
        const double rcond = in_.ConsumeIntegralInRange<int>(-1, 2) * 0.25;
        const int32_t rc = tc_linalg_lstsq(a, b, rcond, f3, &o4[0], &o4[1], &o4[2], &o4[3]);
        check("tc_linalg_lstsq", rc);
        for (tc_tensor t : o4) {
          if ((rc == TC_OK) != (t != nullptr))
            die("tc_linalg_lstsq", "out-params written on failure or missing");
          if (t) pool_.put(slot(), t);
        }
        break;
      }
      case 0:
        make_n("tc_linalg_lu_factor_ex", 3,
               [&](tc_tensor* o) { return tc_linalg_lu_factor_ex(a, f1, f2, &o[0], &o[1], &o[2]); });
        break;
      case 1:
        make_n("tc_linalg_lu", 3, [&](tc_tensor* o) { return tc_linalg_lu(a, f1, &o[0], &o[1], &o[2]); });
        break;
      case 2:
        make("tc_linalg_lu_solve", [&](tc_tensor* o) { return tc_linalg_lu_solve(a, b, c, f1, f2, o); });
        break;
      case 3:
        make_n("tc_linalg_inv_ex", 2, [&](tc_tensor* o) { return tc_linalg_inv_ex(a, f1, &o[0], &o[1]); });
        break;
      case 4:
        make("tc_linalg_det", [&](tc_tensor* o) { return tc_linalg_det(a, o); });
        break;
      case 5:
        make_n("tc_linalg_slogdet", 2, [&](tc_tensor* o) { return tc_linalg_slogdet(a, &o[0], &o[1]); });
        break;
      case 6:
        make_n("tc_linalg_solve_ex", 2,
               [&](tc_tensor* o) { return tc_linalg_solve_ex(a, b, f1, f2, &o[0], &o[1]); });
        break;
      case 7:
        make("tc_linalg_solve_triangular",
             [&](tc_tensor* o) { return tc_linalg_solve_triangular(a, b, f1, f2, f3, o); });
        break;
      case 8:
        make_n("tc_linalg_cholesky_ex", 2,
               [&](tc_tensor* o) { return tc_linalg_cholesky_ex(a, f1, f2, &o[0], &o[1]); });
        break;
      case 9:
        make_n("tc_linalg_qr", 2, [&](tc_tensor* o) { return tc_linalg_qr(a, f3, &o[0], &o[1]); });
        break;
      case 10:
        make_n("tc_linalg_svd", 3, [&](tc_tensor* o) { return tc_linalg_svd(a, f1, &o[0], &o[1], &o[2]); });
        break;
      case 11:
        make("tc_linalg_svdvals", [&](tc_tensor* o) { return tc_linalg_svdvals(a, o); });
        break;
      case 12:
        make_n("tc_linalg_eigh", 2, [&](tc_tensor* o) { return tc_linalg_eigh(a, f1, &o[0], &o[1]); });
        break;
      default:
        make("tc_linalg_eigvalsh", [&](tc_tensor* o) { return tc_linalg_eigvalsh(a, f1, o); });
        break;
    }
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

  void step() {
    const int op = in_.ConsumeIntegralInRange<int>(0, 29);
    switch (op) {
      case 0: {  // factories
        const std::vector<int64_t> s = shape();
        const int64_t ndim = int64_t(s.size());
        const int32_t dt = dtype();
        switch (in_.ConsumeIntegralInRange<int>(0, 5)) {
          case 0:
            make("tc_zeros", [&](tc_tensor* o) { return tc_zeros(s.data(), ndim, dt, TC_CPU, o); });
            break;
          case 1:
            make("tc_ones", [&](tc_tensor* o) { return tc_ones(s.data(), ndim, dt, TC_CPU, o); });
            break;
          case 2: {
            const double v = in_.ConsumeFloatingPoint<double>();
            make("tc_full", [&](tc_tensor* o) { return tc_full(s.data(), ndim, v, dt, TC_CPU, o); });
            break;
          }
          case 3:
            make("tc_randn", [&](tc_tensor* o) { return tc_randn(s.data(), ndim, dt, TC_CPU, o); });
            break;
          case 4:
            make("tc_rand", [&](tc_tensor* o) { return tc_rand(s.data(), ndim, TC_FLOAT32, TC_CPU, o); });
            break;
          default: {
            const double start = in_.ConsumeFloatingPointInRange<double>(-50, 50);
            const double end = in_.ConsumeFloatingPointInRange<double>(-50, 50);
            const double step = in_.ConsumeFloatingPoint<double>();
            if (step != 0 && std::abs((end - start) / step) > 4096) break;  // keep it small
            make("tc_arange", [&](tc_tensor* o) { return tc_arange(start, end, step, dt, TC_CPU, o); });
          }
        }
        break;
      }
      case 1: {  // from_data with the input's own bytes
        const std::vector<int64_t> s = shape();
        const int32_t dt = dtype();
        const std::vector<uint8_t> bytes =
            in_.ConsumeBytes<uint8_t>(in_.ConsumeIntegralInRange<size_t>(0, 256));
        make("tc_from_data", [&](tc_tensor* o) {
          return tc_from_data(bytes.data(), int64_t(bytes.size()), s.data(), int64_t(s.size()), dt, o);
        });
        break;
      }
      case 2: {  // free (the slot keeps the value: later uses are use-after-free)
        if (in_.ConsumeBool()) {
          free_many();
          break;
        }
        const int i = slot();
        const int32_t rc = tc_tensor_free(pool_.h[i]);
        check("tc_tensor_free", rc);
        if (pool_.owned[i] && rc != TC_OK) die("tc_tensor_free", "could not free an owned handle");
        if (!pool_.owned[i] && rc == TC_OK) die("tc_tensor_free", "freed a handle twice");
        pool_.owned[i] = false;
        break;
      }
      case 3: {
        tc_tensor t = handle();
        make("tc_tensor_retain", [&](tc_tensor* o) { return tc_tensor_retain(t, o); });
        break;
      }
      case 4: {  // views
        tc_tensor t = handle();
        const int64_t d0 = dim_index(), d1 = dim_index(), d2 = dim_index();
        switch (in_.ConsumeIntegralInRange<int>(0, 9)) {
          case 0:
            make("tc_transpose", [&](tc_tensor* o) { return tc_transpose(t, d0, d1, o); });
            break;
          case 1:
            make("tc_narrow", [&](tc_tensor* o) { return tc_narrow(t, d0, d1, d2, o); });
            break;
          case 2: {
            const int64_t st = in_.ConsumeIntegralInRange<int>(0, 3)
                                   ? in_.ConsumeIntegralInRange<int64_t>(-1, 3)
                                   : in_.ConsumeIntegral<int64_t>();
            make("tc_slice", [&](tc_tensor* o) { return tc_slice(t, d0, d1, d2, st, o); });
            break;
          }
          case 3:
            make("tc_select", [&](tc_tensor* o) { return tc_select(t, d0, d1, o); });
            break;
          case 4:
            make("tc_squeeze",
                 [&](tc_tensor* o) { return tc_squeeze(t, in_.ConsumeBool() ? TC_DIM_ALL : d0, o); });
            break;
          case 5:
            make("tc_unsqueeze", [&](tc_tensor* o) { return tc_unsqueeze(t, d0, o); });
            break;
          case 6: {
            const std::vector<int64_t> s = shape();
            make("tc_reshape", [&](tc_tensor* o) { return tc_reshape(t, s.data(), int64_t(s.size()), o); });
            break;
          }
          case 7: {
            const std::vector<int64_t> s = shape();
            make("tc_view", [&](tc_tensor* o) { return tc_view(t, s.data(), int64_t(s.size()), o); });
            break;
          }
          case 8: {
            const std::vector<int64_t> s = shape(true);  // expand only to small sizes
            make("tc_expand", [&](tc_tensor* o) { return tc_expand(t, s.data(), int64_t(s.size()), o); });
            break;
          }
          default: {
            std::vector<int64_t> p = {d0, d1, d2, dim_index()};
            const int64_t n = in_.ConsumeIntegralInRange<int64_t>(0, 4);
            make("tc_permute", [&](tc_tensor* o) { return tc_permute(t, p.data(), n, o); });
          }
        }
        break;
      }
      case 5: {  // binary ops: every op of the table's binary and compare families, and custom ones
        tc_tensor a = handle(), b = handle();
        constexpr int kFamily = int(std::size(fuzz_ops::kBinary));
        const int pick = in_.ConsumeIntegralInRange<int>(0, kFamily + 8);
        if (pick < kFamily) {
          const fuzz_ops::BinaryOp& f = fuzz_ops::kBinary[pick];
          make(f.name, [&](tc_tensor* o) { return f.fn(a, b, o); });
        } else if (pick == kFamily) {
          make("tc_matmul", [&](tc_tensor* o) { return tc_matmul(a, b, o); });
        } else if (pick == kFamily + 2) {  // the composed binary ops (ops/binary_ext.cpp)
          const double rtol = in_.ConsumeFloatingPoint<double>(), atol = in_.ConsumeFloatingPoint<double>();
          const int32_t equal_nan = in_.ConsumeIntegral<int32_t>();
          make("tc_isclose", [&](tc_tensor* o) { return tc_isclose(a, b, rtol, atol, equal_nan, o); });
        } else if (pick == kFamily + 3) {
          tc_tensor w = handle();
          make("tc_lerp", [&](tc_tensor* o) { return tc_lerp(a, b, w, o); });
        } else if (pick == kFamily + 4) {
          const double w = in_.ConsumeFloatingPoint<double>();
          make("tc_lerp_scalar", [&](tc_tensor* o) { return tc_lerp_scalar(a, b, w, o); });
        } else if (pick == kFamily + 5 || pick == kFamily + 6) {
          tc_tensor c = handle();
          const double v = in_.ConsumeFloatingPoint<double>();
          if (pick == kFamily + 5)
            make("tc_addcmul", [&](tc_tensor* o) { return tc_addcmul(a, b, c, v, o); });
          else
            make("tc_addcdiv", [&](tc_tensor* o) { return tc_addcdiv(a, b, c, v, o); });
        } else if (pick == kFamily + 7) {
          make("tc_prelu", [&](tc_tensor* o) { return tc_prelu(a, b, o); });
        } else if (pick == kFamily + 8) {
          const int64_t dim = in_.ConsumeIntegralInRange<int64_t>(-4, 4);
          make("tc_glu", [&](tc_tensor* o) { return tc_glu(a, dim, o); });
        } else {
          tc_tensor c = handle();
          make("tc_where", [&](tc_tensor* o) { return tc_where(c, a, b, o); });
        }
        break;
      }
      case 6: {  // unary and scalar ops: the table's unary and scalar families, and custom ones
        tc_tensor a = handle();
        const double s = in_.ConsumeFloatingPoint<double>();
        constexpr int kUnary = int(std::size(fuzz_ops::kUnary));
        constexpr int kScalar = int(std::size(fuzz_ops::kScalar));
        const int pick = in_.ConsumeIntegralInRange<int>(0, kUnary + kScalar + 1);
        if (pick < kUnary) {
          const fuzz_ops::UnaryOp& f = fuzz_ops::kUnary[pick];
          make(f.name, [&](tc_tensor* o) { return f.fn(a, o); });
        } else if (pick < kUnary + kScalar) {
          const fuzz_ops::ScalarOp& f = fuzz_ops::kScalar[pick - kUnary];
          make(f.name, [&](tc_tensor* o) { return f.fn(a, s, o); });
        } else if (pick == kUnary + kScalar) {
          make("tc_clamp",
               [&](tc_tensor* o) { return tc_clamp(a, s, in_.ConsumeFloatingPoint<double>(), o); });
        } else {
          make("tc_clone", [&](tc_tensor* o) { return tc_clone(a, o); });
        }
        break;
      }
      case 7: {  // reductions
        tc_tensor a = handle();
        std::vector<int64_t> dims = {dim_index(), dim_index(), dim_index()};
        int64_t nd = in_.ConsumeIntegralInRange<int64_t>(0, 3);
        if (in_.ConsumeIntegralInRange<int>(0, 31) == 0) nd = in_.ConsumeIntegralInRange<int64_t>(-3, 20);
        if (nd > 3) dims.resize(size_t(nd), 0);
        const int32_t keep = in_.ConsumeIntegralInRange<int32_t>(0, 1);
        switch (in_.ConsumeIntegralInRange<int>(0, 7)) {
          case 0: {  // the table's reductions over dims (tc_sum, tc_mean, tc_prod, ...)
            const auto& f = fuzz_ops::kDimsReduce[in_.ConsumeIntegralInRange<size_t>(
                0, std::size(fuzz_ops::kDimsReduce) - 1)];
            make(f.name, [&](tc_tensor* o) { return f.fn(a, dims.data(), nd, keep, o); });
            break;
          }
          case 1: {  // the table's ops along one dim (tc_softmax, tc_cumsum, ...)
            const auto& f =
                fuzz_ops::kDimOp[in_.ConsumeIntegralInRange<size_t>(0, std::size(fuzz_ops::kDimOp) - 1)];
            make(f.name, [&](tc_tensor* o) { return f.fn(a, dims[0], o); });
            break;
          }
          case 2:
            make("tc_var", [&](tc_tensor* o) {
              return tc_var(a, dims.data(), nd, in_.ConsumeIntegralInRange<int64_t>(-1, 3), keep, o);
            });
            break;
          case 3:
            make("tc_max", [&](tc_tensor* o) { return tc_max(a, o); });
            break;
          case 4:
            make("tc_argmax", [&](tc_tensor* o) {
              return tc_argmax(a, in_.ConsumeBool() ? TC_DIM_ALL : dims[0], keep, o);
            });
            break;
          case 5: {
            const int dst2 = slot();
            tc_tensor v = untouched(), ix = untouched();
            const int32_t rc = tc_max_dim(a, dims[0], keep, &v, &ix);
            check("tc_max_dim", rc);
            if (rc == TC_OK) {
              pool_.put(slot(), v);
              pool_.put(dst2, ix);
            } else if (v != untouched() || ix != untouched()) {
              die("tc_max_dim", "wrote an out-param on failure");
            }
            break;
          }
          case 6: {  // reductions, scans, sort and search
            const int32_t flag = in_.ConsumeIntegralInRange<int32_t>(0, 1);
            // Two results: both handles on success, neither written on failure.
            auto two = [&](const char* name, auto&& fn) {
              const int dst2 = slot();
              tc_tensor v = untouched(), ix = untouched();
              const int32_t rc = fn(&v, &ix);
              check(name, rc);
              if (rc == TC_OK) {
                pool_.put(slot(), v);
                pool_.put(dst2, ix);
              } else if (v != untouched() || ix != untouched()) {
                die(name, "wrote an out-param on failure");
              }
            };
            static constexpr double kPs[] = {2.0, 1.0, 0.0, 0.5, 3.0, -1.5, INFINITY, -INFINITY, NAN};
            switch (in_.ConsumeIntegralInRange<int>(0, 10)) {
              case 0: {
                const double p = kPs[in_.ConsumeIntegralInRange<size_t>(0, std::size(kPs) - 1)];
                make("tc_norm", [&](tc_tensor* o) { return tc_norm(a, p, dims.data(), nd, keep, o); });
                break;
              }
              case 1:
                make("tc_count_nonzero",
                     [&](tc_tensor* o) { return tc_count_nonzero(a, dims.data(), nd, o); });
                break;
              case 2:
                two("tc_std_mean", [&](tc_tensor* v, tc_tensor* m) {
                  return tc_std_mean(a, dims.data(), nd, in_.ConsumeIntegralInRange<int64_t>(-1, 3), keep, v,
                                     m);
                });
                break;
              case 3:
                make("tc_median", [&](tc_tensor* o) { return tc_median(a, o); });
                break;
              case 4:
                two("tc_median_dim",
                    [&](tc_tensor* v, tc_tensor* i) { return tc_median_dim(a, dims[0], keep, v, i); });
                break;
              case 5: {
                const int64_t k = in_.ConsumeIntegralInRange<int64_t>(-1, 5);
                two("tc_kthvalue",
                    [&](tc_tensor* v, tc_tensor* i) { return tc_kthvalue(a, k, dims[0], keep, v, i); });
                break;
              }
              case 6:
                two("tc_mode", [&](tc_tensor* v, tc_tensor* i) { return tc_mode(a, dims[0], keep, v, i); });
                break;
              case 7:
                two("tc_cummin", [&](tc_tensor* v, tc_tensor* i) { return tc_cummin(a, dims[0], v, i); });
                break;
              case 8:
                two("tc_sort", [&](tc_tensor* v, tc_tensor* i) { return tc_sort(a, dims[0], flag, v, i); });
                break;
              case 9: {
                const int dst2 = slot(), dst3 = slot();
                tc_tensor v = untouched(), inv = untouched(), c = untouched();
                const int32_t rc = tc_unique(a, &v, &inv, &c);
                check("tc_unique", rc);
                if (rc == TC_OK) {
                  pool_.put(slot(), v);
                  pool_.put(dst2, inv);
                  pool_.put(dst3, c);
                } else if (v != untouched() || inv != untouched() || c != untouched()) {
                  die("tc_unique", "wrote an out-param on failure");
                }
                break;
              }
              default: {
                tc_tensor values = handle();
                make("tc_searchsorted",
                     [&](tc_tensor* o) { return tc_searchsorted(a, values, flag, keep, o); });
              }
            }
            break;
          }
          default:
            make("tc_std", [&](tc_tensor* o) { return tc_std(a, dims.data(), nd, 1, keep, o); });
        }
        break;
      }
      case 8: {  // backward; gradients handed back (maybe with a graph); backward into some inputs
        tc_tensor root = handle();
        tc_tensor grad = in_.ConsumeBool() ? nullptr : handle();
        switch (in_.ConsumeIntegralInRange<int>(0, 2)) {
          case 0:
            check("tc_backward", tc_backward(root, grad, in_.ConsumeIntegralInRange<int32_t>(0, 1)));
            break;
          case 1: {
            tc_tensor input = handle();
            tc_grad_options o{sizeof(tc_grad_options), in_.ConsumeIntegralInRange<int32_t>(-1, 1),
                              in_.ConsumeIntegralInRange<int32_t>(0, 1), 0, 0};
            make("tc_autograd_grad", [&](tc_tensor* out) {
              return tc_autograd_grad(&root, 1, grad ? &grad : nullptr, &input, 1, &o, out);
            });
            break;
          }
          default: {
            tc_tensor input = handle();
            tc_backward_options o{sizeof(tc_backward_options), in_.ConsumeIntegralInRange<int32_t>(-1, 1),
                                  in_.ConsumeIntegralInRange<int32_t>(0, 1),
                                  in_.ConsumeBool() ? &input : nullptr, 1};
            check("tc_backward_ex", tc_backward_ex(&root, 1, grad ? &grad : nullptr, &o));
          }
        }
        break;
      }
      case 9: {  // autograd accessors
        tc_tensor t = handle();
        switch (in_.ConsumeIntegralInRange<int>(0, 8)) {
          case 0:
            check("tc_tensor_set_requires_grad",
                  tc_tensor_set_requires_grad(t, in_.ConsumeIntegralInRange<int32_t>(-1, 2)));
            break;
          case 1:
            make("tc_tensor_grad", [&](tc_tensor* o) { return tc_tensor_grad(t, o); });
            break;
          case 2:
            make("tc_detach", [&](tc_tensor* o) { return tc_detach(t, o); });
            break;
          case 3:
            check("tc_tensor_clear_grad", tc_tensor_clear_grad(t));
            break;
          case 4:
            check("tc_tensor_retain_grad", tc_tensor_retain_grad(t));
            break;
          case 5: {
            char buf[32];
            int64_t needed = 0;
            check("tc_tensor_grad_fn_name",
                  tc_tensor_grad_fn_name(t, buf, in_.ConsumeIntegralInRange<int64_t>(-1, 32), &needed));
            break;
          }
          case 6:  // any pair: most are refused (shape, dtype, itself, read-only)
            check("tc_tensor_set_grad", tc_tensor_set_grad(t, handle()));
            break;
          case 7:  // any pair: t takes the other's data (graphs that saved t then refuse it)
            check("tc_tensor_set_data", tc_tensor_set_data(t, handle()));
            break;
          default: {
            int32_t v = 0;
            check("tc_tensor_is_leaf", tc_tensor_is_leaf(t, &v));
          }
        }
        break;
      }
      case 10: {  // grad mode, anomaly mode and flags
        switch (in_.ConsumeIntegralInRange<int>(0, 4)) {
          case 0: {
            int32_t prev = 0;
            check("tc_set_grad_enabled",
                  tc_set_grad_enabled(in_.ConsumeIntegralInRange<int32_t>(-1, 2), &prev));
            break;
          }
          case 1:
            check("tc_set_flag", tc_set_flag("deterministic", in_.ConsumeIntegralInRange<int64_t>(-1, 2)));
            break;
          case 2:
            check("tc_set_flag", tc_set_flag("default_dtype", in_.ConsumeIntegralInRange<int64_t>(-1, 3)));
            break;
          case 3: {  // anomaly mode: later backwards check every gradient for NaN
            int32_t enabled = 0, check_nan = 0;
            check("tc_set_anomaly_mode",
                  tc_set_anomaly_mode(in_.ConsumeIntegralInRange<int32_t>(-1, 2),
                                      in_.ConsumeIntegralInRange<int32_t>(-1, 2), nullptr, nullptr));
            check("tc_anomaly_mode", tc_anomaly_mode(&enabled, &check_nan));
            break;
          }
          default: {
            int64_t count = 0, v = 0;
            tc_flag_count(&count);
            const char* name = nullptr;
            if (tc_flag_info(in_.ConsumeIntegralInRange<int64_t>(-1, count), &name, nullptr) == TC_OK)
              check("tc_get_flag", tc_get_flag(name, &v));
          }
        }
        break;
      }
      case 11: {  // in-place ops
        tc_tensor a = handle(), b = handle();
        switch (in_.ConsumeIntegralInRange<int>(0, 6)) {
          case 0:
            check("tc_add_", tc_add_(a, b));
            break;
          case 1:
            check("tc_mul_", tc_mul_(a, b));
            break;
          case 2:
            check("tc_div_", tc_div_(a, b));
            break;
          case 3:
            check("tc_copy_", tc_copy_(a, b));
            break;
          case 4:
            check("tc_zero_", tc_zero_(a));
            break;
          case 5:
            check("tc_fill_", tc_fill_(a, in_.ConsumeFloatingPoint<double>()));
            break;
          default:
            check("tc_uniform_",
                  tc_uniform_(a, in_.ConsumeFloatingPoint<double>(), in_.ConsumeFloatingPoint<double>()));
        }
        break;
      }
      case 12: {  // nn ops
        tc_tensor a = handle(), b = handle();
        const int32_t red = in_.ConsumeIntegralInRange<int32_t>(-1, 3);
        switch (in_.ConsumeIntegralInRange<int>(0, 7)) {
          case 0:
            make("tc_cross_entropy", [&](tc_tensor* o) { return tc_cross_entropy(a, b, red, o); });
            break;
          case 1:
            make("tc_nll_loss", [&](tc_tensor* o) { return tc_nll_loss(a, b, red, o); });
            break;
          case 2:
            make("tc_mse_loss", [&](tc_tensor* o) { return tc_mse_loss(a, b, red, o); });
            break;
          case 3:
            make("tc_dropout",
                 [&](tc_tensor* o) { return tc_dropout(a, in_.ConsumeFloatingPoint<double>(), 1, o); });
            break;
          case 4: {
            tc_tensor bias = in_.ConsumeBool() ? nullptr : handle();
            make("tc_linear", [&](tc_tensor* o) { return tc_linear(a, b, bias, o); });
            break;
          }
          case 5: {  // the losses and distances of src/ops/losses.cpp
            tc_tensor w = in_.ConsumeBool() ? nullptr : handle();
            const double x = in_.ConsumeFloatingPoint<double>();
            const int64_t i = in_.ConsumeIntegralInRange<int64_t>(-101, 4);
            switch (in_.ConsumeIntegralInRange<int>(0, 10)) {
              case 0:
                make("tc_l1_loss", [&](tc_tensor* o) { return tc_l1_loss(a, b, red, o); });
                break;
              case 1:
                make("tc_smooth_l1_loss", [&](tc_tensor* o) { return tc_smooth_l1_loss(a, b, red, x, o); });
                break;
              case 2:
                make("tc_huber_loss", [&](tc_tensor* o) { return tc_huber_loss(a, b, red, x, o); });
                break;
              case 3:
                make("tc_binary_cross_entropy",
                     [&](tc_tensor* o) { return tc_binary_cross_entropy(a, b, w, red, o); });
                break;
              case 4: {
                tc_tensor pw = in_.ConsumeBool() ? nullptr : handle();
                make("tc_binary_cross_entropy_with_logits",
                     [&](tc_tensor* o) { return tc_binary_cross_entropy_with_logits(a, b, w, pw, red, o); });
                break;
              }
              case 5:
                make("tc_kl_div", [&](tc_tensor* o) { return tc_kl_div(a, b, red, int32_t(i & 1), o); });
                break;
              case 6:
                make("tc_nll_loss_ex", [&](tc_tensor* o) { return tc_nll_loss_ex(a, b, w, i, red, o); });
                break;
              case 7:
                make("tc_cross_entropy_ex",
                     [&](tc_tensor* o) { return tc_cross_entropy_ex(a, b, w, i, x, red, o); });
                break;
              case 8:
                make("tc_cosine_similarity",
                     [&](tc_tensor* o) { return tc_cosine_similarity(a, b, i, x, o); });
                break;
              case 9:
                make("tc_pairwise_distance",
                     [&](tc_tensor* o) { return tc_pairwise_distance(a, b, x, 1e-6, int32_t(i & 1), o); });
                break;
              default:
                make("tc_normalize", [&](tc_tensor* o) { return tc_normalize(a, x, i, 1e-12, o); });
            }
            break;
          }
          case 7:
            rnn(a, b);
            break;
          default:
            make("tc_embedding", [&](tc_tensor* o) { return tc_embedding(a, b, o); });
        }
        break;
      }
      case 13: {  // cat / stack / split / chunk, and the shape, creation, matrix and linalg ops
        if (in_.ConsumeIntegralInRange<int>(0, 7) == 0) {
          linalg_ops();
          break;
        }
        if (in_.ConsumeIntegralInRange<int>(0, 2) == 0) {
          shape_creation_ops();
          break;
        }
        tc_tensor ts[3] = {handle(), handle(), handle()};
        const int64_t count = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
        const int64_t dim = dim_index();
        switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
          case 0:
            make("tc_cat", [&](tc_tensor* o) { return tc_cat(ts, count, dim, o); });
            break;
          case 1:
            make("tc_stack", [&](tc_tensor* o) { return tc_stack(ts, count, dim, o); });
            break;
          default: {
            tc_tensor outs[4];
            for (auto& o : outs) o = untouched();
            int64_t n = -1;
            const int64_t size = in_.ConsumeIntegralInRange<int>(0, 7)
                                     ? in_.ConsumeIntegralInRange<int64_t>(-1, 4)
                                     : in_.ConsumeIntegral<int64_t>();
            const int64_t cap = in_.ConsumeIntegralInRange<int64_t>(-1, 4);
            const bool split = in_.ConsumeBool();
            const char* fn = split ? "tc_split" : "tc_chunk";
            const int32_t rc =
                split ? tc_split(ts[0], size, dim, outs, cap, &n) : tc_chunk(ts[0], size, dim, outs, cap, &n);
            check(fn, rc);
            if (rc == TC_OK) {
              if (n < 0 || n > cap) die(fn, "bad count");
              for (int64_t i = 0; i < n; ++i) pool_.put(int(i % kSlots), outs[i]);
            } else {
              for (auto& o : outs)
                if (o != untouched()) die(fn, "wrote a handle on failure");
            }
          }
        }
        break;
      }
      case 14: {  // conversions
        tc_tensor a = handle();
        const int32_t dt = dtype();
        if (in_.ConsumeBool()) {
          make("tc_to_dtype", [&](tc_tensor* o) { return tc_to_dtype(a, dt, o); });
        } else {
          make("tc_contiguous", [&](tc_tensor* o) { return tc_contiguous(a, o); });
        }
        break;
      }
      case 15: {  // optimizers
        switch (in_.ConsumeIntegralInRange<int>(0, 4)) {
          case 0: {
            tc_tensor ps[3] = {handle(), handle(), handle()};
            const int64_t n = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
            tc_optimizer o = nullptr;
            int32_t rc;
            const char* fn;
            const int kind = in_.ConsumeIntegralInRange<int>(0, 3);
            if (kind == 2) {
              tc_rmsprop_options ro{};
              ro.size = sizeof ro;
              ro.lr = in_.ConsumeFloatingPoint<double>();
              ro.alpha = in_.ConsumeFloatingPointInRange<double>(-1, 2);
              ro.eps = in_.ConsumeFloatingPointInRange<double>(-1, 1);
              ro.momentum = in_.ConsumeFloatingPointInRange<double>(-1, 2);
              ro.centered = in_.ConsumeIntegralInRange<int32_t>(0, 1);
              fn = "tc_optimizer_rmsprop";
              rc = tc_optimizer_rmsprop(ps, n, &ro, &o);
            } else if (kind == 3) {
              tc_adagrad_options ag{};
              ag.size = sizeof ag;
              ag.lr = in_.ConsumeFloatingPoint<double>();
              ag.lr_decay = in_.ConsumeFloatingPointInRange<double>(-1, 1);
              ag.initial_accumulator_value = in_.ConsumeFloatingPointInRange<double>(-1, 1);
              ag.eps = in_.ConsumeFloatingPointInRange<double>(-1, 1);
              fn = "tc_optimizer_adagrad";
              rc = tc_optimizer_adagrad(ps, n, &ag, &o);
            } else if (kind == 0) {
              tc_sgd_options so{};
              so.size = sizeof so;
              so.lr = in_.ConsumeFloatingPoint<double>();
              so.momentum = in_.ConsumeFloatingPointInRange<double>(-1, 2);
              so.nesterov = in_.ConsumeIntegralInRange<int32_t>(0, 1);
              so.weight_decay = in_.ConsumeFloatingPointInRange<double>(-1, 1);
              fn = "tc_optimizer_sgd";
              rc = tc_optimizer_sgd(ps, n, &so, &o);
            } else {
              tc_adam_options ao{};
              ao.size = sizeof ao;
              ao.lr = in_.ConsumeFloatingPoint<double>();
              ao.beta1 = in_.ConsumeFloatingPointInRange<double>(-1, 2);
              ao.beta2 = in_.ConsumeFloatingPointInRange<double>(-1, 2);
              ao.eps = in_.ConsumeFloatingPointInRange<double>(-1, 1);
              ao.decoupled_weight_decay = in_.ConsumeIntegralInRange<int32_t>(0, 1);
              fn = "tc_optimizer_adam";
              rc = tc_optimizer_adam(ps, n, &ao, &o);
            }
            check(fn, rc);
            if (rc == TC_OK) {
              if (pool_.opt_owned) check("tc_optimizer_free", tc_optimizer_free(pool_.opt));
              pool_.opt = o;
              pool_.opt_owned = true;
            }
            break;
          }
          case 1:
            check("tc_optimizer_step", tc_optimizer_step(pool_.opt));
            break;
          case 2:
            check("tc_optimizer_zero_grad", tc_optimizer_zero_grad(pool_.opt));
            break;
          case 3:
            check("tc_optimizer_set_lr", tc_optimizer_set_lr(pool_.opt, in_.ConsumeFloatingPoint<double>()));
            break;
          default: {
            const int32_t rc = tc_optimizer_free(pool_.opt);
            check("tc_optimizer_free", rc);
            if (pool_.opt_owned && rc != TC_OK) die("tc_optimizer_free", "could not free an owned optimizer");
            pool_.opt_owned = false;  // the value stays: later uses are use-after-free
          }
        }
        break;
      }
      case 16: {  // reading data out
        tc_tensor a = handle();
        int64_t numel = 0, size = 0;
        if (tc_tensor_numel(a, &numel) == TC_OK && tc_tensor_element_size(a, &size) == TC_OK &&
            numel * size <= 4096) {
          std::vector<uint8_t> buf(size_t(numel * size) + 1);
          const int64_t delta = in_.ConsumeIntegralInRange<int64_t>(-1, 1);
          check("tc_tensor_copy_to",
                tc_tensor_copy_to(a, buf.data(), numel * size + delta < 0 ? 0 : numel * size + delta));
        }
        double v = 0;
        check("tc_tensor_item", tc_tensor_item(a, &v));
        break;
      }
      case 17: {
        tc_tensor a = handle();
        char buf[64];
        int64_t needed = 0;
        int64_t numel = 0;
        if (tc_tensor_numel(a, &numel) == TC_OK && numel > 100000) break;  // printing is linear
        check("tc_tensor_to_string",
              tc_tensor_to_string(a, buf, in_.ConsumeIntegralInRange<int64_t>(0, 64), &needed));
        break;
      }
      case 18: {  // gather / index_select / one_hot / advanced indexing / scatters / nonzero
        tc_tensor a = handle(), ix = handle();
        const int64_t d = dim_index();
        switch (in_.ConsumeIntegralInRange<int>(0, 5)) {
          case 0:
            make("tc_gather", [&](tc_tensor* o) { return tc_gather(a, d, ix, o); });
            break;
          case 1:
            make("tc_index_select", [&](tc_tensor* o) { return tc_index_select(a, d, ix, o); });
            break;
          case 2: {
            const int64_t classes = in_.ConsumeIntegralInRange<int64_t>(-2, 16);
            make("tc_one_hot", [&](tc_tensor* o) { return tc_one_hot(ix, classes, o); });
            break;
          }
          case 3: {  // advanced indexing: up to 3 entries, each a slot or NULL (a full slice)
            tc_tensor ixs[3];
            const int64_t n = in_.ConsumeIntegralInRange<int64_t>(0, 3);
            for (int64_t i = 0; i < n; ++i) ixs[i] = in_.ConsumeBool() ? nullptr : handle();
            switch (in_.ConsumeIntegralInRange<int>(0, 2)) {
              case 0:
                make("tc_index", [&](tc_tensor* o) { return tc_index(a, ixs, n, o); });
                break;
              case 1: {
                tc_tensor v = handle();
                const int32_t acc = in_.ConsumeBool();
                make("tc_index_put", [&](tc_tensor* o) { return tc_index_put(a, ixs, n, v, acc, o); });
                break;
              }
              default:
                check("tc_index_put_", tc_index_put_(a, ixs, n, handle(), in_.ConsumeBool()));
            }
            break;
          }
          case 4: {  // the scatter family
            tc_tensor src = handle();
            switch (in_.ConsumeIntegralInRange<int>(0, 8)) {
              case 0:
                make("tc_scatter", [&](tc_tensor* o) { return tc_scatter(a, d, ix, src, o); });
                break;
              case 1:
                make("tc_scatter_value", [&](tc_tensor* o) { return tc_scatter_value(a, d, ix, 1.5, o); });
                break;
              case 2:
                make("tc_scatter_add", [&](tc_tensor* o) { return tc_scatter_add(a, d, ix, src, o); });
                break;
              case 3: {
                const int32_t reduce = in_.ConsumeIntegralInRange<int32_t>(-1, 5);
                const int32_t inc = in_.ConsumeBool();
                make("tc_scatter_reduce",
                     [&](tc_tensor* o) { return tc_scatter_reduce(a, d, ix, src, reduce, inc, o); });
                break;
              }
              case 4:
                make("tc_index_add", [&](tc_tensor* o) { return tc_index_add(a, d, ix, src, -2.0, o); });
                break;
              case 5:
                make("tc_index_copy", [&](tc_tensor* o) { return tc_index_copy(a, d, ix, src, o); });
                break;
              case 6:
                make("tc_index_fill", [&](tc_tensor* o) { return tc_index_fill(a, d, ix, 0.5, o); });
                break;
              case 7:
                make("tc_take", [&](tc_tensor* o) { return tc_take(a, ix, o); });
                break;
              default:
                make("tc_masked_select", [&](tc_tensor* o) { return tc_masked_select(a, ix, o); });
            }
            break;
          }
          default:
            make("tc_nonzero", [&](tc_tensor* o) { return tc_nonzero(a, o); });
        }
        break;
      }
      case 19: {  // pooling and convolution on whatever is in the slots
        tc_tensor x = handle(), w = handle();
        int64_t k[2] = {in_.ConsumeIntegralInRange<int64_t>(-1, 4),
                        in_.ConsumeIntegralInRange<int64_t>(-1, 4)};
        int64_t s[2] = {in_.ConsumeIntegralInRange<int64_t>(-1, 3),
                        in_.ConsumeIntegralInRange<int64_t>(-1, 3)};
        int64_t p[2] = {in_.ConsumeIntegralInRange<int64_t>(-1, 2),
                        in_.ConsumeIntegralInRange<int64_t>(-1, 2)};
        int64_t d[2] = {in_.ConsumeIntegralInRange<int64_t>(0, 2), in_.ConsumeIntegralInRange<int64_t>(0, 2)};
        switch (in_.ConsumeIntegralInRange<int>(0, 18)) {
          case 0:
            make("tc_max_pool2d",
                 [&](tc_tensor* o) { return tc_max_pool2d(x, k, in_.ConsumeBool() ? nullptr : s, p, o); });
            break;
          case 1:
            make("tc_avg_pool2d", [&](tc_tensor* o) { return tc_avg_pool2d(x, k, s, p, o); });
            break;
          case 2: {
            tc_tensor b = in_.ConsumeBool() ? nullptr : handle();
            const int64_t groups = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
            make("tc_conv2d", [&](tc_tensor* o) { return tc_conv2d(x, w, b, s, p, d, groups, o); });
            break;
          }
          // The neural-network layers (ops/nn_layers.cpp).
          case 3: {
            tc_tensor b = in_.ConsumeBool() ? nullptr : handle();
            const int64_t groups = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
            int64_t p4[4] = {p[0], p[1], in_.ConsumeIntegralInRange<int64_t>(-1, 2),
                             in_.ConsumeIntegralInRange<int64_t>(-1, 2)};
            make("tc_conv2d_padded",
                 [&](tc_tensor* o) { return tc_conv2d_padded(x, w, b, s, p4, d, groups, o); });
            break;
          }
          case 4: {
            tc_tensor b = in_.ConsumeBool() ? nullptr : handle();
            const int64_t groups = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
            int64_t op[2] = {in_.ConsumeIntegralInRange<int64_t>(-1, 2),
                             in_.ConsumeIntegralInRange<int64_t>(-1, 2)};
            make("tc_conv_transpose2d",
                 [&](tc_tensor* o) { return tc_conv_transpose2d(x, w, b, s, p, op, d, groups, o); });
            break;
          }
          case 5: {
            const int32_t ceil = in_.ConsumeBool();
            const int dst2 = slot();
            tc_tensor v = untouched(), ix = untouched();
            const int32_t rc =
                tc_max_pool2d_with_indices(x, k, in_.ConsumeBool() ? nullptr : s, p, d, ceil, &v, &ix);
            check("tc_max_pool2d_with_indices", rc);
            if (rc == TC_OK) {
              pool_.put(slot(), v);
              pool_.put(dst2, ix);
            } else if (v != untouched() || ix != untouched()) {
              die("tc_max_pool2d_with_indices", "wrote an out-param on failure");
            }
            break;
          }
          case 6: {
            const int32_t ceil = in_.ConsumeBool(), include = in_.ConsumeBool();
            const int64_t divisor = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
            make("tc_avg_pool2d_ex",
                 [&](tc_tensor* o) { return tc_avg_pool2d_ex(x, k, s, p, ceil, include, divisor, o); });
            break;
          }
          case 7:
            if (in_.ConsumeBool())
              make("tc_adaptive_avg_pool2d", [&](tc_tensor* o) { return tc_adaptive_avg_pool2d(x, k, o); });
            else
              make("tc_adaptive_avg_pool1d",
                   [&](tc_tensor* o) { return tc_adaptive_avg_pool1d(x, k[0], o); });
            break;
          case 8:
            if (in_.ConsumeBool())
              make("tc_adaptive_max_pool2d",
                   [&](tc_tensor* o) { return tc_adaptive_max_pool2d(x, k, o, nullptr); });
            else
              make("tc_adaptive_max_pool1d",
                   [&](tc_tensor* o) { return tc_adaptive_max_pool1d(x, k[1], o, nullptr); });
            break;
          case 9: {
            double sf[2] = {in_.ConsumeFloatingPoint<double>(), in_.ConsumeFloatingPoint<double>()};
            const int32_t mode = in_.ConsumeIntegralInRange<int32_t>(-1, 2), align = in_.ConsumeBool();
            const bool scales = in_.ConsumeBool();
            make("tc_interpolate",
                 [&](tc_tensor* o) { return tc_interpolate(x, k, scales ? sf : nullptr, mode, align, o); });
            break;
          }
          case 10:
            make("tc_pixel_shuffle", [&](tc_tensor* o) { return tc_pixel_shuffle(x, k[0], o); });
            break;
          case 11:
            make("tc_pixel_unshuffle", [&](tc_tensor* o) { return tc_pixel_unshuffle(x, k[0], o); });
            break;
          case 12: {
            tc_tensor wt = in_.ConsumeBool() ? nullptr : handle(),
                      bs = in_.ConsumeBool() ? nullptr : handle();
            tc_tensor rm = in_.ConsumeBool() ? nullptr : handle(),
                      rv = in_.ConsumeBool() ? nullptr : handle();
            const int32_t training = in_.ConsumeBool();
            const double momentum = in_.ConsumeFloatingPoint<double>(),
                         eps = in_.ConsumeFloatingPoint<double>();
            if (in_.ConsumeBool()) {
              make("tc_batch_norm", [&](tc_tensor* o) {
                return tc_batch_norm(x, wt, bs, rm, rv, training, momentum, eps, o);
              });
            } else {
              make("tc_instance_norm", [&](tc_tensor* o) {
                return tc_instance_norm(x, wt, bs, rm, rv, training, momentum, eps, o);
              });
            }
            break;
          }
          case 13: {
            tc_tensor wt = in_.ConsumeBool() ? nullptr : handle(),
                      bs = in_.ConsumeBool() ? nullptr : handle();
            const double eps = in_.ConsumeFloatingPoint<double>();
            make("tc_group_norm", [&](tc_tensor* o) { return tc_group_norm(x, k[0], wt, bs, eps, o); });
            break;
          }
          case 14:
            make("tc_embedding_padding_idx",
                 [&](tc_tensor* o) { return tc_embedding_padding_idx(w, x, k[0], o); });
            break;
          case 15:
            make("tc_dropout2d", [&](tc_tensor* o) {
              return tc_dropout2d(x, in_.ConsumeFloatingPoint<double>(), in_.ConsumeBool(), o);
            });
            break;
          // 3-D convolutions: the depth axis takes the first entry again.
          case 16: {
            tc_tensor b = in_.ConsumeBool() ? nullptr : handle();
            const int64_t groups = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
            int64_t s3[3] = {s[0], s[0], s[1]}, p3[3] = {p[0], p[0], p[1]}, d3[3] = {d[0], d[0], d[1]};
            make("tc_conv3d", [&](tc_tensor* o) { return tc_conv3d(x, w, b, s3, p3, d3, groups, o); });
            break;
          }
          case 17: {
            tc_tensor b = in_.ConsumeBool() ? nullptr : handle();
            const int64_t groups = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
            int64_t s3[3] = {s[0], s[0], s[1]}, p3[3] = {p[0], p[0], p[1]}, d3[3] = {d[0], d[0], d[1]};
            int64_t op[3] = {in_.ConsumeIntegralInRange<int64_t>(-1, 2), 0,
                             in_.ConsumeIntegralInRange<int64_t>(-1, 2)};
            make("tc_conv_transpose3d",
                 [&](tc_tensor* o) { return tc_conv_transpose3d(x, w, b, s3, p3, op, d3, groups, o); });
            break;
          }
          default: {
            tc_tensor b = in_.ConsumeBool() ? nullptr : handle();
            const int64_t groups = in_.ConsumeIntegralInRange<int64_t>(-1, 3);
            make("tc_conv2d", [&](tc_tensor* o) { return tc_conv2d(x, w, b, s, p, d, groups, o); });
          }
        }
        break;
      }
      case 20: {  // initializers
        tc_tensor a = handle();
        const double v = in_.ConsumeFloatingPoint<double>();
        switch (in_.ConsumeIntegralInRange<int>(0, 2)) {
          case 0:
            check("tc_normal_", tc_normal_(a, 0, v));
            break;
          case 1:
            check("tc_kaiming_uniform_", tc_kaiming_uniform_(a, v));
            break;
          default:
            check("tc_xavier_uniform_", tc_xavier_uniform_(a, v));
        }
        break;
      }
      case 21: {  // accessors
        tc_tensor a = handle();
        int64_t dims[TC_MAX_DIMS];
        const int64_t cap = in_.ConsumeIntegralInRange<int64_t>(-1, TC_MAX_DIMS);
        check("tc_tensor_shape", tc_tensor_shape(a, dims, cap));
        check("tc_tensor_strides", tc_tensor_strides(a, dims, cap));
        int64_t v = 0;
        int32_t same = 0;
        check("tc_tensor_version", tc_tensor_version(a, &v));
        check("tc_tensor_same", tc_tensor_same(a, handle(), &same));
        break;
      }
      case 22: {  // DLPack round trip of a slot
        tc_tensor a = handle();
        void* m = nullptr;
        const int32_t rc = tc_to_dlpack(a, &m);
        check("tc_to_dlpack", rc);
        if (rc == TC_OK) {
          tc_tensor back = untouched();
          const int32_t rc2 = tc_from_dlpack(m, 1, &back);
          check("tc_from_dlpack", rc2);
          if (rc2 == TC_OK) {
            pool_.put(slot(), back);
          } else {
            // On failure the caller keeps it: call its deleter.
            auto* v = static_cast<DLManagedTensorVersioned*>(m);
            v->deleter(v);
          }
        }
        break;
      }
      case 25: {  // tc_tensor_new with fuzzed options
        const std::vector<int64_t> s = shape();
        const std::vector<uint8_t> bytes =
            in_.ConsumeBytes<uint8_t>(in_.ConsumeIntegralInRange<size_t>(0, 64));
        tc_tensor_options o{};
        o.size = in_.ConsumeBool() ? uint32_t(sizeof o) : in_.ConsumeIntegralInRange<uint32_t>(0, 200);
        o.shape = s.data();
        o.ndim = int64_t(s.size());
        o.dtype = dtype();
        o.device = in_.ConsumeBool() ? TC_CPU : in_.ConsumeIntegral<int32_t>();
        o.requires_grad = in_.ConsumeIntegralInRange<int32_t>(-1, 2);
        o.fill = in_.ConsumeIntegralInRange<int32_t>(-1, 7);
        o.reserved0 = in_.ConsumeIntegralInRange<uint32_t>(0, 1) * in_.ConsumeIntegralInRange<uint32_t>(0, 1);
        o.value = in_.ConsumeFloatingPoint<double>();
        o.low = in_.ConsumeFloatingPointInRange<double>(-10, 10);
        o.high = in_.ConsumeFloatingPoint<double>();
        o.mean = in_.ConsumeFloatingPoint<double>();
        o.std = in_.ConsumeFloatingPoint<double>();
        o.data = bytes.empty() ? nullptr : bytes.data();
        o.nbytes = in_.ConsumeBool() ? int64_t(bytes.size()) : in_.ConsumeIntegral<int64_t>();
        make("tc_tensor_new", [&](tc_tensor* out) { return tc_tensor_new(&o, out); });
        break;
      }
      case 26: {  // custom functions, hooks, graph nodes and op libraries on whatever is in the slots
        tc_tensor a = handle(), b = handle();
        switch (in_.ConsumeIntegralInRange<int>(0, 4)) {
          case 0: {
            tc_function_def d{};
            d.size = sizeof d;
            d.name = "FuzzBackward";
            d.forward = fuzz_forward;
            d.backward = in_.ConsumeBool() ? fuzz_backward : nullptr;
            tc_tensor in[2] = {a, b};
            tc_tensor outs[2] = {untouched(), untouched()};
            int64_t count = -7;
            const int32_t rc = tc_function_apply(&d, in, in_.ConsumeIntegralInRange<int64_t>(-1, 2), outs,
                                                 in_.ConsumeIntegralInRange<int64_t>(-1, 2), &count);
            check("tc_function_apply", rc);
            if (rc == TC_OK) {
              for (int64_t i = 0; i < count; ++i) pool_.put(slot(), outs[i]);
            } else if (count != -7 || outs[0] != untouched()) {
              die("tc_function_apply", "wrote an out-param on failure");
            }
            break;
          }
          case 1: {
            tc_hook h = nullptr;
            const bool grad_hook = in_.ConsumeBool();
            const int32_t rc = grad_hook ? tc_tensor_register_hook(a, fuzz_grad_hook, nullptr, nullptr, &h)
                                         : tc_tensor_register_post_accumulate_grad_hook(a, fuzz_post_hook,
                                                                                        nullptr, nullptr, &h);
            check(grad_hook ? "tc_tensor_register_hook" : "tc_tensor_register_post_accumulate_grad_hook", rc);
            if (rc == TC_OK) {
              if (in_.ConsumeBool()) {
                tc_tensor s = nullptr;  // a backward through the hook
                if (tc_sum(a, nullptr, 0, 0, &s) == TC_OK) {
                  check("tc_backward", tc_backward(s, nullptr, 0));
                  tc_tensor_free(s);
                }
              }
              check("tc_hook_remove", tc_hook_remove(h));
              if (tc_hook_remove(h) != TC_ERR_INVALID_HANDLE) die("tc_hook_remove", "removed twice");
            }
            break;
          }
          case 3: {  // the example op library's op (examples/op_library), when TC_FUZZ_OP_LIBRARY names it
            const char* path = std::getenv("TC_FUZZ_OP_LIBRARY");
            if (!path) break;
            tc_library lib = nullptr;
            const int32_t lrc = tc_load_library(path, &lib);
            check("tc_load_library", lrc);
            if (lrc != TC_OK) break;
            tc_tensor in[2] = {a, b};
            const double scalars[2] = {in_.ConsumeFloatingPoint<double>(), 1.0};
            tc_tensor outs[2] = {untouched(), untouched()};
            int64_t count = -7;
            const int32_t rc =
                tc_op_call_by_name(in_.ConsumeBool() ? "myops::scaled_square" : "myops::missing", in,
                                   in_.ConsumeIntegralInRange<int64_t>(-1, 2), scalars,
                                   in_.ConsumeIntegralInRange<int64_t>(-1, 2), outs,
                                   in_.ConsumeIntegralInRange<int64_t>(-1, 2), &count);
            check("tc_op_call_by_name", rc);
            if (rc == TC_OK) {
              // The outputs outlive the unload below: their node keeps the library mapped.
              for (int64_t i = 0; i < count; ++i) pool_.put(slot(), outs[i]);
            } else if (count != -7 || outs[0] != untouched()) {
              die("tc_op_call_by_name", "wrote an out-param on failure");
            }
            check("tc_library_unload", tc_library_unload(lib));
            if (tc_library_unload(lib) != TC_ERR_INVALID_HANDLE) die("tc_library_unload", "unloaded twice");
            break;
          }
          default: {
            tc_node n = nullptr;
            const int32_t rc = tc_tensor_grad_fn(a, &n);
            check("tc_tensor_grad_fn", rc);
            if (rc == TC_OK && n) {
              char buf[32];
              check("tc_node_name", tc_node_name(n, buf, sizeof buf, nullptr));
              int64_t count = 0, nr = 0;
              check("tc_node_next_count", tc_node_next_count(n, &count));
              tc_node next = nullptr;
              const int32_t rc2 = tc_node_next(n, in_.ConsumeIntegralInRange<int64_t>(-1, 3), &next, &nr);
              check("tc_node_next", rc2);
              if (rc2 == TC_OK && next) check("tc_node_free", tc_node_free(next));
              check("tc_node_free", tc_node_free(n));
            }
          }
        }
        break;
      }
      case 23: {  // seeds and the generator
        check("tc_manual_seed", tc_manual_seed(in_.ConsumeIntegral<uint64_t>()));
        break;
      }
      case 27: {  // a block on 2 or 3 threads at once, each from its own slice of the input
        std::vector<std::vector<uint8_t>> slices(in_.ConsumeIntegralInRange<size_t>(2, 3));
        for (auto& sl : slices) sl = in_.ConsumeBytes<uint8_t>(in_.ConsumeIntegralInRange<size_t>(0, 96));
        const std::vector<tc_tensor> made = run_concurrently(std::move(slices), pool_);
        // The pool adopts them (in a fixed order): later steps use them.
        for (size_t i = 0; i < made.size(); ++i) pool_.put(int(i % kSlots), made[i]);
        break;
      }
      case 28: {  // collectives on the slots over a group of one ("mpi"; none when MPI is unusable)
        if (!g_pg) break;
        tc_tensor a = handle(), b = handle();
        tc_work w = nullptr;
        tc_work* wp = in_.ConsumeBool() ? &w : nullptr;
        const int32_t v = in_.ConsumeIntegralInRange<int32_t>(-1, 5);
        switch (in_.ConsumeIntegralInRange<int>(0, 6)) {
          case 0:
            check("tc_all_reduce", tc_all_reduce(g_pg, a, v, wp));
            break;
          case 1:
            check("tc_broadcast", tc_broadcast(g_pg, a, v, wp));
            break;
          case 2:
            check("tc_all_gather", tc_all_gather(g_pg, a, b, wp));
            break;
          case 3:
            check("tc_reduce_scatter", tc_reduce_scatter(g_pg, a, b, v, wp));
            break;
          case 4:
            check("tc_barrier", tc_barrier(g_pg, wp));
            break;
          case 5:
            check("tc_send", tc_send(g_pg, a, v, v, wp));
            break;
          default:
            check("tc_recv", tc_recv(g_pg, a, v, v, wp));
            break;
        }
        if (w) {
          int32_t done = 0;
          check("tc_work_test", tc_work_test(w, &done));
          check("tc_work_wait", tc_work_wait(w, 0));
          check("tc_work_free", tc_work_free(w));
          if (tc_work_free(w) != TC_ERR_INVALID_HANDLE) die("tc_work_free", "a work freed twice");
        }
        break;
      }
      case 29: {  // shared memory: move a slot's storage, export it, import a fuzzed view of it
        tc_tensor a = handle();
        const bool fs = in_.ConsumeBool();
        check("tc_set_sharing_strategy",
              tc_set_sharing_strategy(fs ? TC_SHARE_FILE_SYSTEM : TC_SHARE_FILE_DESCRIPTOR));
        check("tc_tensor_share_memory_", tc_tensor_share_memory_(a));
        check("tc_set_sharing_strategy", tc_set_sharing_strategy(TC_SHARE_FILE_DESCRIPTOR));
        int32_t shared = 0, kind = -1, fd = -1;
        check("tc_tensor_is_shared", tc_tensor_is_shared(a, &shared));
        int64_t nbytes = 0, needed = 0;
        char name[128] = {};
        const int32_t rc = tc_tensor_shared_handle(a, &kind, &fd, &nbytes, name, 128, &needed);
        check("tc_tensor_shared_handle", rc);
        if (rc != TC_OK) break;
        // Either the tensor's own view or a fuzzed one (which may reach past the storage).
        const std::vector<int64_t> s = shape();
        const int64_t offset = in_.ConsumeIntegralInRange<int64_t>(0, 8);
        const int64_t extra = in_.ConsumeIntegralInRange<int64_t>(-16, 16);
        tc_tensor out = untouched();
        const int32_t rc2 = tc_tensor_from_shared(kind, fd, name, nbytes + extra, s.data(), nullptr,
                                                  int64_t(s.size()), offset, dtype(), &out);
        check("tc_tensor_from_shared", rc2);
        if (rc2 == TC_OK) pool_.put(slot(), out);
        if (kind == TC_SHARE_FILE_SYSTEM && tc_shared_memory_retain(name) == TC_OK)
          check("tc_shared_memory_release", tc_shared_memory_release(name));
        break;
      }
      default: {  // in-place on the optimizer's parameters through a view, then step
        tc_tensor a = handle();
        tc_tensor v = nullptr;
        if (tc_detach(a, &v) == TC_OK) {
          check("tc_mul_", tc_mul_(v, v));
          tc_tensor_free(v);
        }
        break;
      }
    }
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
