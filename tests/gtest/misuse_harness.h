// The misuse suite's shared parts (the suite itself: test_misuse.cpp, which
// says what the table checks): the fixtures, the one-call state M with its
// spoiling accessors, the table's Entry/Extra types and the helpers the rows
// use. The rows are compiled in several files (misuse_table_*.cpp) so that the
// table, the largest test code, builds in parallel.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "abi/dlpack.h"
#include "misuse_weak.h"
#include "tc.h"

namespace misuse {

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
const double kNaN = std::nan("");

enum class Bad { none, null, freed, stale, garbage, pointer, wrong_kind };
const char* bad_name(Bad b);

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

using CallFn = int32_t (*)(M&);
// A captureless lambda (most rows) is stored as a function pointer: one
// std::function specialization for all of them rather than one per lambda,
// which halves the table's compile time.
template <typename F>
Call as_call(F&& f) {
  if constexpr (std::is_convertible_v<F, CallFn>) {
    return Call(static_cast<CallFn>(f));
  } else {
    return Call(std::forward<F>(f));
  }
}
Extra make_extra(std::string what, std::vector<int32_t> expected, Call c);
Entry make_entry(const char* name, void* addr, std::string sig, Call c, std::vector<Extra> extras);
// An extra case: what it spoils, the statuses it may return, the call.
template <typename F>
Extra X(std::string what, std::vector<int32_t> expected, F&& call) {
  return make_extra(std::move(what), std::move(expected), as_call(std::forward<F>(call)));
}
// A table entry: the function (FN(tc_x)), its signature letters, the valid
// call, its extra cases.
template <typename F>
Entry E(const char* name, void* addr, std::string sig, F&& call, std::vector<Extra> extras = {}) {
  return make_entry(name, addr, std::move(sig), as_call(std::forward<F>(call)), std::move(extras));
}
Entry with_ok(Entry e, std::vector<int32_t> ok);
Entry with_pre(Entry e, std::vector<int32_t> pre);
Entry with_cleanup(Entry e, std::function<void(M&)> c);

#define FN(f) #f, reinterpret_cast < void*>(&f)
#define HAVE(f) (reinterpret_cast<void*>(&f) != nullptr)

// ---- helpers that make fresh objects (guarded: the function may be missing) ----

tc_tensor make_f32(std::initializer_list<int64_t> shape, float start = 0.5f);
tc_tensor make_i64(std::initializer_list<int64_t> shape, std::initializer_list<int64_t> values);
tc_tensor make(int32_t dtype, std::initializer_list<int64_t> shape);
// sum(p * p): a scalar root with a graph (fresh for every backward).
tc_tensor make_root(M& m);
tc_optimizer make_sgd(tc_tensor p);
tc_tensor_dict make_dict(tc_tensor a);
// A small valid safetensors file, written byte for byte (not by libtc):
// {"x": F32 [2] = {1, 2}}. Its path stays valid for the whole process.
const char* fixture_file();
// The same bytes in memory.
std::string fixture_bytes();
void free_t(tc_tensor& t);
void free_dlpack(void* p);

// A legacy DLManagedTensor over a static float buffer, for tc_from_dlpack.
struct DlBox {
  DLManagedTensor m;
  int64_t shape[2];
  float data[6];
  int deleted = 0;
};
DlBox* make_dl_box();

tc_tensor sentinel_handle();

// A size-1 "mpi" group (options NULL), or NULL when MPI is not usable here.
// Open MPI 4.1's singleton start races when two processes create its session
// directory at the same moment ("orte_session_dir failed ... File exists"),
// and ctest runs these rows' processes in parallel: each process that makes a
// group gets a session-directory base of its own (removed at exit).
void private_mpi_session_dir();
tc_process_group make_group();
// A completed work (an asynchronous barrier, waited for).
tc_work make_work(tc_process_group g);
bool uses_group(const std::string& sig);
// Entries whose valid call needs a usable "mpi" backend: those taking a group
// or a work, and tc_process_group_create itself.
bool needs_group(const Entry& e);
void free_pg_out(M& m);
tc_process_group_options pg_options();

// Callbacks that do nothing (hooks, a custom function's identity forward).
int32_t noop_grad_hook(void*, tc_tensor, tc_tensor*);
int32_t noop_post_hook(void*, tc_tensor);
int32_t noop_pack_hook(void*, tc_tensor, uint64_t* token);
int32_t noop_unpack_hook(void*, uint64_t, tc_tensor*);
int32_t identity_forward(void*, const tc_tensor* in, int64_t n, const int32_t*, tc_tensor* out,
                         int64_t* n_out, tc_tensor*, int64_t*);
int32_t failing_forward(void*, const tc_tensor*, int64_t, const int32_t*, tc_tensor*, int64_t*, tc_tensor*,
                        int64_t*);
int32_t identity_backward(void*, const tc_tensor*, int64_t, const tc_tensor* g, int64_t, const int32_t*,
                          tc_tensor* gin, int64_t);
tc_function_def identity_def();
bool is_sentinel(const void* p);
void free_node_out(M& m);
tc_tensor_options new_options(const int64_t* s, int64_t n, int32_t d, int32_t dev, int32_t fill);

// tc_from_blob's deleter must run exactly once, also when the call fails.
extern int g_blob_deletes;
extern float g_blob[6];
void count_delete(void*, void*);

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
std::vector<Extra> binary_extras(int32_t (*fn)(tc_tensor, tc_tensor, tc_tensor*), bool bool_ok);
// The integer-only binary rows (bitwise ops, shifts): floats refused; bool
// too for the shifts.
std::vector<Extra> integral_binary_extras(int32_t (*fn)(tc_tensor, tc_tensor, tc_tensor*), bool bool_ok);
std::vector<Extra> reduce_extras(std::function<int32_t(M&, const int64_t*, int64_t)> fn);
std::vector<Extra> dim_extras(std::function<int32_t(M&, int64_t)> fn);
// Several lists of extra cases as one (a generated row's role extras and its
// hand-written ones).
std::vector<Extra> concat(std::initializer_list<std::vector<Extra>> lists);
// Calls fn on an empty [0, 3] float32 tensor (the size-0 errors).
int32_t on_empty_f32(M& m, const std::function<int32_t(tc_tensor)>& fn);
// The extra cases of generated rows (ops.toml's misuse_extras) that their
// argument roles do not give.
std::vector<Extra> amax_extras();
std::vector<Extra> norm_extras();
std::vector<Extra> var_extras();
std::vector<Extra> logcumsumexp_extras();
std::vector<Extra> tril_extras();
std::vector<Extra> fft_extras();
std::vector<Extra> triu_extras();
std::vector<Extra> reduction_extras(std::function<int32_t(M&, int32_t)> fn);
// The role extras of generated rows (tools/gen_ops.py): an int32 code out of
// its range [lo, hi]; an invalid dtype or device code; a list argument's bad
// counts (and a shape's negative size); a tensor list's bad count and entries.
std::vector<Extra> range_extras(const std::string& arg, int32_t lo, int32_t hi,
                                std::function<int32_t(M&, int32_t)> fn);
std::vector<Extra> dtype_extras(std::function<int32_t(M&, int32_t)> fn);
std::vector<Extra> device_extras(std::function<int32_t(M&, int32_t)> fn);
std::vector<Extra> ints_extras(const std::string& arg,
                               std::function<int32_t(M&, const int64_t*, int64_t)> fn);
std::vector<Extra> shape_extras(const std::string& arg,
                                std::function<int32_t(M&, const int64_t*, int64_t)> fn);
// (A tensors arg's entries are spoiled as handles: their letters in the row's
// signature.)
std::vector<Extra> tensors_extras(const std::string& arg,
                                  std::function<int32_t(M&, const tc_tensor*, int64_t)> fn);
std::vector<Extra> copy_out_extras(std::function<int32_t(M&, char*, int64_t, int64_t*)> fn);
// Calls fn on an expanded (stride-0) view of v, [3] -> [2, 3], which in-place
// writes must refuse; returns fn's status (the view is freed afterwards, and a
// successful call never clears the message).
int32_t with_expanded(M& m, const std::function<int32_t(tc_tensor)>& fn);

std::vector<Extra> inplace_binary_extras(int32_t (*fn)(tc_tensor, tc_tensor));
std::vector<Extra> init_fill_extras(std::function<int32_t(tc_tensor)> fn);

// Index tensors and the extra cases of the index, scatter and along-dim ops.
int32_t with_index(M& m, std::initializer_list<int64_t> shape, std::initializer_list<int64_t> values,
                   const std::function<int32_t(tc_tensor)>& call);

std::vector<Extra> index_extras(const std::function<int32_t(M&, const tc_tensor*, int64_t)>& call);

std::vector<Extra> scatter_extras(const std::function<int32_t(M&, int64_t, tc_tensor)>& call);

std::vector<Extra> along_extras(const std::function<int32_t(M&, int64_t, tc_tensor)>& call);

// An empty [0, 3] input (the reductions of no element).
std::vector<Extra> empty_input(int32_t (*fn)(tc_tensor, tc_tensor*));
// The checks every one-matrix function shares: 1-D, integer and (for the
// square ones) non-square inputs.
std::vector<Extra> matrix_extras(std::function<int32_t(M&, tc_tensor)> call, bool square);

// The rows, by topic (each misuse_rows_<topic>.inc; the generated ones in
// misuse_table_generated.cpp).
void add_generated_rows(std::vector<Entry>& t);
void add_shape_creation_rows(std::vector<Entry>& t);
void add_core_rows(std::vector<Entry>& t);
void add_creation_rows(std::vector<Entry>& t);
void add_views_rows(std::vector<Entry>& t);
void add_nn_rows(std::vector<Entry>& t);
void add_shape_indexing_rows(std::vector<Entry>& t);
void add_autograd_rows(std::vector<Entry>& t);
void add_op_library_rows(std::vector<Entry>& t);
void add_optim_rows(std::vector<Entry>& t);
void add_io_rows(std::vector<Entry>& t);
void add_dlpack_rows(std::vector<Entry>& t);
void add_dist_rows(std::vector<Entry>& t);
void add_cuda_rows(std::vector<Entry>& t);

}  // namespace misuse
