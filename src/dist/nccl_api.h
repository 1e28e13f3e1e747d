// The C interface between libtc and the NCCL half of its CUDA module
// (src/cuda/nccl.cpp, linked into libtc_cuda.so with libnccl): the "nccl"
// process groups' transport. libtc.so never links CUDA or NCCL; it reaches
// this table through the CUDA module's (src/backend/cuda_module_api.h, field nccl),
// which is NULL when the module was built without nccl.h.
//
// Like the MPI module's table (mpi_api.h) this is a thin translation:
// checks, descriptors, timeouts and works live in libtc
// (src/dist/process_group.cpp, src/dist/nccl_group.cpp).
//
// Ordering: every collective is enqueued on the communicator's own stream
// after an event recorded on the legacy default stream, where libtc's CUDA
// kernels run, so it reads what the tensor's producers wrote; its completion
// is an event (*done) that libtc polls with test(). Every function returns 0
// or non-zero with a message in err (cap bytes, NUL-terminated).
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_NCCL_API_VERSION 1
#define TC_NCCL_ID_BYTES 128 /* sizeof(ncclUniqueId) */

typedef struct tc_nccl_api {
  int32_t version;
  /* "NCCL 2.28.9" (the library loaded, not only the header). */
  int32_t (*library_version)(char* buf, int64_t cap);
  int32_t (*device_count)(int32_t* count, char* err, int64_t cap);
  /* A fresh ncclUniqueId (rank 0 makes it; every rank then needs it). */
  int32_t (*unique_id)(uint8_t id[TC_NCCL_ID_BYTES], char* err, int64_t cap);
  /* Starts making this rank's communicator on device, nonblocking (so a
   * missing peer is a timeout, not a hang): poll comm_state until ready. */
  int32_t (*comm_init)(int32_t rank, int32_t size, const uint8_t id[TC_NCCL_ID_BYTES], int32_t device,
                       void** comm, char* err, int64_t cap);
  /* *state = 0 ready, 1 still in progress; non-zero return: it failed
   * (ncclCommGetAsyncError's error, e.g. a peer's connection lost). */
  int32_t (*comm_state)(void* comm, int32_t* state, char* err, int64_t cap);
  /* ncclCommAbort: unblocks every kernel of the communicator at once (after a
   * timeout); the communicator is unusable afterwards, then freed by free. */
  void (*comm_abort)(void* comm);
  /* ncclCommFinalize + ncclCommDestroy (or nothing more after an abort). */
  void (*comm_free)(void* comm);
  /* 1 when NCCL reduces dtype with op (TC_REDUCE_AVG included), else 0. */
  int32_t (*reduces)(int32_t dtype, int32_t op);
  /* The collectives on device buffers; *done receives the completion event. */
  int32_t (*all_reduce)(void* comm, void* buf, int64_t count, int32_t dtype, int32_t op, void** done,
                        char* err, int64_t cap);
  int32_t (*broadcast)(void* comm, void* buf, int64_t nbytes, int32_t root, void** done, char* err,
                       int64_t cap);
  int32_t (*all_gather)(void* comm, const void* in, void* out, int64_t nbytes, void** done, char* err,
                        int64_t cap);
  int32_t (*reduce_scatter)(void* comm, const void* in, void* out, int64_t count, int32_t dtype, int32_t op,
                            void** done, char* err, int64_t cap);
  /* An all-reduce of one int on the communicator's scratch. */
  int32_t (*barrier)(void* comm, void** done, char* err, int64_t cap);
  int32_t (*send)(void* comm, const void* buf, int64_t nbytes, int32_t peer, void** done, char* err,
                  int64_t cap);
  int32_t (*recv)(void* comm, void* buf, int64_t nbytes, int32_t peer, void** done, char* err, int64_t cap);
  /* The descriptor check: all-gathers n int64 of host memory (mine) into the
   * communicator's pinned buffer; once *done completed, gathered() points at
   * size * n int64 (rank-major), valid until the next exchange. */
  int32_t (*exchange)(void* comm, const int64_t* mine, int64_t n, void** done, char* err, int64_t cap);
  const int64_t* (*gathered)(void* comm);
  /* *finished = 1 once the event completed; non-zero return when the
   * communicator reports an asynchronous error (then *finished = 1 too). */
  int32_t (*test)(void* comm, void* done, int32_t* finished, char* err, int64_t cap);
  void (*event_free)(void* done);
} tc_nccl_api;

#ifdef __cplusplus
}
#endif
