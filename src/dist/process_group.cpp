#include "dist/process_group.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "core/dtype.h"
#include "core/error.h"
#include "core/init.h"
#include "dist/dist_common.h"

namespace tc::dist {

namespace {

using Clock = std::chrono::steady_clock;

// ---- the MPI module, loaded once per process ----

struct Module {
  const tc_mpi_api* api = nullptr;
  int32_t code = TC_OK;  // why api is null
  std::string why;
};

#ifdef TC_HAVE_MPI
std::string own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

Module load_module() {
  Module m;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("TC_MPI_MODULE"); env && *env) {
    candidates.push_back(env);
  } else {
    // Next to libtc.so (an installed or a build tree), then the build tree
    // this libtc came from (for programs linking the static objects).
    const std::string here = own_directory();
    if (!here.empty()) candidates.push_back(here + "/libtc_mpi.so");
    const std::string built = std::string(TC_MPI_MODULE_DIR) + "/libtc_mpi.so";
    if (candidates.empty() || candidates.back() != built) candidates.push_back(built);
  }
  std::string errors;
  for (const std::string& path : candidates) {
    if (::access(path.c_str(), F_OK) != 0) {
      errors += str("\n  ", path, ": no such file");
      continue;
    }
    // RTLD_GLOBAL: MPI libraries load plugins of their own that expect
    // libmpi's symbols to be visible (Open MPI's components).
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
      const char* e = dlerror();
      errors += str("\n  ", path, ": ", e ? e : "dlopen failed");
      continue;
    }
    auto fn = reinterpret_cast<tc_mpi_module_fn>(dlsym(lib, TC_MPI_MODULE_SYMBOL));
    const tc_mpi_api* api = fn ? fn(TC_MPI_API_VERSION) : nullptr;
    if (!api) {
      errors += str("\n  ", path, ": not a libtc MPI module of version ", TC_MPI_API_VERSION);
      continue;
    }
    m.api = api;  // never dlclose'd: MPI finalizes at exit from inside it
    return m;
  }
  m.code = TC_ERR_UNAVAILABLE;
  m.why = str("the MPI module could not be loaded (set TC_MPI_MODULE to its path):", errors);
  return m;
}
#endif

const Module& mpi_module() {
#ifdef TC_HAVE_MPI
  static const Module m = load_module();
#else
  static const Module m = [] {
    Module x;
    x.code = TC_ERR_NOT_COMPILED;
    x.why = "libtc was built without MPI (TC_WITH_MPI=OFF, or no MPI found at build time)";
    return x;
  }();
#endif
  return m;
}

struct World {
  int32_t code = TC_OK;
  std::string why;
  int32_t rank = 0, size = 1;
};

// MPI_Init once per process (MPI cannot be initialized twice).
const World& mpi_world(const tc_mpi_api* api) {
  static const World w = [api] {
    World x;
    char err[512] = {0};
    if (api->init(&x.rank, &x.size, err, sizeof err) != 0) {
      x.code = TC_ERR_UNAVAILABLE;
      x.why = str("MPI could not be initialized: ", err);
    }
    return x;
  }();
  return w;
}

const char* op_name(int64_t op) {
  switch (op) {
    case TC_REDUCE_SUM:
      return "sum";
    case TC_REDUCE_AVG:
      return "avg";
    case TC_REDUCE_MAX:
      return "max";
    case TC_REDUCE_MIN:
      return "min";
    case TC_REDUCE_PRODUCT:
      return "product";
  }
  return "?";
}

// ---- descriptors: what a rank passes to a collective ----

enum Kind : int64_t { kAllReduce = 1, kBroadcast, kAllGather, kReduceScatter, kBarrier, kSend };
static_assert(kAllReduce == TC_MPI_KIND_ALL_REDUCE, "the MPI module reads all-reduce descriptors");
constexpr int kMaxShownDims = 6;
constexpr size_t kDescLen = 7 + kMaxShownDims;  // kind arg dtype ndim numel extra hash dims...

const char* kind_name(int64_t k) {
  switch (k) {
    case kAllReduce:
      return "all_reduce";
    case kBroadcast:
      return "broadcast";
    case kAllGather:
      return "all_gather";
    case kReduceScatter:
      return "reduce_scatter";
    case kBarrier:
      return "barrier";
    case kSend:
      return "send";
  }
  return "an unknown collective";
}

std::vector<int64_t> describe(Kind kind, int64_t arg, const Tensor* t, int64_t extra) {
  std::vector<int64_t> d(kDescLen, -1);
  d[0] = kind;
  d[1] = arg;
  if (t) {
    const Tensor& x = *t;
    d[2] = int64_t(x->dtype);
    d[3] = x->ndim();
    d[4] = x->numel();
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the dims
    for (int64_t i = 0; i < x->ndim(); ++i) {
      h = (h ^ uint64_t(x->shape[i])) * 1099511628211ull;
      if (i < kMaxShownDims) d[7 + size_t(i)] = x->shape[i];
    }
    d[6] = int64_t(h);
  }
  d[5] = extra;
  return d;
}

// "float32 [2, 3]" from a descriptor.
std::string tensor_text(const int64_t* d) {
  if (d[2] < 0 || d[2] >= TC_DTYPE_COUNT) return "no tensor";
  std::string s = str(dtype_name(DType(d[2])), " [");
  for (int64_t i = 0; i < d[3]; ++i) {
    if (i) s += ", ";
    if (i >= kMaxShownDims) {
      s += "...";
      break;
    }
    s += std::to_string(d[7 + i]);
  }
  return s + "]";
}

std::string desc_text(const int64_t* d) {
  std::string s = kind_name(d[0]);
  if (d[0] == kAllReduce || d[0] == kReduceScatter) s += str("(", op_name(d[1]), ")");
  if (d[0] == kBroadcast) s += str("(root ", d[1], ")");
  if (d[2] >= 0) s += " of " + tensor_text(d);
  if (d[0] == kAllGather) s += str(" into ", d[5], " elements");
  if (d[0] == kReduceScatter) s += str(" from ", d[5], " elements");
  return s;
}

// A failed descriptor comparison's code: the collective, then the dtype, then the shape.
int32_t mismatch_code(const int64_t* a, const int64_t* b) {
  if (a[0] != b[0] || a[1] != b[1]) return TC_ERR_INVALID_ARGUMENT;
  if (a[2] != b[2]) return TC_ERR_DTYPE;
  return TC_ERR_SHAPE;
}

// Between polls: spin first (a collective on a fast network completes in
// microseconds), then yield, then sleep a little, so that a rank that waits
// leaves the core to the peers it waits for when ranks outnumber cores.
}  // namespace

void detail::spin(int& iteration) {
  ++iteration;
  if (iteration > 2048) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  } else if (iteration > 64) {
    std::this_thread::yield();
  }
}

// What MPI may still write after a timeout or a freed group: groups whose
// handle was freed while collectives were in flight (with their works'
// tensors), descriptor buffers of timed-out exchanges. Kept for good.
namespace {
std::mutex orphans_mu;
std::vector<std::shared_ptr<void>>& orphans() {
  static auto* v = new std::vector<std::shared_ptr<void>>();
  return *v;
}
}  // namespace

void detail::keep_forever(std::shared_ptr<void> p) {
  std::lock_guard<std::mutex> lock(orphans_mu);
  orphans().push_back(std::move(p));
}

int64_t detail::descriptor_length() { return int64_t(kDescLen); }

const tc_mpi_api* detail::mpi_for_bootstrap(int32_t* rank, int32_t* size, std::string* why) {
  const Module& m = mpi_module();
  if (!m.api) {
    *why = m.why;
    return nullptr;
  }
  const World& w = mpi_world(m.api);
  if (w.code != TC_OK) {
    *why = w.why;
    return nullptr;
  }
  *rank = w.rank;
  *size = w.size;
  return m.api;
}

void detail::compare_descriptors(const int64_t* all, int32_t size, int32_t rank) {
  const int64_t* first = all;
  for (int32_t r = 1; r < size; ++r) {
    const int64_t* other = all + size_t(r) * kDescLen;
    if (std::equal(first, first + kDescLen, other)) continue;
    fail(mismatch_code(first, other), str("ranks disagree: rank 0 called ", desc_text(first), ", rank ", r,
                                          " called ", desc_text(other), " (this is rank ", rank, ")"));
  }
}

using detail::keep_forever;
using detail::spin;

void Group::check_tensor(const Tensor& t, const char* arg, bool written) const {
  if (nccl_) {
    TC_CHECK(device_type(t->device) == TC_DEVICE_CUDA && device_index(t->device) == device_, TC_ERR_DEVICE,
             arg, " is on ", device_name(t->device), ", but this nccl group runs on cuda:", device_,
             " (the mpi backend is the one for CPU tensors)");
  } else {
    TC_CHECK(device_type(t->device) == TC_DEVICE_CPU, TC_ERR_DEVICE, arg, " is on ", device_name(t->device),
             ", but the mpi backend runs on CPU tensors (nccl is the backend for CUDA ones)");
  }
  TC_CHECK(t->is_contiguous(), TC_ERR_INVALID_ARGUMENT, arg,
           " is not contiguous (collectives need contiguous tensors: call tc_contiguous)");
  if (!written) return;
  check_writable(t, arg);
  TC_CHECK(!grad_enabled() || !t->requires_grad, TC_ERR_AUTOGRAD, arg,
           " requires grad: collectives write in place and are not recorded (use no-grad mode, or a "
           "tensor that does not require grad such as its .grad or a detached one)");
}

// ---- Work ----

bool Work::progress_locked() {
  if (done_) return true;
  const tc_mpi_api* api = group_->api_;
  const tc_nccl_api* nccl = group_->nccl_;
  for (size_t i = 0; i < requests_.size();) {
    int32_t finished = 0;
    char err[512] = {0};
    const int32_t rc = nccl ? nccl->test(group_->ncomm_, requests_[i], &finished, err, sizeof err)
                            : api->test(requests_[i], &finished, err, sizeof err);
    if (finished && nccl) nccl->event_free(requests_[i]);
    if (rc != 0) {
      if (code_ == TC_OK) {
        code_ = TC_ERR_IO;
        message_ = str(what_, " failed: ", err);
      }
    }
    if (finished) {
      requests_.erase(requests_.begin() + long(i));
    } else {
      ++i;
    }
  }
  if (!requests_.empty()) return false;
  if (code_ == TC_OK && finish_) {
    try {
      finish_();
    } catch (const Error& e) {
      code_ = e.code();
      message_ = e.what();
    } catch (...) {
      code_ = TC_ERR_INTERNAL;
      message_ = str(what_, ": its completion failed");
    }
  }
  done_ = true;
  finish_ = nullptr;
  keep_.clear();
  scratch_.clear();
  scratch_.shrink_to_fit();
  return true;
}

void Work::throw_if_failed() const {
  if (code_ != TC_OK) fail(code_, message_);
}

bool Work::test() {
  std::lock_guard<std::mutex> lock(group_->mu_);
  const bool d = progress_locked();
  group_->progress_pending_locked();
  return d;
}

void Work::wait(double timeout_seconds) {
  TC_CHECK(!std::isnan(timeout_seconds), TC_ERR_INVALID_ARGUMENT, "timeout_seconds is NaN");
  const double limit = timeout_seconds > 0 ? timeout_seconds : group_->timeout_;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::min(limit, 1e9)));
  int iteration = 0;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(group_->mu_);
      if (progress_locked()) {
        group_->progress_pending_locked();
        break;
      }
    }
    if (Clock::now() > deadline) {
      if (group_->nccl_ && timeout_seconds <= 0) {
        // The group's own deadline passed: NCCL can abort (MPI cannot), which
        // unblocks the kernels; the group is unusable afterwards.
        std::lock_guard<std::mutex> lock(group_->mu_);
        group_->nccl_abort_locked();
      }
      fail(TC_ERR_TIMEOUT, str("timed out after ", limit, " s waiting for ", what_, " on rank ",
                               group_->rank_, " of ", group_->size_, " (", group_->backend_,
                               "): a peer died, hangs, or called a different collective"));
    }
    spin(iteration);
  }
  throw_if_failed();
}

// ---- Group ----

bool backend_available(const std::string& backend, int32_t* code, std::string* why) {
  if (backend == "nccl") return nccl_available(code, why);
  TC_CHECK(backend == "mpi", TC_ERR_INVALID_ARGUMENT, "unknown backend \"", backend,
           "\" (expected \"mpi\" or \"nccl\")");
  const Module& m = mpi_module();
  *code = m.code;
  *why = m.why;
  return m.api != nullptr;
}

std::shared_ptr<Group> Group::create(const std::string& backend, const Options& options) {
  int32_t code = TC_OK;
  std::string why;
  if (!backend_available(backend, &code, &why)) fail(code, why);
  if (backend == "nccl") return create_nccl(options);
  const Module& m = mpi_module();
  const World& w = mpi_world(m.api);
  if (w.code != TC_OK) fail(w.code, w.why);
  std::shared_ptr<Group> g(new Group());
  g->backend_ = backend;
  g->api_ = m.api;
  g->rank_ = w.rank;
  g->size_ = w.size;
  g->checks_ = options.checks;
  g->timeout_ = options.timeout_seconds;
  char err[512] = {0};
  if (m.api->comm_dup(&g->comm_, err, sizeof err) != 0 || m.api->comm_dup(&g->check_, err, sizeof err) != 0)
    fail(TC_ERR_IO, str("making the group's communicators failed: ", err));
  g->pair_checks_ = g->checks_ && m.api->fused_check(g->comm_) != 0;
  return g;
}

Group::~Group() {
  if (nccl_) nccl_->comm_free(ncomm_);
  if (!api_) return;
  api_->comm_free(comm_);
  api_->comm_free(check_);
}

void Group::release_handle() {
  std::lock_guard<std::mutex> lock(mu_);
  progress_pending_locked();
  if (!pending_.empty()) keep_forever(shared_from_this());
}

void Group::progress_pending_locked() {
  for (size_t i = 0; i < pending_.size();) {
    if (pending_[i]->progress_locked()) {
      pending_.erase(pending_.begin() + long(i));
    } else {
      ++i;
    }
  }
}

void Group::wait_request(void* req, const std::string& what, std::shared_ptr<void> buffers) {
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_));
  int iteration = 0;
  for (;;) {
    int32_t done = 0;
    char err[512] = {0};
    int32_t rc = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      rc = api_->test(req, &done, err, sizeof err);
    }
    if (rc != 0) fail(TC_ERR_IO, str(what, " failed: ", err));
    if (done) return;
    if (Clock::now() > deadline) {
      keep_forever(std::move(buffers));  // the request stays in MPI's hands
      fail(TC_ERR_TIMEOUT,
           str("timed out after ", timeout_, " s in ", what, " on rank ", rank_, " of ", size_, " (",
               backend_, "): a peer died, hangs, or called a different collective"));
    }
    spin(iteration);
  }
}

void Group::check_collective(const char* op, const std::vector<int64_t>& mine) {
  // Every rank gathers every rank's descriptor, so every rank sees the same
  // disagreement and fails the same way. The buffer outlives a timeout.
  auto all = std::make_shared<std::vector<int64_t>>(size_t(size_) * kDescLen);
  auto sent = std::make_shared<std::vector<int64_t>>(mine);
  void* req = nullptr;
  char err[512] = {0};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (api_->iallgather(check_, sent->data(), all->data(), int64_t(kDescLen * 8), &req, err, sizeof err) !=
        0)
      fail(TC_ERR_IO, str("the descriptor exchange of ", op, " failed: ", err));
  }
  wait_request(req, str("the descriptor exchange of ", op),
               std::make_shared<std::pair<decltype(all), decltype(sent)>>(all, sent));
  detail::compare_descriptors(all->data(), size_, rank_);
}

namespace {
// The failure of a group of two whose descriptors differ (pair: mine, then
// the peer's): the same message on both ranks, as compare_descriptors gives.
[[noreturn]] void fail_pair(const int64_t* pair, int32_t rank) {
  std::vector<int64_t> all(2 * kDescLen);
  const int64_t* mine = pair;
  const int64_t* theirs = pair + kDescLen;
  std::copy(rank == 0 ? mine : theirs, (rank == 0 ? mine : theirs) + kDescLen, all.begin());
  std::copy(rank == 0 ? theirs : mine, (rank == 0 ? theirs : mine) + kDescLen, all.begin() + kDescLen);
  detail::compare_descriptors(all.data(), 2, rank);
  fail(TC_ERR_INTERNAL, "descriptors differ but compare equal");  // (unreachable)
}
}  // namespace

void Group::check_pair(const char* op, const std::vector<int64_t>& mine) {
  // The peer's descriptor point to point, where the all-reduce's fused
  // check (in the module) sends and expects it: whatever collective each
  // rank called, their descriptors meet. The buffer outlives a timeout.
  auto pair = std::make_shared<std::vector<int64_t>>(2 * kDescLen);
  std::copy(mine.begin(), mine.end(), pair->begin());
  int64_t* theirs = pair->data() + kDescLen;
  const int32_t peer = 1 - rank_;
  void* rreq = nullptr;
  void* sreq = nullptr;
  char err[512] = {0};
  {
    std::lock_guard<std::mutex> lock(mu_);
    int32_t rc =
        api_->irecv(check_, theirs, int64_t(kDescLen * 8), peer, TC_MPI_HEADER_TAG, &rreq, err, sizeof err);
    if (rc == 0)
      rc = api_->isend(check_, pair->data(), int64_t(kDescLen * 8), peer, TC_MPI_HEADER_TAG, &sreq, err,
                       sizeof err);
    if (rc != 0) {
      keep_forever(pair);  // a receive may be posted
      fail(TC_ERR_IO, str("the descriptor exchange of ", op, " failed to start: ", err));
    }
  }
  wait_request(rreq, str("the descriptor exchange of ", op), pair);
  wait_request(sreq, str("the descriptor exchange of ", op), pair);
  if (std::equal(mine.begin(), mine.end(), theirs)) return;
  if (theirs[0] == kAllReduce && mine[0] != kAllReduce) {
    // The peer's all-reduce sent its data before it saw this descriptor:
    // take it, so that it cannot match a later receive.
    void* req = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (api_->idrain_allreduce(comm_, theirs, &req, err, sizeof err) != 0)
        fail(TC_ERR_IO, str("draining the peer's all_reduce failed: ", err));
    }
    wait_request(req, "the drain of the peer's all_reduce", pair);
  }
  fail_pair(pair->data(), rank_);
}

void Group::check(const char* op, const std::vector<int64_t>& mine) {
  if (!checks_) return;
  if (nccl_) {
    nccl_check(op, mine);
  } else if (pair_checks_) {
    check_pair(op, mine);
  } else {
    check_collective(op, mine);
  }
}

std::shared_ptr<Work> Group::start(const char* what, const std::function<void(Work&)>& post) {
  std::lock_guard<std::mutex> lock(mu_);
  progress_pending_locked();
  auto w = std::make_shared<Work>(shared_from_this(), what);
  post(*w);
  pending_.push_back(w);
  return w;
}

void Group::check_op(int32_t op, DType dtype) const {
  TC_CHECK(op >= TC_REDUCE_SUM && op <= TC_REDUCE_PRODUCT, TC_ERR_INVALID_ARGUMENT, "op ", op,
           " is not a TC_REDUCE_* code");
  if (nccl_) {
    TC_CHECK(nccl_->reduces(int32_t(dtype), op), TC_ERR_DTYPE, "NCCL cannot reduce ", dtype_name(dtype),
             " tensors with ", op_name(op));
    return;
  }
  if (op == TC_REDUCE_AVG)
    TC_CHECK(dtype == DType::f32 || dtype == DType::f64, TC_ERR_DTYPE,
             "TC_REDUCE_AVG needs a float32 or float64 tensor, not ", dtype_name(dtype));
  TC_CHECK(api_->reduces(int32_t(dtype), op == TC_REDUCE_AVG ? TC_REDUCE_SUM : op), TC_ERR_DTYPE,
           "MPI cannot reduce ", dtype_name(dtype), " tensors with ", op_name(op));
}

namespace {
void started(int32_t rc, const char* what, const char* err) {
  if (rc != 0) fail(TC_ERR_IO, str(what, " failed to start: ", err));
}
void check_rank(int32_t r, int32_t size, const char* arg) {
  TC_CHECK(r >= 0 && r < size, TC_ERR_INVALID_ARGUMENT, arg, " ", r, " is not a rank of this group (size ",
           size, ")");
}
// AVG: the sum divided by the group's size, in place.
std::function<void()> averager(const Tensor& t, int32_t size) {
  return [t, size] {
    const int64_t n = t->numel();
    if (t->dtype == DType::f32) {
      float* p = t->data_as<float>();
      for (int64_t i = 0; i < n; ++i) p[i] /= float(size);
    } else {
      double* p = t->data_as<double>();
      for (int64_t i = 0; i < n; ++i) p[i] /= double(size);
    }
  };
}
}  // namespace

std::shared_ptr<Work> Group::all_reduce(const Tensor& t, int32_t op) {
  check_tensor(t, "t", true);
  check_op(op, t->dtype);
  std::lock_guard<std::mutex> issue(issue_mu_);
  // A group of two checks inside the all-reduce (the descriptors ride with
  // the data: no round trip of their own); larger groups all-gather first.
  std::shared_ptr<std::vector<int64_t>> pair;
  if (pair_checks_) {
    pair = std::make_shared<std::vector<int64_t>>(describe(kAllReduce, op, &t, 0));
    pair->resize(2 * kDescLen);
  } else {
    check("all_reduce", describe(kAllReduce, op, &t, 0));
  }
  t->bump_version();
  if (nccl_)
    return nccl_start("all_reduce", {t}, [&](void** done, char* err) {
      return nccl_->all_reduce(ncomm_, t->data(), t->numel(), int32_t(t->dtype), op, done, err, 512);
    });
  return start("all_reduce", [&](Work& w) {
    void* req = nullptr;
    char err[512] = {0};
    started(
        api_->iallreduce(comm_, t->data(), t->numel(), int32_t(t->dtype),
                         op == TC_REDUCE_AVG ? TC_REDUCE_SUM : op, check_, pair ? pair->data() : nullptr,
                         pair ? pair->data() + kDescLen : nullptr, int64_t(kDescLen), &req, err, sizeof err),
        "MPI all_reduce", err);
    w.requests_.push_back(req);
    w.keep_.push_back(t);
    std::function<void()> average;
    if (op == TC_REDUCE_AVG && t->numel() > 0) average = averager(t, size_);
    if (pair) {
      // The module wrote the peer's descriptor on completion; the data was
      // reduced only when it equals this rank's (else t is untouched).
      w.finish_ = [pair, average, rank = rank_] {
        if (!std::equal(pair->begin(), pair->begin() + long(kDescLen), pair->begin() + long(kDescLen)))
          fail_pair(pair->data(), rank);
        if (average) average();
      };
    } else {
      w.finish_ = average;
    }
  });
}

std::shared_ptr<Work> Group::broadcast(const Tensor& t, int32_t root) {
  check_tensor(t, "t", true);  // an in/out: written on every rank but root
  check_rank(root, size_, "root");
  std::lock_guard<std::mutex> issue(issue_mu_);
  check("broadcast", describe(kBroadcast, root, &t, 0));
  t->bump_version();
  if (nccl_)
    return nccl_start("broadcast", {t}, [&](void** done, char* err) {
      return nccl_->broadcast(ncomm_, t->data(), t->numel() * t->itemsize(), root, done, err, 512);
    });
  return start("broadcast", [&](Work& w) {
    void* req = nullptr;
    char err[512] = {0};
    started(api_->ibcast(comm_, t->data(), t->numel() * t->itemsize(), root, &req, err, sizeof err),
            "MPI broadcast", err);
    w.requests_.push_back(req);
    w.keep_.push_back(t);
  });
}

std::shared_ptr<Work> Group::all_gather(const Tensor& out, const Tensor& in) {
  check_tensor(in, "t", false);
  check_tensor(out, "out", true);
  TC_CHECK(out->dtype == in->dtype, TC_ERR_DTYPE, "out is ", dtype_name(out->dtype), " but t is ",
           dtype_name(in->dtype));
  TC_CHECK(out->numel() == in->numel() * size_, TC_ERR_SHAPE, "out has ", out->numel(),
           " elements but needs ", size_, " x ", in->numel(), " (the group's size times t's)");
  std::lock_guard<std::mutex> issue(issue_mu_);
  check("all_gather", describe(kAllGather, 0, &in, out->numel()));
  out->bump_version();
  if (nccl_)
    return nccl_start("all_gather", {in, out}, [&](void** done, char* err) {
      return nccl_->all_gather(ncomm_, in->data(), out->data(), in->numel() * in->itemsize(), done, err, 512);
    });
  return start("all_gather", [&](Work& w) {
    void* req = nullptr;
    char err[512] = {0};
    started(
        api_->iallgather(comm_, in->data(), out->data(), in->numel() * in->itemsize(), &req, err, sizeof err),
        "MPI all_gather", err);
    w.requests_.push_back(req);
    w.keep_ = {in, out};
  });
}

std::shared_ptr<Work> Group::reduce_scatter(const Tensor& out, const Tensor& in, int32_t op) {
  check_tensor(in, "t", false);
  check_tensor(out, "out", true);
  TC_CHECK(out->dtype == in->dtype, TC_ERR_DTYPE, "out is ", dtype_name(out->dtype), " but t is ",
           dtype_name(in->dtype));
  check_op(op, in->dtype);
  TC_CHECK(in->numel() == out->numel() * size_, TC_ERR_SHAPE, "t has ", in->numel(), " elements but needs ",
           size_, " x ", out->numel(), " (the group's size times out's)");
  std::lock_guard<std::mutex> issue(issue_mu_);
  check("reduce_scatter", describe(kReduceScatter, op, &out, in->numel()));
  out->bump_version();
  if (nccl_)
    return nccl_start("reduce_scatter", {in, out}, [&](void** done, char* err) {
      return nccl_->reduce_scatter(ncomm_, in->data(), out->data(), out->numel(), int32_t(in->dtype), op,
                                   done, err, 512);
    });
  return start("reduce_scatter", [&](Work& w) {
    void* req = nullptr;
    char err[512] = {0};
    started(api_->ireduce_scatter(comm_, in->data(), out->data(), out->numel(), int32_t(in->dtype),
                                  op == TC_REDUCE_AVG ? TC_REDUCE_SUM : op, &req, err, sizeof err),
            "MPI reduce_scatter", err);
    w.requests_.push_back(req);
    w.keep_ = {in, out};
    if (op == TC_REDUCE_AVG && out->numel() > 0) w.finish_ = averager(out, size_);
  });
}

std::shared_ptr<Work> Group::barrier() {
  std::lock_guard<std::mutex> issue(issue_mu_);
  check("barrier", describe(kBarrier, 0, nullptr, 0));
  if (nccl_)
    return nccl_start("barrier", {},
                      [&](void** done, char* err) { return nccl_->barrier(ncomm_, done, err, 512); });
  return start("barrier", [&](Work& w) {
    void* req = nullptr;
    char err[512] = {0};
    started(api_->ibarrier(comm_, &req, err, sizeof err), "MPI barrier", err);
    w.requests_.push_back(req);
  });
}

namespace {
void check_peer_tag(int32_t peer, int32_t tag, int32_t rank, int32_t size) {
  check_rank(peer, size, "peer");
  TC_CHECK(peer != rank, TC_ERR_INVALID_ARGUMENT, "peer ", peer, " is this process's own rank");
  TC_CHECK(tag >= 0 && tag <= 32767, TC_ERR_INVALID_ARGUMENT, "tag ", tag, " is outside [0, 32767]");
}
}  // namespace

void Group::send_descriptor(const Tensor& t, int32_t peer, int32_t tag) {
  auto d = std::make_shared<std::vector<int64_t>>(describe(kSend, tag, &t, t->numel() * t->itemsize()));
  void* req = nullptr;
  char err[512] = {0};
  {
    std::lock_guard<std::mutex> lock(mu_);
    started(api_->isend(check_, d->data(), int64_t(kDescLen * 8), peer, tag, &req, err, sizeof err),
            "the descriptor of send", err);
  }
  wait_request(req, "the descriptor of send", d);
}

void Group::check_recv(const Tensor& t, int32_t peer, int32_t tag) {
  auto theirs = std::make_shared<std::vector<int64_t>>(kDescLen);
  void* req = nullptr;
  char err[512] = {0};
  {
    std::lock_guard<std::mutex> lock(mu_);
    started(api_->irecv(check_, theirs->data(), int64_t(kDescLen * 8), peer, tag, &req, err, sizeof err),
            "the descriptor of recv", err);
  }
  wait_request(req, "the descriptor of recv", theirs);
  const std::vector<int64_t> mine = describe(kSend, tag, &t, t->numel() * t->itemsize());
  if (std::equal(mine.begin() + 2, mine.end(), theirs->begin() + 2)) return;
  const int32_t code = mismatch_code(theirs->data(), mine.data());
  const std::string message = str("rank ", peer, " sent ", tensor_text(theirs->data()), " (tag ", tag,
                                  ") but rank ", rank_, " receives into ", tensor_text(mine.data()));
  // Receive the message anyway, so that it cannot match a later recv.
  auto drain = std::make_shared<std::vector<char>>(size_t(std::max<int64_t>((*theirs)[5], 0)));
  void* data_req = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    started(api_->irecv(comm_, drain->data(), int64_t(drain->size()), peer, tag, &data_req, err, sizeof err),
            "recv", err);
  }
  wait_request(data_req, "recv (drained after a mismatch)", drain);
  fail(code, message);
}

std::shared_ptr<Work> Group::send(const Tensor& t, int32_t peer, int32_t tag) {
  check_tensor(t, "t", false);
  check_peer_tag(peer, tag, rank_, size_);
  std::lock_guard<std::mutex> issue(issue_mu_);
  if (nccl_)  // NCCL matches point to point in order per peer: no tags, no descriptor
    return nccl_start("send", {t}, [&](void** done, char* err) {
      return nccl_->send(ncomm_, t->data(), t->numel() * t->itemsize(), peer, done, err, 512);
    });
  if (checks_) send_descriptor(t, peer, tag);
  return start("send", [&](Work& w) {
    void* req = nullptr;
    char err[512] = {0};
    started(api_->isend(comm_, t->data(), t->numel() * t->itemsize(), peer, tag, &req, err, sizeof err),
            "MPI send", err);
    w.requests_.push_back(req);
    w.keep_.push_back(t);
  });
}

std::shared_ptr<Work> Group::recv(const Tensor& t, int32_t peer, int32_t tag) {
  check_tensor(t, "t", true);
  check_peer_tag(peer, tag, rank_, size_);
  std::lock_guard<std::mutex> issue(issue_mu_);
  if (nccl_) {
    t->bump_version();
    return nccl_start("recv", {t}, [&](void** done, char* err) {
      return nccl_->recv(ncomm_, t->data(), t->numel() * t->itemsize(), peer, done, err, 512);
    });
  }
  if (checks_) check_recv(t, peer, tag);
  t->bump_version();
  return start("recv", [&](Work& w) {
    void* req = nullptr;
    char err[512] = {0};
    started(api_->irecv(comm_, t->data(), t->numel() * t->itemsize(), peer, tag, &req, err, sizeof err),
            "MPI recv", err);
    w.requests_.push_back(req);
    w.keep_.push_back(t);
  });
}

}  // namespace tc::dist
