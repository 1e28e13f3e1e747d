// tc_* functions of tc.h's tensor sections: handles, creation, accessors.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "abi/api.h"
#include "core/rng.h"

using namespace tc;

TC_API int32_t tc_tensor_retain(tc_tensor t, tc_tensor* out) {
  return api("tc_tensor_retain", [&] {
    out_ptr(out, "out");
    *out = new_handle(get_tensor(t, "t"));
  });
}

TC_API int32_t tc_tensor_free(tc_tensor t) {
  return api("tc_tensor_free",
             [&] { handle_remove(reinterpret_cast<uint64_t>(t), HandleKind::tensor, "t"); });
}

TC_API int32_t tc_tensor_free_many(const tc_tensor* handles, int64_t n) {
  return api("tc_tensor_free_many", [&] {
    TC_CHECK(n >= 0, TC_ERR_INVALID_ARGUMENT, "n must be >= 0 but is ", n);
    TC_CHECK(handles != nullptr || n == 0, TC_ERR_INVALID_ARGUMENT, "handles must not be NULL when n is ", n);
    static_assert(sizeof(tc_tensor) == sizeof(uint64_t), "handles are 64-bit values");
    int64_t first_bad = -1;
    const int64_t bad =
        handle_remove_many(reinterpret_cast<const uint64_t*>(handles), n, HandleKind::tensor, &first_bad);
    if (bad == 0) return;
    // Every valid entry is freed by now; re-check the first bad one only
    // for its reason (it stays invalid: nothing frees it, nothing reuses
    // its generation).
    const std::string arg = str("handles[", first_bad, "]");
    try {
      handle_get(reinterpret_cast<uint64_t>(handles[first_bad]), HandleKind::tensor, arg.c_str());
    } catch (const Error& e) {
      fail(TC_ERR_INVALID_HANDLE,
           str(e.what(), "; ", bad, " of ", n, " entries were invalid and skipped, the ", n - bad,
               " valid ones were freed"));
    }
    fail(TC_ERR_INVALID_HANDLE,
         str(arg, " is not a valid tensor handle (a repeat of an entry this call freed); ", bad, " of ", n,
             " entries were invalid and skipped, the ", n - bad, " valid ones were freed"));
  });
}

namespace {

// The shared body of the shape-dtype-device factories.
template <typename Make>
int32_t create(const char* fn, const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device,
               tc_tensor* out, Make make) {
  return api(fn, [&] {
    out_ptr(out, "out");
    const Dims s = shape_arg(shape, ndim, "shape");
    const DType d = dtype_arg(dtype, "dtype");
    const Device dev = check_device(device, "device");
    *out = new_handle(make(s, d, dev));
  });
}

}  // namespace

TC_API int32_t tc_tensor_new(const tc_tensor_options* options, tc_tensor* out) {
  return api("tc_tensor_new", [&] {
    in_ptr(options, "options");
    out_ptr(out, "out");
    constexpr size_t kMin = offsetof(tc_tensor_options, fill) + sizeof(int32_t);
    TC_CHECK(options->size >= kMin && options->size <= 4096, TC_ERR_INVALID_ARGUMENT, "options->size is ",
             options->size, "; set it to sizeof(tc_tensor_options) (", sizeof(tc_tensor_options), ")");
    tc_tensor_options o{};
    std::memcpy(&o, options, std::min<size_t>(options->size, sizeof o));
    TC_CHECK(o.reserved0 == 0, TC_ERR_INVALID_ARGUMENT, "options->reserved0 must be 0 but is ", o.reserved0);
    const Dims s = shape_arg(o.shape, o.ndim, "options->shape");
    const DType d = dtype_arg(o.dtype, "options->dtype");
    const Device dev = check_device(o.device, "options->device");
    TC_CHECK(o.requires_grad == 0 || o.requires_grad == 1, TC_ERR_INVALID_ARGUMENT,
             "options->requires_grad must be 0 or 1 but is ", o.requires_grad);
    TC_CHECK(o.requires_grad == 0 || is_differentiable(d), TC_ERR_DTYPE,
             "only floating-point tensors can require grad, but options->dtype is ", dtype_name(d));
    auto finite = [](double v) { return std::isfinite(v); };
    Tensor t;
    switch (o.fill) {
      case TC_FILL_UNINITIALIZED:
        t = empty(s, d, dev);
        break;
      case TC_FILL_ZEROS:
        t = zeros(s, d, dev);
        break;
      case TC_FILL_ONES:
        t = ones(s, d, dev);
        break;
      case TC_FILL_VALUE:
        t = full(s, checked_fill_value("tc_tensor_new", o.value, d), d, dev);
        break;
      case TC_FILL_DATA: {
        int64_t expected = 0;
        TC_CHECK(!__builtin_mul_overflow(checked_numel(s, "options->shape"), dtype_size(d), &expected),
                 TC_ERR_OUT_OF_MEMORY, "shape ", s, " of ", dtype_name(d), " needs more than 2^63 bytes");
        TC_CHECK(o.nbytes == expected, TC_ERR_INVALID_ARGUMENT, "options->nbytes is ", o.nbytes,
                 " but shape ", s, " of ", dtype_name(d), " needs ", expected);
        TC_CHECK(o.data != nullptr || expected == 0, TC_ERR_INVALID_ARGUMENT,
                 "options->data must not be NULL");
        Tensor host = empty(s, d, kCPU);
        if (expected > 0) std::memcpy(host->data(), o.data, size_t(expected));
        if (d == DType::b8) normalize_bools(host->data(), expected);
        t = dev == kCPU ? host : to_device(host, dev);
        break;
      }
      case TC_FILL_UNIFORM:
        TC_CHECK(is_floating(d), TC_ERR_DTYPE, "a uniform fill needs a floating dtype, got ", dtype_name(d));
        TC_CHECK(finite(o.low) && finite(o.high) && o.low <= o.high, TC_ERR_INVALID_ARGUMENT,
                 "options->low and ->high must be finite with low <= high, but are ", o.low, " and ", o.high);
        t = empty(s, d, dev);
        fill_uniform(t, o.low, o.high);
        break;
      case TC_FILL_NORMAL:
        TC_CHECK(is_floating(d), TC_ERR_DTYPE, "a normal fill needs a floating dtype, got ", dtype_name(d));
        TC_CHECK(finite(o.mean) && finite(o.std) && o.std >= 0, TC_ERR_INVALID_ARGUMENT,
                 "options->mean and ->std must be finite with std >= 0, but are ", o.mean, " and ", o.std);
        t = empty(s, d, dev);
        fill_normal(t, o.mean, o.std);
        break;
      default:
        fail(TC_ERR_INVALID_ARGUMENT, str("options->fill ", o.fill, " is not a TC_FILL_* value (0 to 6)"));
    }
    t->requires_grad = o.requires_grad != 0;
    *out = new_handle(std::move(t));
  });
}

TC_API int32_t tc_empty(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out) {
  return create("tc_empty", shape, ndim, dtype, device, out,
                [](const Dims& s, DType d, Device dev) { return empty(s, d, dev); });
}

TC_API int32_t tc_zeros(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out) {
  return create("tc_zeros", shape, ndim, dtype, device, out,
                [](const Dims& s, DType d, Device dev) { return zeros(s, d, dev); });
}

TC_API int32_t tc_ones(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out) {
  return create("tc_ones", shape, ndim, dtype, device, out,
                [](const Dims& s, DType d, Device dev) { return ones(s, d, dev); });
}

TC_API int32_t tc_full(const int64_t* shape, int64_t ndim, double value, int32_t dtype, int32_t device,
                       tc_tensor* out) {
  return create("tc_full", shape, ndim, dtype, device, out, [value](const Dims& s, DType d, Device dev) {
    return full(s, checked_fill_value("tc_full", value, d), d, dev);
  });
}

TC_API int32_t tc_rand(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out) {
  return create("tc_rand", shape, ndim, dtype, device, out, [](const Dims& s, DType d, Device dev) {
    TC_CHECK(is_floating(d), TC_ERR_DTYPE, "rand needs a floating dtype, got ", dtype_name(d));
    Tensor t = empty(s, d, dev);
    fill_uniform(t, 0.0, 1.0);
    return t;
  });
}

TC_API int32_t tc_randn(const int64_t* shape, int64_t ndim, int32_t dtype, int32_t device, tc_tensor* out) {
  return create("tc_randn", shape, ndim, dtype, device, out, [](const Dims& s, DType d, Device dev) {
    TC_CHECK(is_floating(d), TC_ERR_DTYPE, "randn needs a floating dtype, got ", dtype_name(d));
    Tensor t = empty(s, d, dev);
    fill_normal(t, 0.0, 1.0);
    return t;
  });
}

TC_API int32_t tc_arange(double start, double end, double step, int32_t dtype, int32_t device,
                         tc_tensor* out) {
  return api("tc_arange", [&] {
    out_ptr(out, "out");
    *out = new_handle(arange(start, end, step, dtype_arg(dtype, "dtype"), check_device(device, "device")));
  });
}

TC_API int32_t tc_from_data(const void* data, int64_t nbytes, const int64_t* shape, int64_t ndim,
                            int32_t dtype, tc_tensor* out) {
  return api("tc_from_data", [&] {
    out_ptr(out, "out");
    const Dims s = shape_arg(shape, ndim, "shape");
    const DType d = dtype_arg(dtype, "dtype");
    int64_t expected = 0;
    TC_CHECK(!__builtin_mul_overflow(checked_numel(s, "shape"), dtype_size(d), &expected),
             TC_ERR_OUT_OF_MEMORY, "shape ", s, " of ", dtype_name(d), " needs more than 2^63 bytes");
    TC_CHECK(nbytes == expected, TC_ERR_INVALID_ARGUMENT, "nbytes is ", nbytes, " but shape ", s, " of ",
             dtype_name(d), " needs ", expected);
    TC_CHECK(data != nullptr || expected == 0, TC_ERR_INVALID_ARGUMENT, "data must not be NULL");
    Tensor t = empty(s, d, kCPU);
    if (expected > 0) std::memcpy(t->data(), data, size_t(expected));
    if (d == DType::b8) normalize_bools(t->data(), expected);
    *out = new_handle(std::move(t));
  });
}

TC_API int32_t tc_from_blob(void* data, const int64_t* shape, const int64_t* strides, int64_t ndim,
                            int32_t dtype, tc_deleter deleter, void* context, tc_tensor* out) {
  bool handed_over = false;  // once true, the tensor's storage calls the deleter
  const int32_t rc = api("tc_from_blob", [&] {
    out_ptr(out, "out");
    TC_CHECK(data != nullptr, TC_ERR_INVALID_ARGUMENT, "data must not be NULL");
    const Dims s = shape_arg(shape, ndim, "shape");
    const DType d = dtype_arg(dtype, "dtype");
    Dims st = contiguous_strides(s);
    if (strides) {
      st = Dims(strides, ndim);
      for (int64_t i = 0; i < ndim; ++i)
        TC_CHECK(st[i] >= 0, TC_ERR_INVALID_ARGUMENT, "strides[", i, "] is ", st[i],
                 "; strides must be >= 0");
    }
    std::function<void(void*)> del;
    if (deleter) del = [deleter, context](void* p) { deleter(p, context); };
    handed_over = true;
    *out = new_handle(from_blob(data, s, st, d, kCPU, std::move(del)));
  });
  if (rc != TC_OK && !handed_over && deleter) deleter(data, context);
  return rc;
}

// ---- accessors ----

TC_API int32_t tc_tensor_dtype(tc_tensor t, int32_t* out) {
  return api("tc_tensor_dtype", [&] {
    out_ptr(out, "out");
    *out = int32_t(get_tensor(t, "t")->dtype);
  });
}

TC_API int32_t tc_tensor_device(tc_tensor t, int32_t* out) {
  return api("tc_tensor_device", [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->device;
  });
}

TC_API int32_t tc_tensor_ndim(tc_tensor t, int64_t* out) {
  return api("tc_tensor_ndim", [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->ndim();
  });
}

namespace {
int32_t copy_dims(const char* fn, tc_tensor t, int64_t* out, int64_t cap, bool strides) {
  return api(fn, [&] {
    Tensor x = get_tensor(t, "t");
    TC_CHECK(cap >= x->ndim(), TC_ERR_INVALID_ARGUMENT, "cap is ", cap, " but the tensor has ", x->ndim(),
             " dims");
    TC_CHECK(out != nullptr || x->ndim() == 0, TC_ERR_INVALID_ARGUMENT, "out must not be NULL");
    const Dims& d = strides ? x->strides : x->shape;
    for (int64_t i = 0; i < d.size(); ++i) out[i] = d[i];
  });
}
}  // namespace

TC_API int32_t tc_tensor_shape(tc_tensor t, int64_t* out, int64_t cap) {
  return copy_dims("tc_tensor_shape", t, out, cap, false);
}

TC_API int32_t tc_tensor_strides(tc_tensor t, int64_t* out, int64_t cap) {
  return copy_dims("tc_tensor_strides", t, out, cap, true);
}

TC_API int32_t tc_tensor_numel(tc_tensor t, int64_t* out) {
  return api("tc_tensor_numel", [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->numel();
  });
}

TC_API int32_t tc_tensor_storage_offset(tc_tensor t, int64_t* out) {
  return api("tc_tensor_storage_offset", [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->offset;
  });
}

TC_API int32_t tc_tensor_is_contiguous(tc_tensor t, int32_t* out) {
  return api("tc_tensor_is_contiguous", [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->is_contiguous() ? 1 : 0;
  });
}

TC_API int32_t tc_tensor_element_size(tc_tensor t, int64_t* out) {
  return api("tc_tensor_element_size", [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->itemsize();
  });
}

TC_API int32_t tc_tensor_data_ptr(tc_tensor t, void** out) {
  return api("tc_tensor_data_ptr", [&] {
    out_ptr(out, "out");
    Tensor x = get_tensor(t, "t");
    *out = x->numel() == 0 ? nullptr : x->data();
  });
}

TC_API int32_t tc_tensor_copy_to(tc_tensor t, void* buf, int64_t nbytes) {
  return api("tc_tensor_copy_to", [&] {
    Tensor x = get_tensor(t, "t");
    const int64_t expected = x->numel() * x->itemsize();
    TC_CHECK(nbytes == expected, TC_ERR_INVALID_ARGUMENT, "nbytes is ", nbytes, " but the tensor (shape ",
             x->shape, ", ", dtype_name(x->dtype), ") has ", expected, " bytes");
    TC_CHECK(buf != nullptr || expected == 0, TC_ERR_INVALID_ARGUMENT, "buf must not be NULL");
    if (expected == 0) return;
    Tensor host = to_device(x, kCPU);
    Tensor dst = from_blob(buf, host->shape, contiguous_strides(host->shape), host->dtype, kCPU, nullptr);
    copy_into(dst, host);
  });
}

TC_API int32_t tc_tensor_item(tc_tensor t, double* out) {
  return api("tc_tensor_item", [&] {
    out_ptr(out, "out");
    Tensor x = get_tensor(t, "t");
    TC_CHECK(x->numel() == 1, TC_ERR_SHAPE, "item needs a tensor with one element, but shape ", x->shape,
             " has ", x->numel());
    *out = read_element(to_device(x, kCPU), 0);
  });
}

TC_API int32_t tc_tensor_to_string(tc_tensor t, char* buf, int64_t cap, int64_t* needed) {
  return api("tc_tensor_to_string",
             [&] { copy_out(to_string(to_device(get_tensor(t, "t"), kCPU)), buf, cap, needed); });
}

TC_API int32_t tc_tensor_version(tc_tensor t, int64_t* out) {
  return api("tc_tensor_version", [&] {
    out_ptr(out, "out");
    *out = get_tensor(t, "t")->version();
  });
}

TC_API int32_t tc_tensor_same(tc_tensor a, tc_tensor b, int32_t* out) {
  return api("tc_tensor_same", [&] {
    out_ptr(out, "out");
    *out = get_tensor(a, "a") == get_tensor(b, "b") ? 1 : 0;
  });
}

TC_API int32_t tc_tensor_set_readonly(tc_tensor t) {
  return api(__func__, [&] {
    const Tensor x = get_tensor(t, "t");
    if (x->storage) x->storage->read_only.store(true);
  });
}

TC_API int32_t tc_tensor_is_readonly(tc_tensor t, int32_t* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const Tensor x = get_tensor(t, "t");
    *out = x->storage && x->storage->read_only.load() ? 1 : 0;
  });
}
