/* The "nccl" backend's collectives on CUDA tensors: run under `mpirun -np N`
 * with N GPUs (ctest: N = 1, and N = 2 when two GPUs are there). Every rank
 * checks every collective's result (float32 and float64, the five ops),
 * the asynchronous forms, a CPU tensor refused, ranks disagreeing on a shape
 * detected. Exits 77 (skipped, saying why) when no nccl group can be made:
 * libtc built without CUDA or NCCL, or no GPU. Plain C11 over tc.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int32_t cuda_device = 0;

/* base + step * i on the group's GPU. */
static tc_tensor vec(int64_t n, int32_t dtype, double base, double step) {
  double* v = malloc(sizeof(double) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; ++i) v[i] = base + step * (double)i;
  tc_tensor host = NULL, cast = NULL, dev = NULL;
  OK(tc_from_data(v, n * 8, &n, 1, TC_FLOAT64, &host));
  OK(tc_to_dtype(host, dtype, &cast));
  OK(tc_to_device(cast, cuda_device, &dev));
  OK(tc_tensor_free(host));
  OK(tc_tensor_free(cast));
  free(v);
  return dev;
}

/* Element i of a CUDA tensor, as a double. */
static double at(tc_tensor t, int64_t i) {
  tc_tensor host = NULL, d = NULL;
  OK(tc_to_device(t, TC_CPU, &host));
  OK(tc_to_dtype(host, TC_FLOAT64, &d));
  double* p = NULL;
  OK(tc_tensor_data_ptr(d, (void**)&p));
  const double x = p[i];
  OK(tc_tensor_free(host));
  OK(tc_tensor_free(d));
  return x;
}

static void test_all_reduce(tc_process_group pg) {
  const int32_t ops[] = {TC_REDUCE_SUM, TC_REDUCE_AVG, TC_REDUCE_MAX, TC_REDUCE_MIN, TC_REDUCE_PRODUCT};
  const int32_t dtypes[] = {TC_FLOAT32, TC_FLOAT64};
  const int64_t n = 100003;
  for (int d = 0; d < 2; ++d)
    for (int k = 0; k < 5; ++k) {
      tc_tensor t = vec(n, dtypes[d], rank + 1, 1.0);
      OK(tc_all_reduce(pg, t, ops[k], NULL));
      for (int64_t i = 0; i < n; i += 9973) {
        double expect = 0;
        if (ops[k] == TC_REDUCE_SUM) expect = size * (size + 1) / 2.0 + (double)size * (double)i;
        if (ops[k] == TC_REDUCE_AVG) expect = (size + 1) / 2.0 + (double)i;
        if (ops[k] == TC_REDUCE_MAX) expect = size + (double)i;
        if (ops[k] == TC_REDUCE_MIN) expect = 1 + (double)i;
        if (ops[k] == TC_REDUCE_PRODUCT) {
          expect = 1;
          for (int r = 0; r < size; ++r) expect *= (r + 1 + (double)i);
        }
        const double got = at(t, i);
        CHECK(got == expect || (got - expect) / expect < 1e-6);
      }
      OK(tc_tensor_free(t));
    }
}

static void test_others(tc_process_group pg) {
  const int64_t n = 257;
  for (int root = 0; root < size; ++root) {
    tc_tensor t = vec(n, TC_FLOAT32, rank == root ? 100.0 : -1.0, 0.5);
    OK(tc_broadcast(pg, t, root, NULL));
    CHECK(at(t, 0) == 100.0 && at(t, n - 1) == 100.0 + 0.5 * (double)(n - 1));
    OK(tc_tensor_free(t));
  }
  tc_tensor in = vec(n, TC_FLOAT32, rank * 1000.0, 1.0);
  tc_tensor out = vec(size * n, TC_FLOAT32, 0.0, 0.0);
  OK(tc_all_gather(pg, out, in, NULL));
  for (int r = 0; r < size; ++r) CHECK(at(out, r * n + 3) == r * 1000.0 + 3.0);
  /* reduce_scatter: rank r's element j is r + j; out = sum over r of (r + rank * n + i). */
  tc_tensor mine = vec(n, TC_FLOAT32, 0.0, 0.0);
  tc_tensor blocks = vec(size * n, TC_FLOAT32, rank, 1.0);
  OK(tc_reduce_scatter(pg, mine, blocks, TC_REDUCE_SUM, NULL));
  CHECK(at(mine, 5) == size * (size - 1) / 2.0 + (double)size * (double)(rank * n + 5));
  OK(tc_barrier(pg, NULL));
  /* Asynchronous: a work, tested then waited. */
  tc_tensor t = vec(n, TC_FLOAT64, 1.0, 0.0);
  tc_work w = NULL;
  OK(tc_all_reduce(pg, t, TC_REDUCE_SUM, &w));
  int32_t done = 0;
  OK(tc_work_test(w, &done));
  OK(tc_work_wait(w, 0));
  OK(tc_work_test(w, &done));
  CHECK(done == 1);
  OK(tc_work_free(w));
  CHECK(at(t, n - 1) == (double)size);
  /* Point to point between ranks 0 and 1. */
  if (size >= 2 && rank < 2) {
    tc_tensor p = vec(n, TC_FLOAT32, rank == 0 ? 42.0 : 0.0, 1.0);
    if (rank == 0) OK(tc_send(pg, p, 1, 0, NULL));
    if (rank == 1) {
      OK(tc_recv(pg, p, 0, 0, NULL));
      CHECK(at(p, 10) == 52.0);
    }
    OK(tc_tensor_free(p));
  }
  /* A CPU tensor is the mpi backend's. */
  tc_tensor cpu = NULL;
  OK(tc_zeros(&n, 1, TC_FLOAT32, TC_CPU, &cpu));
  CHECK(tc_all_reduce(pg, cpu, TC_REDUCE_SUM, NULL) == TC_ERR_DEVICE);
  OK(tc_tensor_free(cpu));
  OK(tc_tensor_free(t));
  OK(tc_tensor_free(in));
  OK(tc_tensor_free(out));
  OK(tc_tensor_free(mine));
  OK(tc_tensor_free(blocks));
}

static void test_mismatch(tc_process_group pg) {
  if (size < 2) return;
  tc_tensor t = vec(rank == 1 ? 5 : 4, TC_FLOAT32, 1.0, 0.0);
  const int32_t rc = tc_all_reduce(pg, t, TC_REDUCE_SUM, NULL);
  CHECK(rc == TC_ERR_SHAPE);
  const char* msg = "";
  tc_last_error(&msg);
  CHECK(strstr(msg, "disagree") != NULL);
  OK(tc_tensor_free(t));
}

int main(void) {
  OK(tc_init(NULL));
  tc_process_group pg = NULL;
  const int32_t rc = tc_process_group_create("nccl", NULL, &pg);
  if (rc == TC_ERR_NOT_COMPILED || rc == TC_ERR_UNAVAILABLE || rc == TC_ERR_DEVICE) {
    const char* msg = "";
    tc_last_error(&msg);
    printf("SKIPPED: %s\n", msg);
    tc_shutdown();
    return 77;
  }
  CHECK(rc == TC_OK);
  OK(tc_process_group_rank(pg, &rank));
  OK(tc_process_group_size(pg, &size));
  char name[8];
  OK(tc_process_group_backend(pg, name, sizeof name, NULL));
  CHECK(strcmp(name, "nccl") == 0);
  const char* local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  int64_t gpus = 1;
  OK(tc_get_flag("cuda_device_count", &gpus));
  cuda_device = TC_DEVICE(TC_DEVICE_CUDA, (local ? atoi(local) : rank) % (int)gpus);
  test_all_reduce(pg);
  test_others(pg);
  test_mismatch(pg);
  OK(tc_barrier(pg, NULL));
  OK(tc_process_group_free(pg));
  OK(tc_shutdown());
  printf("rank %d of %d: all nccl tests passed\n", rank, size);
  return 0;
}
