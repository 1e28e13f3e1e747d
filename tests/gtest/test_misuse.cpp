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
#pragma weak tc_where
#pragma weak tc_clamp
#pragma weak tc_frexp
#pragma weak tc_isclose
#pragma weak tc_lerp
#pragma weak tc_lerp_scalar
#pragma weak tc_addcmul
#pragma weak tc_addcdiv
#pragma weak tc_prelu
#pragma weak tc_glu
#pragma weak tc_max
#pragma weak tc_min
#pragma weak tc_max_dim
#pragma weak tc_min_dim
#pragma weak tc_argmax
#pragma weak tc_argmin
#pragma weak tc_matmul
#pragma weak tc_linear
#pragma weak tc_set_matmul_precision
#pragma weak tc_get_matmul_precision
#pragma weak tc_cross_entropy
#pragma weak tc_nll_loss
#pragma weak tc_mse_loss
#pragma weak tc_l1_loss
#pragma weak tc_smooth_l1_loss
#pragma weak tc_huber_loss
#pragma weak tc_binary_cross_entropy
#pragma weak tc_binary_cross_entropy_with_logits
#pragma weak tc_kl_div
#pragma weak tc_nll_loss_ex
#pragma weak tc_cross_entropy_ex
#pragma weak tc_cosine_similarity
#pragma weak tc_pairwise_distance
#pragma weak tc_normalize
#pragma weak tc_optimizer_rmsprop
#pragma weak tc_optimizer_adagrad
#pragma weak tc_dropout
#pragma weak tc_conv2d
#pragma weak tc_max_pool2d
#pragma weak tc_avg_pool2d
#pragma weak tc_embedding
#pragma weak tc_batch_norm
#pragma weak tc_group_norm
#pragma weak tc_instance_norm
#pragma weak tc_conv2d_padded
#pragma weak tc_conv_transpose2d
#pragma weak tc_conv3d
#pragma weak tc_conv_transpose3d
#pragma weak tc_max_pool2d_with_indices
#pragma weak tc_avg_pool2d_ex
#pragma weak tc_adaptive_avg_pool2d
#pragma weak tc_adaptive_max_pool2d
#pragma weak tc_adaptive_avg_pool1d
#pragma weak tc_adaptive_max_pool1d
#pragma weak tc_interpolate
#pragma weak tc_pixel_shuffle
#pragma weak tc_pixel_unshuffle
#pragma weak tc_embedding_padding_idx
#pragma weak tc_dropout2d
#pragma weak tc_layer_norm
#pragma weak tc_rms_norm
#pragma weak tc_scaled_dot_product_attention
#pragma weak tc_bmm
#pragma weak tc_addmm
#pragma weak tc_baddbmm
#pragma weak tc_masked_fill
#pragma weak tc_topk
#pragma weak tc_linalg_lu_factor_ex
#pragma weak tc_linalg_lu
#pragma weak tc_linalg_lu_solve
#pragma weak tc_linalg_inv_ex
#pragma weak tc_linalg_det
#pragma weak tc_linalg_slogdet
#pragma weak tc_linalg_solve_ex
#pragma weak tc_linalg_solve_triangular
#pragma weak tc_linalg_cholesky_ex
#pragma weak tc_linalg_qr
#pragma weak tc_linalg_svd
#pragma weak tc_linalg_svdvals
#pragma weak tc_linalg_eigh
#pragma weak tc_linalg_eigvalsh
#pragma weak tc_linalg_householder_product
#pragma weak tc_linalg_eig
#pragma weak tc_linalg_lstsq
#pragma weak tc_multinomial
#pragma weak tc_cat
#pragma weak tc_stack
#pragma weak tc_split
#pragma weak tc_chunk
#pragma weak tc_gather
#pragma weak tc_index
#pragma weak tc_index_put
#pragma weak tc_index_put_
#pragma weak tc_nonzero
#pragma weak tc_take
#pragma weak tc_masked_select
#pragma weak tc_scatter
#pragma weak tc_scatter_value
#pragma weak tc_scatter_add
#pragma weak tc_scatter_reduce
#pragma weak tc_index_add
#pragma weak tc_index_copy
#pragma weak tc_index_fill
#pragma weak tc_index_select
#pragma weak tc_one_hot
#pragma weak tc_add_
#pragma weak tc_sub_
#pragma weak tc_mul_
#pragma weak tc_div_
#pragma weak tc_zero_
#pragma weak tc_fill_
#pragma weak tc_copy_
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
#include "misuse_sort_reduce.inc"
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

// ---- the table ----

std::vector<Entry> build_table() {
  std::vector<Entry> t;
  auto add = [&](Entry e) { t.push_back(std::move(e)); };

  // Versions, errors, init.
  add(with_pre(E(FN(tc_version), "pp", [](M& m) { return tc_version(m.o.i32, m.o.cs); }), {TC_OK}));
  add(with_pre(E(FN(tc_abi_version), "P", [](M& m) { return tc_abi_version(m.I32(0)); }), {TC_OK}));
  add(with_pre(E(FN(tc_status_name), "-P", [](M& m) { return tc_status_name(TC_ERR_SHAPE, m.P(1, m.o.cs)); },
                 {X("code -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_status_name(-1, m.o.cs); }),
                  X("code TC_STATUS_COUNT", {TC_ERR_INVALID_ARGUMENT},
                    [](M& m) { return tc_status_name(TC_STATUS_COUNT, m.o.cs); }),
                  X("code INT32_MIN", {TC_ERR_INVALID_ARGUMENT},
                    [](M& m) { return tc_status_name(std::numeric_limits<int32_t>::min(), m.o.cs); })}),
               {TC_OK}));
  add(with_pre(E(FN(tc_last_error), "P", [](M& m) { return tc_last_error(m.P(0, m.o.cs)); }), {TC_OK}));
  add(with_pre(E(FN(tc_last_error_code), "P", [](M& m) { return tc_last_error_code(m.I32(0)); }), {TC_OK}));
  add(with_pre(
      E(
          FN(tc_last_error_copy), "--p",
          [](M& m) { return tc_last_error_copy(m.o.buf, sizeof m.o.buf, m.o.i64); },
          copy_out_extras([](M&, char* b, int64_t c, int64_t* n) { return tc_last_error_copy(b, c, n); })),
      {TC_OK}));
  add(with_pre(
      E(FN(tc_set_last_error), "-p",
        [](M&) { return tc_set_last_error(TC_ERR_CALLBACK, "a callback's own words"); },
        {X("code TC_OK", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_last_error(TC_OK, "x"); }),
         X("code -1", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_last_error(-1, "x"); }),
         X("code TC_STATUS_COUNT", {TC_ERR_INVALID_ARGUMENT},
           [](M&) { return tc_set_last_error(TC_STATUS_COUNT, nullptr); })}),
      {TC_OK}));
  add(with_cleanup(with_pre(E(FN(tc_init), "p", [](M&) { return tc_init(nullptr); },
                              {X("options->size 0", {TC_ERR_INVALID_ARGUMENT},
                                 [](M& m) {
                                   tc_init_options o{};
                                   o.size = 0;
                                   (void)m;
                                   return tc_init(&o);
                                 }),
                               X("options->size 3", {TC_ERR_INVALID_ARGUMENT},
                                 [](M&) {
                                   tc_init_options o{};
                                   o.size = 3;
                                   return tc_init(&o);
                                 }),
                               X("options->num_threads 5000", {TC_ERR_INVALID_ARGUMENT},
                                 [](M&) {
                                   tc_init_options o{};
                                   o.size = sizeof o;
                                   o.num_threads = 5000;
                                   return tc_init(&o);
                                 }),
                               X("options->num_threads -1", {TC_ERR_INVALID_ARGUMENT},
                                 [](M&) {
                                   tc_init_options o{};
                                   o.size = sizeof o;
                                   o.num_threads = -1;
                                   return tc_init(&o);
                                 }),
                               X("options->size 1 GiB", {TC_ERR_INVALID_ARGUMENT},
                                 [](M&) {
                                   tc_init_options o{};
                                   o.size = 1u << 30;
                                   return tc_init(&o);
                                 })}),
                            {TC_OK}),
                   [](M&) { tc_shutdown(); }));
  add(with_pre(E(FN(tc_shutdown), "",
                 [](M&) {
                   // Valid: one more reference, dropped again.
                   tc_init(nullptr);
                   return tc_shutdown();
                 }),
               {TC_OK}));
  add(with_pre(E(FN(tc_is_initialized), "P", [](M& m) { return tc_is_initialized(m.I32(0)); }), {TC_OK}));
  add(E(FN(tc_init_stage_count), "P", [](M& m) { return tc_init_stage_count(m.I64(0)); }));
  add(E(FN(tc_init_stage), "-P",
        [](M& m) {
          m.o.stage.size = sizeof(tc_stage_info);
          return tc_init_stage(0, m.P(1, &m.o.stage));
        },
        {X("index -1", {TC_ERR_INDEX},
           [](M& m) {
             m.o.stage.size = sizeof(tc_stage_info);
             return tc_init_stage(-1, &m.o.stage);
           }),
         X("index 1000", {TC_ERR_INDEX},
           [](M& m) {
             m.o.stage.size = sizeof(tc_stage_info);
             return tc_init_stage(1000, &m.o.stage);
           }),
         X("index INT64_MIN", {TC_ERR_INDEX},
           [](M& m) {
             m.o.stage.size = sizeof(tc_stage_info);
             return tc_init_stage(kI64Min, &m.o.stage);
           }),
         X("out->size 0", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
           m.o.stage.size = 0;
           return tc_init_stage(0, &m.o.stage);
         })}));
  add(E(
      FN(tc_init_report), "--p", [](M& m) { return tc_init_report(m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras([](M&, char* b, int64_t c, int64_t* n) { return tc_init_report(b, c, n); })));
  add(with_ok(
      E(FN(tc_backend_init), "P", [](M& m) { return tc_backend_init(m.P(0, "cuda")); },
        {X("unknown backend", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_backend_init("vulkan"); }),
         X("empty name", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_backend_init(""); })}),
      {TC_OK, TC_ERR_NOT_COMPILED, TC_ERR_UNAVAILABLE}));
  add(E(
      FN(tc_config), "--p", [](M& m) { return tc_config(m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras([](M&, char* b, int64_t c, int64_t* n) { return tc_config(b, c, n); })));

  // Flags.
  add(E(FN(tc_get_flag), "PP", [](M& m) { return tc_get_flag(m.P(0, "live_tensors"), m.I64(1)); },
        {X("unknown name", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_get_flag("no_such_flag", m.o.i64); }),
         X("empty name", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_get_flag("", m.o.i64); }),
         X("name with a trailing space", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_get_flag("num_threads ", m.o.i64); })}));
  add(E(
      FN(tc_set_flag), "P-", [](M& m) { return tc_set_flag(m.P(0, "deterministic"), 0); },
      {X("unknown name", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_flag("no_such_flag", 1); }),
       X("read-only flag", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_flag("live_tensors", 0); }),
       X("read-only flag has_cuda", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_flag("has_cuda", 1); }),
       X("num_threads 0", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_flag("num_threads", 0); }),
       X("num_threads INT64_MAX", {TC_ERR_INVALID_ARGUMENT},
         [](M&) { return tc_set_flag("num_threads", kI64Max); }),
       X("grad_enabled 2", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_flag("grad_enabled", 2); }),
       X("deterministic -1", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_flag("deterministic", -1); }),
       X("default_dtype TC_INT64", {TC_ERR_INVALID_ARGUMENT},
         [](M&) { return tc_set_flag("default_dtype", TC_INT64); }),
       X("default_dtype 1000", {TC_ERR_INVALID_ARGUMENT},
         [](M&) { return tc_set_flag("default_dtype", 1000); }),
       X("fail_alloc_at -1", {TC_ERR_INVALID_ARGUMENT, TC_ERR_NOT_COMPILED},
         [](M&) { return tc_set_flag("fail_alloc_at", -1); })}));
  add(E(FN(tc_flag_count), "P", [](M& m) { return tc_flag_count(m.I64(0)); }));
  add(E(FN(tc_flag_info), "-PP", [](M& m) { return tc_flag_info(0, m.P(1, m.o.cs), m.P(2, m.o.i32)); },
        {X("index -1", {TC_ERR_INDEX}, [](M& m) { return tc_flag_info(-1, m.o.cs, m.o.i32); }),
         X("index 10000", {TC_ERR_INDEX}, [](M& m) { return tc_flag_info(10000, m.o.cs, m.o.i32); }),
         X("index INT64_MAX", {TC_ERR_INDEX}, [](M& m) { return tc_flag_info(kI64Max, m.o.cs, m.o.i32); })}));

  // Registries.
  add(E(FN(tc_dtype_name), "-P", [](M& m) { return tc_dtype_name(TC_FLOAT32, m.P(1, m.o.cs)); },
        {X("dtype -1", {TC_ERR_DTYPE}, [](M& m) { return tc_dtype_name(-1, m.o.cs); }),
         X("dtype TC_DTYPE_COUNT", {TC_ERR_DTYPE},
           [](M& m) { return tc_dtype_name(TC_DTYPE_COUNT, m.o.cs); })}));
  add(E(FN(tc_dtype_size), "-P", [](M& m) { return tc_dtype_size(TC_FLOAT64, m.I64(1)); },
        {X("dtype -1", {TC_ERR_DTYPE}, [](M& m) { return tc_dtype_size(-1, m.o.i64); }),
         X("dtype INT32_MAX", {TC_ERR_DTYPE}, [](M& m) { return tc_dtype_size(kI32Max, m.o.i64); })}));
  add(E(FN(tc_dtype_from_name), "PP", [](M& m) { return tc_dtype_from_name(m.P(0, "float32"), m.I32(1)); },
        {X("unknown name", {TC_ERR_DTYPE}, [](M& m) { return tc_dtype_from_name("float33", m.o.i32); }),
         X("empty name", {TC_ERR_DTYPE}, [](M& m) { return tc_dtype_from_name("", m.o.i32); }),
         X("prefix of a name", {TC_ERR_DTYPE}, [](M& m) { return tc_dtype_from_name("floa", m.o.i32); })}));
  add(E(FN(tc_promote_types), "--P", [](M& m) { return tc_promote_types(TC_INT32, TC_FLOAT32, m.I32(2)); },
        {X("a -1", {TC_ERR_DTYPE}, [](M& m) { return tc_promote_types(-1, TC_FLOAT32, m.o.i32); }),
         X("b TC_DTYPE_COUNT", {TC_ERR_DTYPE},
           [](M& m) { return tc_promote_types(TC_FLOAT32, TC_DTYPE_COUNT, m.o.i32); })}));
  add(E(
      FN(tc_device_name), "--pp",
      [](M& m) { return tc_device_name(TC_CPU, m.o.buf, sizeof m.o.buf, m.o.i64); },
      [] {
        auto x = copy_out_extras(
            [](M&, char* b, int64_t c, int64_t* n) { return tc_device_name(TC_CPU, b, c, n); });
        x.push_back(X("device type 5", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_device_name(TC_DEVICE(5, 0), m.o.buf, 64, m.o.i64); }));
        x.push_back(X("device -1", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_device_name(-1, m.o.buf, 64, m.o.i64); }));
        return x;
      }()));
  add(E(
      FN(tc_device_from_name), "PP", [](M& m) { return tc_device_from_name(m.P(0, "cpu"), m.I32(1)); },
      {X("unknown name", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_device_from_name("gpu", m.o.i32); }),
       X("empty name", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_device_from_name("", m.o.i32); }),
       X("cuda: without index", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_device_from_name("cuda:", m.o.i32); }),
       X("cuda:-1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_device_from_name("cuda:-1", m.o.i32); }),
       X("cuda:65536", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_device_from_name("cuda:65536", m.o.i32); }),
       X("cuda:99999999999999999999", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_device_from_name("cuda:99999999999999999999", m.o.i32); }),
       X("cuda:1x", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_device_from_name("cuda:1x", m.o.i32); }),
       X("cudax", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_device_from_name("cudax", m.o.i32); })}));

  // Handles and creation.
  add(E(FN(tc_tensor_retain), "HO", [](M& m) { return tc_tensor_retain(m.H(0, m.f.a), m.O(1)); }));
  add(E(FN(tc_tensor_free), "H",
        [](M& m) {
          tc_tensor x = make(TC_FLOAT32, {2});
          const int32_t rc = m.done(tc_tensor_free(m.H(0, x)));
          if (m.spoiled(0)) tc_tensor_free(x);
          return rc;
        },
        {X("freed twice", {TC_ERR_INVALID_HANDLE}, [](M&) {
          tc_tensor x = make(TC_FLOAT32, {2});
          tc_tensor_free(x);
          return tc_tensor_free(x);
        })}));
  // tc_tensor_free_many: every valid entry is freed, every bad one skipped
  // (never freed twice), and the first bad one named. Each extra checks what
  // the call freed by freeing the rest itself (a second free fails).
  add(E(FN(tc_tensor_free_many), "P-",
        [](M& m) {
          tc_tensor xs[] = {make(TC_FLOAT32, {2}), make(TC_FLOAT64, {}), make(TC_INT64, {40})};
          const int32_t rc = m.done(tc_tensor_free_many(m.P(0, xs), 3));
          if (m.spoiled(0))
            for (tc_tensor x : xs) tc_tensor_free(x);
          return rc;
        },
        {X("n -1 frees nothing", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_tensor xs[] = {make(TC_FLOAT32, {2})};
             const int32_t rc = m.done(tc_tensor_free_many(xs, -1));
             EXPECT_EQ(tc_tensor_free(xs[0]), TC_OK) << "n -1 freed an entry";
             return rc;
           }),
         X("a freed entry in the middle: the others are freed", {TC_ERR_INVALID_HANDLE},
           [](M& m) {
             tc_tensor xs[] = {make(TC_FLOAT32, {2}), make(TC_FLOAT32, {3}), make(TC_FLOAT32, {4})};
             tc_tensor_free(xs[1]);
             const int32_t rc = m.done(tc_tensor_free_many(xs, 3));
             EXPECT_NE(m.snap_msg.find("handles[1]"), std::string::npos) << m.snap_msg;
             EXPECT_NE(m.snap_msg.find("1 of 3"), std::string::npos) << m.snap_msg;
             EXPECT_EQ(tc_tensor_free(xs[0]), TC_ERR_INVALID_HANDLE) << "handles[0] was not freed";
             EXPECT_EQ(tc_tensor_free(xs[2]), TC_ERR_INVALID_HANDLE) << "handles[2] was not freed";
             return rc;
           }),
         X("a repeated entry is freed once", {TC_ERR_INVALID_HANDLE},
           [](M& m) {
             tc_tensor x = make(TC_FLOAT32, {2});
             tc_tensor xs[] = {x, x};
             const int32_t rc = m.done(tc_tensor_free_many(xs, 2));
             EXPECT_NE(m.snap_msg.find("handles[1]"), std::string::npos) << m.snap_msg;
             EXPECT_EQ(tc_tensor_free(x), TC_ERR_INVALID_HANDLE) << "the repeated handle was not freed";
             return rc;
           }),
         X("NULL, an optimizer-kind value and a forged value are skipped", {TC_ERR_INVALID_HANDLE},
           [](M& m) {
             tc_tensor x = make(TC_FLOAT32, {2});
             tc_tensor y = make(TC_FLOAT32, {2});
             // y's value with a higher generation: a handle libtc never made.
             tc_tensor forged =
                 reinterpret_cast<tc_tensor>(reinterpret_cast<uint64_t>(y) + (uint64_t(1) << 40));
             tc_tensor xs[] = {nullptr, x, m.f.wrong, forged};
             const int32_t rc = m.done(tc_tensor_free_many(xs, 4));
             EXPECT_NE(m.snap_msg.find("handles[0]"), std::string::npos) << m.snap_msg;
             EXPECT_NE(m.snap_msg.find("3 of 4"), std::string::npos) << m.snap_msg;
             EXPECT_EQ(tc_tensor_free(x), TC_ERR_INVALID_HANDLE) << "handles[1] was not freed";
             EXPECT_EQ(tc_tensor_free(y), TC_OK) << "a forged value freed the handle";
             return rc;
           }),
         X("n 0 with NULL handles", {TC_OK}, [](M&) { return tc_tensor_free_many(nullptr, 0); })}));
  add(E(
      FN(tc_empty), "P---O",
      [](M& m) {
        int64_t s[] = {2, 3};
        return tc_empty(m.P(0, s), 2, TC_FLOAT32, TC_CPU, m.O(4));
      },
      factory_extras(tc_empty)));
  add(E(
      FN(tc_zeros), "P---O",
      [](M& m) {
        int64_t s[] = {2, 3};
        return tc_zeros(m.P(0, s), 2, TC_FLOAT32, TC_CPU, m.O(4));
      },
      factory_extras(tc_zeros)));
  add(E(
      FN(tc_ones), "P---O",
      [](M& m) {
        int64_t s[] = {2, 3};
        return tc_ones(m.P(0, s), 2, TC_FLOAT32, TC_CPU, m.O(4));
      },
      factory_extras(tc_ones)));
  add(E(
      FN(tc_full), "P----O",
      [](M& m) {
        int64_t s[] = {2, 3};
        return tc_full(m.P(0, s), 2, 1.5, TC_FLOAT32, TC_CPU, m.O(5));
      },
      [] {
        auto x = factory_extras([](const int64_t* s, int64_t n, int32_t d, int32_t dev, tc_tensor* o) {
          return tc_full(s, n, 2.0, d, dev, o);
        });
        // PyTorch: "value cannot be converted to type int8_t without overflow".
        const std::pair<double, int32_t> overflowing[] = {{300, TC_INT8},
                                                          {kNaN, TC_INT64},
                                                          {INFINITY, TC_INT32},
                                                          {1e308, TC_INT64},
                                                          {9223372036854775808.0, TC_INT64},
                                                          {255.5, TC_UINT8},
                                                          {1e10, TC_FLOAT16},
                                                          {1e300, TC_FLOAT32}};
        for (const auto& [value, dtype] : overflowing) {
          x.push_back(X(("value " + std::to_string(value) + " into dtype " + std::to_string(dtype)).c_str(),
                        {TC_ERR_INVALID_ARGUMENT}, [value = value, dtype = dtype](M& m) {
                          int64_t s[] = {2};
                          return tc_full(s, 1, value, dtype, TC_CPU, m.O(9));
                        }));
        }
        return x;
      }()));
  add(E(
      FN(tc_tensor_new), "PO",
      [](M& m) {
        int64_t s[] = {2, 3};
        const tc_tensor_options o = new_options(s, 2, TC_FLOAT32, TC_CPU, TC_FILL_ONES);
        return tc_tensor_new(m.P(0, &o), m.O(1));
      },
      [] {
        auto x = factory_extras([](const int64_t* s, int64_t n, int32_t d, int32_t dev, tc_tensor* out) {
          const tc_tensor_options o = new_options(s, n, d, dev, TC_FILL_ZEROS);
          return tc_tensor_new(&o, out);
        });
        auto bad = [&](std::string what, std::vector<int32_t> codes,
                       std::function<void(tc_tensor_options&)> spoil) {
          x.push_back(X(what, codes, [spoil](M& m) {
            static const int64_t s[] = {2};
            static const float data[2] = {1, 2};
            tc_tensor_options o = new_options(s, 1, TC_FLOAT32, TC_CPU, TC_FILL_ZEROS);
            o.data = data;
            o.nbytes = sizeof data;
            o.high = 1;
            o.std = 1;
            spoil(o);
            return tc_tensor_new(&o, m.O(9));
          }));
        };
        bad("size 0", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) { o.size = 0; });
        bad("size 1 GiB", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) { o.size = 1u << 30; });
        bad("reserved0 1", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) { o.reserved0 = 1; });
        bad("fill -1", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) { o.fill = -1; });
        bad("fill 7", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) { o.fill = 7; });
        bad("requires_grad 2", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) { o.requires_grad = 2; });
        bad("requires_grad with int32", {TC_ERR_DTYPE}, [](tc_tensor_options& o) {
          o.requires_grad = 1;
          o.dtype = TC_INT32;
        });
        bad("value 300 into int8", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_VALUE;
          o.dtype = TC_INT8;
          o.value = 300;
        });
        bad("value NaN into int64", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_VALUE;
          o.dtype = TC_INT64;
          o.value = kNaN;
        });
        bad("data NULL", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_DATA;
          o.data = nullptr;
        });
        bad("nbytes one too few", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_DATA;
          o.nbytes = 7;
        });
        bad("nbytes -1", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_DATA;
          o.nbytes = -1;
        });
        bad("uniform low > high", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_UNIFORM;
          o.low = 2;
        });
        bad("uniform high infinite", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_UNIFORM;
          o.high = INFINITY;
        });
        bad("uniform int64", {TC_ERR_DTYPE}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_UNIFORM;
          o.dtype = TC_INT64;
        });
        bad("normal std -1", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_NORMAL;
          o.std = -1;
        });
        bad("normal mean NaN", {TC_ERR_INVALID_ARGUMENT}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_NORMAL;
          o.mean = kNaN;
        });
        bad("normal bool", {TC_ERR_DTYPE}, [](tc_tensor_options& o) {
          o.fill = TC_FILL_NORMAL;
          o.dtype = TC_BOOL;
        });
        return x;
      }()));
  add(E(FN(tc_arange), "-----O", [](M& m) { return tc_arange(0, 5, 1, TC_FLOAT32, TC_CPU, m.O(5)); },
        {X("step 0", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_arange(0, 5, 0, TC_FLOAT32, TC_CPU, m.O(9)); }),
         X("step NaN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_arange(0, 5, kNaN, TC_FLOAT32, TC_CPU, m.O(9)); }),
         X("start NaN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_arange(kNaN, 5, 1, TC_FLOAT32, TC_CPU, m.O(9)); }),
         X("end infinite", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_arange(0, INFINITY, 1, TC_FLOAT32, TC_CPU, m.O(9)); }),
         X("1e300 elements", {TC_ERR_OUT_OF_MEMORY},
           [](M& m) { return tc_arange(0, 1e300, 1, TC_FLOAT32, TC_CPU, m.O(9)); }),
         X("(end-start) overflows double", {TC_ERR_OUT_OF_MEMORY},
           [](M& m) { return tc_arange(-1.7e308, 1.7e308, 1e-300, TC_FLOAT64, TC_CPU, m.O(9)); }),
         X("1e18 elements", {TC_ERR_OUT_OF_MEMORY},
           [](M& m) { return tc_arange(0, 1e18, 1, TC_FLOAT32, TC_CPU, m.O(9)); }),
         X("dtype 99", {TC_ERR_DTYPE}, [](M& m) { return tc_arange(0, 5, 1, 99, TC_CPU, m.O(9)); }),
         X("device type 9", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_arange(0, 5, 1, TC_FLOAT32, TC_DEVICE(9, 0), m.O(9)); })}));
  add(E(FN(tc_from_data), "P-P--O",
        [](M& m) {
          static const float d[6] = {1, 2, 3, 4, 5, 6};
          int64_t s[] = {2, 3};
          return tc_from_data(m.P(0, d), 24, m.P(2, s), 2, TC_FLOAT32, m.O(5));
        },
        {X("nbytes one too many", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             float d[7] = {};
             int64_t s[] = {2, 3};
             return tc_from_data(d, 28, s, 2, TC_FLOAT32, m.O(9));
           }),
         X("nbytes one too few", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             float d[6] = {};
             int64_t s[] = {2, 3};
             return tc_from_data(d, 23, s, 2, TC_FLOAT32, m.O(9));
           }),
         X("nbytes -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             float d[6] = {};
             int64_t s[] = {2, 3};
             return tc_from_data(d, -1, s, 2, TC_FLOAT32, m.O(9));
           }),
         X("nbytes for float64 with float32", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             double d[6] = {};
             int64_t s[] = {2, 3};
             return tc_from_data(d, 48, s, 2, TC_FLOAT32, m.O(9));
           }),
         X("shape product overflows int64", {TC_ERR_OUT_OF_MEMORY},
           [](M& m) {
             float d[6] = {};
             int64_t s[] = {kI64Max, 3};
             return tc_from_data(d, 24, s, 2, TC_FLOAT32, m.O(9));
           }),
         X("bytes overflow int64", {TC_ERR_OUT_OF_MEMORY, TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             float d[6] = {};
             int64_t s[] = {int64_t(1) << 62};
             return tc_from_data(d, 24, s, 1, TC_FLOAT32, m.O(9));
           }),
         X("ndim 17", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             float d[6] = {};
             int64_t s[17] = {};
             return tc_from_data(d, 0, s, 17, TC_FLOAT32, m.O(9));
           }),
         X("negative size", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             float d[6] = {};
             int64_t s[] = {-2, -3};
             return tc_from_data(d, 24, s, 2, TC_FLOAT32, m.O(9));
           }),
         X("dtype -7", {TC_ERR_DTYPE}, [](M& m) {
           float d[6] = {};
           int64_t s[] = {2, 3};
           return tc_from_data(d, 24, s, 2, -7, m.O(9));
         })}));
  add(E(
      FN(tc_from_blob), "PPp----O",
      [](M& m) {
        int64_t s[] = {2, 3};
        return tc_from_blob(m.P(0, static_cast<void*>(g_blob)), m.P(1, s), nullptr, 2, TC_FLOAT32, nullptr,
                            nullptr, m.O(7));
      },
      [] {
        // Every failing call must have called the deleter exactly once.
        auto blob = [](std::string what, std::vector<int32_t> codes,
                       std::function<int32_t(tc_deleter, tc_tensor*)> call) {
          return X(what + " (deleter runs once)", codes, [call](M& m) {
            g_blob_deletes = 0;
            const int32_t rc = m.done(call(count_delete, m.O(9)));
            if (rc != TC_OK && g_blob_deletes != 1) return -100 - g_blob_deletes;  // a distinct failure
            return rc;
          });
        };
        return std::vector<Extra>{
            blob("negative stride", {TC_ERR_INVALID_ARGUMENT},
                 [](tc_deleter d, tc_tensor* o) {
                   int64_t s[] = {2, 3}, st[] = {3, -1};
                   return tc_from_blob(g_blob, s, st, 2, TC_FLOAT32, d, nullptr, o);
                 }),
            blob("ndim -1", {TC_ERR_INVALID_ARGUMENT},
                 [](tc_deleter d, tc_tensor* o) {
                   int64_t s[] = {2, 3};
                   return tc_from_blob(g_blob, s, nullptr, -1, TC_FLOAT32, d, nullptr, o);
                 }),
            blob("ndim 17", {TC_ERR_INVALID_ARGUMENT},
                 [](tc_deleter d, tc_tensor* o) {
                   int64_t s[17] = {};
                   return tc_from_blob(g_blob, s, nullptr, 17, TC_FLOAT32, d, nullptr, o);
                 }),
            blob("shape product overflows int64", {TC_ERR_OUT_OF_MEMORY, TC_ERR_INVALID_ARGUMENT},
                 [](tc_deleter d, tc_tensor* o) {
                   int64_t s[] = {kI64Max, kI64Max};
                   return tc_from_blob(g_blob, s, nullptr, 2, TC_FLOAT32, d, nullptr, o);
                 }),
            blob("negative size", {TC_ERR_INVALID_ARGUMENT},
                 [](tc_deleter d, tc_tensor* o) {
                   int64_t s[] = {-1};
                   return tc_from_blob(g_blob, s, nullptr, 1, TC_FLOAT32, d, nullptr, o);
                 }),
            blob("dtype 10", {TC_ERR_DTYPE},
                 [](tc_deleter d, tc_tensor* o) {
                   int64_t s[] = {2};
                   return tc_from_blob(g_blob, s, nullptr, 1, TC_DTYPE_COUNT, d, nullptr, o);
                 }),
            blob("data NULL", {TC_ERR_INVALID_ARGUMENT},
                 [](tc_deleter d, tc_tensor* o) {
                   int64_t s[] = {2};
                   return tc_from_blob(nullptr, s, nullptr, 1, TC_FLOAT32, d, nullptr, o);
                 }),
            blob("shape NULL with ndim 2", {TC_ERR_INVALID_ARGUMENT},
                 [](tc_deleter d, tc_tensor* o) {
                   return tc_from_blob(g_blob, nullptr, nullptr, 2, TC_FLOAT32, d, nullptr, o);
                 }),
            blob("out NULL", {TC_ERR_INVALID_ARGUMENT},
                 [](tc_deleter d, tc_tensor*) {
                   int64_t s[] = {2};
                   return tc_from_blob(g_blob, s, nullptr, 1, TC_FLOAT32, d, nullptr, nullptr);
                 }),
        };
      }()));
  add(E(
      FN(tc_rand), "P---O",
      [](M& m) {
        int64_t s[] = {2, 3};
        return tc_rand(m.P(0, s), 2, TC_FLOAT32, TC_CPU, m.O(4));
      },
      [] {
        auto x = factory_extras(tc_rand);
        x.push_back(X("integer dtype", {TC_ERR_DTYPE}, [](M& m) {
          int64_t s[] = {2};
          return tc_rand(s, 1, TC_INT32, TC_CPU, m.O(9));
        }));
        return x;
      }()));
  add(E(
      FN(tc_randn), "P---O",
      [](M& m) {
        int64_t s[] = {2, 3};
        return tc_randn(m.P(0, s), 2, TC_FLOAT32, TC_CPU, m.O(4));
      },
      [] {
        auto x = factory_extras(tc_randn);
        x.push_back(X("bool dtype", {TC_ERR_DTYPE}, [](M& m) {
          int64_t s[] = {2};
          return tc_randn(s, 1, TC_BOOL, TC_CPU, m.O(9));
        }));
        return x;
      }()));
  add(E(FN(tc_manual_seed), "-", [](M&) { return tc_manual_seed(42); }));
  add(E(FN(tc_initial_seed), "P", [](M& m) { return tc_initial_seed(m.P(0, &m.o.u64)); }));

  // Accessors.
  add(E(FN(tc_tensor_dtype), "HP", [](M& m) { return tc_tensor_dtype(m.H(0, m.f.a), m.I32(1)); }));
  add(E(FN(tc_tensor_device), "HP", [](M& m) { return tc_tensor_device(m.H(0, m.f.a), m.I32(1)); }));
  add(E(FN(tc_tensor_ndim), "HP", [](M& m) { return tc_tensor_ndim(m.H(0, m.f.a), m.I64(1)); }));
  add(E(FN(tc_tensor_shape), "HP-", [](M& m) { return tc_tensor_shape(m.H(0, m.f.a), m.I64(1), 2); },
        {X("cap 1 < ndim 2", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_shape(m.f.a, m.o.i64, 1); }),
         X("cap -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_tensor_shape(m.f.a, m.o.i64, -1); })}));
  add(E(FN(tc_tensor_strides), "HP-", [](M& m) { return tc_tensor_strides(m.H(0, m.f.a), m.I64(1), 2); },
        {X("cap 1 < ndim 2", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_strides(m.f.a, m.o.i64, 1); }),
         X("cap INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_strides(m.f.a, m.o.i64, kI64Min); })}));
  add(E(FN(tc_tensor_numel), "HP", [](M& m) { return tc_tensor_numel(m.H(0, m.f.a), m.I64(1)); }));
  add(E(FN(tc_tensor_storage_offset), "HP",
        [](M& m) { return tc_tensor_storage_offset(m.H(0, m.f.a), m.I64(1)); }));
  add(E(FN(tc_tensor_is_contiguous), "HP",
        [](M& m) { return tc_tensor_is_contiguous(m.H(0, m.f.a), m.I32(1)); }));
  add(E(FN(tc_tensor_element_size), "HP",
        [](M& m) { return tc_tensor_element_size(m.H(0, m.f.a), m.I64(1)); }));
  add(E(FN(tc_tensor_data_ptr), "HP",
        [](M& m) { return tc_tensor_data_ptr(m.H(0, m.f.a), m.P(1, &m.o.vp)); }));
  add(E(FN(tc_tensor_copy_to), "HP-",
        [](M& m) { return tc_tensor_copy_to(m.H(0, m.f.a), m.P(1, static_cast<void*>(m.o.buf)), 24); },
        {X("nbytes one too many", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_copy_to(m.f.a, m.o.buf, 25); }),
         X("nbytes one too few", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_copy_to(m.f.a, m.o.buf, 23); }),
         X("nbytes 0", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_tensor_copy_to(m.f.a, m.o.buf, 0); }),
         X("nbytes INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_copy_to(m.f.a, m.o.buf, kI64Min); })}));
  add(E(FN(tc_tensor_item), "HP", [](M& m) { return tc_tensor_item(m.H(0, m.f.s), m.P(1, &m.o.d)); },
        {X("6 elements", {TC_ERR_SHAPE}, [](M& m) { return tc_tensor_item(m.f.a, &m.o.d); })}));
  add(E(
      FN(tc_tensor_to_string), "H-pp",
      [](M& m) { return tc_tensor_to_string(m.H(0, m.f.a), m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras(
          [](M& m, char* b, int64_t c, int64_t* n) { return tc_tensor_to_string(m.f.a, b, c, n); })));
  add(E(FN(tc_tensor_version), "HP", [](M& m) { return tc_tensor_version(m.H(0, m.f.a), m.I64(1)); }));
  add(E(FN(tc_tensor_same), "HHP",
        [](M& m) { return tc_tensor_same(m.H(0, m.f.a), m.H(1, m.f.b), m.I32(2)); }));
  add(E(FN(tc_tensor_set_readonly), "H", [](M& m) { return tc_tensor_set_readonly(m.H(0, m.f.a)); }));
  add(E(FN(tc_tensor_is_readonly), "HP",
        [](M& m) { return tc_tensor_is_readonly(m.H(0, m.f.a), m.I32(1)); }));

  // Conversions and views.
  add(E(FN(tc_to_dtype), "H-O", [](M& m) { return tc_to_dtype(m.H(0, m.f.a), TC_FLOAT64, m.O(2)); },
        {X("dtype -1", {TC_ERR_DTYPE}, [](M& m) { return tc_to_dtype(m.f.a, -1, m.O(9)); }),
         X("dtype TC_DTYPE_COUNT", {TC_ERR_DTYPE},
           [](M& m) { return tc_to_dtype(m.f.a, TC_DTYPE_COUNT, m.O(9)); })}));
  add(E(FN(tc_to_device), "H-O", [](M& m) { return tc_to_device(m.H(0, m.f.a), TC_CPU, m.O(2)); },
        {X("device type 3", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_to_device(m.f.a, TC_DEVICE(3, 0), m.O(9)); }),
         X("device cpu:1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_to_device(m.f.a, TC_DEVICE(0, 1), m.O(9)); }),
         X("device INT32_MIN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_to_device(m.f.a, std::numeric_limits<int32_t>::min(), m.O(9)); })}));
  auto reshape_like = [](int32_t (*fn)(tc_tensor, const int64_t*, int64_t, tc_tensor*)) {
    return std::vector<Extra>{
        X("numel mismatch", {TC_ERR_SHAPE},
          [fn](M& m) {
            int64_t s[] = {4, 2};
            return fn(m.f.a, s, 2, m.O(9));
          }),
        X("two -1 sizes", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) {
            int64_t s[] = {-1, -1};
            return fn(m.f.a, s, 2, m.O(9));
          }),
        X("size -2", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) {
            int64_t s[] = {-2, -3};
            return fn(m.f.a, s, 2, m.O(9));
          }),
        X("-1 with a 0 size", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) {
            int64_t s[] = {0, -1};
            return fn(m.f.a, s, 2, m.O(9));
          }),
        X("shape product overflows int64", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT, TC_ERR_OUT_OF_MEMORY},
          [fn](M& m) {
            int64_t s[] = {kI64Max, 2, 3};
            return fn(m.f.a, s, 3, m.O(9));
          }),
        X("overflow that wraps to 6", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT, TC_ERR_OUT_OF_MEMORY},
          [fn](M& m) {
            int64_t s[] = {(int64_t(1) << 62) + 3, 2};
            return fn(m.f.a, s, 2, m.O(9));
          }),
        X("-1 with an overflowing product", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT, TC_ERR_OUT_OF_MEMORY},
          [fn](M& m) {
            int64_t s[] = {-1, kI64Max, kI64Max};
            return fn(m.f.a, s, 3, m.O(9));
          }),
        X("ndim -1", {TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) {
            int64_t s[] = {6};
            return fn(m.f.a, s, -1, m.O(9));
          }),
        X("ndim 17", {TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) {
            int64_t s[17];
            for (auto& x : s) x = 1;
            return fn(m.f.a, s, 17, m.O(9));
          }),
    };
  };
  add(E(
      FN(tc_reshape), "HP-O",
      [](M& m) {
        int64_t s[] = {3, -1};
        return tc_reshape(m.H(0, m.f.a), m.P(1, s), 2, m.O(3));
      },
      reshape_like(tc_reshape)));
  add(E(
      FN(tc_view), "HP-O",
      [](M& m) {
        int64_t s[] = {6};
        return tc_view(m.H(0, m.f.a), m.P(1, s), 1, m.O(3));
      },
      [&] {
        auto x = reshape_like(tc_view);
        x.push_back(X("view of a transposed tensor needs a copy", {TC_ERR_SHAPE}, [](M& m) {
          tc_tensor tt = nullptr;
          if (tc_transpose(m.f.a, 0, 1, &tt) != TC_OK) return -1;
          int64_t s[] = {6};
          const int32_t rc = m.done(tc_view(tt, s, 1, m.O(9)));
          tc_tensor_free(tt);
          return rc;
        }));
        return x;
      }()));
  add(E(FN(tc_transpose), "H--O", [](M& m) { return tc_transpose(m.H(0, m.f.a), 0, 1, m.O(3)); },
        {X("dim0 2 of a 2-D tensor", {TC_ERR_INDEX}, [](M& m) { return tc_transpose(m.f.a, 2, 0, m.O(9)); }),
         X("dim1 -3", {TC_ERR_INDEX}, [](M& m) { return tc_transpose(m.f.a, 0, -3, m.O(9)); }),
         X("dim0 INT64_MIN", {TC_ERR_INDEX}, [](M& m) { return tc_transpose(m.f.a, kI64Min, 0, m.O(9)); }),
         X("dim1 INT64_MAX", {TC_ERR_INDEX}, [](M& m) { return tc_transpose(m.f.a, 0, kI64Max, m.O(9)); })}));
  add(E(FN(tc_permute), "HP-O",
        [](M& m) {
          int64_t d[] = {1, 0};
          return tc_permute(m.H(0, m.f.a), m.P(1, d), 2, m.O(3));
        },
        {X("repeated dim", {TC_ERR_INVALID_ARGUMENT, TC_ERR_INDEX},
           [](M& m) {
             int64_t d[] = {0, 0};
             return tc_permute(m.f.a, d, 2, m.O(9));
           }),
         X("dim out of range", {TC_ERR_INDEX},
           [](M& m) {
             int64_t d[] = {0, 2};
             return tc_permute(m.f.a, d, 2, m.O(9));
           }),
         X("dim INT64_MIN", {TC_ERR_INDEX},
           [](M& m) {
             int64_t d[] = {kI64Min, 0};
             return tc_permute(m.f.a, d, 2, m.O(9));
           }),
         X("too few dims", {TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE},
           [](M& m) {
             int64_t d[] = {0};
             return tc_permute(m.f.a, d, 1, m.O(9));
           }),
         X("ndim 17", {TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE},
           [](M& m) {
             int64_t d[17] = {};
             return tc_permute(m.f.a, d, 17, m.O(9));
           }),
         X("ndim -1", {TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE}, [](M& m) {
           int64_t d[2] = {};
           return tc_permute(m.f.a, d, -1, m.O(9));
         })}));
  add(E(
      FN(tc_narrow), "H---O", [](M& m) { return tc_narrow(m.H(0, m.f.a), 1, 1, 2, m.O(4)); },
      {X("dim 2", {TC_ERR_INDEX}, [](M& m) { return tc_narrow(m.f.a, 2, 0, 1, m.O(9)); }),
       X("start past the end", {TC_ERR_INDEX}, [](M& m) { return tc_narrow(m.f.a, 1, 4, 0, m.O(9)); }),
       X("start + length past the end", {TC_ERR_INDEX},
         [](M& m) { return tc_narrow(m.f.a, 1, 2, 2, m.O(9)); }),
       X("negative length", {TC_ERR_INDEX, TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_narrow(m.f.a, 1, 0, -1, m.O(9)); }),
       X("start + length overflows int64", {TC_ERR_INDEX},
         [](M& m) { return tc_narrow(m.f.a, 1, 1, kI64Max, m.O(9)); }),
       X("start INT64_MIN", {TC_ERR_INDEX}, [](M& m) { return tc_narrow(m.f.a, 1, kI64Min, 1, m.O(9)); })}));
  add(E(FN(tc_slice), "H----O", [](M& m) { return tc_slice(m.H(0, m.f.a), 1, kI64Min, kI64Max, 2, m.O(5)); },
        {X("step 0", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_slice(m.f.a, 1, 0, 3, 0, m.O(9)); }),
         X("step -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_slice(m.f.a, 1, 0, 3, -1, m.O(9)); }),
         X("step INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_slice(m.f.a, 1, 0, 3, kI64Min, m.O(9)); }),
         X("dim 5", {TC_ERR_INDEX}, [](M& m) { return tc_slice(m.f.a, 5, 0, 3, 1, m.O(9)); })}));
  add(E(FN(tc_select), "H--O", [](M& m) { return tc_select(m.H(0, m.f.a), 1, -1, m.O(3)); },
        {X("index 3 of size 3", {TC_ERR_INDEX}, [](M& m) { return tc_select(m.f.a, 1, 3, m.O(9)); }),
         X("index -4 of size 3", {TC_ERR_INDEX}, [](M& m) { return tc_select(m.f.a, 1, -4, m.O(9)); }),
         X("index INT64_MIN", {TC_ERR_INDEX}, [](M& m) { return tc_select(m.f.a, 1, kI64Min, m.O(9)); }),
         X("dim 2", {TC_ERR_INDEX}, [](M& m) { return tc_select(m.f.a, 2, 0, m.O(9)); }),
         X("a 0-dim tensor", {TC_ERR_INDEX}, [](M& m) { return tc_select(m.f.s, 0, 0, m.O(9)); })}));
  add(E(FN(tc_squeeze), "H-O", [](M& m) { return tc_squeeze(m.H(0, m.f.a), TC_DIM_ALL, m.O(2)); },
        {X("dim 2", {TC_ERR_INDEX}, [](M& m) { return tc_squeeze(m.f.a, 2, m.O(9)); }),
         X("dim INT64_MIN+1", {TC_ERR_INDEX}, [](M& m) { return tc_squeeze(m.f.a, kI64Min + 1, m.O(9)); })}));
  add(E(FN(tc_unsqueeze), "H-O", [](M& m) { return tc_unsqueeze(m.H(0, m.f.a), 2, m.O(2)); },
        {X("dim 3 of a 2-D tensor", {TC_ERR_INDEX}, [](M& m) { return tc_unsqueeze(m.f.a, 3, m.O(9)); }),
         X("dim -4 of a 2-D tensor", {TC_ERR_INDEX}, [](M& m) { return tc_unsqueeze(m.f.a, -4, m.O(9)); }),
         X("dim INT64_MIN", {TC_ERR_INDEX}, [](M& m) { return tc_unsqueeze(m.f.a, kI64Min, m.O(9)); }),
         X("past TC_MAX_DIMS", {TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE, TC_ERR_INDEX}, [](M& m) {
           int64_t s[TC_MAX_DIMS];
           for (auto& x : s) x = 1;
           tc_tensor big = nullptr;
           if (tc_ones(s, TC_MAX_DIMS, TC_FLOAT32, TC_CPU, &big) != TC_OK) return -1;
           const int32_t rc = m.done(tc_unsqueeze(big, 0, m.O(9)));
           tc_tensor_free(big);
           return rc;
         })}));
  add(E(FN(tc_expand), "HP-O",
        [](M& m) {
          int64_t s[] = {4, 2, -1};
          return tc_expand(m.H(0, m.f.a), m.P(1, s), 3, m.O(3));
        },
        {X("size 3 into 4", {TC_ERR_SHAPE},
           [](M& m) {
             int64_t s[] = {2, 4};
             return tc_expand(m.f.a, s, 2, m.O(9));
           }),
         X("fewer dims than the tensor", {TC_ERR_SHAPE},
           [](M& m) {
             int64_t s[] = {3};
             return tc_expand(m.f.a, s, 1, m.O(9));
           }),
         X("-1 for a new leading dim", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             int64_t s[] = {-1, 2, 3};
             return tc_expand(m.f.a, s, 3, m.O(9));
           }),
         X("size -5", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             int64_t s[] = {-5, 2, 3};
             return tc_expand(m.f.a, s, 3, m.O(9));
           }),
         X("shape product overflows int64", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT, TC_ERR_OUT_OF_MEMORY},
           [](M& m) {
             int64_t s[] = {kI64Max, kI64Max, 2, 3};
             return tc_expand(m.f.a, s, 4, m.O(9));
           }),
         X("ndim 17", {TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE}, [](M& m) {
           int64_t s[17];
           for (auto& x : s) x = 1;
           s[15] = 2;
           s[16] = 3;
           return tc_expand(m.f.a, s, 17, m.O(9));
         })}));
  add(E(FN(tc_contiguous), "HO", [](M& m) { return tc_contiguous(m.H(0, m.f.a), m.O(1)); }));
  add(E(FN(tc_clone), "HO", [](M& m) { return tc_clone(m.H(0, m.f.a), m.O(1)); }));

  // The elementwise families: one row per op of ops/ops.toml, generated.
#define TC_MISUSE_ROWS
#include "misuse_ops_generated.inc"
#include "misuse_shared_memory.inc"
#include "misuse_sort_reduce.inc"
#undef TC_MISUSE_ROWS
  add(E(FN(tc_where), "HHHO",
        [](M& m) { return tc_where(m.H(0, m.f.cond), m.H(1, m.f.a), m.H(2, m.f.b), m.O(3)); },
        {X("cond is not bool", {TC_ERR_DTYPE}, [](M& m) { return tc_where(m.f.a, m.f.a, m.f.b, m.O(9)); }),
         X("shapes that do not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_where(m.f.cond, m.f.bt, m.f.b, m.O(9)); })}));

  add(E(FN(tc_clamp), "H--O", [](M& m) { return tc_clamp(m.H(0, m.f.a), 0.0, kNaN, m.O(3)); }));
  add(E(FN(tc_frexp), "HOO", [](M& m) { return tc_frexp(m.H(0, m.f.a), m.O(1, 0), m.O(2, 1)); },
        {X("int32 a", {TC_ERR_DTYPE}, [](M& m) { return tc_frexp(m.f.i32, m.O(9, 0), m.O(9, 1)); })}));

  // The composed binary ops (ops/binary_ext.cpp).
  add(E(FN(tc_isclose), "HH---O",
        [](M& m) { return tc_isclose(m.H(0, m.f.a), m.H(1, m.f.b), 1e-5, 1e-8, 0, m.O(5)); },
        {X("dtypes differ", {TC_ERR_DTYPE},
           [](M& m) { return tc_isclose(m.f.a, m.f.i32, 1e-5, 1e-8, 0, m.O(9)); }),
         X("rtol -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_isclose(m.f.a, m.f.b, -1, 1e-8, 0, m.O(9)); }),
         X("atol NaN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_isclose(m.f.a, m.f.b, 1e-5, kNaN, 0, m.O(9)); }),
         X("shapes that do not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_isclose(m.f.a, m.f.bt, 1e-5, 1e-8, 1, m.O(9)); })}));
  add(E(FN(tc_lerp), "HHHO",
        [](M& m) { return tc_lerp(m.H(0, m.f.a), m.H(1, m.f.b), m.H(2, m.f.s), m.O(3)); },
        {X("integer start and end", {TC_ERR_DTYPE},
           [](M& m) { return tc_lerp(m.f.i32, m.f.i32, m.f.s, m.O(9)); }),
         X("integer weight", {TC_ERR_DTYPE}, [](M& m) { return tc_lerp(m.f.a, m.f.b, m.f.i32, m.O(9)); }),
         X("shapes that do not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_lerp(m.f.a, m.f.bt, m.f.s, m.O(9)); })}));
  add(E(FN(tc_lerp_scalar), "HH-O",
        [](M& m) { return tc_lerp_scalar(m.H(0, m.f.a), m.H(1, m.f.b), 0.25, m.O(3)); },
        {X("float32 start, int32 end", {TC_ERR_DTYPE},
           [](M& m) { return tc_lerp_scalar(m.f.a, m.f.i32, 0.5, m.O(9)); }),
         X("shapes that do not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_lerp_scalar(m.f.a, m.f.bt, 0.5, m.O(9)); })}));
  add(E(FN(tc_addcmul), "HHH-O",
        [](M& m) { return tc_addcmul(m.H(0, m.f.a), m.H(1, m.f.b), m.H(2, m.f.v), 2.0, m.O(4)); },
        {X("integer tensors, value 0.5", {TC_ERR_DTYPE},
           [](M& m) { return tc_addcmul(m.f.i32, m.f.i32, m.f.i32, 0.5, m.O(9)); }),
         X("shapes that do not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_addcmul(m.f.a, m.f.bt, m.f.b, 1.0, m.O(9)); })}));
  add(E(FN(tc_addcdiv), "HHH-O",
        [](M& m) { return tc_addcdiv(m.H(0, m.f.a), m.H(1, m.f.b), m.H(2, m.f.v), 0.5, m.O(4)); },
        {X("integer division", {TC_ERR_DTYPE},
           [](M& m) { return tc_addcdiv(m.f.a, m.f.i32, m.f.i32, 1.0, m.O(9)); }),
         X("shapes that do not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_addcdiv(m.f.a, m.f.b, m.f.bt, 1.0, m.O(9)); })}));
  add(E(FN(tc_prelu), "HHO", [](M& m) { return tc_prelu(m.H(0, m.f.img), m.H(1, m.f.s), m.O(2)); },
        {X("3 weights for 2 channels", {TC_ERR_SHAPE},
           [](M& m) { return tc_prelu(m.f.img, m.f.bias, m.O(9)); }),
         X("2-D weight", {TC_ERR_SHAPE}, [](M& m) { return tc_prelu(m.f.a, m.f.b, m.O(9)); }),
         X("integer input", {TC_ERR_DTYPE}, [](M& m) { return tc_prelu(m.f.i32, m.f.s, m.O(9)); })}));
  add(E(FN(tc_glu), "H-O", [](M& m) { return tc_glu(m.H(0, m.f.t3), 1, m.O(2)); },
        {X("dim of odd size 3", {TC_ERR_SHAPE}, [](M& m) { return tc_glu(m.f.a, 1, m.O(9)); }),
         X("dim 2 of a 2-D tensor", {TC_ERR_INDEX}, [](M& m) { return tc_glu(m.f.a, 2, m.O(9)); }),
         X("a 0-D tensor", {TC_ERR_SHAPE}, [](M& m) { return tc_glu(m.f.s, 0, m.O(9)); }),
         X("integer input", {TC_ERR_DTYPE}, [](M& m) { return tc_glu(m.f.ia, 0, m.O(9)); })}));

  // Reductions.
  auto empty_input = [](int32_t (*fn)(tc_tensor, tc_tensor*)) {
    return std::vector<Extra>{
        X("empty tensor", {TC_ERR_SHAPE, TC_ERR_INDEX, TC_ERR_INVALID_ARGUMENT}, [fn](M& m) {
          int64_t s[] = {0, 3};
          tc_tensor e = nullptr;
          if (tc_zeros(s, 2, TC_FLOAT32, TC_CPU, &e) != TC_OK) return -1;
          const int32_t rc = m.done(fn(e, m.O(9)));
          tc_tensor_free(e);
          return rc;
        })};
  };
  add(E(
      FN(tc_max), "HO", [](M& m) { return tc_max(m.H(0, m.f.a), m.O(1)); }, empty_input(tc_max)));
  add(E(
      FN(tc_min), "HO", [](M& m) { return tc_min(m.H(0, m.f.a), m.O(1)); }, empty_input(tc_min)));
  add(E(
      FN(tc_max_dim), "H--OO", [](M& m) { return tc_max_dim(m.H(0, m.f.a), 1, 0, m.O(3, 0), m.O(4, 1)); },
      dim_extras([](M& m, int64_t d) { return tc_max_dim(m.f.a, d, 0, m.O(9, 0), m.O(9, 1)); })));
  add(E(
      FN(tc_min_dim), "H--OO", [](M& m) { return tc_min_dim(m.H(0, m.f.a), 1, 1, m.O(3, 0), m.O(4, 1)); },
      dim_extras([](M& m, int64_t d) { return tc_min_dim(m.f.a, d, 0, m.O(9, 0), m.O(9, 1)); })));
  add(E(
      FN(tc_argmax), "H--O", [](M& m) { return tc_argmax(m.H(0, m.f.a), TC_DIM_ALL, 0, m.O(3)); },
      dim_extras([](M& m, int64_t d) { return tc_argmax(m.f.a, d, 0, m.O(9)); })));
  add(E(
      FN(tc_argmin), "H--O", [](M& m) { return tc_argmin(m.H(0, m.f.a), 0, 1, m.O(3)); },
      dim_extras([](M& m, int64_t d) { return tc_argmin(m.f.a, d, 0, m.O(9)); })));

  // Linear algebra and nn.
  add(E(FN(tc_matmul), "HHO", [](M& m) { return tc_matmul(m.H(0, m.f.a), m.H(1, m.f.bt), m.O(2)); },
        {X("inner sizes differ ([2,3] @ [2,3])", {TC_ERR_SHAPE},
           [](M& m) { return tc_matmul(m.f.a, m.f.b, m.O(9)); }),
         X("0-dim operand", {TC_ERR_SHAPE}, [](M& m) { return tc_matmul(m.f.s, m.f.a, m.O(9)); }),
         X("integer and float operands", {TC_ERR_DTYPE}, [](M& m) {
           tc_tensor it = make(TC_INT32, {3, 2});
           const int32_t rc = m.done(tc_matmul(m.f.a, it, m.O(9)));
           free_t(it);
           return rc;
         })}));
  add(E(FN(tc_set_matmul_precision), "-",
        [](M&) { return tc_set_matmul_precision(TC_MATMUL_PRECISION_HIGHEST); },
        {X("precision 3", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_matmul_precision(3); }),
         X("precision -1", {TC_ERR_INVALID_ARGUMENT}, [](M&) { return tc_set_matmul_precision(-1); })}));
  add(E(FN(tc_get_matmul_precision), "P", [](M& m) { return tc_get_matmul_precision(m.I32(0)); }));
  add(E(FN(tc_linear), "HHhO",
        [](M& m) { return tc_linear(m.H(0, m.f.a), m.H(1, m.f.lw), m.H(2, m.f.lb), m.O(3)); },
        {X("weight in_features differ", {TC_ERR_SHAPE},
           [](M& m) { return tc_linear(m.f.a, m.f.bt, nullptr, m.O(9)); }),
         X("bias of the wrong size", {TC_ERR_SHAPE},
           [](M& m) { return tc_linear(m.f.a, m.f.b, m.f.b, m.O(9)); })}));
  add(E(
      FN(tc_cross_entropy), "HH-O",
      [](M& m) { return tc_cross_entropy(m.H(0, m.f.a), m.H(1, m.f.cls), TC_REDUCTION_MEAN, m.O(3)); },
      [] {
        auto x =
            reduction_extras([](M& m, int32_t r) { return tc_cross_entropy(m.f.a, m.f.cls, r, m.O(9)); });
        x.push_back(X("float target of another shape", {TC_ERR_DTYPE, TC_ERR_SHAPE},
                      [](M& m) { return tc_cross_entropy(m.f.a, m.f.v, TC_REDUCTION_MEAN, m.O(9)); }));
        x.push_back(X("target batch size differs", {TC_ERR_SHAPE}, [](M& m) {
          tc_tensor t3 = make_i64({3}, {0, 1, 2});
          const int32_t rc = m.done(tc_cross_entropy(m.f.a, t3, TC_REDUCTION_MEAN, m.O(9)));
          free_t(t3);
          return rc;
        }));
        x.push_back(X("class index 3 of 3", {TC_ERR_INDEX}, [](M& m) {
          tc_tensor t2 = make_i64({2}, {0, 3});
          const int32_t rc = m.done(tc_cross_entropy(m.f.a, t2, TC_REDUCTION_SUM, m.O(9)));
          free_t(t2);
          return rc;
        }));
        x.push_back(X("class index -1", {TC_ERR_INDEX}, [](M& m) {
          tc_tensor t2 = make_i64({2}, {-1, 0});
          const int32_t rc = m.done(tc_cross_entropy(m.f.a, t2, TC_REDUCTION_NONE, m.O(9)));
          free_t(t2);
          return rc;
        }));
        x.push_back(X("class index INT64_MIN", {TC_ERR_INDEX}, [](M& m) {
          tc_tensor t2 = make_i64({2}, {kI64Min, 0});
          const int32_t rc = m.done(tc_cross_entropy(m.f.a, t2, TC_REDUCTION_NONE, m.O(9)));
          free_t(t2);
          return rc;
        }));
        return x;
      }()));
  add(E(
      FN(tc_nll_loss), "HH-O",
      [](M& m) { return tc_nll_loss(m.H(0, m.f.a), m.H(1, m.f.cls), TC_REDUCTION_SUM, m.O(3)); },
      [] {
        auto x = reduction_extras([](M& m, int32_t r) { return tc_nll_loss(m.f.a, m.f.cls, r, m.O(9)); });
        x.push_back(X("class index 7 of 3", {TC_ERR_INDEX}, [](M& m) {
          tc_tensor t2 = make_i64({2}, {7, 0});
          const int32_t rc = m.done(tc_nll_loss(m.f.a, t2, TC_REDUCTION_MEAN, m.O(9)));
          free_t(t2);
          return rc;
        }));
        x.push_back(X("float target", {TC_ERR_DTYPE, TC_ERR_SHAPE},
                      [](M& m) { return tc_nll_loss(m.f.a, m.f.v, TC_REDUCTION_MEAN, m.O(9)); }));
        return x;
      }()));
  add(E(
      FN(tc_mse_loss), "HH-O",
      [](M& m) { return tc_mse_loss(m.H(0, m.f.a), m.H(1, m.f.b), TC_REDUCTION_NONE, m.O(3)); },
      [] {
        auto x = reduction_extras([](M& m, int32_t r) { return tc_mse_loss(m.f.a, m.f.b, r, m.O(9)); });
        x.push_back(X("shapes that do not broadcast", {TC_ERR_SHAPE},
                      [](M& m) { return tc_mse_loss(m.f.a, m.f.bt, TC_REDUCTION_MEAN, m.O(9)); }));
        return x;
      }()));
  add(E(FN(tc_dropout), "H--O", [](M& m) { return tc_dropout(m.H(0, m.f.a), 0.5, 1, m.O(3)); },
        {X("p -0.1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_dropout(m.f.a, -0.1, 1, m.O(9)); }),
         X("p 1.5", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_dropout(m.f.a, 1.5, 1, m.O(9)); }),
         X("p NaN", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_dropout(m.f.a, kNaN, 1, m.O(9)); })}));
  add(E(
      FN(tc_conv2d), "HHhPPP-O",
      [](M& m) {
        int64_t st[] = {1, 1}, pad[] = {1, 1}, dil[] = {1, 1};
        return tc_conv2d(m.H(0, m.f.img), m.H(1, m.f.w), m.H(2, m.f.bias), m.P(3, st), m.P(4, pad),
                         m.P(5, dil), 1, m.O(7));
      },
      [] {
        auto conv = [](std::string what, std::vector<int32_t> codes, int64_t s0, int64_t p0, int64_t d0,
                       int64_t groups) {
          return X(what, codes, [=](M& m) {
            int64_t st[] = {s0, 1}, pad[] = {p0, 0}, dil[] = {d0, 1};
            return tc_conv2d(m.f.img, m.f.w, m.f.bias, st, pad, dil, groups, m.O(9));
          });
        };
        return std::vector<Extra>{
            conv("groups 0", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 1, 0),
            conv("groups -1", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 1, -1),
            conv("groups 2 (3 output channels)", {TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE}, 1, 0, 1, 2),
            conv("stride 0", {TC_ERR_INVALID_ARGUMENT}, 0, 0, 1, 1),
            conv("stride -1", {TC_ERR_INVALID_ARGUMENT}, -1, 0, 1, 1),
            conv("padding -1", {TC_ERR_INVALID_ARGUMENT}, 1, -1, 1, 1),
            conv("dilation 0", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 0, 1),
            conv("kernel larger than the padded input", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT}, 1, 0, 5, 1),
            conv("stride INT64_MAX", {TC_OK, TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE}, kI64Max, 0, 1, 1),
            conv("padding INT64_MAX (output size overflows)",
                 {TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE, TC_ERR_OUT_OF_MEMORY}, 1, kI64Max, 1, 1),
            conv("dilation INT64_MAX", {TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE}, 1, 0, kI64Max, 1),
            X("3-D input", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t st[] = {1, 1}, pad[] = {0, 0}, dil[] = {1, 1};
                return tc_conv2d(m.f.t3, m.f.w, nullptr, st, pad, dil, 1, m.O(9));
              }),
            X("input channels differ", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t st[] = {1, 1}, pad[] = {0, 0}, dil[] = {1, 1};
                tc_tensor x3 = make_f32({1, 3, 4, 4});
                const int32_t rc = m.done(tc_conv2d(x3, m.f.w, nullptr, st, pad, dil, 1, m.O(9)));
                free_t(x3);
                return rc;
              }),
            X("bias of the wrong size", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t st[] = {1, 1}, pad[] = {0, 0}, dil[] = {1, 1};
                return tc_conv2d(m.f.img, m.f.w, m.f.lb, st, pad, dil, 1, m.O(9));
              }),
        };
      }()));
  auto pool_extras =
      [](int32_t (*fn)(tc_tensor, const int64_t*, const int64_t*, const int64_t*, tc_tensor*)) {
        auto pool = [fn](std::string what, std::vector<int32_t> codes, int64_t k, int64_t s, int64_t p) {
          return X(what, codes, [=](M& m) {
            int64_t ks[] = {k, 2}, ss[] = {s, 2}, ps[] = {p, 0};
            return fn(m.f.img, ks, ss, ps, m.O(9));
          });
        };
        return std::vector<Extra>{
            pool("kernel 0", {TC_ERR_INVALID_ARGUMENT}, 0, 1, 0),
            pool("kernel -2", {TC_ERR_INVALID_ARGUMENT}, -2, 1, 0),
            pool("kernel larger than the input", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT}, 9, 1, 0),
            pool("kernel INT64_MAX", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT}, kI64Max, 1, 0),
            pool("stride 0", {TC_ERR_INVALID_ARGUMENT}, 2, 0, 0),
            pool("padding -1", {TC_ERR_INVALID_ARGUMENT}, 2, 1, -1),
            pool("padding larger than half the kernel", {TC_ERR_INVALID_ARGUMENT}, 2, 1, 2),
            pool("padding INT64_MAX", {TC_ERR_INVALID_ARGUMENT}, 2, 1, kI64Max),
            X("3-D input", {TC_ERR_SHAPE},
              [fn](M& m) {
                int64_t ks[] = {2, 2};
                return fn(m.f.t3, ks, nullptr, ks, m.O(9));
              }),
        };
      };
  add(E(
      FN(tc_max_pool2d), "HPpPO",
      [](M& m) {
        int64_t k[] = {2, 2}, p[] = {0, 0};
        return tc_max_pool2d(m.H(0, m.f.img), m.P(1, k), nullptr, m.P(3, p), m.O(4));
      },
      pool_extras(tc_max_pool2d)));
  add(E(
      FN(tc_avg_pool2d), "HPpPO",
      [](M& m) {
        int64_t k[] = {2, 2}, s[] = {1, 1}, p[] = {1, 1};
        return tc_avg_pool2d(m.H(0, m.f.img), m.P(1, k), s, m.P(3, p), m.O(4));
      },
      pool_extras(tc_avg_pool2d)));
  add(E(FN(tc_embedding), "HHO", [](M& m) { return tc_embedding(m.H(0, m.f.emb), m.H(1, m.f.cls), m.O(2)); },
        {X("float indices", {TC_ERR_DTYPE}, [](M& m) { return tc_embedding(m.f.emb, m.f.v, m.O(9)); }),
         X("index 4 of 4 rows", {TC_ERR_INDEX},
           [](M& m) {
             tc_tensor ix = make_i64({2}, {1, 4});
             const int32_t rc = m.done(tc_embedding(m.f.emb, ix, m.O(9)));
             free_t(ix);
             return rc;
           }),
         X("index -1", {TC_ERR_INDEX},
           [](M& m) {
             tc_tensor ix = make_i64({1}, {-1});
             const int32_t rc = m.done(tc_embedding(m.f.emb, ix, m.O(9)));
             free_t(ix);
             return rc;
           }),
         X("1-D weight", {TC_ERR_SHAPE}, [](M& m) { return tc_embedding(m.f.v, m.f.cls, m.O(9)); })}));

  // Neural-network layers (ops/nn_layers.cpp).
  add(E(
      FN(tc_batch_norm), "Hhhhh---O",
      [](M& m) {
        return tc_batch_norm(m.H(0, m.f.a), m.H(1, m.f.v), m.H(2, m.f.bias), m.H(3, m.f.bias), m.H(4, m.f.v),
                             0, 0.1, 1e-5, m.O(8));
      },
      {X("weight of the wrong size", {TC_ERR_SHAPE},
         [](M& m) { return tc_batch_norm(m.f.a, m.f.lb, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, m.O(9)); }),
       X("int32 x", {TC_ERR_DTYPE},
         [](M& m) {
           return tc_batch_norm(m.f.i32, nullptr, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, m.O(9));
         }),
       X("1-D x", {TC_ERR_SHAPE},
         [](M& m) { return tc_batch_norm(m.f.v, nullptr, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, m.O(9)); }),
       X("evaluation without running stats", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_batch_norm(m.f.a, nullptr, nullptr, nullptr, nullptr, 0, 0.1, 1e-5, m.O(9)); }),
       X("running_mean without running_var", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_batch_norm(m.f.a, nullptr, nullptr, m.f.v, nullptr, 1, 0.1, 1e-5, m.O(9)); }),
       X("momentum NaN", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_batch_norm(m.f.a, nullptr, nullptr, m.f.v, m.f.bias, 1, kNaN, 1e-5, m.O(9)); }),
       X("eps -1", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_batch_norm(m.f.a, nullptr, nullptr, nullptr, nullptr, 1, 0.1, -1.0, m.O(9)); }),
       X("one value per channel in training", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
         tc_tensor x = make_f32({1, 3});
         const int32_t rc =
             m.done(tc_batch_norm(x, nullptr, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, m.O(9)));
         free_t(x);
         return rc;
       })}));
  add(E(FN(tc_group_norm), "H-hh-O",
        [](M& m) { return tc_group_norm(m.H(0, m.f.a), 3, m.H(2, m.f.v), m.H(3, m.f.bias), 1e-5, m.O(5)); },
        {X("num_groups 2 of 3 channels", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_group_norm(m.f.a, 2, nullptr, nullptr, 1e-5, m.O(9)); }),
         X("num_groups 0", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_group_norm(m.f.a, 0, nullptr, nullptr, 1e-5, m.O(9)); }),
         X("num_groups INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_group_norm(m.f.a, kI64Min, nullptr, nullptr, 1e-5, m.O(9)); }),
         X("eps NaN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_group_norm(m.f.a, 1, nullptr, nullptr, kNaN, m.O(9)); }),
         X("bias of the wrong size", {TC_ERR_SHAPE},
           [](M& m) { return tc_group_norm(m.f.a, 1, nullptr, m.f.lb, 1e-5, m.O(9)); })}));
  add(E(
      FN(tc_instance_norm), "Hhhhh---O",
      [](M& m) {
        return tc_instance_norm(m.H(0, m.f.t3), m.H(1, m.f.lb), m.H(2, m.f.lb), m.H(3, m.f.lb),
                                m.H(4, m.f.lb), 1, 0.1, 1e-5, m.O(8));
      },
      {X("2-D x", {TC_ERR_SHAPE},
         [](M& m) {
           return tc_instance_norm(m.f.a, nullptr, nullptr, nullptr, nullptr, 1, 0.1, 1e-5, m.O(9));
         }),
       X("running stats of the wrong size", {TC_ERR_SHAPE},
         [](M& m) { return tc_instance_norm(m.f.t3, nullptr, nullptr, m.f.v, m.f.v, 1, 0.1, 1e-5, m.O(9)); }),
       X("use_input_stats 0 without running stats", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) {
           return tc_instance_norm(m.f.t3, nullptr, nullptr, nullptr, nullptr, 0, 0.1, 1e-5, m.O(9));
         }),
       X("momentum inf", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
         return tc_instance_norm(m.f.t3, nullptr, nullptr, nullptr, nullptr, 1,
                                 std::numeric_limits<double>::infinity(), 1e-5, m.O(9));
       })}));
  add(E(
      FN(tc_conv2d_padded), "HHhPPP-O",
      [](M& m) {
        int64_t st[] = {1, 1}, pad[] = {1, 0, 2, 1}, dil[] = {1, 1};
        return tc_conv2d_padded(m.H(0, m.f.img), m.H(1, m.f.w), m.H(2, m.f.bias), m.P(3, st), m.P(4, pad),
                                m.P(5, dil), 1, m.O(7));
      },
      [] {
        auto conv = [](std::string what, std::vector<int32_t> codes, int64_t p0, int64_t p3, int64_t s0) {
          return X(what, codes, [=](M& m) {
            int64_t st[] = {s0, 1}, pad[] = {p0, 0, 0, p3}, dil[] = {1, 1};
            return tc_conv2d_padded(m.f.img, m.f.w, m.f.bias, st, pad, dil, 1, m.O(9));
          });
        };
        return std::vector<Extra>{
            conv("padding -1", {TC_ERR_INVALID_ARGUMENT}, -1, 0, 1),
            conv("padding INT64_MAX", {TC_ERR_INVALID_ARGUMENT}, 0, kI64Max, 1),
            conv("stride 0", {TC_ERR_INVALID_ARGUMENT}, 1, 1, 0),
            X("3-D input", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t st[] = {1, 1}, pad[] = {0, 0, 0, 0}, dil[] = {1, 1};
                return tc_conv2d_padded(m.f.t3, m.f.w, nullptr, st, pad, dil, 1, m.O(9));
              }),
        };
      }()));
  add(E(
      FN(tc_conv_transpose2d), "HHhPPPP-O",
      [](M& m) {
        // weight [2 in, 3 out, 3, 3]: made here (the fixtures' w is a conv2d weight of the other layout).
        int64_t st[] = {2, 1}, pad[] = {1, 0}, op[] = {1, 0}, dil[] = {1, 1};
        tc_tensor w = make_f32({2, 3, 3, 3});
        const int32_t rc =
            m.done(tc_conv_transpose2d(m.H(0, m.f.img), m.H(1, w), m.H(2, m.f.bias), m.P(3, st), m.P(4, pad),
                                       m.P(5, op), m.P(6, dil), 1, m.O(8)));
        free_t(w);
        return rc;
      },
      [] {
        auto ct = [](std::string what, std::vector<int32_t> codes, int64_t s0, int64_t p0, int64_t op0,
                     int64_t d0, int64_t groups) {
          return X(what, codes, [=](M& m) {
            int64_t st[] = {s0, 1}, pad[] = {p0, 0}, op[] = {op0, 0}, dil[] = {d0, 1};
            tc_tensor w = make_f32({2, 3, 3, 3});
            const int32_t rc =
                m.done(tc_conv_transpose2d(m.f.img, w, nullptr, st, pad, op, dil, groups, m.O(9)));
            free_t(w);
            return rc;
          });
        };
        return std::vector<Extra>{
            ct("stride 0", {TC_ERR_INVALID_ARGUMENT}, 0, 0, 0, 1, 1),
            ct("padding -1", {TC_ERR_INVALID_ARGUMENT}, 1, -1, 0, 1, 1),
            ct("output_padding not below stride or dilation", {TC_ERR_INVALID_ARGUMENT}, 2, 0, 2, 1, 1),
            ct("dilation 0", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 0, 0, 1),
            ct("groups 0", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 0, 1, 0),
            ct("groups 3 (2 input channels)", {TC_ERR_SHAPE}, 1, 0, 0, 1, 3),
            ct("padding so large the output is empty", {TC_ERR_SHAPE}, 1, 9, 0, 1, 1),
            ct("padding INT64_MAX", {TC_ERR_INVALID_ARGUMENT}, 1, kI64Max, 0, 1, 1),
            X("input channels differ", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t st[] = {1, 1}, pad[] = {0, 0}, op[] = {0, 0}, dil[] = {1, 1};
                return tc_conv_transpose2d(m.f.img, m.f.w, nullptr, st, pad, op, dil, 1, m.O(9));
              }),
        };
      }()));
  add(E(
      FN(tc_conv3d), "HHhPPP-O",
      [](M& m) {
        // x [1, 2, 3, 4, 4], weight [3, 2, 2, 3, 3]: made here (the fixtures are 2-D).
        int64_t st[] = {1, 1, 2}, pad[] = {1, 1, 0}, dil[] = {1, 1, 1};
        tc_tensor x = make_f32({1, 2, 3, 4, 4}), w = make_f32({3, 2, 2, 3, 3});
        const int32_t rc = m.done(tc_conv3d(m.H(0, x), m.H(1, w), m.H(2, m.f.bias), m.P(3, st), m.P(4, pad),
                                            m.P(5, dil), 1, m.O(7)));
        free_t(x);
        free_t(w);
        return rc;
      },
      [] {
        auto conv = [](std::string what, std::vector<int32_t> codes, int64_t s0, int64_t p0, int64_t d0,
                       int64_t groups) {
          return X(what, codes, [=](M& m) {
            int64_t st[] = {s0, 1, 1}, pad[] = {p0, 0, 0}, dil[] = {d0, 1, 1};
            tc_tensor x = make_f32({1, 2, 3, 4, 4}), w = make_f32({3, 2, 2, 3, 3});
            const int32_t rc = m.done(tc_conv3d(x, w, nullptr, st, pad, dil, groups, m.O(9)));
            free_t(x);
            free_t(w);
            return rc;
          });
        };
        return std::vector<Extra>{
            conv("groups 0", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 1, 0),
            conv("groups 2 (3 output channels)", {TC_ERR_SHAPE}, 1, 0, 1, 2),
            conv("stride 0", {TC_ERR_INVALID_ARGUMENT}, 0, 0, 1, 1),
            conv("padding -1", {TC_ERR_INVALID_ARGUMENT}, 1, -1, 1, 1),
            conv("dilation 0", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 0, 1),
            conv("kernel larger than the padded input", {TC_ERR_SHAPE}, 1, 0, 5, 1),
            conv("padding INT64_MAX", {TC_ERR_INVALID_ARGUMENT}, 1, kI64Max, 1, 1),
            X("4-D input", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t st[] = {1, 1, 1}, pad[] = {0, 0, 0}, dil[] = {1, 1, 1};
                tc_tensor w = make_f32({3, 2, 1, 3, 3});
                const int32_t rc = m.done(tc_conv3d(m.f.img, w, nullptr, st, pad, dil, 1, m.O(9)));
                free_t(w);
                return rc;
              }),
            X("bias of the wrong size", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t st[] = {1, 1, 1}, pad[] = {0, 0, 0}, dil[] = {1, 1, 1};
                tc_tensor x = make_f32({1, 2, 3, 4, 4}), w = make_f32({3, 2, 2, 3, 3}), b = make_f32({2});
                const int32_t rc = m.done(tc_conv3d(x, w, b, st, pad, dil, 1, m.O(9)));
                free_t(x);
                free_t(w);
                free_t(b);
                return rc;
              }),
        };
      }()));
  add(E(
      FN(tc_conv_transpose3d), "HHhPPPP-O",
      [](M& m) {
        // x [1, 2, 2, 3, 3], weight [2 in, 3 out, 2, 2, 2].
        int64_t st[] = {2, 1, 2}, pad[] = {1, 0, 0}, op[] = {1, 0, 0}, dil[] = {1, 1, 1};
        tc_tensor x = make_f32({1, 2, 2, 3, 3}), w = make_f32({2, 3, 2, 2, 2});
        const int32_t rc = m.done(tc_conv_transpose3d(m.H(0, x), m.H(1, w), m.H(2, m.f.bias), m.P(3, st),
                                                      m.P(4, pad), m.P(5, op), m.P(6, dil), 1, m.O(8)));
        free_t(x);
        free_t(w);
        return rc;
      },
      [] {
        auto ct = [](std::string what, std::vector<int32_t> codes, int64_t s0, int64_t p0, int64_t op0,
                     int64_t d0, int64_t groups) {
          return X(what, codes, [=](M& m) {
            int64_t st[] = {s0, 1, 1}, pad[] = {p0, 0, 0}, op[] = {op0, 0, 0}, dil[] = {d0, 1, 1};
            tc_tensor x = make_f32({1, 2, 2, 3, 3}), w = make_f32({2, 3, 2, 2, 2});
            const int32_t rc = m.done(tc_conv_transpose3d(x, w, nullptr, st, pad, op, dil, groups, m.O(9)));
            free_t(x);
            free_t(w);
            return rc;
          });
        };
        return std::vector<Extra>{
            ct("stride 0", {TC_ERR_INVALID_ARGUMENT}, 0, 0, 0, 1, 1),
            ct("padding -1", {TC_ERR_INVALID_ARGUMENT}, 1, -1, 0, 1, 1),
            ct("output_padding not below stride or dilation", {TC_ERR_INVALID_ARGUMENT}, 2, 0, 2, 1, 1),
            ct("dilation 0", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 0, 0, 1),
            ct("groups 0", {TC_ERR_INVALID_ARGUMENT}, 1, 0, 0, 1, 0),
            ct("groups 3 (2 input channels)", {TC_ERR_SHAPE}, 1, 0, 0, 1, 3),
            ct("padding so large the output is empty", {TC_ERR_SHAPE}, 1, 9, 0, 1, 1),
            ct("padding INT64_MAX", {TC_ERR_INVALID_ARGUMENT}, 1, kI64Max, 0, 1, 1),
            X("4-D input", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t st[] = {1, 1, 1}, pad[] = {0, 0, 0}, op[] = {0, 0, 0}, dil[] = {1, 1, 1};
                tc_tensor w = make_f32({2, 3, 2, 2, 2});
                const int32_t rc =
                    m.done(tc_conv_transpose3d(m.f.img, w, nullptr, st, pad, op, dil, 1, m.O(9)));
                free_t(w);
                return rc;
              }),
        };
      }()));
  auto pool_ex_extras =
      [](std::function<int32_t(M&, const int64_t*, const int64_t*, const int64_t*, int32_t)> f) {
        auto pool = [f](std::string what, std::vector<int32_t> codes, int64_t k, int64_t s, int64_t p,
                        int32_t ceil) {
          return X(what, codes, [=](M& m) {
            int64_t ks[] = {k, 2}, ss[] = {s, 2}, ps[] = {p, 0};
            return f(m, ks, ss, ps, ceil);
          });
        };
        return std::vector<Extra>{
            pool("kernel 0", {TC_ERR_INVALID_ARGUMENT}, 0, 1, 0, 0),
            pool("kernel larger than the input", {TC_ERR_SHAPE}, 9, 1, 0, 1),
            pool("kernel INT64_MAX", {TC_ERR_INVALID_ARGUMENT}, kI64Max, 1, 0, 0),
            pool("stride 0", {TC_ERR_INVALID_ARGUMENT}, 2, 0, 0, 0),
            pool("stride INT64_MIN", {TC_ERR_INVALID_ARGUMENT}, 2, kI64Min, 0, 1),
            pool("padding -1", {TC_ERR_INVALID_ARGUMENT}, 2, 1, -1, 0),
            pool("padding larger than half the kernel", {TC_ERR_INVALID_ARGUMENT}, 2, 1, 2, 1),
        };
      };
  {
    auto extras =
        pool_ex_extras([](M& m, const int64_t* k, const int64_t* s, const int64_t* p, int32_t ceil) {
          int64_t d[] = {1, 1};
          return tc_max_pool2d_with_indices(m.f.img, k, s, p, d, ceil, m.O(9, 0), m.O(9, 1));
        });
    extras.push_back(X("dilation 0", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
      int64_t k[] = {2, 2}, p[] = {0, 0}, d[] = {0, 1};
      return tc_max_pool2d_with_indices(m.f.img, k, nullptr, p, d, 0, m.O(9, 0), m.O(9, 1));
    }));
    extras.push_back(X("3-D input", {TC_ERR_SHAPE}, [](M& m) {
      int64_t k[] = {2, 2}, p[] = {0, 0}, d[] = {1, 1};
      return tc_max_pool2d_with_indices(m.f.t3, k, nullptr, p, d, 0, m.O(9, 0), nullptr);
    }));
    add(E(
        FN(tc_max_pool2d_with_indices), "HPpPP-Op",
        [](M& m) {
          int64_t k[] = {3, 2}, p[] = {1, 0}, d[] = {1, 2};
          return tc_max_pool2d_with_indices(m.H(0, m.f.img), m.P(1, k), nullptr, m.P(3, p), m.P(4, d), 1,
                                            m.O(6, 0), m.O(7, 1));
        },
        extras));
  }
  {
    auto extras =
        pool_ex_extras([](M& m, const int64_t* k, const int64_t* s, const int64_t* p, int32_t ceil) {
          return tc_avg_pool2d_ex(m.f.img, k, s, p, ceil, 0, 0, m.O(9));
        });
    extras.push_back(X("divisor_override -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
      int64_t k[] = {2, 2}, p[] = {0, 0};
      return tc_avg_pool2d_ex(m.f.img, k, nullptr, p, 0, 1, -1, m.O(9));
    }));
    add(E(
        FN(tc_avg_pool2d_ex), "HPpP---O",
        [](M& m) {
          int64_t k[] = {3, 3}, s[] = {2, 2}, p[] = {1, 1};
          return tc_avg_pool2d_ex(m.H(0, m.f.img), m.P(1, k), s, m.P(3, p), 1, 0, 0, m.O(7));
        },
        extras));
  }
  add(E(FN(tc_adaptive_avg_pool2d), "HPO",
        [](M& m) {
          int64_t o[] = {3, 2};
          return tc_adaptive_avg_pool2d(m.H(0, m.f.img), m.P(1, o), m.O(2));
        },
        {X("output size -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             int64_t o[] = {-1, 2};
             return tc_adaptive_avg_pool2d(m.f.img, o, m.O(9));
           }),
         X("output size INT64_MAX", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             int64_t o[] = {2, kI64Max};
             return tc_adaptive_avg_pool2d(m.f.img, o, m.O(9));
           }),
         X("1-D input", {TC_ERR_SHAPE}, [](M& m) {
           int64_t o[] = {2, 2};
           return tc_adaptive_avg_pool2d(m.f.v, o, m.O(9));
         })}));
  add(E(FN(tc_adaptive_max_pool2d), "HPOp",
        [](M& m) {
          int64_t o[] = {3, 3};
          return tc_adaptive_max_pool2d(m.H(0, m.f.img), m.P(1, o), m.O(2, 0), m.O(3, 1));
        },
        {X("output size -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             int64_t o[] = {2, -1};
             return tc_adaptive_max_pool2d(m.f.img, o, m.O(9, 0), m.O(9, 1));
           }),
         X("int32 x", {TC_ERR_DTYPE}, [](M& m) {
           int64_t o[] = {2, 2};
           return tc_adaptive_max_pool2d(m.f.i32, o, m.O(9, 0), nullptr);
         })}));
  add(E(FN(tc_adaptive_avg_pool1d), "H-O",
        [](M& m) { return tc_adaptive_avg_pool1d(m.H(0, m.f.t3), 3, m.O(2)); },
        {X("output size -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_adaptive_avg_pool1d(m.f.t3, -1, m.O(9)); }),
         X("output size INT64_MAX", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_adaptive_avg_pool1d(m.f.a, kI64Max, m.O(9)); }),
         X("4-D input", {TC_ERR_SHAPE}, [](M& m) { return tc_adaptive_avg_pool1d(m.f.img, 2, m.O(9)); }),
         X("int32 x", {TC_ERR_DTYPE}, [](M& m) { return tc_adaptive_avg_pool1d(m.f.i32, 2, m.O(9)); })}));
  add(E(FN(tc_adaptive_max_pool1d), "H-Op",
        [](M& m) { return tc_adaptive_max_pool1d(m.H(0, m.f.a), 2, m.O(2, 0), m.O(3, 1)); },
        {X("output size -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_adaptive_max_pool1d(m.f.t3, -1, m.O(9, 0), m.O(9, 1)); }),
         X("1-D input", {TC_ERR_SHAPE},
           [](M& m) { return tc_adaptive_max_pool1d(m.f.v, 2, m.O(9, 0), nullptr); }),
         X("int32 x", {TC_ERR_DTYPE},
           [](M& m) { return tc_adaptive_max_pool1d(m.f.i32, 2, m.O(9, 0), m.O(9, 1)); })}));
  add(E(
      FN(tc_interpolate), "HPp--O",
      [](M& m) {
        int64_t size[] = {7, 3};
        double sf[] = {0.0, 0.75};
        return tc_interpolate(m.H(0, m.f.img), m.P(1, size), sf, TC_INTERP_LINEAR, 0, m.O(5));
      },
      [] {
        auto ip = [](std::string what, std::vector<int32_t> codes, int64_t s0, double f0, int32_t mode,
                     int32_t align) {
          return X(what, codes, [=](M& m) {
            int64_t size[] = {s0, 3};
            double sf[] = {f0, 0.0};
            return tc_interpolate(m.f.img, size, sf, mode, align, m.O(9));
          });
        };
        return std::vector<Extra>{
            ip("mode 7", {TC_ERR_INVALID_ARGUMENT}, 2, 0.0, 7, 0),
            ip("size 0", {TC_ERR_INVALID_ARGUMENT}, 0, 0.0, TC_INTERP_NEAREST, 0),
            ip("size INT64_MAX", {TC_ERR_INVALID_ARGUMENT}, kI64Max, 0.0, TC_INTERP_NEAREST, 0),
            ip("scale factor NaN", {TC_ERR_INVALID_ARGUMENT}, 2, kNaN, TC_INTERP_LINEAR, 0),
            ip("scale factor -1", {TC_ERR_INVALID_ARGUMENT}, 2, -1.0, TC_INTERP_LINEAR, 0),
            ip("align_corners with nearest", {TC_ERR_INVALID_ARGUMENT}, 2, 0.0, TC_INTERP_NEAREST, 1),
            X("2-D input", {TC_ERR_SHAPE},
              [](M& m) {
                int64_t size[] = {2};
                return tc_interpolate(m.f.a, size, nullptr, TC_INTERP_NEAREST, 0, m.O(9));
              }),
        };
      }()));
  add(E(FN(tc_pixel_shuffle), "H-O", [](M& m) { return tc_pixel_shuffle(m.H(0, m.f.t3), 1, m.O(2)); },
        {X("channels not divisible by r^2", {TC_ERR_SHAPE},
           [](M& m) { return tc_pixel_shuffle(m.f.img, 2, m.O(9)); }),
         X("r 0", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_pixel_shuffle(m.f.t3, 0, m.O(9)); }),
         X("r INT64_MAX", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_pixel_shuffle(m.f.t3, kI64Max, m.O(9)); }),
         X("2-D input", {TC_ERR_SHAPE}, [](M& m) { return tc_pixel_shuffle(m.f.a, 1, m.O(9)); })}));
  add(E(FN(tc_pixel_unshuffle), "H-O", [](M& m) { return tc_pixel_unshuffle(m.H(0, m.f.img), 2, m.O(2)); },
        {X("height not divisible by r", {TC_ERR_SHAPE},
           [](M& m) { return tc_pixel_unshuffle(m.f.img, 3, m.O(9)); }),
         X("r -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_pixel_unshuffle(m.f.img, -1, m.O(9)); }),
         X("1-D input", {TC_ERR_SHAPE}, [](M& m) { return tc_pixel_unshuffle(m.f.v, 1, m.O(9)); })}));
  add(E(FN(tc_embedding_padding_idx), "HH-O",
        [](M& m) { return tc_embedding_padding_idx(m.H(0, m.f.emb), m.H(1, m.f.cls), -1, m.O(3)); },
        {X("padding_idx 4 of 4 rows", {TC_ERR_INDEX},
           [](M& m) { return tc_embedding_padding_idx(m.f.emb, m.f.cls, 4, m.O(9)); }),
         X("padding_idx -5 of 4 rows", {TC_ERR_INDEX},
           [](M& m) { return tc_embedding_padding_idx(m.f.emb, m.f.cls, -5, m.O(9)); }),
         X("float indices", {TC_ERR_DTYPE},
           [](M& m) { return tc_embedding_padding_idx(m.f.emb, m.f.v, 0, m.O(9)); }),
         X("1-D weight", {TC_ERR_SHAPE},
           [](M& m) { return tc_embedding_padding_idx(m.f.v, m.f.cls, 0, m.O(9)); })}));
  add(E(FN(tc_dropout2d), "H--O", [](M& m) { return tc_dropout2d(m.H(0, m.f.img), 0.5, 1, m.O(3)); },
        {X("p -0.1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_dropout2d(m.f.img, -0.1, 1, m.O(9)); }),
         X("p NaN", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_dropout2d(m.f.img, kNaN, 1, m.O(9)); }),
         X("1-D input", {TC_ERR_SHAPE}, [](M& m) { return tc_dropout2d(m.f.v, 0.5, 1, m.O(9)); }),
         X("int32 input", {TC_ERR_DTYPE}, [](M& m) { return tc_dropout2d(m.f.i32, 0.5, 1, m.O(9)); })}));

  // Transformer and sampling ops.
  add(E(FN(tc_layer_norm), "HP-hh-O",
        [](M& m) {
          int64_t ns[] = {3};
          return tc_layer_norm(m.H(0, m.f.a), m.P(1, ns), 1, m.H(3, m.f.v), m.H(4, m.f.bias), 1e-5, m.O(6));
        },
        {X("normalized_shape not a suffix", {TC_ERR_SHAPE},
           [](M& m) {
             int64_t ns[] = {2};
             return tc_layer_norm(m.f.a, ns, 1, nullptr, nullptr, 1e-5, m.O(9));
           }),
         X("no normalized dims", {TC_ERR_SHAPE},
           [](M& m) { return tc_layer_norm(m.f.a, nullptr, 0, nullptr, nullptr, 1e-5, m.O(9)); }),
         X("ndims -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             int64_t ns[] = {3};
             return tc_layer_norm(m.f.a, ns, -1, nullptr, nullptr, 1e-5, m.O(9));
           }),
         X("weight of the wrong shape", {TC_ERR_SHAPE},
           [](M& m) {
             int64_t ns[] = {3};
             return tc_layer_norm(m.f.a, ns, 1, m.f.lb, nullptr, 1e-5, m.O(9));
           }),
         X("eps -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             int64_t ns[] = {3};
             return tc_layer_norm(m.f.a, ns, 1, nullptr, nullptr, -1.0, m.O(9));
           }),
         X("eps NaN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             int64_t ns[] = {3};
             return tc_layer_norm(m.f.a, ns, 1, nullptr, nullptr, kNaN, m.O(9));
           }),
         X("int32 x", {TC_ERR_DTYPE}, [](M& m) {
           int64_t ns[] = {3};
           return tc_layer_norm(m.f.i32, ns, 1, nullptr, nullptr, 1e-5, m.O(9));
         })}));
  add(E(FN(tc_rms_norm), "HP-h-O",
        [](M& m) {
          int64_t ns[] = {2, 3};
          return tc_rms_norm(m.H(0, m.f.a), m.P(1, ns), 2, m.H(3, m.f.b), 1e-6, m.O(5));
        },
        {X("normalized_shape longer than x", {TC_ERR_SHAPE},
           [](M& m) {
             int64_t ns[] = {1, 2, 3};
             return tc_rms_norm(m.f.a, ns, 3, nullptr, 1e-6, m.O(9));
           }),
         X("weight of another dtype", {TC_ERR_DTYPE}, [](M& m) {
           int64_t ns[] = {2, 3};
           return tc_rms_norm(m.f.a, ns, 2, m.f.i32, 1e-6, m.O(9));
         })}));
  add(E(
      FN(tc_scaled_dot_product_attention), "HHHh--O",
      [](M& m) {
        // A 0-dim additive mask broadcasts to the [2, 2] scores.
        return tc_scaled_dot_product_attention(m.H(0, m.f.a), m.H(1, m.f.b), m.H(2, m.f.b), m.H(3, m.f.s),
                                               0.0, 0, m.O(6));
      },
      {X("k of another width", {TC_ERR_SHAPE},
         [](M& m) {
           return tc_scaled_dot_product_attention(m.f.a, m.f.bt, m.f.bt, nullptr, 0.0, 0, m.O(9));
         }),
       X("1-D q", {TC_ERR_SHAPE},
         [](M& m) { return tc_scaled_dot_product_attention(m.f.v, m.f.b, m.f.b, nullptr, 0.0, 0, m.O(9)); }),
       X("dropout_p 1.5", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_scaled_dot_product_attention(m.f.a, m.f.b, m.f.b, nullptr, 1.5, 0, m.O(9)); }),
       X("is_causal with a mask", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_scaled_dot_product_attention(m.f.a, m.f.b, m.f.b, m.f.cond, 0.0, 1, m.O(9)); }),
       X("int64 mask", {TC_ERR_DTYPE},
         [](M& m) { return tc_scaled_dot_product_attention(m.f.a, m.f.b, m.f.b, m.f.ia, 0.0, 0, m.O(9)); }),
       X("int32 q", {TC_ERR_DTYPE}, [](M& m) {
         return tc_scaled_dot_product_attention(m.f.i32, m.f.b, m.f.b, nullptr, 0.0, 0, m.O(9));
       })}));
  add(E(FN(tc_bmm), "HHO", [](M& m) { return tc_bmm(m.H(0, m.f.t3), m.H(1, m.f.t3), m.O(2)); },
        {X("2-D a", {TC_ERR_SHAPE}, [](M& m) { return tc_bmm(m.f.a, m.f.t3, m.O(9)); }),
         X("inner dims differ", {TC_ERR_SHAPE}, [](M& m) {
           tc_tensor x = make_f32({2, 4, 3});
           const int32_t rc = m.done(tc_bmm(x, x, m.O(9)));
           free_t(x);
           return rc;
         })}));
  add(E(FN(tc_addmm), "HHH--O",
        [](M& m) { return tc_addmm(m.H(0, m.f.v), m.H(1, m.f.bt), m.H(2, m.f.a), 0.5, 2.0, m.O(5)); },
        {X("input does not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_addmm(m.f.lb, m.f.bt, m.f.a, 1.0, 1.0, m.O(9)); }),
         X("3-D mat1", {TC_ERR_SHAPE}, [](M& m) { return tc_addmm(m.f.v, m.f.t3, m.f.a, 1.0, 1.0, m.O(9)); }),
         X("beta NaN", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_addmm(m.f.v, m.f.bt, m.f.a, kNaN, 1.0, m.O(9)); }),
         X("int32 input", {TC_ERR_DTYPE},
           [](M& m) { return tc_addmm(m.f.i32, m.f.bt, m.f.a, 1.0, 1.0, m.O(9)); })}));
  add(E(FN(tc_baddbmm), "HHH--O",
        [](M& m) { return tc_baddbmm(m.H(0, m.f.s), m.H(1, m.f.t3), m.H(2, m.f.t3), 1.0, 1.0, m.O(5)); },
        {X("2-D batch1", {TC_ERR_SHAPE},
           [](M& m) { return tc_baddbmm(m.f.s, m.f.a, m.f.t3, 1.0, 1.0, m.O(9)); }),
         X("input does not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_baddbmm(m.f.a, m.f.t3, m.f.t3, 1.0, 1.0, m.O(9)); })}));
  add(E(FN(tc_masked_fill), "HH-O",
        [](M& m) { return tc_masked_fill(m.H(0, m.f.a), m.H(1, m.f.cond), -1.0, m.O(3)); },
        {X("float mask", {TC_ERR_DTYPE}, [](M& m) { return tc_masked_fill(m.f.a, m.f.b, 0.0, m.O(9)); }),
         X("mask does not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_masked_fill(m.f.bt, m.f.cond, 0.0, m.O(9)); }),
         X("value 2 into bool", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_masked_fill(m.f.cond, m.f.cond, 2.0, m.O(9)); })}));
  add(E(
      FN(tc_topk), "H----OO", [](M& m) { return tc_topk(m.H(0, m.f.a), 2, 1, 1, 1, m.O(5, 0), m.O(6, 1)); },
      [] {
        auto x = dim_extras([](M& m, int64_t d) { return tc_topk(m.f.a, 1, d, 1, 1, m.O(9, 0), m.O(9, 1)); });
        x.push_back(X("k 4 of 3", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_topk(m.f.a, 4, 1, 1, 1, m.O(9, 0), m.O(9, 1)); }));
        x.push_back(X("k -1", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_topk(m.f.a, -1, 1, 1, 1, m.O(9, 0), m.O(9, 1)); }));
        x.push_back(X("bool a", {TC_ERR_DTYPE},
                      [](M& m) { return tc_topk(m.f.cond, 1, 1, 1, 1, m.O(9, 0), m.O(9, 1)); }));
        return x;
      }()));
  // ---- linear algebra (t3: float32 [2,4,4]; check_errors = 0 so that any values succeed) ----
  {
    // The checks every one-matrix function shares: 1-D, integer and (for the
    // square ones) non-square inputs.
    using One = std::function<int32_t(M&, tc_tensor)>;
    auto matrix_extras = [](One call, bool square) {
      std::vector<Extra> x;
      x.push_back(X("1-D a", {TC_ERR_SHAPE}, [call](M& m) { return call(m, m.f.v); }));
      x.push_back(X("int32 a", {TC_ERR_DTYPE}, [call](M& m) { return call(m, m.f.i32); }));
      if (square) x.push_back(X("2x3 a", {TC_ERR_SHAPE}, [call](M& m) { return call(m, m.f.a); }));
      return x;
    };
    add(E(
        FN(tc_linalg_lu_factor_ex), "H--OOO",
        [](M& m) { return tc_linalg_lu_factor_ex(m.H(0, m.f.t3), 1, 0, m.O(3, 0), m.O(4, 1), m.O(5, 2)); },
        [&] {
          auto x = matrix_extras(
              [](M& m, tc_tensor a) {
                return tc_linalg_lu_factor_ex(a, 1, 0, m.O(9, 0), m.O(9, 1), m.O(9, 2));
              },
              false);
          x.push_back(X("pivot 0", {TC_ERR_NOT_IMPLEMENTED}, [](M& m) {
            return tc_linalg_lu_factor_ex(m.f.t3, 0, 0, m.O(9, 0), m.O(9, 1), m.O(9, 2));
          }));
          return x;
        }()));
    add(E(
        FN(tc_linalg_lu), "H-OOO",
        [](M& m) { return tc_linalg_lu(m.H(0, m.f.t3), 1, m.O(2, 0), m.O(3, 1), m.O(4, 2)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_lu(a, 1, m.O(9, 0), m.O(9, 1), m.O(9, 2)); },
                      false)));
    add(E(FN(tc_linalg_lu_solve), "HHH--O",
          [](M& m) {
            return tc_linalg_lu_solve(m.H(0, m.f.t3), m.H(1, m.f.piv), m.H(2, m.f.t3), 1, 0, m.O(5));
          },
          {X("pivots of another shape", {TC_ERR_SHAPE},
             [](M& m) { return tc_linalg_lu_solve(m.f.t3, m.f.i32, m.f.t3, 1, 0, m.O(9)); }),
           X("float pivots", {TC_ERR_DTYPE},
             [](M& m) { return tc_linalg_lu_solve(m.f.t3, m.f.t3, m.f.t3, 1, 0, m.O(9)); }),
           X("B of 3 rows", {TC_ERR_SHAPE},
             [](M& m) { return tc_linalg_lu_solve(m.f.t3, m.f.piv, m.f.bt, 1, 0, m.O(9)); })}));
    add(E(
        FN(tc_linalg_inv_ex), "H-OO",
        [](M& m) { return tc_linalg_inv_ex(m.H(0, m.f.t3), 0, m.O(2, 0), m.O(3, 1)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_inv_ex(a, 0, m.O(9, 0), m.O(9, 1)); }, true)));
    add(E(
        FN(tc_linalg_det), "HO", [](M& m) { return tc_linalg_det(m.H(0, m.f.t3), m.O(1)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_det(a, m.O(9)); }, true)));
    add(E(
        FN(tc_linalg_slogdet), "HOO",
        [](M& m) { return tc_linalg_slogdet(m.H(0, m.f.t3), m.O(1, 0), m.O(2, 1)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_slogdet(a, m.O(9, 0), m.O(9, 1)); }, true)));
    add(E(
        FN(tc_linalg_solve_ex), "HH--OO",
        [](M& m) { return tc_linalg_solve_ex(m.H(0, m.f.t3), m.H(1, m.f.t3), 1, 0, m.O(4, 0), m.O(5, 1)); },
        [&] {
          auto x = matrix_extras(
              [](M& m, tc_tensor a) { return tc_linalg_solve_ex(a, m.f.t3, 1, 0, m.O(9, 0), m.O(9, 1)); },
              true);
          x.push_back(X("B of 2 rows", {TC_ERR_SHAPE},
                        [](M& m) { return tc_linalg_solve_ex(m.f.t3, m.f.a, 1, 0, m.O(9, 0), m.O(9, 1)); }));
          x.push_back(X("int32 B", {TC_ERR_DTYPE}, [](M& m) {
            return tc_linalg_solve_ex(m.f.t3, m.f.i32, 1, 0, m.O(9, 0), m.O(9, 1));
          }));
          return x;
        }()));
    add(E(
        FN(tc_linalg_solve_triangular), "HH---O",
        [](M& m) { return tc_linalg_solve_triangular(m.H(0, m.f.t3), m.H(1, m.f.t3), 1, 1, 0, m.O(5)); },
        [&] {
          auto x = matrix_extras(
              [](M& m, tc_tensor a) { return tc_linalg_solve_triangular(a, m.f.t3, 1, 1, 0, m.O(9)); }, true);
          x.push_back(X("B of 3 rows", {TC_ERR_SHAPE},
                        [](M& m) { return tc_linalg_solve_triangular(m.f.t3, m.f.bt, 1, 1, 0, m.O(9)); }));
          return x;
        }()));
    add(E(
        FN(tc_linalg_cholesky_ex), "H--OO",
        [](M& m) { return tc_linalg_cholesky_ex(m.H(0, m.f.t3), 0, 0, m.O(3, 0), m.O(4, 1)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_cholesky_ex(a, 0, 0, m.O(9, 0), m.O(9, 1)); },
                      true)));
    add(E(
        FN(tc_linalg_qr), "H-OO", [](M& m) { return tc_linalg_qr(m.H(0, m.f.a), 0, m.O(2, 0), m.O(3, 1)); },
        [&] {
          auto x = matrix_extras([](M& m, tc_tensor a) { return tc_linalg_qr(a, 0, m.O(9, 0), m.O(9, 1)); },
                                 false);
          x.push_back(X("mode 7", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) { return tc_linalg_qr(m.f.a, 7, m.O(9, 0), m.O(9, 1)); }));
          return x;
        }()));
    add(E(
        FN(tc_linalg_svd), "H-OOO",
        [](M& m) { return tc_linalg_svd(m.H(0, m.f.a), 1, m.O(2, 0), m.O(3, 1), m.O(4, 2)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_svd(a, 0, m.O(9, 0), m.O(9, 1), m.O(9, 2)); },
                      false)));
    add(E(
        FN(tc_linalg_svdvals), "HO", [](M& m) { return tc_linalg_svdvals(m.H(0, m.f.a), m.O(1)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_svdvals(a, m.O(9)); }, false)));
    add(E(
        FN(tc_linalg_eigh), "H-OO",
        [](M& m) { return tc_linalg_eigh(m.H(0, m.f.t3), 0, m.O(2, 0), m.O(3, 1)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_eigh(a, 0, m.O(9, 0), m.O(9, 1)); }, true)));
    add(E(
        FN(tc_linalg_eigvalsh), "H-O", [](M& m) { return tc_linalg_eigvalsh(m.H(0, m.f.t3), 1, m.O(2)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_eigvalsh(a, 1, m.O(9)); }, true)));
    add(E(
        FN(tc_linalg_householder_product), "HHO",
        [](M& m) { return tc_linalg_householder_product(m.H(0, m.f.t3), m.H(1, m.f.a), m.O(2)); },
        {X("1-D A", {TC_ERR_SHAPE}, [](M& m) { return tc_linalg_householder_product(m.f.v, m.f.v, m.O(9)); }),
         X("int32 tau", {TC_ERR_DTYPE},
           [](M& m) { return tc_linalg_householder_product(m.f.t3, m.f.i32, m.O(9)); }),
         X("2x3 A (m < n)", {TC_ERR_SHAPE},
           [](M& m) { return tc_linalg_householder_product(m.f.a, m.f.v, m.O(9)); })}));
    add(E(
        FN(tc_linalg_eig), "H-OO",
        [](M& m) { return tc_linalg_eig(m.H(0, m.f.t3), 1, m.O(2, 0), m.O(3, 1)); },
        matrix_extras([](M& m, tc_tensor a) { return tc_linalg_eig(a, 1, m.O(9, 0), m.O(9, 1)); }, true)));
    add(E(
        FN(tc_linalg_lstsq), "HH--OOOO",
        [](M& m) {
          return tc_linalg_lstsq(m.H(0, m.f.t3), m.H(1, m.f.t3), -1.0, 1, m.O(4, 0), m.O(5, 1), m.O(6, 2),
                                 m.O(7, 3));
        },
        [&] {
          auto x = matrix_extras(
              [](M& m, tc_tensor a) {
                return tc_linalg_lstsq(a, m.f.t3, -1.0, 1, m.O(9, 0), m.O(9, 1), m.O(9, 2), m.O(9, 3));
              },
              false);
          x.push_back(X("driver 7", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
            return tc_linalg_lstsq(m.f.t3, m.f.t3, -1.0, 7, m.O(9, 0), m.O(9, 1), m.O(9, 2), m.O(9, 3));
          }));
          x.push_back(X("B of 2 rows", {TC_ERR_SHAPE}, [](M& m) {
            return tc_linalg_lstsq(m.f.t3, m.f.bt, -1.0, 1, m.O(9, 0), m.O(9, 1), m.O(9, 2), m.O(9, 3));
          }));
          x.push_back(X("NaN rcond", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
            return tc_linalg_lstsq(m.f.t3, m.f.t3, std::nan(""), 1, m.O(9, 0), m.O(9, 1), m.O(9, 2),
                                   m.O(9, 3));
          }));
          return x;
        }()));
  }
  add(E(FN(tc_multinomial), "H--O", [](M& m) { return tc_multinomial(m.H(0, m.f.v), 2, 1, m.O(3)); },
        {X("num_samples 0", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_multinomial(m.f.v, 0, 1, m.O(9)); }),
         X("4 of 3 without replacement", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_multinomial(m.f.v, 4, 0, m.O(9)); }),
         X("3-D probs", {TC_ERR_SHAPE}, [](M& m) { return tc_multinomial(m.f.t3, 1, 1, m.O(9)); }),
         X("negative weight", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             float vals[] = {0.5f, -1.0f, 0.5f};
             int64_t shape[] = {3};
             tc_tensor p = nullptr;
             if (tc_from_data(vals, 12, shape, 1, TC_FLOAT32, &p) != TC_OK) return -1;
             const int32_t rc = m.done(tc_multinomial(p, 1, 1, m.O(9)));
             free_t(p);
             return rc;
           }),
         X("int64 probs", {TC_ERR_DTYPE}, [](M& m) { return tc_multinomial(m.f.cls, 1, 1, m.O(9)); })}));

  // Shape ops.
  auto cat_like = [](int32_t (*fn)(const tc_tensor*, int64_t, int64_t, tc_tensor*), bool stack) {
    std::vector<Extra> x = {
        X("count 0", {TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) {
            tc_tensor ts[] = {m.f.a};
            return fn(ts, 0, 0, m.O(9));
          }),
        X("count -1", {TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) {
            tc_tensor ts[] = {m.f.a};
            return fn(ts, -1, 0, m.O(9));
          }),
        X("count INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) {
            tc_tensor ts[] = {m.f.a};
            return fn(ts, kI64Min, 0, m.O(9));
          }),
        X("dim 3", {TC_ERR_INDEX},
          [fn](M& m) {
            tc_tensor ts[] = {m.f.a, m.f.b};
            return fn(ts, 2, 3, m.O(9));
          }),
        X("dim INT64_MIN", {TC_ERR_INDEX},
          [fn](M& m) {
            tc_tensor ts[] = {m.f.a, m.f.b};
            return fn(ts, 2, kI64Min, m.O(9));
          }),
        X("shapes differ", {TC_ERR_SHAPE},
          [fn](M& m) {
            tc_tensor ts[] = {m.f.a, m.f.v};
            return fn(ts, 2, 0, m.O(9));
          }),
    };
    if (stack)
      x.push_back(X("same ndim, other sizes", {TC_ERR_SHAPE}, [fn](M& m) {
        tc_tensor ts[] = {m.f.a, m.f.bt};
        return fn(ts, 2, 0, m.O(9));
      }));
    return x;
  };
  // Positions 4 and 5 are the two elements of the tensors array.
  add(E(
      FN(tc_cat), "P--OHH",
      [](M& m) {
        tc_tensor ts[] = {m.H(4, m.f.a), m.H(5, m.f.b)};
        return tc_cat(m.P(0, ts), 2, 1, m.O(3));
      },
      cat_like(tc_cat, false)));
  add(E(
      FN(tc_stack), "P--OHH",
      [](M& m) {
        tc_tensor ts[] = {m.H(4, m.f.a), m.H(5, m.f.b)};
        return tc_stack(m.P(0, ts), 2, -1, m.O(3));
      },
      cat_like(tc_stack, true)));
  auto split_like = [](int32_t (*fn)(tc_tensor, int64_t, int64_t, tc_tensor*, int64_t, int64_t*),
                       const char* size_name) {
    return std::vector<Extra>{
        X(std::string(size_name) + " 0", {TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) { return fn(m.f.a, 0, 1, m.HS(9), 8, m.o.i64); }),
        X(std::string(size_name) + " -1", {TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) { return fn(m.f.a, -1, 1, m.HS(9), 8, m.o.i64); }),
        X(std::string(size_name) + " INT64_MIN", {TC_ERR_INVALID_ARGUMENT},
          [fn](M& m) { return fn(m.f.a, kI64Min, 1, m.HS(9), 8, m.o.i64); }),
        X("dim 2", {TC_ERR_INDEX}, [fn](M& m) { return fn(m.f.a, 1, 2, m.HS(9), 8, m.o.i64); }),
        X("cap -1", {TC_ERR_INVALID_ARGUMENT}, [fn](M& m) { return fn(m.f.a, 1, 1, m.HS(9), -1, m.o.i64); }),
        X("a 0-dim tensor", {TC_ERR_INDEX, TC_ERR_INVALID_ARGUMENT, TC_ERR_SHAPE},
          [fn](M& m) { return fn(m.f.s, 1, 0, m.HS(9), 8, m.o.i64); }),
    };
  };
  add(E(
      FN(tc_split), "H--P-P", [](M& m) { return tc_split(m.H(0, m.f.a), 2, 1, m.HS(3), 8, m.I64(5)); },
      [&] {
        auto x = split_like(tc_split, "split_size");
        // Documented: *count is set, no handles made; checked by its own test.
        return x;
      }()));
  add(E(
      FN(tc_chunk), "H--P-P", [](M& m) { return tc_chunk(m.H(0, m.f.a), 3, 1, m.HS(3), 8, m.I64(5)); },
      split_like(tc_chunk, "chunks")));
  add(E(FN(tc_gather), "H-HO", [](M& m) { return tc_gather(m.H(0, m.f.a), 0, m.H(2, m.f.ia), m.O(3)); },
        {X("float index", {TC_ERR_DTYPE}, [](M& m) { return tc_gather(m.f.a, 0, m.f.b, m.O(9)); }),
         X("dim 2", {TC_ERR_INDEX}, [](M& m) { return tc_gather(m.f.a, 2, m.f.ia, m.O(9)); }),
         X("index value 2 along a dim of size 2", {TC_ERR_INDEX},
           [](M& m) {
             tc_tensor ix = make_i64({1, 3}, {0, 2, 1});
             const int32_t rc = m.done(tc_gather(m.f.a, 0, ix, m.O(9)));
             free_t(ix);
             return rc;
           }),
         X("index value INT64_MIN", {TC_ERR_INDEX},
           [](M& m) {
             tc_tensor ix = make_i64({1, 1}, {kI64Min});
             const int32_t rc = m.done(tc_gather(m.f.a, 1, ix, m.O(9)));
             free_t(ix);
             return rc;
           }),
         X("index of another ndim", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_gather(m.f.a, 0, m.f.cls, m.O(9)); })}));
  add(E(FN(tc_index_select), "H-HO",
        [](M& m) { return tc_index_select(m.H(0, m.f.a), 1, m.H(2, m.f.cls), m.O(3)); },
        {X("float index", {TC_ERR_DTYPE}, [](M& m) { return tc_index_select(m.f.a, 1, m.f.v, m.O(9)); }),
         X("2-D index", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_index_select(m.f.a, 1, m.f.ia, m.O(9)); }),
         X("dim -3", {TC_ERR_INDEX}, [](M& m) { return tc_index_select(m.f.a, -3, m.f.cls, m.O(9)); }),
         X("index value 2 along a dim of size 2", {TC_ERR_INDEX},
           [](M& m) { return tc_index_select(m.f.a, 0, m.f.cls, m.O(9)); })}));
  add(E(FN(tc_one_hot), "H-O", [](M& m) { return tc_one_hot(m.H(0, m.f.cls), -1, m.O(2)); },
        {X("num_classes 2 with index 2", {TC_ERR_INDEX, TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_one_hot(m.f.cls, 2, m.O(9)); }),
         X("num_classes -2", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_one_hot(m.f.cls, -2, m.O(9)); }),
         X("num_classes INT64_MAX", {TC_ERR_OUT_OF_MEMORY, TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_one_hot(m.f.cls, kI64Max, m.O(9)); }),
         X("float indices", {TC_ERR_DTYPE}, [](M& m) { return tc_one_hot(m.f.v, 3, m.O(9)); }),
         X("negative index", {TC_ERR_INDEX, TC_ERR_INVALID_ARGUMENT}, [](M& m) {
           tc_tensor ix = make_i64({2}, {-1, 0});
           const int32_t rc = m.done(tc_one_hot(ix, 3, m.O(9)));
           free_t(ix);
           return rc;
         })}));

  // Advanced indexing and the scatter family. The index arrays' two entries
  // come last in the signatures: NULL (a full slice) is legal in either ('h').
  auto with_index = [](M& m, std::initializer_list<int64_t> shape, std::initializer_list<int64_t> values,
                       const std::function<int32_t(tc_tensor)>& call) {
    tc_tensor ix = make_i64(shape, values);
    const int32_t rc = m.done(call(ix));
    free_t(ix);
    return rc;
  };
  auto index_extras = [with_index](const std::function<int32_t(M&, const tc_tensor*, int64_t)>& call) {
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
          [call, with_index](M& m) {
            return with_index(m, {1}, {3}, [&](tc_tensor ix) {
              tc_tensor ts[] = {nullptr, ix};
              return call(m, ts, 2);
            });
          }),
        X("index INT64_MIN", {TC_ERR_INDEX},
          [call, with_index](M& m) {
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
  };
  add(E(
      FN(tc_index), "HP-Ohh",
      [](M& m) {
        tc_tensor ts[] = {m.H(4, nullptr), m.H(5, m.f.cls)};
        return tc_index(m.H(0, m.f.a), m.P(1, ts), 2, m.O(3));
      },
      index_extras([](M& m, const tc_tensor* ts, int64_t n) { return tc_index(m.f.a, ts, n, m.O(9)); })));
  add(E(
      FN(tc_index_put), "HP-H-Ohh",
      [](M& m) {
        tc_tensor ts[] = {m.H(6, nullptr), m.H(7, m.f.cls)};
        return tc_index_put(m.H(0, m.f.a), m.P(1, ts), 2, m.H(3, m.f.s), 1, m.O(5));
      },
      [&] {
        auto x = index_extras([](M& m, const tc_tensor* ts, int64_t n) {
          return tc_index_put(m.f.a, ts, n, m.f.s, 0, m.O(9));
        });
        x.push_back(X("int32 values", {TC_ERR_DTYPE}, [](M& m) {
          tc_tensor ts[] = {nullptr, m.f.cls};
          return tc_index_put(m.f.a, ts, 2, m.f.i32, 0, m.O(9));
        }));
        x.push_back(X("values that do not broadcast", {TC_ERR_SHAPE}, [](M& m) {
          tc_tensor ts[] = {nullptr, m.f.cls};
          return tc_index_put(m.f.a, ts, 2, m.f.bt, 0, m.O(9));
        }));
        return x;
      }()));
  add(E(
      FN(tc_index_put_), "HP-H-hh",
      [](M& m) {
        tc_tensor self = make_f32({2, 3});
        tc_tensor ts[] = {m.H(5, nullptr), m.H(6, m.f.cls)};
        const int32_t rc = m.done(tc_index_put_(m.H(0, self), m.P(1, ts), 2, m.H(3, m.f.s), 0));
        free_t(self);
        return rc;
      },
      [&] {
        auto x = index_extras(
            [](M& m, const tc_tensor* ts, int64_t n) { return tc_index_put_(m.f.b, ts, n, m.f.s, 0); });
        x.push_back(X("a leaf that requires grad", {TC_ERR_AUTOGRAD}, [](M& m) {
          tc_tensor ts[] = {nullptr, m.f.cls};
          return tc_index_put_(m.f.p, ts, 2, m.f.s, 0);
        }));
        x.push_back(X("an expanded self", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
          tc_tensor e = nullptr;
          const int64_t shape[] = {2, 3, 3};
          if (tc_expand(m.f.v, shape, 3, &e) != TC_OK) return -1;
          tc_tensor ts[] = {m.f.cls};
          const int32_t rc = m.done(tc_index_put_(e, ts, 1, m.f.s, 0));
          free_t(e);
          return rc;
        }));
        return x;
      }()));
  add(E(FN(tc_nonzero), "HO", [](M& m) { return tc_nonzero(m.H(0, m.f.a), m.O(1)); }, {}));
  add(E(FN(tc_take), "HHO", [](M& m) { return tc_take(m.H(0, m.f.a), m.H(1, m.f.ia), m.O(2)); },
        {X("float index", {TC_ERR_DTYPE}, [](M& m) { return tc_take(m.f.a, m.f.b, m.O(9)); }),
         X("index 6 of 6 elements", {TC_ERR_INDEX}, [with_index](M& m) {
           return with_index(m, {1}, {6}, [&](tc_tensor ix) { return tc_take(m.f.a, ix, m.O(9)); });
         })}));
  add(E(FN(tc_masked_select), "HHO",
        [](M& m) { return tc_masked_select(m.H(0, m.f.a), m.H(1, m.f.cond), m.O(2)); },
        {X("float mask", {TC_ERR_DTYPE}, [](M& m) { return tc_masked_select(m.f.a, m.f.b, m.O(9)); }),
         X("mask does not broadcast", {TC_ERR_SHAPE}, [](M& m) {
           tc_tensor mt = nullptr;  // bool [3, 2]
           if (tc_transpose(m.f.cond, 0, 1, &mt) != TC_OK) return -1;
           const int32_t rc = m.done(tc_masked_select(m.f.a, mt, m.O(9)));
           free_t(mt);
           return rc;
         })}));
  auto scatter_extras = [with_index](const std::function<int32_t(M&, int64_t, tc_tensor)>& call) {
    auto x = dim_extras([call](M& m, int64_t d) { return call(m, d, m.f.ia); });
    x.push_back(X("float index", {TC_ERR_DTYPE}, [call](M& m) { return call(m, 0, m.f.b); }));
    x.push_back(X("index of another ndim", {TC_ERR_SHAPE}, [call](M& m) { return call(m, 0, m.f.cls); }));
    x.push_back(X("index value 2 along a dim of size 2", {TC_ERR_INDEX}, [call, with_index](M& m) {
      return with_index(m, {1, 1}, {2}, [&](tc_tensor ix) { return call(m, 0, ix); });
    }));
    x.push_back(X("index value -1", {TC_ERR_INDEX}, [call, with_index](M& m) {
      return with_index(m, {1, 1}, {-1}, [&](tc_tensor ix) { return call(m, 0, ix); });
    }));
    x.push_back(X("index larger than self", {TC_ERR_SHAPE}, [call, with_index](M& m) {
      return with_index(m, {3, 1}, {0, 0, 0}, [&](tc_tensor ix) { return call(m, 1, ix); });
    }));
    return x;
  };
  add(E(
      FN(tc_scatter), "H-HHO",
      [](M& m) { return tc_scatter(m.H(0, m.f.a), 0, m.H(2, m.f.ia), m.H(3, m.f.b), m.O(4)); },
      [&] {
        auto x = scatter_extras(
            [](M& m, int64_t d, tc_tensor ix) { return tc_scatter(m.f.a, d, ix, m.f.b, m.O(9)); });
        x.push_back(X("int32 src", {TC_ERR_DTYPE},
                      [](M& m) { return tc_scatter(m.f.a, 0, m.f.ia, m.f.i32, m.O(9)); }));
        return x;
      }()));
  add(E(
      FN(tc_scatter_value), "H-H-O",
      [](M& m) { return tc_scatter_value(m.H(0, m.f.a), 1, m.H(2, m.f.ia), 2.0, m.O(4)); },
      scatter_extras(
          [](M& m, int64_t d, tc_tensor ix) { return tc_scatter_value(m.f.a, d, ix, 1.0, m.O(9)); })));
  add(E(
      FN(tc_scatter_add), "H-HHO",
      [](M& m) { return tc_scatter_add(m.H(0, m.f.a), 0, m.H(2, m.f.ia), m.H(3, m.f.b), m.O(4)); },
      scatter_extras(
          [](M& m, int64_t d, tc_tensor ix) { return tc_scatter_add(m.f.a, d, ix, m.f.b, m.O(9)); })));
  add(E(
      FN(tc_scatter_reduce), "H-HH--O",
      [](M& m) {
        return tc_scatter_reduce(m.H(0, m.f.a), 0, m.H(2, m.f.ia), m.H(3, m.f.b), TC_SCATTER_AMAX, 0, m.O(6));
      },
      [&] {
        auto x = scatter_extras([](M& m, int64_t d, tc_tensor ix) {
          return tc_scatter_reduce(m.f.a, d, ix, m.f.b, TC_SCATTER_PROD, 1, m.O(9));
        });
        x.push_back(X("reduce 5", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_scatter_reduce(m.f.a, 0, m.f.ia, m.f.b, 5, 1, m.O(9)); }));
        x.push_back(X("reduce -1", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_scatter_reduce(m.f.a, 0, m.f.ia, m.f.b, -1, 1, m.O(9)); }));
        x.push_back(X("int32 src", {TC_ERR_DTYPE}, [](M& m) {
          return tc_scatter_reduce(m.f.a, 0, m.f.ia, m.f.i32, TC_SCATTER_SUM, 1, m.O(9));
        }));
        return x;
      }()));
  // index_add/index_copy/index_fill: a 1-D index {1, 0} along dim 0 of a [2, 3].
  auto along_extras = [with_index](const std::function<int32_t(M&, int64_t, tc_tensor)>& call) {
    std::vector<Extra> x;
    for (int64_t d : {int64_t(2), int64_t(-3), kI64Min, kI64Max}) {
      x.push_back(X("dim " + std::to_string(d), {TC_ERR_INDEX}, [call, d, with_index](M& m) {
        return with_index(m, {2}, {1, 0}, [&](tc_tensor ix) { return call(m, d, ix); });
      }));
    }
    x.push_back(X("float index", {TC_ERR_DTYPE}, [call](M& m) { return call(m, 0, m.f.v); }));
    x.push_back(X("2-D index", {TC_ERR_SHAPE}, [call](M& m) { return call(m, 0, m.f.ia); }));
    x.push_back(X("index 2 along a dim of size 2", {TC_ERR_INDEX}, [call, with_index](M& m) {
      return with_index(m, {2}, {2, 0}, [&](tc_tensor ix) { return call(m, 0, ix); });
    }));
    return x;
  };
  add(E(
      FN(tc_index_add), "H-HH-O",
      [with_index](M& m) {
        return with_index(m, {2}, {1, 0}, [&](tc_tensor ix) {
          return tc_index_add(m.H(0, m.f.a), 0, m.H(2, ix), m.H(3, m.f.b), 2.0, m.O(5));
        });
      },
      [&] {
        auto x = along_extras(
            [](M& m, int64_t d, tc_tensor ix) { return tc_index_add(m.f.a, d, ix, m.f.b, 1.0, m.O(9)); });
        x.push_back(X("source of another shape", {TC_ERR_SHAPE}, [with_index](M& m) {
          return with_index(m, {2}, {1, 0},
                            [&](tc_tensor ix) { return tc_index_add(m.f.a, 0, ix, m.f.bt, 1.0, m.O(9)); });
        }));
        return x;
      }()));
  add(E(
      FN(tc_index_copy), "H-HHO",
      [with_index](M& m) {
        return with_index(m, {2}, {1, 0}, [&](tc_tensor ix) {
          return tc_index_copy(m.H(0, m.f.a), 0, m.H(2, ix), m.H(3, m.f.b), m.O(4));
        });
      },
      along_extras(
          [](M& m, int64_t d, tc_tensor ix) { return tc_index_copy(m.f.a, d, ix, m.f.b, m.O(9)); })));
  add(E(
      FN(tc_index_fill), "H-H-O",
      [with_index](M& m) {
        return with_index(m, {2}, {1, 0}, [&](tc_tensor ix) {
          return tc_index_fill(m.H(0, m.f.a), 0, m.H(2, ix), -1.0, m.O(4));
        });
      },
      along_extras([](M& m, int64_t d, tc_tensor ix) { return tc_index_fill(m.f.a, d, ix, 1.0, m.O(9)); })));

  // The shape, creation and matrix ops (tc_flip ... tc_bernoulli_p).
#define TC_MISUSE_ROWS
#include "misuse_shape_creation.inc"
#undef TC_MISUSE_ROWS

  // In-place ops.
  add(E(
      FN(tc_add_), "HH", [](M& m) { return tc_add_(m.H(0, m.f.a), m.H(1, m.f.b)); },
      inplace_binary_extras(tc_add_)));
  add(E(
      FN(tc_sub_), "HH", [](M& m) { return tc_sub_(m.H(0, m.f.a), m.H(1, m.f.b)); },
      inplace_binary_extras(tc_sub_)));
  add(E(
      FN(tc_mul_), "HH", [](M& m) { return tc_mul_(m.H(0, m.f.a), m.H(1, m.f.b)); },
      inplace_binary_extras(tc_mul_)));
  add(E(
      FN(tc_div_), "HH", [](M& m) { return tc_div_(m.H(0, m.f.a), m.H(1, m.f.b)); },
      inplace_binary_extras(tc_div_)));
  add(E(FN(tc_zero_), "H", [](M& m) { return tc_zero_(m.H(0, m.f.a)); },
        {X("leaf that requires grad", {TC_ERR_AUTOGRAD}, [](M& m) { return tc_zero_(m.f.p); })}));
  add(E(FN(tc_fill_), "H-", [](M& m) { return tc_fill_(m.H(0, m.f.a), 0.5); },
        {X("leaf that requires grad", {TC_ERR_AUTOGRAD}, [](M& m) { return tc_fill_(m.f.p, 1.0); }),
         X("read-only self", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_tensor_set_readonly(m.f.b);
             return tc_fill_(m.f.b, 1.0);
           }),
         X("expanded self", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return with_expanded(m, [](tc_tensor e) { return tc_fill_(e, 1.0); }); }),
         X("1e10 into int32", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_fill_(m.f.i32, 1e10); }),
         X("NaN into int32", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_fill_(m.f.i32, std::nan("")); }),
         X("1e300 into float32", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_fill_(m.f.a, 1e300); })}));
  add(E(FN(tc_copy_), "HH", [](M& m) { return tc_copy_(m.H(0, m.f.a), m.H(1, m.f.b)); },
        {X("src does not broadcast", {TC_ERR_SHAPE}, [](M& m) { return tc_copy_(m.f.a, m.f.bt); }),
         X("read-only self", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_tensor_set_readonly(m.f.a);
             return tc_copy_(m.f.a, m.f.b);
           }),
         X("expanded self", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return with_expanded(m, [&](tc_tensor e) { return tc_copy_(e, m.f.b); }); }),
         X("leaf that requires grad", {TC_ERR_AUTOGRAD}, [](M& m) { return tc_copy_(m.f.p, m.f.b); })}));

  // Autograd.
  add(E(FN(tc_tensor_set_requires_grad), "H-",
        [](M& m) { return tc_tensor_set_requires_grad(m.H(0, m.f.leaf), 1); },
        {X("integer tensor", {TC_ERR_DTYPE}, [](M& m) { return tc_tensor_set_requires_grad(m.f.i32, 1); }),
         X("bool tensor", {TC_ERR_DTYPE}, [](M& m) { return tc_tensor_set_requires_grad(m.f.cond, 1); }),
         X("non-leaf", {TC_ERR_AUTOGRAD, TC_ERR_INVALID_ARGUMENT}, [](M& m) {
           tc_tensor r = make_root(m);
           const int32_t rc = m.done(tc_tensor_set_requires_grad(r, 0));
           free_t(r);
           return rc;
         })}));
  add(E(FN(tc_tensor_requires_grad), "HP",
        [](M& m) { return tc_tensor_requires_grad(m.H(0, m.f.p), m.I32(1)); }));
  add(E(FN(tc_tensor_is_leaf), "HP", [](M& m) { return tc_tensor_is_leaf(m.H(0, m.f.p), m.I32(1)); }));
  add(E(FN(tc_tensor_grad), "HO", [](M& m) { return tc_tensor_grad(m.H(0, m.f.p), m.O(1)); }));
  add(E(FN(tc_tensor_clear_grad), "H", [](M& m) { return tc_tensor_clear_grad(m.H(0, m.f.p)); }));
  add(E(FN(tc_tensor_set_grad), "HH",
        [](M& m) {
          // p's grad becomes a, then None again (the fixture's other rows expect none).
          const int32_t rc = m.done(tc_tensor_set_grad(m.H(0, m.f.p), m.H(1, m.f.a)));
          if (rc == TC_OK) tc_tensor_clear_grad(m.f.p);
          return rc;
        },
        {X("grad of another shape", {TC_ERR_SHAPE}, [](M& m) { return tc_tensor_set_grad(m.f.p, m.f.bt); }),
         X("grad of another dtype", {TC_ERR_DTYPE}, [](M& m) { return tc_tensor_set_grad(m.f.p, m.f.i32); }),
         X("its own grad", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_tensor_set_grad(m.f.p, m.f.p); }),
         X("grad that requires grad", {TC_ERR_AUTOGRAD},
           [](M& m) { return tc_tensor_set_grad(m.f.p, m.f.np); }),
         X("read-only grad", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_tensor_set_readonly(m.f.a);
             return tc_tensor_set_grad(m.f.p, m.f.a);
           }),
         X("expanded grad", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return with_expanded(m, [&](tc_tensor e) { return tc_tensor_set_grad(m.f.p, e); }); }),
         X("grad in t's own memory", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
           tc_tensor d = nullptr;
           if (tc_detach(m.f.p, &d) != TC_OK) return int32_t(-1);
           const int32_t rc = tc_tensor_set_grad(m.f.p, d);
           free_t(d);
           return rc;
         })}));
  // tc_rnn: an unbatched LSTM (input a: T = 2, I = 3; hidden 4) over weights of its own.
  struct RnnCase {
    tc_tensor w_ih = make_f32({16, 3}), w_hh = make_f32({16, 4}), h0 = make_f32({1, 4}),
              c0 = make_f32({1, 4});
    tc_rnn_options o{};
    RnnCase() {
      o.size = sizeof o;
      o.mode = TC_RNN_LSTM;
      o.num_layers = 1;
    }
    ~RnnCase() {
      for (tc_tensor* t : {&w_ih, &w_hh, &h0, &c0}) free_t(*t);
    }
    int32_t call(M& m, tc_tensor input, tc_tensor hx, tc_tensor cx, int64_t nw = 2) {
      tc_tensor ws[] = {w_ih, w_hh};
      return tc_rnn(input, hx, cx, ws, nw, &o, m.O(6, 0), m.O(7, 1), m.O(8, 2));
    }
  };
  auto rnn_x = [](const char* what, int32_t code, std::function<int32_t(M&, RnnCase&)> f) {
    return X(what, {code}, [f](M& m) {
      RnnCase r;
      return f(m, r);
    });
  };
  add(E(FN(tc_rnn), "HhhP-POOOHH",
        [](M& m) {
          RnnCase r;
          tc_tensor ws[] = {m.H(9, r.w_ih), m.H(10, r.w_hh)};
          return m.done(tc_rnn(m.H(0, m.f.a), m.H(1, r.h0), m.H(2, r.c0), m.P(3, ws), 2, m.P(5, &r.o),
                               m.O(6, 0), m.O(7, 1), m.O(8, 2)));
        },
        {rnn_x("options->size 0", TC_ERR_INVALID_ARGUMENT,
               [](M& m, RnnCase& r) {
                 r.o.size = 0;
                 return r.call(m, m.f.a, nullptr, nullptr);
               }),
         rnn_x("mode 7", TC_ERR_INVALID_ARGUMENT,
               [](M& m, RnnCase& r) {
                 r.o.mode = 7;
                 return r.call(m, m.f.a, nullptr, nullptr);
               }),
         rnn_x("num_layers 0", TC_ERR_INVALID_ARGUMENT,
               [](M& m, RnnCase& r) {
                 r.o.num_layers = 0;
                 return r.call(m, m.f.a, nullptr, nullptr);
               }),
         rnn_x("two layers, one layer's weights", TC_ERR_INVALID_ARGUMENT,
               [](M& m, RnnCase& r) {
                 r.o.num_layers = 2;
                 return r.call(m, m.f.a, nullptr, nullptr);
               }),
         rnn_x("num_weights 0", TC_ERR_INVALID_ARGUMENT,
               [](M& m, RnnCase& r) { return r.call(m, m.f.a, nullptr, nullptr, 0); }),
         rnn_x("num_weights -1", TC_ERR_INVALID_ARGUMENT,
               [](M& m, RnnCase& r) { return r.call(m, m.f.a, nullptr, nullptr, -1); }),
         rnn_x("dropout 2", TC_ERR_INVALID_ARGUMENT,
               [](M& m, RnnCase& r) {
                 r.o.dropout = 2;
                 return r.call(m, m.f.a, nullptr, nullptr);
               }),
         rnn_x("input size 4, weights for 3", TC_ERR_SHAPE,
               [](M& m, RnnCase& r) { return r.call(m, m.f.t3, nullptr, nullptr); }),
         rnn_x("integer input", TC_ERR_DTYPE,
               [](M& m, RnnCase& r) { return r.call(m, m.f.i32, nullptr, nullptr); }),
         rnn_x("hx of another shape", TC_ERR_SHAPE,
               [](M& m, RnnCase& r) { return r.call(m, m.f.a, m.f.a, nullptr); }),
         rnn_x("4-D input", TC_ERR_SHAPE,
               [](M& m, RnnCase& r) { return r.call(m, m.f.img, nullptr, nullptr); }),
         rnn_x("a cell state for a GRU", TC_ERR_INVALID_ARGUMENT, [](M& m, RnnCase& r) {
           r.o.mode = TC_RNN_GRU;
           tc_tensor w3 = make_f32({12, 3}), h3 = make_f32({12, 4});
           tc_tensor ws[] = {w3, h3};
           const int32_t rc = tc_rnn(m.f.a, nullptr, r.c0, ws, 2, &r.o, m.O(6, 0), m.O(7, 1), m.O(8, 2));
           free_t(w3);
           free_t(h3);
           return rc;
         })}));

  // set_data on a leaf of its own (the fixture's p is saved by graphs other rows use).
  auto with_leaf = [](M& m, const std::function<int32_t(tc_tensor)>& body) {
    tc_tensor q = make_f32({2, 3});  // NULL before tc_init: the call must still say so
    if (q && tc_tensor_set_requires_grad(q, 1) != TC_OK) return int32_t(-1);
    const int32_t rc = body(q);
    free_t(q);
    (void)m;
    return rc;
  };
  add(E(FN(tc_tensor_set_data), "HH",
        [with_leaf](M& m) {
          return with_leaf(
              m, [&](tc_tensor q) { return m.done(tc_tensor_set_data(m.H(0, q), m.H(1, m.f.bt))); });
        },
        {X("integer data for a tensor that requires grad", {TC_ERR_DTYPE},
           [with_leaf](M& m) {
             return with_leaf(m, [&](tc_tensor q) { return tc_tensor_set_data(q, m.f.i32); });
           }),
         X("another storage over t's memory", {TC_ERR_INVALID_ARGUMENT}, [with_leaf](M& m) {
           return with_leaf(m, [&](tc_tensor q) {
             void* ptr = nullptr;
             if (tc_tensor_data_ptr(q, &ptr) != TC_OK) return int32_t(-1);
             int64_t shape[] = {6};
             tc_tensor w = nullptr;
             if (tc_from_blob(ptr, shape, nullptr, 1, TC_FLOAT32, nullptr, nullptr, &w) != TC_OK)
               return int32_t(-1);
             const int32_t rc = tc_tensor_set_data(q, w);
             free_t(w);
             return rc;
           });
         })}));
  add(E(FN(tc_tensor_retain_grad), "H",
        [](M& m) {
          tc_tensor r = make_root(m);
          const int32_t rc = m.done(tc_tensor_retain_grad(m.H(0, r)));
          free_t(r);
          return rc;
        },
        {X("tensor that does not require grad", {TC_ERR_AUTOGRAD, TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_retain_grad(m.f.a); })}));
  add(E(
      FN(tc_tensor_grad_fn_name), "H-pp",
      [](M& m) { return tc_tensor_grad_fn_name(m.H(0, m.f.p), m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras(
          [](M& m, char* b, int64_t c, int64_t* n) { return tc_tensor_grad_fn_name(m.f.p, b, c, n); })));
  add(E(FN(tc_detach), "HO", [](M& m) { return tc_detach(m.H(0, m.f.p), m.O(1)); }));
  add(E(FN(tc_backward), "Hh-",
        [](M& m) {
          tc_tensor r = make_root(m);
          const int32_t rc = m.done(tc_backward(m.H(0, r), m.H(1, nullptr), 0));
          free_t(r);
          return rc;
        },
        {X("root that does not require grad", {TC_ERR_AUTOGRAD},
           [](M& m) { return tc_backward(m.f.s, nullptr, 0); }),
         X("non-scalar root without grad", {TC_ERR_AUTOGRAD, TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_tensor sq = nullptr;
             if (tc_mul(m.f.p, m.f.p, &sq) != TC_OK) return -1;
             const int32_t rc = m.done(tc_backward(sq, nullptr, 0));
             free_t(sq);
             return rc;
           }),
         X("grad of the wrong shape", {TC_ERR_SHAPE, TC_ERR_AUTOGRAD},
           [](M& m) {
             tc_tensor sq = nullptr;
             if (tc_mul(m.f.p, m.f.p, &sq) != TC_OK) return -1;
             const int32_t rc = m.done(tc_backward(sq, m.f.bt, 0));
             free_t(sq);
             return rc;
           }),
         X("grad of the wrong dtype", {TC_ERR_DTYPE, TC_ERR_AUTOGRAD},
           [](M& m) {
             tc_tensor sq = nullptr;
             if (tc_mul(m.f.p, m.f.p, &sq) != TC_OK) return -1;
             tc_tensor g = make(TC_FLOAT64, {2, 3});
             const int32_t rc = m.done(tc_backward(sq, g, 0));
             free_t(g);
             free_t(sq);
             return rc;
           }),
         X("second backward through a freed graph", {TC_ERR_AUTOGRAD}, [](M& m) {
           tc_tensor r = make_root(m);
           if (tc_backward(r, nullptr, 0) != TC_OK) return -1;
           const int32_t rc = m.done(tc_backward(r, nullptr, 0));
           free_t(r);
           return rc;
         })}));
  // autograd.grad: outputs, n, grad_outputs, inputs, n, options, out_grads;
  // then the elements outputs[0], grad_outputs[0], inputs[0].
  add(E(FN(tc_autograd_grad), "P-pP-pOHhH",
        [](M& m) {
          tc_tensor r = make_root(m);
          tc_tensor outs[] = {m.H(7, r)}, gos[] = {m.H(8, nullptr)}, ins[] = {m.H(9, m.f.p)};
          const tc_grad_options o{sizeof(tc_grad_options), 0, 0, 0, 0};
          const int32_t rc = m.done(tc_autograd_grad(m.P(0, outs), 1, gos, m.P(3, ins), 1, &o, m.HS(6)));
          // The one gradient handed back (cleanup_success frees only counted handle arrays).
          if (rc == TC_OK) {
            tc_tensor_free(m.o.hs[0]);
            m.o.hs[0] = nullptr;
          }
          free_t(r);
          return rc;
        },
        {X("input that does not require grad", {TC_ERR_AUTOGRAD},
           [](M& m) {
             tc_tensor r = make_root(m);
             const int32_t rc = m.done(tc_autograd_grad(&r, 1, nullptr, &m.f.a, 1, nullptr, m.HS(9)));
             free_t(r);
             return rc;
           }),
         X("unused input without allow_unused", {TC_ERR_AUTOGRAD},
           [](M& m) {
             tc_tensor r = make_root(m), q = nullptr;
             if (tc_detach(m.f.p, &q) != TC_OK || tc_tensor_set_requires_grad(q, 1) != TC_OK) return -1;
             const int32_t rc = m.done(tc_autograd_grad(&r, 1, nullptr, &q, 1, nullptr, m.HS(9)));
             free_t(q);
             free_t(r);
             return rc;
           }),
         X("output without grad_fn", {TC_ERR_AUTOGRAD},
           [](M& m) { return tc_autograd_grad(&m.f.s, 1, nullptr, &m.f.p, 1, nullptr, m.HS(9)); }),
         X("graph freed by an earlier backward", {TC_ERR_AUTOGRAD},
           [](M& m) {
             tc_tensor r = make_root(m);
             if (tc_backward(r, nullptr, 0) != TC_OK) return -1;
             const int32_t rc = m.done(tc_autograd_grad(&r, 1, nullptr, &m.f.p, 1, nullptr, m.HS(9)));
             free_t(r);
             return rc;
           }),
         X("non-scalar output without grad_outputs", {TC_ERR_AUTOGRAD},
           [](M& m) {
             tc_tensor sq = nullptr;
             if (tc_mul(m.f.p, m.f.p, &sq) != TC_OK) return -1;
             const int32_t rc = m.done(tc_autograd_grad(&sq, 1, nullptr, &m.f.p, 1, nullptr, m.HS(9)));
             free_t(sq);
             return rc;
           }),
         X("grad_outputs of the wrong shape", {TC_ERR_SHAPE},
           [](M& m) {
             tc_tensor sq = nullptr;
             if (tc_mul(m.f.p, m.f.p, &sq) != TC_OK) return -1;
             const int32_t rc = m.done(tc_autograd_grad(&sq, 1, &m.f.bt, &m.f.p, 1, nullptr, m.HS(9)));
             free_t(sq);
             return rc;
           }),
         X("n_outputs 0", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_autograd_grad(&m.f.p, 0, nullptr, &m.f.p, 1, nullptr, m.HS(9)); }),
         X("n_inputs -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_autograd_grad(&m.f.p, 1, nullptr, &m.f.p, -1, nullptr, m.HS(9)); }),
         X("options->size 0", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
           const tc_grad_options o{0, 0, 0, 0, 0};
           return tc_autograd_grad(&m.f.p, 1, nullptr, &m.f.p, 1, &o, m.HS(9));
         })}));
  // backward with options: roots, n, grads, options; then roots[0], grads[0].
  add(E(FN(tc_backward_ex), "P-ppHh",
        [](M& m) {
          tc_tensor r = make_root(m);
          tc_tensor roots[] = {m.H(4, r)}, gs[] = {m.H(5, nullptr)};
          const tc_backward_options o{sizeof(tc_backward_options), 0, 0, &m.f.p, 1};
          const int32_t rc = m.done(tc_backward_ex(m.P(0, roots), 1, gs, &o));
          free_t(r);
          return rc;
        },
        {X("root that does not require grad", {TC_ERR_AUTOGRAD},
           [](M& m) { return tc_backward_ex(&m.f.s, 1, nullptr, nullptr); }),
         X("input that does not require grad", {TC_ERR_AUTOGRAD},
           [](M& m) {
             tc_tensor r = make_root(m);
             const tc_backward_options o{sizeof(tc_backward_options), 0, 0, &m.f.a, 1};
             const int32_t rc = m.done(tc_backward_ex(&r, 1, nullptr, &o));
             free_t(r);
             return rc;
           }),
         X("options->inputs NULL with n_inputs 1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_tensor r = make_root(m);
             const tc_backward_options o{sizeof(tc_backward_options), 0, 0, nullptr, 1};
             const int32_t rc = m.done(tc_backward_ex(&r, 1, nullptr, &o));
             free_t(r);
             return rc;
           }),
         X("second backward through a freed graph", {TC_ERR_AUTOGRAD},
           [](M& m) {
             tc_tensor r = make_root(m);
             if (tc_backward(r, nullptr, 0) != TC_OK) return -1;
             const int32_t rc = m.done(tc_backward_ex(&r, 1, nullptr, nullptr));
             free_t(r);
             return rc;
           }),
         X("n_roots 0", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_backward_ex(&m.f.p, 0, nullptr, nullptr); }),
         X("options->size 3", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
           const tc_backward_options o{3, 0, 0, nullptr, 0};
           return tc_backward_ex(&m.f.p, 1, nullptr, &o);
         })}));
  add(E(FN(tc_set_grad_enabled), "-p", [](M& m) { return tc_set_grad_enabled(1, m.o.i32); },
        {X("enabled 2", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_set_grad_enabled(2, m.o.i32); }),
         X("enabled -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_set_grad_enabled(-1, m.o.i32); })}));

  // Custom functions, hooks, the graph.
  add(E(FN(tc_function_apply), "PP-O-P",
        [](M& m) {
          static const tc_function_def d = identity_def();
          tc_tensor in[1] = {m.f.p};
          return tc_function_apply(m.P(0, &d), m.P(1, in), 1, m.HS(3), 8, m.P(5, m.o.i64));
        },
        {X("def->size 0", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_function_def d = identity_def();
             d.size = 0;
             return tc_function_apply(&d, &m.f.a, 1, m.HS(9), 8, m.o.i64);
           }),
         X("def->size 1 GiB", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_function_def d = identity_def();
             d.size = 1u << 30;
             return tc_function_apply(&d, &m.f.a, 1, m.HS(9), 8, m.o.i64);
           }),
         X("def->reserved0 1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_function_def d = identity_def();
             d.reserved0 = 1;
             return tc_function_apply(&d, &m.f.a, 1, m.HS(9), 8, m.o.i64);
           }),
         X("def->forward NULL", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_function_def d = identity_def();
             d.forward = nullptr;
             return tc_function_apply(&d, &m.f.a, 1, m.HS(9), 8, m.o.i64);
           }),
         X("n_inputs -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             const tc_function_def d = identity_def();
             return tc_function_apply(&d, &m.f.a, -1, m.HS(9), 8, m.o.i64);
           }),
         X("n_inputs TC_FUNCTION_MAX_INPUTS+1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             const tc_function_def d = identity_def();
             tc_tensor in[TC_FUNCTION_MAX_INPUTS + 1];
             for (auto& h : in) h = m.f.a;
             return tc_function_apply(&d, in, TC_FUNCTION_MAX_INPUTS + 1, m.HS(9), 8, m.o.i64);
           }),
         X("cap -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             const tc_function_def d = identity_def();
             return tc_function_apply(&d, &m.f.a, 1, m.HS(9), -1, m.o.i64);
           }),
         X("cap 0 for one output", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             const tc_function_def d = identity_def();
             return tc_function_apply(&d, &m.f.a, 1, m.HS(9), 0, m.o.i64);
           }),
         X("inputs[0] freed", {TC_ERR_INVALID_HANDLE},
           [](M& m) {
             const tc_function_def d = identity_def();
             return tc_function_apply(&d, &m.f.freed, 1, m.HS(9), 8, m.o.i64);
           }),
         X("inputs[0] stale", {TC_ERR_INVALID_HANDLE},
           [](M& m) {
             const tc_function_def d = identity_def();
             return tc_function_apply(&d, &m.f.stale, 1, m.HS(9), 8, m.o.i64);
           }),
         X("inputs[0] an optimizer", {TC_ERR_INVALID_HANDLE},
           [](M& m) {
             const tc_function_def d = identity_def();
             return tc_function_apply(&d, &m.f.wrong, 1, m.HS(9), 8, m.o.i64);
           }),
         X("a forward that fails", {TC_ERR_CALLBACK}, [](M& m) {
           tc_function_def d = identity_def();
           d.forward = failing_forward;
           return tc_function_apply(&d, &m.f.p, 1, m.HS(9), 8, m.o.i64);
         })}));
  add(with_cleanup(E(FN(tc_tensor_register_hook), "HP-pP",
                     [](M& m) {
                       return tc_tensor_register_hook(m.H(0, m.f.p), m.P(1, noop_grad_hook), nullptr, nullptr,
                                                      m.P(4, &m.o.hook));
                     },
                     {X("tensor that does not require grad", {TC_ERR_AUTOGRAD},
                        [](M& m) {
                          return tc_tensor_register_hook(m.f.a, noop_grad_hook, nullptr, nullptr, &m.o.hook);
                        })}),
                   [](M& m) {
                     if (!is_sentinel(m.o.hook)) tc_hook_remove(m.o.hook);
                   }));
  add(with_cleanup(E(FN(tc_tensor_register_post_accumulate_grad_hook), "HP-pP",
                     [](M& m) {
                       return tc_tensor_register_post_accumulate_grad_hook(
                           m.H(0, m.f.p), m.P(1, noop_post_hook), nullptr, nullptr, m.P(4, &m.o.hook));
                     },
                     {X("tensor that does not require grad", {TC_ERR_AUTOGRAD},
                        [](M& m) {
                          return tc_tensor_register_post_accumulate_grad_hook(m.f.a, noop_post_hook, nullptr,
                                                                              nullptr, &m.o.hook);
                        }),
                      X("non-leaf tensor", {TC_ERR_AUTOGRAD},
                        [](M& m) {
                          return tc_tensor_register_post_accumulate_grad_hook(m.f.np, noop_post_hook, nullptr,
                                                                              nullptr, &m.o.hook);
                        })}),
                   [](M& m) {
                     if (!is_sentinel(m.o.hook)) tc_hook_remove(m.o.hook);
                   }));
  add(E(FN(tc_hook_remove), "K",
        [](M& m) {
          tc_hook h = nullptr;
          tc_tensor_register_hook(m.f.p, noop_grad_hook, nullptr, nullptr, &h);
          const int32_t rc = m.done(tc_hook_remove(m.K(0, h)));
          if (m.spoiled(0) && h) tc_hook_remove(h);
          return rc;
        },
        {X("removed twice", {TC_ERR_INVALID_HANDLE}, [](M& m) {
          tc_hook h = nullptr;
          tc_tensor_register_hook(m.f.p, noop_grad_hook, nullptr, nullptr, &h);
          tc_hook_remove(h);
          return tc_hook_remove(h);
        })}));
  add(with_cleanup(E(FN(tc_tensor_grad_fn), "HP",
                     [](M& m) { return tc_tensor_grad_fn(m.H(0, m.f.np), m.P(1, &m.o.node[0])); }),
                   free_node_out));
  add(E(
      FN(tc_node_name), "N-pp",
      [](M& m) { return tc_node_name(m.N(0, m.f.node), m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras([](M& m, char* b, int64_t c, int64_t* n) { return tc_node_name(m.f.node, b, c, n); })));
  add(E(FN(tc_node_next_count), "NP",
        [](M& m) { return tc_node_next_count(m.N(0, m.f.node), m.P(1, m.o.i64)); }));
  add(with_cleanup(
      E(FN(tc_node_next), "N-PP",
        [](M& m) { return tc_node_next(m.N(0, m.f.node), 0, m.P(2, &m.o.node[0]), m.P(3, m.o.i64)); },
        {X("index -1", {TC_ERR_INDEX},
           [](M& m) { return tc_node_next(m.f.node, -1, &m.o.node[0], m.o.i64); }),
         X("index 1 of 1", {TC_ERR_INDEX},
           [](M& m) { return tc_node_next(m.f.node, 1, &m.o.node[0], m.o.i64); }),
         X("index INT64_MIN", {TC_ERR_INDEX},
           [](M& m) { return tc_node_next(m.f.node, kI64Min, &m.o.node[0], m.o.i64); })}),
      free_node_out));
  add(E(FN(tc_node_same), "NNP",
        [](M& m) { return tc_node_same(m.N(0, m.f.node), m.N(1, m.f.node), m.P(2, m.o.i32)); }));
  add(E(FN(tc_node_free), "N",
        [](M& m) {
          tc_node n = nullptr;
          tc_tensor_grad_fn(m.f.np, &n);
          const int32_t rc = m.done(tc_node_free(m.N(0, n)));
          if (m.spoiled(0) && n) tc_node_free(n);
          return rc;
        },
        {X("freed twice", {TC_ERR_INVALID_HANDLE}, [](M& m) {
          tc_node n = nullptr;
          tc_tensor_grad_fn(m.f.np, &n);
          tc_node_free(n);
          return tc_node_free(n);
        })}));

  // Anomaly mode (the valid call leaves it off, as every other test expects).
  add(E(FN(tc_set_anomaly_mode), "--pp", [](M&) { return tc_set_anomaly_mode(0, 1, nullptr, nullptr); },
        {X("enabled 2", {TC_ERR_INVALID_ARGUMENT},
           [](M&) { return tc_set_anomaly_mode(2, 1, nullptr, nullptr); }),
         X("check_nan -1", {TC_ERR_INVALID_ARGUMENT},
           [](M&) { return tc_set_anomaly_mode(0, -1, nullptr, nullptr); })}));
  add(E(FN(tc_anomaly_mode), "PP", [](M& m) { return tc_anomaly_mode(m.I32(0), m.I32(1)); }, {}));

  // Custom op libraries.
  add(with_cleanup(
      E(FN(tc_load_library), "PO",
        [](M& m) { return tc_load_library(m.P(0, TC_EXAMPLE_OP_LIBRARY), m.P(1, &m.o.lib)); },
        {X("no such file", {TC_ERR_IO},
           [](M& m) { return tc_load_library("/nonexistent/lib.so", &m.o.lib); }),
         X("not an op library", {TC_ERR_IO},
           [](M& m) { return tc_load_library(TC_TEST_OP_LIBRARY_DIR "/libbad_no_entry.so", &m.o.lib); }),
         X("entry point fails halfway", {TC_ERR_IO},
           [](M& m) { return tc_load_library(TC_TEST_OP_LIBRARY_DIR "/libbad_halfway.so", &m.o.lib); }),
         X("another ABI version", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_load_library(TC_TEST_OP_LIBRARY_DIR "/libbad_abi.so", &m.o.lib); })}),
      [](M& m) {
        if (!is_sentinel(m.o.lib)) tc_library_unload(m.o.lib);
      }));
  add(E(FN(tc_library_unload), "L",
        [](M& m) {
          tc_library l = nullptr;
          tc_load_library(TC_EXAMPLE_OP_LIBRARY, &l);
          const int32_t rc = m.done(tc_library_unload(m.L(0, l)));
          if (m.spoiled(0) && l) tc_library_unload(l);
          return rc;
        },
        {X("unloaded twice", {TC_ERR_INVALID_HANDLE}, [](M&) {
          tc_library l = nullptr;
          tc_load_library(TC_EXAMPLE_OP_LIBRARY, &l);
          tc_library_unload(l);
          return tc_library_unload(l);
        })}));
  add(E(
      FN(tc_library_path), "L-pp",
      [](M& m) { return tc_library_path(m.L(0, m.f.lib), m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras(
          [](M& m, char* b, int64_t c, int64_t* n) { return tc_library_path(m.f.lib, b, c, n); })));
  add(E(FN(tc_op_count), "P", [](M& m) { return tc_op_count(m.P(0, m.o.i64)); }));
  add(E(
      FN(tc_op_name_at), "-pp", [](M& m) { return tc_op_name_at(0, m.o.buf, sizeof m.o.buf, m.o.i64); },
      [] {
        auto x =
            copy_out_extras([](M&, char* b, int64_t c, int64_t* n) { return tc_op_name_at(0, b, c, n); });
        x.push_back(X("index -1", {TC_ERR_INDEX},
                      [](M& m) { return tc_op_name_at(-1, m.o.buf, sizeof m.o.buf, m.o.i64); }));
        x.push_back(X("index 1 of 1", {TC_ERR_INDEX},
                      [](M& m) { return tc_op_name_at(1, m.o.buf, sizeof m.o.buf, m.o.i64); }));
        return x;
      }()));
  add(with_cleanup(
      E(FN(tc_op_find), "PO",
        [](M& m) { return tc_op_find(m.P(0, "myops::scaled_square"), m.P(1, &m.o.op)); },
        {X("unknown name", {TC_ERR_INDEX}, [](M& m) { return tc_op_find("myops::nope", &m.o.op); }),
         X("no namespace", {TC_ERR_INDEX}, [](M& m) { return tc_op_find("scaled_square", &m.o.op); })}),
      [](M& m) {
        if (!is_sentinel(m.o.op)) tc_op_free(m.o.op);
      }));
  add(E(FN(tc_op_free), "Q",
        [](M& m) {
          tc_op o = nullptr;
          tc_op_find("myops::scaled_square", &o);
          const int32_t rc = m.done(tc_op_free(m.Q(0, o)));
          if (m.spoiled(0) && o) tc_op_free(o);
          return rc;
        },
        {X("freed twice", {TC_ERR_INVALID_HANDLE}, [](M&) {
          tc_op o = nullptr;
          tc_op_find("myops::scaled_square", &o);
          tc_op_free(o);
          return tc_op_free(o);
        })}));
  add(E(
      FN(tc_op_schema), "Q-pp",
      [](M& m) { return tc_op_schema(m.Q(0, m.f.op), m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras([](M& m, char* b, int64_t c, int64_t* n) { return tc_op_schema(m.f.op, b, c, n); })));
  add(E(
      FN(tc_op_library_path), "Q-pp",
      [](M& m) { return tc_op_library_path(m.Q(0, m.f.op), m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras(
          [](M& m, char* b, int64_t c, int64_t* n) { return tc_op_library_path(m.f.op, b, c, n); })));
  add(with_cleanup(E(FN(tc_op_call), "QP-P-O-P",
                     [](M& m) {
                       static const double alpha = 2.0;
                       tc_tensor in[1] = {m.f.a};
                       return tc_op_call(m.Q(0, m.f.op), m.P(1, in), 1, m.P(3, &alpha), 1, m.HS(5), 8,
                                         m.P(7, m.o.i64));
                     },
                     {X("n_inputs 0", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          const double alpha = 2.0;
                          return tc_op_call(m.f.op, &m.f.a, 0, &alpha, 1, m.HS(9), 8, m.o.i64);
                        }),
                      X("n_scalars 2", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          const double alpha[2] = {2.0, 3.0};
                          return tc_op_call(m.f.op, &m.f.a, 1, alpha, 2, m.HS(9), 8, m.o.i64);
                        }),
                      X("n_inputs -1", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          const double alpha = 2.0;
                          return tc_op_call(m.f.op, &m.f.a, -1, &alpha, 1, m.HS(9), 8, m.o.i64);
                        }),
                      X("cap 0", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          const double alpha = 2.0;
                          return tc_op_call(m.f.op, &m.f.a, 1, &alpha, 1, m.HS(9), 0, m.o.i64);
                        }),
                      X("cap -1", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          const double alpha = 2.0;
                          return tc_op_call(m.f.op, &m.f.a, 1, &alpha, 1, m.HS(9), -1, m.o.i64);
                        }),
                      X("freed input", {TC_ERR_INVALID_HANDLE},
                        [](M& m) {
                          const double alpha = 2.0;
                          return tc_op_call(m.f.op, &m.f.freed, 1, &alpha, 1, m.HS(9), 8, m.o.i64);
                        })}),

                   [](M& m) {
                     for (tc_tensor h : m.o.hs)
                       if (!is_sentinel(h)) tc_tensor_free(h);
                   }));
  add(with_cleanup(E(FN(tc_op_call_by_name), "PP-P-O-P",
                     [](M& m) {
                       static const double alpha = 2.0;
                       tc_tensor in[1] = {m.f.a};
                       return tc_op_call_by_name(m.P(0, "myops::scaled_square"), m.P(1, in), 1,
                                                 m.P(3, &alpha), 1, m.HS(5), 8, m.P(7, m.o.i64));
                     },
                     {X("unknown name", {TC_ERR_INDEX},
                        [](M& m) {
                          const double alpha = 2.0;
                          return tc_op_call_by_name("myops::nope", &m.f.a, 1, &alpha, 1, m.HS(9), 8, m.o.i64);
                        })}),
                   [](M& m) {
                     for (tc_tensor h : m.o.hs)
                       if (!is_sentinel(h)) tc_tensor_free(h);
                   }));

  // Initializers.
  add(E(
      FN(tc_uniform_), "H--", [](M& m) { return tc_uniform_(m.H(0, m.f.a), -1, 1); },
      [] {
        auto x = init_fill_extras([](tc_tensor t) { return tc_uniform_(t, 0, 1); });
        x.push_back(
            X("low > high", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_uniform_(m.f.a, 1, -1); }));
        x.push_back(
            X("NaN bound", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_uniform_(m.f.a, kNaN, 1); }));
        return x;
      }()));
  add(E(
      FN(tc_normal_), "H--", [](M& m) { return tc_normal_(m.H(0, m.f.a), 0, 1); },
      [] {
        auto x = init_fill_extras([](tc_tensor t) { return tc_normal_(t, 0, 1); });
        x.push_back(X("std -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_normal_(m.f.a, 0, -1); }));
        x.push_back(X("std NaN", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_normal_(m.f.a, 0, kNaN); }));
        return x;
      }()));
  add(E(
      FN(tc_kaiming_uniform_), "H-", [](M& m) { return tc_kaiming_uniform_(m.H(0, m.f.a), std::sqrt(5.0)); },
      [] {
        auto x = init_fill_extras([](tc_tensor t) { return tc_kaiming_uniform_(t, 0); });
        x.push_back(X("0-dim tensor", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_kaiming_uniform_(m.f.s, 0); }));
        return x;
      }()));
  add(E(
      FN(tc_xavier_uniform_), "H-", [](M& m) { return tc_xavier_uniform_(m.H(0, m.f.a), 1.0); },
      [] {
        auto x = init_fill_extras([](tc_tensor t) { return tc_xavier_uniform_(t, 1); });
        x.push_back(X("1-D tensor", {TC_ERR_SHAPE, TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_xavier_uniform_(m.f.v, 1); }));
        return x;
      }()));

  // Optimizers. Position 4 is the element of the params array.
  auto sgd_opts = [](double lr) {
    tc_sgd_options o{};
    o.size = sizeof o;
    o.lr = lr;
    return o;
  };
  auto adam_opts = [](double lr) {
    tc_adam_options o{};
    o.size = sizeof o;
    o.lr = lr;
    o.beta1 = 0.9;
    o.beta2 = 0.999;
    o.eps = 1e-8;
    return o;
  };
  add(E(FN(tc_optimizer_sgd), "P-POH",
        [sgd_opts](M& m) {
          tc_tensor ps[] = {m.H(4, m.f.p)};
          const tc_sgd_options o = sgd_opts(0.1);
          return tc_optimizer_sgd(m.P(0, ps), 1, m.P(2, &o), m.OZ(3));
        },
        {X("count 0", {TC_ERR_INVALID_ARGUMENT},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = sgd_opts(0.1);
             return tc_optimizer_sgd(ps, 0, &o, m.OZ(9));
           }),
         X("count -1", {TC_ERR_INVALID_ARGUMENT},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = sgd_opts(0.1);
             return tc_optimizer_sgd(ps, -1, &o, m.OZ(9));
           }),
         X("options->size 0", {TC_ERR_INVALID_ARGUMENT},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = sgd_opts(0.1);
             o.size = 0;
             return tc_optimizer_sgd(ps, 1, &o, m.OZ(9));
           }),
         X("lr -1", {TC_ERR_INVALID_ARGUMENT},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = sgd_opts(-1);
             return tc_optimizer_sgd(ps, 1, &o, m.OZ(9));
           }),
         X("lr NaN", {TC_ERR_INVALID_ARGUMENT},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = sgd_opts(kNaN);
             return tc_optimizer_sgd(ps, 1, &o, m.OZ(9));
           }),
         X("momentum -0.5", {TC_ERR_INVALID_ARGUMENT},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = sgd_opts(0.1);
             o.momentum = -0.5;
             return tc_optimizer_sgd(ps, 1, &o, m.OZ(9));
           }),
         X("nesterov without momentum", {TC_ERR_INVALID_ARGUMENT},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = sgd_opts(0.1);
             o.nesterov = 1;
             return tc_optimizer_sgd(ps, 1, &o, m.OZ(9));
           }),
         X("parameter that does not require grad", {TC_ERR_INVALID_ARGUMENT, TC_ERR_AUTOGRAD},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.a};
             auto o = sgd_opts(0.1);
             return tc_optimizer_sgd(ps, 1, &o, m.OZ(9));
           }),
         X("integer parameter", {TC_ERR_DTYPE, TC_ERR_INVALID_ARGUMENT, TC_ERR_AUTOGRAD},
           [sgd_opts](M& m) {
             tc_tensor ps[] = {m.f.i32};
             auto o = sgd_opts(0.1);
             return tc_optimizer_sgd(ps, 1, &o, m.OZ(9));
           }),
         X("non-leaf parameter", {TC_ERR_INVALID_ARGUMENT, TC_ERR_AUTOGRAD}, [sgd_opts](M& m) {
           tc_tensor r = make_root(m);
           tc_tensor ps[] = {r};
           auto o = sgd_opts(0.1);
           const int32_t rc = m.done(tc_optimizer_sgd(ps, 1, &o, m.OZ(9)));
           free_t(r);
           return rc;
         })}));
  add(E(FN(tc_optimizer_adam), "P-POH",
        [adam_opts](M& m) {
          tc_tensor ps[] = {m.H(4, m.f.p)};
          const tc_adam_options o = adam_opts(1e-3);
          return tc_optimizer_adam(m.P(0, ps), 1, m.P(2, &o), m.OZ(3));
        },
        {X("count 0", {TC_ERR_INVALID_ARGUMENT},
           [adam_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adam_opts(0.1);
             return tc_optimizer_adam(ps, 0, &o, m.OZ(9));
           }),
         X("options->size 4", {TC_ERR_INVALID_ARGUMENT},
           [adam_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adam_opts(0.1);
             o.size = 4;
             return tc_optimizer_adam(ps, 1, &o, m.OZ(9));
           }),
         X("lr -1", {TC_ERR_INVALID_ARGUMENT},
           [adam_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adam_opts(-1);
             return tc_optimizer_adam(ps, 1, &o, m.OZ(9));
           }),
         X("beta1 1.0", {TC_ERR_INVALID_ARGUMENT},
           [adam_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adam_opts(0.1);
             o.beta1 = 1.0;
             return tc_optimizer_adam(ps, 1, &o, m.OZ(9));
           }),
         X("beta2 -0.1", {TC_ERR_INVALID_ARGUMENT},
           [adam_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adam_opts(0.1);
             o.beta2 = -0.1;
             return tc_optimizer_adam(ps, 1, &o, m.OZ(9));
           }),
         X("eps -1", {TC_ERR_INVALID_ARGUMENT},
           [adam_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adam_opts(0.1);
             o.eps = -1;
             return tc_optimizer_adam(ps, 1, &o, m.OZ(9));
           }),
         X("parameter that does not require grad", {TC_ERR_INVALID_ARGUMENT, TC_ERR_AUTOGRAD},
           [adam_opts](M& m) {
             tc_tensor ps[] = {m.f.b};
             auto o = adam_opts(0.1);
             return tc_optimizer_adam(ps, 1, &o, m.OZ(9));
           })}));
  auto rmsprop_opts = [](double lr) {
    tc_rmsprop_options o{};
    o.size = sizeof o;
    o.lr = lr;
    o.alpha = 0.99;
    o.eps = 1e-8;
    o.momentum = 0.9;
    o.centered = 1;
    return o;
  };
  add(E(FN(tc_optimizer_rmsprop), "P-POH",
        [rmsprop_opts](M& m) {
          tc_tensor ps[] = {m.H(4, m.f.p)};
          const tc_rmsprop_options o = rmsprop_opts(1e-2);
          return tc_optimizer_rmsprop(m.P(0, ps), 1, m.P(2, &o), m.OZ(3));
        },
        {X("count 0", {TC_ERR_INVALID_ARGUMENT},
           [rmsprop_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = rmsprop_opts(0.1);
             return tc_optimizer_rmsprop(ps, 0, &o, m.OZ(9));
           }),
         X("options->size 4", {TC_ERR_INVALID_ARGUMENT},
           [rmsprop_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = rmsprop_opts(0.1);
             o.size = 4;
             return tc_optimizer_rmsprop(ps, 1, &o, m.OZ(9));
           }),
         X("lr NaN", {TC_ERR_INVALID_ARGUMENT},
           [rmsprop_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = rmsprop_opts(kNaN);
             return tc_optimizer_rmsprop(ps, 1, &o, m.OZ(9));
           }),
         X("alpha -0.5", {TC_ERR_INVALID_ARGUMENT},
           [rmsprop_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = rmsprop_opts(0.1);
             o.alpha = -0.5;
             return tc_optimizer_rmsprop(ps, 1, &o, m.OZ(9));
           }),
         X("momentum -1", {TC_ERR_INVALID_ARGUMENT},
           [rmsprop_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = rmsprop_opts(0.1);
             o.momentum = -1;
             return tc_optimizer_rmsprop(ps, 1, &o, m.OZ(9));
           }),
         X("parameter that does not require grad", {TC_ERR_INVALID_ARGUMENT, TC_ERR_AUTOGRAD},
           [rmsprop_opts](M& m) {
             tc_tensor ps[] = {m.f.b};
             auto o = rmsprop_opts(0.1);
             return tc_optimizer_rmsprop(ps, 1, &o, m.OZ(9));
           })}));
  auto adagrad_opts = [](double lr) {
    tc_adagrad_options o{};
    o.size = sizeof o;
    o.lr = lr;
    o.lr_decay = 0.01;
    o.initial_accumulator_value = 0.1;
    o.eps = 1e-10;
    return o;
  };
  add(E(FN(tc_optimizer_adagrad), "P-POH",
        [adagrad_opts](M& m) {
          tc_tensor ps[] = {m.H(4, m.f.p)};
          const tc_adagrad_options o = adagrad_opts(1e-2);
          return tc_optimizer_adagrad(m.P(0, ps), 1, m.P(2, &o), m.OZ(3));
        },
        {X("count -1", {TC_ERR_INVALID_ARGUMENT},
           [adagrad_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adagrad_opts(0.1);
             return tc_optimizer_adagrad(ps, -1, &o, m.OZ(9));
           }),
         X("options->size 0", {TC_ERR_INVALID_ARGUMENT},
           [adagrad_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adagrad_opts(0.1);
             o.size = 0;
             return tc_optimizer_adagrad(ps, 1, &o, m.OZ(9));
           }),
         X("lr_decay -1", {TC_ERR_INVALID_ARGUMENT},
           [adagrad_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adagrad_opts(0.1);
             o.lr_decay = -1;
             return tc_optimizer_adagrad(ps, 1, &o, m.OZ(9));
           }),
         X("initial_accumulator_value -1", {TC_ERR_INVALID_ARGUMENT},
           [adagrad_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adagrad_opts(0.1);
             o.initial_accumulator_value = -1;
             return tc_optimizer_adagrad(ps, 1, &o, m.OZ(9));
           }),
         X("eps infinity", {TC_ERR_INVALID_ARGUMENT},
           [adagrad_opts](M& m) {
             tc_tensor ps[] = {m.f.p};
             auto o = adagrad_opts(0.1);
             o.eps = INFINITY;
             return tc_optimizer_adagrad(ps, 1, &o, m.OZ(9));
           }),
         X("int64 parameter", {TC_ERR_DTYPE, TC_ERR_AUTOGRAD}, [adagrad_opts](M& m) {
           tc_tensor ps[] = {m.f.ia};
           auto o = adagrad_opts(0.1);
           return tc_optimizer_adagrad(ps, 1, &o, m.OZ(9));
         })}));
  add(E(FN(tc_optimizer_step), "Z", [](M& m) { return tc_optimizer_step(m.Z(0, m.f.opt)); }));
  add(E(FN(tc_optimizer_zero_grad), "Z", [](M& m) { return tc_optimizer_zero_grad(m.Z(0, m.f.opt)); }));
  add(E(FN(tc_optimizer_get_lr), "ZP",
        [](M& m) { return tc_optimizer_get_lr(m.Z(0, m.f.opt), m.P(1, &m.o.d)); }));
  add(E(FN(tc_optimizer_set_lr), "Z-", [](M& m) { return tc_optimizer_set_lr(m.Z(0, m.f.opt), 0.1); },
        {X("lr -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_optimizer_set_lr(m.f.opt, -1); }),
         X("lr NaN", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_optimizer_set_lr(m.f.opt, kNaN); }),
         X("lr -infinity", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_optimizer_set_lr(m.f.opt, -INFINITY); })}));
  add(E(FN(tc_optimizer_free), "Z",
        [](M& m) {
          tc_optimizer o = make_sgd(m.f.p);
          const int32_t rc = m.done(tc_optimizer_free(m.Z(0, o)));
          if (m.spoiled(0) && o) tc_optimizer_free(o);
          return rc;
        },
        {X("freed twice", {TC_ERR_INVALID_HANDLE}, [](M& m) {
          tc_optimizer o = make_sgd(m.f.p);
          tc_optimizer_free(o);
          return tc_optimizer_free(o);
        })}));

  // Generator state.
  add(E(FN(tc_get_rng_state), "O", [](M& m) { return tc_get_rng_state(m.O(0)); }));
  add(E(FN(tc_set_rng_state), "H",
        [](M& m) {
          tc_tensor st = nullptr;  // stays NULL before init: the call is then refused first
          tc_get_rng_state(&st);
          const int32_t rc = m.done(tc_set_rng_state(m.H(0, st)));
          if (st) tc_tensor_free(st);
          return rc;
        },
        {X("float32 state", {TC_ERR_DTYPE}, [](M& m) { return tc_set_rng_state(m.f.a); }),
         X("uint8 [8] state", {TC_ERR_SHAPE},
           [](M& m) {
             tc_tensor t = make(TC_UINT8, {8});
             const int32_t rc = m.done(tc_set_rng_state(t));
             tc_tensor_free(t);
             return rc;
           }),
         X("uint8 [2, 16] state", {TC_ERR_SHAPE}, [](M& m) {
           tc_tensor t = make(TC_UINT8, {2, 16});
           const int32_t rc = m.done(tc_set_rng_state(t));
           tc_tensor_free(t);
           return rc;
         })}));

  // Tensor dicts and safetensors files.
  add(E(FN(tc_tensor_dict_create), "O", [](M& m) { return tc_tensor_dict_create(m.OD(0)); }));
  add(E(FN(tc_tensor_dict_free), "D",
        [](M& m) {
          tc_tensor_dict d = make_dict(m.f.a);
          const int32_t rc = m.done(tc_tensor_dict_free(m.D(0, d)));
          if (m.spoiled(0) && d) tc_tensor_dict_free(d);
          return rc;
        },
        {X("freed twice", {TC_ERR_INVALID_HANDLE}, [](M& m) {
          tc_tensor_dict d = make_dict(m.f.a);
          tc_tensor_dict_free(d);
          return tc_tensor_dict_free(d);
        })}));
  add(E(FN(tc_tensor_dict_set), "DPH",
        [](M& m) { return tc_tensor_dict_set(m.D(0, m.f.dict), m.P(1, "b"), m.H(2, m.f.b)); },
        {X("name __metadata__", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_dict_set(m.f.dict, "__metadata__", m.f.b); }),
         X("name not UTF-8", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_dict_set(m.f.dict, "bad\xff", m.f.b); }),
         X("name with a truncated UTF-8 sequence", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_dict_set(m.f.dict, "\xe2\x82", m.f.b); })}));
  add(E(
      FN(tc_tensor_dict_get), "DPO",
      [](M& m) { return tc_tensor_dict_get(m.D(0, m.f.dict), m.P(1, "a"), m.O(2)); },
      {X("missing name", {TC_ERR_INDEX}, [](M& m) { return tc_tensor_dict_get(m.f.dict, "zz", m.O(9)); })}));
  add(E(FN(tc_tensor_dict_contains), "DPP",
        [](M& m) { return tc_tensor_dict_contains(m.D(0, m.f.dict), m.P(1, "a"), m.I32(2)); }));
  add(E(FN(tc_tensor_dict_count), "DP",
        [](M& m) { return tc_tensor_dict_count(m.D(0, m.f.dict), m.I64(1)); }));
  add(E(
      FN(tc_tensor_dict_name_at), "D-pp",
      [](M& m) { return tc_tensor_dict_name_at(m.D(0, m.f.dict), 0, m.o.buf, sizeof m.o.buf, m.o.i64); },
      [] {
        auto x = copy_out_extras([](M& m, char* b, int64_t c, int64_t* n) {
          return tc_tensor_dict_name_at(m.f.dict, 0, b, c, n);
        });
        x.push_back(X("index 1 of 1", {TC_ERR_INDEX},
                      [](M& m) { return tc_tensor_dict_name_at(m.f.dict, 1, m.o.buf, 64, m.o.i64); }));
        x.push_back(X("index -1", {TC_ERR_INDEX},
                      [](M& m) { return tc_tensor_dict_name_at(m.f.dict, -1, m.o.buf, 64, m.o.i64); }));
        return x;
      }()));
  add(E(FN(tc_tensor_dict_set_metadata), "DPP",
        [](M& m) { return tc_tensor_dict_set_metadata(m.D(0, m.f.dict), m.P(1, "k2"), m.P(2, "v2")); },
        {X("value not UTF-8", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_tensor_dict_set_metadata(m.f.dict, "k", "\xc0\xaf"); })}));
  add(E(
      FN(tc_tensor_dict_get_metadata), "DP-pp",
      [](M& m) {
        return tc_tensor_dict_get_metadata(m.D(0, m.f.dict), m.P(1, "k"), m.o.buf, sizeof m.o.buf, m.o.i64);
      },
      [] {
        auto x = copy_out_extras([](M& m, char* b, int64_t c, int64_t* n) {
          return tc_tensor_dict_get_metadata(m.f.dict, "k", b, c, n);
        });
        x.push_back(X("missing key", {TC_ERR_INDEX}, [](M& m) {
          return tc_tensor_dict_get_metadata(m.f.dict, "nope", m.o.buf, 64, m.o.i64);
        }));
        return x;
      }()));
  add(E(FN(tc_tensor_dict_metadata_count), "DP",
        [](M& m) { return tc_tensor_dict_metadata_count(m.D(0, m.f.dict), m.I64(1)); }));
  add(E(
      FN(tc_tensor_dict_metadata_key_at), "D-pp",
      [](M& m) {
        return tc_tensor_dict_metadata_key_at(m.D(0, m.f.dict), 0, m.o.buf, sizeof m.o.buf, m.o.i64);
      },
      [] {
        auto x = copy_out_extras([](M& m, char* b, int64_t c, int64_t* n) {
          return tc_tensor_dict_metadata_key_at(m.f.dict, 0, b, c, n);
        });
        x.push_back(X("index 1 of 1", {TC_ERR_INDEX}, [](M& m) {
          return tc_tensor_dict_metadata_key_at(m.f.dict, 1, m.o.buf, 64, m.o.i64);
        }));
        return x;
      }()));
  add(E(FN(tc_save_safetensors), "DP",
        [](M& m) {
          static const std::string path =
              "/tmp/tc_misuse_save_" + std::to_string(::getpid()) + ".safetensors";
          const int32_t rc = m.done(tc_save_safetensors(m.D(0, m.f.dict), m.P(1, path.c_str())));
          std::remove(path.c_str());
          return rc;
        },
        {X("directory missing", {TC_ERR_IO},
           [](M& m) { return tc_save_safetensors(m.f.dict, "/nonexistent-dir-tc/x.safetensors"); }),
         X("empty path", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_save_safetensors(m.f.dict, ""); }),
         X("path is a directory", {TC_ERR_IO}, [](M& m) { return tc_save_safetensors(m.f.dict, "/tmp"); })}));
  add(E(FN(tc_save_safetensors_bytes), "DO",
        [](M& m) { return tc_save_safetensors_bytes(m.D(0, m.f.dict), m.O(1)); }));
  add(E(
      FN(tc_load_safetensors), "P-O",
      [](M& m) { return tc_load_safetensors(m.P(0, fixture_file()), 0, m.OD(2)); },
      {X("missing file", {TC_ERR_IO},
         [](M& m) { return tc_load_safetensors("/nonexistent-dir-tc/x.safetensors", 0, m.OD(9)); }),
       X("a directory", {TC_ERR_IO}, [](M& m) { return tc_load_safetensors("/tmp", 0, m.OD(9)); }),
       X("flags 2", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_load_safetensors(fixture_file(), 2, m.OD(9)); }),
       X("flags -1", {TC_ERR_INVALID_ARGUMENT},
         [](M& m) { return tc_load_safetensors(fixture_file(), -1, m.OD(9)); }),
       X("empty path", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_load_safetensors("", 0, m.OD(9)); }),
       X("an empty file", {TC_ERR_IO}, [](M& m) { return tc_load_safetensors("/dev/null", 0, m.OD(9)); })}));
  add(E(FN(tc_load_safetensors_buffer), "P-O",
        [](M& m) {
          static const std::string bytes = fixture_bytes();
          return tc_load_safetensors_buffer(m.P(0, bytes.data()), int64_t(bytes.size()), m.OD(2));
        },
        {X("nbytes -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_load_safetensors_buffer(m.o.buf, -1, m.OD(9)); }),
         X("nbytes 0", {TC_ERR_IO}, [](M& m) { return tc_load_safetensors_buffer(m.o.buf, 0, m.OD(9)); }),
         X("NULL data with nbytes 0", {TC_ERR_IO},
           [](M& m) { return tc_load_safetensors_buffer(nullptr, 0, m.OD(9)); }),
         X("one byte short", {TC_ERR_IO}, [](M& m) {
           static const std::string bytes = fixture_bytes();
           return tc_load_safetensors_buffer(bytes.data(), int64_t(bytes.size()) - 1, m.OD(9));
         })}));
  add(E(FN(tc_optimizer_state_dict), "ZO",
        [](M& m) { return tc_optimizer_state_dict(m.Z(0, m.f.opt), m.OD(1)); }));
  add(E(FN(tc_optimizer_load_state_dict), "ZD",
        [](M& m) {
          tc_tensor_dict d = nullptr;  // stays NULL before init: the call is then refused first
          tc_optimizer_state_dict(m.f.opt, &d);
          const int32_t rc = m.done(tc_optimizer_load_state_dict(m.Z(0, m.f.opt), m.D(1, d)));
          if (d) tc_tensor_dict_free(d);
          return rc;
        },
        {X("a dict of model tensors", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_optimizer_load_state_dict(m.f.opt, m.f.dict); }),
         X("an adam state into sgd", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_adam_options o{};
             o.size = sizeof o;
             o.lr = 0.1;
             o.beta1 = 0.9;
             o.beta2 = 0.99;
             tc_optimizer adam = nullptr;
             tc_tensor_dict d = nullptr;
             if (tc_optimizer_adam(&m.f.p, 1, &o, &adam) != TC_OK) return -1;
             tc_optimizer_state_dict(adam, &d);
             const int32_t rc = m.done(tc_optimizer_load_state_dict(m.f.opt, d));
             tc_tensor_dict_free(d);
             tc_optimizer_free(adam);
             return rc;
           }),
         X("a momentum buffer of the wrong shape", {TC_ERR_SHAPE},
           [](M& m) {
             tc_tensor_dict d = nullptr;
             if (tc_optimizer_state_dict(m.f.opt, &d) != TC_OK) return -1;
             tc_tensor_dict_set(d, "state.0.momentum_buffer", m.f.v);
             const int32_t rc = m.done(tc_optimizer_load_state_dict(m.f.opt, d));
             tc_tensor_dict_free(d);
             return rc;
           }),
         X("a momentum buffer of the wrong dtype", {TC_ERR_DTYPE},
           [](M& m) {
             tc_tensor_dict d = nullptr;
             if (tc_optimizer_state_dict(m.f.opt, &d) != TC_OK) return -1;
             tc_tensor_dict_set(d, "state.0.momentum_buffer", m.f.i32);
             const int32_t rc = m.done(tc_optimizer_load_state_dict(m.f.opt, d));
             tc_tensor_dict_free(d);
             return rc;
           }),
         X("state of parameter 1 of 1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) {
             tc_tensor_dict d = nullptr;
             if (tc_optimizer_state_dict(m.f.opt, &d) != TC_OK) return -1;
             tc_tensor_dict_set(d, "state.1.momentum_buffer", m.f.a);
             const int32_t rc = m.done(tc_optimizer_load_state_dict(m.f.opt, d));
             tc_tensor_dict_free(d);
             return rc;
           }),
         X("lr -1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
           tc_tensor_dict d = nullptr;
           if (tc_optimizer_state_dict(m.f.opt, &d) != TC_OK) return -1;
           tc_tensor lr = nullptr;
           const int64_t none[1] = {0};
           tc_full(none, 0, -1.0, TC_FLOAT64, TC_CPU, &lr);
           tc_tensor_dict_set(d, "param_groups.0.lr", lr);
           tc_tensor_free(lr);
           const int32_t rc = m.done(tc_optimizer_load_state_dict(m.f.opt, d));
           tc_tensor_dict_free(d);
           return rc;
         })}));

  // DLPack.
  add(with_cleanup(
      E(FN(tc_to_dlpack), "HP", [](M& m) { return tc_to_dlpack(m.H(0, m.f.a), m.P(1, &m.o.vp)); }),
      [](M& m) { free_dlpack(m.o.vp); }));
  auto dl_case = [](std::string what, std::vector<int32_t> codes, std::function<void(DlBox*)> spoil,
                    int32_t versioned = 0) {
    return X(what + " (caller keeps it)", codes, [=](M& m) {
      DlBox* box = make_dl_box();
      spoil(box);
      const int32_t rc = m.done(tc_from_dlpack(&box->m, versioned, m.O(9)));
      if (rc != TC_OK) delete box;  // on failure the caller still owns it
      return rc;
    });
  };
  add(E(FN(tc_from_dlpack), "P-O",
        [](M& m) {
          DlBox* box = make_dl_box();
          const int32_t rc = m.done(tc_from_dlpack(m.P(0, static_cast<void*>(&box->m)), 0, m.O(2)));
          if (rc != TC_OK) delete box;
          return rc;
        },
        {dl_case(
             "versioned 2", {TC_ERR_INVALID_ARGUMENT}, [](DlBox*) {}, 2),
         dl_case(
             "versioned -1", {TC_ERR_INVALID_ARGUMENT}, [](DlBox*) {}, -1),
         dl_case("ndim -1", {TC_ERR_INVALID_ARGUMENT}, [](DlBox* b) { b->m.dl_tensor.ndim = -1; }),
         dl_case("ndim 17", {TC_ERR_INVALID_ARGUMENT}, [](DlBox* b) { b->m.dl_tensor.ndim = 17; }),
         dl_case("shape NULL", {TC_ERR_INVALID_ARGUMENT}, [](DlBox* b) { b->m.dl_tensor.shape = nullptr; }),
         dl_case("negative size", {TC_ERR_INVALID_ARGUMENT}, [](DlBox* b) { b->shape[0] = -2; }),
         dl_case("shape product overflows int64", {TC_ERR_OUT_OF_MEMORY, TC_ERR_INVALID_ARGUMENT},
                 [](DlBox* b) { b->shape[0] = kI64Max; }),
         dl_case("data NULL", {TC_ERR_INVALID_ARGUMENT}, [](DlBox* b) { b->m.dl_tensor.data = nullptr; }),
         dl_case("dtype code 3 (opaque)", {TC_ERR_DTYPE},
                 [](DlBox* b) {
                   b->m.dl_tensor.dtype = DLDataType{3, 64, 1};
                 }),
         dl_case("dtype float 24 bits", {TC_ERR_DTYPE},
                 [](DlBox* b) {
                   b->m.dl_tensor.dtype = DLDataType{kDLFloat, 24, 1};
                 }),
         dl_case("dtype 4 lanes", {TC_ERR_DTYPE}, [](DlBox* b) { b->m.dl_tensor.dtype.lanes = 4; }),
         dl_case("device type Vulkan", {TC_ERR_NOT_IMPLEMENTED, TC_ERR_INVALID_ARGUMENT, TC_ERR_DEVICE},
                 [](DlBox* b) {
                   b->m.dl_tensor.device = DLDevice{kDLVulkan, 0};
                 }),
         dl_case("device type 12345", {TC_ERR_NOT_IMPLEMENTED, TC_ERR_INVALID_ARGUMENT, TC_ERR_DEVICE},
                 [](DlBox* b) { b->m.dl_tensor.device.device_type = DLDeviceType(12345); }),
         dl_case("cuda device_id -1", {TC_ERR_INVALID_ARGUMENT, TC_ERR_NOT_COMPILED, TC_ERR_UNAVAILABLE},
                 [](DlBox* b) {
                   b->m.dl_tensor.device = DLDevice{kDLCUDA, -1};
                 }),
         dl_case("negative stride", {TC_ERR_NOT_IMPLEMENTED, TC_ERR_INVALID_ARGUMENT}, [](DlBox* b) {
           static int64_t st[2] = {3, -1};
           b->m.dl_tensor.strides = st;
         })}));

  // Distributed: process groups of size 1 (no mpirun), collectives, works.
  add(with_cleanup(E(FN(tc_process_group_create), "PpP",
                     [](M& m) {
                       const tc_process_group_options o = pg_options();
                       return tc_process_group_create(m.P(0, "mpi"), &o, m.P(2, &m.o.pg));
                     },
                     {X("options NULL (defaults)", {TC_OK},
                        [](M& m) {
                          const int32_t rc = tc_process_group_create("mpi", nullptr, &m.o.pg);
                          if (rc == TC_OK) tc_process_group_free(m.o.pg);
                          m.o.pg = reinterpret_cast<tc_process_group>(sentinel_handle());
                          return rc;
                        }),
                      X("backend \"gloo\"", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) { return tc_process_group_create("gloo", nullptr, &m.o.pg); }),
                      // Not built (CPU-only libtc), no GPU (a CUDA build here), or a
                      // group of one on a GPU machine (then freed).
                      X("backend \"nccl\" (not built, no GPU, or a group of one)",
                        {TC_ERR_NOT_COMPILED, TC_ERR_DEVICE, TC_OK},
                        [](M& m) {
                          const int32_t rc = tc_process_group_create("nccl", nullptr, &m.o.pg);
                          if (rc == TC_OK) tc_process_group_free(m.o.pg);
                          if (rc == TC_OK) m.o.pg = reinterpret_cast<tc_process_group>(sentinel_handle());
                          return rc;
                        }),
                      X("options->size 0", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          tc_process_group_options o = pg_options();
                          o.size = 0;
                          return tc_process_group_create("mpi", &o, &m.o.pg);
                        }),
                      X("options->size 8 (too small)", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          tc_process_group_options o = pg_options();
                          o.size = 8;
                          return tc_process_group_create("mpi", &o, &m.o.pg);
                        }),
                      X("skip_checks 2", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          tc_process_group_options o = pg_options();
                          o.skip_checks = 2;
                          return tc_process_group_create("mpi", &o, &m.o.pg);
                        }),
                      X("timeout -1", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          tc_process_group_options o = pg_options();
                          o.timeout_seconds = -1;
                          return tc_process_group_create("mpi", &o, &m.o.pg);
                        }),
                      X("timeout NaN", {TC_ERR_INVALID_ARGUMENT},
                        [](M& m) {
                          tc_process_group_options o = pg_options();
                          o.timeout_seconds = kNaN;
                          return tc_process_group_create("mpi", &o, &m.o.pg);
                        })}),
                   free_pg_out));
  add(E(FN(tc_process_group_free), "G",
        [](M& m) {
          tc_process_group g = make_group();
          const int32_t rc = m.done(tc_process_group_free(m.G(0, g)));
          if (m.spoiled(0) && g) tc_process_group_free(g);
          return rc;
        },
        {X("freed twice", {TC_ERR_INVALID_HANDLE}, [](M&) {
          tc_process_group g = make_group();
          tc_process_group_free(g);
          return tc_process_group_free(g);
        })}));
  add(E(FN(tc_process_group_rank), "GP",
        [](M& m) { return tc_process_group_rank(m.G(0, m.f.pg), m.P(1, m.o.i32)); }));
  add(E(FN(tc_process_group_size), "GP",
        [](M& m) { return tc_process_group_size(m.G(0, m.f.pg), m.P(1, m.o.i32)); }));
  add(E(
      FN(tc_process_group_backend), "G-pp",
      [](M& m) { return tc_process_group_backend(m.G(0, m.f.pg), m.o.buf, sizeof m.o.buf, m.o.i64); },
      copy_out_extras(
          [](M& m, char* b, int64_t c, int64_t* n) { return tc_process_group_backend(m.f.pg, b, c, n); })));
  add(E(FN(tc_dist_backend_available), "PP",
        [](M& m) { return tc_dist_backend_available(m.P(0, "mpi"), m.P(1, m.o.i32)); },
        {X("backend \"gloo\"", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_dist_backend_available("gloo", m.o.i32); })}));
  // The collectives' common misuses: tensors they cannot take.
  auto collective_extras = [](std::function<int32_t(M&, tc_tensor)> call) {
    return std::vector<Extra>{X("non-contiguous tensor", {TC_ERR_INVALID_ARGUMENT},
                                [call](M& m) {
                                  tc_tensor t = nullptr;
                                  tc_transpose(m.f.a, 0, 1, &t);
                                  const int32_t rc = m.done(call(m, t));
                                  free_t(t);
                                  return rc;
                                }),
                              X("read-only tensor", {TC_ERR_INVALID_ARGUMENT}, [call](M& m) {
                                tc_tensor t = make_f32({2, 3});
                                tc_tensor_set_readonly(t);
                                const int32_t rc = m.done(call(m, t));
                                free_t(t);
                                return rc;
                              })};
  };
  add(E(
      FN(tc_all_reduce), "GH-p",
      [](M& m) { return tc_all_reduce(m.G(0, m.f.pg), m.H(1, m.f.a), TC_REDUCE_SUM, nullptr); },
      [&] {
        auto x = collective_extras(
            [](M& m, tc_tensor t) { return tc_all_reduce(m.f.pg, t, TC_REDUCE_SUM, nullptr); });
        x.push_back(X("op 5", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_all_reduce(m.f.pg, m.f.a, 5, nullptr); }));
        x.push_back(X("op -1", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_all_reduce(m.f.pg, m.f.a, -1, nullptr); }));
        x.push_back(X("avg of int32", {TC_ERR_DTYPE},
                      [](M& m) { return tc_all_reduce(m.f.pg, m.f.i32, TC_REDUCE_AVG, nullptr); }));
        x.push_back(X("sum of float16", {TC_ERR_DTYPE}, [](M& m) {
          tc_tensor h = make(TC_FLOAT16, {2});
          const int32_t rc = m.done(tc_all_reduce(m.f.pg, h, TC_REDUCE_SUM, nullptr));
          free_t(h);
          return rc;
        }));
        x.push_back(X("a leaf that requires grad", {TC_ERR_AUTOGRAD},
                      [](M& m) { return tc_all_reduce(m.f.pg, m.f.p, TC_REDUCE_SUM, nullptr); }));
        x.push_back(X("asynchronous (valid)", {TC_OK}, [](M& m) {
          tc_work w = nullptr;
          const int32_t rc = tc_all_reduce(m.f.pg, m.f.a, TC_REDUCE_MAX, &w);
          if (rc == TC_OK) {
            tc_work_wait(w, 0);
            tc_work_free(w);
          }
          return rc;
        }));
        return x;
      }()));
  add(E(
      FN(tc_broadcast), "GH-p", [](M& m) { return tc_broadcast(m.G(0, m.f.pg), m.H(1, m.f.a), 0, nullptr); },
      [&] {
        auto x = collective_extras([](M& m, tc_tensor t) { return tc_broadcast(m.f.pg, t, 0, nullptr); });
        x.push_back(X("root 1 of a group of 1", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_broadcast(m.f.pg, m.f.a, 1, nullptr); }));
        x.push_back(X("root -1", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_broadcast(m.f.pg, m.f.a, -1, nullptr); }));
        return x;
      }()));
  add(E(
      FN(tc_all_gather), "GHHp",
      [](M& m) { return tc_all_gather(m.G(0, m.f.pg), m.H(1, m.f.b), m.H(2, m.f.a), nullptr); },
      [&] {
        auto x =
            collective_extras([](M& m, tc_tensor t) { return tc_all_gather(m.f.pg, t, m.f.a, nullptr); });
        x.push_back(X("out too small", {TC_ERR_SHAPE},
                      [](M& m) { return tc_all_gather(m.f.pg, m.f.v, m.f.a, nullptr); }));
        x.push_back(X("out of another dtype", {TC_ERR_DTYPE},
                      [](M& m) { return tc_all_gather(m.f.pg, m.f.i32, m.f.a, nullptr); }));
        return x;
      }()));
  add(E(
      FN(tc_reduce_scatter), "GHH-p",
      [](M& m) {
        return tc_reduce_scatter(m.G(0, m.f.pg), m.H(1, m.f.b), m.H(2, m.f.a), TC_REDUCE_SUM, nullptr);
      },
      [&] {
        auto x = collective_extras(
            [](M& m, tc_tensor t) { return tc_reduce_scatter(m.f.pg, t, m.f.a, TC_REDUCE_SUM, nullptr); });
        x.push_back(X("t too small", {TC_ERR_SHAPE},
                      [](M& m) { return tc_reduce_scatter(m.f.pg, m.f.b, m.f.v, TC_REDUCE_SUM, nullptr); }));
        x.push_back(X("op 7", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_reduce_scatter(m.f.pg, m.f.b, m.f.a, 7, nullptr); }));
        return x;
      }()));
  add(E(FN(tc_barrier), "Gp", [](M& m) { return tc_barrier(m.G(0, m.f.pg), nullptr); }));
  // With one rank there is no peer: the valid call is refused for that
  // reason alone (the group's handle is checked first).
  add(with_ok(
      E(FN(tc_send), "GH--p", [](M& m) { return tc_send(m.G(0, m.f.pg), m.H(1, m.f.a), 0, 0, nullptr); },
        {X("peer 1 of a group of 1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_send(m.f.pg, m.f.a, 1, 0, nullptr); })}),
      {TC_ERR_INVALID_ARGUMENT}));
  add(with_ok(
      E(FN(tc_recv), "GH--p", [](M& m) { return tc_recv(m.G(0, m.f.pg), m.H(1, m.f.a), 0, 0, nullptr); },
        {X("peer -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_recv(m.f.pg, m.f.a, -1, 0, nullptr); })}),
      {TC_ERR_INVALID_ARGUMENT}));
  add(E(FN(tc_work_wait), "W-", [](M& m) { return tc_work_wait(m.W(0, m.f.work), 0); },
        {X("timeout NaN", {TC_ERR_INVALID_ARGUMENT}, [](M& m) { return tc_work_wait(m.f.work, kNaN); })}));
  add(E(FN(tc_work_test), "WP", [](M& m) { return tc_work_test(m.W(0, m.f.work), m.P(1, m.o.i32)); }));
  add(E(FN(tc_work_free), "W",
        [](M& m) {
          tc_work w = make_work(m.f.pg);
          const int32_t rc = m.done(tc_work_free(m.W(0, w)));
          if (m.spoiled(0) && w) tc_work_free(w);
          return rc;
        },
        {X("freed twice", {TC_ERR_INVALID_HANDLE}, [](M& m) {
          tc_work w = make_work(m.f.pg);
          tc_work_free(w);
          return tc_work_free(w);
        })}));

  // More losses and distances (src/ops/losses.cpp).
  add(E(
      FN(tc_l1_loss), "HH-O",
      [](M& m) { return tc_l1_loss(m.H(0, m.f.a), m.H(1, m.f.b), TC_REDUCTION_MEAN, m.O(3)); },
      [] {
        auto x = reduction_extras([](M& m, int32_t r) { return tc_l1_loss(m.f.a, m.f.b, r, m.O(9)); });
        x.push_back(X("shapes that do not broadcast", {TC_ERR_SHAPE},
                      [](M& m) { return tc_l1_loss(m.f.a, m.f.bt, TC_REDUCTION_MEAN, m.O(9)); }));
        x.push_back(X("int64 input", {TC_ERR_DTYPE},
                      [](M& m) { return tc_l1_loss(m.f.ia, m.f.b, TC_REDUCTION_MEAN, m.O(9)); }));
        return x;
      }()));
  add(E(
      FN(tc_smooth_l1_loss), "HH--O",
      [](M& m) { return tc_smooth_l1_loss(m.H(0, m.f.a), m.H(1, m.f.b), TC_REDUCTION_SUM, 1.0, m.O(4)); },
      [] {
        auto x =
            reduction_extras([](M& m, int32_t r) { return tc_smooth_l1_loss(m.f.a, m.f.b, r, 1.0, m.O(9)); });
        x.push_back(X("beta -1", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_smooth_l1_loss(m.f.a, m.f.b, TC_REDUCTION_MEAN, -1.0, m.O(9)); }));
        x.push_back(X("beta NaN", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_smooth_l1_loss(m.f.a, m.f.b, TC_REDUCTION_MEAN, kNaN, m.O(9)); }));
        return x;
      }()));
  add(E(
      FN(tc_huber_loss), "HH--O",
      [](M& m) { return tc_huber_loss(m.H(0, m.f.a), m.H(1, m.f.b), TC_REDUCTION_NONE, 1.0, m.O(4)); },
      [] {
        auto x =
            reduction_extras([](M& m, int32_t r) { return tc_huber_loss(m.f.a, m.f.b, r, 1.0, m.O(9)); });
        x.push_back(X("delta 0", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_huber_loss(m.f.a, m.f.b, TC_REDUCTION_MEAN, 0.0, m.O(9)); }));
        x.push_back(X("delta NaN", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_huber_loss(m.f.a, m.f.b, TC_REDUCTION_MEAN, kNaN, m.O(9)); }));
        return x;
      }()));
  add(E(
      FN(tc_binary_cross_entropy), "HHh-O",
      [](M& m) {
        return tc_binary_cross_entropy(m.H(0, m.f.s), m.H(1, m.f.s), m.H(2, m.f.s), TC_REDUCTION_MEAN,
                                       m.O(4));
      },
      [] {
        auto x = reduction_extras(
            [](M& m, int32_t r) { return tc_binary_cross_entropy(m.f.s, m.f.s, nullptr, r, m.O(9)); });
        x.push_back(X("input above 1", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
          return tc_binary_cross_entropy(m.f.a, m.f.b, nullptr, TC_REDUCTION_MEAN, m.O(9));
        }));
        x.push_back(X("target of another shape", {TC_ERR_SHAPE}, [](M& m) {
          return tc_binary_cross_entropy(m.f.s, m.f.v, nullptr, TC_REDUCTION_MEAN, m.O(9));
        }));
        return x;
      }()));
  add(E(
      FN(tc_binary_cross_entropy_with_logits), "HHhh-O",
      [](M& m) {
        return tc_binary_cross_entropy_with_logits(m.H(0, m.f.a), m.H(1, m.f.b), m.H(2, m.f.a), m.H(3, m.f.v),
                                                   TC_REDUCTION_MEAN, m.O(5));
      },
      [] {
        auto x = reduction_extras([](M& m, int32_t r) {
          return tc_binary_cross_entropy_with_logits(m.f.a, m.f.b, nullptr, nullptr, r, m.O(9));
        });
        x.push_back(X("target of another shape", {TC_ERR_SHAPE}, [](M& m) {
          return tc_binary_cross_entropy_with_logits(m.f.a, m.f.bt, nullptr, nullptr, TC_REDUCTION_MEAN,
                                                     m.O(9));
        }));
        x.push_back(X("pos_weight that does not broadcast", {TC_ERR_SHAPE}, [](M& m) {
          return tc_binary_cross_entropy_with_logits(m.f.a, m.f.b, nullptr, m.f.bt, TC_REDUCTION_MEAN,
                                                     m.O(9));
        }));
        return x;
      }()));
  add(E(
      FN(tc_kl_div), "HH--O",
      [](M& m) { return tc_kl_div(m.H(0, m.f.a), m.H(1, m.f.b), TC_REDUCTION_SUM, 0, m.O(4)); },
      [] {
        auto x = reduction_extras([](M& m, int32_t r) { return tc_kl_div(m.f.a, m.f.b, r, 1, m.O(9)); });
        x.push_back(X("shapes that do not broadcast", {TC_ERR_SHAPE},
                      [](M& m) { return tc_kl_div(m.f.a, m.f.bt, TC_REDUCTION_MEAN, 0, m.O(9)); }));
        return x;
      }()));
  add(E(
      FN(tc_nll_loss_ex), "HHh--O",
      [](M& m) {
        return tc_nll_loss_ex(m.H(0, m.f.a), m.H(1, m.f.cls), m.H(2, m.f.v), -100, TC_REDUCTION_MEAN, m.O(5));
      },
      [] {
        auto x = reduction_extras(
            [](M& m, int32_t r) { return tc_nll_loss_ex(m.f.a, m.f.cls, nullptr, -100, r, m.O(9)); });
        x.push_back(X("class index 7 of 3", {TC_ERR_INDEX}, [](M& m) {
          tc_tensor t2 = make_i64({2}, {7, 0});
          const int32_t rc = m.done(tc_nll_loss_ex(m.f.a, t2, m.f.v, -100, TC_REDUCTION_MEAN, m.O(9)));
          free_t(t2);
          return rc;
        }));
        x.push_back(X("weight of 6 classes", {TC_ERR_SHAPE}, [](M& m) {
          return tc_nll_loss_ex(m.f.a, m.f.cls, m.f.a, -100, TC_REDUCTION_MEAN, m.O(9));
        }));
        x.push_back(X("float target", {TC_ERR_DTYPE, TC_ERR_SHAPE}, [](M& m) {
          return tc_nll_loss_ex(m.f.a, m.f.v, nullptr, -100, TC_REDUCTION_MEAN, m.O(9));
        }));
        return x;
      }()));
  add(E(
      FN(tc_cross_entropy_ex), "HHh---O",
      [](M& m) {
        return tc_cross_entropy_ex(m.H(0, m.f.a), m.H(1, m.f.cls), m.H(2, m.f.v), -100, 0.1,
                                   TC_REDUCTION_MEAN, m.O(6));
      },
      [] {
        auto x = reduction_extras([](M& m, int32_t r) {
          return tc_cross_entropy_ex(m.f.a, m.f.cls, nullptr, -100, 0.0, r, m.O(9));
        });
        x.push_back(X("label_smoothing 1.5", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
          return tc_cross_entropy_ex(m.f.a, m.f.cls, nullptr, -100, 1.5, TC_REDUCTION_MEAN, m.O(9));
        }));
        x.push_back(X("label_smoothing NaN", {TC_ERR_INVALID_ARGUMENT}, [](M& m) {
          return tc_cross_entropy_ex(m.f.a, m.f.cls, nullptr, -100, kNaN, TC_REDUCTION_MEAN, m.O(9));
        }));
        x.push_back(X("class index 3 of 3", {TC_ERR_INDEX}, [](M& m) {
          tc_tensor t2 = make_i64({2}, {0, 3});
          const int32_t rc =
              m.done(tc_cross_entropy_ex(m.f.a, t2, nullptr, -100, 0.0, TC_REDUCTION_SUM, m.O(9)));
          free_t(t2);
          return rc;
        }));
        x.push_back(X("probability target of another shape", {TC_ERR_SHAPE}, [](M& m) {
          return tc_cross_entropy_ex(m.f.a, m.f.bt, nullptr, -100, 0.0, TC_REDUCTION_MEAN, m.O(9));
        }));
        x.push_back(X("0-dim logits", {TC_ERR_SHAPE}, [](M& m) {
          return tc_cross_entropy_ex(m.f.s, m.f.cls, nullptr, -100, 0.0, TC_REDUCTION_MEAN, m.O(9));
        }));
        return x;
      }()));
  add(E(
      FN(tc_cosine_similarity), "HH--O",
      [](M& m) { return tc_cosine_similarity(m.H(0, m.f.a), m.H(1, m.f.b), 1, 1e-8, m.O(4)); },
      [] {
        auto x =
            dim_extras([](M& m, int64_t d) { return tc_cosine_similarity(m.f.a, m.f.b, d, 1e-8, m.O(9)); });
        x.push_back(X("shapes that do not broadcast", {TC_ERR_SHAPE},
                      [](M& m) { return tc_cosine_similarity(m.f.a, m.f.bt, 1, 1e-8, m.O(9)); }));
        x.push_back(X("int64 x1", {TC_ERR_DTYPE},
                      [](M& m) { return tc_cosine_similarity(m.f.ia, m.f.b, 1, 1e-8, m.O(9)); }));
        return x;
      }()));
  add(E(FN(tc_pairwise_distance), "HH---O",
        [](M& m) { return tc_pairwise_distance(m.H(0, m.f.a), m.H(1, m.f.b), 2.0, 1e-6, 0, m.O(5)); },
        {X("p -1", {TC_ERR_INVALID_ARGUMENT},
           [](M& m) { return tc_pairwise_distance(m.f.a, m.f.b, -1.0, 1e-6, 0, m.O(9)); }),
         X("shapes that do not broadcast", {TC_ERR_SHAPE},
           [](M& m) { return tc_pairwise_distance(m.f.a, m.f.bt, 2.0, 1e-6, 0, m.O(9)); })}));
  add(E(
      FN(tc_normalize), "H---O", [](M& m) { return tc_normalize(m.H(0, m.f.a), 2.0, 1, 1e-12, m.O(4)); },
      [] {
        auto x = dim_extras([](M& m, int64_t d) { return tc_normalize(m.f.a, 2.0, d, 1e-12, m.O(9)); });
        x.push_back(X("p -1", {TC_ERR_INVALID_ARGUMENT},
                      [](M& m) { return tc_normalize(m.f.a, -1.0, 1, 1e-12, m.O(9)); }));
        x.push_back(
            X("0-dim a", {TC_ERR_SHAPE}, [](M& m) { return tc_normalize(m.f.s, 2.0, 0, 1e-12, m.O(9)); }));
        return x;
      }()));

  // CUDA: without the backend these report NOT_COMPILED/UNAVAILABLE.
  add(with_ok(
      E(FN(tc_cuda_memory_stats_get), "-P",
        [](M& m) {
          m.o.cms.size = sizeof(tc_cuda_memory_stats);
          return tc_cuda_memory_stats_get(TC_DEVICE(TC_DEVICE_CUDA, 0), m.P(1, &m.o.cms));
        },
        {X("a cpu device", {TC_ERR_INVALID_ARGUMENT, TC_ERR_NOT_COMPILED, TC_ERR_UNAVAILABLE, TC_ERR_DEVICE},
           [](M& m) {
             m.o.cms.size = sizeof(tc_cuda_memory_stats);
             return tc_cuda_memory_stats_get(TC_CPU, &m.o.cms);
           }),
         X("device type 9", {TC_ERR_INVALID_ARGUMENT, TC_ERR_NOT_COMPILED, TC_ERR_UNAVAILABLE},
           [](M& m) {
             m.o.cms.size = sizeof(tc_cuda_memory_stats);
             return tc_cuda_memory_stats_get(TC_DEVICE(9, 0), &m.o.cms);
           })}),
      {TC_OK, TC_ERR_NOT_COMPILED, TC_ERR_UNAVAILABLE}));
  add(with_ok(E(FN(tc_cuda_empty_cache), "", [](M&) { return tc_cuda_empty_cache(); }),
              {TC_OK, TC_ERR_NOT_COMPILED, TC_ERR_UNAVAILABLE}));
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
