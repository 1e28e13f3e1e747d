// tc_* functions of tc.h's sections: versions, errors, initialization,
// flags, registries, the generator.
#include <algorithm>
#include <cstddef>
#include <cstring>

#include "abi/api.h"
#include "abi/handles.h"
#include "abi/op_library.h"
#include "core/flags.h"
#include "core/rng.h"

using namespace tc;

namespace {

// What the core's teardown and flags need from this layer (core/init.h).
void release_abi_state() {
  handle_clear_all();
  // Op libraries close once no op or node holds them: the handles just died.
  oplib::clear_all();
}
[[maybe_unused]] const bool kAbiHooksSet =
    (set_abi_hooks({release_abi_state, live_handle_count, oplib::report}), true);

}  // namespace

TC_API int32_t tc_version(int32_t* number, const char** text) {
  return api_noinit("tc_version", [&] {
    if (number) *number = TC_VERSION_MAJOR * 10000 + TC_VERSION_MINOR * 100 + TC_VERSION_PATCH;
    if (text) *text = TC_VERSION_STRING;
  });
}

TC_API int32_t tc_abi_version(int32_t* out) {
  return api_noinit("tc_abi_version", [&] { *out_ptr(out, "out") = TC_ABI_VERSION; });
}

TC_API int32_t tc_status_name(int32_t code, const char** out) {
  return api_noinit("tc_status_name", [&] {
    out_ptr(out, "out");
    const char* name = status_name(code);
    TC_CHECK(name != nullptr, TC_ERR_INVALID_ARGUMENT, "unknown status code ", code, " (expected 0..",
             TC_STATUS_COUNT - 1, ")");
    *out = name;
  });
}

TC_API int32_t tc_last_error(const char** out) {
  return api_noinit("tc_last_error", [&] { *out_ptr(out, "out") = last_error_message().c_str(); });
}

TC_API int32_t tc_last_error_code(int32_t* out) {
  return api_noinit("tc_last_error_code", [&] { *out_ptr(out, "out") = last_error_code(); });
}

TC_API int32_t tc_last_error_copy(char* buf, int64_t cap, int64_t* needed) {
  // Copy the message first: a failure of this call would overwrite it.
  std::string message;
  try {
    message = last_error_message();
  } catch (...) {
  }
  return api_noinit("tc_last_error_copy", [&] { copy_out(message, buf, cap, needed); });
}

TC_API int32_t tc_set_last_error(int32_t code, const char* message) {
  bool valid = false;
  const int32_t rc = api_noinit("tc_set_last_error", [&] {
    TC_CHECK(code > TC_OK && code < TC_STATUS_COUNT, TC_ERR_INVALID_ARGUMENT,
             "code must be a TC_ERR_* value but is ", code);
    valid = true;
  });
  if (valid) set_last_error_raw(code, message);
  return rc;
}

TC_API int32_t tc_init(const tc_init_options* options) {
  return api_noinit("tc_init", [&] {
    tc_init_options o{};
    if (options) {
      TC_CHECK(
          options->size >= offsetof(tc_init_options, num_threads) + sizeof(int32_t) && options->size <= 4096,
          TC_ERR_INVALID_ARGUMENT, "options->size is ", options->size,
          "; set it to sizeof(tc_init_options) (", sizeof(tc_init_options), ")");
      // An older caller's smaller struct: the fields it lacks stay zero.
      std::memcpy(&o, options, std::min<size_t>(options->size, sizeof(o)));
    }
    InitOptions core;
    core.num_threads = o.num_threads;
    core.use_seed = o.use_seed != 0;
    core.seed = o.seed;
    core.eager_backends = o.eager_backends != 0;
    init(core);
  });
}

TC_API int32_t tc_shutdown(void) {
  return api_noinit("tc_shutdown", [&] { shutdown(); });
}

TC_API int32_t tc_is_initialized(int32_t* out) {
  return api_noinit("tc_is_initialized", [&] { *out_ptr(out, "out") = is_initialized() ? 1 : 0; });
}

TC_API int32_t tc_init_stage_count(int64_t* out) {
  return api("tc_init_stage_count", [&] { *out_ptr(out, "out") = int64_t(stage_snapshot().size()); });
}

TC_API int32_t tc_init_stage(int64_t index, tc_stage_info* out) {
  return api("tc_init_stage", [&] {
    out_ptr(out, "out");
    TC_CHECK(out->size >= sizeof(tc_stage_info), TC_ERR_INVALID_ARGUMENT, "out->size is ", out->size,
             "; set it to sizeof(tc_stage_info) (", sizeof(tc_stage_info), ")");
    const StageInfo* s = stage_at(index);
    TC_CHECK(s != nullptr, TC_ERR_INDEX, "stage index ", index, " is out of range (", stage_snapshot().size(),
             " stages)");
    out->state = s->state;
    out->name = s->name.c_str();
    out->message = s->message.c_str();
    out->duration_ms = s->duration_ms;
    out->required = s->required ? 1 : 0;
  });
}

TC_API int32_t tc_init_report(char* buf, int64_t cap, int64_t* needed) {
  return api("tc_init_report", [&] { copy_out(init_report(), buf, cap, needed); });
}

TC_API int32_t tc_backend_init(const char* name) {
  return api("tc_backend_init", [&] { ensure_backend(in_ptr(name, "name")); });
}

TC_API int32_t tc_config(char* buf, int64_t cap, int64_t* needed) {
  return api("tc_config", [&] { copy_out(config_report(), buf, cap, needed); });
}

TC_API int32_t tc_get_flag(const char* name, int64_t* out) {
  return api("tc_get_flag", [&] {
    out_ptr(out, "out");
    *out = get_flag(name);
  });
}

TC_API int32_t tc_set_flag(const char* name, int64_t value) {
  return api("tc_set_flag", [&] { set_flag(name, value); });
}

TC_API int32_t tc_flag_count(int64_t* out) {
  return api("tc_flag_count", [&] { *out_ptr(out, "out") = flag_count(); });
}

TC_API int32_t tc_flag_info(int64_t index, const char** name, int32_t* settable) {
  return api("tc_flag_info", [&] {
    out_ptr(name, "name");
    out_ptr(settable, "settable");
    TC_CHECK(flag_name(index) != nullptr, TC_ERR_INDEX, "flag index ", index, " is out of range (",
             flag_count(), " flags)");
    *name = flag_name(index);
    *settable = flag_settable(index) ? 1 : 0;
  });
}

TC_API int32_t tc_dtype_name(int32_t dtype, const char** out) {
  return api("tc_dtype_name", [&] {
    out_ptr(out, "out");
    *out = tc::dtype_name(dtype_arg(dtype, "dtype"));
  });
}

TC_API int32_t tc_dtype_size(int32_t dtype, int64_t* out) {
  return api("tc_dtype_size", [&] {
    out_ptr(out, "out");
    *out = tc::dtype_size(dtype_arg(dtype, "dtype"));
  });
}

TC_API int32_t tc_dtype_from_name(const char* name, int32_t* out) {
  return api("tc_dtype_from_name", [&] {
    out_ptr(out, "out");
    in_ptr(name, "name");
    static const struct {
      const char* name;
      int32_t code;
    } aliases[] = {{"float", TC_FLOAT32},    {"double", TC_FLOAT64},    {"half", TC_FLOAT16},
                   {"long", TC_INT64},       {"int", TC_INT32},         {"short", TC_INT16},
                   {"cfloat", TC_COMPLEX64}, {"cdouble", TC_COMPLEX128}};
    for (int32_t d = 0; d < TC_DTYPE_COUNT; ++d) {
      if (std::strcmp(name, tc::dtype_name(DType(d))) == 0) {
        *out = d;
        return;
      }
    }
    for (const auto& a : aliases) {
      if (std::strcmp(name, a.name) == 0) {
        *out = a.code;
        return;
      }
    }
    fail(TC_ERR_DTYPE, str("unknown dtype name '", name, "'"));
  });
}

TC_API int32_t tc_promote_types(int32_t a, int32_t b, int32_t* out) {
  return api("tc_promote_types", [&] {
    out_ptr(out, "out");
    *out = int32_t(promote_types(dtype_arg(a, "a"), dtype_arg(b, "b")));
  });
}

TC_API int32_t tc_device_name(int32_t device, char* buf, int64_t cap, int64_t* needed) {
  return api("tc_device_name", [&] {
    const int32_t type = device >> 16;
    TC_CHECK(type == TC_DEVICE_CPU || type == TC_DEVICE_CUDA, TC_ERR_INVALID_ARGUMENT, "unknown device code ",
             device);
    copy_out(tc::device_name(device), buf, cap, needed);
  });
}

TC_API int32_t tc_device_from_name(const char* name, int32_t* out) {
  return api("tc_device_from_name", [&] {
    out_ptr(out, "out");
    in_ptr(name, "name");
    if (std::strcmp(name, "cpu") == 0) {
      *out = TC_CPU;
      return;
    }
    if (std::strncmp(name, "cuda", 4) == 0) {
      int64_t index = 0;
      if (name[4] == ':') {
        char* end = nullptr;
        index = std::strtoll(name + 5, &end, 10);
        TC_CHECK(end != name + 5 && *end == '\0' && index >= 0 && index < 0x10000, TC_ERR_INVALID_ARGUMENT,
                 "bad device index in '", name, "'");
      } else {
        TC_CHECK(name[4] == '\0', TC_ERR_INVALID_ARGUMENT, "unknown device name '", name, "'");
      }
      *out = TC_DEVICE(TC_DEVICE_CUDA, int32_t(index));
      return;
    }
    fail(TC_ERR_INVALID_ARGUMENT, str("unknown device name '", name, "' (expected cpu, cuda or cuda:N)"));
  });
}

TC_API int32_t tc_manual_seed(uint64_t seed) {
  return api("tc_manual_seed", [&] { rng_manual_seed(seed); });
}

TC_API int32_t tc_initial_seed(uint64_t* out) {
  return api("tc_initial_seed", [&] { *out_ptr(out, "out") = rng_initial_seed(); });
}

TC_API int32_t tc_get_rng_state(tc_tensor* out) {
  return api(__func__, [&] {
    out_ptr(out, "out");
    const PhiloxState st = rng_get_state();
    Tensor t = empty(Dims{TC_RNG_STATE_BYTES}, DType::u8, kCPU);
    auto* p = t->data_as<uint8_t>();
    for (int i = 0; i < 8; ++i) {
      p[i] = uint8_t(st.seed >> (8 * i));
      p[8 + i] = uint8_t(st.offset >> (8 * i));
    }
    *out = new_handle(std::move(t));
  });
}

TC_API int32_t tc_set_rng_state(tc_tensor state) {
  return api(__func__, [&] {
    const Tensor t = get_tensor(state, "state");
    TC_CHECK(t->dtype == DType::u8, TC_ERR_DTYPE,
             "state must be a uint8 tensor (from tc_get_rng_state), got ", dtype_name(t->dtype));
    TC_CHECK(t->ndim() == 1 && t->shape[0] == TC_RNG_STATE_BYTES, TC_ERR_SHAPE, "state must have shape [",
             TC_RNG_STATE_BYTES, "] (from tc_get_rng_state), got ", t->shape);
    const Tensor host = contiguous(to_device(t, kCPU));
    const auto* p = host->data_as<const uint8_t>();
    PhiloxState st{0, 0};
    for (int i = 0; i < 8; ++i) {
      st.seed |= uint64_t(p[i]) << (8 * i);
      st.offset |= uint64_t(p[8 + i]) << (8 * i);
    }
    rng_set_state(st);
  });
}
