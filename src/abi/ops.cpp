// tc_* functions of tc.h's ops section (elementwise, reductions, shape ops,
// in-place ops): check handles and arguments, call ops/*.cpp, hand out results
// only on success.
#include "ops/ops.h"

#include <cmath>

#include "abi/api.h"

using namespace tc;

namespace {

template <typename F>
int32_t op1(const char* fn, tc_tensor a, tc_tensor* out, F&& f) {
  return api(fn, [&] {
    out_ptr(out, "out");
    Tensor r = f(get_tensor(a, "a"));
    *out = new_handle(std::move(r));
  });
}

int32_t binary(const char* fn, ops::BinaryOp op, tc_tensor a, tc_tensor b, tc_tensor* out) {
  return api(fn, [&] {
    out_ptr(out, "out");
    Tensor r = ops::binary(op, get_tensor(a, "a"), get_tensor(b, "b"));
    *out = new_handle(std::move(r));
  });
}

int32_t scalar(const char* fn, ops::ScalarOp op, tc_tensor a, double s, tc_tensor* out) {
  return op1(fn, a, out, [&](const Tensor& x) { return ops::binary_scalar(op, x, s); });
}

int32_t unary(const char* fn, ops::UnaryOp op, tc_tensor a, tc_tensor* out) {
  return op1(fn, a, out, [&](const Tensor& x) { return ops::unary(op, x); });
}

// Several tensors in (cat, stack).
std::vector<Tensor> tensor_list(const tc_tensor* ts, int64_t count) {
  TC_CHECK(count > 0, TC_ERR_INVALID_ARGUMENT, "count must be positive but is ", count);
  in_ptr(ts, "tensors");
  std::vector<Tensor> v;
  v.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i) v.push_back(get_tensor(ts[i], "tensors[i]"));
  return v;
}

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

TC_API int32_t tc_add(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::add, a, b, out);
}
TC_API int32_t tc_sub(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::sub, a, b, out);
}
TC_API int32_t tc_mul(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::mul, a, b, out);
}
TC_API int32_t tc_div(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::div, a, b, out);
}
TC_API int32_t tc_pow(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::pow, a, b, out);
}
TC_API int32_t tc_maximum(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::maximum, a, b, out);
}
TC_API int32_t tc_minimum(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::minimum, a, b, out);
}
TC_API int32_t tc_eq(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::eq, a, b, out);
}
TC_API int32_t tc_ne(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::ne, a, b, out);
}
TC_API int32_t tc_lt(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::lt, a, b, out);
}
TC_API int32_t tc_le(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::le, a, b, out);
}
TC_API int32_t tc_gt(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::gt, a, b, out);
}
TC_API int32_t tc_ge(tc_tensor a, tc_tensor b, tc_tensor* out) {
  return binary(__func__, ops::BinaryOp::ge, a, b, out);
}

TC_API int32_t tc_where(tc_tensor cond, tc_tensor a, tc_tensor b, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    Tensor r = ops::where(get_tensor(cond, "cond"), get_tensor(a, "a"), get_tensor(b, "b"));
    *out = new_handle(std::move(r));
  });
}

TC_API int32_t tc_add_scalar(tc_tensor a, double s, tc_tensor* out) {
  return scalar(__func__, ops::ScalarOp::add, a, s, out);
}
TC_API int32_t tc_sub_scalar(tc_tensor a, double s, tc_tensor* out) {
  return scalar(__func__, ops::ScalarOp::sub, a, s, out);
}
TC_API int32_t tc_mul_scalar(tc_tensor a, double s, tc_tensor* out) {
  return scalar(__func__, ops::ScalarOp::mul, a, s, out);
}
TC_API int32_t tc_div_scalar(tc_tensor a, double s, tc_tensor* out) {
  return scalar(__func__, ops::ScalarOp::div, a, s, out);
}
TC_API int32_t tc_pow_scalar(tc_tensor a, double s, tc_tensor* out) {
  return scalar(__func__, ops::ScalarOp::pow, a, s, out);
}
TC_API int32_t tc_rsub_scalar(tc_tensor a, double s, tc_tensor* out) {
  return scalar(__func__, ops::ScalarOp::rsub, a, s, out);
}
TC_API int32_t tc_rdiv_scalar(tc_tensor a, double s, tc_tensor* out) {
  return scalar(__func__, ops::ScalarOp::rdiv, a, s, out);
}

TC_API int32_t tc_neg(tc_tensor a, tc_tensor* out) { return unary(__func__, ops::UnaryOp::neg, a, out); }
TC_API int32_t tc_abs(tc_tensor a, tc_tensor* out) { return unary(__func__, ops::UnaryOp::abs, a, out); }
TC_API int32_t tc_exp(tc_tensor a, tc_tensor* out) { return unary(__func__, ops::UnaryOp::exp, a, out); }
TC_API int32_t tc_log(tc_tensor a, tc_tensor* out) { return unary(__func__, ops::UnaryOp::log, a, out); }
TC_API int32_t tc_sqrt(tc_tensor a, tc_tensor* out) { return unary(__func__, ops::UnaryOp::sqrt, a, out); }
TC_API int32_t tc_tanh(tc_tensor a, tc_tensor* out) { return unary(__func__, ops::UnaryOp::tanh, a, out); }
TC_API int32_t tc_sigmoid(tc_tensor a, tc_tensor* out) {
  return unary(__func__, ops::UnaryOp::sigmoid, a, out);
}
TC_API int32_t tc_relu(tc_tensor a, tc_tensor* out) { return unary(__func__, ops::UnaryOp::relu, a, out); }
TC_API int32_t tc_gelu(tc_tensor a, tc_tensor* out) { return unary(__func__, ops::UnaryOp::gelu, a, out); }

TC_API int32_t tc_clamp(tc_tensor a, double lo, double hi, tc_tensor* out) {
  return op1(__func__, a, out, [&](const Tensor& x) { return ops::clamp(x, lo, hi); });
}

TC_API int32_t tc_sum(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out) {
  return op1(__func__, a, out,
             [&](const Tensor& x) { return ops::sum(x, dims_arg(dims, ndims, "dims"), keepdim != 0); });
}

TC_API int32_t tc_mean(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim, tc_tensor* out) {
  return op1(__func__, a, out,
             [&](const Tensor& x) { return ops::mean(x, dims_arg(dims, ndims, "dims"), keepdim != 0); });
}

TC_API int32_t tc_var(tc_tensor a, const int64_t* dims, int64_t ndims, int64_t correction, int32_t keepdim,
                      tc_tensor* out) {
  return op1(__func__, a, out, [&](const Tensor& x) {
    return ops::var(x, dims_arg(dims, ndims, "dims"), correction, keepdim != 0);
  });
}

TC_API int32_t tc_std(tc_tensor a, const int64_t* dims, int64_t ndims, int64_t correction, int32_t keepdim,
                      tc_tensor* out) {
  return op1(__func__, a, out, [&](const Tensor& x) {
    return ops::std(x, dims_arg(dims, ndims, "dims"), correction, keepdim != 0);
  });
}

TC_API int32_t tc_logsumexp(tc_tensor a, const int64_t* dims, int64_t ndims, int32_t keepdim,
                            tc_tensor* out) {
  return op1(__func__, a, out,
             [&](const Tensor& x) { return ops::logsumexp(x, dims_arg(dims, ndims, "dims"), keepdim != 0); });
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
