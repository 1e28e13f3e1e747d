/* libtc.so, the product, carries no test hooks: allocation-failure injection
 * (the flag fail_alloc_at, the environment variable TC_FAIL_ALLOC_AT) lives
 * only in the test build (tc_static, which tests/gtest's OOM walk links).
 * With TC_FAIL_ALLOC_AT=1 set, tc_init and allocations still succeed; the
 * flag is unknown to tc_get_flag/tc_set_flag and absent from the enumeration. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc.h"

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(void) {
  CHECK(setenv("TC_FAIL_ALLOC_AT", "1", 1) == 0);
  CHECK(tc_init(NULL) == TC_OK);
  const int64_t shape[1] = {4096};
  tc_tensor t = NULL;
  CHECK(tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &t) == TC_OK);
  CHECK(tc_tensor_free(t) == TC_OK);

  int64_t n = 0;
  CHECK(tc_flag_count(&n) == TC_OK && n > 0);
  for (int64_t i = 0; i < n; ++i) {
    const char* name = NULL;
    int32_t settable = 0;
    CHECK(tc_flag_info(i, &name, &settable) == TC_OK);
    CHECK(strcmp(name, "fail_alloc_at") != 0);
  }
  int64_t v = 7;
  CHECK(tc_get_flag("fail_alloc_at", &v) == TC_ERR_INVALID_ARGUMENT && v == 7);
  CHECK(tc_set_flag("fail_alloc_at", 1) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &t) == TC_OK);
  CHECK(tc_tensor_free(t) == TC_OK);
  CHECK(tc_shutdown() == TC_OK);
  printf("libtc.so has no test hooks\n");
  return 0;
}
