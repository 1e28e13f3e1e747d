// tc_* functions of tc.h's tensor dict and safetensors section.
#include <cstring>

#include "abi/api.h"
#include "io/safetensors.h"

using namespace tc;

namespace tc {

std::shared_ptr<io::TensorDict> get_dict(tc_tensor_dict h, const char* arg) {
  return std::static_pointer_cast<io::TensorDict>(
      handle_get(reinterpret_cast<uint64_t>(h), HandleKind::tensor_dict, arg));
}

tc_tensor_dict new_dict_handle(std::shared_ptr<io::TensorDict> d) {
  return reinterpret_cast<tc_tensor_dict>(handle_insert(HandleKind::tensor_dict, std::move(d)));
}

}  // namespace tc

namespace {

std::string string_arg(const char* s, const char* arg) {
  in_ptr(s, arg);
  std::string v(s);
  io::check_utf8(v, arg);
  return v;
}

std::string name_arg(const char* s, const char* arg) {
  in_ptr(s, arg);
  std::string v(s);
  io::check_name(v, arg);
  return v;
}

}  // namespace

TC_API int32_t tc_tensor_dict_create(tc_tensor_dict* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    *out = new_dict_handle(std::make_shared<io::TensorDict>());
  });
}

TC_API int32_t tc_tensor_dict_free(tc_tensor_dict dict) {
  return api(__func__,
             [&] { handle_remove(reinterpret_cast<uint64_t>(dict), HandleKind::tensor_dict, "dict"); });
}

TC_API int32_t tc_tensor_dict_set(tc_tensor_dict dict, const char* name, tc_tensor t) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    Tensor x = get_tensor(t, "t");
    d->set(name_arg(name, "name"), std::move(x));
  });
}

TC_API int32_t tc_tensor_dict_get(tc_tensor_dict dict, const char* name, tc_tensor* out) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    const std::string n = string_arg(name, "name");
    out_ptr(out, "out");
    Tensor t = d->find(n);
    TC_CHECK(t != nullptr, TC_ERR_INDEX, "no tensor named \"", n, "\" in the dict");
    *out = new_handle(std::move(t));
  });
}

TC_API int32_t tc_tensor_dict_contains(tc_tensor_dict dict, const char* name, int32_t* out) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    const std::string n = string_arg(name, "name");
    *out_ptr(out, "out") = d->find(n) ? 1 : 0;
  });
}

TC_API int32_t tc_tensor_dict_count(tc_tensor_dict dict, int64_t* out) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    *out_ptr(out, "out") = d->count();
  });
}

TC_API int32_t tc_tensor_dict_name_at(tc_tensor_dict dict, int64_t index, char* buf, int64_t cap,
                                      int64_t* needed) {
  return api(__func__, [&] { copy_out(get_dict(dict, "dict")->name_at(index), buf, cap, needed); });
}

TC_API int32_t tc_tensor_dict_set_metadata(tc_tensor_dict dict, const char* key, const char* value) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    d->set_metadata(string_arg(key, "key"), string_arg(value, "value"));
  });
}

TC_API int32_t tc_tensor_dict_get_metadata(tc_tensor_dict dict, const char* key, char* buf, int64_t cap,
                                           int64_t* needed) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    const std::string k = string_arg(key, "key");
    std::string v;
    TC_CHECK(d->find_metadata(k, &v), TC_ERR_INDEX, "no metadata key \"", k, "\" in the dict");
    copy_out(v, buf, cap, needed);
  });
}

TC_API int32_t tc_tensor_dict_metadata_count(tc_tensor_dict dict, int64_t* out) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    *out_ptr(out, "out") = d->metadata_count();
  });
}

TC_API int32_t tc_tensor_dict_metadata_key_at(tc_tensor_dict dict, int64_t index, char* buf, int64_t cap,
                                              int64_t* needed) {
  return api(__func__, [&] { copy_out(get_dict(dict, "dict")->metadata_key_at(index), buf, cap, needed); });
}

TC_API int32_t tc_save_safetensors(tc_tensor_dict dict, const char* path) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    io::save_file(*d, in_ptr(path, "path"));
  });
}

TC_API int32_t tc_save_safetensors_bytes(tc_tensor_dict dict, tc_tensor* out) {
  return api(__func__, [&] {
    const auto d = get_dict(dict, "dict");
    out_ptr(out, "out");
    *out = new_handle(io::serialize(*d));
  });
}

TC_API int32_t tc_load_safetensors(const char* path, int32_t flags, tc_tensor_dict* out) {
  return api(__func__, [&] {
    in_ptr(path, "path");
    TC_CHECK((flags & ~TC_LOAD_COPY) == 0, TC_ERR_INVALID_ARGUMENT, "flags ", flags,
             " has bits other than TC_LOAD_COPY");
    out_ptr(out, "out");
    *out = new_dict_handle(io::load_file(path, (flags & TC_LOAD_COPY) != 0));
  });
}

TC_API int32_t tc_load_safetensors_buffer(const void* data, int64_t nbytes, tc_tensor_dict* out) {
  return api(__func__, [&] {
    TC_CHECK(nbytes >= 0, TC_ERR_INVALID_ARGUMENT, "nbytes must be >= 0 but is ", nbytes);
    TC_CHECK(data != nullptr || nbytes == 0, TC_ERR_INVALID_ARGUMENT, "data must not be NULL");
    out_ptr(out, "out");
    // One copy into memory libtc owns; the tensors are views of it where aligned.
    Tensor buf = empty(Dims{nbytes}, DType::u8, kCPU);
    if (nbytes > 0) std::memcpy(buf->data(), data, size_t(nbytes));
    const auto* p = buf->data_as<const uint8_t>();
    *out = new_dict_handle(io::parse(p ? p : reinterpret_cast<const uint8_t*>(""), uint64_t(nbytes),
                                     std::shared_ptr<void>(buf, buf->data())));
  });
}
