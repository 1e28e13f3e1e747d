// The CPU's backend table (src/backend/backend.h): OpenMP/vectorized kernels, oneDNN
// for GEMM. Its methods are defined by area in src/cpu/*.cpp.
#pragma once
#include "backend/backend.h"
#include "cpu/kernel_list.h"

namespace tc::cpu {

class CpuBackend final : public Backend {
 public:
  CpuBackend() : Backend("cpu", false) {}

  // The methods that call the kernel set in use (cpu/kernels.cpp): the
  // elementwise maps and fused backward formulas, the generator and the
  // optimizer steps, the softmax family, losses, indexing, the transformer
  // primitives (cpu/kernel_list.h's FORWARD entries).
  TC_CPU_KERNELS(TC_CPU_KERNEL_OVERRIDE, TC_CPU_KERNEL_NONE)

  void copy(const Tensor& dst, const Tensor& src) const override;
  void fft(FftKind kind, const Tensor& out, const Tensor& in, bool inverse,
           double scale) const override;  // fft.cpp

  void reduce(ReduceKind op, const Tensor& out, const Tensor& a, double scale,
              bool inf_to_zero) const override;
  void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a,
                  int64_t dim) const override;

  void index_offsets_gather(const Tensor& out, const Tensor& a, const Tensor& offs) const override;
  void index_offsets_put(const Tensor& a, const Tensor& offs, const Tensor& values,
                         IndexPutMode mode) const override;
  int64_t count_nonzero(const Tensor& a) const override;
  void nonzero(const Tensor& out, const Tensor& a) const override;

  bool gelu_keeping_cdf(const Tensor& y, const Tensor& cdf, const Tensor& x) const override;

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

  void rmsprop_step(const Tensor& w, const Tensor& g, const Tensor& sq, const Tensor& gavg, const Tensor& buf,
                    const optim::RmspropStep& s) const override;  // cpu/optim_steps.cpp
  void adagrad_step(const Tensor& w, const Tensor& g, const Tensor& sum,
                    const optim::AdagradStep& s) const override;

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
