// The C interface between libtc and its MPI module (libtc_mpi.so, built from
// src/dist/mpi/module.cpp against the MPI library found at build time).
// libtc dlopen()s the module on the first "mpi" process group, so libtc.so
// itself never links MPI: a program without MPI installed still loads it.
// The module is a thin translation to MPI calls; everything else (checks,
// timeouts, works, ordering) lives in libtc (src/dist/process_group.cpp).
//
// Every function returns 0 or a non-zero error, with a message written to
// err (cap bytes, NUL-terminated). Communicators and requests are opaque
// heap objects the module owns. Dtype codes are tc.h's TC_* codes, ops
// TC_REDUCE_* (AVG never reaches the module: libtc sums then divides).
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_MPI_API_VERSION 2

/* The tag of the descriptors a group of two exchanges point to point on its
 * check communicator (above tc_send/tc_recv's 0..32767, below the module's
 * all-reduce tags). */
#define TC_MPI_HEADER_TAG 65000
/* A descriptor (int64s): [0] the collective (TC_MPI_KIND_ALL_REDUCE for an
 * all-reduce), [2] the dtype code, [4] the element count; the rest is
 * libtc's, compared as a whole. */
#define TC_MPI_KIND_ALL_REDUCE 1

typedef struct tc_mpi_api {
  int32_t version;
  /* Initializes MPI unless the program did (then finalizes it at exit), and
   * reports the world rank and size. */
  int32_t (*init)(int32_t* rank, int32_t* size, char* err, int64_t cap);
  /* A duplicate of MPI_COMM_WORLD (errors return instead of aborting). */
  int32_t (*comm_dup)(void** comm, char* err, int64_t cap);
  void (*comm_free)(void* comm);
  /* 1 when MPI reduces dtype with op, else 0. */
  int32_t (*reduces)(int32_t dtype, int32_t op);
  /* Nonblocking collectives and point to point; *req is tested with test. */
  /* With mine non-NULL (only where fused_check(comm) is 1) the descriptor
   * check rides with the data: mine (desc_len int64s) goes to the peer on
   * check_comm with TC_MPI_HEADER_TAG next to the first data message, and
   * the peer's is received there: only when it equals mine is the data
   * reduced into buf (before, data is received into scratch at most);
   * otherwise buf is left as it was, the peer's data messages are drained,
   * and the request completes without an error. Either way the peer's
   * descriptor is copied into theirs when the request completes (inside
   * test), for libtc to compare and report. */
  int32_t (*iallreduce)(void* comm, void* buf, int64_t count, int32_t dtype, int32_t op, void* check_comm,
                        const int64_t* mine, int64_t* theirs, int64_t desc_len, void** req, char* err,
                        int64_t cap);
  /* 1 when iallreduce on comm can carry the descriptor check itself (a
   * group of two); the other collectives then exchange descriptors point to
   * point (TC_MPI_HEADER_TAG on the check communicator) instead of an
   * all-gather, so that every collective's descriptor meets the peer's. */
  int32_t (*fused_check)(void* comm);
  /* Receives and discards what a peer whose descriptor (peer_desc) is an
   * all-reduce sent for it, when this rank called another collective: the
   * peer's messages cannot then match a later receive, and both ranks' tag
   * sequences stay in step. */
  int32_t (*idrain_allreduce)(void* comm, const int64_t* peer_desc, void** req, char* err, int64_t cap);
  int32_t (*ireduce_scatter)(void* comm, const void* in, void* out, int64_t count, int32_t dtype, int32_t op,
                             void** req, char* err, int64_t cap);
  int32_t (*iallgather)(void* comm, const void* in, void* out, int64_t nbytes, void** req, char* err,
                        int64_t cap);
  int32_t (*ibcast)(void* comm, void* buf, int64_t nbytes, int32_t root, void** req, char* err, int64_t cap);
  int32_t (*ibarrier)(void* comm, void** req, char* err, int64_t cap);
  int32_t (*isend)(void* comm, const void* buf, int64_t nbytes, int32_t peer, int32_t tag, void** req,
                   char* err, int64_t cap);
  int32_t (*irecv)(void* comm, void* buf, int64_t nbytes, int32_t peer, int32_t tag, void** req, char* err,
                   int64_t cap);
  /* *done = 1 once the request completed (the request is then freed). */
  int32_t (*test)(void* req, int32_t* done, char* err, int64_t cap);
} tc_mpi_api;

/* The one symbol the module exports. NULL for a version it does not speak. */
typedef const tc_mpi_api* (*tc_mpi_module_fn)(int32_t version);
#define TC_MPI_MODULE_SYMBOL "tc_mpi_module_api"

#ifdef __cplusplus
}
#endif
