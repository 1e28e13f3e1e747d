// tc_* shims of the reductions, scans, sort and search ops whose rows in
// ops/ops.toml do not declare their args (ops/reduce_more.cpp, ops/scan.cpp,
// ops/sort.cpp): check handles and arguments, call the core, hand out every
// result or none. The rows with args (prod, all, amax, norm, cumprod, ...)
// have generated shims in ops_generated.cpp.
#include "abi/op_shims.h"
#include "ops/ops.h"

using namespace tc;

namespace {

using abi::op1;

// Ops with two results: both handles or neither.
template <typename F>
int32_t op2(const char* fn, tc_tensor a, tc_tensor* out0, const char* name0, tc_tensor* out1,
            const char* name1, F&& f) {
  return api(fn, [&] {
    out_ptr(out0, name0);
    out_ptr(out1, name1);
    auto [r0, r1] = f(get_tensor(a, "a"));
    tc_tensor hs[2];
    new_handles({r0, r1}, hs);
    *out0 = hs[0];
    *out1 = hs[1];
  });
}

}  // namespace

TC_API int32_t tc_var_mean(tc_tensor a, const int64_t* dims, int64_t ndims, int64_t correction,
                           int32_t keepdim, tc_tensor* var, tc_tensor* mean) {
  return op2(__func__, a, var, "var", mean, "mean", [&](const Tensor& x) {
    return ops::var_mean(x, dims_arg(dims, ndims, "dims"), correction, keepdim != 0);
  });
}
TC_API int32_t tc_std_mean(tc_tensor a, const int64_t* dims, int64_t ndims, int64_t correction,
                           int32_t keepdim, tc_tensor* std, tc_tensor* mean) {
  return op2(__func__, a, std, "std", mean, "mean", [&](const Tensor& x) {
    return ops::std_mean(x, dims_arg(dims, ndims, "dims"), correction, keepdim != 0);
  });
}
TC_API int32_t tc_median(tc_tensor a, tc_tensor* out) { return op1(__func__, a, out, ops::median); }
TC_API int32_t tc_median_dim(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values,
                             tc_tensor* indices) {
  return op2(__func__, a, values, "values", indices, "indices",
             [&](const Tensor& x) { return ops::median_dim(x, dim, keepdim != 0); });
}
TC_API int32_t tc_kthvalue(tc_tensor a, int64_t k, int64_t dim, int32_t keepdim, tc_tensor* values,
                           tc_tensor* indices) {
  return op2(__func__, a, values, "values", indices, "indices",
             [&](const Tensor& x) { return ops::kthvalue(x, k, dim, keepdim != 0); });
}
TC_API int32_t tc_mode(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values, tc_tensor* indices) {
  return op2(__func__, a, values, "values", indices, "indices",
             [&](const Tensor& x) { return ops::mode(x, dim, keepdim != 0); });
}
TC_API int32_t tc_cummax(tc_tensor a, int64_t dim, tc_tensor* values, tc_tensor* indices) {
  return op2(__func__, a, values, "values", indices, "indices",
             [&](const Tensor& x) { return ops::cummax(x, dim); });
}
TC_API int32_t tc_cummin(tc_tensor a, int64_t dim, tc_tensor* values, tc_tensor* indices) {
  return op2(__func__, a, values, "values", indices, "indices",
             [&](const Tensor& x) { return ops::cummin(x, dim); });
}
TC_API int32_t tc_sort(tc_tensor a, int64_t dim, int32_t descending, tc_tensor* values, tc_tensor* indices) {
  return op2(__func__, a, values, "values", indices, "indices",
             [&](const Tensor& x) { return ops::sort(x, dim, descending != 0); });
}
TC_API int32_t tc_argsort(tc_tensor a, int64_t dim, int32_t descending, tc_tensor* out) {
  return op1(__func__, a, out, [&](const Tensor& x) { return ops::argsort(x, dim, descending != 0); });
}
TC_API int32_t tc_unique(tc_tensor a, tc_tensor* values, tc_tensor* inverse, tc_tensor* counts) {
  return api(__func__, [&] {
    out_ptr(values, "values");
    out_ptr(inverse, "inverse");
    out_ptr(counts, "counts");
    auto [v, i, c] = ops::unique(get_tensor(a, "a"));
    tc_tensor hs[3];
    new_handles({v, i, c}, hs);
    *values = hs[0];
    *inverse = hs[1];
    *counts = hs[2];
  });
}
TC_API int32_t tc_searchsorted(tc_tensor sorted_sequence, tc_tensor values, int32_t right, int32_t out_int32,
                               tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::searchsorted(get_tensor(sorted_sequence, "sorted_sequence"), get_tensor(values, "values"),
                                 right != 0, out_int32 != 0);
    *out = new_handle(std::move(r));
  });
}
