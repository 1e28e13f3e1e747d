/* CUDA benchmarks through the C ABI (bench/run_cuda.sh runs them beside
 * bench/torch_cuda.py and prints the ratios):
 *   matmul_{bf16,f32,tf32}_{4096,8192}   TFLOP/s (f32: HIGHEST; tf32: HIGH)
 *   add_256M_cuda                        GB/s of c = a + b, 256M float32
 *   mlp_step_b{64,1024}_cuda             us per 784-256-10 MLP training step
 *                                        (linear, relu, cross-entropy, backward, SGD)
 * Without a usable GPU it prints why and exits 0. A metric whose ops are not
 * available on CUDA in this build is skipped with the reason. The GPU is
 * synchronized by reading one element back (cudaMemcpy on the default
 * stream, where libtc runs everything). */
#include <string.h>

#include "bench_util.h"
#include "tc_binary_ops.h"
#include "tc_scalar_ops.h"
#include "tc_unary_ops.h"

static const int32_t kGpu = TC_DEVICE(TC_DEVICE_CUDA, 0);

static int ok(int32_t st, const char* metric, const char* what) {
  if (st == TC_OK) return 1;
  const char *msg = "", *name = "?";
  tc_last_error(&msg);
  tc_status_name(st, &name);
  fprintf(stderr, "bench_cuda: %s skipped: %s failed (%s): %s\n", metric, what, name, msg);
  return 0;
}

/* Waits for every queued kernel: reads element [0, ..., 0] of t. */
static void sync_on(tc_tensor t) {
  int64_t ndim = 0;
  CK(tc_tensor_ndim(t, &ndim));
  tc_tensor cur = NULL;
  CK(tc_tensor_retain(t, &cur));
  for (int64_t d = 0; d < ndim; ++d) {
    tc_tensor next = NULL;
    CK(tc_narrow(cur, d, 0, 1, &next));
    CK(tc_tensor_free(cur));
    cur = next;
  }
  int64_t size = 0;
  CK(tc_tensor_element_size(cur, &size));
  char buf[16];
  CK(tc_tensor_copy_to(cur, buf, size));
  CK(tc_tensor_free(cur));
}

static void bench_matmul(const char* name, int32_t dtype, int32_t precision, int64_t n) {
  char metric[64];
  snprintf(metric, sizeof metric, "matmul_%s_%lld", name, (long long)n);
  const int64_t shape[2] = {n, n};
  tc_tensor a = NULL, b = NULL;
  if (!ok(tc_rand(shape, 2, dtype, kGpu, &a), metric, "tc_rand") ||
      !ok(tc_rand(shape, 2, dtype, kGpu, &b), metric, "tc_rand")) {
    tc_tensor_free(a);
    return;
  }
  CK(tc_set_matmul_precision(precision));
  const double flop = 2.0 * (double)n * (double)n * (double)n;
  tc_tensor c = NULL;
  for (int i = 0; i < 3; ++i) { /* warm-up: handle, heuristics, allocator */
    if (!ok(tc_matmul(a, b, &c), metric, "tc_matmul")) goto done;
    if (i < 2) CK(tc_tensor_free(c));
  }
  sync_on(c);
  CK(tc_tensor_free(c));
  /* About 0.3 s per repetition at the expected rate (~600 TFLOP/s in bf16). */
  int iters = (int)(0.3 / (flop / (dtype == TC_FLOAT32 && precision == 0 ? 50e12 : 600e12)));
  if (iters < 5) iters = 5;
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = bench_now();
    for (int i = 0; i < iters; ++i) {
      CK(tc_matmul(a, b, &c));
      if (i + 1 < iters) CK(tc_tensor_free(c));
    }
    sync_on(c);
    const double s = (bench_now() - t0) / iters;
    CK(tc_tensor_free(c));
    if (s < best) best = s;
  }
  bench_result(metric, "libtc", flop / best / 1e12, "TFLOP/s");
done:
  CK(tc_set_matmul_precision(TC_MATMUL_PRECISION_HIGHEST));
  tc_tensor_free(a);
  tc_tensor_free(b);
}

static void bench_add(void) {
  const char* metric = "add_256M_cuda";
  const int64_t n = (int64_t)256 << 20;
  tc_tensor a = NULL, b = NULL, c = NULL;
  if (!ok(tc_rand(&n, 1, TC_FLOAT32, kGpu, &a), metric, "tc_rand") ||
      !ok(tc_rand(&n, 1, TC_FLOAT32, kGpu, &b), metric, "tc_rand") ||
      !ok(tc_add(a, b, &c), metric, "tc_add")) {
    tc_tensor_free(a);
    tc_tensor_free(b);
    return;
  }
  sync_on(c);
  CK(tc_tensor_free(c));
  double best = 1e30;
  const int iters = 20;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = bench_now();
    for (int i = 0; i < iters; ++i) {
      CK(tc_add(a, b, &c));
      if (i + 1 < iters) CK(tc_tensor_free(c));
    }
    sync_on(c);
    const double s = (bench_now() - t0) / iters;
    CK(tc_tensor_free(c));
    if (s < best) best = s;
  }
  bench_result(metric, "libtc", 3.0 * 4.0 * (double)n / best / 1e9, "GB/s");
  tc_tensor_free(a);
  tc_tensor_free(b);
}

/* One step; returns the loss handle (the caller frees it) or NULL on failure. */
static tc_tensor mlp_step(const char* metric, tc_tensor x, tc_tensor y, tc_tensor* p, tc_optimizer opt) {
  tc_tensor h = NULL, a = NULL, logits = NULL, loss = NULL;
  int good = ok(tc_linear(x, p[0], p[1], &h), metric, "tc_linear") && ok(tc_relu(h, &a), metric, "tc_relu") &&
             ok(tc_linear(a, p[2], p[3], &logits), metric, "tc_linear") &&
             ok(tc_cross_entropy(logits, y, TC_REDUCTION_MEAN, &loss), metric, "tc_cross_entropy") &&
             ok(tc_optimizer_zero_grad(opt), metric, "tc_optimizer_zero_grad") &&
             ok(tc_backward(loss, NULL, 0), metric, "tc_backward") &&
             ok(tc_optimizer_step(opt), metric, "tc_optimizer_step");
  tc_tensor_free(h);
  tc_tensor_free(a);
  tc_tensor_free(logits);
  if (!good) {
    tc_tensor_free(loss);
    return NULL;
  }
  return loss;
}

static void bench_mlp(int64_t n) {
  char metric[64];
  snprintf(metric, sizeof metric, "mlp_step_b%lld_cuda", (long long)n);
  const int64_t w1s[2] = {256, 784}, b1s[1] = {256}, w2s[2] = {10, 256}, b2s[1] = {10};
  const int64_t* shapes[4] = {w1s, b1s, w2s, b2s};
  const int64_t ndims[4] = {2, 1, 2, 1};
  tc_tensor p[4] = {NULL, NULL, NULL, NULL}, x = NULL, y = NULL, yf = NULL, yc = NULL, scaled = NULL;
  tc_optimizer opt = NULL;
  for (int i = 0; i < 4; ++i) {
    if (!ok(tc_empty(shapes[i], ndims[i], TC_FLOAT32, kGpu, &p[i]), metric, "tc_empty") ||
        !ok(tc_uniform_(p[i], -0.05, 0.05), metric, "tc_uniform_"))
      goto done;
    CK(tc_tensor_set_requires_grad(p[i], 1));
  }
  tc_sgd_options so;
  memset(&so, 0, sizeof so);
  so.size = sizeof so;
  so.lr = 0.01;
  if (!ok(tc_optimizer_sgd(p, 4, &so, &opt), metric, "tc_optimizer_sgd")) goto done;
  const int64_t xs[2] = {n, 784}, ys[1] = {n};
  if (!ok(tc_rand(xs, 2, TC_FLOAT32, kGpu, &x), metric, "tc_rand")) goto done;
  /* Class targets 0..9, made on the CPU and copied. */
  CK(tc_rand(ys, 1, TC_FLOAT32, TC_CPU, &yf));
  CK(tc_mul_scalar(yf, 9.999, &scaled));
  CK(tc_to_dtype(scaled, TC_INT64, &yc));
  if (!ok(tc_to_device(yc, kGpu, &y), metric, "tc_to_device")) goto done;
  for (int i = 0; i < 5; ++i) { /* warm-up */
    tc_tensor loss = mlp_step(metric, x, y, p, opt);
    if (!loss) goto done;
    if (i == 4) sync_on(loss);
    tc_tensor_free(loss);
  }
  const int steps = n == 64 ? 400 : 100;
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = bench_now();
    tc_tensor loss = NULL;
    for (int s = 0; s < steps; ++s) {
      tc_tensor_free(loss);
      loss = mlp_step(metric, x, y, p, opt);
      if (!loss) goto done;
    }
    sync_on(loss);
    tc_tensor_free(loss);
    const double us = (bench_now() - t0) / steps * 1e6;
    if (us < best) best = us;
  }
  bench_result(metric, "libtc", best, "us");
done:
  tc_optimizer_free(opt);
  for (int i = 0; i < 4; ++i) tc_tensor_free(p[i]);
  tc_tensor_free(x);
  tc_tensor_free(y);
  tc_tensor_free(yf);
  tc_tensor_free(yc);
  tc_tensor_free(scaled);
}

int main(void) {
  bench_init_threads(0);
  if (tc_backend_init("cuda") != TC_OK) {
    const char* msg = "";
    tc_last_error(&msg);
    printf("bench_cuda: skipped, no usable CUDA GPU: %s\n", msg);
    CK(tc_shutdown());
    return 0;
  }
  const int64_t sizes[2] = {4096, 8192};
  for (int i = 0; i < 2; ++i) {
    bench_matmul("bf16", TC_BFLOAT16, TC_MATMUL_PRECISION_HIGHEST, sizes[i]);
    bench_matmul("f32", TC_FLOAT32, TC_MATMUL_PRECISION_HIGHEST, sizes[i]);
    bench_matmul("tf32", TC_FLOAT32, TC_MATMUL_PRECISION_HIGH, sizes[i]);
  }
  bench_add();
  bench_mlp(64);
  bench_mlp(1024);
  CK(tc_shutdown());
  return 0;
}
