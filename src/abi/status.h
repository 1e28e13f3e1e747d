// Status codes, the exception type the core throws, and the per-thread last
// error. The core reports failures by throwing tc::Error; the ABI layer
// (api.h) catches everything and turns it into a status code + message.
#pragma once
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <utility>

#include "tc.h"

namespace tc {

class Error : public std::exception {
 public:
  Error(int32_t code, std::string message) : code_(code), message_(std::move(message)) {}
  int32_t code() const noexcept { return code_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  int32_t code_;
  std::string message_;
};

// Concatenates anything streamable: str("expected ", n, " dims").
template <typename... Args>
std::string str(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

[[noreturn]] inline void fail(int32_t code, const std::string& message) { throw Error(code, message); }

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

// TC_CHECK(cond, TC_ERR_SHAPE, "a has shape ", a, " but b has ", b);
#define TC_CHECK(cond, code, ...)                            \
  do {                                                       \
    if (!(cond)) ::tc::fail((code), ::tc::str(__VA_ARGS__)); \
  } while (0)
