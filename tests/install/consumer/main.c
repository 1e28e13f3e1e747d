/* A downstream C program built against an installed libtc (tests/install/):
 * it includes <tc.h> from the prefix, links libtc.so from the prefix and
 * checks one computation and the library's version. Exit 0 on success.
 *   consumer [--op-library PATH] [--mpi]
 * --op-library loads the installed examples' op library and runs its op;
 * --mpi makes a size-1 "mpi" process group (the MPI module, which libtc
 * loads from beside itself) and prints the module's path. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
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

/* Prints the path of every loaded object named libtc*.so (who loaded what). */
static int print_libtc_objects(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  if (info->dlpi_name && strstr(info->dlpi_name, "/libtc")) printf("consumer: loaded %s\n", info->dlpi_name);
  return 0;
}

static int run_op_library(const char* path, tc_tensor x) {
  tc_library lib = NULL;
  tc_tensor y = NULL;
  int64_t count = 0;
  const double alpha = 2.0;
  CHECK(tc_load_library(path, &lib));
  CHECK(tc_op_call_by_name("myops::scaled_square", &x, 1, &alpha, 1, &y, 1, &count));
  float out[3] = {0};
  CHECK(tc_tensor_copy_to(y, out, sizeof out));
  CHECK(tc_tensor_free(y));
  CHECK(tc_library_unload(lib));
  printf("consumer: myops::scaled_square(x, 2) = %g %g %g\n", out[0], out[1], out[2]);
  return out[0] == 2.0f && out[1] == 8.0f && out[2] == 18.0f ? 0 : 1;
}

static int run_mpi(void) {
  tc_process_group pg = NULL;
  int32_t size = 0;
  CHECK(tc_process_group_create("mpi", NULL, &pg));
  CHECK(tc_process_group_size(pg, &size));
  CHECK(tc_process_group_free(pg));
  printf("consumer: mpi process group of size %d\n", (int)size);
  return size == 1 ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* op_library = NULL;
  int mpi = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--op-library") == 0 && i + 1 < argc) {
      op_library = argv[++i];
    } else if (strcmp(argv[i], "--mpi") == 0) {
      mpi = 1;
    } else {
      fprintf(stderr, "usage: consumer [--op-library PATH] [--mpi]\n");
      return 2;
    }
  }
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
  int ok = out[0] == 11.0f && out[1] == 22.0f && out[2] == 33.0f;
  if (op_library && run_op_library(op_library, x) != 0) ok = 0;
  if (mpi && run_mpi() != 0) ok = 0;
  dl_iterate_phdr(print_libtc_objects, NULL);
  CHECK(tc_tensor_free(z));
  CHECK(tc_tensor_free(y));
  CHECK(tc_tensor_free(x));
  CHECK(tc_shutdown());
  if (!ok) {
    fprintf(stderr, "consumer: wrong result\n");
    return 1;
  }
  printf("consumer: libtc %s (ABI %d): 1+10, 2+20, 3+30 = %g %g %g\n", text, abi, out[0], out[1], out[2]);
  return 0;
}
