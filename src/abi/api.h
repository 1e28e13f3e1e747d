// The ABI layer's toolkit: every tc_* function is a few lines built from
// these. api() runs the body under the one guard that turns every C++
// exception into a status code and the thread's last-error message, after
// checking that libtc is initialized.
#pragma once
#include <new>

#include "abi/handles.h"
#include "abi/status.h"
#include "core/init.h"
#include "core/tensor.h"

namespace tc {

namespace io {
class TensorDict;
}

int32_t translate_current_exception(const char* function) noexcept;

// The tc_* function running on this thread (api() sets it; null outside any):
// get_tensor and dtype_arg refuse complex tensors and dtypes in the
// functions that do not take them (src/abi/complex_gate.cpp).
inline const char*& current_api_function() noexcept {
  static thread_local const char* function = nullptr;
  return function;
}
class ApiFunctionScope {
 public:
  explicit ApiFunctionScope(const char* function) noexcept : prev_(current_api_function()) {
    current_api_function() = function;
  }
  ~ApiFunctionScope() { current_api_function() = prev_; }
  ApiFunctionScope(const ApiFunctionScope&) = delete;
  ApiFunctionScope& operator=(const ApiFunctionScope&) = delete;

 private:
  const char* prev_;
};
// TC_ERR_DTYPE unless the running tc_* function takes complex tensors (arg
// names the argument that is complex).
void check_complex_allowed(DType d, const char* arg);

// For the calls allowed before tc_init.
template <typename F>
int32_t api_noinit(const char* function, F&& body) noexcept {
  try {
    body();
    return TC_OK;
  } catch (...) {
    return translate_current_exception(function);
  }
}

template <typename F>
int32_t api(const char* function, F&& body) noexcept {
  const CallScope in_flight;
  const ApiFunctionScope named(function);
  try {
    if (!is_initialized()) {
      fail(TC_ERR_NOT_INITIALIZED, "libtc is not initialized: call tc_init first");
    }
    body();
    return TC_OK;
  } catch (...) {
    return translate_current_exception(function);
  }
}

// Argument checks with messages that name the argument.
template <typename T>
T* out_ptr(T* p, const char* arg) {
  TC_CHECK(p != nullptr, TC_ERR_INVALID_ARGUMENT, arg, " must not be NULL");
  return p;
}
template <typename T>
const T* in_ptr(const T* p, const char* arg) {
  TC_CHECK(p != nullptr, TC_ERR_INVALID_ARGUMENT, arg, " must not be NULL");
  return p;
}
// A shape from (pointer, ndim): 0 <= ndim <= TC_MAX_DIMS, sizes >= 0.
Dims shape_arg(const int64_t* shape, int64_t ndim, const char* arg);
// A list of dims from (pointer, count): 0 <= count <= TC_MAX_DIMS.
Dims dims_arg(const int64_t* dims, int64_t count, const char* arg);

Tensor get_tensor(tc_tensor h, const char* arg);
// A dtype code (to_dtype), complex ones only where the function takes them.
DType dtype_arg(int32_t code, const char* arg);
// NULL allowed: returns an empty Tensor.
Tensor get_optional_tensor(tc_tensor h, const char* arg);
tc_tensor new_handle(Tensor t);
// Writes handles for several tensors, all or none.
void new_handles(const std::vector<Tensor>& ts, tc_tensor* outs);

// Tensor dict handles (src/abi/io.cpp).
std::shared_ptr<io::TensorDict> get_dict(tc_tensor_dict h, const char* arg);
tc_tensor_dict new_dict_handle(std::shared_ptr<io::TensorDict> d);

// Copy-out of a string (the pattern of tc.h).
void copy_out(const std::string& s, char* buf, int64_t cap, int64_t* needed);

}  // namespace tc
