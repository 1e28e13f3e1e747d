// The misuse suite's helpers (declared in misuse_harness.h).
#include "misuse_harness.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tc_binary_ops.h"

namespace misuse {
const char* bad_name(Bad b) {
  switch (b) {
    case Bad::none:
      return "valid";
    case Bad::null:
      return "NULL";
    case Bad::freed:
      return "freed handle";
    case Bad::stale:
      return "stale handle (from before tc_shutdown)";
    case Bad::garbage:
      return "forged handle (live slot, wrong generation)";
    case Bad::pointer:
      return "a pointer cast to a handle";
    case Bad::wrong_kind:
      return "wrong-kind handle";
  }
  return "?";
}

Extra make_extra(std::string what, std::vector<int32_t> expected, Call c) {
  return Extra{std::move(what), std::move(expected), std::move(c)};
}

Entry make_entry(const char* name, void* addr, std::string sig, Call c, std::vector<Extra> extras) {
  Entry e;
  e.name = name;
  e.addr = addr;
  e.sig = std::move(sig);
  e.call = std::move(c);
  e.extras = std::move(extras);
  return e;
}

Entry with_ok(Entry e, std::vector<int32_t> ok) {
  e.ok = std::move(ok);
  return e;
}

Entry with_pre(Entry e, std::vector<int32_t> pre) {
  e.pre = std::move(pre);
  return e;
}

Entry with_cleanup(Entry e, std::function<void(M&)> c) {
  e.cleanup = std::move(c);
  return e;
}

// ---- helpers that make fresh objects (guarded: the function may be missing) ----

tc_tensor make_f32(std::initializer_list<int64_t> shape, float start) {
  std::vector<int64_t> s(shape);
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + 0.25f * float(i % 7);
  tc_tensor t = nullptr;
  if (tc_from_data(v.data(), int64_t(n * 4), s.data(), int64_t(s.size()), TC_FLOAT32, &t) != TC_OK)
    return nullptr;
  return t;
}

tc_tensor make_i64(std::initializer_list<int64_t> shape, std::initializer_list<int64_t> values) {
  std::vector<int64_t> s(shape), v(values);
  tc_tensor t = nullptr;
  if (tc_from_data(v.data(), int64_t(v.size() * 8), s.data(), int64_t(s.size()), TC_INT64, &t) != TC_OK)
    return nullptr;
  return t;
}

tc_tensor make(int32_t dtype, std::initializer_list<int64_t> shape) {
  std::vector<int64_t> s(shape);
  tc_tensor t = nullptr;
  if (tc_ones(s.data(), int64_t(s.size()), dtype, TC_CPU, &t) != TC_OK) return nullptr;
  return t;
}

// sum(p * p): a scalar root with a graph (fresh for every backward).
tc_tensor make_root(M& m) {
  if (!HAVE(tc_mul) || !HAVE(tc_sum)) return nullptr;
  tc_tensor sq = nullptr, r = nullptr;
  if (tc_mul(m.f.p, m.f.p, &sq) != TC_OK) return nullptr;
  tc_sum(sq, nullptr, 0, 0, &r);
  tc_tensor_free(sq);
  return r;
}

tc_optimizer make_sgd(tc_tensor p) {
  if (!HAVE(tc_optimizer_sgd)) return nullptr;
  tc_sgd_options o{};
  o.size = sizeof o;
  o.lr = 0.1;
  tc_optimizer opt = nullptr;
  if (tc_optimizer_sgd(&p, 1, &o, &opt) != TC_OK) return nullptr;
  return opt;
}

tc_tensor_dict make_dict(tc_tensor a) {
  if (!HAVE(tc_tensor_dict_create) || !HAVE(tc_tensor_dict_set) || !HAVE(tc_tensor_dict_set_metadata))
    return nullptr;
  tc_tensor_dict d = nullptr;
  if (tc_tensor_dict_create(&d) != TC_OK) return nullptr;
  if (tc_tensor_dict_set(d, "a", a) != TC_OK || tc_tensor_dict_set_metadata(d, "k", "v") != TC_OK) {
    tc_tensor_dict_free(d);
    return nullptr;
  }
  return d;
}

// A small valid safetensors file, written byte for byte (not by libtc):
// {"x": F32 [2] = {1, 2}}. Its path stays valid for the whole process.
const char* fixture_file() {
  static const std::string path = [] {
    const std::string p = "/tmp/tc_misuse_" + std::to_string(::getpid()) + ".safetensors";
    std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    header.append((8 - header.size() % 8) % 8, ' ');
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[size_t(i)] = char((header.size() >> (8 * i)) & 0xff);
    const float v[2] = {1.0f, 2.0f};
    bytes += header + std::string(reinterpret_cast<const char*>(v), sizeof v);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }();
  struct RemoveAtExit {
    ~RemoveAtExit() { std::remove(path.c_str()); }
  };
  static RemoveAtExit remove_at_exit;
  return path.c_str();
}

// The same bytes in memory.
std::string fixture_bytes() {
  std::ifstream in(fixture_file(), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void free_t(tc_tensor& t) {
  if (t) tc_tensor_free(t);
  t = nullptr;
}

void free_dlpack(void* p) {
  auto* m = static_cast<DLManagedTensorVersioned*>(p);
  if (m && m->deleter) m->deleter(m);
}

DlBox* make_dl_box() {
  auto* box = new DlBox();
  box->shape[0] = 2;
  box->shape[1] = 3;
  box->m.dl_tensor.data = box->data;
  box->m.dl_tensor.device = DLDevice{kDLCPU, 0};
  box->m.dl_tensor.ndim = 2;
  box->m.dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
  box->m.dl_tensor.shape = box->shape;
  box->m.dl_tensor.strides = nullptr;
  box->m.dl_tensor.byte_offset = 0;
  box->m.manager_ctx = box;
  box->m.deleter = [](DLManagedTensor* self) { delete static_cast<DlBox*>(self->manager_ctx); };
  return box;
}

// A size-1 "mpi" group (options NULL), or NULL when MPI is not usable here.
// Open MPI 4.1's singleton start races when two processes create its session
// directory at the same moment ("orte_session_dir failed ... File exists"),
// and ctest runs these rows' processes in parallel: each process that makes a
// group gets a session-directory base of its own (removed at exit).
void private_mpi_session_dir() {
  static const bool done = [] {
    if (getenv("OMPI_MCA_orte_tmpdir_base")) return true;
    static char dir[] = "/tmp/tc_misuse_ompi_XXXXXX";
    if (!mkdtemp(dir)) return false;
    setenv("OMPI_MCA_orte_tmpdir_base", dir, 1);
    atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    });
    return true;
  }();
  (void)done;
}

tc_process_group make_group() {
  if (!HAVE(tc_process_group_create)) return nullptr;
  private_mpi_session_dir();
  tc_process_group g = nullptr;
  if (tc_process_group_create("mpi", nullptr, &g) != TC_OK) return nullptr;
  return g;
}

// A completed work (an asynchronous barrier, waited for).
tc_work make_work(tc_process_group g) {
  if (!g || !HAVE(tc_barrier) || !HAVE(tc_work_wait)) return nullptr;
  tc_work w = nullptr;
  if (tc_barrier(g, &w) != TC_OK) return nullptr;
  tc_work_wait(w, 0);
  return w;
}

bool uses_group(const std::string& sig) { return sig.find_first_of("GW") != std::string::npos; }

// Entries whose valid call needs a usable "mpi" backend: those taking a group
// or a work, and tc_process_group_create itself.
bool needs_group(const Entry& e) {
  return uses_group(e.sig) || std::string(e.name) == "tc_process_group_create";
}

void free_pg_out(M& m) {
  if (m.o.pg && reinterpret_cast<tc_tensor>(m.o.pg) != sentinel_handle()) tc_process_group_free(m.o.pg);
}

tc_process_group_options pg_options() {
  tc_process_group_options o{};
  o.size = sizeof o;
  return o;
}

// Callbacks that do nothing (hooks, a custom function's identity forward).
int32_t noop_grad_hook(void*, tc_tensor, tc_tensor*) { return TC_OK; }

int32_t noop_post_hook(void*, tc_tensor) { return TC_OK; }

int32_t noop_pack_hook(void*, tc_tensor, uint64_t* token) {
  *token = 1;
  return TC_OK;
}

int32_t noop_unpack_hook(void*, uint64_t, tc_tensor*) { return TC_OK; }

int32_t identity_forward(void*, const tc_tensor* in, int64_t n, const int32_t*, tc_tensor* out,
                         int64_t* n_out, tc_tensor*, int64_t*) {
  if (n < 1) return TC_OK;
  *n_out = 1;
  return tc_tensor_retain(in[0], &out[0]);
}

int32_t failing_forward(void*, const tc_tensor*, int64_t, const int32_t*, tc_tensor*, int64_t*, tc_tensor*,
                        int64_t*) {
  tc_set_last_error(TC_ERR_CALLBACK, "the forward refuses");
  return TC_ERR_CALLBACK;
}

int32_t identity_backward(void*, const tc_tensor*, int64_t, const tc_tensor* g, int64_t, const int32_t*,
                          tc_tensor* gin, int64_t) {
  return tc_tensor_retain(g[0], &gin[0]);
}

tc_function_def identity_def() {
  tc_function_def d{};
  d.size = sizeof d;
  d.name = "IdentityBackward";
  d.forward = identity_forward;
  d.backward = identity_backward;
  return d;
}

bool is_sentinel(const void* p) {
  uintptr_t v;
  std::memset(&v, 0xA5, sizeof v);
  return reinterpret_cast<uintptr_t>(p) == v;
}

void free_node_out(M& m) {
  for (tc_node n : m.o.node)
    if (n && !is_sentinel(n)) tc_node_free(n);
}

tc_tensor_options new_options(const int64_t* s, int64_t n, int32_t d, int32_t dev, int32_t fill) {
  tc_tensor_options o{};
  o.size = sizeof o;
  o.shape = s;
  o.ndim = n;
  o.dtype = d;
  o.device = dev;
  o.fill = fill;
  return o;
}
int g_blob_deletes = 0;
float g_blob[6] = {1, 2, 3, 4, 5, 6};

void count_delete(void*, void*) { ++g_blob_deletes; }

// Cases shared by tensor-out unary ops: none beyond the signature. Binary ops:
std::vector<Extra> binary_extras(int32_t (*fn)(tc_tensor, tc_tensor, tc_tensor*), bool bool_ok) {
  std::vector<Extra> x = {
      X("shapes that do not broadcast ([2,3] and [3,2])", {TC_ERR_SHAPE},
        [fn](M& m) { return fn(m.f.a, m.f.bt, m.O(9)); }),
      X("shapes that do not broadcast ([3] and [2,3]^T)", {TC_ERR_SHAPE},
        [fn](M& m) { return fn(m.f.bt, m.f.v, m.O(9)); }),
  };
  if (!bool_ok)
    x.push_back(X("bool arithmetic", {TC_ERR_DTYPE}, [fn](M& m) { return fn(m.f.cond, m.f.cond, m.O(9)); }));
  return x;
}

// The integer-only binary rows (bitwise ops, shifts): floats refused; bool
// too for the shifts.
std::vector<Extra> integral_binary_extras(int32_t (*fn)(tc_tensor, tc_tensor, tc_tensor*), bool bool_ok) {
  std::vector<Extra> x = {
      X("floating operands", {TC_ERR_DTYPE}, [fn](M& m) { return fn(m.f.a, m.f.b, m.O(9)); }),
      X("an int32 and a float32 operand", {TC_ERR_DTYPE}, [fn](M& m) { return fn(m.f.i32, m.f.a, m.O(9)); }),
  };
  if (!bool_ok)
    x.push_back(X("bool operands", {TC_ERR_DTYPE}, [fn](M& m) { return fn(m.f.cond, m.f.cond, m.O(9)); }));
  return x;
}

std::vector<Extra> reduce_extras(std::function<int32_t(M&, const int64_t*, int64_t)> fn) {
  return {
      X("dim 2 of a 2-D tensor", {TC_ERR_INDEX},
        [fn](M& m) {
          int64_t d[] = {2};
          return fn(m, d, 1);
        }),
      X("dim -3 of a 2-D tensor", {TC_ERR_INDEX},
        [fn](M& m) {
          int64_t d[] = {-3};
          return fn(m, d, 1);
        }),
      X("dim INT64_MIN", {TC_ERR_INDEX},
        [fn](M& m) {
          int64_t d[] = {kI64Min};
          return fn(m, d, 1);
        }),
      X("dim INT64_MAX", {TC_ERR_INDEX},
        [fn](M& m) {
          int64_t d[] = {kI64Max};
          return fn(m, d, 1);
        }),
      X("repeated dim", {TC_ERR_INVALID_ARGUMENT, TC_ERR_INDEX},
        [fn](M& m) {
          int64_t d[] = {1, -1};
          return fn(m, d, 2);
        }),
      X("ndims -1", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t d[] = {0};
          return fn(m, d, -1);
        }),
      X("ndims TC_MAX_DIMS+1", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t d[TC_MAX_DIMS + 1] = {};
          return fn(m, d, TC_MAX_DIMS + 1);
        }),
  };
}

std::vector<Extra> dim_extras(std::function<int32_t(M&, int64_t)> fn) {
  return {
      X("dim 2 of a 2-D tensor", {TC_ERR_INDEX}, [fn](M& m) { return fn(m, 2); }),
      X("dim -3 of a 2-D tensor", {TC_ERR_INDEX}, [fn](M& m) { return fn(m, -3); }),
      X("dim INT64_MAX", {TC_ERR_INDEX}, [fn](M& m) { return fn(m, kI64Max); }),
      X("dim INT64_MIN+1", {TC_ERR_INDEX}, [fn](M& m) { return fn(m, kI64Min + 1); }),
  };
}

// Several lists of extra cases as one (a generated row's role extras and its
// hand-written ones).
std::vector<Extra> concat(std::initializer_list<std::vector<Extra>> lists) {
  std::vector<Extra> x;
  for (const auto& l : lists) x.insert(x.end(), l.begin(), l.end());
  return x;
}

// Calls fn on an empty [0, 3] float32 tensor (the size-0 errors).
int32_t on_empty_f32(M& m, const std::function<int32_t(tc_tensor)>& fn) {
  int64_t s[] = {0, 3};
  tc_tensor e = nullptr;
  if (tc_zeros(s, 2, TC_FLOAT32, TC_CPU, &e) != TC_OK) return -1;
  const int32_t rc = m.done(fn(e));
  tc_tensor_free(e);
  return rc;
}

// The extra cases of generated rows (ops.toml's misuse_extras) that their
// argument roles do not give.
std::vector<Extra> amax_extras() {
  return {X("reduced dim of size 0", {TC_ERR_SHAPE}, [](M& m) {
    return on_empty_f32(m, [&m](tc_tensor e) {
      int64_t d[] = {0};
      return tc_amax(e, d, 1, 0, m.O(9));
    });
  })};
}

std::vector<Extra> norm_extras() {
  return {
      X("p NaN", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_norm(m.f.a, kNaN, nullptr, 0, 0, m.O(9)); }),
      X("int32 a", {TC_ERR_DTYPE}, [](M& m) { return tc_norm(m.f.i32, 2.0, nullptr, 0, 0, m.O(9)); })};
}

std::vector<Extra> var_extras() {
  return {X("correction -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
    int64_t d[] = {1};
    return tc_var(m.f.a, d, 1, -1, 0, m.O(9));
  })};
}

std::vector<Extra> logcumsumexp_extras() {
  return {X("int32 a", {TC_ERR_DTYPE}, [](M& m) { return tc_logcumsumexp(m.f.i32, 0, m.O(9)); })};
}

std::vector<Extra> tril_extras() {
  return {X("1-D a", {TC_ERR_SHAPE}, [](M& m) { return tc_tril(m.f.v, 0, m.O(9)); })};
}

std::vector<Extra> fft_extras() {
  return {X("n 0", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_fft_c2c(m.f.z, 1, 0, 0, 1, m.O(9)); }),
          X("normalization 3", {TC_ERR_INVALID_ARGUMENT},
            [](M& m) { return tc_fft_c2c(m.f.z, 1, -1, 3, 1, m.O(9)); }),
          X("0-dim a", {TC_ERR_SHAPE}, [](M& m) { return tc_fft_c2c(m.f.s, 0, -1, 0, 1, m.O(9)); })};
}

std::vector<Extra> triu_extras() {
  return {X("0-dim a", {TC_ERR_SHAPE}, [](M& m) { return tc_triu(m.f.s, 0, m.O(9)); })};
}

std::vector<Extra> reduction_extras(std::function<int32_t(M&, int32_t)> fn) {
  return {
      X("reduction 3", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m, 3); }),
      X("reduction -1", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m, -1); }),
      X("reduction INT32_MAX", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m, kI32Max); }),
  };
}

// The role extras of generated rows (tools/gen_ops.py): an int32 code out of
// its range [lo, hi]; an invalid dtype or device code; a list argument's bad
// counts (and a shape's negative size); a tensor list's bad count and entries.
std::vector<Extra> range_extras(const std::string& arg, int32_t lo, int32_t hi,
                                std::function<int32_t(M&, int32_t)> fn) {
  return {
      X(arg + " " + std::to_string(int64_t(lo) - 1), {TC_ERR_INVALID_ARGUMENT},
        [fn, lo](M& m) { return fn(m, lo - 1); }),
      X(arg + " " + std::to_string(int64_t(hi) + 1), {TC_ERR_INVALID_ARGUMENT},
        [fn, hi](M& m) { return fn(m, hi + 1); }),
      X(arg + " INT32_MIN", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) { return fn(m, std::numeric_limits<int32_t>::min()); }),
  };
}

std::vector<Extra> dtype_extras(std::function<int32_t(M&, int32_t)> fn) {
  return {
      X("dtype -1", {TC_ERR_DTYPE}, [fn](M& m) { return fn(m, -1); }),
      X("dtype TC_DTYPE_COUNT", {TC_ERR_DTYPE}, [fn](M& m) { return fn(m, TC_DTYPE_COUNT); }),
  };
}

std::vector<Extra> device_extras(std::function<int32_t(M&, int32_t)> fn) {
  return {
      X("device type 7", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m, TC_DEVICE(7, 0)); }),
      X("device -1", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m, -1); }),
  };
}

std::vector<Extra> ints_extras(const std::string& arg,
                               std::function<int32_t(M&, const int64_t*, int64_t)> fn) {
  return {
      X(arg + " count -1", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t v[] = {1};
          return fn(m, v, -1);
        }),
      X(arg + " count TC_MAX_DIMS+1", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t v[TC_MAX_DIMS + 1] = {};
          return fn(m, v, TC_MAX_DIMS + 1);
        }),
  };
}

std::vector<Extra> shape_extras(const std::string& arg,
                                std::function<int32_t(M&, const int64_t*, int64_t)> fn) {
  auto x = ints_extras(arg, fn);
  x.push_back(X(arg + " with a negative size", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) {
    int64_t v[] = {-1};
    return fn(m, v, 1);
  }));
  return x;
}

// (A tensors arg's entries are spoiled as handles: their letters in the row's
// signature.)
std::vector<Extra> tensors_extras(const std::string& arg,
                                  std::function<int32_t(M&, const tc_tensor*, int64_t)> fn) {
  return {
      X(arg + " count 0", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          tc_tensor v[] = {m.f.a};
          return fn(m, v, 0);
        }),
      X(arg + " count -1", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          tc_tensor v[] = {m.f.a};
          return fn(m, v, -1);
        }),
      X(arg + " count INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          tc_tensor v[] = {m.f.a};
          return fn(m, v, kI64Min);
        }),
  };
}

std::vector<Extra> copy_out_extras(std::function<int32_t(M&, char*, int64_t, int64_t*)> fn) {
  return {
      X("cap -1", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m, m.o.buf, -1, m.o.i64); }),
      X("cap INT64_MIN", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m, m.o.buf, kI64Min, m.o.i64); }),
      X("buf NULL with cap 8", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m, nullptr, 8, m.o.i64); }),
  };
}

// Calls fn on an expanded (stride-0) view of v, [3] -> [2, 3], which in-place
// writes must refuse; returns fn's status (the view is freed afterwards, and a
// successful call never clears the message).
int32_t with_expanded(M& m, const std::function<int32_t(tc_tensor)>& fn) {
  const int64_t shape[] = {2, 3};
  tc_tensor e = nullptr;
  if (tc_expand(m.f.v, shape, 2, &e) != TC_OK) return -1;
  const int32_t rc = fn(e);
  tc_tensor_free(e);
  return rc;
}

std::vector<Extra> inplace_binary_extras(int32_t (*fn)(tc_tensor, tc_tensor)) {
  return {
      X("read-only self", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          tc_tensor_set_readonly(m.f.bt);
          return fn(m.f.bt, m.f.bt);
        }),
      X("expanded self", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) { return with_expanded(m, [&](tc_tensor e) { return fn(e, m.f.b); }); }),
      X("other does not broadcast to self", {TC_ERR_SHAPE}, [fn](M& m) { return fn(m.f.a, m.f.bt); }),
      X("other larger than self", {TC_ERR_SHAPE}, [fn](M& m) { return fn(m.f.v, m.f.a); }),
      X("result dtype is not self's (int32 self, float32 other)", {TC_ERR_DTYPE},
        [fn](M& m) { return fn(m.f.i32, m.f.a); }),
      X("leaf that requires grad", {TC_ERR_AUTOGRAD}, [fn](M& m) { return fn(m.f.p, m.f.b); }),
  };
}

std::vector<Extra> init_fill_extras(std::function<int32_t(tc_tensor)> fn) {
  return {
      X("integer tensor", {TC_ERR_DTYPE}, [fn](M& m) { return fn(m.f.i32); }),
      X("read-only tensor", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          tc_tensor_set_readonly(m.f.bt);
          return fn(m.f.bt);
        }),
      X("expanded tensor", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return with_expanded(m, fn); }),
      X("leaf that requires grad is fine only without recording; bool tensor", {TC_ERR_DTYPE},
        [fn](M& m) { return fn(m.f.cond); }),
  };
}

// Index tensors and the extra cases of the index, scatter and along-dim ops.
int32_t with_index(M& m, std::initializer_list<int64_t> shape, std::initializer_list<int64_t> values,
                   const std::function<int32_t(tc_tensor)>& call) {
  tc_tensor ix = make_i64(shape, values);
  const int32_t rc = m.done(call(ix));
  free_t(ix);
  return rc;
}

std::vector<Extra> index_extras(const std::function<int32_t(M&, const tc_tensor*, int64_t)>& call) {
  return std::vector<Extra>{
      X("count -1", {TC_ERR_INVALID_ARGUMENT},
        [call](M& m) {
          tc_tensor ts[] = {nullptr, m.f.cls};
          return call(m, ts, -1);
        }),
      X("count INT64_MAX", {TC_ERR_INVALID_ARGUMENT},
        [call](M& m) {
          tc_tensor ts[] = {nullptr, m.f.cls};
          return call(m, ts, kI64Max);
        }),
      X("3 indices for 2 dims", {TC_ERR_INDEX},
        [call](M& m) {
          tc_tensor ts[] = {nullptr, nullptr, m.f.cls};
          return call(m, ts, 3);
        }),
      X("float index", {TC_ERR_DTYPE},
        [call](M& m) {
          tc_tensor ts[] = {m.f.v};
          return call(m, ts, 1);
        }),
      X("index 3 along a dim of size 3", {TC_ERR_INDEX},
        [call](M& m) {
          return with_index(m, {1}, {3}, [&](tc_tensor ix) {
            tc_tensor ts[] = {nullptr, ix};
            return call(m, ts, 2);
          });
        }),
      X("index INT64_MIN", {TC_ERR_INDEX},
        [call](M& m) {
          return with_index(m, {1}, {kI64Min}, [&](tc_tensor ix) {
            tc_tensor ts[] = {ix};
            return call(m, ts, 1);
          });
        }),
      X("mask of another shape", {TC_ERR_INDEX},
        [call](M& m) {
          tc_tensor ts[] = {nullptr, m.f.cond};
          return call(m, ts, 2);
        }),
      X("indices that do not broadcast", {TC_ERR_SHAPE},
        [call](M& m) {
          tc_tensor ts[] = {m.f.cls, m.f.ia};
          return call(m, ts, 2);
        }),
  };
}

std::vector<Extra> scatter_extras(const std::function<int32_t(M&, int64_t, tc_tensor)>& call) {
  auto x = dim_extras([call](M& m, int64_t d) { return call(m, d, m.f.ia); });
  x.push_back(X("float index", {TC_ERR_DTYPE}, [call](M& m) { return call(m, 0, m.f.b); }));
  x.push_back(X("index of another ndim", {TC_ERR_SHAPE}, [call](M& m) { return call(m, 0, m.f.cls); }));
  x.push_back(X("index value 2 along a dim of size 2", {TC_ERR_INDEX}, [call](M& m) {
    return with_index(m, {1, 1}, {2}, [&](tc_tensor ix) { return call(m, 0, ix); });
  }));
  x.push_back(X("index value -1", {TC_ERR_INDEX}, [call](M& m) {
    return with_index(m, {1, 1}, {-1}, [&](tc_tensor ix) { return call(m, 0, ix); });
  }));
  x.push_back(X("index larger than self", {TC_ERR_SHAPE}, [call](M& m) {
    return with_index(m, {3, 1}, {0, 0, 0}, [&](tc_tensor ix) { return call(m, 1, ix); });
  }));
  return x;
}

std::vector<Extra> along_extras(const std::function<int32_t(M&, int64_t, tc_tensor)>& call) {
  std::vector<Extra> x;
  for (int64_t d : {int64_t(2), int64_t(-3), kI64Min, kI64Max}) {
    x.push_back(X("dim " + std::to_string(d), {TC_ERR_INDEX}, [call, d](M& m) {
      return with_index(m, {2}, {1, 0}, [&](tc_tensor ix) { return call(m, d, ix); });
    }));
  }
  x.push_back(X("float index", {TC_ERR_DTYPE}, [call](M& m) { return call(m, 0, m.f.v); }));
  x.push_back(X("2-D index", {TC_ERR_SHAPE}, [call](M& m) { return call(m, 0, m.f.ia); }));
  x.push_back(X("index 2 along a dim of size 2", {TC_ERR_INDEX}, [call](M& m) {
    return with_index(m, {2}, {2, 0}, [&](tc_tensor ix) { return call(m, 0, ix); });
  }));
  return x;
}

// An empty [0, 3] input (the reductions of no element).
std::vector<Extra> empty_input(int32_t (*fn)(tc_tensor, tc_tensor*)) {
  return std::vector<Extra>{
      X("empty tensor", {TC_ERR_SHAPE, TC_ERR_INDEX, TC_ERR_INVALID_ARGUMENT}, [fn](M& m) {
        int64_t s[] = {0, 3};
        tc_tensor e = nullptr;
        if (tc_zeros(s, 2, TC_FLOAT32, TC_CPU, &e) != TC_OK) return -1;
        const int32_t rc = m.done(fn(e, m.O(9)));
        tc_tensor_free(e);
        return rc;
      })};
}

// The checks every one-matrix function shares: 1-D, integer and (for the
// square ones) non-square inputs.
std::vector<Extra> matrix_extras(std::function<int32_t(M&, tc_tensor)> call, bool square) {
  std::vector<Extra> x;
  x.push_back(X("1-D a", {TC_ERR_SHAPE}, [call](M& m) { return call(m, m.f.v); }));
  x.push_back(X("int32 a", {TC_ERR_DTYPE}, [call](M& m) { return call(m, m.f.i32); }));
  if (square) x.push_back(X("2x3 a", {TC_ERR_SHAPE}, [call](M& m) { return call(m, m.f.a); }));
  return x;
}

}  // namespace misuse
