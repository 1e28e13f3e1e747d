/* A CUDA module of another (future) module ABI version: it writes only the
 * stable prefix of the table (src/backend/cuda_module_api.h) and refuses. */
#include <stdint.h>
#include <stdio.h>

typedef struct {
  uint32_t size;
  uint32_t abi_version;
  char message[512];
} module_api_prefix;

__attribute__((visibility("default"))) int32_t tc_cuda_module_init(uint32_t abi_version, const void* host,
                                                                   module_api_prefix* out);
int32_t tc_cuda_module_init(uint32_t abi_version, const void* host, module_api_prefix* out) {
  (void)host;
  out->abi_version = 999;
  snprintf(out->message, sizeof out->message, "this module serves ABI 999 only, not %u",
           (unsigned)abi_version);
  return 10; /* TC_ERR_UNAVAILABLE */
}
