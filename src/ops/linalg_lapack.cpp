// torch.linalg's LAPACK-backed ops: argument checks with PyTorch's messages,
// batching (broadcast batch dims made contiguous), the kernels of the
// device's LinalgBackend (backend/linalg_backend.h), infos turned into
// PyTorch's errors, and one autograd node per op whose formula
// (linalg_backward.cpp) is composed of recorded ops.
#include <algorithm>
#include <string>

#include "autograd/engine.h"
#include "autograd/function.h"
#include "backend/linalg_backend.h"
#include "core/dtype.h"
#include "core/error.h"
#include "math/rows/unary_abs.h"
#include "math/rows/unary_log.h"
#include "math/rows/unary_sign.h"
#include "ops/linalg_ops.h"
#include "ops/nn_util.h"
#include "ops/ops.h"

namespace tc::ops::linalg {
namespace {

using tc::ops::detail::reshaped;
using tc::ops::detail::transposed_last2;

void check_input(const Tensor& a, const char* op, const char* arg = "A") {
  TC_CHECK(a->dtype == DType::f32 || a->dtype == DType::f64, TC_ERR_DTYPE, op,
           ": Expected a floating point or complex tensor as input. Got ", dtype_name(a->dtype),
           " (libtc computes float32 and float64)");
  TC_CHECK(a->ndim() >= 2, TC_ERR_SHAPE, op, ": The input tensor ", arg,
           " must have at least 2 dimensions. Got shape ", a->shape);
  linalg_backend_for(a->device);  // a device without a table refuses at the first kernel
}
void check_square(const Tensor& a, const char* op, const char* arg = "A") {
  check_input(a, op, arg);
  const int64_t n = a->ndim();
  TC_CHECK(a->shape[n - 1] == a->shape[n - 2], TC_ERR_SHAPE, op, ": ", arg,
           " must be batches of square matrices, but they are ", a->shape[n - 2], " by ", a->shape[n - 1],
           " matrices");
}

Dims batch_of(const Tensor& a) {
  Dims b = a->shape;
  b.resize(b.size() - 2);
  return b;
}
Dims with_matrix(const Dims& batch, int64_t r, int64_t c) {
  Dims d = batch;
  d.push_back(r);
  d.push_back(c);
  return d;
}
Dims with_vector(const Dims& batch, int64_t n) {
  Dims d = batch;
  d.push_back(n);
  return d;
}
const LinalgBackend& kernels(const Tensor& a) { return linalg_backend_for(a->device); }

// PyTorch's "(Batch element i): " prefix for batched inputs.
std::string batch_prefix(const Tensor& a, int64_t i) {
  return a->ndim() > 2 ? str("(Batch element ", i, "): ") : std::string();
}
// The first non-zero info (index, code), or (-1, 0).
std::pair<int64_t, int32_t> first_failure(const Tensor& info_any) {
  const Tensor info = tc::to_device(info_any, kCPU);  // cuSOLVER writes them on the GPU
  const int32_t* p = info->data_as<int32_t>();
  for (int64_t i = 0; i < info->numel(); ++i)
    if (p[i] != 0) return {i, p[i]};
  return {-1, 0};
}
void check_singular(const Tensor& a, const Tensor& info, const char* op, const char* what) {
  auto [i, code] = first_failure(info);
  TC_CHECK(i < 0, TC_ERR_INVALID_ARGUMENT, op, ": ", batch_prefix(a, i), "The diagonal element ", code,
           " is zero, the ", what, " could not be completed because the input matrix is singular.");
}

Tensor mT(const Tensor& t) { return ops::transpose(t, -2, -1); }

// A shape as PyTorch prints it in these messages: 3x3, 2x4x1.
std::string shape_x(const Dims& d) {
  std::string s;
  for (int64_t i = 0; i < d.size(); ++i) s += (i ? "x" : "") + std::to_string(d[i]);
  return s;
}

// The raw LU factorization of a copy of square or rectangular a.
struct Lu {
  Tensor lu, pivots, info;
};
Lu factor(const Tensor& a) {
  const int64_t m = a->shape[a->ndim() - 2], n = a->shape[a->ndim() - 1];
  const Dims batch = batch_of(a);
  Lu f{clone_data(a), empty(with_vector(batch, std::min(m, n)), DType::i32, a->device),
       zeros(batch, DType::i32, a->device)};
  if (f.lu->numel() > 0) kernels(a).lu_factor(f.lu, f.pivots, f.info);
  return f;
}

// +1 / -1 per matrix: the parity of LAPACK's row swaps.
Tensor permutation_sign(const Tensor& pivots, DType dtype) {
  const Dims batch = batch_of(ops::unsqueeze(pivots, -1));
  Tensor s = empty(batch, DType::f64, kCPU);
  const int64_t k = pivots->shape[pivots->ndim() - 1];
  const Tensor host = tc::to_device(tc::contiguous(pivots), kCPU);
  const int32_t* p = host->data_as<int32_t>();
  double* ps = s->data_as<double>();
  for (int64_t b = 0; b < s->numel(); ++b) {
    int swaps = 0;
    for (int64_t i = 0; i < k; ++i) swaps += p[b * k + i] != i + 1;
    ps[b] = swaps % 2 ? -1.0 : 1.0;
  }
  return cast(tc::to_device(s, pivots->device), dtype);
}

// Solves A X = B for matrices B [..., n, k] (A [..., n, n]), batch dims broadcast.
std::pair<Tensor, Tensor> solve_matrix(const Tensor& a, const Tensor& b, bool check_errors, const char* op) {
  const int64_t n = a->shape[a->ndim() - 1], k = b->shape[b->ndim() - 1];
  TC_CHECK(b->shape[b->ndim() - 2] == n, TC_ERR_SHAPE, op,
           ": Incompatible shapes of A and B for the equation ", "AX = B (", shape_x(a->shape), " and ",
           shape_x(b->shape), ")");
  const Dims batch = broadcast_shapes(batch_of(a), batch_of(b), op);
  Tensor work = clone_data(ops::expand(ops::detach(a), with_matrix(batch, n, n)));
  Tensor info = zeros(batch, DType::i32, a->device);
  Tensor x = clone_data(ops::expand(ops::detach(b), with_matrix(batch, n, k)));
  if (work->numel() > 0 && x->numel() > 0) {
    kernels(a).solve(work, x, info);
  } else if (work->numel() > 0) {  // no right-hand side: the factorization still reports singularity
    Lu f = factor(work);
    info = f.info;
  }
  if (check_errors) {
    const int64_t i = first_failure(info).first;
    TC_CHECK(i < 0, TC_ERR_INVALID_ARGUMENT, "torch.linalg.solve: ", batch_prefix(a, i),
             "The solver failed because the input matrix is singular.");
  }
  const Dims ashape = a->shape, bshape = b->shape;
  autograd::record_function(
      "LinalgSolveExBackward0", {a, b}, {x}, {a, autograd::alias(x)},
      [ashape, bshape](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        if (!g[0]) return autograd::Grads{Tensor(), Tensor()};
        // gB = A^-T g; gA = -gB X^T, each summed over the dims it was broadcast along.
        // (Recorded ops: under create_graph X is read with its graph.)
        Tensor gb = solve_ex(mT(saved[0]), g[0], true, false).first;
        Tensor ga = ops::mul_scalar(ops::matmul(gb, mT(autograd::output_with_graph(saved[1]))), -1.0);
        return autograd::Grads{autograd::reduce_to_shape(ga, ashape), autograd::reduce_to_shape(gb, bshape)};
      });
  return {x, info};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& a, bool pivot, bool check_errors) {
  const char* op = "torch.linalg.lu_factor";
  check_input(a, op);
  TC_CHECK(pivot, TC_ERR_NOT_IMPLEMENTED, op, ": LU without pivoting is not implemented on the CPU");
  Lu f = factor(a);
  if (check_errors) {
    auto [i, code] = first_failure(f.info);
    TC_CHECK(
        i < 0, TC_ERR_INVALID_ARGUMENT, op, ": ", batch_prefix(a, i), "U[", code, ",", code,
        "] is zero and using it on lu_solve would result in a division by zero. If you still want to ",
        "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
  }
  const int64_t m = a->shape[a->ndim() - 2], n = a->shape[a->ndim() - 1];
  if (m == n)
    autograd::record_function(
        "LinalgLuFactorExBackward0", {a}, {f.lu}, {autograd::alias(f.lu), f.pivots},
        [m](const autograd::Grads& g, const std::vector<Tensor>& saved) {
          if (!g[0]) return autograd::Grads{Tensor()};
          const Tensor packed = autograd::output_with_graph(saved[0]);  // with its graph under create_graph
          Tensor l = ops::add(ops::tril(packed, -1), eye(m, m, packed->dtype, packed->device));
          Tensor u = ops::triu(packed, 0);
          Tensor p = detail::pivots_to_permutation(saved[1], m, packed->dtype);
          return autograd::Grads{detail::lu_backward(ops::tril(g[0], -1), ops::triu(g[0], 0), p, l, u)};
        });
  else if (a->requires_grad)
    autograd::record_function(
        "LinalgLuFactorExBackward0", {a}, {f.lu}, {},
        [](const autograd::Grads&, const std::vector<Tensor>&) -> autograd::Grads {
          fail(TC_ERR_NOT_IMPLEMENTED,
               "linalg.lu_factor: the derivative is implemented for square matrices only");
        });
  return {f.lu, f.pivots, f.info};
}

std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& a, bool pivot) {
  const char* op = "linalg.lu";
  check_input(a, op);
  TC_CHECK(pivot, TC_ERR_NOT_IMPLEMENTED, op, ": LU without pivoting is not implemented on the CPU");
  const int64_t m = a->shape[a->ndim() - 2], n = a->shape[a->ndim() - 1], k = std::min(m, n);
  Lu f = factor(a);
  Tensor p = detail::pivots_to_permutation(f.pivots, m, a->dtype);
  Tensor l = tc::contiguous(ops::tril(ops::narrow(f.lu, -1, 0, k), -1));
  if (k > 0) ops::add_(ops::narrow(l, -2, 0, k), eye(k, k, a->dtype, a->device));
  Tensor u = tc::contiguous(ops::triu(ops::narrow(f.lu, -2, 0, k), 0));
  if (m == n)
    autograd::record_function("LinalgLuBackward0", {a}, {l, u}, {p, autograd::alias(l), autograd::alias(u)},
                              [](const autograd::Grads& g, const std::vector<Tensor>& saved) {
                                return autograd::Grads{detail::lu_backward(
                                    g[0], g[1], saved[0], autograd::output_with_graph(saved[1], 0),
                                    autograd::output_with_graph(saved[2], 1))};  // l, u
                              });
  else if (a->requires_grad)
    autograd::record_function("LinalgLuBackward0", {a}, {l, u}, {},
                              [](const autograd::Grads&, const std::vector<Tensor>&) -> autograd::Grads {
                                fail(TC_ERR_NOT_IMPLEMENTED,
                                     "linalg.lu: the derivative is implemented for square matrices only");
                              });
  return {p, l, u};
}

Tensor lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  check_square(lu, op, "LU");
  check_input(b, op, "B");
  tc::ops::detail::check_same_dtype(lu, b, op, "LU", "B");
  TC_CHECK(pivots->dtype == DType::i32, TC_ERR_DTYPE, op, ": pivots must be int32 but is ",
           dtype_name(pivots->dtype));
  const int64_t n = lu->shape[lu->ndim() - 1];
  TC_CHECK(pivots->ndim() == lu->ndim() - 1 && pivots->shape[pivots->ndim() - 1] == n, TC_ERR_SHAPE, op,
           ": pivots of shape ", pivots->shape, " do not match LU of shape ", lu->shape);
  {  // LAPACK would index out of the matrix with a bad pivot
    const Tensor pc = tc::to_device(tc::contiguous(pivots), kCPU);
    const int32_t* pp = pc->data_as<int32_t>();
    for (int64_t i = 0; i < pc->numel(); ++i)
      TC_CHECK(pp[i] >= 1 && pp[i] <= n, TC_ERR_INVALID_ARGUMENT, op, ": pivots must be between 1 and ", n,
               " (LAPACK's 1-based row swaps) but pivot ", i, " is ", pp[i]);
  }
  if (!left) return mT(linalg::lu_solve(lu, pivots, mT(b), true, !adjoint));
  TC_CHECK(b->shape[b->ndim() - 2] == n, TC_ERR_SHAPE, op,
           ": Incompatible shapes of A and B for the equation ", "AX = B (", shape_x(lu->shape), " and ",
           shape_x(b->shape), ")");
  const int64_t k = b->shape[b->ndim() - 1];
  const Dims batch = broadcast_shapes(batch_of(lu), batch_of(b), op);
  Tensor lu_c = tc::contiguous(ops::expand(ops::detach(lu), with_matrix(batch, n, n)));
  Tensor piv_c = tc::contiguous(ops::expand(pivots, with_vector(batch, n)));
  Tensor x = clone_data(ops::expand(ops::detach(b), with_matrix(batch, n, k)));
  if (x->numel() > 0) kernels(lu).lu_solve(lu_c, piv_c, x, adjoint);
  const Dims lshape = lu->shape, bshape = b->shape;
  autograd::record_function(
      "LinalgLuSolveBackward0", {lu, b}, {x}, {lu, pivots, autograd::alias(x)},
      [lshape, bshape, adjoint, n](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        if (!g[0]) return autograd::Grads{Tensor(), Tensor()};
        const Tensor &packed = saved[0], &piv = saved[1], xx = autograd::output_with_graph(saved[2]);
        // X = op(A)^-1 B: gB = op(A)^-T g; gA = -gB X^T (op = I) or -X gB^T (op = T).
        Tensor gb = linalg::lu_solve(packed, piv, g[0], true, !adjoint);
        Tensor ga = ops::mul_scalar(adjoint ? ops::matmul(xx, mT(gb)) : ops::matmul(gb, mT(xx)), -1.0);
        // A = P L U: gL = tril(P^T gA U^T, -1), gU = triu(L^T P^T gA), packed into one matrix.
        Tensor l = ops::add(ops::tril(packed, -1), eye(n, n, packed->dtype, packed->device));
        Tensor u = ops::triu(packed, 0);
        Tensor ptga = ops::matmul(mT(detail::pivots_to_permutation(piv, n, packed->dtype)), ga);
        Tensor glu =
            ops::add(ops::tril(ops::matmul(ptga, mT(u)), -1), ops::triu(ops::matmul(mT(l), ptga), 0));
        return autograd::Grads{autograd::reduce_to_shape(glu, lshape), autograd::reduce_to_shape(gb, bshape)};
      });
  return x;
}

std::pair<Tensor, Tensor> inv_ex(const Tensor& a, bool check_errors) {
  const char* op = "linalg.inv";
  check_square(a, op);
  Tensor x = clone_data(a);
  Tensor info = zeros(batch_of(a), DType::i32, a->device);
  if (x->numel() > 0) kernels(a).inverse(x, info);
  if (first_failure(info).first >= 0) {
    // Singular: the info and message name the pivot of A's own LU, as PyTorch's.
    Lu f = factor(a);
    if (check_errors) check_singular(a, f.info, op, "inversion");
    kernels(a).lu_inverse(f.lu, f.pivots);
    x = f.lu;
    info = f.info;
  }
  autograd::record_function(
      "LinalgInvExBackward0", {a}, {x}, {autograd::alias(x)},
      [](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        return autograd::Grads{detail::inv_backward(g[0], autograd::output_with_graph(saved[0]))};
      });
  return {x, info};
}

Tensor det(const Tensor& a) {
  const char* op = "linalg.det";
  check_square(a, op);
  Lu f = factor(a);
  Tensor d =
      ops::mul(ops::prod(ops::diagonal(f.lu, 0, -2, -1), {-1}, false), permutation_sign(f.pivots, a->dtype));
  d = clone_data(d);
  autograd::record_function(
      "LinalgDetBackward0", {a}, {d}, {a, autograd::alias(d)},
      [](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        return autograd::Grads{detail::det_backward(g[0], saved[0], autograd::output_with_graph(saved[1]))};
      });
  return d;
}

std::pair<Tensor, Tensor> slogdet(const Tensor& a) {
  const char* op = "linalg.slogdet";
  check_square(a, op);
  Lu f = factor(a);
  Tensor diag = ops::diagonal(f.lu, 0, -2, -1);
  Tensor sign = clone_data(
      ops::mul(ops::prod(ops::unary(row::sign, diag), {-1}, false), permutation_sign(f.pivots, a->dtype)));
  Tensor logabs = clone_data(ops::sum(ops::unary(row::log, ops::unary(row::abs, diag)), {-1}, false));
  autograd::record_function("LinalgSlogdetBackward0", {a}, {sign, logabs}, {a},
                            [](const autograd::Grads& g, const std::vector<Tensor>& saved) {
                              return autograd::Grads{detail::slogdet_backward(g[1], saved[0])};
                            });
  return {sign, logabs};
}

std::pair<Tensor, Tensor> solve_ex(const Tensor& a, const Tensor& b, bool left, bool check_errors) {
  const char* op = "linalg.solve";
  check_square(a, op);
  TC_CHECK(b->dtype == a->dtype, TC_ERR_DTYPE, op,
           ": Expected A and B to have the same dtype, but found A of ", "type ", dtype_name(a->dtype),
           " and B of type ", dtype_name(b->dtype), " instead");
  TC_CHECK(b->ndim() >= 1, TC_ERR_SHAPE, op, ": The input tensor B must have at least 1 dimension");
  // PyTorch's rule: B is a (batch of) vector(s) when it is 1-D or has A's
  // shape without its last dim.
  Dims a_vec = a->shape;
  a_vec.resize(a_vec.size() - 1);
  const bool vector = b->ndim() == 1 || (b->ndim() == a->ndim() - 1 && b->shape == a_vec);
  Tensor bm = vector ? ops::unsqueeze(b, left ? -1 : -2) : b;
  std::pair<Tensor, Tensor> r;
  if (left) {
    r = solve_matrix(a, bm, check_errors, op);
  } else {  // X A = B: A^T X^T = B^T
    r = solve_matrix(mT(a), mT(bm), check_errors, op);
    r.first = mT(r.first);
  }
  if (vector) r.first = ops::squeeze(r.first, left ? -1 : -2);
  return r;
}

Tensor solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  check_square(a, op);
  check_input(b, op, "B");
  tc::ops::detail::check_same_dtype(a, b, op, "A", "B");
  if (!left) {  // X A = B: A^T X^T = B^T, A^T triangular the other way
    return mT(linalg::solve_triangular(mT(a), mT(b), !upper, true, unitriangular));
  }
  const int64_t n = a->shape[a->ndim() - 1], k = b->shape[b->ndim() - 1];
  TC_CHECK(b->shape[b->ndim() - 2] == n, TC_ERR_SHAPE, op,
           ": Incompatible shapes of A and B for the equation ", "AX = B (", shape_x(a->shape), " and ",
           shape_x(b->shape), ")");
  const Dims batch = broadcast_shapes(batch_of(a), batch_of(b), op);
  Tensor ac = tc::contiguous(ops::expand(ops::detach(a), with_matrix(batch, n, n)));
  Tensor x = clone_data(ops::expand(ops::detach(b), with_matrix(batch, n, k)));
  if (x->numel() > 0) kernels(a).triangular_solve(ac, x, upper, false, unitriangular);
  const Dims ashape = a->shape, bshape = b->shape;
  autograd::record_function(
      "LinalgSolveTriangularBackward0", {a, b}, {x}, {a, autograd::alias(x)},
      [ashape, bshape, upper, unitriangular](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        auto [ga, gb] = detail::triangular_solve_backward(
            g[0], saved[0], autograd::output_with_graph(saved[1]), upper, true, unitriangular);
        return autograd::Grads{ga ? autograd::reduce_to_shape(ga, ashape) : ga,
                               gb ? autograd::reduce_to_shape(gb, bshape) : gb};
      });
  return x;
}

std::pair<Tensor, Tensor> cholesky_ex(const Tensor& a, bool upper, bool check_errors) {
  const char* op = "linalg.cholesky";
  check_square(a, op);
  Tensor l = clone_data(a);
  Tensor info = zeros(batch_of(a), DType::i32, a->device);
  if (l->numel() > 0) kernels(a).cholesky(l, upper, info);
  if (check_errors) {
    auto [i, code] = first_failure(info);
    TC_CHECK(
        i < 0, TC_ERR_INVALID_ARGUMENT, op, ": ", batch_prefix(a, i),
        "The factorization could not be completed because the input is not positive-definite (the leading "
        "minor of order ",
        code, " is not positive-definite).");
  }
  autograd::record_function(
      "LinalgCholeskyExBackward0", {a}, {l}, {autograd::alias(l)},
      [upper](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        return autograd::Grads{detail::cholesky_backward(g[0], autograd::output_with_graph(saved[0]), upper)};
      });
  return {l, info};
}

std::pair<Tensor, Tensor> qr(const Tensor& a, int32_t mode) {
  const char* op = "linalg.qr";
  check_input(a, op);
  TC_CHECK(mode == kQrReduced || mode == kQrComplete || mode == kQrR, TC_ERR_INVALID_ARGUMENT, op,
           ": qr received unrecognized mode ", mode, " but expected 0 (reduced), 1 (complete) or 2 (r)");
  const int64_t m = a->shape[a->ndim() - 2], n = a->shape[a->ndim() - 1], k = std::min(m, n);
  const Dims batch = batch_of(a);
  const int64_t kq = mode == kQrComplete ? m : k;
  Tensor q =
      mode == kQrR ? empty({0}, a->dtype, a->device) : empty(with_matrix(batch, m, kq), a->dtype, a->device);
  Tensor r = empty(with_matrix(batch, mode == kQrComplete ? m : k, n), a->dtype, a->device);
  if (a->numel() > 0) {
    kernels(a).qr(tc::contiguous(a), mode == kQrR ? Tensor() : q, r);
  } else {
    if (mode != kQrR) fill_(q, 0.0);
    fill_(r, 0.0);
    if (mode != kQrR && kq > 0 && m > 0) ops::copy_(q, eye(m, kq, a->dtype, a->device));
  }
  autograd::record_function(
      "LinalgQrBackward0", {a}, {q, r}, {autograd::alias(q), autograd::alias(r)},
      [mode](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        return autograd::Grads{detail::qr_backward(g[0], g[1], autograd::output_with_graph(saved[0], 0),
                                                   autograd::output_with_graph(saved[1], 1), mode)};
      });
  return {q, r};
}

namespace {
// gesdd: s always; u, vh when vectors (reduced or full).
std::tuple<Tensor, Tensor, Tensor> svd_raw(const Tensor& a, bool vectors, bool full) {
  const char* op = "linalg.svd";
  const int64_t m = a->shape[a->ndim() - 2], n = a->shape[a->ndim() - 1], k = std::min(m, n);
  const Dims batch = batch_of(a);
  Tensor s = empty(with_vector(batch, k), a->dtype, a->device);
  Tensor u = vectors ? empty(with_matrix(batch, m, full ? m : k), a->dtype, a->device) : Tensor();
  Tensor vh = vectors ? empty(with_matrix(batch, full ? n : k, n), a->dtype, a->device) : Tensor();
  Tensor info = zeros(batch, DType::i32, a->device);
  if (a->numel() > 0) {
    kernels(a).svd(tc::contiguous(a), u, s, vh, info);
    auto [i, code] = first_failure(info);
    TC_CHECK(i < 0 || code > 0, TC_ERR_INVALID_ARGUMENT, op, ": ", batch_prefix(a, i),
             "The algorithm failed to converge because the input matrix contained non-finite values.");
    TC_CHECK(i < 0, TC_ERR_INVALID_ARGUMENT, op, ": ", batch_prefix(a, i),
             "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
             "repeated singular values (error code: ",
             code, ").");
  } else if (vectors) {  // PyTorch: identity-like factors for empty inputs
    fill_(u, 0.0);
    fill_(vh, 0.0);
    if (u->shape[u->ndim() - 1] > 0 && m > 0)
      ops::copy_(u, eye(m, u->shape[u->ndim() - 1], a->dtype, a->device));
    if (vh->shape[vh->ndim() - 2] > 0 && n > 0)
      ops::copy_(vh, eye(vh->shape[vh->ndim() - 2], n, a->dtype, a->device));
  }
  return {u, s, vh};
}
}  // namespace

namespace {
// The SVD's node, its formula reading the factors with their graph
// (output_with_graph) so that it differentiates again.
void record_svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, bool full_matrices) {
  autograd::record_function("LinalgSvdBackward0", {a}, {u, s, vh},
                            {autograd::alias(u), autograd::alias(s), autograd::alias(vh)},
                            [full_matrices](const autograd::Grads& g, const std::vector<Tensor>& saved) {
                              return autograd::Grads{detail::svd_backward(
                                  g[0], g[1], g[2], autograd::output_with_graph(saved[0], 0),
                                  autograd::output_with_graph(saved[1], 1),
                                  autograd::output_with_graph(saved[2], 2), full_matrices)};
                            });
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& a, bool full_matrices) {
  check_input(a, "linalg.svd");
  auto [u, s, vh] = svd_raw(a, true, full_matrices);
  record_svd(a, u, s, vh, full_matrices);
  return {u, s, vh};
}

Tensor svdvals(const Tensor& a) {
  check_input(a, "linalg.svdvals");
  // Under grad, as PyTorch's svdvals (_linalg_svd with compute_uv): the
  // singular vectors are computed and are unreturned outputs of the SVD's
  // node, so that a second differentiation reaches them.
  const bool grad = autograd::needs_grad({a});
  auto [u, s, vh] = svd_raw(a, grad, false);
  if (grad) record_svd(a, u, s, vh, false);
  return s;
}

namespace {
std::pair<Tensor, Tensor> eigh_raw(const Tensor& a, bool upper, bool vectors, const char* op) {
  check_square(a, op);
  const int64_t n = a->shape[a->ndim() - 1];
  Tensor v = clone_data(a);
  Tensor w = empty(with_vector(batch_of(a), n), a->dtype, a->device);
  Tensor info = zeros(batch_of(a), DType::i32, a->device);
  if (v->numel() > 0) {
    kernels(a).eigh(v, w, upper, vectors, info);
    auto [i, code] = first_failure(info);
    TC_CHECK(i < 0, TC_ERR_INVALID_ARGUMENT, op, ": ", batch_prefix(a, i),
             "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
             "repeated eigenvalues (error code: ",
             code, ").");
  }
  return {w, v};
}

// eigh's node, its formula reading w and v with their graph.
void record_eigh(const Tensor& a, const Tensor& w, const Tensor& v) {
  autograd::record_function(
      "LinalgEighBackward0", {a}, {w, v}, {autograd::alias(w), autograd::alias(v)},
      [](const autograd::Grads& g, const std::vector<Tensor>& saved) {
        return autograd::Grads{detail::eigh_backward(g[0], g[1], autograd::output_with_graph(saved[0], 0),
                                                     autograd::output_with_graph(saved[1], 1))};
      });
}
}  // namespace

std::pair<Tensor, Tensor> eigh(const Tensor& a, bool upper) {
  auto [w, v] = eigh_raw(a, upper, true, "linalg.eigh");
  record_eigh(a, w, v);
  return {w, v};
}

Tensor eigvalsh(const Tensor& a, bool upper) {
  // Under grad, as PyTorch's eigvalsh (_linalg_eigh with compute_v): the
  // eigenvectors are an unreturned output of eigh's node.
  const bool grad = autograd::needs_grad({a});
  auto [w, v] = eigh_raw(a, upper, grad, "linalg.eigvalsh");
  if (grad) record_eigh(a, w, v);
  return w;
}

}  // namespace tc::ops::linalg
