// Out-of-memory injection. A realistic training step through the ABI
// (create tensors, linear layers with matmul/add/relu, cross_entropy,
// backward, an Adam step, a custom function and an op library's op, views and reductions, the shape,
// creation and matrix ops (einsum, flip, pad, roll, repeat forward and backward; eye, diag, linspace,
// randint, randperm, bernoulli, meshgrid), linalg's inverse and slogdet forward and backward, then free
// everything) is run once to count its CPU allocations (tc::alloc_count), then once per allocation N with the
// Nth one failing (flag "fail_alloc_at", test builds). Every run must end with a call that returns
// TC_ERR_OUT_OF_MEMORY with a message naming the function, no crash, and live_tensors / live_handles back
// where they started once the workload has freed what it made (then a checkpoint: model and optimizer state
// saved to bytes and to a file, loaded back from both, and the optimizer state restored); under ASan/LSan
// nothing may leak. libtc must work normally afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "core/alloc.h"
#include "tc.h"
#include "tc_binary_ops.h"
#include "tc_scalar_ops.h"
#include "tc_unary_ops.h"

// Weak: the test builds (and skips) while these are being written.
#pragma weak tc_matmul
#pragma weak tc_linalg_inv_ex
#pragma weak tc_linalg_slogdet
#pragma weak tc_add
#pragma weak tc_relu
#pragma weak tc_cross_entropy
#pragma weak tc_cross_entropy_ex
#pragma weak tc_binary_cross_entropy_with_logits
#pragma weak tc_cosine_similarity
#pragma weak tc_normalize
#pragma weak tc_backward
#pragma weak tc_autograd_grad
#pragma weak tc_backward_ex
#pragma weak tc_optimizer_adam
#pragma weak tc_optimizer_rmsprop
#pragma weak tc_optimizer_adagrad
#pragma weak tc_optimizer_step
#pragma weak tc_tensor_set_data
#pragma weak tc_rnn
#pragma weak tc_optimizer_zero_grad
#pragma weak tc_optimizer_free
#pragma weak tc_tensor_set_requires_grad
#pragma weak tc_sum
#pragma weak tc_reshape
#pragma weak tc_transpose
#pragma weak tc_saved_tensors_hooks_push
#pragma weak tc_saved_tensors_hooks_pop
#pragma weak tc_to_dtype
#pragma weak tc_tensor_grad
#pragma weak tc_softmax
#pragma weak tc_mul_scalar
#pragma weak tc_set_sharing_strategy
#pragma weak tc_tensor_share_memory_
#pragma weak tc_tensor_shared_handle
#pragma weak tc_tensor_from_shared
#pragma weak tc_set_anomaly_mode
#pragma weak tc_tensor_dict_create
#pragma weak tc_sort
#pragma weak tc_cumprod
#pragma weak tc_norm
#pragma weak tc_tensor_dict_set
#pragma weak tc_tensor_dict_free
#pragma weak tc_optimizer_state_dict
#pragma weak tc_optimizer_load_state_dict
#pragma weak tc_save_safetensors
#pragma weak tc_save_safetensors_bytes
#pragma weak tc_load_safetensors
#pragma weak tc_load_safetensors_buffer
#pragma weak tc_tensor_data_ptr
#pragma weak tc_tensor_new
#pragma weak tc_function_apply
#pragma weak tc_tensor_register_hook
#pragma weak tc_tensor_register_post_accumulate_grad_hook
#pragma weak tc_hook_remove
#pragma weak tc_load_library
#pragma weak tc_library_unload
#pragma weak tc_op_find
#pragma weak tc_op_free
#pragma weak tc_op_call
#pragma weak tc_prelu
#pragma weak tc_floor_divide
#pragma weak tc_isclose
#pragma weak tc_glu
#pragma weak tc_bitwise_and
#pragma weak tc_index
#pragma weak tc_index_put
#pragma weak tc_take
#pragma weak tc_nonzero
#pragma weak tc_scatter_reduce

// Under ASan, a request larger than its allocator supports aborts unless
// allocator_may_return_null is set; libtc must see the NULL (and report
// TC_ERR_OUT_OF_MEMORY) as it would without ASan. (Only read by ASan builds.)
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

namespace {

int64_t flag(const char* name) {
  int64_t v = -1;
  EXPECT_EQ(tc_get_flag(name, &v), TC_OK) << name;
  return v;
}

// Anomaly mode's forward-trace hook in the workload.
const char* anomaly_trace(void*) { return "the workload's forward call"; }

bool workload_available() {
  const void* fns[] = {reinterpret_cast<void*>(&tc_matmul),
                       reinterpret_cast<void*>(&tc_linalg_inv_ex),
                       reinterpret_cast<void*>(&tc_linalg_slogdet),
                       reinterpret_cast<void*>(&tc_add),
                       reinterpret_cast<void*>(&tc_relu),
                       reinterpret_cast<void*>(&tc_cross_entropy),
                       reinterpret_cast<void*>(&tc_cross_entropy_ex),
                       reinterpret_cast<void*>(&tc_binary_cross_entropy_with_logits),
                       reinterpret_cast<void*>(&tc_cosine_similarity),
                       reinterpret_cast<void*>(&tc_normalize),
                       reinterpret_cast<void*>(&tc_backward),
                       reinterpret_cast<void*>(&tc_autograd_grad),
                       reinterpret_cast<void*>(&tc_backward_ex),
                       reinterpret_cast<void*>(&tc_set_anomaly_mode),
                       reinterpret_cast<void*>(&tc_optimizer_adam),
                       reinterpret_cast<void*>(&tc_optimizer_rmsprop),
                       reinterpret_cast<void*>(&tc_optimizer_adagrad),
                       reinterpret_cast<void*>(&tc_optimizer_step),
                       reinterpret_cast<void*>(&tc_tensor_set_data),
                       reinterpret_cast<void*>(&tc_rnn),
                       reinterpret_cast<void*>(&tc_optimizer_zero_grad),
                       reinterpret_cast<void*>(&tc_optimizer_free),
                       reinterpret_cast<void*>(&tc_tensor_set_requires_grad),
                       reinterpret_cast<void*>(&tc_sum),
                       reinterpret_cast<void*>(&tc_reshape),
                       reinterpret_cast<void*>(&tc_transpose),
                       reinterpret_cast<void*>(&tc_to_dtype),
                       reinterpret_cast<void*>(&tc_tensor_grad),
                       reinterpret_cast<void*>(&tc_softmax),
                       reinterpret_cast<void*>(&tc_mul_scalar),
                       reinterpret_cast<void*>(&tc_set_sharing_strategy),
                       reinterpret_cast<void*>(&tc_tensor_share_memory_),
                       reinterpret_cast<void*>(&tc_tensor_shared_handle),
                       reinterpret_cast<void*>(&tc_tensor_from_shared),
                       reinterpret_cast<void*>(&tc_tensor_dict_create),
                       reinterpret_cast<void*>(&tc_sort),
                       reinterpret_cast<void*>(&tc_cumprod),
                       reinterpret_cast<void*>(&tc_norm),
                       reinterpret_cast<void*>(&tc_tensor_dict_set),
                       reinterpret_cast<void*>(&tc_tensor_dict_free),
                       reinterpret_cast<void*>(&tc_optimizer_state_dict),
                       reinterpret_cast<void*>(&tc_optimizer_load_state_dict),
                       reinterpret_cast<void*>(&tc_save_safetensors),
                       reinterpret_cast<void*>(&tc_save_safetensors_bytes),
                       reinterpret_cast<void*>(&tc_load_safetensors),
                       reinterpret_cast<void*>(&tc_load_safetensors_buffer),
                       reinterpret_cast<void*>(&tc_tensor_data_ptr),
                       reinterpret_cast<void*>(&tc_tensor_new),
                       reinterpret_cast<void*>(&tc_function_apply),
                       reinterpret_cast<void*>(&tc_tensor_register_hook),
                       reinterpret_cast<void*>(&tc_tensor_register_post_accumulate_grad_hook),
                       reinterpret_cast<void*>(&tc_hook_remove),
                       reinterpret_cast<void*>(&tc_load_library),
                       reinterpret_cast<void*>(&tc_library_unload),
                       reinterpret_cast<void*>(&tc_op_find),
                       reinterpret_cast<void*>(&tc_op_free),
                       reinterpret_cast<void*>(&tc_op_call),
                       reinterpret_cast<void*>(&tc_prelu),
                       reinterpret_cast<void*>(&tc_floor_divide),
                       reinterpret_cast<void*>(&tc_isclose),
                       reinterpret_cast<void*>(&tc_glu),
                       reinterpret_cast<void*>(&tc_bitwise_and),
                       reinterpret_cast<void*>(&tc_index),
                       reinterpret_cast<void*>(&tc_index_put),
                       reinterpret_cast<void*>(&tc_take),
                       reinterpret_cast<void*>(&tc_nonzero),
                       reinterpret_cast<void*>(&tc_scatter_reduce),
                       reinterpret_cast<void*>(&tc_saved_tensors_hooks_push),
                       reinterpret_cast<void*>(&tc_saved_tensors_hooks_pop)};
  for (const void* f : fns)
    if (!f) return false;
  return true;
}

// The first failure of a workload run.
struct Failure {
  int32_t code = TC_OK;
  std::string function;  // the call that failed (as the workload names it)
  std::string message;   // tc_last_error right after it
};

// Callbacks that allocate, so that allocations inside them fail too: a
// custom function y = 2x, a gradient hook that replaces w2's gradient with
// itself times 1, a post-accumulate hook that reads w1's grad.
int32_t double_forward(void*, const tc_tensor* in, int64_t, const int32_t*, tc_tensor* out, int64_t* n_out,
                       tc_tensor*, int64_t*) {
  const int32_t rc = tc_mul_scalar(in[0], 2.0, &out[0]);
  if (rc == TC_OK) *n_out = 1;
  return rc;
}
int32_t double_backward(void*, const tc_tensor*, int64_t, const tc_tensor* g, int64_t, const int32_t*,
                        tc_tensor* gin, int64_t) {
  return tc_mul_scalar(g[0], 2.0, &gin[0]);
}
int32_t copy_hook(void*, tc_tensor g, tc_tensor* replacement) { return tc_mul_scalar(g, 1.0, replacement); }
int32_t read_grad_hook(void*, tc_tensor t) {
  tc_tensor g = nullptr;
  const int32_t rc = tc_tensor_grad(t, &g);
  if (g) tc_tensor_free(g);
  return rc;
}

// Saved-tensor hooks that allocate: pack keeps a copy of each saved tensor
// by token, unpack hands it back, free drops it.
struct SavedStore {
  std::map<uint64_t, tc_tensor> kept;
  uint64_t next = 0;
};
int32_t store_pack(void* ctx, tc_tensor t, uint64_t* token) {
  auto* s = static_cast<SavedStore*>(ctx);
  tc_tensor copy = nullptr;
  const int32_t rc = tc_clone(t, &copy);
  if (rc != TC_OK) return rc;
  *token = ++s->next;
  s->kept[*token] = copy;
  return TC_OK;
}
int32_t store_unpack(void* ctx, uint64_t token, tc_tensor* out) {
  auto* s = static_cast<SavedStore*>(ctx);
  auto it = s->kept.find(token);
  return it == s->kept.end() ? TC_ERR_INTERNAL : tc_tensor_retain(it->second, out);
}
void store_free(void* ctx, uint64_t token) {
  auto* s = static_cast<SavedStore*>(ctx);
  auto it = s->kept.find(token);
  if (it == s->kept.end()) return;
  tc_tensor_free(it->second);
  s->kept.erase(it);
}

// A two-layer MLP training step. Stops at the first failing call, like a
// careful caller, and always frees what it made.
class Workload {
 public:
  Failure run() {
    step();
    std::remove(("/tmp/tc_oom_" + std::to_string(::getpid()) + ".safetensors").c_str());
    for (tc_tensor& t : tensors_) {
      if (t) {
        EXPECT_EQ(tc_tensor_free(t), TC_OK);
      }
    }
    tensors_.clear();
    EXPECT_TRUE(store_.kept.empty()) << "saved-tensor tokens outlived their graphs";
    for (tc_tensor_dict& d : dicts_) {
      if (d) {
        EXPECT_EQ(tc_tensor_dict_free(d), TC_OK);
      }
    }
    dicts_.clear();
    for (tc_optimizer* o : {&rmsprop_, &adagrad_}) {
      if (*o) {
        EXPECT_EQ(tc_optimizer_free(*o), TC_OK);
      }
      *o = nullptr;
    }
    if (opt_) {
      EXPECT_EQ(tc_optimizer_free(opt_), TC_OK);
    }
    opt_ = nullptr;
    for (tc_hook h : hooks_) EXPECT_EQ(tc_hook_remove(h), TC_OK);
    hooks_.clear();
    if (op_) {
      EXPECT_EQ(tc_op_free(op_), TC_OK);
    }
    op_ = nullptr;
    if (lib_) {
      EXPECT_EQ(tc_library_unload(lib_), TC_OK);
    }
    lib_ = nullptr;
    return failure_;
  }

 private:
  // Deques: slot() hands out pointers that must stay valid as more slots are
  // added (a vector's growth moved them, and the handles written through the
  // stale pointers leaked).
  std::deque<tc_tensor> tensors_;
  std::deque<tc_tensor_dict> dicts_;
  tc_optimizer opt_ = nullptr;
  tc_optimizer rmsprop_ = nullptr, adagrad_ = nullptr;  // stepped beside opt_, with their state dicts
  std::vector<tc_hook> hooks_;
  tc_library lib_ = nullptr;  // the example op library (examples/op_library)
  tc_op op_ = nullptr;        // its myops::scaled_square
  SavedStore store_;          // the saved-tensor hooks' copies
  Failure failure_;

  bool check(const char* fn, int32_t rc) {
    if (rc == TC_OK) return true;
    failure_.code = rc;
    failure_.function = fn;
    const char* msg = "";
    tc_last_error(&msg);
    failure_.message = msg ? msg : "";
    return false;
  }
  // A slot for an out-param; freed by run().
  tc_tensor* slot() {
    tensors_.push_back(nullptr);
    return &tensors_.back();
  }
  tc_tensor_dict* dict_slot() {
    dicts_.push_back(nullptr);
    return &dicts_.back();
  }
#define STEP(fn, ...) \
  if (!check(#fn, fn(__VA_ARGS__))) return

  void step() {
    // Sizes above Storage's inline buffer, so every tensor allocates.
    const int64_t xs[] = {16, 32}, w1s[] = {32, 64}, b1s[] = {64}, w2s[] = {64, 10};
    std::vector<int64_t> labels(16);
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = int64_t(i % 10);
    const int64_t ts[] = {16};
    // slots stay put (a deque): pointers into tensors_ are out-params

    tc_tensor *x = slot(), *w1 = slot(), *b1 = slot(), *w2 = slot(), *target = slot();
    STEP(tc_randn, xs, 2, TC_FLOAT32, TC_CPU, x);
    STEP(tc_randn, w1s, 2, TC_FLOAT32, TC_CPU, w1);
    tc_tensor_options bo{};
    bo.size = sizeof bo;
    bo.shape = b1s;
    bo.ndim = 1;
    bo.dtype = TC_FLOAT32;
    bo.fill = TC_FILL_VALUE;
    bo.value = 0.01;
    STEP(tc_tensor_new, &bo, b1);
    STEP(tc_rand, w2s, 2, TC_FLOAT32, TC_CPU, w2);
    STEP(tc_from_data, labels.data(), int64_t(labels.size() * 8), ts, 1, TC_INT64, target);
    for (tc_tensor* p : {w1, b1, w2}) STEP(tc_tensor_set_requires_grad, *p, 1);
    tc_tensor params[] = {*w1, *b1, *w2};
    tc_adam_options ao{};
    ao.size = sizeof ao;
    ao.lr = 1e-3;
    ao.beta1 = 0.9;
    ao.beta2 = 0.999;
    ao.eps = 1e-8;
    STEP(tc_optimizer_adam, params, 3, &ao, &opt_);
    tc_rmsprop_options ro{};
    ro.size = sizeof ro;
    ro.lr = 1e-3;
    ro.alpha = 0.99;
    ro.eps = 1e-8;
    ro.momentum = 0.5;
    ro.centered = 1;
    STEP(tc_optimizer_rmsprop, params, 3, &ro, &rmsprop_);
    tc_adagrad_options ag{};
    ag.size = sizeof ag;
    ag.lr = 1e-3;
    ag.initial_accumulator_value = 0.1;
    ag.eps = 1e-10;
    STEP(tc_optimizer_adagrad, params, 3, &ag, &adagrad_);
    tc_hook hk = nullptr;
    STEP(tc_tensor_register_hook, *w2, copy_hook, nullptr, nullptr, &hk);
    hooks_.push_back(hk);
    STEP(tc_tensor_register_post_accumulate_grad_hook, *w1, read_grad_hook, nullptr, nullptr, &hk);
    hooks_.push_back(hk);
    tc_function_def fd{};
    fd.size = sizeof fd;
    fd.name = "DoubleBackward";
    fd.forward = double_forward;
    fd.backward = double_backward;
    int64_t n_out = 0;
    STEP(tc_load_library, TC_EXAMPLE_OP_LIBRARY, &lib_);
    STEP(tc_op_find, "myops::scaled_square", &op_);
    const double alpha = 0.5;
    // A PReLU slope that requires grad: its backward (through where and mul) is walked too.
    tc_tensor* pw = slot();
    const int64_t pws[] = {1};
    tc_tensor_options po = bo;
    po.shape = pws;
    po.value = 0.25;
    STEP(tc_tensor_new, &po, pw);
    STEP(tc_tensor_set_requires_grad, *pw, 1);

    for (int iter = 0; iter < 2; ++iter) {
      tc_tensor *h = slot(), *hb = slot(), *r = slot(), *logits = slot(), *loss = slot();
      STEP(tc_matmul, *x, *w1, h);
      STEP(tc_add, *h, *b1, hb);
      tc_tensor* hd = slot();
      STEP(tc_function_apply, &fd, hb, 1, hd, 1, &n_out);
      tc_tensor* sq = slot();  // an op library's op (forward and backward allocate)
      STEP(tc_op_call, op_, hd, 1, &alpha, 1, sq, 1, &n_out);
      tc_tensor* pr = slot();
      STEP(tc_prelu, *sq, *pw, pr);
      STEP(tc_relu, *pr, r);
      STEP(tc_matmul, *r, *w2, logits);
      STEP(tc_cross_entropy, *logits, *target, TC_REDUCTION_MEAN, loss);
      // The composed losses (src/ops/losses.cpp), and a backward through one
      // that keeps the graph for the step's own backward.
      tc_tensor *ce = slot(), *nrm = slot();
      STEP(tc_cross_entropy_ex, *logits, *target, nullptr, 1, 0.1, TC_REDUCTION_MEAN, ce);
      STEP(tc_normalize, *logits, 2.0, 1, 1e-12, nrm);
      STEP(tc_backward, *ce, nullptr, 1);
      // Gradients handed back with a graph of their own, differentiated
      // again, and a backward restricted to one input (all keep the graph).
      tc_tensor *gl = slot(), *gsq = slot(), *gtot = slot(), *ggl = slot();
      const tc_grad_options go{sizeof(tc_grad_options), 1, 1, 0, 0};
      STEP(tc_autograd_grad, ce, 1, nullptr, logits, 1, &go, gl);
      STEP(tc_mul, *gl, *gl, gsq);
      STEP(tc_sum, *gsq, nullptr, 0, 0, gtot);
      STEP(tc_autograd_grad, gtot, 1, nullptr, w2, 1, &go, ggl);
      const tc_backward_options bwo{sizeof(tc_backward_options), 1, 0, w2, 1};
      STEP(tc_backward_ex, ce, 1, nullptr, &bwo);
      STEP(tc_backward, *loss, nullptr, 0);
      STEP(tc_optimizer_step, opt_);
      STEP(tc_optimizer_step, rmsprop_);
      STEP(tc_optimizer_step, adagrad_);
      // Views, conversions and reductions of the results.
      tc_tensor *g = slot(), *wt = slot(), *flat = slot(), *d64 = slot(), *sm = slot(), *total = slot(),
                *scaled = slot();
      STEP(tc_tensor_grad, *w1, g);
      STEP(tc_transpose, *w1, 0, 1, wt);
      const int64_t fs[] = {-1};
      STEP(tc_reshape, *wt, fs, 1, flat);  // a copy: wt is not contiguous
      STEP(tc_to_dtype, *logits, TC_FLOAT64, d64);
      STEP(tc_softmax, *d64, 1, sm);
      STEP(tc_sum, *sm, nullptr, 0, 0, total);
      STEP(tc_mul_scalar, *total, 0.5, scaled);
      // The extended binary ops: a table row, an integer one, composed ones.
      tc_tensor *fdiv = slot(), *close = slot(), *gated = slot(), *bits = slot();
      STEP(tc_floor_divide, *logits, *scaled, fdiv);
      STEP(tc_isclose, *logits, *fdiv, 1e-5, 1e-8, 1, close);
      STEP(tc_glu, *h, 1, gated);
      STEP(tc_bitwise_and, *target, *target, bits);
      {  // three results freed in one call (a binding's batched finalizer)
        tc_tensor batch[] = {*fdiv, *close, *gated};
        *fdiv = *close = *gated = nullptr;  // the batch owns them now, freed even if it failed
        STEP(tc_tensor_free_many, batch, 3);
      }
      // Sort, scan and norm: row copies, index tensors, a recorded backward.
      tc_tensor *sorted = slot(), *order = slot(), *cp = slot(), *pnorm = slot();
      STEP(tc_sort, *d64, 1, 1, sorted, order);
      STEP(tc_cumprod, *sm, -1, cp);
      const int64_t nd[] = {1};
      STEP(tc_norm, *logits, 2.0, nd, 1, 0, pnorm);
      // Advanced indexing and scatters of the results (index plans, offsets, masks).
      tc_tensor *picked = slot(), *put = slot(), *taken = slot(), *nz = slot(), *red = slot();
      tc_tensor cols[] = {nullptr, *target};  // logits[:, target]
      STEP(tc_index, *logits, cols, 2, picked);
      STEP(tc_index_put, *logits, cols, 2, *picked, 1, put);
      STEP(tc_take, *logits, *target, taken);
      STEP(tc_nonzero, *target, nz);
      STEP(tc_scatter_reduce, *d64, 0, *nz, *d64, TC_SCATTER_AMAX, 0, red);
      // More composed losses (src/ops/losses.cpp).
      tc_tensor *bce = slot(), *cos = slot();
      STEP(tc_binary_cross_entropy_with_logits, *d64, *sm, nullptr, nullptr, TC_REDUCTION_SUM, bce);
      STEP(tc_cosine_similarity, *d64, *sm, 1, 1e-8, cos);
      // Shared memory: results moved into segments (each an allocation the
      // walk fails: an exhausted /dev/shm), exported and mapped again, with
      // both strategies.
      for (const int32_t strategy : {TC_SHARE_FILE_DESCRIPTOR, TC_SHARE_FILE_SYSTEM}) {
        tc_tensor* src = strategy == TC_SHARE_FILE_SYSTEM ? bce : cos;
        tc_tensor* back = slot();
        STEP(tc_set_sharing_strategy, strategy);
        const bool shared = check("tc_tensor_share_memory_", tc_tensor_share_memory_(*src));
        tc_set_sharing_strategy(TC_SHARE_FILE_DESCRIPTOR);  // the next run starts with the default
        if (!shared) return;
        int32_t kind = 0, fd = -1;
        int64_t nb = 0, ndim = 0, shape[TC_MAX_DIMS] = {};
        char name[128] = {};
        STEP(tc_tensor_shared_handle, *src, &kind, &fd, &nb, name, 128, nullptr);
        STEP(tc_tensor_ndim, *src, &ndim);
        STEP(tc_tensor_shape, *src, shape, TC_MAX_DIMS);
        STEP(tc_tensor_from_shared, kind, fd, name, nb, shape, nullptr, ndim, 0, TC_FLOAT64, back);
      }
      STEP(tc_optimizer_zero_grad, opt_);
    }

    // The shape, creation and matrix ops: forward (einsum's bmm, flip's and
    // pad's gathers, roll's cat, repeat's copy) and backward through them,
    // then the creation and random ops.
    {
      tc_tensor *e = slot(), *f = slot(), *pd = slot(), *pc = slot(), *rl = slot(), *rp = slot(),
                *sum = slot();
      tc_tensor ops2[] = {*x, *w1};
      STEP(tc_einsum, "ij,jk->ik", ops2, 2, e);
      const int64_t d0[] = {0}, pads[] = {1, 2}, crop[] = {-1, 2, 1, 0}, shifts[] = {3}, d1[] = {1},
                    reps[] = {2, 1};
      // The exact GELU keeps Phi(x) for its backward (float32 with grad): one more allocation, walked.
      tc_tensor* ge = slot();
      STEP(tc_gelu, *e, ge);
      STEP(tc_flip, *ge, d0, 1, f);
      STEP(tc_pad, *f, pads, 2, TC_PAD_REFLECT, 0.0, pd);
      STEP(tc_pad, *pd, crop, 4, TC_PAD_CONSTANT, 1.5, pc);
      STEP(tc_roll, *pc, shifts, 1, d1, 1, rl);
      STEP(tc_repeat, *rl, reps, 2, rp);
      STEP(tc_sum, *rp, nullptr, 0, 0, sum);
      STEP(tc_backward, *sum, nullptr, 0);
      STEP(tc_optimizer_zero_grad, opt_);
      tc_tensor *eye = slot(), *lin = slot(), *ri = slot(), *perm = slot(), *bern = slot(), *dg = slot();
      STEP(tc_eye, 40, -1, TC_FLOAT32, TC_CPU, eye);
      STEP(tc_diag, *eye, 0, dg);
      STEP(tc_linspace, 0.0, 1.0, 40, TC_FLOAT32, TC_CPU, lin);
      STEP(tc_randint, 0, 10, xs, 2, TC_INT64, TC_CPU, ri);
      STEP(tc_randperm, 40, TC_INT64, TC_CPU, perm);
      STEP(tc_bernoulli_p, *x, 0.5, bern);
      tc_tensor* grid = slot();
      slot();  // meshgrid's second output goes into the next slot
      tc_tensor axes[] = {*lin, *dg};
      int64_t n_grid = 0;
      STEP(tc_meshgrid, axes, 2, TC_MESHGRID_IJ, grid, 2, &n_grid);
    }

    // Linear algebra (LAPACK): the inverse and log-determinant of
    // w1 w1^T + I, forward and backward.
    {
      tc_tensor *w1t = slot(), *gram = slot(), *eye = slot(), *spd = slot(), *inv = slot(), *info = slot(),
                *sign = slot(), *logabs = slot(), *s1 = slot(), *s2 = slot(), *total = slot();
      STEP(tc_transpose, *w1, 0, 1, w1t);
      STEP(tc_matmul, *w1, *w1t, gram);
      STEP(tc_eye, 32, -1, TC_FLOAT32, TC_CPU, eye);
      STEP(tc_add, *gram, *eye, spd);
      STEP(tc_linalg_inv_ex, *spd, 0, inv, info);
      STEP(tc_linalg_slogdet, *spd, sign, logabs);
      STEP(tc_sum, *inv, nullptr, 0, 0, s1);
      STEP(tc_sum, *logabs, nullptr, 0, 0, s2);
      STEP(tc_add, *s1, *s2, total);
      STEP(tc_backward, *total, nullptr, 0);
      STEP(tc_optimizer_zero_grad, opt_);
    }
    // The eigendecomposition of a general matrix, least squares (gelsd:
    // its singular values) and a Householder product on them, forward only.
    {
      tc_tensor *gram = slot(), *w1t = slot(), *ev = slot(), *evec = slot(), *x = slot(), *res = slot(),
                *rank = slot(), *sv = slot(), *q = slot();
      STEP(tc_transpose, *w1, 0, 1, w1t);
      STEP(tc_matmul, *w1, *w1t, gram);
      STEP(tc_linalg_eig, *gram, 1, ev, evec);
      STEP(tc_linalg_lstsq, *gram, *w1, -1.0, 2, x, res, rank, sv);
      STEP(tc_linalg_householder_product, *gram, *sv, q);
    }

    // A checkpoint: the model and the optimizer's state, to bytes and to a
    // file, and back (mapped and copied), the optimizer's state restored.
    tc_tensor_dict *model = dict_slot(), *state = dict_slot();
    STEP(tc_tensor_dict_create, model);
    STEP(tc_tensor_dict_set, *model, "w1", *w1);
    STEP(tc_tensor_dict_set, *model, "b1", *b1);
    STEP(tc_tensor_dict_set, *model, "w2", *w2);
    STEP(tc_optimizer_state_dict, opt_, state);
    for (tc_optimizer o : {rmsprop_, adagrad_}) {  // their state, saved and restored
      tc_tensor_dict* s = dict_slot();
      STEP(tc_optimizer_state_dict, o, s);
      STEP(tc_optimizer_load_state_dict, o, *s);
    }
    tc_tensor* bytes = slot();
    STEP(tc_save_safetensors_bytes, *state, bytes);
    void* data = nullptr;
    STEP(tc_tensor_data_ptr, *bytes, &data);
    int64_t nbytes = 0;
    STEP(tc_tensor_numel, *bytes, &nbytes);
    tc_tensor_dict *from_bytes = dict_slot(), *mapped = dict_slot(), *copied = dict_slot();
    STEP(tc_load_safetensors_buffer, data, nbytes, from_bytes);
    STEP(tc_optimizer_load_state_dict, opt_, *from_bytes);
    const std::string path = "/tmp/tc_oom_" + std::to_string(::getpid()) + ".safetensors";
    STEP(tc_save_safetensors, *model, path.c_str());
    STEP(tc_load_safetensors, path.c_str(), 0, mapped);
    STEP(tc_load_safetensors, path.c_str(), TC_LOAD_COPY, copied);

    // A parameter converted in place (Module.to(float64)): the optimizers'
    // state follows it (a cast of each slot) at their next step.
    {
      tc_tensor *w64 = slot(), *s2 = slot();
      STEP(tc_to_dtype, *w2, TC_FLOAT64, w64);
      STEP(tc_tensor_set_data, *w2, *w64);
      STEP(tc_sum, *w2, nullptr, 0, 0, s2);
      STEP(tc_backward, *s2, nullptr, 0);
      STEP(tc_optimizer_step, opt_);
      STEP(tc_optimizer_step, rmsprop_);
      STEP(tc_optimizer_zero_grad, opt_);
    }

    // A bidirectional LSTM over a short sequence (tc_rnn), forward and back through time.
    {
      const int64_t xs3[] = {3, 2, 4}, wih[] = {8, 4}, whh[] = {8, 2}, bs[] = {8};
      tc_tensor* seq = slot();
      STEP(tc_randn, xs3, 3, TC_FLOAT32, TC_CPU, seq);
      STEP(tc_tensor_set_requires_grad, *seq, 1);
      tc_tensor ws[8];
      for (int d = 0; d < 2; ++d) {
        tc_tensor *a = slot(), *b = slot(), *c = slot(), *e = slot();
        STEP(tc_randn, wih, 2, TC_FLOAT32, TC_CPU, a);
        STEP(tc_randn, whh, 2, TC_FLOAT32, TC_CPU, b);
        STEP(tc_randn, bs, 1, TC_FLOAT32, TC_CPU, c);
        STEP(tc_randn, bs, 1, TC_FLOAT32, TC_CPU, e);
        STEP(tc_tensor_set_requires_grad, *b, 1);
        ws[4 * d] = *a, ws[4 * d + 1] = *b, ws[4 * d + 2] = *c, ws[4 * d + 3] = *e;
      }
      tc_rnn_options ro{};
      ro.size = sizeof ro;
      ro.mode = TC_RNN_LSTM;
      ro.num_layers = 1;
      ro.has_biases = 1;
      ro.bidirectional = 1;
      tc_tensor *ro_out = slot(), *ro_h = slot(), *ro_c = slot(), *ro_sum = slot();
      STEP(tc_rnn, *seq, nullptr, nullptr, ws, 8, &ro, ro_out, ro_h, ro_c);
      STEP(tc_sum, *ro_out, nullptr, 0, 0, ro_sum);
      STEP(tc_backward, *ro_sum, nullptr, 0);
    }

    // The neural-network layers (ops/nn_layers.cpp): a small conv net's
    // forward and backward, running statistics updated in place.
    const int64_t imgs[] = {2, 4, 6, 6}, cts[] = {4, 2, 3, 3}, chs[] = {4};
    tc_tensor *img = slot(), *ctw = slot(), *rm = slot(), *rv = slot();
    STEP(tc_randn, imgs, 4, TC_FLOAT32, TC_CPU, img);
    STEP(tc_randn, cts, 4, TC_FLOAT32, TC_CPU, ctw);
    STEP(tc_zeros, chs, 1, TC_FLOAT32, TC_CPU, rm);
    STEP(tc_ones, chs, 1, TC_FLOAT32, TC_CPU, rv);
    STEP(tc_tensor_set_requires_grad, *img, 1);
    STEP(tc_tensor_set_requires_grad, *ctw, 1);
    tc_tensor *bn = slot(), *gn = slot(), *up = slot(), *ct = slot(), *mp = slot(), *mi = slot(),
              *ap = slot(), *aa = slot(), *ps = slot(), *nsum = slot();
    STEP(tc_batch_norm, *img, nullptr, nullptr, *rm, *rv, 1, 0.1, 1e-5, bn);
    STEP(tc_group_norm, *bn, 2, nullptr, nullptr, 1e-5, gn);
    tc_tensor* inn = slot();
    STEP(tc_instance_norm, *gn, nullptr, nullptr, *rm, *rv, 1, 0.1, 1e-5, inn);
    const int64_t up_size[] = {9, 7};
    STEP(tc_interpolate, *inn, up_size, nullptr, TC_INTERP_LINEAR, 0, up);
    const int64_t two[] = {2, 2}, one[] = {1, 1}, zero[] = {0, 0};
    STEP(tc_conv_transpose2d, *up, *ctw, nullptr, two, one, one, one, 1, ct);
    const int64_t k3[] = {3, 3};
    STEP(tc_max_pool2d_with_indices, *ct, k3, two, one, one, 1, mp, mi);
    STEP(tc_avg_pool2d_ex, *mp, two, nullptr, zero, 1, 0, 0, ap);
    // Adaptive pooling (ops/adaptive_pool.cpp), 2-D and 1-D, max and average.
    const int64_t three[] = {3, 3}, rows[] = {2, 2, 4}, planes[] = {2, 2, 2, 2};
    tc_tensor *am = slot(), *ami = slot(), *r3 = slot(), *m1 = slot(), *m1i = slot(), *a1 = slot(),
              *r4 = slot();
    STEP(tc_adaptive_max_pool2d, *ap, three, am, ami);
    STEP(tc_adaptive_avg_pool2d, *am, two, aa);
    STEP(tc_reshape, *aa, rows, 3, r3);
    STEP(tc_adaptive_max_pool1d, *r3, 6, m1, m1i);
    STEP(tc_adaptive_avg_pool1d, *m1, 4, a1);
    STEP(tc_reshape, *a1, planes, 4, r4);
    STEP(tc_pixel_unshuffle, *r4, 2, ps);
    STEP(tc_sum, *ps, nullptr, 0, 0, nsum);
    STEP(tc_backward, *nsum, nullptr, 0);

    // Anomaly mode (autograd/anomaly.cpp): each node's trace kept as it is
    // recorded, each gradient checked for NaN in backward. The guard turns it
    // off however the step ends (a failed STEP returns).
    {
      struct AnomalyOff {
        ~AnomalyOff() { tc_set_anomaly_mode(0, 1, nullptr, nullptr); }
      } off;
      STEP(tc_set_anomaly_mode, 1, 1, &anomaly_trace, nullptr);
      tc_tensor *an = slot(), *an_sq = slot(), *an_sum = slot();
      STEP(tc_randn, xs, 2, TC_FLOAT32, TC_CPU, an);
      STEP(tc_tensor_set_requires_grad, *an, 1);
      STEP(tc_mul, *an, *an, an_sq);
      STEP(tc_sum, *an_sq, nullptr, 0, 0, an_sum);
      STEP(tc_backward, *an_sum, nullptr, 0);
    }
    // 3-D convolutions (ops/conv_nd.cpp; oneDNN's buffers on the CPU):
    // conv3d, its transpose, backward through both.
    const int64_t vols[] = {2, 2, 3, 4, 4}, k3d[] = {3, 2, 2, 3, 3}, kt3d[] = {3, 2, 2, 2, 2};
    const int64_t one3[] = {1, 1, 1}, two3[] = {2, 2, 2}, pad3[] = {1, 0, 1};
    tc_tensor *vol = slot(), *w3 = slot(), *wt3 = slot(), *c3 = slot(), *t3 = slot(), *s3 = slot();
    STEP(tc_randn, vols, 5, TC_FLOAT32, TC_CPU, vol);
    STEP(tc_randn, k3d, 5, TC_FLOAT32, TC_CPU, w3);
    STEP(tc_randn, kt3d, 5, TC_FLOAT32, TC_CPU, wt3);
    STEP(tc_tensor_set_requires_grad, *vol, 1);
    STEP(tc_tensor_set_requires_grad, *w3, 1);
    STEP(tc_tensor_set_requires_grad, *wt3, 1);
    STEP(tc_conv3d, *vol, *w3, nullptr, one3, pad3, one3, 1, c3);
    STEP(tc_conv_transpose3d, *c3, *wt3, nullptr, two3, one3, one3, one3, 1, t3);
    STEP(tc_sum, *t3, nullptr, 0, 0, s3);
    STEP(tc_backward, *s3, nullptr, 0);

    // Saved-tensor hooks (autograd/saved_hooks.cpp): the saved tensors of
    // mul and exp go through pack (a copy) and unpack; the guard pops the
    // pair however the step ends.
    {
      struct PopHooks {
        bool pushed = false;
        ~PopHooks() {
          if (pushed) tc_saved_tensors_hooks_pop();
        }
      } pop;
      STEP(tc_saved_tensors_hooks_push, store_pack, store_unpack, store_free, &store_, nullptr);
      pop.pushed = true;
      tc_tensor *sv = slot(), *sv_sq = slot(), *sv_exp = slot(), *sv_sum = slot();
      STEP(tc_randn, xs, 2, TC_FLOAT32, TC_CPU, sv);
      STEP(tc_tensor_set_requires_grad, *sv, 1);
      STEP(tc_mul, *sv, *sv, sv_sq);
      STEP(tc_exp, *sv_sq, sv_exp);
      STEP(tc_sum, *sv_exp, nullptr, 0, 0, sv_sum);
      STEP(tc_backward, *sv_sum, nullptr, 0);
    }
  }
#undef STEP
};

class Oom : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!tc::alloc_hooks_compiled()) GTEST_SKIP() << "built without TC_TEST_HOOKS";
    if (!workload_available()) GTEST_SKIP() << "the workload's ops are not all defined yet";
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    ASSERT_EQ(tc_manual_seed(1), TC_OK);
    tensors0_ = flag("live_tensors");
    handles0_ = flag("live_handles");
  }
  void TearDown() override {
    if (IsSkipped()) return;
    tc_set_flag("fail_alloc_at", 0);
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
  int64_t tensors0_ = 0, handles0_ = 0;
};

TEST_F(Oom, EveryAllocationOfATrainingStepFailsCleanly) {
  // 1. Count the allocations of a clean run (twice: the count must be stable).
  const int64_t c0 = tc::alloc_count();
  Failure clean = Workload().run();
  ASSERT_EQ(clean.code, TC_OK) << clean.function << ": " << clean.message;
  const int64_t count = tc::alloc_count() - c0;
  const int64_t c1 = tc::alloc_count();
  ASSERT_EQ(Workload().run().code, TC_OK);
  ASSERT_EQ(tc::alloc_count() - c1, count) << "the workload's allocations are not deterministic";
  ASSERT_GT(count, 20) << "the workload hardly allocates: is Storage's inline buffer larger now?";
  EXPECT_EQ(flag("live_tensors"), tensors0_);
  EXPECT_EQ(flag("live_handles"), handles0_);

  // 2. Fail each allocation in turn.
  std::vector<std::string> where;
  for (int64_t n = 1; n <= count; ++n) {
    SCOPED_TRACE("allocation " + std::to_string(n) + " of " + std::to_string(count));
    ASSERT_EQ(tc_set_flag("fail_alloc_at", n), TC_OK);
    const Failure f = Workload().run();
    EXPECT_EQ(flag("fail_alloc_at"), 0) << "the injected failure never fired";
    EXPECT_EQ(f.code, TC_ERR_OUT_OF_MEMORY) << f.function << ": " << f.message;
    EXPECT_NE(f.message.find(f.function), std::string::npos)
        << "message does not name " << f.function << ": " << f.message;
    EXPECT_NE(f.message.find("out of memory"), std::string::npos) << f.message;
    EXPECT_EQ(flag("live_tensors"), tensors0_) << "after failing in " << f.function;
    EXPECT_EQ(flag("live_handles"), handles0_) << "after failing in " << f.function;
    where.push_back(f.function);
    if (HasFailure()) break;  // one broken point is enough to read
  }
  tc_set_flag("fail_alloc_at", 0);

  // 3. libtc still works, and gives the same allocation count.
  const int64_t c2 = tc::alloc_count();
  const Failure again = Workload().run();
  EXPECT_EQ(again.code, TC_OK) << again.function << ": " << again.message;
  EXPECT_EQ(tc::alloc_count() - c2, count);

  std::string summary;
  for (size_t i = 0; i < where.size(); ++i)
    if (i == 0 || where[i] != where[i - 1]) summary += (summary.empty() ? "" : " ") + where[i];
  std::printf("oom walk: %lld allocation-failure points walked; failing calls in order: %s\n",
              static_cast<long long>(count), summary.c_str());
}

// Failure points in tc_init itself (the environment variable's path): the
// Nth allocation from init fails, and tc_init reports it as such.
TEST(OomInit, EnvironmentVariableFailsTheFirstAllocationOfInit) {
  if (!tc::alloc_hooks_compiled()) GTEST_SKIP() << "built without TC_TEST_HOOKS";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("TC_FAIL_ALLOC_AT", "1", 1);
        const int32_t rc = tc_init(nullptr);
        const char* msg = "";
        tc_last_error(&msg);
        int32_t init = -1;
        tc_is_initialized(&init);
        std::fprintf(stderr, "tc_init -> %d (%s), initialized %d\n", rc, msg, init);
        unsetenv("TC_FAIL_ALLOC_AT");
        // Works again once the injected failure has fired.
        const int32_t rc2 = tc_init(nullptr);
        if (rc2 == TC_OK) tc_shutdown();
        std::exit(rc == TC_ERR_OUT_OF_MEMORY && init == 0 && rc2 == TC_OK ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "tc_init -> 7");
}

// Too-large requests are refused as OUT_OF_MEMORY (not a crash, not an
// abort), whether the size overflows int64 or the system refuses it.
TEST(OomHuge, HugeTensorsAreRefused) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  const int64_t before = flag("live_tensors");
  const int64_t shapes[][2] = {
      {int64_t(1) << 31, int64_t(1) << 31}, {int64_t(1) << 40, 16}, {int64_t(1) << 62, 4}};
  for (const auto& s : shapes) {
    tc_tensor t = nullptr;
    EXPECT_EQ(tc_empty(s, 2, TC_FLOAT64, TC_CPU, &t), TC_ERR_OUT_OF_MEMORY) << s[0] << " x " << s[1];
    EXPECT_EQ(t, nullptr);
  }
  EXPECT_EQ(flag("live_tensors"), before);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

}  // namespace
