#include "abi/callbacks.h"

namespace tc {

std::shared_ptr<CallbackContext> make_callback_context(void* context, tc_deleter release) {
  try {
    return std::make_shared<CallbackContext>(context, release);
  } catch (...) {
    if (release) release(nullptr, context);
    throw;
  }
}

LentHandles::~LentHandles() {
  for (uint64_t h : handles_) {
    try {
      handle_remove(h, HandleKind::tensor, "lent");
    } catch (...) {  // the callback freed it, or tc_shutdown did
    }
  }
}

tc_tensor LentHandles::lend(const Tensor& t) {
  handles_.reserve(handles_.size() + 1);  // so that push_back cannot fail after the insert
  tc_tensor h = new_handle(t);
  handles_.push_back(reinterpret_cast<uint64_t>(h));
  return h;
}

WrittenHandles::~WrittenHandles() {
  for (int64_t i = 0; i < n_; ++i) {
    if (!slots_[i]) continue;
    try {
      handle_remove(reinterpret_cast<uint64_t>(slots_[i]), HandleKind::tensor, "written");
    } catch (...) {  // not a handle, or written twice: nothing of libtc's to free
    }
  }
}

Tensor WrittenHandles::take(int64_t i, const std::string& what) {
  if (!slots_[i]) return nullptr;
  return get_tensor(slots_[i], what.c_str());
}

void run_callback(const std::string& what, const std::function<int32_t()>& call) {
  const uint64_t serial = last_error_serial();
  int32_t rc = TC_OK;
  try {
    rc = call();
  } catch (...) {
    fail(TC_ERR_CALLBACK, str(what, " threw a C++ exception (callbacks must return a status instead)"));
  }
  TC_CHECK(is_initialized(), TC_ERR_NOT_INITIALIZED, "libtc was shut down (tc_shutdown) inside ", what);
  if (rc == TC_OK) return;
  const int32_t code = rc > TC_OK && rc < TC_STATUS_COUNT ? rc : TC_ERR_CALLBACK;
  const char* name = status_name(rc);
  const std::string message =
      last_error_serial() != serial ? last_error_message() : std::string("no message");
  fail(code, str(what, " failed with ", name ? name : std::to_string(rc).c_str(), ": ", message));
}

}  // namespace tc
