// Running a caller's C callback from inside a tc_* call (tc.h's rules for
// callbacks): handles lent to it are freed afterwards whatever it did with
// them; handles it writes become libtc's; its failure becomes an Error with
// its own message; a tc_shutdown inside it fails the call that ran it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "abi/api.h"

namespace tc {

// The caller's context pointer and its release callback, called once when
// the last closure holding it dies.
struct CallbackContext {
  void* context = nullptr;
  tc_deleter release = nullptr;
  CallbackContext(void* c, tc_deleter r) : context(c), release(r) {}
  ~CallbackContext() {
    if (release) release(nullptr, context);
  }
  CallbackContext(const CallbackContext&) = delete;
  CallbackContext& operator=(const CallbackContext&) = delete;
};

// A CallbackContext made inside an api() body: if making it fails (out of
// memory), release is called at once, as tc.h promises, before the throw.
std::shared_ptr<CallbackContext> make_callback_context(void* context, tc_deleter release);

// Handles lent to a callback: freed when this dies (a callback that freed
// one already, or a tc_shutdown inside it, leaves nothing to free).
class LentHandles {
 public:
  LentHandles() = default;
  ~LentHandles();
  tc_tensor lend(const Tensor& t);
  LentHandles(const LentHandles&) = delete;
  LentHandles& operator=(const LentHandles&) = delete;

 private:
  std::vector<uint64_t> handles_;
};

// Handles a callback wrote into an array of n slots (initialized NULL): the
// tensors are taken with take(); every written handle is freed when this dies.
class WrittenHandles {
 public:
  WrittenHandles(tc_tensor* slots, int64_t n) : slots_(slots), n_(n) {}
  ~WrittenHandles();
  // The tensor behind slot i (null for a NULL slot); an invalid handle throws
  // TC_ERR_INVALID_HANDLE naming what.
  Tensor take(int64_t i, const std::string& what);
  WrittenHandles(const WrittenHandles&) = delete;
  WrittenHandles& operator=(const WrittenHandles&) = delete;

 private:
  tc_tensor* slots_;
  int64_t n_;
};

// Calls a callback returning a status; throws its failure (see tc.h).
void run_callback(const std::string& what, const std::function<int32_t()>& call);

}  // namespace tc
