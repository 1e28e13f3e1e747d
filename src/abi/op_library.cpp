// tc_* functions of tc.h's section on custom op libraries: loading a library
// (its entry point registers ops through a registrar, all or none), finding
// and calling its ops.
#include "abi/op_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>

#include "abi/callbacks.h"
#include "abi/custom_call.h"

using namespace tc;
using oplib::ArgKind;

namespace {

// One entry point running now: what it registered so far and its first
// failure. reg_ctx is its token, looked up in g_active, so that a registrar
// call outside registration is refused instead of touching freed memory.
struct Registration {
  std::shared_ptr<oplib::Library> library;
  std::vector<std::shared_ptr<oplib::Op>> ops;
  bool failed = false;
  int32_t code = TC_OK;
  std::string message;
};
std::mutex g_active_mu;
std::map<uint64_t, Registration*> g_active;
uint64_t g_next_token = 1;

// Loads run one at a time (a second load of the same library must find the
// first one's result); recursive: an entry point may load another library.
std::recursive_mutex g_load_mu;

int32_t registrar_register_op(void* reg_ctx, const tc_op_def* def) {
  const uint64_t token = reinterpret_cast<uint64_t>(reg_ctx);
  Registration* reg = nullptr;
  int32_t code = TC_OK;
  std::string message;
  try {
    std::lock_guard<std::mutex> g(g_active_mu);
    auto it = g_active.find(token);
    TC_CHECK(it != g_active.end(), TC_ERR_INVALID_ARGUMENT,
             "register_op was called outside registration (reg_ctx is valid only while tc_load_library runs "
             "the library's entry point)");
    reg = it->second;
    in_ptr(def, "def");
    constexpr size_t kMin = offsetof(tc_op_def, context) + sizeof(void*);
    TC_CHECK(def->size >= kMin && def->size <= 4096, TC_ERR_INVALID_ARGUMENT, "def->size is ", def->size,
             "; set it to sizeof(tc_op_def) (", sizeof(tc_op_def), ")");
    tc_op_def d{};
    std::memcpy(&d, def, std::min<size_t>(def->size, sizeof d));
    TC_CHECK(d.abi_version == TC_OP_LIBRARY_ABI_VERSION, TC_ERR_INVALID_ARGUMENT, "the op library '",
             reg->library->path, "' was built for op library ABI version ", d.abi_version,
             " but libtc has version ", TC_OP_LIBRARY_ABI_VERSION);
    in_ptr(d.schema, "def->schema");
    TC_CHECK(d.forward != nullptr, TC_ERR_INVALID_ARGUMENT, "def->forward of '", d.schema,
             "' must not be NULL");
    auto op = std::make_shared<oplib::Op>();
    op->schema = oplib::parse_schema(d.schema);
    op->forward = d.forward;
    op->backward = d.backward;
    op->context = d.context;
    op->library = reg->library;
    const std::string name = op->schema.full_name();
    for (const auto& o : reg->ops)
      TC_CHECK(o->schema.full_name() != name, TC_ERR_INVALID_ARGUMENT, "op '", name,
               "' is registered twice by '", reg->library->path, "'");
    TC_CHECK(!oplib::is_registered(name), TC_ERR_INVALID_ARGUMENT, "op '", name,
             "' is already registered by another library");
    reg->ops.push_back(std::move(op));
    return TC_OK;
  } catch (const Error& e) {
    code = e.code();
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = TC_ERR_OUT_OF_MEMORY;
    message = "out of memory";
  } catch (...) {
    code = TC_ERR_INTERNAL;
    message = "unexpected exception";
  }
  message = "register_op: " + message;
  set_last_error_raw(code, message.c_str());
  try {
    std::lock_guard<std::mutex> g(g_active_mu);
    if (reg && g_active.count(token) && !reg->failed) {
      reg->failed = true;
      reg->code = code;
      reg->message = message;
    }
  } catch (...) {
  }
  return code;
}

const tc_op_registrar kRegistrar = {sizeof(tc_op_registrar), TC_OP_LIBRARY_ABI_VERSION,
                                    registrar_register_op};

// Takes a token for reg and removes it when it dies.
class ActiveRegistration {
 public:
  explicit ActiveRegistration(Registration* reg) {
    std::lock_guard<std::mutex> g(g_active_mu);
    token_ = g_next_token++;
    g_active.emplace(token_, reg);
  }
  ~ActiveRegistration() {
    std::lock_guard<std::mutex> g(g_active_mu);
    g_active.erase(token_);
  }
  void* reg_ctx() const { return reinterpret_cast<void*>(token_); }
  ActiveRegistration(const ActiveRegistration&) = delete;
  ActiveRegistration& operator=(const ActiveRegistration&) = delete;

 private:
  uint64_t token_ = 0;
};

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

std::shared_ptr<oplib::LibraryRef> load(const std::string& path) {
  std::lock_guard<std::recursive_mutex> serial(g_load_mu);
  dlerror();
  void* dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  TC_CHECK(dl != nullptr, TC_ERR_IO, "cannot load the op library '", path, "': ", dl_error());
  std::shared_ptr<oplib::Library> library;
  try {
    library = std::make_shared<oplib::Library>(path, dl);
  } catch (...) {
    dlclose(dl);
    throw;
  }
  if (auto ref = oplib::find_loaded(dl)) return ref;  // library's death closes this dlopen's reference
  dlerror();
  void* entry = dlsym(dl, TC_OP_LIBRARY_ENTRY);
  TC_CHECK(entry != nullptr, TC_ERR_IO, "'", path, "' is not an op library: it exports no ",
           TC_OP_LIBRARY_ENTRY, " (", dl_error(), ")");
  auto init = reinterpret_cast<tc_op_library_init_fn>(entry);
  Registration reg;
  reg.library = library;
  {
    ActiveRegistration active(&reg);
    try {
      run_callback(str("the entry point of op library '", path, "'"),
                   [&] { return init(&kRegistrar, active.reg_ctx()); });
    } catch (const Error& e) {
      if (!reg.failed || e.code() == TC_ERR_NOT_INITIALIZED) throw;
    }
  }
  TC_CHECK(!reg.failed, reg.code, "op library '", path,
           "' failed to register its ops (none was registered): ", reg.message);
  return oplib::commit(library, reg.ops);
}

std::shared_ptr<oplib::LibraryRef> get_library(tc_library h, const char* arg) {
  return std::static_pointer_cast<oplib::LibraryRef>(
      handle_get(reinterpret_cast<uint64_t>(h), HandleKind::library, arg));
}
std::shared_ptr<oplib::Op> get_op(tc_op h, const char* arg) {
  return std::static_pointer_cast<oplib::Op>(handle_get(reinterpret_cast<uint64_t>(h), HandleKind::op, arg));
}

void call_op(const std::shared_ptr<oplib::Op>& op, const tc_tensor* inputs, int64_t n_inputs,
             const double* scalars, int64_t n_scalars, tc_tensor* outputs, int64_t cap, int64_t* count) {
  const oplib::Schema& sc = op->schema;
  const std::string name = sc.full_name();
  TC_CHECK(n_inputs == sc.n_tensors, TC_ERR_INVALID_ARGUMENT, "op '", name, "' takes ", sc.n_tensors,
           " tensors but n_inputs is ", n_inputs, " (", sc.canonical(), ")");
  TC_CHECK(n_scalars == sc.n_scalars, TC_ERR_INVALID_ARGUMENT, "op '", name, "' takes ", sc.n_scalars,
           " scalars but n_scalars is ", n_scalars, " (", sc.canonical(), ")");
  TC_CHECK(n_inputs == 0 || inputs != nullptr, TC_ERR_INVALID_ARGUMENT,
           "inputs must not be NULL when n_inputs is ", n_inputs);
  TC_CHECK(n_scalars == 0 || scalars != nullptr, TC_ERR_INVALID_ARGUMENT,
           "scalars must not be NULL when n_scalars is ", n_scalars);
  TC_CHECK(cap >= 0, TC_ERR_INVALID_ARGUMENT, "cap must be >= 0 but is ", cap);
  TC_CHECK(cap == 0 || outputs != nullptr, TC_ERR_INVALID_ARGUMENT, "outputs must not be NULL when cap is ",
           cap);
  TC_CHECK(cap >= sc.n_outputs, TC_ERR_INVALID_ARGUMENT, "cap is ", cap, " but op '", name, "' makes ",
           sc.n_outputs, " outputs");
  out_ptr(count, "count");
  std::vector<Tensor> in;
  std::vector<double> sv;
  int64_t ti = 0, si = 0;
  for (const auto& arg : sc.args) {
    if (arg.first == ArgKind::tensor) {
      in.push_back(get_tensor(inputs[ti], str("inputs[", ti, "] (", arg.second, " of ", name, ")").c_str()));
      ++ti;
      continue;
    }
    const double v = scalars[si];
    if (arg.first == ArgKind::int_)
      TC_CHECK(std::isfinite(v) && v == std::trunc(v) && std::fabs(v) <= 9007199254740992.0,
               TC_ERR_INVALID_ARGUMENT, "scalars[", si, "] (int ", arg.second, " of ", name,
               ") must be an integer of magnitude at most 2^53 but is ", v);
    sv.push_back(v);
    ++si;
  }
  oplib::Op* raw = op.get();
  CustomCall call;
  call.name = name + "Backward";
  call.what = str("op '", name, "'");
  call.expected_outputs = sc.n_outputs;
  call.forward = [raw, &sv, n_inputs](const tc_tensor* hin, const int32_t* needs, tc_tensor* outs,
                                      int64_t* n_out, tc_tensor* saved, int64_t* n_saved) {
    return raw->forward(raw->context, hin, n_inputs, sv.data(), int64_t(sv.size()), needs, outs, n_out, saved,
                        n_saved);
  };
  if (op->backward) {
    // The node holds the op (so its library stays mapped) and the scalars.
    call.backward = [op, sv](const tc_tensor* saved, int64_t n_saved, const tc_tensor* grads, int64_t n_out,
                             const int32_t* needs, tc_tensor* gin, int64_t n_in) {
      return op->backward(op->context, sv.data(), int64_t(sv.size()), saved, n_saved, grads, n_out, needs,
                          gin, n_in);
    };
  }
  const std::vector<Tensor> outs = apply_custom(call, in, cap);
  new_handles(outs, outputs);
  *count = int64_t(outs.size());
}

}  // namespace

TC_API int32_t tc_load_library(const char* path, tc_library* out) {
  return api("tc_load_library", [&] {
    const std::string p = in_ptr(path, "path");
    out_ptr(out, "out");
    auto ref = load(p);
    *out = reinterpret_cast<tc_library>(handle_insert(HandleKind::library, std::move(ref)));
  });
}

TC_API int32_t tc_library_unload(tc_library lib) {
  return api("tc_library_unload",
             [&] { handle_remove(reinterpret_cast<uint64_t>(lib), HandleKind::library, "lib"); });
}

TC_API int32_t tc_library_path(tc_library lib, char* buf, int64_t cap, int64_t* needed) {
  return api("tc_library_path", [&] { copy_out(get_library(lib, "lib")->library->path, buf, cap, needed); });
}

TC_API int32_t tc_op_count(int64_t* out) {
  return api("tc_op_count", [&] {
    out_ptr(out, "out");
    *out = int64_t(oplib::op_names().size());
  });
}

TC_API int32_t tc_op_name_at(int64_t index, char* buf, int64_t cap, int64_t* needed) {
  return api("tc_op_name_at", [&] {
    const std::vector<std::string> names = oplib::op_names();
    TC_CHECK(index >= 0 && index < int64_t(names.size()), TC_ERR_INDEX, "index ", index, " is out of range (",
             names.size(), " ops are registered)");
    copy_out(names[size_t(index)], buf, cap, needed);
  });
}

TC_API int32_t tc_op_find(const char* name, tc_op* out) {
  return api("tc_op_find", [&] {
    const std::string n = in_ptr(name, "name");
    out_ptr(out, "out");
    auto op = oplib::find_op(n);
    *out = reinterpret_cast<tc_op>(handle_insert(HandleKind::op, std::move(op)));
  });
}

TC_API int32_t tc_op_free(tc_op op) {
  return api("tc_op_free", [&] { handle_remove(reinterpret_cast<uint64_t>(op), HandleKind::op, "op"); });
}

TC_API int32_t tc_op_schema(tc_op op, char* buf, int64_t cap, int64_t* needed) {
  return api("tc_op_schema", [&] { copy_out(get_op(op, "op")->schema.canonical(), buf, cap, needed); });
}

TC_API int32_t tc_op_library_path(tc_op op, char* buf, int64_t cap, int64_t* needed) {
  return api("tc_op_library_path", [&] { copy_out(get_op(op, "op")->library->path, buf, cap, needed); });
}

TC_API int32_t tc_op_call(tc_op op, const tc_tensor* inputs, int64_t n_inputs, const double* scalars,
                          int64_t n_scalars, tc_tensor* outputs, int64_t cap, int64_t* count) {
  return api("tc_op_call",
             [&] { call_op(get_op(op, "op"), inputs, n_inputs, scalars, n_scalars, outputs, cap, count); });
}

TC_API int32_t tc_op_call_by_name(const char* name, const tc_tensor* inputs, int64_t n_inputs,
                                  const double* scalars, int64_t n_scalars, tc_tensor* outputs, int64_t cap,
                                  int64_t* count) {
  return api("tc_op_call_by_name", [&] {
    call_op(oplib::find_op(in_ptr(name, "name")), inputs, n_inputs, scalars, n_scalars, outputs, cap, count);
  });
}
