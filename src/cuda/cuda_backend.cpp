// CUDA's backend table (src/backend/backend.h): the primitives forward to the kernels
// of src/cuda/*.cu and to cuBLAS. Registered for TC_DEVICE_CUDA by the cuda
// stage (src/cuda/backend.cpp) once it succeeds; the core reaches CUDA only
// through this table and the DeviceHooks, so the two could be one dlopen'ed
// module.
#include "backend/backend.h"
#include "core/device_hooks.h"
#include "cuda/adaptive_pool.h"
#include "cuda/blas.h"
#include "cuda/cudnn.h"
#include "cuda/elementwise.h"
#include "cuda/fft.h"
#include "cuda/indexing.h"
#include "cuda/optim.h"
#include "cuda/pool.h"
#include "cuda/random.h"
#include "cuda/reduce.h"
#include "cuda/sort_scan.h"

namespace tc::cuda {

namespace {

// Element `index` of t's storage, counted from t's first element.
void* element_ptr(const Tensor& t, int64_t index) {
  return static_cast<char*>(t->data()) + index * t->itemsize();
}

// The CUDA form of batched_gemm: out (contiguous [batch..., m, n]) =
// (or += with beta 1) a x b. Batch dims whose strides chain are merged so
// that most products are one strided-batched cuBLAS call.
void cuda_batched_gemm(const Tensor& a, const Tensor& b, const Tensor& out, const Dims& batch, const Dims& sa,
                       const Dims& sb, MatLayout la, MatLayout lb, int64_t m, int64_t n, int64_t k,
                       double beta) {
  Dims sizes, stra, strb;  // the batch without its size-1 dims
  for (int64_t d = 0; d < batch.size(); ++d) {
    if (batch[d] == 1) continue;
    sizes.push_back(batch[d]);
    stra.push_back(sa[d]);
    strb.push_back(sb[d]);
  }
  const int64_t nb = sizes.size();
  int64_t inner = 1, ia = 0, ib = 0, first = nb;
  if (nb > 0) {
    first = nb - 1;
    inner = sizes[first];
    ia = stra[first];
    ib = strb[first];
    while (first > 0 && stra[first - 1] == ia * inner && strb[first - 1] == ib * inner) {
      --first;
      inner *= sizes[first];
    }
  }
  const int64_t outer = numel_of(sizes) / inner;
  for (int64_t o = 0; o < outer; ++o) {
    int64_t oa = 0, ob = 0;
    for (int64_t d = first - 1, idx = o; d >= 0; --d) {
      const int64_t j = idx % sizes[d];
      idx /= sizes[d];
      oa += j * stra[d];
      ob += j * strb[d];
    }
    cuda::gemm(a->dtype, device_index(a->device), la.trans, lb.trans, m, n, k, element_ptr(a, oa), la.ld, ia,
               element_ptr(b, ob), lb.ld, ib, beta, element_ptr(out, o * inner * m * n), n, m * n, inner);
  }
}

// out (contiguous [rows, outf]) = x2 [rows, in] x weight^T (+ bias in every
// row, put there first by a rank-1 GEMM: ones [rows, 1] x bias [1, outf]).
void cuda_linear(const Tensor& x2, const Tensor& weight, const Tensor& bias, const Tensor& out, int64_t rows,
                 int64_t in, int64_t outf) {
  const DType dt = out->dtype;
  const int32_t dev = device_index(out->device);
  double beta = 0;
  if (bias) {
    Tensor ones_col = ones({rows, 1}, dt, out->device);
    Tensor bc = tc::contiguous(bias);
    cuda::gemm(dt, dev, false, false, rows, outf, 1, ones_col->data(), 1, 0, bc->data(), outf, 0, 0.0,
               out->data(), outf, 0, 1);
    beta = 1;
  }
  if (in == 0) {  // an empty sum: the bias, or zeros
    if (!bias) require_cuda(dev).memset_zero(out->data(), dev, out->numel() * out->itemsize());
    return;
  }
  Tensor x = x2;
  auto lx = mat_layout(rows, in, x->strides[0], x->strides[1]);
  if (!lx.usable) {
    x = tc::contiguous(x);
    lx = mat_layout(rows, in, x->strides[0], x->strides[1]);
  }
  Tensor w = weight;
  auto lw = mat_layout(in, outf, w->strides[1], w->strides[0]);
  if (!lw.usable) {
    w = tc::contiguous(weight);
    lw = mat_layout(in, outf, w->strides[1], w->strides[0]);
  }
  cuda::gemm(dt, dev, lx.trans, lw.trans, rows, outf, in, x->data(), lx.ld, 0, w->data(), lw.ld, 0, beta,
             out->data(), outf, 0, 1);
}

class CudaBackend final : public Backend {
 public:
  CudaBackend() : Backend("cuda", true) {}

  void binary(ops::BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) const override {
    cuda::binary(op, out, a, b);
  }
  void binary_scalar(ops::ScalarOp op, const Tensor& out, const Tensor& a, double s) const override {
    cuda::binary_scalar(op, out, a, s);
  }
  void unary(ops::UnaryOp op, const Tensor& out, const Tensor& a, double p, double q) const override {
    cuda::unary(op, out, a, p, q);
  }
  void clamp(const Tensor& out, const Tensor& a, double lo, double hi) const override {
    cuda::clamp(out, a, lo, hi);
  }
  void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) const override {
    cuda::where(out, cond, a, b);
  }
  void grad2(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x,
             const ew::GradParams& p) const override {
    cuda::grad2(f, out, g, x, p);
  }
  void grad3(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x,
             const Tensor& y) const override {
    cuda::grad3(f, out, g, x, y);
  }
  void copy(const Tensor& dst, const Tensor& src) const override { cuda::copy(dst, src); }
  void fft(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) const override {
    cuda::fft(kind, out, in, inverse, scale);
  }
  void fill(const Tensor& self, double value) const override {
    if (!self->is_contiguous()) return Backend::fill(self, value);
    // One fill kernel with the element's bytes, converted on the host.
    const Tensor one = scalar_tensor(value, self->dtype, kCPU);
    const int32_t dev = device_index(self->device);
    if (self->numel() > 0)
      require_cuda(dev).fill(self->data(), dev, self->numel(), self->itemsize(), one->data());
  }

  void reduce(ReduceKind op, const Tensor& out, const Tensor& a, double scale,
              bool inf_to_zero) const override {
    cuda::reduce(op, out, a, scale, inf_to_zero);
  }
  void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a,
                  int64_t dim) const override {
    cuda::arg_reduce(is_max, values, indices, a, dim);
  }
  void softmax(const Tensor& y, const Tensor& x, int64_t dim, bool log) const override {
    cuda::softmax(y, x, dim, log);
  }
  void softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim,
                        bool log) const override {
    cuda::softmax_backward(gx, g, y, dim, log);
  }

  int64_t first_out_of_range(const Tensor& index, int64_t bound) const override {
    return cuda::first_out_of_range(index, bound);
  }
  int64_t read_index(const Tensor& index, int64_t pos) const override { return cuda::read_index(index, pos); }
  void index_gather(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index,
                    bool index_select) const override {
    cuda::index_gather(out, a, dim, index, index_select);
  }
  void index_scatter_add(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& index,
                         bool index_select) const override {
    cuda::index_scatter_add(gi, g, dim, index, index_select);
  }
  void one_hot(const Tensor& out, const Tensor& index, int64_t classes) const override {
    cuda::one_hot(out, index, classes);
  }
  void index_offsets_gather(const Tensor& out, const Tensor& a, const Tensor& offs) const override {
    cuda::index_offsets_gather(out, a, offs);
  }
  void index_offsets_put(const Tensor& a, const Tensor& offs, const Tensor& values,
                         IndexPutMode mode) const override {
    cuda::index_offsets_put(a, offs, values, mode);
  }
  int64_t count_nonzero(const Tensor& a) const override { return cuda::count_nonzero(a); }
  void nonzero(const Tensor& out, const Tensor& a) const override { cuda::nonzero(out, a); }

  // Sort, scans and search (cuda/sort_scan.cu).
  void sort_rows(const Tensor& values, const Tensor& indices, const Tensor& a,
                 bool descending) const override {
    cuda::sort_rows(values, indices, a, descending);
  }
  void prod_rows(const Tensor& out, const Tensor& a) const override { cuda::prod_rows(out, a); }
  void kth_rows(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k,
                bool nan_first) const override {
    cuda::kth_rows(values, indices, a, k, nan_first);
  }
  void mode_rows(const Tensor& values, const Tensor& indices, const Tensor& a) const override {
    cuda::mode_rows(values, indices, a);
  }
  void scan_rows(ScanKind kind, const Tensor& out, const Tensor& indices, const Tensor& a) const override {
    cuda::scan_rows(kind, out, indices, a);
  }
  void scan_rows_backward(ScanKind kind, const Tensor& gx, const Tensor& g, const Tensor& a,
                          const Tensor& y) const override {
    cuda::scan_rows_backward(kind, gx, g, a, y);
  }
  int64_t unique_sorted(const Tensor& values, const Tensor& inverse, const Tensor& counts,
                        const Tensor& sorted, const Tensor& order) const override {
    return cuda::unique_sorted(values, inverse, counts, sorted, order);
  }
  void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, bool right) const override {
    cuda::searchsorted(out, seq, values, right);
  }

  void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Dims& batch, const Dims& sa,
                    const Dims& sb, MatLayout la, MatLayout lb, int64_t m, int64_t n,
                    int64_t k) const override {
    if (k == 0) {  // an empty sum: zeros
      const int32_t dev = device_index(out->device);
      require_cuda(dev).memset_zero(out->data(), dev, out->numel() * out->itemsize());
      return;
    }
    cuda_batched_gemm(a, b, out, batch, sa, sb, la, lb, m, n, k, 0.0);
  }
  void linear(const Tensor& out, const Tensor& x2, const Tensor& weight, const Tensor& bias) const override {
    cuda_linear(x2, weight, bias, out, x2->shape[0], x2->shape[1], weight->shape[0]);
  }
  // Column sums as a GEMM: [1, R] ones x [R, O].
  Tensor column_sums(const Tensor& g2) const override {
    const int64_t rows = g2->shape[0], cols = g2->shape[1];
    Tensor gb = empty({1, cols}, g2->dtype, g2->device);
    if (cols > 0) {
      Tensor ones_row = ones({1, rows}, g2->dtype, g2->device);
      Tensor g = g2;
      MatLayout lg = mat_layout(rows, cols, g->strides[0], g->strides[1]);
      if (!lg.usable) {
        g = tc::contiguous(g2);
        lg = mat_layout(rows, cols, g->strides[0], g->strides[1]);
      }
      batched_gemm(gb, ones_row, g, Dims{}, Dims{}, Dims{}, mat_layout(1, rows, rows, 1), lg, 1, cols, rows);
    }
    return make_view(gb, {cols}, {1}, gb->offset);
  }
  // Each reduced dim is one batched GEMM: [outer][1, s] x [s, inner] with a ones row.
  Tensor matmul_sum_to(const Tensor& g, const Dims& shape) const override {
    if (g->shape == shape) return g;
    const int64_t lead = g->ndim() - shape.size();
    TC_CHECK(lead >= 0, TC_ERR_INTERNAL, "matmul: gradient shape ", g->shape, " has fewer dims than ", shape);
    if (numel_of(shape) == 0 || g->numel() == 0) return zeros(shape, g->dtype, g->device);
    Tensor cur = tc::contiguous(g);
    for (int64_t d = 0; d < g->ndim(); ++d) {
      const int64_t want = d < lead ? 1 : shape[d - lead];
      const int64_t s = cur->shape[d];
      if (s == want) continue;
      TC_CHECK(want == 1, TC_ERR_INTERNAL, "matmul: gradient shape ", g->shape, " does not broadcast from ",
               shape);
      int64_t outer = 1, inner = 1;
      for (int64_t i = 0; i < d; ++i) outer *= cur->shape[i];
      for (int64_t i = d + 1; i < cur->ndim(); ++i) inner *= cur->shape[i];
      Dims next_shape = cur->shape;
      next_shape[d] = 1;
      Tensor next = empty(next_shape, g->dtype, g->device);
      Tensor ones_row = ones({1, s}, g->dtype, g->device);
      // next[o] (1 x inner) = ones (1 x s) x cur[o] (s x inner).
      cuda::gemm(g->dtype, device_index(g->device), false, false, 1, inner, s, ones_row->data(), s, 0,
                 cur->data(), inner, s * inner, 0.0, next->data(), inner, inner, outer);
      cur = next;
    }
    return make_view(cur, shape, contiguous_strides(shape), cur->offset);
  }

  // libtc's kernels (src/cuda/pool.cu): the backward takes the argmax, which
  // cuDNN's pooling neither makes nor takes.
  void max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const PoolGeom& g) const override {
    cuda::max_pool2d(y, argmax, x, g);
  }
  void max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                           const PoolGeom& g) const override {
    cuda::max_pool2d_backward(gx, gy, argmax, g);
  }
#ifdef TC_HAVE_CUDNN
  // cuDNN (src/cuda/cudnn.cpp).
  void conv2d(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias,
              const ConvGeom& g) const override {
    cuda::conv2d(y, x, w, bias, g);
  }
  void conv2d_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& x, const Tensor& w,
                       const Tensor& gy, const ConvGeom& g) const override {
    cuda::conv2d_backward(gx, gw, gb, x, w, gy, g);
  }
#endif
  // cuDNN where it computes the geometry, else libtc's kernels (pool.cu).
  void avg_pool2d(const Tensor& y, const Tensor& x, const PoolGeom& g) const override {
#ifdef TC_HAVE_CUDNN
    if (cuda::plain_avg_pool(g)) return cuda::avg_pool2d(y, x, g);
#endif
    cuda::avg_pool2d_direct(y, x, g);
  }
  void avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const PoolGeom& g) const override {
#ifdef TC_HAVE_CUDNN
    if (cuda::plain_avg_pool(g)) return cuda::avg_pool2d_backward(gx, gy, g);
#endif
    cuda::avg_pool2d_direct_backward(gx, gy, g);
  }
  // libtc's kernels (adaptive_pool.cu).
  void adaptive_avg_pool2d(const Tensor& y, const Tensor& x, const AdaptivePoolGeom& g) const override {
    cuda::adaptive_avg_pool2d(y, x, g);
  }
  void adaptive_avg_pool2d_backward(const Tensor& gx, const Tensor& gy,
                                    const AdaptivePoolGeom& g) const override {
    cuda::adaptive_avg_pool2d_backward(gx, gy, g);
  }
  void adaptive_max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x,
                           const AdaptivePoolGeom& g) const override {
    cuda::adaptive_max_pool2d(y, argmax, x, g);
  }
  void adaptive_max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                                    const AdaptivePoolGeom& g) const override {
    cuda::adaptive_max_pool2d_backward(gx, gy, argmax, g);
  }

  void fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed,
                   uint64_t offset) const override {
    cuda::fill_random(t, dist, a, b, seed, offset);
  }
  void sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s) const override {
    cuda::sgd_step(w, g, buf, s);
  }
  void adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
                 const optim::AdamStep& s) const override {
    cuda::adam_step(w, g, m, v, s);
  }
  void rmsprop_step(const Tensor& w, const Tensor& g, const Tensor& sq, const Tensor& gavg, const Tensor& buf,
                    const optim::RmspropStep& s) const override {
    cuda::rmsprop_step(w, g, sq, gavg, buf, s);
  }
  void adagrad_step(const Tensor& w, const Tensor& g, const Tensor& sum,
                    const optim::AdagradStep& s) const override {
    cuda::adagrad_step(w, g, sum, s);
  }

  void cross_entropy_forward(const Tensor& probs, const Tensor& losses, const Tensor& x,
                             const Tensor& target) const override {
    cuda::cross_entropy_forward(probs, losses, x, target);
  }
  void nll_forward(const Tensor& losses, const Tensor& x, const Tensor& target) const override {
    cuda::nll_forward(losses, x, target);
  }
  void reduce_losses(const Tensor& out, const Tensor& losses, int32_t reduction) const override {
    cuda::reduce_losses(out, losses, reduction);
  }
  void cross_entropy_backward(const Tensor& gx, const Tensor& probs, const Tensor& target, const Tensor& g,
                              int32_t reduction) const override {
    cuda::cross_entropy_backward(gx, probs, target, g, reduction);
  }
  void nll_backward(const Tensor& gx, const Tensor& target, const Tensor& g,
                    int32_t reduction) const override {
    cuda::nll_backward(gx, target, g, reduction);
  }
  // mse_loss: the generic forms (through the ops, whose kernels are this table's).
};

}  // namespace

const Backend& backend_table() {
  static const CudaBackend instance;
  return instance;
}

}  // namespace tc::cuda
