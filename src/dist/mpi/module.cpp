// libtc_mpi.so: the MPI module libtc loads on the first "mpi" process group
// (src/dist/mpi_api.h). Only MPI calls here; libtc does the rest.
// The C API only: no MPI C++ bindings (their symbols live in another library).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dist/mpi_api.h"
#include "tc.h"

namespace {

int32_t report(int rc, const char* what, char* err, int64_t cap) {
  if (rc == MPI_SUCCESS) return 0;
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  if (err && cap > 0) std::snprintf(err, size_t(cap), "%s failed: %s", what, text);
  return rc == 0 ? -1 : rc;
}

int32_t fail(const char* message, char* err, int64_t cap) {
  if (err && cap > 0) std::snprintf(err, size_t(cap), "%s", message);
  return -1;
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

MPI_Datatype datatype(int32_t dtype) {
  switch (dtype) {
    case TC_FLOAT32:
      return MPI_FLOAT;
    case TC_FLOAT64:
      return MPI_DOUBLE;
    case TC_INT8:
      return MPI_INT8_T;
    case TC_INT16:
      return MPI_INT16_T;
    case TC_INT32:
      return MPI_INT32_T;
    case TC_INT64:
      return MPI_INT64_T;
    case TC_UINT8:
      return MPI_UINT8_T;
    case TC_BOOL:
      return MPI_C_BOOL;
    default:
      return MPI_DATATYPE_NULL;
  }
}

MPI_Op reduce_op(int32_t dtype, int32_t op) {
  if (dtype == TC_BOOL) {
    if (op == TC_REDUCE_SUM || op == TC_REDUCE_MAX) return MPI_LOR;
    if (op == TC_REDUCE_MIN || op == TC_REDUCE_PRODUCT) return MPI_LAND;
    return MPI_OP_NULL;
  }
  switch (op) {
    case TC_REDUCE_SUM:
      return MPI_SUM;
    case TC_REDUCE_MAX:
      return MPI_MAX;
    case TC_REDUCE_MIN:
      return MPI_MIN;
    case TC_REDUCE_PRODUCT:
      return MPI_PROD;
    default:
      return MPI_OP_NULL;
  }
}

MPI_Comm comm_of(void* c) { return *static_cast<MPI_Comm*>(c); }

// MPI counts are int: larger buffers are refused (libtc checks first).
bool fits(int64_t n) { return n >= 0 && n <= INT_MAX; }

int32_t start(int rc, MPI_Request r, const char* what, void** req, char* err, int64_t cap) {
  if (rc != MPI_SUCCESS) return report(rc, what, err, cap);
  auto* box = static_cast<MPI_Request*>(std::malloc(sizeof(MPI_Request)));
  if (!box) return fail("out of memory for an MPI request", err, cap);
  *box = r;
  *req = box;
  return 0;
}

int32_t init(int32_t* rank, int32_t* size, char* err, int64_t cap) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) return fail("MPI was already finalized in this process", err, cap);
  if (!initialized) {
    int provided = 0;
    const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS) return report(rc, "MPI_Init_thread", err, cap);
    std::atexit(finalize_at_exit);
  }
  int r = 0, s = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  *rank = r;
  *size = s;
  return 0;
}

int32_t comm_dup(void** out, char* err, int64_t cap) {
  MPI_Comm c = MPI_COMM_NULL;
  const int rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (rc != MPI_SUCCESS) return report(rc, "MPI_Comm_dup", err, cap);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  auto* box = static_cast<MPI_Comm*>(std::malloc(sizeof(MPI_Comm)));
  if (!box) {
    MPI_Comm_free(&c);
    return fail("out of memory for an MPI communicator", err, cap);
  }
  *box = c;
  *out = box;
  return 0;
}

void comm_free(void* c) {
  if (!c) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Comm_free(static_cast<MPI_Comm*>(c));
  std::free(c);
}

int32_t reduces(int32_t dtype, int32_t op) {
  return datatype(dtype) != MPI_DATATYPE_NULL && reduce_op(dtype, op) != MPI_OP_NULL ? 1 : 0;
}

int32_t iallreduce(void* comm, void* buf, int64_t count, int32_t dtype, int32_t op, void** req, char* err,
                   int64_t cap) {
  if (!fits(count)) return fail("more than INT_MAX elements in one MPI call", err, cap);
  MPI_Request r;
  const int rc =
      MPI_Iallreduce(MPI_IN_PLACE, buf, int(count), datatype(dtype), reduce_op(dtype, op), comm_of(comm), &r);
  return start(rc, r, "MPI_Iallreduce", req, err, cap);
}

int32_t ireduce_scatter(void* comm, const void* in, void* out, int64_t count, int32_t dtype, int32_t op,
                        void** req, char* err, int64_t cap) {
  if (!fits(count)) return fail("more than INT_MAX elements in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Ireduce_scatter_block(in, out, int(count), datatype(dtype), reduce_op(dtype, op),
                                           comm_of(comm), &r);
  return start(rc, r, "MPI_Ireduce_scatter_block", req, err, cap);
}

int32_t iallgather(void* comm, const void* in, void* out, int64_t nbytes, void** req, char* err,
                   int64_t cap) {
  if (!fits(nbytes)) return fail("more than INT_MAX bytes in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Iallgather(in, int(nbytes), MPI_BYTE, out, int(nbytes), MPI_BYTE, comm_of(comm), &r);
  return start(rc, r, "MPI_Iallgather", req, err, cap);
}

int32_t ibcast(void* comm, void* buf, int64_t nbytes, int32_t root, void** req, char* err, int64_t cap) {
  if (!fits(nbytes)) return fail("more than INT_MAX bytes in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Ibcast(buf, int(nbytes), MPI_BYTE, root, comm_of(comm), &r);
  return start(rc, r, "MPI_Ibcast", req, err, cap);
}

int32_t ibarrier(void* comm, void** req, char* err, int64_t cap) {
  MPI_Request r;
  const int rc = MPI_Ibarrier(comm_of(comm), &r);
  return start(rc, r, "MPI_Ibarrier", req, err, cap);
}

int32_t isend(void* comm, const void* buf, int64_t nbytes, int32_t peer, int32_t tag, void** req, char* err,
              int64_t cap) {
  if (!fits(nbytes)) return fail("more than INT_MAX bytes in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Isend(buf, int(nbytes), MPI_BYTE, peer, tag, comm_of(comm), &r);
  return start(rc, r, "MPI_Isend", req, err, cap);
}

int32_t irecv(void* comm, void* buf, int64_t nbytes, int32_t peer, int32_t tag, void** req, char* err,
              int64_t cap) {
  if (!fits(nbytes)) return fail("more than INT_MAX bytes in one MPI call", err, cap);
  MPI_Request r;
  const int rc = MPI_Irecv(buf, int(nbytes), MPI_BYTE, peer, tag, comm_of(comm), &r);
  return start(rc, r, "MPI_Irecv", req, err, cap);
}

int32_t test(void* req, int32_t* done, char* err, int64_t cap) {
  auto* r = static_cast<MPI_Request*>(req);
  int flag = 0;
  MPI_Status status;
  const int rc = MPI_Test(r, &flag, &status);
  if (rc != MPI_SUCCESS) {
    *done = 1;
    std::free(r);
    return report(rc, "MPI_Test", err, cap);
  }
  *done = flag ? 1 : 0;
  if (flag) std::free(r);
  return 0;
}

const tc_mpi_api kApi = {
    TC_MPI_API_VERSION, init,   comm_dup, comm_free, reduces, iallreduce, ireduce_scatter,
    iallgather,         ibcast, ibarrier, isend,     irecv,   test};

}  // namespace

extern "C" __attribute__((visibility("default"))) const tc_mpi_api* tc_mpi_module_api(int32_t version) {
  return version == TC_MPI_API_VERSION ? &kApi : nullptr;
}
