/* Shared by the bench_*.c programs: a monotonic clock, status checks, and the
 * one output format bench/run.sh reads: "RESULT <metric> <impl> <value> <unit>". */
#ifndef TC_BENCH_UTIL_H
#define TC_BENCH_UTIL_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tc.h"

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void bench_check(int32_t st, const char* what) {
  if (st == TC_OK) return;
  const char* msg = "";
  tc_last_error(&msg);
  fprintf(stderr, "%s failed (%d): %s\n", what, st, msg);
  exit(1);
}
#define CK(call) bench_check((call), #call)

static inline void bench_result(const char* metric, const char* impl, double value, const char* unit) {
  printf("RESULT %s %s %.6g %s\n", metric, impl, value, unit);
  fflush(stdout);
}

static inline void bench_init_threads(int threads) {
  tc_init_options o;
  memset(&o, 0, sizeof o); /* not {0}: C++ benches warn on missing initializers */
  o.size = sizeof o;
  o.use_seed = 1;
  o.seed = 1;
  o.num_threads = threads;
  CK(tc_init(&o));
}
#endif
