// tc_* functions of tc.h's "conversions and views" section: check handles and
// arguments, call ops/views.cpp, hand out the result (only on success).
#include "abi/api.h"
#include "ops/ops.h"

using namespace tc;

namespace {

// The common shape of these functions: one tensor in, one tensor out.
template <typename F>
int32_t view_op(const char* fn, tc_tensor t, tc_tensor* out, F&& f) {
  return api(fn, [&] {
    out_ptr(out, "out");
    Tensor r = f(get_tensor(t, "t"));
    *out = new_handle(std::move(r));
  });
}

// Shapes for reshape/view/expand may hold -1, which shape_arg rejects.
Dims sizes_arg(const int64_t* shape, int64_t ndim) { return dims_arg(shape, ndim, "shape"); }

}  // namespace

TC_API int32_t tc_to_dtype(tc_tensor t, int32_t dtype, tc_tensor* out) {
  return view_op(__func__, t, out,
                 [&](const Tensor& x) { return ops::to_dtype(x, dtype_arg(dtype, "dtype")); });
}

TC_API int32_t tc_to_device(tc_tensor t, int32_t device, tc_tensor* out) {
  return view_op(__func__, t, out,
                 [&](const Tensor& x) { return ops::to_device(x, check_device(device, "device")); });
}

TC_API int32_t tc_reshape(tc_tensor t, const int64_t* shape, int64_t ndim, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::reshape(x, sizes_arg(shape, ndim)); });
}

TC_API int32_t tc_view(tc_tensor t, const int64_t* shape, int64_t ndim, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::view(x, sizes_arg(shape, ndim)); });
}

TC_API int32_t tc_transpose(tc_tensor t, int64_t dim0, int64_t dim1, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::transpose(x, dim0, dim1); });
}

TC_API int32_t tc_permute(tc_tensor t, const int64_t* dims, int64_t ndim, tc_tensor* out) {
  return view_op(__func__, t, out,
                 [&](const Tensor& x) { return ops::permute(x, dims_arg(dims, ndim, "dims")); });
}

TC_API int32_t tc_narrow(tc_tensor t, int64_t dim, int64_t start, int64_t length, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::narrow(x, dim, start, length); });
}

TC_API int32_t tc_slice(tc_tensor t, int64_t dim, int64_t start, int64_t end, int64_t step, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::slice(x, dim, start, end, step); });
}

TC_API int32_t tc_select(tc_tensor t, int64_t dim, int64_t index, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::select(x, dim, index); });
}

TC_API int32_t tc_squeeze(tc_tensor t, int64_t dim, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::squeeze(x, dim); });
}

TC_API int32_t tc_unsqueeze(tc_tensor t, int64_t dim, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::unsqueeze(x, dim); });
}

TC_API int32_t tc_expand(tc_tensor t, const int64_t* shape, int64_t ndim, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::expand(x, sizes_arg(shape, ndim)); });
}

TC_API int32_t tc_contiguous(tc_tensor t, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::contiguous(x); });
}

TC_API int32_t tc_clone(tc_tensor t, tc_tensor* out) {
  return view_op(__func__, t, out, [&](const Tensor& x) { return ops::clone(x); });
}
