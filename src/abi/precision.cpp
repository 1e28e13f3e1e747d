// tc_set_matmul_precision / tc_get_matmul_precision: torch's
// set_float32_matmul_precision; the setting is the core's (core/matmul_precision.h).
#include "abi/api.h"
#include "core/matmul_precision.h"

using namespace tc;

TC_API int32_t tc_set_matmul_precision(int32_t precision) {
  return api(__func__, [&] {
    TC_CHECK(precision == TC_MATMUL_PRECISION_HIGHEST || precision == TC_MATMUL_PRECISION_HIGH ||
                 precision == TC_MATMUL_PRECISION_MEDIUM,
             TC_ERR_INVALID_ARGUMENT,
             "precision must be TC_MATMUL_PRECISION_HIGHEST (0), _HIGH (1) or _MEDIUM (2) but is ",
             precision);
    set_matmul_precision(precision);
  });
}

TC_API int32_t tc_get_matmul_precision(int32_t* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = matmul_precision();
  });
}
