#define _POSIX_C_SOURCE 199309L
/* Core costs through the C ABI: ns per checked-handle call (tc_tensor_numel:
 * one handle lookup, nothing else), ns per create+free of a 1-element
 * tensor, and ns per tc_init+tc_shutdown of an already-initialized library
 * (the reference-counted fast path). Prints RESULT lines for bench/run.sh. */
#include <stdio.h>
#include <time.h>

#include "tc.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(void) {
  if (tc_init(NULL) != TC_OK) return 1;
  const int64_t shape[1] = {1};
  tc_tensor t = NULL;
  if (tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &t) != TC_OK) return 1;
  const int iters = 2000000;
  int64_t n = 0, acc = 0;
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = now_ns();
    for (int i = 0; i < iters; ++i) {
      tc_tensor_numel(t, &n);
      acc += n;
    }
    const double per = (now_ns() - t0) / iters;
    if (per < best) best = per;
  }
  printf("RESULT checked_handle_call libtc %.1f ns\n", best);
  best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = now_ns();
    for (int i = 0; i < iters / 10; ++i) {
      tc_tensor u = NULL;
      tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &u);
      tc_tensor_free(u);
    }
    const double per = (now_ns() - t0) / (iters / 10);
    if (per < best) best = per;
  }
  printf("RESULT create_free_1_element libtc %.1f ns\n", best);
  const double t0 = now_ns();
  for (int i = 0; i < iters / 10; ++i) {
    tc_init(NULL);
    tc_shutdown();
  }
  printf("RESULT init_shutdown_refcounted libtc %.1f ns\n", (now_ns() - t0) / (iters / 10));
  tc_tensor_free(t);
  tc_shutdown();
  return acc == (int64_t)iters * 5 ? 0 : 2;
}
