#define _POSIX_C_SOURCE 200809L /* strdup */
/* The cuda stage against a given CUDA module (TC_CUDA_MODULE, set by ctest):
 * tc_init always succeeds, and when the module is missing, not a library,
 * lacks the entry point or is of another ABI version, CUDA is unavailable
 * with the path and the reason in tc_init_report, tc_config and the error.
 *   test_cuda_module FRAGMENT...   every fragment must appear in the reason
 *   test_cuda_module --real        the module built beside libtc.so: usable
 *                                  with a GPU, else "loaded" and the probe's
 *                                  reason (no driver) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc.h"

static int failures = 0;

#define CHECK(cond)                                                                                  \
  do {                                                                                               \
    if (!(cond)) {                                                                                   \
      const char* msg_ = "";                                                                         \
      tc_last_error(&msg_);                                                                          \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #cond, msg_); \
      ++failures;                                                                                    \
    }                                                                                                \
  } while (0)

typedef int32_t (*text_fn)(char*, int64_t, int64_t*);

static char* text(text_fn f) {
  int64_t needed = 0;
  if (f(NULL, 0, &needed) != TC_OK || needed <= 0) return NULL;
  char* buf = malloc((size_t)needed);
  if (buf && f(buf, needed, &needed) != TC_OK) {
    free(buf);
    return NULL;
  }
  return buf;
}

static int64_t flag(const char* name) {
  int64_t v = -1;
  CHECK(tc_get_flag(name, &v) == TC_OK);
  return v;
}

static void check_has(const char* what, const char* haystack, const char* needle) {
  if (!haystack || !strstr(haystack, needle)) {
    fprintf(stderr, "%s lacks \"%s\":\n%s\n", what, needle, haystack ? haystack : "(null)");
    ++failures;
  }
}

int main(int argc, char** argv) {
  const int real = argc == 2 && strcmp(argv[1], "--real") == 0;
  const char* module = getenv("TC_CUDA_MODULE");
  CHECK(tc_init(NULL) == TC_OK); /* never fails for CUDA's sake */
  CHECK(flag("cuda_initialized") == 0);
  CHECK(flag("has_cudnn") == 0); /* not loaded yet */
  char* report = text(tc_init_report);
  check_has("the init report before use", report, "lazy");
  free(report);

  const int32_t rc = tc_backend_init("cuda");
  const char* err = "";
  tc_last_error(&err);
  char* last = strdup(err ? err : "");
  report = text(tc_init_report);
  char* config = text(tc_config);
  if (real && rc == TC_OK) {
    CHECK(flag("cuda_available") == 1 && flag("cuda_initialized") == 1);
    check_has("tc_config", config, "loaded (module ABI");
  } else {
    CHECK(rc == TC_ERR_UNAVAILABLE);
    CHECK(flag("cuda_initialized") == 0);
    /* A second use fails the same way, with the same reason. */
    int64_t shape[1] = {2};
    tc_tensor t = NULL;
    CHECK(tc_zeros(shape, 1, TC_FLOAT32, TC_DEVICE(TC_DEVICE_CUDA, 0), &t) == TC_ERR_UNAVAILABLE &&
          t == NULL);
    if (module) {
      check_has("the error", last, module);
      check_has("the init report", report, module);
      check_has("tc_config", config, module);
    }
    for (int i = 1; i < argc; ++i) {
      const char* fragment = real ? "libtc_cuda.so" : argv[i];
      check_has("the error", last, fragment);
      check_has("the init report", report, fragment);
      check_has("tc_config", config, fragment);
    }
    if (real) { /* the module itself loads; the stage then finds no GPU */
      check_has("tc_config", config, "loaded (module ABI");
      check_has("the init report", report, "the CUDA module");
      CHECK(flag("cuda_available") == 0);
    }
  }
  /* CPU work is unaffected. */
  int64_t shape[1] = {3};
  tc_tensor t = NULL;
  CHECK(tc_ones(shape, 1, TC_FLOAT32, TC_CPU, &t) == TC_OK);
  CHECK(tc_tensor_free(t) == TC_OK);
  free(last);
  free(report);
  free(config);
  CHECK(tc_shutdown() == TC_OK);
  if (failures) return 1;
  printf("ok\n");
  return 0;
}
