/* c = a + b through the C ABI: the per-call overhead on 1-element tensors
 * (ns per tc_add + tc_tensor_free) and the bandwidth on 16M float32 (GB/s,
 * counting 3 x 64 MB moved per add), at 1 and 2 threads. */
#include "bench_util.h"
#include "tc_binary_ops.h"

int main(void) {
  bench_init_threads(0);
  const int64_t one[1] = {1};
  tc_tensor a, b, c;
  CK(tc_ones(one, 1, TC_FLOAT32, TC_CPU, &a));
  CK(tc_ones(one, 1, TC_FLOAT32, TC_CPU, &b));
  const int iters = 1000000;
  for (int i = 0; i < 10000; ++i) {
    CK(tc_add(a, b, &c));
    CK(tc_tensor_free(c));
  }
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = bench_now();
    for (int i = 0; i < iters; ++i) {
      tc_add(a, b, &c);
      tc_tensor_free(c);
    }
    const double ns = (bench_now() - t0) / iters * 1e9;
    if (ns < best) best = ns;
  }
  bench_result("add_1elem", "libtc", best, "ns");
  CK(tc_tensor_free(a));
  CK(tc_tensor_free(b));

  const int64_t big[1] = {16 << 20};
  CK(tc_rand(big, 1, TC_FLOAT32, TC_CPU, &a));
  CK(tc_rand(big, 1, TC_FLOAT32, TC_CPU, &b));
  for (int threads = 1; threads <= 2; ++threads) {
    CK(tc_set_flag("num_threads", threads));
    double best_s = 1e9;
    for (int rep = 0; rep < 15; ++rep) {
      const double t0 = bench_now();
      CK(tc_add(a, b, &c));
      const double s = bench_now() - t0;
      CK(tc_tensor_free(c));
      if (s < best_s) best_s = s;
    }
    char metric[64];
    snprintf(metric, sizeof metric, "add_16M_t%d", threads);
    bench_result(metric, "libtc", 3.0 * 4.0 * (double)big[0] / best_s / 1e9, "GB/s");
  }
  CK(tc_tensor_free(a));
  CK(tc_tensor_free(b));
  CK(tc_shutdown());
  return 0;
}
