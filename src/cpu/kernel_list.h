// The CPU's per-instruction-set primitives, declared once. Each entry is
//   X(return type, name, (parameters), (arguments))
// and the list is expanded into: the KernelSet's function pointers
// (cpu/kernels.h), each set's declarations and table (cpu/kernel_table.cpp),
// and, for the FORWARD entries, CpuBackend's method declaration
// (cpu/cpu_backend.h) and its definition, which calls kernels().<name>
// (cpu/kernels.cpp). OWN entries have no CpuBackend method of the same
// signature: CpuBackend's own code calls them (reduce and arg_reduce in
// backend.cpp, column_sums in linalg.cpp, gelu_keeping_cdf in kernels.cpp).
//
// A new primitive of the sets: one entry here, its definition in a file of
// TC_CPU_DISPATCHED_SOURCES (CMakeLists.txt) inside tc::cpu::TC_CPU_ISA_NS,
// and, for a FORWARD entry, the method in backend/backend.h.
#pragma once
#include "backend/backend.h"
#include "cpu/reduce.h"

// clang-format off
#define TC_CPU_KERNELS(FORWARD, OWN)                                                                            \
  /* elementwise.cpp and the generated per-row kernels (cpu/rows/) */                                           \
  FORWARD(void, binary, (ops::BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b), (op, out, a, b)) \
  FORWARD(void, binary_scalar, (ops::ScalarOp op, const Tensor& out, const Tensor& a, double s), (op, out, a, s)) \
  FORWARD(void, unary, (ops::UnaryOp op, const Tensor& out, const Tensor& a, double p, double q),                \
          (op, out, a, p, q))                                                                                   \
  FORWARD(void, clamp, (const Tensor& out, const Tensor& a, double lo, double hi), (out, a, lo, hi))             \
  FORWARD(void, where, (const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b),                \
          (out, cond, a, b))                                                                                    \
  FORWARD(void, grad2, (ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const ew::GradParams& p), \
          (f, out, g, x, p))                                                                                    \
  FORWARD(void, grad3, (ew::Grad f, const Tensor& out, const Tensor& g, const Tensor& x, const Tensor& y),       \
          (f, out, g, x, y))                                                                                    \
  /* reduce.cpp */                                                                                              \
  OWN(void, reduce, (Reduce op, const Tensor& out, const Tensor& a), (op, out, a))                               \
  OWN(void, arg_reduce, (bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim), \
      (is_max, values, indices, a, dim))                                                                        \
  /* linear's bias gradient: out [cols] = the column sums of g2 [rows, cols] */                                  \
  OWN(void, column_sums, (const Tensor& out, const Tensor& g2), (out, g2))                                       \
  /* random_optim.cpp: the generator and the optimizer steps */                                                 \
  FORWARD(void, fill_random, (const Tensor& t, RandDist dist, double a, double b, uint64_t seed, uint64_t offset), \
          (t, dist, a, b, seed, offset))                                                                        \
  FORWARD(void, sgd_step, (const Tensor& w, const Tensor& g, const Tensor& buf, const optim::SgdStep& s),        \
          (w, g, buf, s))                                                                                       \
  FORWARD(void, adam_step,                                                                                      \
          (const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v, const optim::AdamStep& s),        \
          (w, g, m, v, s))                                                                                      \
  /* nn.cpp: the softmax family, losses, indexing */                                                            \
  FORWARD(void, softmax, (const Tensor& y, const Tensor& x, int64_t dim, bool log), (y, x, dim, log))            \
  FORWARD(void, softmax_backward, (const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim, bool log),   \
          (gx, g, y, dim, log))                                                                                 \
  FORWARD(void, cross_entropy_forward,                                                                          \
          (const Tensor& probs, const Tensor& losses, const Tensor& x, const Tensor& target),                   \
          (probs, losses, x, target))                                                                           \
  FORWARD(void, nll_forward, (const Tensor& losses, const Tensor& x, const Tensor& target), (losses, x, target)) \
  FORWARD(void, reduce_losses, (const Tensor& out, const Tensor& losses, int32_t reduction),                     \
          (out, losses, reduction))                                                                             \
  FORWARD(void, cross_entropy_backward,                                                                         \
          (const Tensor& gx, const Tensor& probs, const Tensor& target, const Tensor& g, int32_t reduction),    \
          (gx, probs, target, g, reduction))                                                                    \
  FORWARD(void, nll_backward, (const Tensor& gx, const Tensor& target, const Tensor& g, int32_t reduction),      \
          (gx, target, g, reduction))                                                                           \
  FORWARD(Tensor, mse_loss, (const Tensor& input, const Tensor& target, int32_t reduction),                      \
          (input, target, reduction))                                                                           \
  FORWARD(Tensor, mse_loss_backward,                                                                            \
          (const Tensor& g, const Tensor& input, const Tensor& target, int32_t reduction),                      \
          (g, input, target, reduction))                                                                        \
  FORWARD(int64_t, first_out_of_range, (const Tensor& index, int64_t bound), (index, bound))                     \
  FORWARD(int64_t, read_index, (const Tensor& index, int64_t pos), (index, pos))                                 \
  FORWARD(void, index_gather,                                                                                   \
          (const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index, bool index_select),            \
          (out, a, dim, index, index_select))                                                                   \
  FORWARD(void, index_scatter_add,                                                                              \
          (const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& index, bool index_select),             \
          (gi, g, dim, index, index_select))                                                                    \
  FORWARD(void, one_hot, (const Tensor& out, const Tensor& index, int64_t classes), (out, index, classes))       \
  /* transformer.cpp: norms, causal softmax, triangles, cumsum, topk, multinomial, gelu */                       \
  FORWARD(void, norm_forward,                                                                                   \
          (const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,           \
           const Tensor& b, double eps),                                                                        \
          (y, mean, rstd, x, w, b, eps))                                                                        \
  FORWARD(void, norm_backward,                                                                                  \
          (const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& g, const Tensor& x,              \
           const Tensor& mean, const Tensor& rstd, const Tensor& w),                                            \
          (gx, gw, gb, g, x, mean, rstd, w))                                                                    \
  FORWARD(void, causal_softmax, (const Tensor& y, const Tensor& x, double scale), (y, x, scale))                 \
  FORWARD(void, causal_softmax_backward, (const Tensor& gx, const Tensor& g, const Tensor& y, double scale),     \
          (gx, g, y, scale))                                                                                    \
  FORWARD(void, triangle, (const Tensor& out, const Tensor& a, int64_t diagonal, bool lower),                    \
          (out, a, diagonal, lower))                                                                            \
  FORWARD(void, cumsum, (const Tensor& out, const Tensor& a, int64_t dim, bool reverse), (out, a, dim, reverse)) \
  FORWARD(void, topk, (const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, bool largest),   \
          (values, indices, a, k, largest))                                                                     \
  FORWARD(int64_t, multinomial, (const Tensor& out, const Tensor& p, const Tensor& u, bool replacement),         \
          (out, p, u, replacement))                                                                             \
  /* float32 only: CpuBackend::gelu_keeping_cdf answers false for other dtypes */                               \
  OWN(void, gelu_keeping_cdf, (const Tensor& y, const Tensor& cdf, const Tensor& x), (y, cdf, x))                \
  FORWARD(void, gelu_backward_from_cdf, (const Tensor& gx, const Tensor& g, const Tensor& x, const Tensor& cdf),  \
          (gx, g, x, cdf))
// clang-format on

// Expansions for the list: nothing, a declaration, a CpuBackend override.
#define TC_CPU_KERNEL_NONE(ret, name, params, args)
#define TC_CPU_KERNEL_DECLARE(ret, name, params, args) ret name params;
#define TC_CPU_KERNEL_OVERRIDE(ret, name, params, args) ret name params const override;
