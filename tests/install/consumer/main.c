/* A downstream C program built against an installed libtc (tests/install/):
 * it includes <tc.h> from the prefix, links libtc.so from the prefix and
 * checks one computation and the library's version. Exit 0 on success. */
#include <stdio.h>
#include <string.h>
#include <tc.h>

#define CHECK(call)                                             \
  do {                                                          \
    if ((call) != TC_OK) {                                      \
      const char* why = "";                                     \
      tc_last_error(&why);                                      \
      fprintf(stderr, "consumer: %s failed: %s\n", #call, why); \
      return 1;                                                 \
    }                                                           \
  } while (0)

int main(void) {
  int32_t abi = -1, number = -1;
  const char* text = NULL;
  CHECK(tc_abi_version(&abi));
  CHECK(tc_version(&number, &text));
  if (abi != TC_ABI_VERSION) {
    fprintf(stderr, "consumer: header ABI %d, library ABI %d\n", TC_ABI_VERSION, abi);
    return 1;
  }
  CHECK(tc_init(NULL));
  const float a[3] = {1.0f, 2.0f, 3.0f}, b[3] = {10.0f, 20.0f, 30.0f};
  const int64_t shape[1] = {3};
  tc_tensor x = NULL, y = NULL, z = NULL;
  CHECK(tc_from_data(a, sizeof a, shape, 1, TC_FLOAT32, &x));
  CHECK(tc_from_data(b, sizeof b, shape, 1, TC_FLOAT32, &y));
  CHECK(tc_add(x, y, &z));
  float out[3] = {0};
  CHECK(tc_tensor_copy_to(z, out, sizeof out));
  const int ok = out[0] == 11.0f && out[1] == 22.0f && out[2] == 33.0f;
  CHECK(tc_tensor_free(z));
  CHECK(tc_tensor_free(y));
  CHECK(tc_tensor_free(x));
  CHECK(tc_shutdown());
  if (!ok) {
    fprintf(stderr, "consumer: wrong sum %g %g %g\n", out[0], out[1], out[2]);
    return 1;
  }
  printf("consumer: libtc %s (ABI %d): 1+10, 2+20, 3+30 = %g %g %g\n", text, abi, out[0], out[1], out[2]);
  return 0;
}
