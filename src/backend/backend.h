// What a device implements: the compute primitives the ops and the autograd
// engine run, as one table of virtual functions per device type, looked up by
// a tensor's device (backend_for). The ops check arguments, promote dtypes,
// allocate outputs and record autograd nodes; a backend only computes. The
// CPU's table (src/cpu/backend.cpp) is always there; CUDA's (src/cuda/
// cuda_backend.cpp) is registered by the lazy cuda stage of a CUDA build.
// Nothing here names a CUDA type, and the ops include no cpu/ or cuda/
// kernel header, so the CUDA table can later come from a dlopen'ed module.
//
// A primitive a backend does not override is TC_ERR_NOT_IMPLEMENTED naming
// it and the device (or, where noted, a generic form built from the ops).
// Unless noted: every tensor is on the backend's device; inputs have any
// strides and broadcast to out's shape (stride 0); out may alias an input;
// outputs the ops allocate are contiguous.
#pragma once
#include <atomic>
#include <cstdint>

#include "core/tensor.h"
#include "math/adaptive_pool.h"
#include "math/conv_geom.h"
#include "math/index_put.h"
#include "math/op_kinds.h"
#include "math/optim_math.h"
#include "math/philox.h"
#include "math/reduce_kind.h"

namespace tc {

// How a strided 2-D block (rows x cols, element strides rs, cs) can be handed
// to a GEMM without copying: row-major (trans = false) or the transpose of a
// row-major matrix (trans = true), leading dimension ld; usable is false when
// neither works (the caller copies). Defined in src/backend/mat_layout.cpp.
struct MatLayout {
  bool usable = false;
  bool trans = false;
  int64_t ld = 0;
};
MatLayout mat_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs);

// The kinds of batched 1-D discrete Fourier transform (Backend::fft).
enum class FftKind : int32_t { c2c, r2c, c2r };

struct Backend {
  // computes_half: float16/bfloat16 are computed (in float), not only
  // converted; the ops' dtype checks read it (a data member: no call).
  Backend(const char* device_name, bool computes_half) : name(device_name), computes_half(computes_half) {}
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  const char* const name;
  const bool computes_half;

  // ---- elementwise map ----
  // out = a (op) b. Arithmetic: a, b, out of one dtype; comparisons: out bool.
  virtual void binary(ops::BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) const;
  // out = a (op) s; a and out of one floating dtype.
  virtual void binary_scalar(ops::ScalarOp op, const Tensor& out, const Tensor& a, double s) const;
  // out = op(a) with the row's parameters p, q; out of a's dtype, or bool for
  // the ops with bool results.
  virtual void unary(ops::UnaryOp op, const Tensor& out, const Tensor& a, double p, double q) const;
  // out = a clamped to [lo, hi] (NaN: no bound); one numeric dtype.
  virtual void clamp(const Tensor& out, const Tensor& a, double lo, double hi) const;
  // out = cond ? a : b; cond bool, a, b, out of one dtype.
  virtual void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) const;
  // Backward formulas (ew::Grad): out = f(g, x) or f(g, x, y); one floating dtype.
  virtual void grad2(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x,
                     const ew::GradParams& p) const;
  virtual void grad3(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) const;

  // ---- copy / cast / fill ----
  // dst = src converted to dst's dtype, src broadcast to dst's shape.
  virtual void copy(const Tensor& dst, const Tensor& src) const;
  // Every element of self = value (converted as copies convert). Generic form:
  // a copy from a broadcast one-element tensor.
  virtual void fill(const Tensor& self, double value) const;

  // ---- reductions and the softmax family ----
  // out has a's shape with the reduced dims 1. sum: out is a's dtype for
  // floating a (times scale), int64 otherwise; max/min: a's dtype, and
  // inf_to_zero replaces an infinite result by 0 (logsumexp's shift).
  virtual void reduce(ReduceKind op, const Tensor& out, const Tensor& a, double scale,
                      bool inf_to_zero) const;
  // Along dim: values (may be null) and int64 indices of the first max/min.
  virtual void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a,
                          int64_t dim) const;
  virtual void softmax(const Tensor& y, const Tensor& x, int64_t dim, bool log) const;
  virtual void softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim,
                                bool log) const;

  // ---- index / gather / scatter / embedding ----
  // The first position of a contiguous int64 index outside [0, bound), or -1;
  // and the value at a position (the ops build the error messages).
  virtual int64_t first_out_of_range(const Tensor& index, int64_t bound) const;
  virtual int64_t read_index(const Tensor& index, int64_t pos) const;
  // gather (index_select false: index of out's shape) or index_select (index
  // 1-D, out's dim its length) along dim; index contiguous and checked.
  virtual void index_gather(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index,
                            bool index_select) const;
  // The adjoint: gi (zeros) += g scattered along dim at index, in index order.
  virtual void index_scatter_add(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& index,
                                 bool index_select) const;
  // out (int64 zeros [..., classes]) gets 1 at each checked index.
  virtual void one_hot(const Tensor& out, const Tensor& index, int64_t classes) const;

  // ---- advanced indexing (src/ops/indexing.cpp; kernels src/cpu/indexing.cpp, src/cuda/indexing.cu) ----
  // An element of a is a[offs[b] + s]: offs (int64, contiguous [nb]) the
  // storage offsets of the indexed dims, a a view over the sliced dims [S...].
  // gather: out [nb, S...] (any strides) = a[offs[b] + s]; any dtype.
  virtual void index_offsets_gather(const Tensor& out, const Tensor& a, const Tensor& offs) const;
  // put: a[offs[b] + s] (mode)= values[b, s] (values [nb, S...], a's dtype,
  // any strides). One location is only reached from one s (the sliced and the
  // indexed dims are distinct and a is writable), so a backend may run the s
  // in parallel and takes the b of one s in order: duplicates are
  // deterministic (last writer wins, sums in index order).
  virtual void index_offsets_put(const Tensor& a, const Tensor& offs, const Tensor& values,
                                 IndexPutMode mode) const;
  // The number of non-zero elements of a (any dtype, contiguous), and their
  // coordinates: out int64 [count, ndim], row-major order.
  virtual int64_t count_nonzero(const Tensor& a) const;
  virtual void nonzero(const Tensor& out, const Tensor& a) const;

  // ---- transformer and sampling primitives (contiguous operands) ----
  // Norms of the rows of x [R, C]: layer norm (mean non-null) or RMS norm
  // (mean null); y = xhat * w + b (w, b [C] or null); mean/rstd [R] get the
  // row's mean and 1/sqrt(var + eps) (1/sqrt(mean(x^2) + eps) for RMS).
  virtual void norm_forward(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                            const Tensor& w, const Tensor& b, double eps) const;
  // The wanted gradients (the others null) from g [R, C]: gx [R, C], gw, gb [C].
  virtual void norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                             const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& w) const;
  // Causal attention weights: over the last dim of x [..., L, S], row i:
  // y[j] = softmax_j(scale * x[j]) for j <= i, 0 for j > i (float dtypes).
  virtual void causal_softmax(const Tensor& y, const Tensor& x, double scale) const;
  // Its gradient: gx = scale * y * (g - sum_j g y) (0 where j > i).
  virtual void causal_softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y,
                                       double scale) const;
  // The exact GELU that keeps Phi(x) for its backward (PyTorch saves only x
  // and its backward evaluates erf again): y = x * Phi(x), cdf = Phi(x), the
  // gelu row's bits. Returns false, writing nothing, where this backend has
  // no such kernel for x's dtype (the op then records the row's formula).
  virtual bool gelu_keeping_cdf(const Tensor& y, const Tensor& cdf, const Tensor& x) const;
  // Its gradient from the kept Phi(x): gx = g * (cdf + x * phi(x)), the
  // row's backward bits (only after gelu_keeping_cdf returned true).
  virtual void gelu_backward_from_cdf(const Tensor& gx, const Tensor& g, const Tensor& x,
                                      const Tensor& cdf) const;
  // out = a's lower (j - i <= diagonal) or upper (j - i >= diagonal)
  // triangle over the last two dims, zeros elsewhere; any dtype.
  virtual void triangle(const Tensor& out, const Tensor& a, int64_t diagonal, bool lower) const;
  // out = the running sum of a along dim (from the end when reverse);
  // floating or int64.
  virtual void cumsum(const Tensor& out, const Tensor& a, int64_t dim, bool reverse) const;
  // Rows of a [..., n]: values/indices [..., k] of the k largest (smallest)
  // elements, sorted, NaN largest; numeric dtypes.
  virtual void topk(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k,
                    bool largest) const;
  // out (int64 [N, S]) = categories drawn from the weights p [N, C] with the
  // uniform numbers u (float64 [N, S], one per sample). Returns the first row
  // that is not a distribution, or -1.
  virtual int64_t multinomial(const Tensor& out, const Tensor& p, const Tensor& u, bool replacement) const;

  // ---- GEMM ----
  // out (contiguous [batch..., m, n], numel > 0) = a x b per batch entry;
  // sa/sb: the operands' batch strides aligned to `batch` (0 = broadcast);
  // la/lb: their matrix layouts (usable).
  virtual void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Dims& batch,
                            const Dims& sa, const Dims& sb, MatLayout la, MatLayout lb, int64_t m, int64_t n,
                            int64_t k) const;
  // out (contiguous [rows, outf], numel > 0) = x2 [rows, in] x weight^T (+ bias).
  virtual void linear(const Tensor& out, const Tensor& x2, const Tensor& weight, const Tensor& bias) const;
  // linear's bias gradient: the column sums of g2 [R, O] as a new [O].
  virtual Tensor column_sums(const Tensor& g2) const;
  // A matmul gradient summed over the batch dims it was broadcast along to
  // `shape`. Generic form: ops::sum_to_size.
  virtual Tensor matmul_sum_to(const Tensor& g, const Dims& shape) const;

  // ---- convolution and pooling (NCHW; contiguous inputs) ----
  // y (numel > 0) = conv2d(x, w) + bias (bias may be null).
  virtual void conv2d(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias,
                      const ConvGeom& g) const;
  // The gradients wanted (zeros; the others null) from gy, for g.n > 0.
  virtual void conv2d_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& x,
                               const Tensor& w, const Tensor& gy, const ConvGeom& g) const;
  // y and argmax (int64: the flat index of each maximum within its input plane).
  virtual void max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const PoolGeom& g) const;
  // gx (zeros) gets gy at the argmax positions.
  virtual void max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                                   const PoolGeom& g) const;
  // PyTorch's count_include_pad averages; gx (zeros) += the spread gradient.
  virtual void avg_pool2d(const Tensor& y, const Tensor& x, const PoolGeom& g) const;
  virtual void avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const PoolGeom& g) const;
  // Adaptive pooling of contiguous [planes, h, w] (math/adaptive_pool.h's
  // windows; g.planes * g.ho * g.wo > 0). Max: the first maximum of each
  // window, a NaN replaces it (the last NaN stays), argmax (int64) flat
  // within the plane. The backwards write all of gx (contiguous, any content
  // on entry): the window-spread gy / window size, or gy at the argmax.
  virtual void adaptive_avg_pool2d(const Tensor& y, const Tensor& x, const AdaptivePoolGeom& g) const;
  virtual void adaptive_avg_pool2d_backward(const Tensor& gx, const Tensor& gy,
                                            const AdaptivePoolGeom& g) const;
  virtual void adaptive_max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x,
                                   const AdaptivePoolGeom& g) const;
  virtual void adaptive_max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                                            const AdaptivePoolGeom& g) const;

  // ---- random ----
  // t (contiguous, floating, numel > 0): element i = sample i of the Philox
  // request starting at counter `offset`.
  virtual void fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed,
                           uint64_t offset) const;

  // ---- fused optimizer steps ----
  // w, g (, buf / m, v): contiguous, one floating dtype and numel; buf may be null.
  virtual void sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s) const;
  virtual void adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
                         const optim::AdamStep& s) const;
  // sq (, gavg, buf: may be null) / sum: the state, like w.
  virtual void rmsprop_step(const Tensor& w, const Tensor& g, const Tensor& sq, const Tensor& gavg,
                            const Tensor& buf, const optim::RmspropStep& s) const;
  virtual void adagrad_step(const Tensor& w, const Tensor& g, const Tensor& sum,
                            const optim::AdagradStep& s) const;

  // ---- losses ----
  // Rows of [N, C] logits x (a 1-D x is one row), checked contiguous targets:
  // probs ([N, C]) = softmax, losses (float64 [N]) = logsumexp - x[target].
  virtual void cross_entropy_forward(const Tensor& probs, const Tensor& losses, const Tensor& x,
                                     const Tensor& target) const;
  // losses (float64 [N]) = -x[i, target[i]].
  virtual void nll_forward(const Tensor& losses, const Tensor& x, const Tensor& target) const;
  // out: NONE: the [N] losses in out's dtype; MEAN/SUM: 0-dim.
  virtual void reduce_losses(const Tensor& out, const Tensor& losses, int32_t reduction) const;
  // gx ([N, C]) = (probs - onehot(target)) * g_i; g_i = g[i] (NONE), g (SUM), g / N (MEAN).
  virtual void cross_entropy_backward(const Tensor& gx, const Tensor& probs, const Tensor& target,
                                      const Tensor& g, int32_t reduction) const;
  // gx ([N, C], zeros) gets -g_i at [i, target[i]].
  virtual void nll_backward(const Tensor& gx, const Tensor& target, const Tensor& g, int32_t reduction) const;
  // mse_loss of same-shaped x and t (new output, unrecorded); and its input
  // gradient 2 (x - t) g_i. Generic forms: through the ops.
  virtual Tensor mse_loss(const Tensor& x, const Tensor& t, int32_t reduction) const;
  virtual Tensor mse_loss_backward(const Tensor& g, const Tensor& x, const Tensor& t,
                                   int32_t reduction) const;

  // ---- sort, scans and search (src/cpu/sort_scan.cpp) ----
  // Row primitives: a is contiguous [R, n] (the ops move the dim last), the
  // outputs are contiguous. Sorting is stable and puts NaN above every number.
  // values (a's dtype; may be null) and int64 indices of each row sorted.
  virtual void sort_rows(const Tensor& values, const Tensor& indices, const Tensor& a, bool descending) const;
  // out [R] = each row's product; a floating or int64 (wrapping).
  virtual void prod_rows(const Tensor& out, const Tensor& a) const;
  // values/indices [R]: each row's element of 0-based rank k in ascending
  // order (n > 0); with nan_first, a row holding NaN gives its first NaN.
  virtual void kth_rows(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k,
                        bool nan_first) const;
  // values/indices [R]: each row's most frequent value (the smallest of equally
  // frequent ones) and the index of its last occurrence (n > 0).
  virtual void mode_rows(const Tensor& values, const Tensor& indices, const Tensor& a) const;
  // out (a's dtype) = the running scan of each row; indices (int64) for max/min
  // (the last index reaching the value; a NaN sticks), null otherwise.
  virtual void scan_rows(ScanKind kind, const Tensor& out, const Tensor& indices, const Tensor& a) const;
  // gx = the gradient of the prod or logsumexp scan y = scan(a) given g (floating).
  virtual void scan_rows_backward(ScanKind kind, const Tensor& gx, const Tensor& g, const Tensor& a,
                                  const Tensor& y) const;
  // From sorted [n] (ascending, stable) and order [n] (int64, each sorted
  // element's source position): values [n] gets the distinct values first,
  // counts [n] their int64 counts, inverse [n] at each source position the
  // index of its value. Returns the number of distinct values.
  virtual int64_t unique_sorted(const Tensor& values, const Tensor& inverse, const Tensor& counts,
                                const Tensor& sorted, const Tensor& order) const;
  // out [R, k] (int64 or int32) = the insertion points of values [R, k] into
  // the rows of seq [S, m] (S = 1: one row for every row of values; else S = R).
  virtual void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, bool right) const;

  // ---- batch and group normalisation (CPU: src/cpu/norm_layers.cpp) ----
  // x, y, g, gx: contiguous, viewed as [N, C, S] (S: the product of the dims
  // after C); per-channel tensors [C] (w, b may be null); statistics in x's
  // dtype, accumulated in double. Generic forms: through the ops
  // (src/backend/backend_norm_defaults.cpp).
  // Training batch norm: mean, invstd [C] = 1 / sqrt(biased var + eps) over N
  // and S, var_unbiased [C] (null: not wanted), and y = (x - mean) invstd w + b.
  virtual void batch_norm_forward(const Tensor& y, const Tensor& mean, const Tensor& invstd,
                                  const Tensor& var_unbiased, const Tensor& x, const Tensor& w,
                                  const Tensor& b, double eps) const;
  // y = (x - mean) invstd w + b with the given mean, invstd [C] (evaluation).
  virtual void batch_norm_apply(const Tensor& y, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                                const Tensor& w, const Tensor& b) const;
  // The wanted gradients (the others null): gw = sum g xhat, gb = sum g over N
  // and S; gx = invstd w (g - mean(g) - xhat mean(g xhat)) when the statistics
  // were the batch's (training), invstd w g when they were constants.
  virtual void batch_norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                                   const Tensor& x, const Tensor& mean, const Tensor& invstd, const Tensor& w,
                                   bool training) const;
  // Group norm, groups dividing C: mean, invstd [N, groups] over each
  // sample's C / groups channels and S; y = xhat w + b per channel.
  virtual void group_norm_forward(const Tensor& y, const Tensor& mean, const Tensor& invstd, const Tensor& x,
                                  const Tensor& w, const Tensor& b, int64_t groups, double eps) const;
  virtual void group_norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                                   const Tensor& x, const Tensor& mean, const Tensor& invstd, const Tensor& w,
                                   int64_t groups) const;

  // ---- discrete Fourier transforms ----
  // Batched 1-D DFTs along the last dim of contiguous tensors, times scale:
  // c2c: in, out complex [..., n], exponent -1 (+1 when inverse); r2c: in
  // real [..., n], out complex [..., n/2 + 1], exponent -1; c2r: in complex
  // [..., n/2 + 1] (the non-redundant half of a Hermitian signal; the
  // imaginary parts of its first and, for even n, last entry are ignored),
  // out real [..., n], exponent +1. complex64/float32 or complex128/float64.
  virtual void fft(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) const;

 protected:
  [[noreturn]] void not_implemented(const char* primitive) const;
};

// ---- the registry: one table per device type ----
constexpr int32_t kMaxDeviceTypes = 8;

namespace detail {
extern std::atomic<const Backend*> g_backends[kMaxDeviceTypes];
const Backend& backend_slow(Device device);  // unregistered: registers the CPU, or throws
}  // namespace detail

// Installs (or, with nullptr, removes) the table of a device type; the CUDA
// stage calls it. The table must outlive every use.
void register_backend(int32_t device_type, const Backend* backend) noexcept;

// The backend computing on `device`. A device type with no table is
// TC_ERR_NOT_COMPILED (CUDA in a CPU-only build) or its stage's failure.
inline const Backend& backend_for(Device device) {
  const uint32_t type = uint32_t(device_type(device));
  if (type < uint32_t(kMaxDeviceTypes)) {
    const Backend* b = detail::g_backends[type].load(std::memory_order_acquire);
    if (b) return *b;
  }
  return detail::backend_slow(device);
}
inline const Backend& backend_for(const Tensor& t) { return backend_for(t->device); }

}  // namespace tc
