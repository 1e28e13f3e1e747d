// tc.h's anomaly mode: the flag and the forward-trace hook of
// autograd/anomaly.h (torch.autograd.detect_anomaly).
#include "autograd/anomaly.h"

#include <cstdint>

#include "abi/api.h"

using namespace tc;

TC_API int32_t tc_set_anomaly_mode(int32_t enabled, int32_t check_nan, tc_anomaly_trace_hook trace_hook,
                                   void* context) {
  return api(__func__, [&] {
    TC_CHECK(enabled == 0 || enabled == 1, TC_ERR_INVALID_ARGUMENT, "enabled must be 0 or 1 but is ",
             enabled);
    TC_CHECK(check_nan == 0 || check_nan == 1, TC_ERR_INVALID_ARGUMENT, "check_nan must be 0 or 1 but is ",
             check_nan);
    autograd::set_anomaly_mode(enabled != 0, check_nan != 0, trace_hook, context);
  });
}

TC_API int32_t tc_anomaly_mode(int32_t* enabled, int32_t* check_nan) {
  return api(__func__, [&] {
    out_ptr(enabled, "enabled");
    out_ptr(check_nan, "check_nan");
    *enabled = autograd::anomaly_enabled() ? 1 : 0;
    *check_nan = autograd::anomaly_check_nan() ? 1 : 0;
  });
}
