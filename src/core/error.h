// The exception type the core throws, and TC_CHECK. The core reports every
// failure by throwing tc::Error with one of tc.h's status codes (here from
// the generated tc_constants.h: the core never includes tc.h); the ABI layer
// (abi/api.h) catches everything and turns it into a status code + message.
#pragma once
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <utility>

#include "tc_constants.h"

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

}  // namespace tc

// TC_CHECK(cond, TC_ERR_SHAPE, "a has shape ", a, " but b has ", b);
#define TC_CHECK(cond, code, ...)                            \
  do {                                                       \
    if (!(cond)) ::tc::fail((code), ::tc::str(__VA_ARGS__)); \
  } while (0)
