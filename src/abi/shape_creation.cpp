// The tc_* functions of the shape, creation and matrix ops (flip ... einsum,
// randint, randperm, bernoulli): check handles and arguments, call the core
// (ops/shape_creation.cpp, ops/einsum.cpp, ops/random_sampling.cpp), hand out
// results only on success.
#include <cmath>
#include <cstring>

#include "abi/op_shims.h"

using namespace tc;
using abi::op1;

namespace {

// The tensors of an array argument (meshgrid, einsum): count >= 1, each checked.
std::vector<Tensor> tensor_array(const tc_tensor* ts, int64_t count, const char* arg) {
  TC_CHECK(count > 0, TC_ERR_INVALID_ARGUMENT, "count must be positive but is ", count);
  TC_CHECK(count <= (int64_t(1) << 20), TC_ERR_INVALID_ARGUMENT, "count ", count, " is too large");
  in_ptr(ts, arg);
  std::vector<Tensor> v;
  v.reserve(size_t(count));
  for (int64_t i = 0; i < count; ++i) v.push_back(get_tensor(ts[i], arg));
  return v;
}

// Several handles out: all or none; *count always (cap too small is an error).
void handles_out(const std::vector<Tensor>& ts, tc_tensor* outs, int64_t cap, int64_t* count) {
  TC_CHECK(cap >= 0, TC_ERR_INVALID_ARGUMENT, "cap must be >= 0 but is ", cap);
  const int64_t n = int64_t(ts.size());
  if (n > cap) {
    *count = n;
    fail(TC_ERR_INVALID_ARGUMENT, str("cap (", cap, ") is smaller than the number of results (", n, ")"));
  }
  TC_CHECK(n == 0 || outs != nullptr, TC_ERR_INVALID_ARGUMENT, "outs must not be NULL");
  new_handles(ts, outs);
  *count = n;
}

// A list of at most `most` int64 values (pad: two per dim).
std::vector<int64_t> int_list(const int64_t* p, int64_t n, int64_t most, const char* arg) {
  TC_CHECK(n >= 0 && n <= most, TC_ERR_INVALID_ARGUMENT, arg, ": count must be in [0, ", most, "] but is ",
           n);
  TC_CHECK(n == 0 || p != nullptr, TC_ERR_INVALID_ARGUMENT, arg, " must not be NULL when its count is ", n);
  return std::vector<int64_t>(p, p + n);
}

}  // namespace

extern "C" {

TC_API int32_t tc_meshgrid(const tc_tensor* tensors, int64_t count, int32_t indexing, tc_tensor* outs,
                           int64_t cap, int64_t* out_count) {
  return api(__func__, [&] {
    out_ptr(out_count, "out_count");
    TC_CHECK(indexing == TC_MESHGRID_IJ || indexing == TC_MESHGRID_XY, TC_ERR_INVALID_ARGUMENT,
             "indexing must be TC_MESHGRID_IJ or TC_MESHGRID_XY but is ", indexing);
    handles_out(ops::meshgrid(tensor_array(tensors, count, "tensors"), indexing == TC_MESHGRID_XY), outs, cap,
                out_count);
  });
}

TC_API int32_t tc_pad(tc_tensor a, const int64_t* pad, int64_t npad, int32_t mode, double value,
                      tc_tensor* out) {
  return op1(__func__, a, out, [&](const Tensor& x) {
    return ops::pad(x, int_list(pad, npad, 2 * TC_MAX_DIMS, "pad"), mode, value);
  });
}

TC_API int32_t tc_unbind(tc_tensor a, int64_t dim, tc_tensor* outs, int64_t cap, int64_t* count) {
  return api(__func__, [&] {
    out_ptr(count, "count");
    handles_out(ops::unbind(get_tensor(a, "a"), dim), outs, cap, count);
  });
}

TC_API int32_t tc_einsum(const char* equation, const tc_tensor* operands, int64_t count, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    in_ptr(equation, "equation");
    const size_t len = strnlen(equation, 4097);
    TC_CHECK(len <= 4096, TC_ERR_INVALID_ARGUMENT, "equation is longer than 4096 characters");
    Tensor r = ops::einsum(std::string(equation, len), tensor_array(operands, count, "operands"));
    *out = new_handle(std::move(r));
  });
}

}  // extern "C"
