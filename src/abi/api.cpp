#include "abi/api.h"

#include <cstring>
#include <vector>

namespace tc {

int32_t translate_current_exception(const char* function) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    set_last_error(e.code(), function, e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    set_last_error(TC_ERR_OUT_OF_MEMORY, function, "out of memory (std::bad_alloc)");
    return TC_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(TC_ERR_INTERNAL, function, e.what());
    return TC_ERR_INTERNAL;
  } catch (...) {
    set_last_error(TC_ERR_INTERNAL, function, "unknown C++ exception");
    return TC_ERR_INTERNAL;
  }
}

Dims shape_arg(const int64_t* shape, int64_t ndim, const char* arg) {
  TC_CHECK(ndim >= 0 && ndim <= TC_MAX_DIMS, TC_ERR_INVALID_ARGUMENT, arg, ": ndim must be in [0, ",
           TC_MAX_DIMS, "] but is ", ndim);
  TC_CHECK(ndim == 0 || shape != nullptr, TC_ERR_INVALID_ARGUMENT, arg, " must not be NULL when ndim is ",
           ndim);
  Dims d(shape, ndim);
  for (int64_t i = 0; i < ndim; ++i) {
    TC_CHECK(d[i] >= 0, TC_ERR_INVALID_ARGUMENT, arg, ": size ", d[i], " at dim ", i, " is negative (shape ",
             d, ")");
  }
  checked_numel(d, arg);
  return d;
}

Dims dims_arg(const int64_t* dims, int64_t count, const char* arg) {
  TC_CHECK(count >= 0 && count <= TC_MAX_DIMS, TC_ERR_INVALID_ARGUMENT, arg, ": count must be in [0, ",
           TC_MAX_DIMS, "] but is ", count);
  TC_CHECK(count == 0 || dims != nullptr, TC_ERR_INVALID_ARGUMENT, arg,
           " must not be NULL when its count is ", count);
  return Dims(dims, count);
}

Tensor get_tensor(tc_tensor h, const char* arg) {
  Tensor t = handle_get_tensor(reinterpret_cast<uint64_t>(h), arg);
  if (is_complex(t->dtype)) check_complex_allowed(t->dtype, arg);
  return t;
}

DType dtype_arg(int32_t code, const char* arg) {
  const DType d = tc::to_dtype(code, arg);
  if (is_complex(d)) check_complex_allowed(d, arg);
  return d;
}

Tensor get_optional_tensor(tc_tensor h, const char* arg) { return h ? get_tensor(h, arg) : Tensor(); }

tc_tensor new_handle(Tensor t) {
  TC_CHECK(t != nullptr, TC_ERR_INTERNAL, "an op returned no tensor");
  return reinterpret_cast<tc_tensor>(handle_insert(HandleKind::tensor, std::move(t)));
}

void new_handles(const std::vector<Tensor>& ts, tc_tensor* outs) {
  std::vector<uint64_t> made;
  made.reserve(ts.size());
  try {
    for (const Tensor& t : ts) made.push_back(reinterpret_cast<uint64_t>(new_handle(t)));
  } catch (...) {
    for (uint64_t h : made) handle_remove(h, HandleKind::tensor, "rollback");
    throw;
  }
  for (size_t i = 0; i < made.size(); ++i) outs[i] = reinterpret_cast<tc_tensor>(made[i]);
}

void copy_out(const std::string& s, char* buf, int64_t cap, int64_t* needed) {
  TC_CHECK(cap >= 0, TC_ERR_INVALID_ARGUMENT, "cap must be >= 0 but is ", cap);
  TC_CHECK(cap == 0 || buf != nullptr, TC_ERR_INVALID_ARGUMENT, "buf must not be NULL when cap is ", cap);
  const int64_t full = int64_t(s.size()) + 1;
  if (needed) *needed = full;
  if (cap > 0) {
    const int64_t n = std::min(cap - 1, int64_t(s.size()));
    std::memcpy(buf, s.data(), size_t(n));
    buf[n] = '\0';
  }
}

}  // namespace tc
