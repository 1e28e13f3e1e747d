// The CPU's backend table (src/backend/backend.h): OpenMP/vectorized kernels, oneDNN
// for GEMM. Its methods are defined by area in src/cpu/*.cpp.
#pragma once
#include "backend/backend.h"

namespace tc::cpu {

class CpuBackend final : public Backend {
 public:
  CpuBackend() : Backend("cpu", false) {}

  void binary(ops::BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) const override;
  void binary_scalar(ops::ScalarOp op, const Tensor& out, const Tensor& a, double s) const override;
  void unary(ops::UnaryOp op, const Tensor& out, const Tensor& a, double p, double q) const override;
  void clamp(const Tensor& out, const Tensor& a, double lo, double hi) const override;
  void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) const override;
  void grad2(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x,
             const ew::GradParams& p) const override;
  void grad3(ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y) const override;
  void copy(const Tensor& dst, const Tensor& src) const override;
  void fft(FftKind kind, const Tensor& out, const Tensor& in, bool inverse,
           double scale) const override;  // fft.cpp

  void reduce(ReduceKind op, const Tensor& out, const Tensor& a, double scale,
              bool inf_to_zero) const override;
  void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a,
                  int64_t dim) const override;
  void softmax(const Tensor& y, const Tensor& x, int64_t dim, bool log) const override;
  void softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim,
                        bool log) const override;

  int64_t first_out_of_range(const Tensor& index, int64_t bound) const override;
  int64_t read_index(const Tensor& index, int64_t pos) const override;
  void index_gather(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index,
                    bool index_select) const override;
  void index_scatter_add(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& index,
                         bool index_select) const override;
  void one_hot(const Tensor& out, const Tensor& index, int64_t classes) const override;
  void index_offsets_gather(const Tensor& out, const Tensor& a, const Tensor& offs) const override;
  void index_offsets_put(const Tensor& a, const Tensor& offs, const Tensor& values,
                         IndexPutMode mode) const override;
  int64_t count_nonzero(const Tensor& a) const override;
  void nonzero(const Tensor& out, const Tensor& a) const override;

  void norm_forward(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,
                    const Tensor& b, double eps) const override;
  void norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g, const Tensor& x,
                     const Tensor& mean, const Tensor& rstd, const Tensor& w) const override;
  void causal_softmax(const Tensor& y, const Tensor& x, double scale) const override;
  void causal_softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y,
                               double scale) const override;
  bool gelu_keeping_cdf(const Tensor& y, const Tensor& cdf, const Tensor& x) const override;
  void gelu_backward_from_cdf(const Tensor& gx, const Tensor& g, const Tensor& x,
                              const Tensor& cdf) const override;
  void triangle(const Tensor& out, const Tensor& a, int64_t diagonal, bool lower) const override;
  void cumsum(const Tensor& out, const Tensor& a, int64_t dim, bool reverse) const override;
  void topk(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k,
            bool largest) const override;
  int64_t multinomial(const Tensor& out, const Tensor& p, const Tensor& u, bool replacement) const override;

  // Sort, scans and search (cpu/sort_scan.cpp).
  void sort_rows(const Tensor& values, const Tensor& indices, const Tensor& a,
                 bool descending) const override;
  void prod_rows(const Tensor& out, const Tensor& a) const override;
  void kth_rows(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k,
                bool nan_first) const override;
  void mode_rows(const Tensor& values, const Tensor& indices, const Tensor& a) const override;
  void scan_rows(ScanKind kind, const Tensor& out, const Tensor& indices, const Tensor& a) const override;
  void scan_rows_backward(ScanKind kind, const Tensor& gx, const Tensor& g, const Tensor& a,
                          const Tensor& y) const override;
  int64_t unique_sorted(const Tensor& values, const Tensor& inverse, const Tensor& counts,
                        const Tensor& sorted, const Tensor& order) const override;
  void searchsorted(const Tensor& out, const Tensor& seq, const Tensor& values, bool right) const override;

  void batched_gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Dims& batch, const Dims& sa,
                    const Dims& sb, MatLayout la, MatLayout lb, int64_t m, int64_t n,
                    int64_t k) const override;
  void linear(const Tensor& out, const Tensor& x2, const Tensor& weight, const Tensor& bias) const override;
  Tensor column_sums(const Tensor& g2) const override;

  void conv2d(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias,
              const ConvGeom& g) const override;
  void conv2d_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& x, const Tensor& w,
                       const Tensor& gy, const ConvGeom& g) const override;
  void max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x, const PoolGeom& g) const override;
  void max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                           const PoolGeom& g) const override;
  void avg_pool2d(const Tensor& y, const Tensor& x, const PoolGeom& g) const override;
  void avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const PoolGeom& g) const override;
  // cpu/adaptive_pool.cpp
  void adaptive_avg_pool2d(const Tensor& y, const Tensor& x, const AdaptivePoolGeom& g) const override;
  void adaptive_avg_pool2d_backward(const Tensor& gx, const Tensor& gy,
                                    const AdaptivePoolGeom& g) const override;
  void adaptive_max_pool2d(const Tensor& y, const Tensor& argmax, const Tensor& x,
                           const AdaptivePoolGeom& g) const override;
  void adaptive_max_pool2d_backward(const Tensor& gx, const Tensor& gy, const Tensor& argmax,
                                    const AdaptivePoolGeom& g) const override;

  void fill_random(const Tensor& t, RandDist dist, double a, double b, uint64_t seed,
                   uint64_t offset) const override;
  void sgd_step(const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s) const override;
  void adam_step(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
                 const optim::AdamStep& s) const override;
  void rmsprop_step(const Tensor& w, const Tensor& g, const Tensor& sq, const Tensor& gavg, const Tensor& buf,
                    const optim::RmspropStep& s) const override;  // cpu/optim_steps.cpp
  void adagrad_step(const Tensor& w, const Tensor& g, const Tensor& sum,
                    const optim::AdagradStep& s) const override;

  void cross_entropy_forward(const Tensor& probs, const Tensor& losses, const Tensor& x,
                             const Tensor& target) const override;
  void nll_forward(const Tensor& losses, const Tensor& x, const Tensor& target) const override;
  void reduce_losses(const Tensor& out, const Tensor& losses, int32_t reduction) const override;
  void cross_entropy_backward(const Tensor& gx, const Tensor& probs, const Tensor& target, const Tensor& g,
                              int32_t reduction) const override;
  void nll_backward(const Tensor& gx, const Tensor& target, const Tensor& g,
                    int32_t reduction) const override;
  Tensor mse_loss(const Tensor& x, const Tensor& t, int32_t reduction) const override;
  Tensor mse_loss_backward(const Tensor& g, const Tensor& x, const Tensor& t,
                           int32_t reduction) const override;

  // Batch and group normalisation (cpu/norm_layers.cpp).
  void batch_norm_forward(const Tensor& y, const Tensor& mean, const Tensor& invstd,
                          const Tensor& var_unbiased, const Tensor& x, const Tensor& w, const Tensor& b,
                          double eps) const override;
  void batch_norm_apply(const Tensor& y, const Tensor& x, const Tensor& mean, const Tensor& invstd,
                        const Tensor& w, const Tensor& b) const override;
  void batch_norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                           const Tensor& x, const Tensor& mean, const Tensor& invstd, const Tensor& w,
                           bool training) const override;
  void group_norm_forward(const Tensor& y, const Tensor& mean, const Tensor& invstd, const Tensor& x,
                          const Tensor& w, const Tensor& b, int64_t groups, double eps) const override;
  void group_norm_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g,
                           const Tensor& x, const Tensor& mean, const Tensor& invstd, const Tensor& w,
                           int64_t groups) const override;
};

// The one instance (registered for TC_DEVICE_CPU on first use).
const CpuBackend& backend();

}  // namespace tc::cpu
