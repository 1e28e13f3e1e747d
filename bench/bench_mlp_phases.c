/* Where bench_mlp's step goes, call by call: the same 784 -> 256 -> ReLU ->
 * 10 step at one batch size and thread count, each ABI call of the step
 * (linear, relu, linear, cross_entropy, zero_grad, backward as one call,
 * SGD step, the frees) timed on its own. Prints per phase the mean wall
 * time, the mean process CPU time and the minimum wall time over the steps
 * (on a shared machine the minimum is the least disturbed figure; at 2
 * threads CPU time counts both threads, spinning ones included):
 *   bench_mlp_phases [THREADS=1] [STEPS=200] [BATCH=1024]
 * Not run by bench/run.sh: a diagnosis tool (docs/PERF_MLP.md, the MLP step work).
 * Lines: "RESULT mlp_phase_b<n>_t<t>_<phase> <mean_wall|mean_cpu|min_wall> <us> us". */
#include <math.h>

#include "bench_util.h"
#include "mlp_model.h"
#include "tc_scalar_ops.h"
#include "tc_unary_ops.h"

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { kPhases = 8, kWarmSteps = 5 };
static const char* const kNames[kPhases] = {"linear1",   "relu",     "linear2", "cross_entropy",
                                            "zero_grad", "backward", "sgd",     "free"};

struct Clock {
  double wall, cpu;
};
static struct Clock clock_now(void) {
  struct Clock c = {bench_now(), cpu_now()};
  return c;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 1;
  const int steps = argc > 2 ? atoi(argv[2]) : 200;
  const int64_t n = argc > 3 ? atoll(argv[3]) : 1024;
  if (threads < 1 || steps < 1 || n < 1) {
    fprintf(stderr, "usage: bench_mlp_phases [THREADS>=1] [STEPS>=1] [BATCH>=1]\n");
    return 2;
  }
  bench_init_threads(0);
  tc_tensor p[4];
  tc_optimizer opt;
  mlp_model_make(p, &opt);
  CK(tc_set_flag("num_threads", threads));
  const int64_t xs[2] = {n, 784}, ys[1] = {n};
  tc_tensor x, y, yf, scaled;
  CK(tc_rand(xs, 2, TC_FLOAT32, TC_CPU, &x));
  CK(tc_rand(ys, 1, TC_FLOAT32, TC_CPU, &yf));
  CK(tc_mul_scalar(yf, 9.999, &scaled));
  CK(tc_to_dtype(scaled, TC_INT64, &y));
  CK(tc_tensor_free(scaled));

  double wall[kPhases] = {0}, cpu[kPhases] = {0}, min_wall[kPhases];
  for (int i = 0; i < kPhases; ++i) min_wall[i] = 1e9;
  for (int s = 0; s < steps + kWarmSteps; ++s) {
    tc_tensor h, a, logits, loss;
    struct Clock t[kPhases + 1];
    t[0] = clock_now();
    CK(tc_linear(x, p[0], p[1], &h));
    t[1] = clock_now();
    CK(tc_relu(h, &a));
    t[2] = clock_now();
    CK(tc_linear(a, p[2], p[3], &logits));
    t[3] = clock_now();
    CK(tc_cross_entropy(logits, y, TC_REDUCTION_MEAN, &loss));
    t[4] = clock_now();
    CK(tc_optimizer_zero_grad(opt));
    t[5] = clock_now();
    CK(tc_backward(loss, NULL, 0));
    t[6] = clock_now();
    CK(tc_optimizer_step(opt));
    t[7] = clock_now();
    CK(tc_tensor_free(h));
    CK(tc_tensor_free(a));
    CK(tc_tensor_free(logits));
    CK(tc_tensor_free(loss));
    t[8] = clock_now();
    if (s < kWarmSteps) continue;
    for (int i = 0; i < kPhases; ++i) {
      const double w = t[i + 1].wall - t[i].wall;
      wall[i] += w;
      cpu[i] += t[i + 1].cpu - t[i].cpu;
      if (w < min_wall[i]) min_wall[i] = w;
    }
  }
  double total_wall = 0, total_cpu = 0;
  for (int i = 0; i < kPhases; ++i) {
    char metric[96];
    snprintf(metric, sizeof metric, "mlp_phase_b%lld_t%d_%s", (long long)n, threads, kNames[i]);
    bench_result(metric, "mean_wall", wall[i] / steps * 1e6, "us");
    bench_result(metric, "mean_cpu", cpu[i] / steps * 1e6, "us");
    bench_result(metric, "min_wall", min_wall[i] * 1e6, "us");
    total_wall += wall[i];
    total_cpu += cpu[i];
  }
  char metric[96];
  snprintf(metric, sizeof metric, "mlp_phase_b%lld_t%d_step", (long long)n, threads);
  bench_result(metric, "mean_wall", total_wall / steps * 1e6, "us");
  bench_result(metric, "mean_cpu", total_cpu / steps * 1e6, "us");
  CK(tc_tensor_free(x));
  CK(tc_tensor_free(y));
  CK(tc_tensor_free(yf));
  CK(tc_optimizer_free(opt));
  for (int i = 0; i < 4; ++i) CK(tc_tensor_free(p[i]));
  CK(tc_shutdown());
  return 0;
}
