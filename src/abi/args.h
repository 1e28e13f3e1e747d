// Argument readers several shim files share: an extensible options struct
// (size first) and a list of tensor handles. Included only by the shims that
// take such arguments, so changing them rebuilds those alone.
#pragma once
#include <string>
#include <vector>

#include "abi/api.h"

namespace tc::abi {

// *o after checking it is there and its size field covers the struct this
// build knows (callers set size = sizeof the struct).
template <typename Opts>
const Opts& options_arg(const Opts* o, const char* arg) {
  in_ptr(o, arg);
  TC_CHECK(o->size >= sizeof(Opts), TC_ERR_INVALID_ARGUMENT, arg, "->size is ", o->size,
           " but must be at least ", sizeof(Opts), " (set it to sizeof the struct)");
  return *o;
}

// The tensors of handles[0..count): count > 0, each handle valid.
inline std::vector<Tensor> tensor_list(const tc_tensor* handles, int64_t count, const char* arg = "tensors",
                                       const char* count_arg = "count") {
  TC_CHECK(count > 0, TC_ERR_INVALID_ARGUMENT, count_arg, " must be positive but is ", count);
  in_ptr(handles, arg);
  const std::string each = str(arg, "[i]");
  std::vector<Tensor> v;
  v.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i) v.push_back(get_tensor(handles[i], each.c_str()));
  return v;
}

}  // namespace tc::abi
