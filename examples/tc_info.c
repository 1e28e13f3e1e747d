/* tc_info: initializes libtc and prints what `import torch` would have set
 * up: the init report, the build/runtime config (flags) and a small tensor. */
#include <stdio.h>
#include <stdlib.h>

#include "tc.h"

static void check(int32_t status, const char* what) {
  if (status != TC_OK) {
    const char* name = "?";
    const char* message = "";
    tc_status_name(status, &name);
    tc_last_error(&message);
    fprintf(stderr, "%s failed: %s: %s\n", what, name, message);
    exit(1);
  }
}

/* Prints a copy-out string (the size-query pattern of tc.h). */
typedef int32_t (*text_fn)(char*, int64_t, int64_t*);
static void print_text(text_fn fn, const char* what) {
  int64_t needed = 0;
  check(fn(NULL, 0, &needed), what);
  char* buf = malloc((size_t)needed);
  if (!buf) exit(1);
  check(fn(buf, needed, &needed), what);
  fputs(buf, stdout);
  free(buf);
}

int main(void) {
  check(tc_init(NULL), "tc_init");
  print_text(tc_init_report, "tc_init_report");
  print_text(tc_config, "tc_config");

  tc_tensor t = NULL;
  check(tc_arange(0, 6, 1, TC_FLOAT32, TC_CPU, &t), "tc_arange");
  tc_tensor m = NULL;
  const int64_t shape[2] = {2, 3};
  check(tc_reshape(t, shape, 2, &m), "tc_reshape");
  int64_t needed = 0;
  check(tc_tensor_to_string(m, NULL, 0, &needed), "tc_tensor_to_string");
  char* text = malloc((size_t)needed);
  if (!text) return 1;
  check(tc_tensor_to_string(m, text, needed, &needed), "tc_tensor_to_string");
  printf("a small tensor:\n%s\n", text);
  free(text);
  check(tc_tensor_free(m), "tc_tensor_free");
  check(tc_tensor_free(t), "tc_tensor_free");
  check(tc_shutdown(), "tc_shutdown");
  return 0;
}
