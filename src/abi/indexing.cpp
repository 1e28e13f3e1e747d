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

int32_t tc_nonzero(tc_tensor a, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::nonzero(get_tensor(a, "a")));
  });
}

int32_t tc_take(tc_tensor a, tc_tensor index, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::take(get_tensor(a, "a"), get_tensor(index, "index")));
  });
}

int32_t tc_masked_select(tc_tensor a, tc_tensor mask, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::masked_select(get_tensor(a, "a"), get_tensor(mask, "mask")));
  });
}

int32_t tc_scatter(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor src, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(
        tc::ops::scatter(get_tensor(a, "a"), dim, get_tensor(index, "index"), get_tensor(src, "src")));
  });
}

int32_t tc_scatter_value(tc_tensor a, int64_t dim, tc_tensor index, double value, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::scatter_value(get_tensor(a, "a"), dim, get_tensor(index, "index"), value));
  });
}

int32_t tc_scatter_add(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor src, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(
        tc::ops::scatter_add(get_tensor(a, "a"), dim, get_tensor(index, "index"), get_tensor(src, "src")));
  });
}

int32_t tc_scatter_reduce(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor src, int32_t reduce,
                          int32_t include_self, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::scatter_reduce(get_tensor(a, "a"), dim, get_tensor(index, "index"),
                                              get_tensor(src, "src"), reduce, include_self != 0));
  });
}

int32_t tc_index_add(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor source, double alpha,
                     tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::index_add(get_tensor(a, "a"), dim, get_tensor(index, "index"),
                                         get_tensor(source, "source"), alpha));
  });
}

int32_t tc_index_copy(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor source, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::index_copy(get_tensor(a, "a"), dim, get_tensor(index, "index"),
                                          get_tensor(source, "source")));
  });
}

int32_t tc_index_fill(tc_tensor a, int64_t dim, tc_tensor index, double value, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_handle(tc::ops::index_fill(get_tensor(a, "a"), dim, get_tensor(index, "index"), value));
  });
}

}  // extern "C"
