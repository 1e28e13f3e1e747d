/* (x * w + b).relu().sum() forward and backward on 16-element float32
 * tensors: microseconds per iteration (the per-op overhead of the graph). */
#include "bench_util.h"
#include "tc_binary_ops.h"
#include "tc_unary_ops.h"

int main(void) {
  bench_init_threads(1);
  const int64_t s[1] = {16};
  tc_tensor x, w, b;
  CK(tc_randn(s, 1, TC_FLOAT32, TC_CPU, &x));
  CK(tc_randn(s, 1, TC_FLOAT32, TC_CPU, &w));
  CK(tc_randn(s, 1, TC_FLOAT32, TC_CPU, &b));
  CK(tc_tensor_set_requires_grad(w, 1));
  CK(tc_tensor_set_requires_grad(b, 1));
  const int iters = 100000;
  double best = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = bench_now();
    for (int i = 0; i < iters; ++i) {
      tc_tensor m, a, r, l;
      CK(tc_mul(x, w, &m));
      CK(tc_add(m, b, &a));
      CK(tc_relu(a, &r));
      CK(tc_sum(r, NULL, 0, 0, &l));
      CK(tc_backward(l, NULL, 0));
      tc_tensor_free(m);
      tc_tensor_free(a);
      tc_tensor_free(r);
      tc_tensor_free(l);
      tc_tensor_clear_grad(w);
      tc_tensor_clear_grad(b);
    }
    const double us = (bench_now() - t0) / iters * 1e6;
    if (us < best) best = us;
  }
  bench_result("tiny_graph", "libtc", best, "us");
  CK(tc_tensor_free(x));
  CK(tc_tensor_free(w));
  CK(tc_tensor_free(b));
  CK(tc_shutdown());
  return 0;
}
