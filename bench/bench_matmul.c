/* float32 matmul GFLOP/s for N = 64 .. 2048 at 1 and 2 threads: tc_matmul
 * next to dnnl_sgemm called directly on the same buffers (the bound: libtc
 * should stay within 5% of it for N >= 256). */
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include "bench_util.h"

/* Seconds per call: the best of repeated runs, at least 3 and ~0.25 s. */
static double time_it(void (*fn)(void*), void* ctx) {
  fn(ctx);
  double best = 1e9, spent = 0;
  for (int rep = 0; rep < 3 || spent < 0.25; ++rep) {
    const double t0 = bench_now();
    fn(ctx);
    const double s = bench_now() - t0;
    spent += s;
    if (s < best) best = s;
    if (rep > 200) break;
  }
  return best;
}

typedef struct {
  tc_tensor a, b;
  const float *pa, *pb;
  float* pc;
  int64_t n;
} Ctx;

static void run_tc(void* p) {
  Ctx* c = p;
  tc_tensor out;
  CK(tc_matmul(c->a, c->b, &out));
  CK(tc_tensor_free(out));
}

static void run_dnnl(void* p) {
  Ctx* c = p;
  if (dnnl_sgemm('N', 'N', c->n, c->n, c->n, 1.0f, c->pa, c->n, c->pb, c->n, 0.0f, c->pc, c->n) !=
      dnnl_success)
    exit(1);
}

int main(void) {
  bench_init_threads(0);
  const int64_t sizes[] = {64, 128, 256, 512, 1024, 2048};
  for (int threads = 1; threads <= 2; ++threads) {
    CK(tc_set_flag("num_threads", threads));
    omp_set_num_threads(threads);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
      Ctx c;
      c.n = sizes[i];
      const int64_t shape[2] = {c.n, c.n};
      CK(tc_rand(shape, 2, TC_FLOAT32, TC_CPU, &c.a));
      CK(tc_rand(shape, 2, TC_FLOAT32, TC_CPU, &c.b));
      CK(tc_tensor_data_ptr(c.a, (void**)&c.pa));
      CK(tc_tensor_data_ptr(c.b, (void**)&c.pb));
      c.pc = malloc(sizeof(float) * (size_t)(c.n * c.n));
      const double flop = 2.0 * (double)c.n * (double)c.n * (double)c.n;
      char metric[64];
      snprintf(metric, sizeof metric, "matmul_%lld_t%d", (long long)c.n, threads);
      bench_result(metric, "libtc", flop / time_it(run_tc, &c) / 1e9, "GFLOP/s");
      bench_result(metric, "dnnl", flop / time_it(run_dnnl, &c) / 1e9, "GFLOP/s");
      free(c.pc);
      CK(tc_tensor_free(c.a));
      CK(tc_tensor_free(c.b));
    }
  }
  CK(tc_shutdown());
  return 0;
}
