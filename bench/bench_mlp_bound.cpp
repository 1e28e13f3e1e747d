// The GEMM bound of bench_mlp's training step (784 -> 256 -> ReLU -> 10,
// batch 64 and 1024, 1 and 2 threads): every GEMM the step runs, with the
// shapes and operand layouts libtc passes (src/ops/linalg.cpp, row-major):
//   fwd1  h = x W1^T + b1     M=n   N=256 K=784   x [n,784], W1 [256,784]  NT
//   fwd2  z = a W2^T + b2     M=n   N=10  K=256                            NT
//   da    da = dz W2          M=n   N=256 K=10    dz [n,10], W2 [10,256]   NN
//   dW2   dW2 = dz^T a        M=10  N=256 K=n                              TN
//   dW1   dW1 = dh^T x        M=256 N=784 K=n    dh [n,256], x [n,784]    TN
// (x needs no gradient, so there is no dx = dh W1.) Each GEMM runs as
// dnnl_sgemm in every layout (NN/NT/TN/TT: the same product with the
// operands stored transposed, so the best layout libtc could pick) and as
// oneDNN's matmul primitive (made once, so it is timed without its JIT),
// fwd1/fwd2 also with the bias and (fwd1) the ReLU as post-ops. Prints per
// GEMM and thread count "RESULT gemm_b<n>_<name>_t<t> <impl> <GFLOP/s>",
// and per row the step's FLOPs and its floor at the best GEMM speed:
// "RESULT mlp_flops_b<n> bound <MFLOP>", "RESULT mlp_floor_gemm_b<n>_t<t>
// bound <us>" (the sum over GEMMs of FLOPs / best rate) and
// "mlp_floor_libtc_gemm_..." (the same at the rate of the call libtc makes).
// Times: CPU time at 1 thread, wall time at 2 (see best_seconds).
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

namespace {

struct Gemm {
  const char* name;
  int64_t m, n, k;
  bool ta, tb;  // libtc's layout
  int post;     // 0: none; 1: bias; 2: bias + relu (the forward linears)
};

#define DK(call)                                           \
  do {                                                     \
    dnnl_status_t s_ = (call);                             \
    if (s_ != dnnl_success) {                              \
      fprintf(stderr, "%s failed (%d)\n", #call, int(s_)); \
      exit(1);                                             \
    }                                                      \
  } while (0)

double cpu_now() {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// Seconds a call, best of 5 runs of enough calls for ~10 ms. One thread:
// the process's CPU time, which other processes taking turns on a shared
// machine do not inflate (on a quiet one it equals wall time). Two threads:
// wall time, since CPU time misses a worker that sleeps while descheduled
// and would overstate the rate.
template <typename F>
double best_seconds(F&& fn, double flops, int threads) {
  fn();  // warm: page faults, oneDNN's JIT and buffers
  const int calls = std::max(2, int(0.01 / (flops / 150e9)));
  double best = 1e9;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = threads == 1 ? cpu_now() : bench_now();
    for (int c = 0; c < calls; ++c) fn();
    best = std::min(best, ((threads == 1 ? cpu_now() : bench_now()) - t0) / calls);
  }
  return best;
}

// The matmul primitive for C[m,n] = op(A) op(B) (+ bias) (relu), row-major.
struct Matmul {
  dnnl_primitive_t prim = nullptr;
  dnnl_memory_t a = nullptr, b = nullptr, c = nullptr, bias = nullptr;
  Matmul(dnnl_engine_t eng, const Gemm& g, bool ta, bool tb, int post) {
    const int64_t lda = ta ? g.m : g.k, ldb = tb ? g.k : g.n;
    dnnl_dims_t da = {g.m, g.k}, db = {g.k, g.n}, dc = {g.m, g.n}, dbias = {1, g.n};
    dnnl_dims_t sa = {ta ? 1 : lda, ta ? lda : 1}, sb = {tb ? 1 : ldb, tb ? ldb : 1}, sc = {g.n, 1},
                sbias = {g.n, 1};
    dnnl_memory_desc_t ma, mb, mc, mbias;
    DK(dnnl_memory_desc_init_by_strides(&ma, 2, da, dnnl_f32, sa));
    DK(dnnl_memory_desc_init_by_strides(&mb, 2, db, dnnl_f32, sb));
    DK(dnnl_memory_desc_init_by_strides(&mc, 2, dc, dnnl_f32, sc));
    DK(dnnl_memory_desc_init_by_strides(&mbias, 2, dbias, dnnl_f32, sbias));
    dnnl_matmul_desc_t md;
    DK(dnnl_matmul_desc_init(&md, &ma, &mb, post ? &mbias : nullptr, &mc));
    dnnl_primitive_attr_t attr;
    DK(dnnl_primitive_attr_create(&attr));
    if (post == 2) {
      dnnl_post_ops_t po;
      DK(dnnl_post_ops_create(&po));
      DK(dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f));
      DK(dnnl_primitive_attr_set_post_ops(attr, po));
      dnnl_post_ops_destroy(po);
    }
    dnnl_primitive_desc_t pd;
    DK(dnnl_primitive_desc_create(&pd, &md, attr, eng, nullptr));
    DK(dnnl_primitive_create(&prim, pd));
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    DK(dnnl_memory_create(&a, &ma, eng, DNNL_MEMORY_ALLOCATE));
    DK(dnnl_memory_create(&b, &mb, eng, DNNL_MEMORY_ALLOCATE));
    DK(dnnl_memory_create(&c, &mc, eng, DNNL_MEMORY_ALLOCATE));
    DK(dnnl_memory_create(&bias, &mbias, eng, DNNL_MEMORY_ALLOCATE));
    fill(a, g.m * g.k);
    fill(b, g.k * g.n);
    fill(bias, g.n);
  }
  static void fill(dnnl_memory_t mem, int64_t count) {
    void* p = nullptr;
    DK(dnnl_memory_get_data_handle(mem, &p));
    float* f = static_cast<float*>(p);
    for (int64_t i = 0; i < count; ++i) f[i] = float((i * 7919) % 1000) * 1e-3f - 0.5f;
  }
  void run(dnnl_stream_t st, int post) const {
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}, {DNNL_ARG_BIAS, bias}};
    DK(dnnl_primitive_execute(prim, st, post ? 4 : 3, args));
    DK(dnnl_stream_wait(st));
  }
  ~Matmul() {
    dnnl_memory_destroy(a);
    dnnl_memory_destroy(b);
    dnnl_memory_destroy(c);
    dnnl_memory_destroy(bias);
    dnnl_primitive_destroy(prim);
  }
};

const char* layout_name(bool ta, bool tb) { return ta ? (tb ? "TT" : "TN") : (tb ? "NT" : "NN"); }

}  // namespace

int main() {
  dnnl_engine_t eng;
  dnnl_stream_t st;
  DK(dnnl_engine_create(&eng, dnnl_cpu, 0));
  DK(dnnl_stream_create(&st, eng, dnnl_stream_default_flags));
  for (int64_t n : {int64_t(64), int64_t(1024)}) {
    const Gemm gemms[] = {
        {"fwd1", n, 256, 784, false, true, 2}, {"fwd2", n, 10, 256, false, true, 1},
        {"da", n, 256, 10, false, false, 0},   {"dW2", 10, 256, n, true, false, 0},
        {"dW1", 256, 784, n, true, false, 0},
    };
    double total_flops = 0;
    for (const Gemm& g : gemms) total_flops += 2.0 * double(g.m * g.n * g.k);
    char metric[96];
    snprintf(metric, sizeof metric, "mlp_flops_b%lld", (long long)n);
    bench_result(metric, "bound", total_flops / 1e6, "MFLOP");
    for (int t = 1; t <= 2; ++t) {
      omp_set_num_threads(t);
      double floor_best = 0, floor_libtc = 0;
      for (const Gemm& g : gemms) {
        const double flops = 2.0 * double(g.m * g.n * g.k);
        std::vector<float> a(size_t(g.m * g.k), 0.25f), b(size_t(g.k * g.n), 0.5f), c(size_t(g.m * g.n));
        double best = 0, libtc_rate = 0;
        snprintf(metric, sizeof metric, "gemm_b%lld_%s_t%d", (long long)n, g.name, t);
        for (int lay = 0; lay < 4; ++lay) {
          const bool ta = lay & 2, tb = lay & 1;
          const int64_t lda = ta ? g.m : g.k, ldb = tb ? g.k : g.n;
          const double s = best_seconds(
              [&] {
                dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', g.m, g.n, g.k, 1.0f, a.data(), lda, b.data(), ldb,
                           0.0f, c.data(), g.n);
              },
              flops, t);
          const double rate = flops / s;
          best = std::max(best, rate);
          if (ta == g.ta && tb == g.tb) libtc_rate = rate;
          bench_result(metric, (std::string("sgemm_") + layout_name(ta, tb)).c_str(), rate / 1e9, "GFLOP/s");
          for (int post = 0; post <= g.post; post += std::max(1, g.post)) {
            Matmul mm(eng, g, ta, tb, post);
            const double r = flops / best_seconds([&] { mm.run(st, post); }, flops, t);
            best = std::max(best, r);
            bench_result(metric,
                         (std::string("matmul_") + layout_name(ta, tb) +
                          (post == 2 ? "_bias_relu"
                           : post    ? "_bias"
                                     : ""))
                             .c_str(),
                         r / 1e9, "GFLOP/s");
          }
        }
        floor_best += flops / best;
        floor_libtc += flops / libtc_rate;
      }
      snprintf(metric, sizeof metric, "mlp_floor_gemm_b%lld_t%d", (long long)n, t);
      bench_result(metric, "bound", floor_best * 1e6, "us");
      snprintf(metric, sizeof metric, "mlp_floor_libtc_gemm_b%lld_t%d", (long long)n, t);
      bench_result(metric, "bound", floor_libtc * 1e6, "us");
    }
  }
  dnnl_stream_destroy(st);
  dnnl_engine_destroy(eng);
  return 0;
}
