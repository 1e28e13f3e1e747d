// The default (generic or not-implemented) forms of the primitives
// (src/backend/backend.h). The CUDA module compiles its own copy (its table derives
// from Backend); the functions called here reach the core through the
// module's forwarders there (src/cuda/host_forward.cpp).
#include "backend/backend.h"
#include "backend/composite.h"
#include "core/init.h"
#include "math/scalar_op_enum.h"
#include "ops/ops.h"

namespace tc {

void Backend::not_implemented(const char* primitive) const {
  fail(TC_ERR_NOT_IMPLEMENTED, str(primitive, ": not implemented on ", name));
}

void Backend::binary(ops::BinaryOp, const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("binary");
}
void Backend::binary_scalar(ops::ScalarOp, const Tensor&, const Tensor&, double) const {
  not_implemented("binary_scalar");
}
void Backend::unary(ops::UnaryOp, const Tensor&, const Tensor&, double, double) const {
  not_implemented("unary");
}
void Backend::clamp(const Tensor&, const Tensor&, double, double) const { not_implemented("clamp"); }
void Backend::where(const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("where");
}
void Backend::grad2(ew::Grad, const Tensor&, const Tensor&, const Tensor&, const ew::GradParams&) const {
  not_implemented("backward formula");
}
void Backend::grad3(ew::Grad, const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("backward formula");
}
void Backend::copy(const Tensor&, const Tensor&) const { not_implemented("copy"); }
void Backend::fft(FftKind, const Tensor&, const Tensor&, bool, double) const { not_implemented("fft"); }
void Backend::fill(const Tensor& self, double value) const {
  // Through a one-element tensor of self's dtype, so every dtype (16-bit
  // floats included) converts the value the way copies do.
  Tensor v = scalar_tensor(value, self->dtype, self->device);
  copy_into(self, make_view(v, self->shape, Dims::filled(self->ndim(), 0), v->offset));
}
void Backend::reduce(ReduceKind, const Tensor&, const Tensor&, double, bool) const {
  not_implemented("reduce");
}
void Backend::arg_reduce(bool, const Tensor&, const Tensor&, const Tensor&, int64_t) const {
  not_implemented("arg_reduce");
}
void Backend::softmax(const Tensor&, const Tensor&, int64_t, bool) const { not_implemented("softmax"); }
void Backend::softmax_backward(const Tensor&, const Tensor&, const Tensor&, int64_t, bool) const {
  not_implemented("softmax_backward");
}
int64_t Backend::first_out_of_range(const Tensor&, int64_t) const { not_implemented("index check"); }
int64_t Backend::read_index(const Tensor&, int64_t) const { not_implemented("index read"); }
void Backend::index_gather(const Tensor&, const Tensor&, int64_t, const Tensor&, bool) const {
  not_implemented("index_gather");
}
void Backend::index_scatter_add(const Tensor&, const Tensor&, int64_t, const Tensor&, bool) const {
  not_implemented("index_scatter_add");
}
void Backend::one_hot(const Tensor&, const Tensor&, int64_t) const { not_implemented("one_hot"); }
void Backend::index_offsets_gather(const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("index_offsets_gather");
}
void Backend::index_offsets_put(const Tensor&, const Tensor&, const Tensor&, IndexPutMode) const {
  not_implemented("index_offsets_put");
}
int64_t Backend::count_nonzero(const Tensor&) const { not_implemented("count_nonzero"); }
void Backend::nonzero(const Tensor&, const Tensor&) const { not_implemented("nonzero"); }
void Backend::norm_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                           const Tensor&, double) const {
  not_implemented("norm_forward");
}
void Backend::norm_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                            const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("norm_backward");
}
void Backend::causal_softmax(const Tensor&, const Tensor&, double) const {
  not_implemented("causal_softmax");
}
void Backend::causal_softmax_backward(const Tensor&, const Tensor&, const Tensor&, double) const {
  not_implemented("causal_softmax_backward");
}
bool Backend::gelu_keeping_cdf(const Tensor&, const Tensor&, const Tensor&) const { return false; }
void Backend::gelu_backward_from_cdf(const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("gelu_backward_from_cdf");
}
void Backend::triangle(const Tensor&, const Tensor&, int64_t, bool) const { not_implemented("triangle"); }
void Backend::cumsum(const Tensor&, const Tensor&, int64_t, bool) const { not_implemented("cumsum"); }
void Backend::topk(const Tensor&, const Tensor&, const Tensor&, int64_t, bool) const {
  not_implemented("topk");
}
int64_t Backend::multinomial(const Tensor&, const Tensor&, const Tensor&, bool) const {
  not_implemented("multinomial");
}
void Backend::batched_gemm(const Tensor&, const Tensor&, const Tensor&, const Dims&, const Dims&, const Dims&,
                           MatLayout, MatLayout, int64_t, int64_t, int64_t) const {
  not_implemented("gemm");
}
void Backend::linear(const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("linear");
}
Tensor Backend::column_sums(const Tensor&) const { not_implemented("column_sums"); }
Tensor Backend::matmul_sum_to(const Tensor& g, const Dims& shape) const { return ops::sum_to_size(g, shape); }
void Backend::conv2d(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const ConvGeom&) const {
  not_implemented("conv2d");
}
void Backend::conv2d_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                              const Tensor&, const ConvGeom&) const {
  not_implemented("conv2d backward");
}
void Backend::max_pool2d(const Tensor&, const Tensor&, const Tensor&, const PoolGeom&) const {
  not_implemented("max_pool2d");
}
void Backend::max_pool2d_backward(const Tensor&, const Tensor&, const Tensor&, const PoolGeom&) const {
  not_implemented("max_pool2d backward");
}
void Backend::avg_pool2d(const Tensor&, const Tensor&, const PoolGeom&) const {
  not_implemented("avg_pool2d");
}
void Backend::avg_pool2d_backward(const Tensor&, const Tensor&, const PoolGeom&) const {
  not_implemented("avg_pool2d backward");
}
void Backend::adaptive_avg_pool2d(const Tensor&, const Tensor&, const AdaptivePoolGeom&) const {
  not_implemented("adaptive_avg_pool2d");
}
void Backend::adaptive_avg_pool2d_backward(const Tensor&, const Tensor&, const AdaptivePoolGeom&) const {
  not_implemented("adaptive_avg_pool2d backward");
}
void Backend::adaptive_max_pool2d(const Tensor&, const Tensor&, const Tensor&,
                                  const AdaptivePoolGeom&) const {
  not_implemented("adaptive_max_pool2d");
}
void Backend::adaptive_max_pool2d_backward(const Tensor&, const Tensor&, const Tensor&,
                                           const AdaptivePoolGeom&) const {
  not_implemented("adaptive_max_pool2d backward");
}
void Backend::fill_random(const Tensor&, RandDist, double, double, uint64_t, uint64_t) const {
  not_implemented("fill_random");
}
void Backend::sgd_step(const Tensor&, const Tensor&, const Tensor&, const optim::SgdStep&) const {
  not_implemented("sgd_step");
}
void Backend::adam_step(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                        const optim::AdamStep&) const {
  not_implemented("adam_step");
}
void Backend::rmsprop_step(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                           const optim::RmspropStep&) const {
  not_implemented("rmsprop_step");
}
void Backend::adagrad_step(const Tensor&, const Tensor&, const Tensor&, const optim::AdagradStep&) const {
  not_implemented("adagrad_step");
}
void Backend::cross_entropy_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("cross_entropy");
}
void Backend::nll_forward(const Tensor&, const Tensor&, const Tensor&) const { not_implemented("nll_loss"); }
void Backend::reduce_losses(const Tensor&, const Tensor&, int32_t) const { not_implemented("reduce_losses"); }
void Backend::cross_entropy_backward(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                                     int32_t) const {
  not_implemented("cross_entropy_backward");
}
void Backend::nll_backward(const Tensor&, const Tensor&, const Tensor&, int32_t) const {
  not_implemented("nll_loss_backward");
}

// mse_loss through the ops: the squares summed by the deterministic
// reduction (float32 accumulating in double).
Tensor Backend::mse_loss(const Tensor& x, const Tensor& t, int32_t reduction) const {
  NoGradGuard ng;
  Tensor d = composite::sub(x, t);
  Tensor sq = composite::mul(d, d);
  if (reduction == TC_REDUCTION_NONE) return sq;
  return reduction == TC_REDUCTION_MEAN ? ops::mean(sq, {}, false) : ops::sum(sq, {}, false);
}
// 2 (x - t) g_i, with g_i = g (none), g (sum) or g / n (mean).
Tensor Backend::mse_loss_backward(const Tensor& g, const Tensor& x, const Tensor& t,
                                  int32_t reduction) const {
  Tensor gi =
      reduction == TC_REDUCTION_MEAN ? ops::binary_scalar(ops::ScalarOp::div, g, double(x->numel())) : g;
  return composite::mul(composite::mul_scalar(composite::sub(x, t), 2.0), gi);
}

// Sort, scans and search.
void Backend::sort_rows(const Tensor&, const Tensor&, const Tensor&, bool) const {
  not_implemented("sort_rows");
}
void Backend::prod_rows(const Tensor&, const Tensor&) const { not_implemented("prod_rows"); }
void Backend::kth_rows(const Tensor&, const Tensor&, const Tensor&, int64_t, bool) const {
  not_implemented("kth_rows");
}
void Backend::mode_rows(const Tensor&, const Tensor&, const Tensor&) const { not_implemented("mode_rows"); }
void Backend::scan_rows(ScanKind, const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("scan_rows");
}
void Backend::scan_rows_backward(ScanKind, const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_implemented("scan_rows_backward");
}
int64_t Backend::unique_sorted(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                               const Tensor&) const {
  not_implemented("unique_sorted");
}
void Backend::searchsorted(const Tensor&, const Tensor&, const Tensor&, bool) const {
  not_implemented("searchsorted");
}

}  // namespace tc
