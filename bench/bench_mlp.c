/* One training step of a 784 -> 256 -> ReLU -> 10 MLP (linear, relu,
 * cross-entropy, backward, SGD step, zero_grad) at batch 64 and 1024, 1 and
 * 2 threads: microseconds per step. */
#include <math.h>

#include "bench_util.h"
#include "mlp_model.h"
#include "tc_scalar_ops.h"
#include "tc_unary_ops.h"

int main(void) {
  bench_init_threads(0);
  tc_tensor p[4];
  tc_optimizer opt;
  mlp_model_make(p, &opt);
  const int64_t batches[2] = {64, 1024};
  for (int threads = 1; threads <= 2; ++threads) {
    CK(tc_set_flag("num_threads", threads));
    for (int bi = 0; bi < 2; ++bi) {
      const int64_t n = batches[bi], xs[2] = {n, 784}, ys[1] = {n};
      tc_tensor x, y, yf;
      CK(tc_rand(xs, 2, TC_FLOAT32, TC_CPU, &x));
      CK(tc_rand(ys, 1, TC_FLOAT32, TC_CPU, &yf));
      {
        /* Class targets 0..9 from uniform samples. */
        tc_tensor scaled;
        CK(tc_mul_scalar(yf, 9.999, &scaled));
        CK(tc_to_dtype(scaled, TC_INT64, &y));
        CK(tc_tensor_free(scaled));
      }
      const int steps = n == 64 ? 400 : 40;
      double best = 1e9;
      for (int rep = 0; rep < 3; ++rep) {
        const double t0 = bench_now();
        for (int s = 0; s < steps; ++s) {
          tc_tensor h, a, logits, loss;
          CK(tc_linear(x, p[0], p[1], &h));
          CK(tc_relu(h, &a));
          CK(tc_linear(a, p[2], p[3], &logits));
          CK(tc_cross_entropy(logits, y, TC_REDUCTION_MEAN, &loss));
          CK(tc_optimizer_zero_grad(opt));
          CK(tc_backward(loss, NULL, 0));
          CK(tc_optimizer_step(opt));
          tc_tensor_free(h);
          tc_tensor_free(a);
          tc_tensor_free(logits);
          tc_tensor_free(loss);
        }
        const double us = (bench_now() - t0) / steps * 1e6;
        if (us < best) best = us;
      }
      char metric[64];
      snprintf(metric, sizeof metric, "mlp_step_b%lld_t%d", (long long)n, threads);
      bench_result(metric, "libtc", best, "us");
      CK(tc_tensor_free(x));
      CK(tc_tensor_free(y));
      CK(tc_tensor_free(yf));
    }
  }
  CK(tc_optimizer_free(opt));
  for (int i = 0; i < 4; ++i) CK(tc_tensor_free(p[i]));
  CK(tc_shutdown());
  return 0;
}
