// Status names and the per-thread last error of the ABI layer (tc_last_error);
// the exception type and TC_CHECK are the core's (core/error.h).
#pragma once
#include <cstdint>
#include <string>

#include "core/error.h"
#include "tc.h"

namespace tc {

// The stable name of a code, or nullptr for an unknown one.
const char* status_name(int32_t code) noexcept;

// The calling thread's last failure.
void set_last_error(int32_t code, const char* function, const char* message) noexcept;
// Without the "function: " prefix (tc_set_last_error: a callback's own words).
void set_last_error_raw(int32_t code, const char* message) noexcept;
const std::string& last_error_message() noexcept;
int32_t last_error_code() noexcept;
// Counts this thread's failures, so code that runs a caller's callback can
// tell whether the callback (or a libtc call inside it) left a message.
uint64_t last_error_serial() noexcept;

}  // namespace tc
