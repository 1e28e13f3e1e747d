#include "abi/status.h"

namespace tc {

const char* status_name(int32_t code) noexcept {
  static const char* const names[TC_STATUS_COUNT] = {"TC_OK",
                                                     "TC_ERR_INVALID_ARGUMENT",
                                                     "TC_ERR_INVALID_HANDLE",
                                                     "TC_ERR_NOT_INITIALIZED",
                                                     "TC_ERR_SHAPE",
                                                     "TC_ERR_DTYPE",
                                                     "TC_ERR_INDEX",
                                                     "TC_ERR_OUT_OF_MEMORY",
                                                     "TC_ERR_DEVICE",
                                                     "TC_ERR_NOT_COMPILED",
                                                     "TC_ERR_UNAVAILABLE",
                                                     "TC_ERR_NOT_IMPLEMENTED",
                                                     "TC_ERR_AUTOGRAD",
                                                     "TC_ERR_IO",
                                                     "TC_ERR_INTERNAL",
                                                     "TC_ERR_CALLBACK",
                                                     "TC_ERR_TIMEOUT"};
  if (code < 0 || code >= TC_STATUS_COUNT) return nullptr;
  return names[code];
}

namespace {
struct LastError {
  int32_t code = TC_OK;
  std::string message;
  uint64_t serial = 0;
};
LastError& last_error() noexcept {
  thread_local LastError e;
  return e;
}
}  // namespace

void set_last_error(int32_t code, const char* function, const char* message) noexcept {
  LastError& e = last_error();
  e.code = code;
  ++e.serial;
  try {
    e.message.assign(function);
    e.message.append(": ");
    e.message.append(message);
  } catch (...) {
    // Out of memory while recording the message: keep the code, drop text.
    e.message.clear();
  }
}

void set_last_error_raw(int32_t code, const char* message) noexcept {
  LastError& e = last_error();
  e.code = code;
  ++e.serial;
  try {
    e.message.assign(message ? message : "");
  } catch (...) {
    e.message.clear();
  }
}

uint64_t last_error_serial() noexcept { return last_error().serial; }

const std::string& last_error_message() noexcept { return last_error().message; }
int32_t last_error_code() noexcept { return last_error().code; }

}  // namespace tc
