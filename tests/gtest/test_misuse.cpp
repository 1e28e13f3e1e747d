// The misuse suite: every tc_* function of tc.h, called the wrong way.
//
// A table (kTable below) names each function with
//  - a signature string, one letter per argument (and per element of an
//    array argument), saying which misuses apply to it:
//      H  tensor handle         NULL, freed, stale, garbage, wrong-kind handle
//      h  optional tensor       freed, stale, garbage, wrong-kind (NULL is fine)
//      Z  optimizer handle      NULL, freed, stale, garbage, wrong-kind handle
//      D  tensor dict handle    NULL, freed, stale, garbage, wrong-kind handle
//      K  hook handle           NULL, freed (removed), stale, garbage, wrong-kind handle
//      N  node handle           NULL, freed, stale, garbage, wrong-kind handle
//      G  process group handle  NULL, freed, stale, garbage, wrong-kind handle
//      W  work handle           NULL, freed, stale, garbage, wrong-kind handle
//      L  library handle        NULL, freed (unloaded), stale, garbage, wrong-kind handle
//      Q  op handle             NULL, freed, stale, garbage, wrong-kind handle
//      O  handle out-param      NULL
//      P  required pointer      NULL (in-pointers and plain out-params)
//      p  optional pointer      nothing (NULL is documented as allowed)
//      -  a value               only through the entry's extra cases
//  - one call that is valid with the fixtures (checked to succeed, so every
//    failure below is due to the one argument that was spoiled),
//  - extra cases: out-of-range dtype/device/reduction codes and dims, int64
//    overflowing shapes, mismatched buffer sizes, wrong dtypes and shapes.
// Every function is also called after tc_shutdown (stale handles) and, in a
// fresh process (a gtest death-test child), before the first tc_init.
//
// Each failing case must return the expected status, leave a message that
// names the function (tc_last_error) and the same code (tc_last_error_code),
// and leave every out-param untouched (handle out-params included).
// TableCoversEveryFunction parses include/tc.h (TC_HEADER_PATH) at run time.
//
// Functions are reached through weak references so that this file builds
// while the ABI is being filled in; EveryFunctionIsLinked fails for any
// function declared in tc.h that libtc does not define.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "abi/dlpack.h"
#include "tc.h"

// clang-format off
#pragma weak tc_version
#pragma weak tc_abi_version
#pragma weak tc_status_name
#pragma weak tc_last_error
#pragma weak tc_last_error_code
#pragma weak tc_last_error_copy
#pragma weak tc_init
#pragma weak tc_shutdown
#pragma weak tc_is_initialized
#pragma weak tc_init_stage_count
#pragma weak tc_init_stage
#pragma weak tc_init_report
#pragma weak tc_backend_init
#pragma weak tc_config
#pragma weak tc_get_flag
#pragma weak tc_set_flag
#pragma weak tc_flag_count
#pragma weak tc_flag_info
#pragma weak tc_dtype_name
#pragma weak tc_dtype_size
#pragma weak tc_dtype_from_name
#pragma weak tc_promote_types
#pragma weak tc_device_name
#pragma weak tc_device_from_name
#pragma weak tc_tensor_retain
#pragma weak tc_tensor_free
#pragma weak tc_empty
#pragma weak tc_zeros
#pragma weak tc_ones
#pragma weak tc_full
#pragma weak tc_arange
#pragma weak tc_from_data
#pragma weak tc_from_blob
#pragma weak tc_rand
#pragma weak tc_randn
#pragma weak tc_manual_seed
#pragma weak tc_initial_seed
#pragma weak tc_tensor_dtype
#pragma weak tc_tensor_device
#pragma weak tc_tensor_ndim
#pragma weak tc_tensor_shape
#pragma weak tc_tensor_strides
#pragma weak tc_tensor_numel
#pragma weak tc_tensor_storage_offset
#pragma weak tc_tensor_is_contiguous
#pragma weak tc_tensor_element_size
#pragma weak tc_tensor_data_ptr
#pragma weak tc_tensor_copy_to
#pragma weak tc_tensor_item
#pragma weak tc_tensor_to_string
#pragma weak tc_tensor_version
#pragma weak tc_tensor_same
#pragma weak tc_tensor_set_readonly
#pragma weak tc_tensor_is_readonly
#pragma weak tc_to_dtype
#pragma weak tc_to_device
#pragma weak tc_reshape
#pragma weak tc_view
#pragma weak tc_transpose
#pragma weak tc_permute
#pragma weak tc_narrow
#pragma weak tc_slice
#pragma weak tc_select
#pragma weak tc_squeeze
#pragma weak tc_unsqueeze
#pragma weak tc_expand
#pragma weak tc_contiguous
#pragma weak tc_clone
#pragma weak tc_set_matmul_precision
#pragma weak tc_get_matmul_precision
#pragma weak tc_optimizer_rmsprop
#pragma weak tc_optimizer_adagrad
#pragma weak tc_conv2d
#pragma weak tc_max_pool2d
#pragma weak tc_avg_pool2d
#pragma weak tc_conv2d_padded
#pragma weak tc_conv_transpose2d
#pragma weak tc_conv3d
#pragma weak tc_conv_transpose3d
#pragma weak tc_max_pool2d_with_indices
#pragma weak tc_avg_pool2d_ex
#pragma weak tc_adaptive_avg_pool2d
#pragma weak tc_adaptive_max_pool2d
#pragma weak tc_adaptive_max_pool1d
#pragma weak tc_interpolate
#pragma weak tc_cat
#pragma weak tc_stack
#pragma weak tc_split
#pragma weak tc_chunk
#pragma weak tc_index
#pragma weak tc_index_put
#pragma weak tc_index_put_
#pragma weak tc_index_add
#pragma weak tc_index_copy
#pragma weak tc_index_fill
#pragma weak tc_tensor_set_requires_grad
#pragma weak tc_tensor_requires_grad
#pragma weak tc_tensor_is_leaf
#pragma weak tc_tensor_grad
#pragma weak tc_tensor_clear_grad
#pragma weak tc_tensor_set_grad
#pragma weak tc_tensor_set_data
#pragma weak tc_rnn
#pragma weak tc_tensor_retain_grad
#pragma weak tc_tensor_grad_fn_name
#pragma weak tc_detach
#pragma weak tc_backward
#pragma weak tc_autograd_grad
#pragma weak tc_backward_ex
#pragma weak tc_set_grad_enabled
#pragma weak tc_uniform_
#pragma weak tc_normal_
#pragma weak tc_kaiming_uniform_
#pragma weak tc_xavier_uniform_
#pragma weak tc_optimizer_sgd
#pragma weak tc_optimizer_adam
#pragma weak tc_optimizer_step
#pragma weak tc_optimizer_zero_grad
#pragma weak tc_optimizer_get_lr
#pragma weak tc_optimizer_set_lr
#pragma weak tc_optimizer_free
#pragma weak tc_to_dlpack
#pragma weak tc_from_dlpack
#pragma weak tc_cuda_memory_stats_get
#pragma weak tc_cuda_empty_cache
#pragma weak tc_get_rng_state
#pragma weak tc_set_rng_state
#pragma weak tc_tensor_dict_create
#pragma weak tc_tensor_dict_free
#pragma weak tc_tensor_dict_set
#pragma weak tc_tensor_dict_get
#pragma weak tc_tensor_dict_contains
#pragma weak tc_tensor_dict_count
#pragma weak tc_tensor_dict_name_at
#pragma weak tc_tensor_dict_set_metadata
#pragma weak tc_tensor_dict_get_metadata
#pragma weak tc_tensor_dict_metadata_count
#pragma weak tc_tensor_dict_metadata_key_at
#pragma weak tc_save_safetensors
#pragma weak tc_save_safetensors_bytes
#pragma weak tc_load_safetensors
#pragma weak tc_load_safetensors_buffer
#pragma weak tc_optimizer_state_dict
#pragma weak tc_optimizer_load_state_dict
#pragma weak tc_set_last_error
#pragma weak tc_tensor_new
#pragma weak tc_function_apply
#pragma weak tc_tensor_register_hook
#pragma weak tc_tensor_register_post_accumulate_grad_hook
#pragma weak tc_hook_remove
#pragma weak tc_tensor_grad_fn
#pragma weak tc_node_name
#pragma weak tc_node_next_count
#pragma weak tc_node_next
#pragma weak tc_node_same
#pragma weak tc_node_free
#pragma weak tc_set_anomaly_mode
#pragma weak tc_anomaly_mode
#pragma weak tc_saved_tensors_hooks_push
#pragma weak tc_saved_tensors_hooks_pop
#pragma weak tc_saved_tensors_hooks_depth
#pragma weak tc_process_group_create
#pragma weak tc_process_group_free
#pragma weak tc_process_group_rank
#pragma weak tc_process_group_size
#pragma weak tc_process_group_backend
#pragma weak tc_dist_backend_available
#pragma weak tc_all_reduce
#pragma weak tc_broadcast
#pragma weak tc_all_gather
#pragma weak tc_reduce_scatter
#pragma weak tc_barrier
#pragma weak tc_send
#pragma weak tc_recv
#pragma weak tc_work_wait
#pragma weak tc_work_test
#pragma weak tc_work_free
#pragma weak tc_load_library
#pragma weak tc_library_unload
#pragma weak tc_library_path
#pragma weak tc_op_count
#pragma weak tc_op_name_at
#pragma weak tc_op_find
#pragma weak tc_op_free
#pragma weak tc_op_schema
#pragma weak tc_op_library_path
#pragma weak tc_op_call
#pragma weak tc_op_call_by_name
// clang-format on
// The elementwise families (generated from ops/ops.toml).
#define TC_MISUSE_WEAK
#include "misuse_ops_generated.inc"
#include "misuse_shape_creation.inc"
#include "misuse_shared_memory.inc"
#undef TC_MISUSE_WEAK

namespace {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
const double kNaN = std::nan("");

enum class Bad { none, null, freed, stale, garbage, pointer, wrong_kind };
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

// Tensors and an optimizer the valid calls use; all freed in TearDown.
struct Fixtures {
  tc_tensor a = nullptr;       // float32 [2,3]
  tc_tensor b = nullptr;       // float32 [2,3]
  tc_tensor bt = nullptr;      // float32 [3,2]
  tc_tensor v = nullptr;       // float32 [3]
  tc_tensor s = nullptr;       // float32 [] (one element)
  tc_tensor cond = nullptr;    // bool [2,3]
  tc_tensor ia = nullptr;      // int64 [2,3] (values 0/1: a gather index)
  tc_tensor cls = nullptr;     // int64 [2] = {0, 2} (class targets, indices)
  tc_tensor img = nullptr;     // float32 [1,2,4,4]
  tc_tensor w = nullptr;       // float32 [3,2,3,3] (conv weight)
  tc_tensor bias = nullptr;    // float32 [3]
  tc_tensor emb = nullptr;     // float32 [4,3] (embedding table)
  tc_tensor p = nullptr;       // float32 [2,3], requires grad (a leaf)
  tc_tensor leaf = nullptr;    // float32 [2,3] for set_requires_grad
  tc_tensor lw = nullptr;      // float32 [4,3] (linear weight)
  tc_tensor lb = nullptr;      // float32 [4] (linear bias)
  tc_tensor t3 = nullptr;      // float32 [2,4,4] (a 3-D input)
  tc_tensor i32 = nullptr;     // int32 [2,3]
  tc_tensor piv = nullptr;     // int32 [2,4] of ones (LU pivots for t3: no swaps)
  tc_tensor z = nullptr;       // complex64 [2,3] (ones)
  tc_tensor pairs = nullptr;   // float32 [3,2] (view_as_complex's input)
  tc_optimizer opt = nullptr;  // SGD over p
  // Spoiled handles.
  tc_tensor freed = nullptr, stale = nullptr, garbage = nullptr, wrong = nullptr;
  tc_optimizer opt_freed = nullptr, opt_stale = nullptr, opt_garbage = nullptr, opt_wrong = nullptr;
  tc_tensor_dict dict = nullptr;  // {"a": a}, metadata {"k": "v"}
  tc_tensor_dict dict_freed = nullptr, dict_stale = nullptr, dict_garbage = nullptr, dict_wrong = nullptr;
  tc_tensor np = nullptr;  // float32 [2,3] = p * 2 (a non-leaf; its grad_fn is `node`)
  tc_hook hook = nullptr;  // a gradient hook on p
  tc_node node = nullptr;  // np's MulBackward
  tc_hook hook_freed = nullptr, hook_stale = nullptr, hook_garbage = nullptr, hook_wrong = nullptr;
  tc_node node_freed = nullptr, node_stale = nullptr, node_garbage = nullptr, node_wrong = nullptr;
  // A process group of size 1 ("mpi", a singleton without mpirun) and a
  // completed work on it; made only for the entries that use them.
  tc_process_group pg = nullptr;
  tc_work work = nullptr;
  tc_process_group pg_freed = nullptr, pg_stale = nullptr, pg_garbage = nullptr, pg_wrong = nullptr;
  tc_work work_freed = nullptr, work_stale = nullptr, work_garbage = nullptr, work_wrong = nullptr;
  tc_library lib = nullptr;  // the example op library (examples/op_library)
  tc_op op = nullptr;        // its myops::scaled_square
  tc_library lib_freed = nullptr, lib_stale = nullptr, lib_garbage = nullptr, lib_wrong = nullptr;
  tc_op op_freed = nullptr, op_stale = nullptr, op_garbage = nullptr, op_wrong = nullptr;
};

// The out-params a call may write: filled with 0xA5 before each call.
struct Outs {
  tc_tensor h[4];
  tc_tensor hs[8];
  tc_optimizer opt;
  tc_tensor_dict dict;
  int64_t i64[TC_MAX_DIMS + 4];
  int32_t i32[4];
  double d;
  const char* cs[2];
  void* vp;
  char buf[64];
  uint64_t u64;
  tc_stage_info stage;
  tc_cuda_memory_stats cms;
  tc_hook hook;
  tc_node node[2];
  tc_process_group pg;
  tc_work work;
  tc_library lib;
  tc_op op;
};

// One call under test: which argument is spoiled, and how.
struct M {
  Fixtures f;
  Outs o;
  int bad_arg = -1;
  Bad how = Bad::none;
  std::vector<tc_tensor*> used_h;  // handle out-params of this call
  std::vector<tc_optimizer*> used_opt;
  std::vector<tc_tensor_dict*> used_dict;
  bool hs_used = false;
  // A message snapshot taken by done(), for calls that clean up afterwards.
  bool snap = false;
  int32_t snap_code = 0;
  std::string snap_msg;

  void reset() {
    std::memset(&o, 0xA5, sizeof o);
    used_h.clear();
    used_opt.clear();
    used_dict.clear();
    hs_used = false;
    snap = false;
  }
  bool spoiled(int i) const { return i == bad_arg && how != Bad::none; }
  tc_tensor H(int i, tc_tensor good) const {
    if (!spoiled(i)) return good;
    switch (how) {
      case Bad::null:
        return nullptr;
      case Bad::freed:
        return f.freed;
      case Bad::stale:
        return f.stale;
      case Bad::garbage:
        return f.garbage;
      case Bad::pointer:
        return reinterpret_cast<tc_tensor>(const_cast<Outs*>(&o));
      case Bad::wrong_kind:
        return f.wrong;
      default:
        return good;
    }
  }
  tc_optimizer Z(int i, tc_optimizer good) const {
    if (!spoiled(i)) return good;
    switch (how) {
      case Bad::null:
        return nullptr;
      case Bad::freed:
        return f.opt_freed;
      case Bad::stale:
        return f.opt_stale;
      case Bad::garbage:
        return f.opt_garbage;
      case Bad::pointer:
        return reinterpret_cast<tc_optimizer>(const_cast<Outs*>(&o));
      case Bad::wrong_kind:
        return f.opt_wrong;
      default:
        return good;
    }
  }
  // A hook or node handle argument, spoiled like H's.
  template <typename T>
  T spoil(int i, T good, T freed, T stale, T garbage, T wrong) const {
    if (!spoiled(i)) return good;
    switch (how) {
      case Bad::null:
        return nullptr;
      case Bad::freed:
        return freed;
      case Bad::stale:
        return stale;
      case Bad::garbage:
        return garbage;
      case Bad::pointer:
        return reinterpret_cast<T>(const_cast<Outs*>(&o));
      case Bad::wrong_kind:
        return wrong;
      default:
        return good;
    }
  }
  tc_hook K(int i, tc_hook good) const {
    return spoil(i, good, f.hook_freed, f.hook_stale, f.hook_garbage, f.hook_wrong);
  }
  tc_node N(int i, tc_node good) const {
    return spoil(i, good, f.node_freed, f.node_stale, f.node_garbage, f.node_wrong);
  }
  tc_process_group G(int i, tc_process_group good) const {
    return spoil(i, good, f.pg_freed, f.pg_stale, f.pg_garbage, f.pg_wrong);
  }
  tc_work W(int i, tc_work good) const {
    return spoil(i, good, f.work_freed, f.work_stale, f.work_garbage, f.work_wrong);
  }
  tc_library L(int i, tc_library good) const {
    return spoil(i, good, f.lib_freed, f.lib_stale, f.lib_garbage, f.lib_wrong);
  }
  tc_op Q(int i, tc_op good) const {
    return spoil(i, good, f.op_freed, f.op_stale, f.op_garbage, f.op_wrong);
  }
  tc_tensor_dict D(int i, tc_tensor_dict good) const {
    return spoil(i, good, f.dict_freed, f.dict_stale, f.dict_garbage, f.dict_wrong);
  }
  template <typename T>
  T* P(int i, T* good) const {
    return spoiled(i) ? nullptr : good;
  }
  // The k-th handle out-param.
  tc_tensor* O(int i, int k = 0) {
    used_h.push_back(&o.h[k]);
    return spoiled(i) ? nullptr : &o.h[k];
  }
  tc_optimizer* OZ(int i) {
    used_opt.push_back(&o.opt);
    return spoiled(i) ? nullptr : &o.opt;
  }
  tc_tensor_dict* OD(int i) {
    used_dict.push_back(&o.dict);
    return spoiled(i) ? nullptr : &o.dict;
  }
  tc_tensor* HS(int i) {
    hs_used = true;
    return spoiled(i) ? nullptr : o.hs;
  }
  int64_t* I64(int i) { return P(i, o.i64); }
  int32_t* I32(int i) { return P(i, o.i32); }
  int32_t done(int32_t rc) {
    snap = true;
    snap_code = -1;
    tc_last_error_code(&snap_code);
    const char* msg = "";
    tc_last_error(&msg);
    snap_msg = msg ? msg : "";
    return rc;
  }
};

using Call = std::function<int32_t(M&)>;

struct Extra {
  std::string what;
  std::vector<int32_t> expected;
  Call call;
};

struct Entry {
  const char* name;
  void* addr;
  std::string sig;
  Call call;
  std::vector<Extra> extras;
  std::vector<int32_t> ok = {TC_OK};                    // the valid call's status
  std::vector<int32_t> pre = {TC_ERR_NOT_INITIALIZED};  // before init / after shutdown
  std::function<void(M&)> cleanup;                      // after a call that succeeded
};

Extra X(std::string what, std::vector<int32_t> expected, Call c) {
  return Extra{std::move(what), std::move(expected), std::move(c)};
}
Entry E(const char* name, void* addr, std::string sig, Call c, std::vector<Extra> extras = {}) {
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

#define FN(f) #f, reinterpret_cast < void*>(&f)
#define HAVE(f) (reinterpret_cast<void*>(&f) != nullptr)

// ---- helpers that make fresh objects (guarded: the function may be missing) ----

tc_tensor make_f32(std::initializer_list<int64_t> shape, float start = 0.5f) {
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

// A legacy DLManagedTensor over a static float buffer, for tc_from_dlpack.
struct DlBox {
  DLManagedTensor m;
  int64_t shape[2];
  float data[6];
  int deleted = 0;
};
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

tc_tensor sentinel_handle();

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

// tc_from_blob's deleter must run exactly once, also when the call fails.
int g_blob_deletes = 0;
float g_blob[6] = {1, 2, 3, 4, 5, 6};
void count_delete(void*, void*) { ++g_blob_deletes; }

// A bad-dtype/device/shape case for a shape factory `fn`.
template <typename F>
std::vector<Extra> factory_extras(F fn) {
  return {
      X("dtype -1", {TC_ERR_DTYPE},
        [fn](M& m) {
          int64_t s[] = {2};
          return fn(s, 1, -1, TC_CPU, m.O(9));
        }),
      X("dtype TC_DTYPE_COUNT", {TC_ERR_DTYPE},
        [fn](M& m) {
          int64_t s[] = {2};
          return fn(s, 1, TC_DTYPE_COUNT, TC_CPU, m.O(9));
        }),
      X("dtype INT32_MAX", {TC_ERR_DTYPE},
        [fn](M& m) {
          int64_t s[] = {2};
          return fn(s, 1, kI32Max, TC_CPU, m.O(9));
        }),
      X("device type 7", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t s[] = {2};
          return fn(s, 1, TC_FLOAT32, TC_DEVICE(7, 0), m.O(9));
        }),
      X("device -1", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t s[] = {2};
          return fn(s, 1, TC_FLOAT32, -1, m.O(9));
        }),
      X("device cpu:3", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t s[] = {2};
          return fn(s, 1, TC_FLOAT32, TC_DEVICE(0, 3), m.O(9));
        }),
      X("ndim -1", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t s[] = {2};
          return fn(s, -1, TC_FLOAT32, TC_CPU, m.O(9));
        }),
      X("ndim TC_MAX_DIMS+1", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t s[TC_MAX_DIMS + 1] = {};
          return fn(s, TC_MAX_DIMS + 1, TC_FLOAT32, TC_CPU, m.O(9));
        }),
      X("ndim INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t s[] = {2};
          return fn(s, kI64Min, TC_FLOAT32, TC_CPU, m.O(9));
        }),
      X("negative size", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t s[] = {2, -3};
          return fn(s, 2, TC_FLOAT32, TC_CPU, m.O(9));
        }),
      X("size INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
        [fn](M& m) {
          int64_t s[] = {kI64Min};
          return fn(s, 1, TC_FLOAT32, TC_CPU, m.O(9));
        }),
      X("shape product overflows int64", {TC_ERR_OUT_OF_MEMORY},
        [fn](M& m) {
          int64_t s[] = {kI64Max, 2};
          return fn(s, 2, TC_FLOAT32, TC_CPU, m.O(9));
        }),
      X("shape product overflows int64 (16 dims of 16)", {TC_ERR_OUT_OF_MEMORY},
        [fn](M& m) {
          int64_t s[16];
          for (auto& x : s) x = 16;
          return fn(s, 16, TC_FLOAT32, TC_CPU, m.O(9));
        }),
      X("bytes overflow int64 (2^62 float32)", {TC_ERR_OUT_OF_MEMORY},
        [fn](M& m) {
          int64_t s[] = {int64_t(1) << 62};
          return fn(s, 1, TC_FLOAT32, TC_CPU, m.O(9));
        }),
      X("does not fit in memory (2^50 bytes)", {TC_ERR_OUT_OF_MEMORY},
        [fn](M& m) {
          int64_t s[] = {int64_t(1) << 47};
          return fn(s, 1, TC_FLOAT64, TC_CPU, m.O(9));
        }),
  };
}

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

// The extra cases of the generated rows, by topic (ops.toml's misuse_extras).
#include "misuse_extras_binary_ext.inc"
#include "misuse_extras_indexing.inc"
#include "misuse_extras_linalg.inc"
#include "misuse_extras_losses.inc"
#include "misuse_extras_nn.inc"
#include "misuse_extras_ops.inc"
#include "misuse_extras_shape_creation.inc"
#include "misuse_extras_sort_reduce.inc"
#include "misuse_extras_transformer.inc"

// ---- the table ----

// The rows of the elementwise families and of the custom rows with args
// (generated from ops/ops.toml), and of the shared-memory functions.
void add_generated_rows(std::vector<Entry>& t) {
  auto add = [&](Entry e) { t.push_back(std::move(e)); };
#define TC_MISUSE_ROWS
#include "misuse_ops_generated.inc"
#include "misuse_shared_memory.inc"
#undef TC_MISUSE_ROWS
}
// The shape, creation and matrix ops kept by hand (tc_eye, tc_pad, ...).
void add_shape_creation_rows(std::vector<Entry>& t) {
  auto add = [&](Entry e) { t.push_back(std::move(e)); };
#define TC_MISUSE_ROWS
#include "misuse_shape_creation.inc"
#undef TC_MISUSE_ROWS
}

// The hand-written rows, by topic.
#include "misuse_rows_autograd.inc"
#include "misuse_rows_core.inc"
#include "misuse_rows_creation.inc"
#include "misuse_rows_cuda.inc"
#include "misuse_rows_dist.inc"
#include "misuse_rows_dlpack.inc"
#include "misuse_rows_io.inc"
#include "misuse_rows_nn.inc"
#include "misuse_rows_op_library.inc"
#include "misuse_rows_optim.inc"
#include "misuse_rows_shape_indexing.inc"
#include "misuse_rows_views.inc"

std::vector<Entry> build_table() {
  std::vector<Entry> t;
  add_core_rows(t);
  add_creation_rows(t);
  add_views_rows(t);
  add_generated_rows(t);
  add_nn_rows(t);
  add_shape_indexing_rows(t);
  add_shape_creation_rows(t);
  add_autograd_rows(t);
  add_op_library_rows(t);
  add_optim_rows(t);
  add_io_rows(t);
  add_dlpack_rows(t);
  add_dist_rows(t);
  add_cuda_rows(t);
  return t;
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = build_table();
  return t;
}

// ---- the driver ----

const uint8_t kPattern = 0xA5;
tc_tensor sentinel_handle() {
  uintptr_t v;
  std::memset(&v, kPattern, sizeof v);
  return reinterpret_cast<tc_tensor>(v);
}

int64_t live_handles() {
  int64_t v = -1;
  tc_get_flag("live_handles", &v);
  return v;
}

std::string codes_str(const std::vector<int32_t>& codes) {
  std::string s;
  for (int32_t c : codes) {
    const char* n = "?";
    tc_status_name(c, &n);
    s += (s.empty() ? "" : " or ") + std::string(n ? n : "?");
  }
  return s;
}
std::string code_str(int32_t c) {
  const char* n = nullptr;
  if (tc_status_name(c, &n) == TC_OK && n) return n;
  return "status " + std::to_string(c);
}

// Frees whatever a successful call handed out.
void cleanup_success(const Entry& e, M& m) {
  for (tc_tensor* p : m.used_h)
    if (*p && *p != sentinel_handle()) tc_tensor_free(*p);
  for (tc_optimizer* p : m.used_opt)
    if (*p && reinterpret_cast<tc_tensor>(*p) != sentinel_handle()) tc_optimizer_free(*p);
  for (tc_tensor_dict* p : m.used_dict)
    if (*p && reinterpret_cast<tc_tensor>(*p) != sentinel_handle()) tc_tensor_dict_free(*p);
  if (m.hs_used) {
    const int64_t n = m.o.i64[0];
    for (int64_t i = 0; i < n && i < 8; ++i)
      if (m.o.hs[i] && m.o.hs[i] != sentinel_handle()) tc_tensor_free(m.o.hs[i]);
  }
  if (e.cleanup) e.cleanup(m);
}

// Runs one case and checks everything a failing call promises. Returns the
// status so callers can count.
void run_case(const Entry& e, const std::string& what, M& m, const Call& call,
              const std::vector<int32_t>& expected, bool initialized = true) {
  SCOPED_TRACE(std::string(e.name) + ": " + what);
  m.reset();
  const int64_t handles_before = initialized ? live_handles() : 0;
  const int32_t rc = call(m);
  int32_t code = -1;
  std::string msg;
  if (m.snap) {
    code = m.snap_code;
    msg = m.snap_msg;
  } else {
    tc_last_error_code(&code);
    const char* p = nullptr;
    tc_last_error(&p);
    msg = p ? p : "";
  }
  bool ok_expected = false;
  for (int32_t c : expected) ok_expected |= (c == rc);
  EXPECT_TRUE(ok_expected) << e.name << " (" << what << ") returned " << code_str(rc) << ", expected "
                           << codes_str(expected) << "; message: " << msg;
  if (rc == TC_OK) {
    cleanup_success(e, m);
  } else {
    EXPECT_EQ(code, rc) << "tc_last_error_code after " << e.name;
    EXPECT_FALSE(msg.empty()) << e.name << " failed without a message";
    EXPECT_NE(msg.find(e.name), std::string::npos) << "the message does not name " << e.name << ": " << msg;
    // Out-params untouched (tc.h), handle out-params included: a caller
    // that initialized its handle to NULL sees NULL.
    Outs rest = m.o;
    auto blank = [&](const void* field, size_t n) {
      std::memset(reinterpret_cast<char*>(&rest) +
                      (static_cast<const char*>(field) - reinterpret_cast<const char*>(&m.o)),
                  kPattern, n);
    };
    for (tc_tensor* p : m.used_h)
      EXPECT_EQ(*p, sentinel_handle()) << "a failed " << e.name << " wrote its handle out-param";
    for (tc_optimizer* p : m.used_opt)
      EXPECT_EQ(reinterpret_cast<tc_tensor>(*p), sentinel_handle())
          << "a failed " << e.name << " wrote its optimizer out-param";
    for (tc_tensor_dict* p : m.used_dict)
      EXPECT_EQ(reinterpret_cast<tc_tensor>(*p), sentinel_handle())
          << "a failed " << e.name << " wrote its dict out-param";
    if (m.hs_used) {
      for (tc_tensor& h : m.o.hs)
        EXPECT_EQ(h, sentinel_handle()) << "a failed " << e.name << " wrote a handle";
    }
    blank(&m.o.stage.size, sizeof m.o.stage.size);  // inputs, set by the call's lambda
    blank(&m.o.cms.size, sizeof m.o.cms.size);
    const auto* bytes = reinterpret_cast<const uint8_t*>(&rest);
    size_t changed = sizeof rest;
    for (size_t i = 0; i < sizeof rest; ++i)
      if (bytes[i] != kPattern) {
        changed = i;
        break;
      }
    EXPECT_EQ(changed, sizeof rest) << "a failed " << e.name << " wrote an out-param (byte " << changed
                                    << " of the out-param block)";
  }
  if (initialized) {
    EXPECT_EQ(live_handles(), handles_before) << e.name << " (" << what << ") leaked or lost a handle";
  }
}

// Fixture values for runs where libtc is not initialized: plausible-looking
// handles that were never made.
void fake_fixtures(Fixtures& f) {
  tc_tensor* ts[] = {&f.a,   &f.b,   &f.bt,   &f.v,     &f.s,     &f.cond,    &f.ia,   &f.cls,
                     &f.img, &f.w,   &f.bias, &f.emb,   &f.p,     &f.leaf,    &f.lw,   &f.lb,
                     &f.t3,  &f.i32, &f.piv,  &f.freed, &f.stale, &f.garbage, &f.wrong};
  uint64_t v = (uint64_t(7) << 32) | (uint64_t(1) << 24) | 1;
  for (tc_tensor* t : ts) *t = reinterpret_cast<tc_tensor>(v++);
  f.opt = f.opt_freed = f.opt_stale = f.opt_garbage = f.opt_wrong =
      reinterpret_cast<tc_optimizer>((uint64_t(7) << 32) | (uint64_t(2) << 24) | 1);
  f.dict = f.dict_freed = f.dict_stale = f.dict_garbage = f.dict_wrong =
      reinterpret_cast<tc_tensor_dict>((uint64_t(7) << 32) | (uint64_t(3) << 24) | 1);
  f.np = reinterpret_cast<tc_tensor>(v++);
  f.hook = f.hook_freed = f.hook_stale = f.hook_garbage = f.hook_wrong =
      reinterpret_cast<tc_hook>((uint64_t(7) << 32) | (uint64_t(4) << 24) | 1);
  f.node = f.node_freed = f.node_stale = f.node_garbage = f.node_wrong =
      reinterpret_cast<tc_node>((uint64_t(7) << 32) | (uint64_t(5) << 24) | 1);
  f.pg = f.pg_freed = f.pg_stale = f.pg_garbage = f.pg_wrong =
      reinterpret_cast<tc_process_group>((uint64_t(7) << 32) | (uint64_t(8) << 24) | 1);
  f.work = f.work_freed = f.work_stale = f.work_garbage = f.work_wrong =
      reinterpret_cast<tc_work>((uint64_t(7) << 32) | (uint64_t(9) << 24) | 1);
  f.op = f.op_freed = f.op_stale = f.op_garbage = f.op_wrong =
      reinterpret_cast<tc_op>((uint64_t(7) << 32) | (uint64_t(6) << 24) | 1);
  f.lib = f.lib_freed = f.lib_stale = f.lib_garbage = f.lib_wrong =
      reinterpret_cast<tc_library>((uint64_t(7) << 32) | (uint64_t(7) << 24) | 1);
}

const Bad kHandleMisuses[] = {Bad::null, Bad::freed, Bad::stale, Bad::garbage, Bad::pointer, Bad::wrong_kind};

// The number of cases the table makes (for the report in docs/RELIABILITY.md).
size_t case_count(const Entry& e) {
  size_t n = 1 + e.extras.size() + 2;  // valid, extras, after shutdown, before init
  for (char c : e.sig) {
    if (c == 'H' || c == 'Z' || c == 'D' || c == 'K' || c == 'N' || c == 'G' || c == 'W' || c == 'L' ||
        c == 'Q')
      n += 6;
    if (c == 'h') n += 5;
    if (c == 'O' || c == 'P') n += 1;
  }
  return n;
}

class MisuseFn : public ::testing::TestWithParam<size_t> {
 protected:
  M m;
  void SetUp() override {
    int32_t init = -1;
    tc_is_initialized(&init);
    ASSERT_EQ(init, 0) << "a previous test left libtc initialized";
    // A tensor (and optimizer) from before a shutdown: stale afterwards.
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    m.f.stale = make(TC_FLOAT32, {2, 3});
    tc_tensor sp = make(TC_FLOAT32, {2});
    if (HAVE(tc_tensor_set_requires_grad) && tc_tensor_set_requires_grad(sp, 1) == TC_OK)
      m.f.opt_stale = make_sgd(sp);
    if (HAVE(tc_tensor_dict_create)) tc_tensor_dict_create(&m.f.dict_stale);
    if (HAVE(tc_tensor_register_hook) && HAVE(tc_tensor_grad_fn) && HAVE(tc_mul_scalar)) {
      tc_tensor sq = nullptr;
      tc_tensor_register_hook(sp, noop_grad_hook, nullptr, nullptr, &m.f.hook_stale);
      tc_mul_scalar(sp, 2, &sq);
      tc_tensor_grad_fn(sq, &m.f.node_stale);
    }
    const bool group = needs_group(table()[GetParam()]);
    if (group) {
      m.f.pg_stale = make_group();
      m.f.work_stale = make_work(m.f.pg_stale);
    }
    if (HAVE(tc_load_library) && HAVE(tc_op_find)) {
      tc_load_library(TC_EXAMPLE_OP_LIBRARY, &m.f.lib_stale);
      tc_op_find("myops::scaled_square", &m.f.op_stale);
    }
    ASSERT_EQ(tc_shutdown(), TC_OK);
    ASSERT_EQ(tc_init(nullptr), TC_OK);

    Fixtures& f = m.f;
    f.a = make_f32({2, 3});
    f.b = make_f32({2, 3}, 1.0f);
    f.bt = make_f32({3, 2});
    f.v = make_f32({3});
    f.s = make_f32({});
    f.img = make_f32({1, 2, 4, 4});
    f.w = make_f32({3, 2, 3, 3});
    f.bias = make_f32({3});
    f.emb = make_f32({4, 3});
    f.p = make_f32({2, 3});
    f.leaf = make_f32({2, 3});
    f.lw = make_f32({4, 3});
    f.lb = make_f32({4});
    f.t3 = make_f32({2, 4, 4});
    f.cond = make(TC_BOOL, {2, 3});
    f.i32 = make(TC_INT32, {2, 3});
    f.piv = make(TC_INT32, {2, 4});
    f.z = make(TC_COMPLEX64, {2, 3});
    f.pairs = make_f32({3, 2});
    f.ia = make_i64({2, 3}, {0, 1, 0, 1, 1, 0});
    f.cls = make_i64({2}, {0, 2});
    ASSERT_TRUE(f.a && f.b && f.bt && f.v && f.s && f.img && f.w && f.bias && f.emb && f.p && f.leaf &&
                f.lw && f.lb && f.t3 && f.cond && f.i32 && f.piv && f.ia && f.cls && f.z && f.pairs);
    if (HAVE(tc_tensor_set_requires_grad)) {
      ASSERT_EQ(tc_tensor_set_requires_grad(f.p, 1), TC_OK);
    }
    f.opt = make_sgd(f.p);

    f.freed = make(TC_FLOAT32, {2});
    tc_tensor_free(f.freed);
    const uint64_t live = reinterpret_cast<uint64_t>(f.a);
    f.garbage = reinterpret_cast<tc_tensor>(live + (uint64_t(1000) << 32));  // same slot, other generation
    if (f.opt) {
      f.wrong = reinterpret_cast<tc_tensor>(f.opt);
      f.opt_garbage =
          reinterpret_cast<tc_optimizer>(reinterpret_cast<uint64_t>(f.opt) + (uint64_t(1000) << 32));
      f.opt_freed = make_sgd(f.p);
      tc_optimizer_free(f.opt_freed);
    } else {
      // No optimizers yet: flip the kind bits of a live tensor handle.
      f.wrong = reinterpret_cast<tc_tensor>((live & ~(uint64_t(0xff) << 24)) | (uint64_t(2) << 24));
      f.opt_garbage = reinterpret_cast<tc_optimizer>((uint64_t(1000) << 32) | (uint64_t(2) << 24) | 1);
      f.opt_freed = reinterpret_cast<tc_optimizer>((uint64_t(1) << 32) | (uint64_t(2) << 24) | 0xfffff0);
    }
    if (!f.opt_stale)
      f.opt_stale = reinterpret_cast<tc_optimizer>((uint64_t(2) << 32) | (uint64_t(2) << 24) | 0xfffff1);
    f.opt_wrong = reinterpret_cast<tc_optimizer>(f.a);
    f.dict = make_dict(f.a);
    if (f.dict) {
      f.dict_garbage =
          reinterpret_cast<tc_tensor_dict>(reinterpret_cast<uint64_t>(f.dict) + (uint64_t(1000) << 32));
      f.dict_freed = make_dict(f.a);
      tc_tensor_dict_free(f.dict_freed);
    } else {
      f.dict_garbage = reinterpret_cast<tc_tensor_dict>((uint64_t(1000) << 32) | (uint64_t(3) << 24) | 1);
      f.dict_freed = reinterpret_cast<tc_tensor_dict>((uint64_t(1) << 32) | (uint64_t(3) << 24) | 0xfffff0);
    }
    if (!f.dict_stale)
      f.dict_stale = reinterpret_cast<tc_tensor_dict>((uint64_t(2) << 32) | (uint64_t(3) << 24) | 0xfffff1);
    f.dict_wrong = reinterpret_cast<tc_tensor_dict>(f.a);
    if (HAVE(tc_tensor_register_hook) && HAVE(tc_tensor_grad_fn) && HAVE(tc_mul_scalar)) {
      ASSERT_EQ(tc_mul_scalar(f.p, 2, &f.np), TC_OK);
      ASSERT_EQ(tc_tensor_grad_fn(f.np, &f.node), TC_OK);
      ASSERT_EQ(tc_tensor_register_hook(f.p, noop_grad_hook, nullptr, nullptr, &f.hook), TC_OK);
      tc_tensor_register_hook(f.p, noop_grad_hook, nullptr, nullptr, &f.hook_freed);
      tc_hook_remove(f.hook_freed);
      tc_tensor_grad_fn(f.np, &f.node_freed);
      tc_node_free(f.node_freed);
      f.hook_garbage = reinterpret_cast<tc_hook>(reinterpret_cast<uint64_t>(f.hook) + (uint64_t(1000) << 32));
      f.node_garbage = reinterpret_cast<tc_node>(reinterpret_cast<uint64_t>(f.node) + (uint64_t(1000) << 32));
      f.hook_wrong = reinterpret_cast<tc_hook>(f.node);
      f.node_wrong = reinterpret_cast<tc_node>(f.hook);
    }
    if (group && (f.pg = make_group()) != nullptr) {
      f.work = make_work(f.pg);
      f.pg_freed = make_group();
      tc_process_group_free(f.pg_freed);
      f.work_freed = make_work(f.pg);
      tc_work_free(f.work_freed);
      f.pg_garbage =
          reinterpret_cast<tc_process_group>(reinterpret_cast<uint64_t>(f.pg) + (uint64_t(1000) << 32));
      f.work_garbage = reinterpret_cast<tc_work>(reinterpret_cast<uint64_t>(f.work) + (uint64_t(1000) << 32));
      f.pg_wrong = reinterpret_cast<tc_process_group>(f.work);
      f.work_wrong = reinterpret_cast<tc_work>(f.pg);
    }
    if (HAVE(tc_load_library) && HAVE(tc_op_find)) {
      ASSERT_EQ(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &f.lib), TC_OK);
      ASSERT_EQ(tc_op_find("myops::scaled_square", &f.op), TC_OK);
      tc_load_library(TC_EXAMPLE_OP_LIBRARY, &f.lib_freed);
      tc_library_unload(f.lib_freed);
      tc_op_find("myops::scaled_square", &f.op_freed);
      tc_op_free(f.op_freed);
      f.lib_garbage =
          reinterpret_cast<tc_library>(reinterpret_cast<uint64_t>(f.lib) + (uint64_t(1000) << 32));
      f.op_garbage = reinterpret_cast<tc_op>(reinterpret_cast<uint64_t>(f.op) + (uint64_t(1000) << 32));
      f.lib_wrong = reinterpret_cast<tc_library>(f.op);
      f.op_wrong = reinterpret_cast<tc_op>(f.lib);
    }
  }
  void TearDown() override {
    int32_t init = 0;
    tc_is_initialized(&init);
    if (!init) return;
    Fixtures& f = m.f;
    if (f.opt) tc_optimizer_free(f.opt);
    if (f.dict) tc_tensor_dict_free(f.dict);
    if (f.hook) tc_hook_remove(f.hook);
    if (f.node) tc_node_free(f.node);
    if (f.np) tc_tensor_free(f.np);
    if (f.work) tc_work_free(f.work);
    if (f.pg) tc_process_group_free(f.pg);
    if (f.op) tc_op_free(f.op);
    if (f.lib) tc_library_unload(f.lib);
    for (tc_tensor t : {f.a, f.b,    f.bt,  f.v, f.s,    f.cond, f.i32, f.piv, f.ia, f.cls,  f.img,
                        f.w, f.bias, f.emb, f.p, f.leaf, f.lw,   f.lb,  f.t3,  f.z,  f.pairs})
      if (t) tc_tensor_free(t);
    int64_t handles = -1;
    tc_get_flag("live_handles", &handles);
    EXPECT_EQ(handles, 0) << "handles left after the misuse cases of " << table()[GetParam()].name;
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
};

TEST_P(MisuseFn, EveryMisuse) {
  const Entry& e = table()[GetParam()];
  if (!e.addr) GTEST_SKIP() << e.name << " is declared in tc.h but not defined (see EveryFunctionIsLinked)";
  if (needs_group(e) && !m.f.pg)
    GTEST_SKIP() << e.name << ": no \"mpi\" process group can be made here (libtc built without MPI, or MPI "
                 << "unusable); its misuses need one";
  // The valid call first: every failure below is then due to the spoiled argument.
  run_case(e, "valid call", m, e.call, e.ok);
  for (size_t i = 0; i < e.sig.size(); ++i) {
    const char c = e.sig[i];
    const std::string pos = "argument " + std::to_string(i);
    if (c == 'H' || c == 'h' || c == 'Z' || c == 'D' || c == 'K' || c == 'N' || c == 'G' || c == 'W' ||
        c == 'L' || c == 'Q') {
      for (Bad how : kHandleMisuses) {
        if (how == Bad::null && c == 'h') continue;
        m.bad_arg = int(i);
        m.how = how;
        run_case(e, pos + ": " + bad_name(how), m, e.call, {TC_ERR_INVALID_HANDLE});
      }
    } else if (c == 'O' || c == 'P') {
      m.bad_arg = int(i);
      m.how = Bad::null;
      run_case(e, pos + ": NULL", m, e.call, {TC_ERR_INVALID_ARGUMENT});
    }
    m.bad_arg = -1;
    m.how = Bad::none;
  }
  for (const Extra& x : e.extras) run_case(e, x.what, m, x.call, x.expected);
  // After the last tc_shutdown: every handle is stale, every call refused.
  int32_t init = -1;
  ASSERT_EQ(tc_shutdown(), TC_OK);
  tc_is_initialized(&init);
  ASSERT_EQ(init, 0);
  run_case(e, "after tc_shutdown", m, e.call, e.pre, false);
  ASSERT_EQ(tc_init(nullptr), TC_OK);  // (fixture handles stay stale; TearDown ignores them)
  m.f = Fixtures();
}

std::string param_name(const ::testing::TestParamInfo<size_t>& info) { return table()[info.param].name; }

INSTANTIATE_TEST_SUITE_P(Abi, MisuseFn, ::testing::Range<size_t>(0, table().size()), param_name);

// Every function in a process that never called tc_init (a re-executed
// child, so nothing earlier in this binary initialized libtc).
void run_all_before_first_init() {
  int failures = 0;
  int32_t init = -1;
  tc_is_initialized(&init);
  if (init != 0) {
    std::fprintf(stderr, "libtc is initialized in a fresh process\n");
    std::exit(2);
  }
  M m;
  for (const Entry& e : table()) {
    if (!e.addr) continue;
    fake_fixtures(m.f);
    m.reset();
    const int32_t rc = e.call(m);
    bool ok = false;
    for (int32_t c : e.pre) ok |= c == rc;
    const char* msg = "";
    tc_last_error(&msg);
    if (!ok || (rc != TC_OK && (!msg || !std::strstr(msg, e.name)))) {
      std::fprintf(stderr, "%s before tc_init: returned %d (expected %s), message '%s'\n", e.name, rc,
                   codes_str(e.pre).c_str(), msg ? msg : "(null)");
      ++failures;
    }
    if (rc == TC_OK) cleanup_success(e, m);
    tc_is_initialized(&init);
    if (init != 0) {
      std::fprintf(stderr, "%s left libtc initialized\n", e.name);
      ++failures;
      while (tc_shutdown() == TC_OK) {
      }
    }
  }
  if (failures == 0) std::fprintf(stderr, "all before-init cases passed\n");
  std::exit(failures == 0 ? 0 : 1);
}

TEST(MisuseFresh, EveryFunctionBeforeTheFirstInit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_all_before_first_init(), ::testing::ExitedWithCode(0), "all before-init cases passed");
}

// ---- the table against the header ----

std::set<std::string> header_functions() {
  std::ifstream in(TC_HEADER_PATH);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::set<std::string> names;
  const std::regex decl(R"(TC_API\s+int32_t\s+(tc_\w+)\s*\()");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}

TEST(MisuseTable, CoversEveryFunctionInTheHeader) {
  const std::set<std::string> declared = header_functions();
  ASSERT_GT(declared.size(), 100u) << "could not parse " << TC_HEADER_PATH;
  std::set<std::string> tabled;
  for (const Entry& e : table()) {
    EXPECT_TRUE(tabled.insert(e.name).second) << e.name << " is in the table twice";
    EXPECT_TRUE(declared.count(e.name)) << e.name << " is in the table but not declared in tc.h";
  }
  for (const std::string& d : declared)
    EXPECT_TRUE(tabled.count(d)) << d << " is declared in tc.h but has no misuse entry";
}

TEST(MisuseTable, EveryFunctionIsLinked) {
  std::string missing;
  for (const Entry& e : table())
    if (!e.addr) missing += std::string(missing.empty() ? "" : ", ") + e.name;
  EXPECT_TRUE(missing.empty()) << "declared in tc.h but not defined by libtc: " << missing;
}

TEST(MisuseTable, Summary) {
  size_t cases = 0, functions = 0, extras = 0;
  for (const Entry& e : table()) {
    ++functions;
    cases += case_count(e);
    extras += e.extras.size();
  }
  std::printf("misuse table: %zu functions, %zu cases (%zu function-specific)\n", functions, cases, extras);
  EXPECT_EQ(functions, header_functions().size());
}

// tc_split/tc_chunk with too small a cap: *count is set, no handle is made.
TEST(MisuseSplit, CapTooSmallSetsCountAndMakesNoHandles) {
  if (!HAVE(tc_split) || !HAVE(tc_chunk)) GTEST_SKIP() << "tc_split/tc_chunk not defined yet";
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  tc_tensor a = make_f32({2, 6});
  const int64_t before = live_handles();
  tc_tensor outs[2] = {sentinel_handle(), sentinel_handle()};
  int64_t count = -1;
  EXPECT_EQ(tc_split(a, 2, 1, outs, 2, &count), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(live_handles(), before);
  count = -1;
  EXPECT_EQ(tc_chunk(a, 3, 1, outs, 1, &count), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(live_handles(), before);
  for (tc_tensor h : outs) EXPECT_EQ(h, sentinel_handle());
  tc_tensor_free(a);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

// Regression: bad thread counts are the caller's error, not TC_ERR_INTERNAL,
// and a failed first tc_init leaves libtc uninitialized.
TEST(MisuseInit, BadThreadCountsAreInvalidArguments) {
  int32_t init = -1;
  tc_is_initialized(&init);
  ASSERT_EQ(init, 0);
  tc_init_options o{};
  o.size = sizeof o;
  o.num_threads = 100000;
  EXPECT_EQ(tc_init(&o), TC_ERR_INVALID_ARGUMENT);
  tc_is_initialized(&init);
  EXPECT_EQ(init, 0);
  const char* saved = std::getenv("TC_NUM_THREADS");
  const std::string saved_value = saved ? saved : "";
  ASSERT_EQ(setenv("TC_NUM_THREADS", "lots", 1), 0);
  EXPECT_EQ(tc_init(nullptr), TC_ERR_INVALID_ARGUMENT);
  const char* msg = "";
  tc_last_error(&msg);
  EXPECT_NE(std::string(msg).find("TC_NUM_THREADS"), std::string::npos) << msg;
  tc_is_initialized(&init);
  EXPECT_EQ(init, 0);
  if (saved) {
    setenv("TC_NUM_THREADS", saved_value.c_str(), 1);
  } else {
    unsetenv("TC_NUM_THREADS");
  }
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

}  // namespace
