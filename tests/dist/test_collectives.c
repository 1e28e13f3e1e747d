/* Collectives across processes: run under `mpirun -np N` (N >= 2; ctest
 * runs N = 2, 3 and 4 on loopback). Every rank checks every collective's result, the
 * asynchronous forms, the detection of ranks that disagree on shapes and
 * dtypes, and that a peer that never comes is a timeout, not a hang. Plain
 * C11 over tc.h. Exits 0 on success, 1 on the first failure (with the rank
 * and line), 77 when no "mpi" group can be made. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tc.h"

static int rank = -1, size = 0;

#define CHECK(cond)                                                                                    \
  do {                                                                                                 \
    if (!(cond)) {                                                                                     \
      const char* msg_ = "";                                                                           \
      tc_last_error(&msg_);                                                                            \
      fprintf(stderr, "rank %d: %s:%d: %s failed (last error: %s)\n", rank, __FILE__, __LINE__, #cond, \
              msg_);                                                                                   \
      exit(1);                                                                                         \
    }                                                                                                  \
  } while (0)
#define OK(call) CHECK((call) == TC_OK)

static tc_tensor vec_f32(int64_t n, float base, float step) {
  float* v = malloc(sizeof(float) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; ++i) v[i] = base + step * (float)i;
  tc_tensor t = NULL;
  OK(tc_from_data(v, n * 4, &n, 1, TC_FLOAT32, &t));
  free(v);
  return t;
}

static float at(tc_tensor t, int64_t i) {
  float* p = NULL;
  OK(tc_tensor_data_ptr(t, (void**)&p));
  return p[i];
}

static void sleep_seconds(double s) {
  struct timespec ts;
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
}

static void test_all_reduce(tc_process_group pg) {
  /* rank r holds r + 1 + i: sum = size(size+1)/2 + size*i. 100003
   * elements (400 KB, not a multiple of the size) take the module's ring
   * all-reduce, 1000 MPI_Iallreduce; every element is checked there. */
  const int32_t ops[] = {TC_REDUCE_SUM, TC_REDUCE_AVG, TC_REDUCE_MAX, TC_REDUCE_MIN, TC_REDUCE_PRODUCT};
  for (int k = 0; k < 10; ++k) {
    const int64_t n = k < 5 ? 1000 : 100003;
    tc_tensor t = vec_f32(n, (float)(rank + 1), 1.0f);
    OK(tc_all_reduce(pg, t, ops[k % 5], NULL));
    for (int64_t i = 0; i < n; i += (n > 1000 ? 1 : 97)) {
      double expect = 0;
      if (ops[k % 5] == TC_REDUCE_SUM) expect = size * (size + 1) / 2.0 + (double)size * (double)i;
      if (ops[k % 5] == TC_REDUCE_AVG) expect = (size + 1) / 2.0 + (double)i;
      if (ops[k % 5] == TC_REDUCE_MAX) expect = size + (double)i;
      if (ops[k % 5] == TC_REDUCE_MIN) expect = 1 + (double)i;
      if (ops[k % 5] == TC_REDUCE_PRODUCT) {
        expect = 1;
        for (int r = 0; r < size; ++r) expect *= (r + 1 + (double)i);
      }
      const double got = at(t, i);
      CHECK(got == (float)expect || (got - expect) / expect < 1e-6);
    }
    OK(tc_tensor_free(t));
  }
  /* Three large all-reduces in flight at once (the ring's messages must
   * not match another ring's), waited for in reverse order. */
  {
    const int64_t n = 70001;
    tc_tensor ts[3];
    tc_work ws[3];
    for (int j = 0; j < 3; ++j) {
      ts[j] = vec_f32(n, (float)(rank + 10 * j), 1.0f);
      OK(tc_all_reduce(pg, ts[j], TC_REDUCE_SUM, &ws[j]));
    }
    for (int j = 2; j >= 0; --j) {
      OK(tc_work_wait(ws[j], 0));
      OK(tc_work_free(ws[j]));
      for (int64_t i = 0; i < n; i += 7)
        CHECK(at(ts[j], i) == (float)(size * (size - 1) / 2 + size * 10 * j) + (float)size * (float)i);
      OK(tc_tensor_free(ts[j]));
    }
  }
  /* Small all-reduces (below 64 KiB: the module's recursive doubling, whose
   * sends are copies it stops waiting for): several in flight at once,
   * waited for in reverse order, then reused at once (the copies of the
   * previous ones may still be in flight), and an empty one. */
  for (int round = 0; round < 3; ++round) {
    /* 1024, 1536: two eager parts; 5001: seven, the last one short; 16383: one message */
    const int64_t ns[5] = {1, 1536, 1024, 16383, 5001};
    tc_tensor ts[5];
    tc_work ws[5];
    for (int j = 0; j < 5; ++j) {
      ts[j] = vec_f32(ns[j], (float)(rank + j + round), 0.5f);
      OK(tc_all_reduce(pg, ts[j], j % 2 ? TC_REDUCE_MAX : TC_REDUCE_SUM, &ws[j]));
    }
    for (int j = 4; j >= 0; --j) {
      OK(tc_work_wait(ws[j], 0));
      OK(tc_work_free(ws[j]));
      for (int64_t i = 0; i < ns[j]; i += 1 + ns[j] / 50) {
        const double base = (double)(j + round) + 0.5 * (double)i;
        const double expect = j % 2 ? base + (size - 1) : (double)size * base + size * (size - 1) / 2.0;
        CHECK(at(ts[j], i) == (float)expect);
      }
      OK(tc_tensor_free(ts[j]));
    }
  }
  {
    const int64_t zero = 0;
    tc_tensor e = NULL;
    OK(tc_zeros(&zero, 1, TC_FLOAT32, TC_CPU, &e));
    OK(tc_all_reduce(pg, e, TC_REDUCE_SUM, NULL));
    OK(tc_tensor_free(e));
  }
  /* Every rank ends with the same bits, for sums whose rounding depends on
   * the order: the doubling (small) and the ring (large). Rank 0 then
   * compares everyone's result with its own through an all_gather. */
  for (int k = 0; k < 2; ++k) {
    const int64_t n = k ? 70001 : 3001;
    float* v = malloc(sizeof(float) * (size_t)n);
    unsigned state = 12345u + 977u * (unsigned)rank;
    for (int64_t i = 0; i < n; ++i) {
      state = state * 1103515245u + 12345u;
      v[i] = (float)((state >> 8) & 0xffff) * 1e-3f * (rank % 2 ? -1.0f : 1.0f) + 1e4f * (float)rank;
    }
    tc_tensor t = NULL, all = NULL;
    OK(tc_from_data(v, n * 4, &n, 1, TC_FLOAT32, &t));
    free(v);
    OK(tc_all_reduce(pg, t, TC_REDUCE_SUM, NULL));
    const int64_t total = n * size;
    OK(tc_empty(&total, 1, TC_FLOAT32, TC_CPU, &all));
    OK(tc_all_gather(pg, all, t, NULL));
    float *mine = NULL, *every = NULL;
    OK(tc_tensor_data_ptr(t, (void**)&mine));
    OK(tc_tensor_data_ptr(all, (void**)&every));
    for (int r = 0; r < size; ++r) CHECK(memcmp(every + (size_t)r * (size_t)n, mine, (size_t)n * 4) == 0);
    OK(tc_tensor_free(t));
    OK(tc_tensor_free(all));
  }
  /* int64 and bool. */
  int64_t one = 1;
  int64_t v = rank + 10;
  tc_tensor ti = NULL;
  OK(tc_from_data(&v, 8, &one, 1, TC_INT64, &ti));
  OK(tc_all_reduce(pg, ti, TC_REDUCE_SUM, NULL));
  double d = 0;
  OK(tc_tensor_item(ti, &d));
  CHECK(d == 10.0 * size + size * (size - 1) / 2.0);
  OK(tc_tensor_free(ti));
  unsigned char b = rank == 0 ? 1 : 0;
  tc_tensor tb = NULL;
  OK(tc_from_data(&b, 1, &one, 1, TC_BOOL, &tb));
  OK(tc_all_reduce(pg, tb, TC_REDUCE_SUM, NULL)); /* or */
  OK(tc_tensor_item(tb, &d));
  CHECK(d == 1.0);
  OK(tc_all_reduce(pg, tb, TC_REDUCE_MIN, NULL)); /* and: still 1 everywhere */
  OK(tc_tensor_free(tb));
}

static void test_broadcast_gather_scatter(tc_process_group pg) {
  const int64_t n = 257;
  for (int root = 0; root < size; ++root) {
    tc_tensor t = vec_f32(n, rank == root ? 100.0f : -1.0f, 0.5f);
    OK(tc_broadcast(pg, t, root, NULL));
    CHECK(at(t, 0) == 100.0f && at(t, n - 1) == 100.0f + 0.5f * (float)(n - 1));
    OK(tc_tensor_free(t));
  }
  tc_tensor in = vec_f32(n, (float)rank * 1000.0f, 1.0f);
  int64_t shape[2] = {size, n};
  tc_tensor out = NULL;
  OK(tc_zeros(shape, 2, TC_FLOAT32, TC_CPU, &out));
  OK(tc_all_gather(pg, out, in, NULL));
  for (int r = 0; r < size; ++r) CHECK(at(out, r * n + 3) == (float)r * 1000.0f + 3.0f);
  /* reduce_scatter: block b of rank r holds r + b; out = sum over r of (r + rank). */
  tc_tensor blocks = NULL, mine = NULL;
  int64_t total = size * n;
  float* v = malloc(sizeof(float) * (size_t)total);
  for (int64_t i = 0; i < total; ++i) v[i] = (float)(rank + i / n);
  OK(tc_from_data(v, total * 4, &total, 1, TC_FLOAT32, &blocks));
  free(v);
  OK(tc_zeros(&n, 1, TC_FLOAT32, TC_CPU, &mine));
  OK(tc_reduce_scatter(pg, mine, blocks, TC_REDUCE_SUM, NULL));
  CHECK(at(mine, 0) == (float)(size * (size - 1) / 2 + size * rank));
  OK(tc_tensor_free(in));
  OK(tc_tensor_free(out));
  OK(tc_tensor_free(blocks));
  OK(tc_tensor_free(mine));
}

static void test_async_and_p2p(tc_process_group pg) {
  /* Several works in flight at once, waited for in reverse order. */
  tc_tensor ts[4];
  tc_work ws[4];
  for (int k = 0; k < 4; ++k) {
    ts[k] = vec_f32(10000, (float)k, 0.0f);
    OK(tc_all_reduce(pg, ts[k], TC_REDUCE_SUM, &ws[k]));
  }
  for (int k = 3; k >= 0; --k) {
    OK(tc_work_wait(ws[k], 0));
    int32_t done = 0;
    OK(tc_work_test(ws[k], &done));
    CHECK(done == 1);
    CHECK(at(ts[k], 9999) == (float)(k * size));
    OK(tc_work_free(ws[k]));
    OK(tc_tensor_free(ts[k]));
  }
  /* A ring: send to the right, receive from the left. */
  tc_tensor s = vec_f32(33, (float)rank, 1.0f), r = vec_f32(33, 0, 0);
  tc_work sw = NULL;
  OK(tc_send(pg, s, (rank + 1) % size, 7, &sw));
  OK(tc_recv(pg, r, (rank + size - 1) % size, 7, NULL));
  OK(tc_work_wait(sw, 0));
  OK(tc_work_free(sw));
  CHECK(at(r, 2) == (float)((rank + size - 1) % size) + 2.0f);
  OK(tc_tensor_free(s));
  OK(tc_tensor_free(r));
  tc_work bw = NULL;
  OK(tc_barrier(pg, &bw));
  OK(tc_work_wait(bw, 0));
  OK(tc_work_free(bw));
}

static void test_mismatches(tc_process_group pg) {
  /* Rank 0 passes [2, 3], the others [3, 2]: every rank fails, with no data moved. */
  int64_t shape[2] = {rank == 0 ? 2 : 3, rank == 0 ? 3 : 2};
  tc_tensor t = NULL;
  OK(tc_ones(shape, 2, TC_FLOAT32, TC_CPU, &t));
  CHECK(tc_all_reduce(pg, t, TC_REDUCE_SUM, NULL) == TC_ERR_SHAPE);
  const char* msg = NULL;
  tc_last_error(&msg);
  CHECK(strstr(msg, "[2, 3]") && strstr(msg, "[3, 2]") && strstr(msg, "rank 1"));
  CHECK(at(t, 0) == 1.0f); /* untouched */
  OK(tc_tensor_free(t));
  /* Dtypes. */
  int64_t n = 4;
  tc_tensor u = NULL;
  OK(tc_ones(&n, 1, rank == 0 ? TC_FLOAT32 : TC_FLOAT64, TC_CPU, &u));
  CHECK(tc_all_reduce(pg, u, TC_REDUCE_SUM, NULL) == TC_ERR_DTYPE);
  /* Different roots: the collective itself disagrees. */
  CHECK(tc_broadcast(pg, u, rank, NULL) == TC_ERR_INVALID_ARGUMENT);
  OK(tc_tensor_free(u));
  /* send/recv: the receiver reports the mismatch, after draining the message. */
  if (rank < 2) {
    tc_tensor x = NULL;
    int64_t m = rank == 0 ? 5 : 6;
    OK(tc_zeros(&m, 1, TC_FLOAT32, TC_CPU, &x));
    if (rank == 0) OK(tc_send(pg, x, 1, 3, NULL));
    if (rank == 1) CHECK(tc_recv(pg, x, 0, 3, NULL) == TC_ERR_SHAPE);
    OK(tc_tensor_free(x));
  }
  OK(tc_barrier(pg, NULL)); /* still in step afterwards */
}

/* Mismatches in the all-reduce's own paths (in a group of two the check
 * rides with the data: the peer's messages are drained, nothing reduced):
 * doubling against doubling of another length, ring against ring, doubling
 * against ring, an all-reduce against another collective, an async one;
 * then a correct all-reduce shows the ranks still in step. */
static void test_all_reduce_mismatches(tc_process_group pg) {
  const int64_t lens[][2] = {{10, 12}, {70000, 50000}, {10, 40000}, {6000, 5000}};
  for (int k = 0; k < 4; ++k) {
    const int64_t n = lens[k][rank == 0 ? 0 : 1];
    tc_tensor t = vec_f32(n, 1.0f, 0.0f);
    CHECK(tc_all_reduce(pg, t, TC_REDUCE_SUM, NULL) == TC_ERR_SHAPE);
    const char* msg = NULL;
    tc_last_error(&msg);
    CHECK(strstr(msg, "ranks disagree") && strstr(msg, "rank 1"));
    CHECK(at(t, 0) == 1.0f && at(t, n - 1) == 1.0f); /* untouched */
    OK(tc_tensor_free(t));
  }
  /* The same length, another dtype (the same bytes): still refused. */
  int64_t four = 4;
  tc_tensor u = NULL;
  OK(tc_ones(&four, 1, rank == 0 ? TC_FLOAT32 : TC_INT32, TC_CPU, &u));
  CHECK(tc_all_reduce(pg, u, TC_REDUCE_SUM, NULL) == TC_ERR_DTYPE);
  OK(tc_tensor_free(u));
  /* An all-reduce (small, then ring-sized) against a broadcast. */
  for (int k = 0; k < 2; ++k) {
    tc_tensor t = vec_f32(k == 0 ? 100 : 100000, 1.0f, 0.0f);
    const int32_t rc = rank == 0 ? tc_all_reduce(pg, t, TC_REDUCE_SUM, NULL) : tc_broadcast(pg, t, 0, NULL);
    CHECK(rc == TC_ERR_INVALID_ARGUMENT);
    CHECK(at(t, 0) == 1.0f);
    OK(tc_tensor_free(t));
  }
  /* Asynchronous: the work fails when waited for. */
  tc_tensor a = vec_f32(rank == 0 ? 3 : 4, 1.0f, 0.0f);
  tc_work w = NULL;
  const int32_t rc = tc_all_reduce(pg, a, TC_REDUCE_AVG, &w);
  CHECK(rc == TC_OK || rc == TC_ERR_SHAPE); /* (larger groups check before starting) */
  if (rc == TC_OK) {
    CHECK(tc_work_wait(w, 0) == TC_ERR_SHAPE);
    OK(tc_work_free(w));
  }
  CHECK(at(a, 0) == 1.0f);
  OK(tc_tensor_free(a));
  /* Still in step: a correct all-reduce of each path. */
  const int64_t sizes[] = {10, 6000, 70000};
  for (int k = 0; k < 3; ++k) {
    tc_tensor t = vec_f32(sizes[k], (float)(rank + 1), 0.0f);
    OK(tc_all_reduce(pg, t, TC_REDUCE_SUM, NULL));
    CHECK(at(t, 0) == (float)(size * (size + 1) / 2) &&
          at(t, sizes[k] - 1) == (float)(size * (size + 1) / 2));
    OK(tc_tensor_free(t));
  }
}

static void test_timeout(void) {
  /* Rank 0 waits for a barrier the others join only after its timeout. */
  tc_process_group_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.skip_checks = 1;
  o.timeout_seconds = 0.5;
  tc_process_group g = NULL;
  OK(tc_process_group_create("mpi", &o, &g));
  if (rank == 0) {
    CHECK(tc_barrier(g, NULL) == TC_ERR_TIMEOUT);
    const char* msg = NULL;
    tc_last_error(&msg);
    CHECK(strstr(msg, "timed out") != NULL);
  } else {
    sleep_seconds(1.5);
    OK(tc_barrier(g, NULL)); /* matches rank 0's (still pending) barrier */
  }
  OK(tc_process_group_free(g));
}

int main(void) {
  OK(tc_init(NULL));
  tc_process_group pg = NULL;
  const int32_t rc = tc_process_group_create("mpi", NULL, &pg);
  if (rc == TC_ERR_NOT_COMPILED || rc == TC_ERR_UNAVAILABLE) {
    const char* msg = "";
    tc_last_error(&msg);
    printf("SKIPPED: %s\n", msg);
    tc_shutdown();
    return 77;
  }
  CHECK(rc == TC_OK);
  OK(tc_process_group_rank(pg, &rank));
  OK(tc_process_group_size(pg, &size));
  CHECK(size >= 2);
  char name[8];
  OK(tc_process_group_backend(pg, name, sizeof name, NULL));
  CHECK(strcmp(name, "mpi") == 0);
  test_all_reduce(pg);
  test_broadcast_gather_scatter(pg);
  test_async_and_p2p(pg);
  test_mismatches(pg);
  test_all_reduce_mismatches(pg);
  test_timeout();
  OK(tc_barrier(pg, NULL));
  OK(tc_process_group_free(pg));
  int64_t live = -1;
  OK(tc_get_flag("live_tensors", &live));
  CHECK(live == 0);
  OK(tc_shutdown());
  printf("rank %d of %d: all collective tests passed\n", rank, size);
  return 0;
}
