// tc_* functions of tc.h's ops section (elementwise, reductions, shape ops,
// in-place ops): check handles and arguments, call ops/*.cpp, hand out results
// only on success. The elementwise families' shims are generated from
// ops/ops.toml into ops_generated.cpp, with the custom rows that declare
// their args (sum, mean, var, ...); these are the other `custom` ops.
#include "ops/ops.h"

#include <cmath>

#include "abi/args.h"
#include "abi/op_shims.h"
#include "ops/frexp.h"

using namespace tc;

namespace {

using abi::op1;
using abi::tensor_list;  // several tensors in (cat, stack)

// Pieces out (split, chunk): all handles or none, and *count always.
void pieces_out(const std::vector<Tensor>& pieces, tc_tensor* outs, int64_t cap, int64_t* count) {
  out_ptr(count, "count");
  TC_CHECK(cap >= 0, TC_ERR_INVALID_ARGUMENT, "cap must be >= 0 but is ", cap);
  const int64_t n = int64_t(pieces.size());
  if (n > cap) {
    *count = n;
    fail(TC_ERR_INVALID_ARGUMENT, str("cap (", cap, ") is smaller than the number of pieces (", n, ")"));
  }
  TC_CHECK(n == 0 || outs != nullptr, TC_ERR_INVALID_ARGUMENT, "outs must not be NULL");
  new_handles(pieces, outs);
  *count = n;
}

}  // namespace

TC_API int32_t tc_where(tc_tensor cond, tc_tensor a, tc_tensor b, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::where(get_tensor(cond, "cond"), get_tensor(a, "a"), get_tensor(b, "b"));
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_clamp(tc_tensor a, double lo, double hi, tc_tensor* out) {
  return op1(__func__, a, out, [&](const Tensor& x) { return ops::clamp(x, lo, hi); });
}

TC_API int32_t tc_frexp(tc_tensor a, tc_tensor* mantissa, tc_tensor* exponent) {
  return api(__func__, [&] {
    out_ptr(mantissa, "mantissa");
    out_ptr(exponent, "exponent");
    auto [m, e] = ops::frexp(get_tensor(a, "a"));
    tc_tensor hs[2];
    new_handles({m, e}, hs);
    *mantissa = hs[0];
    *exponent = hs[1];
  });
}

TC_API int32_t tc_max(tc_tensor a, tc_tensor* out) {
  return op1(__func__, a, out, [](const Tensor& x) { return ops::max_all(x); });
}
TC_API int32_t tc_min(tc_tensor a, tc_tensor* out) {
  return op1(__func__, a, out, [](const Tensor& x) { return ops::min_all(x); });
}

namespace {
int32_t extreme_dim(const char* fn, bool is_max, tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values,
                    tc_tensor* indices) {
  return api(fn, [&] {
    out_ptr(values, "values");
    out_ptr(indices, "indices");
    const Tensor x = get_tensor(a, "a");
    auto [v, i] = is_max ? ops::max_dim(x, dim, keepdim != 0) : ops::min_dim(x, dim, keepdim != 0);
    tc_tensor hs[2];
    new_handles({v, i}, hs);
    *values = hs[0];
    *indices = hs[1];
  });
}
}  // namespace

TC_API int32_t tc_max_dim(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values, tc_tensor* indices) {
  return extreme_dim(__func__, true, a, dim, keepdim, values, indices);
}
TC_API int32_t tc_min_dim(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* values, tc_tensor* indices) {
  return extreme_dim(__func__, false, a, dim, keepdim, values, indices);
}
TC_API int32_t tc_argmax(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* out) {
  return op1(__func__, a, out, [&](const Tensor& x) { return ops::argmax(x, dim, keepdim != 0); });
}
TC_API int32_t tc_argmin(tc_tensor a, int64_t dim, int32_t keepdim, tc_tensor* out) {
  return op1(__func__, a, out, [&](const Tensor& x) { return ops::argmin(x, dim, keepdim != 0); });
}

TC_API int32_t tc_cat(const tc_tensor* tensors, int64_t count, int64_t dim, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::cat(tensor_list(tensors, count), dim);
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_stack(const tc_tensor* tensors, int64_t count, int64_t dim, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::stack(tensor_list(tensors, count), dim);
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_split(tc_tensor a, int64_t split_size, int64_t dim, tc_tensor* outs, int64_t cap,
                        int64_t* count) {
  return api(__func__, [&] {
    out_ptr(count, "count");
    pieces_out(ops::split(get_tensor(a, "a"), split_size, dim), outs, cap, count);
  });
}

TC_API int32_t tc_chunk(tc_tensor a, int64_t chunks, int64_t dim, tc_tensor* outs, int64_t cap,
                        int64_t* count) {
  return api(__func__, [&] {
    out_ptr(count, "count");
    pieces_out(ops::chunk(get_tensor(a, "a"), chunks, dim), outs, cap, count);
  });
}

TC_API int32_t tc_gather(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::gather(get_tensor(a, "a"), dim, get_tensor(index, "index"));
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_index_select(tc_tensor a, int64_t dim, tc_tensor index, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::index_select(get_tensor(a, "a"), dim, get_tensor(index, "index"));
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_one_hot(tc_tensor indices, int64_t num_classes, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::one_hot(get_tensor(indices, "indices"), num_classes);
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_add_(tc_tensor self, tc_tensor other) {
  return api(__func__, [&] { ops::add_(get_tensor(self, "self"), get_tensor(other, "other")); });
}
TC_API int32_t tc_sub_(tc_tensor self, tc_tensor other) {
  return api(__func__, [&] { ops::sub_(get_tensor(self, "self"), get_tensor(other, "other")); });
}
TC_API int32_t tc_mul_(tc_tensor self, tc_tensor other) {
  return api(__func__, [&] { ops::mul_(get_tensor(self, "self"), get_tensor(other, "other")); });
}
TC_API int32_t tc_div_(tc_tensor self, tc_tensor other) {
  return api(__func__, [&] { ops::div_(get_tensor(self, "self"), get_tensor(other, "other")); });
}
TC_API int32_t tc_zero_(tc_tensor self) {
  return api(__func__, [&] { ops::zero_(get_tensor(self, "self")); });
}
TC_API int32_t tc_fill_(tc_tensor self, double value) {
  return api(__func__, [&] { ops::fill_(get_tensor(self, "self"), value); });
}
TC_API int32_t tc_copy_(tc_tensor self, tc_tensor src) {
  return api(__func__, [&] { ops::copy_(get_tensor(self, "self"), get_tensor(src, "src")); });
}
