// The tc_* functions of advanced indexing and the scatter family: check
// handles and arguments, call the core (ops/indexing.cpp, ops/scatter.cpp),
// hand out the results. Out-params are written last, only on success.
#include "abi/api.h"
#include "ops/ops.h"

using tc::api;
using tc::get_tensor;
using tc::new_handle;
using tc::out_ptr;
using tc::Tensor;

namespace {

// The index list: NULL entries are full slices (legal); any other entry must
// be a live tensor handle.
std::vector<Tensor> index_list(const tc_tensor* indices, int64_t count) {
  TC_CHECK(count >= 0 && count <= 2 * TC_MAX_DIMS, TC_ERR_INVALID_ARGUMENT, "count must be in [0, ",
           2 * TC_MAX_DIMS, "] but is ", count);
  TC_CHECK(count == 0 || indices != nullptr, TC_ERR_INVALID_ARGUMENT, "indices must not be NULL (count is ",
           count, ")");
  std::vector<Tensor> v;
  v.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i)
    v.push_back(indices[i] ? get_tensor(indices[i], "indices[i]") : Tensor());
  return v;
}

}  // namespace

extern "C" {

int32_t tc_index(tc_tensor a, const tc_tensor* indices, int64_t count, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::index(get_tensor(a, "a"), index_list(indices, count)));
  });
}

int32_t tc_index_put(tc_tensor a, const tc_tensor* indices, int64_t count, tc_tensor values,
                     int32_t accumulate, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::index_put(get_tensor(a, "a"), index_list(indices, count),
                                         get_tensor(values, "values"), accumulate != 0));
  });
}

int32_t tc_index_put_(tc_tensor self, const tc_tensor* indices, int64_t count, tc_tensor values,
                      int32_t accumulate) {
  return api(__func__, [&] {
    tc::ops::index_put_(get_tensor(self, "self"), index_list(indices, count), get_tensor(values, "values"),
                        accumulate != 0);
  });
}

}  // extern "C"
