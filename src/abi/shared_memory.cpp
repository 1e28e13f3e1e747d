// tc_* functions of tc.h's "tensors in shared memory" section: check handles
// and arguments, call core/shared_memory.cpp, hand out results on success.
#include "core/shared_memory.h"

#include "abi/api.h"

using namespace tc;

TC_API int32_t tc_set_sharing_strategy(int32_t strategy) {
  return api(__func__, [&] { set_sharing_strategy(strategy); });
}

TC_API int32_t tc_get_sharing_strategy(int32_t* out) {
  return api(__func__, [&] { *out_ptr(out, "out") = sharing_strategy(); });
}

TC_API int32_t tc_tensor_share_memory_(tc_tensor t) {
  return api(__func__, [&] { share_memory_(get_tensor(t, "t")); });
}

TC_API int32_t tc_tensor_is_shared(tc_tensor t, int32_t* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = is_shared(get_tensor(t, "t")) ? 1 : 0;
  });
}

TC_API int32_t tc_tensor_shared_handle(tc_tensor t, int32_t* kind, int32_t* fd, int64_t* nbytes, char* name,
                                       int64_t cap, int64_t* needed) {
  return api(__func__, [&] {
    out_ptr(kind, "kind");
    out_ptr(fd, "fd");
    out_ptr(nbytes, "nbytes");
    TC_CHECK(cap >= 0, TC_ERR_INVALID_ARGUMENT, "cap must be >= 0 but is ", cap);
    TC_CHECK(cap == 0 || name != nullptr, TC_ERR_INVALID_ARGUMENT, "name must not be NULL when cap is ", cap);
    const SharedHandle h = shared_handle(get_tensor(t, "t"));
    copy_out(h.name, name, cap, needed);
    *kind = h.kind;
    *fd = h.fd;
    *nbytes = h.nbytes;
  });
}

TC_API int32_t tc_tensor_from_shared(int32_t kind, int32_t fd, const char* name, int64_t nbytes,
                                     const int64_t* shape, const int64_t* strides, int64_t ndim,
                                     int64_t offset, int32_t dtype, tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const Dims s = shape_arg(shape, ndim, "shape");
    const Dims st = strides ? Dims(strides, ndim) : contiguous_strides(s);
    const DType d = to_dtype(dtype, "dtype");
    std::string n;
    if (kind == TC_SHARE_FILE_SYSTEM) n = in_ptr(name, "name");
    *out = new_handle(import_shared(kind, fd, n, nbytes, s, st, offset, d));
  });
}

TC_API int32_t tc_shared_memory_retain(const char* name) {
  return api(__func__, [&] { shared_segment_ref(in_ptr(name, "name"), 1); });
}

TC_API int32_t tc_shared_memory_release(const char* name) {
  return api(__func__, [&] { shared_segment_ref(in_ptr(name, "name"), -1); });
}
