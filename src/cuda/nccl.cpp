// The "nccl" process groups' transport (src/dist/nccl_api.h), in the CUDA
// module: plain NCCL calls on a stream of the communicator's own, ordered
// after libtc's kernels (the legacy default stream) with an event. Built only
// when CMake found nccl.h (TC_HAVE_NCCL); the module's table then points here.
// Communicators are nonblocking (ncclConfig_t.blocking = 0), so that neither
// their creation nor a collective can block the host forever: libtc polls
// comm_state/test against its deadline and aborts the communicator there.
#ifdef TC_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <thread>

#include "dist/nccl_api.h"
#include "tc_constants.h"

namespace tc::cuda {

namespace {

struct Comm {
  ncclComm_t comm = nullptr;
  int device = 0;
  int size = 1;
  cudaStream_t stream = nullptr;
  cudaEvent_t ready = nullptr;   // recorded on the producers' stream before each collective
  int32_t* scratch = nullptr;    // the barrier's int (device)
  int64_t* dev_desc = nullptr;   // the descriptor exchange (device, size * desc_cap)
  int64_t* host_desc = nullptr;  // its result (pinned host)
  int64_t desc_cap = 0;
  bool aborted = false;
};

int32_t say(char* err, int64_t cap, const char* fmt, const char* a, const char* b) {
  if (err && cap > 0) std::snprintf(err, size_t(cap), fmt, a, b);
  return -1;
}

int32_t cuda_err(cudaError_t rc, const char* what, char* err, int64_t cap) {
  if (rc == cudaSuccess) return 0;
  return say(err, cap, "%s failed: %s", what, cudaGetErrorString(rc));
}

// A nonblocking communicator's call may return ncclInProgress while it
// enqueues: wait for that (host-side work, no peer involved).
ncclResult_t settle(ncclComm_t comm, ncclResult_t rc) {
  while (rc == ncclInProgress) {
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(comm, &state) != ncclSuccess) return ncclSystemError;
    rc = state;
    if (rc == ncclInProgress) std::this_thread::yield();
  }
  return rc;
}

int32_t nccl_err(ncclComm_t comm, ncclResult_t rc, const char* what, char* err, int64_t cap) {
  if (rc == ncclSuccess) return 0;
  const char* detail = comm ? ncclGetLastError(comm) : nullptr;
  char text[384];
  std::snprintf(text, sizeof text, "%s%s%s", ncclGetErrorString(rc), detail && *detail ? ": " : "",
                detail ? detail : "");
  return say(err, cap, "%s failed: %s", what, text);
}

bool datatype(int32_t dtype, ncclDataType_t* out) {
  switch (dtype) {
    case TC_FLOAT32:
      *out = ncclFloat32;
      return true;
    case TC_FLOAT64:
      *out = ncclFloat64;
      return true;
    case TC_FLOAT16:
      *out = ncclFloat16;
      return true;
    case TC_BFLOAT16:
      *out = ncclBfloat16;
      return true;
    case TC_INT8:
      *out = ncclInt8;
      return true;
    case TC_INT32:
      *out = ncclInt32;
      return true;
    case TC_INT64:
      *out = ncclInt64;
      return true;
    case TC_UINT8:
    case TC_BOOL:
      *out = ncclUint8;
      return true;  // bool: 0/1 bytes, reduced as or / and
    default:
      return false;  // int16: NCCL has no such type
  }
}

bool redop(int32_t dtype, int32_t op, ncclRedOp_t* out) {
  if (dtype == TC_BOOL) {  // or = max, and = min on 0/1 bytes
    if (op == TC_REDUCE_SUM || op == TC_REDUCE_MAX)
      *out = ncclMax;
    else if (op == TC_REDUCE_MIN || op == TC_REDUCE_PRODUCT)
      *out = ncclMin;
    else
      return false;
    return true;
  }
  switch (op) {
    case TC_REDUCE_SUM:
      *out = ncclSum;
      return true;
    case TC_REDUCE_AVG:  // NCCL's own average: floating types only (as libtc's AVG)
      if (dtype != TC_FLOAT32 && dtype != TC_FLOAT64 && dtype != TC_FLOAT16 && dtype != TC_BFLOAT16)
        return false;
      *out = ncclAvg;
      return true;
    case TC_REDUCE_MAX:
      *out = ncclMax;
      return true;
    case TC_REDUCE_MIN:
      *out = ncclMin;
      return true;
    case TC_REDUCE_PRODUCT:
      *out = ncclProd;
      return true;
    default:
      return false;
  }
}

int32_t library_version(char* buf, int64_t cap) {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return -1;
  if (buf && cap > 0) std::snprintf(buf, size_t(cap), "NCCL %d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
  return 0;
}

int32_t device_count(int32_t* count, char* err, int64_t cap) {
  int n = 0;
  const cudaError_t rc = cudaGetDeviceCount(&n);
  *count = rc == cudaSuccess ? n : 0;
  return cuda_err(rc, "cudaGetDeviceCount", err, cap);
}

int32_t unique_id(uint8_t id[TC_NCCL_ID_BYTES], char* err, int64_t cap) {
  static_assert(sizeof(ncclUniqueId) == TC_NCCL_ID_BYTES, "ncclUniqueId's size changed");
  ncclUniqueId u;
  if (int32_t rc = nccl_err(nullptr, ncclGetUniqueId(&u), "ncclGetUniqueId", err, cap)) return rc;
  std::memcpy(id, &u, sizeof u);
  return 0;
}

void release(Comm* c) {
  if (c->host_desc) cudaFreeHost(c->host_desc);
  if (c->dev_desc) cudaFree(c->dev_desc);
  if (c->scratch) cudaFree(c->scratch);
  if (c->ready) cudaEventDestroy(c->ready);
  if (c->stream) cudaStreamDestroy(c->stream);
  delete c;
}

int32_t comm_init(int32_t rank, int32_t size, const uint8_t id[TC_NCCL_ID_BYTES], int32_t device, void** out,
                  char* err, int64_t cap) {
  auto* c = new (std::nothrow) Comm();
  if (!c) return say(err, cap, "%s%s", "out of memory for an NCCL communicator", "");
  c->device = device;
  c->size = size;
  int32_t rc = cuda_err(cudaSetDevice(device), "cudaSetDevice", err, cap);
  if (!rc)
    rc = cuda_err(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate", err, cap);
  if (!rc)
    rc = cuda_err(cudaEventCreateWithFlags(&c->ready, cudaEventDisableTiming), "cudaEventCreate", err, cap);
  if (!rc) rc = cuda_err(cudaMalloc(&c->scratch, sizeof(int32_t)), "cudaMalloc", err, cap);
  if (rc) {
    release(c);
    return rc;
  }
  ncclUniqueId u;
  std::memcpy(&u, id, sizeof u);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  const ncclResult_t r = ncclCommInitRankConfig(&c->comm, size, u, rank, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    rc = nccl_err(c->comm, r, "ncclCommInitRankConfig", err, cap);
    if (c->comm) ncclCommAbort(c->comm);
    release(c);
    return rc;
  }
  *out = c;
  return 0;
}

int32_t comm_state(void* comm, int32_t* state, char* err, int64_t cap) {
  auto* c = static_cast<Comm*>(comm);
  ncclResult_t s = ncclSuccess;
  const ncclResult_t r = ncclCommGetAsyncError(c->comm, &s);
  if (r != ncclSuccess) return nccl_err(c->comm, r, "ncclCommGetAsyncError", err, cap);
  *state = s == ncclInProgress ? 1 : 0;
  if (s == ncclInProgress || s == ncclSuccess) return 0;
  *state = 0;
  return nccl_err(c->comm, s, "the NCCL communicator", err, cap);
}

void comm_abort(void* comm) {
  auto* c = static_cast<Comm*>(comm);
  if (c->aborted) return;
  c->aborted = true;
  ncclCommAbort(c->comm);  // also frees it
}

void comm_free(void* comm) {
  auto* c = static_cast<Comm*>(comm);
  if (!c) return;
  cudaSetDevice(c->device);
  if (!c->aborted) {
    // Finalize flushes what is in flight; a peer that is gone would make it
    // wait forever, so give it a while and then abort.
    ncclResult_t r = ncclCommFinalize(c->comm);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (r == ncclInProgress && std::chrono::steady_clock::now() < deadline) {
      ncclResult_t s = ncclSuccess;
      if (ncclCommGetAsyncError(c->comm, &s) != ncclSuccess) break;
      r = s;
      if (r == ncclInProgress) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (r == ncclSuccess) {
      settle(c->comm, ncclCommDestroy(c->comm));
    } else {
      ncclCommAbort(c->comm);
    }
  }
  release(c);
}

int32_t reduces(int32_t dtype, int32_t op) {
  ncclDataType_t t;
  ncclRedOp_t o;
  return datatype(dtype, &t) && redop(dtype, op, &o) ? 1 : 0;
}

// The collective's frame: on the device, after the producers, then its event.
template <typename F>
int32_t enqueue(void* comm, const char* what, void** done, char* err, int64_t cap, F&& call) {
  auto* c = static_cast<Comm*>(comm);
  if (c->aborted) return say(err, cap, "%s: %s", what, "the communicator was aborted (after a timeout)");
  int32_t rc = cuda_err(cudaSetDevice(c->device), "cudaSetDevice", err, cap);
  if (!rc) rc = cuda_err(cudaEventRecord(c->ready, cudaStreamLegacy), "cudaEventRecord", err, cap);
  if (!rc) rc = cuda_err(cudaStreamWaitEvent(c->stream, c->ready, 0), "cudaStreamWaitEvent", err, cap);
  if (rc) return rc;
  rc = nccl_err(c->comm, settle(c->comm, call(c)), what, err, cap);
  if (rc) return rc;
  cudaEvent_t ev = nullptr;
  rc = cuda_err(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate", err, cap);
  if (!rc) rc = cuda_err(cudaEventRecord(ev, c->stream), "cudaEventRecord", err, cap);
  if (rc) {
    if (ev) cudaEventDestroy(ev);
    return rc;
  }
  *done = ev;
  return 0;
}

int32_t all_reduce(void* comm, void* buf, int64_t count, int32_t dtype, int32_t op, void** done, char* err,
                   int64_t cap) {
  ncclDataType_t t;
  ncclRedOp_t o;
  if (!datatype(dtype, &t) || !redop(dtype, op, &o))
    return say(err, cap, "%s%s", "NCCL cannot reduce this", "");
  return enqueue(comm, "ncclAllReduce", done, err, cap,
                 [&](Comm* c) { return ncclAllReduce(buf, buf, size_t(count), t, o, c->comm, c->stream); });
}

int32_t broadcast(void* comm, void* buf, int64_t nbytes, int32_t root, void** done, char* err, int64_t cap) {
  return enqueue(comm, "ncclBroadcast", done, err, cap, [&](Comm* c) {
    return ncclBroadcast(buf, buf, size_t(nbytes), ncclUint8, root, c->comm, c->stream);
  });
}

int32_t all_gather(void* comm, const void* in, void* out, int64_t nbytes, void** done, char* err,
                   int64_t cap) {
  return enqueue(comm, "ncclAllGather", done, err, cap, [&](Comm* c) {
    return ncclAllGather(in, out, size_t(nbytes), ncclUint8, c->comm, c->stream);
  });
}

int32_t reduce_scatter(void* comm, const void* in, void* out, int64_t count, int32_t dtype, int32_t op,
                       void** done, char* err, int64_t cap) {
  ncclDataType_t t;
  ncclRedOp_t o;
  if (!datatype(dtype, &t) || !redop(dtype, op, &o))
    return say(err, cap, "%s%s", "NCCL cannot reduce this", "");
  return enqueue(comm, "ncclReduceScatter", done, err, cap, [&](Comm* c) {
    return ncclReduceScatter(in, out, size_t(count), t, o, c->comm, c->stream);
  });
}

int32_t barrier(void* comm, void** done, char* err, int64_t cap) {
  return enqueue(comm, "ncclAllReduce (barrier)", done, err, cap, [&](Comm* c) {
    return ncclAllReduce(c->scratch, c->scratch, 1, ncclInt32, ncclSum, c->comm, c->stream);
  });
}

int32_t send(void* comm, const void* buf, int64_t nbytes, int32_t peer, void** done, char* err, int64_t cap) {
  return enqueue(comm, "ncclSend", done, err, cap,
                 [&](Comm* c) { return ncclSend(buf, size_t(nbytes), ncclUint8, peer, c->comm, c->stream); });
}

int32_t recv(void* comm, void* buf, int64_t nbytes, int32_t peer, void** done, char* err, int64_t cap) {
  return enqueue(comm, "ncclRecv", done, err, cap,
                 [&](Comm* c) { return ncclRecv(buf, size_t(nbytes), ncclUint8, peer, c->comm, c->stream); });
}

int32_t exchange(void* comm, const int64_t* mine, int64_t n, void** done, char* err, int64_t cap) {
  auto* c = static_cast<Comm*>(comm);
  if (n > c->desc_cap) {  // grown once: descriptors have a fixed length
    cudaSetDevice(c->device);
    if (c->host_desc) cudaFreeHost(c->host_desc);
    if (c->dev_desc) cudaFree(c->dev_desc);
    c->host_desc = nullptr;
    c->dev_desc = nullptr;
    c->desc_cap = 0;
    const size_t bytes = size_t(n) * sizeof(int64_t) * size_t(c->size + 1);
    int32_t rc = cuda_err(cudaMalloc(&c->dev_desc, bytes), "cudaMalloc", err, cap);
    if (!rc) rc = cuda_err(cudaMallocHost(&c->host_desc, bytes), "cudaMallocHost", err, cap);
    if (rc) return rc;
    c->desc_cap = n;
  }
  const size_t row = size_t(n) * sizeof(int64_t);
  int64_t* staged = c->host_desc + size_t(c->size) * size_t(n);  // the last row: mine, pinned
  std::memcpy(staged, mine, row);
  int64_t* dev_mine = c->dev_desc + size_t(c->size) * size_t(n);
  return enqueue(comm, "ncclAllGather (descriptors)", done, err, cap, [&](Comm* cc) {
    if (cudaMemcpyAsync(dev_mine, staged, row, cudaMemcpyHostToDevice, cc->stream) != cudaSuccess)
      return ncclUnhandledCudaError;
    ncclResult_t r =
        settle(cc->comm, ncclAllGather(dev_mine, cc->dev_desc, row, ncclUint8, cc->comm, cc->stream));
    if (r != ncclSuccess) return r;
    if (cudaMemcpyAsync(cc->host_desc, cc->dev_desc, row * size_t(cc->size), cudaMemcpyDeviceToHost,
                        cc->stream) != cudaSuccess)
      return ncclUnhandledCudaError;
    return ncclSuccess;
  });
}

const int64_t* gathered(void* comm) { return static_cast<Comm*>(comm)->host_desc; }

int32_t test(void* comm, void* done, int32_t* finished, char* err, int64_t cap) {
  auto* c = static_cast<Comm*>(comm);
  const cudaError_t q = cudaEventQuery(static_cast<cudaEvent_t>(done));
  if (q == cudaSuccess) {
    *finished = 1;
    return 0;
  }
  if (q != cudaErrorNotReady) {
    *finished = 1;
    return cuda_err(q, "the collective's kernel", err, cap);
  }
  *finished = 0;
  if (c->aborted) {
    *finished = 1;
    return say(err, cap, "%s%s", "the communicator was aborted", "");
  }
  int32_t state = 0;
  if (int32_t rc = comm_state(comm, &state, err, cap)) {
    *finished = 1;
    return rc;
  }
  return 0;
}

void event_free(void* done) {
  if (done) cudaEventDestroy(static_cast<cudaEvent_t>(done));
}

const tc_nccl_api kNccl = {TC_NCCL_API_VERSION,
                           library_version,
                           device_count,
                           unique_id,
                           comm_init,
                           comm_state,
                           comm_abort,
                           comm_free,
                           reduces,
                           all_reduce,
                           broadcast,
                           all_gather,
                           reduce_scatter,
                           barrier,
                           send,
                           recv,
                           exchange,
                           gathered,
                           test,
                           event_free};

}  // namespace

const tc_nccl_api* nccl_table() { return &kNccl; }

}  // namespace tc::cuda

#else  // no nccl.h at build time: the module has no NCCL

#include "dist/nccl_api.h"
namespace tc::cuda {
const tc_nccl_api* nccl_table() { return nullptr; }
}  // namespace tc::cuda

#endif
