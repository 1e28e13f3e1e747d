// matmul (torch.matmul's rules) and linear (x @ W^T + b as one op) on
// oneDNN's GEMM, and on cuBLAS for CUDA tensors (float32/64, and float16 and
// bfloat16 with fp32 accumulation). Operands are passed to the GEMM through
// their strides, so a transposed or sliced matrix costs no copy; only layouts
// GEMM cannot express (neither dim unit-stride, broadcast rows) are copied
// first. The GEMMs are the device backend's (src/backend/backend.h); on CUDA,
// backward's sums over broadcast dims are GEMMs with a ones vector too, so
// the whole op and its gradient stay on cuBLAS.
#include <algorithm>
#include <vector>

#include "autograd/node.h"
#include "backend/backend.h"
#include "core/dtype.h"
#include "core/init.h"
#include "ops/internal.h"
#include "ops/nn_util.h"
#include "ops/ops.h"

namespace tc::ops {
namespace {

using detail::reshaped;
using detail::transposed_last2;

// matmul/linear operands: float32/float64 on the CPU, any floating dtype on a
// backend computing 16-bit floats (CUDA).
void check_operand(const Tensor& t, const char* op, const char* arg) {
  if (backend_for(t).computes_half) {
    TC_CHECK(is_floating(t->dtype), TC_ERR_DTYPE, op, ": ", arg, " must be a floating tensor but is ",
             dtype_name(t->dtype));
  } else {
    detail::check_float(t, op, arg);
  }
}
void check_same_device(const Tensor& a, const Tensor& b, const char* op, const char* an, const char* bn) {
  TC_CHECK(a->device == b->device, TC_ERR_DEVICE, op, ": ", an, " is on ", device_name(a->device), " but ",
           bn, " is on ", device_name(b->device), " (they must be on one device)");
}

// When dims [first, last] of t merge into one dim with a single stride, that
// stride; else -1. Size-1 dims never block merging.
int64_t merged_stride(const Tensor& t, int64_t first, int64_t last) {
  int64_t stride = -1, expected = -1;
  for (int64_t d = last; d >= first; --d) {
    if (t->shape[d] == 1) continue;
    if (stride < 0) {
      stride = t->strides[d];
    } else if (t->strides[d] != expected) {
      return -1;
    }
    expected = t->strides[d] * t->shape[d];
  }
  return stride < 0 ? 1 : stride;
}

// t [..., r, c] as a 2-D [R, c] (R = product of the leading dims): a view when
// the leading dims merge, else a contiguous copy.
Tensor flatten_rows(const Tensor& t) {
  const int64_t n = t->ndim(), cols = t->shape[n - 1];
  int64_t rows = 1;
  for (int64_t d = 0; d < n - 1; ++d) rows *= t->shape[d];
  const int64_t rs = n >= 2 ? merged_stride(t, 0, n - 2) : cols;
  if (rs >= 0 && mat_layout(rows, cols, rs, t->strides[n - 1]).usable)
    return make_view(t, {rows, cols}, {rs, t->strides[n - 1]}, t->offset);
  return reshaped(t, {rows, cols});
}

Dims broadcast_batch(const Dims& a, const Dims& b, const char* op, const Dims& as, const Dims& bs) {
  const int64_t n = std::max(a.size(), b.size());
  Dims out = Dims::filled(n, 1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ai = i - (n - a.size()), bi = i - (n - b.size());
    const int64_t x = ai >= 0 ? a[ai] : 1, y = bi >= 0 ? b[bi] : 1;
    TC_CHECK(x == y || x == 1 || y == 1, TC_ERR_SHAPE, op, ": batch dims of a ", as, " and b ", bs,
             " do not broadcast (", x, " vs ", y, ")");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// a [..., M, K] times b [..., K, N] (both >= 2-D, any strides) with broadcast
// batch dims: a new contiguous [batch..., M, N]. Never recorded.
Tensor bmm_raw(Tensor a, Tensor b, const char* op) {
  const int64_t na = a->ndim(), nb = b->ndim();
  const int64_t m = a->shape[na - 2], k = a->shape[na - 1], n = b->shape[nb - 1];
  TC_CHECK(b->shape[nb - 2] == k, TC_ERR_SHAPE, op, ": a of shape ", a->shape, " and b of shape ", b->shape,
           " cannot be multiplied (", k, " columns vs ", b->shape[nb - 2], " rows)");
  const Dims ba(a->shape.data(), na - 2), bb(b->shape.data(), nb - 2);
  const Dims batch = broadcast_batch(ba, bb, op, a->shape, b->shape);
  Dims out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  Tensor out = empty(out_shape, a->dtype, a->device);
  if (out->numel() == 0) return out;

  // A batched a times an unbatched b is one tall GEMM when a's rows merge.
  if (numel_of(bb) == 1 && na > 2 && numel_of(ba) == numel_of(batch)) {
    const int64_t rs = merged_stride(a, 0, na - 2);
    if (rs >= 0 && mat_layout(numel_of(ba) * m, k, rs, a->strides[na - 1]).usable) {
      Tensor a2 = make_view(a, {numel_of(ba) * m, k}, {rs, a->strides[na - 1]}, a->offset);
      Tensor b2 = make_view(b, {k, n}, {b->strides[nb - 2], b->strides[nb - 1]}, b->offset);
      Tensor o2 = bmm_raw(a2, b2, op);
      o2->shape = out_shape;
      o2->strides = contiguous_strides(out_shape);
      return o2;
    }
  }
  auto la = mat_layout(m, k, a->strides[na - 2], a->strides[na - 1]);
  if (!la.usable) {
    a = tc::contiguous(a);
    la = mat_layout(m, k, a->strides[na - 2], a->strides[na - 1]);
  }
  auto lb = mat_layout(k, n, b->strides[nb - 2], b->strides[nb - 1]);
  if (!lb.usable) {
    b = tc::contiguous(b);
    lb = mat_layout(k, n, b->strides[nb - 2], b->strides[nb - 1]);
  }
  // Batch strides aligned to the broadcast batch (0 where an operand has 1).
  const int64_t nbatch = batch.size();
  Dims sa = Dims::filled(nbatch, 0), sb = Dims::filled(nbatch, 0);
  for (int64_t i = 0; i < nbatch; ++i) {
    const int64_t ai = i - (nbatch - (na - 2)), bi = i - (nbatch - (nb - 2));
    if (ai >= 0 && a->shape[ai] != 1) sa[i] = a->strides[ai];
    if (bi >= 0 && b->shape[bi] != 1) sb[i] = b->strides[bi];
  }
  backend_for(out).batched_gemm(out, a, b, batch, sa, sb, la, lb, m, n, k);
  return out;
}

// Sums g over the dims where it was broadcast from `shape` (autograd's
// reduce_to_shape; on CUDA each reduced dim is one batched GEMM).
Tensor sum_to(const Tensor& g, const Dims& shape) { return backend_for(g).matmul_sum_to(g, shape); }

// The 2-D form of a matmul operand: a 1-D a is a row [1, K], a 1-D b a column
// [K, 1] (views, no copy).
Tensor as_matrix(const Tensor& t, bool is_left) {
  if (t->ndim() != 1) return t;
  const int64_t k = t->shape[0], s = t->strides[0];
  return is_left ? make_view(t, {1, k}, {k * s, s}, t->offset) : make_view(t, {k, 1}, {s, 1}, t->offset);
}

struct MatmulBackward : autograd::Node {
  autograd::SavedTensor a_saved, b_saved;
  const char* node_name;
  explicit MatmulBackward(const char* n) : node_name(n) {}
  const char* name() const override { return node_name; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    a_saved.release();
    b_saved.release();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor a = a_saved.unpack(name()), b = b_saved.unpack(name());
    if (detail::creating_graph()) return recorded(a, b, grads[0]);
    Tensor a2 = as_matrix(a, true), b2 = as_matrix(b, false);
    // The gradient in the 2-D-operand form: [batch..., M, N].
    const Dims ba(a2->shape.data(), a2->ndim() - 2), bb(b2->shape.data(), b2->ndim() - 2);
    Dims g_shape = broadcast_batch(ba, bb, name(), a->shape, b->shape);
    g_shape.push_back(a2->shape[a2->ndim() - 2]);
    g_shape.push_back(b2->shape[b2->ndim() - 1]);
    // The products below read g through its strides: a gradient already of
    // that shape is not copied (attention's y.transpose(1, 2).reshape(..)
    // hands back a transposed one).
    Tensor g = grads[0]->shape == g_shape ? grads[0] : reshaped(grads[0], g_shape);
    std::vector<Tensor> out(2);
    if (detail::wants_grad(*this, 0)) {
      Tensor ga = bmm_raw(g, transposed_last2(b2), name());
      out[0] = reshaped(sum_to(ga, a2->shape), a->shape);
    }
    if (detail::wants_grad(*this, 1)) {
      Tensor gb;
      if (b2->ndim() == 2 && a2->ndim() > 2) {
        // Sum over a's batch inside one GEMM: [K, R] x [R, N].
        gb = bmm_raw(transposed_last2(flatten_rows(a2)), flatten_rows(g), name());
      } else {
        gb = sum_to(bmm_raw(transposed_last2(a2), g, name()), b2->shape);
      }
      out[1] = reshaped(gb, b->shape);
    }
    return out;
  }
  // Under create_graph: the same products as recorded ops (matmul's own
  // node again), so the gradients can be differentiated again.
  std::vector<Tensor> recorded(const Tensor& a, const Tensor& b, const Tensor& g_in) {
    const Tensor a2 = a->ndim() == 1 ? unsqueeze(a, 0) : a, b2 = b->ndim() == 1 ? unsqueeze(b, 1) : b;
    const Dims ba(a2->shape.data(), a2->ndim() - 2), bb(b2->shape.data(), b2->ndim() - 2);
    Dims g_shape = broadcast_batch(ba, bb, name(), a->shape, b->shape);
    g_shape.push_back(a2->shape[a2->ndim() - 2]);
    g_shape.push_back(b2->shape[b2->ndim() - 1]);
    const Tensor g = reshape(g_in, g_shape);
    std::vector<Tensor> out(2);
    if (detail::wants_grad(*this, 0))
      out[0] = reshape(autograd::reduce_to_shape(ops::matmul(g, transpose(b2, -1, -2)), a2->shape), a->shape);
    if (detail::wants_grad(*this, 1))
      out[1] = reshape(autograd::reduce_to_shape(ops::matmul(transpose(a2, -1, -2), g), b2->shape), b->shape);
    return out;
  }
};

struct LinearBackward : autograd::Node {
  autograd::SavedTensor x_saved, w_saved;
  const char* name() const override { return "LinearBackward"; }
  bool has_saved() const override { return true; }
  void release_saved() override {
    x_saved.release();
    w_saved.release();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor x = x_saved.unpack(name()), w = w_saved.unpack(name());
    std::vector<Tensor> out(next.size());
    if (detail::creating_graph()) {  // recorded, so the gradients can be differentiated again
      const Tensor g2 = reshape(grads[0], {-1, w->shape[0]}), x2 = reshape(x, {-1, w->shape[1]});
      if (detail::wants_grad(*this, 0)) out[0] = reshape(ops::matmul(g2, w), x->shape);
      if (detail::wants_grad(*this, 1)) out[1] = ops::matmul(transpose(g2, 0, 1), x2);
      if (next.size() > 2 && detail::wants_grad(*this, 2)) out[2] = sum(g2, {0}, false);
      return out;
    }
    Tensor g2 = flatten_rows(grads[0]);  // [R, O]
    if (detail::wants_grad(*this, 0)) out[0] = reshaped(bmm_raw(g2, w, name()), x->shape);
    if (detail::wants_grad(*this, 1)) out[1] = bmm_raw(transposed_last2(g2), flatten_rows(x), name());
    if (next.size() > 2 && detail::wants_grad(*this, 2)) out[2] = backend_for(g2).column_sums(g2);
    return out;
  }
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  const char* op = "matmul";
  check_operand(a, op, "a");
  check_operand(b, op, "b");
  check_same_device(a, b, op, "a", "b");
  detail::check_same_dtype(a, b, op, "a", "b");
  TC_CHECK(a->ndim() >= 1 && b->ndim() >= 1, TC_ERR_SHAPE, op,
           ": both operands need at least 1 dim but a has shape ", a->shape, " and b has shape ", b->shape);
  Tensor a2 = as_matrix(a, true), b2 = as_matrix(b, false);
  TC_CHECK(a2->shape[a2->ndim() - 1] == b2->shape[b2->ndim() - 2], TC_ERR_SHAPE, op, ": a of shape ",
           a->shape, " and b of shape ", b->shape, " cannot be multiplied (", a2->shape[a2->ndim() - 1],
           " vs ", b2->shape[b2->ndim() - 2], ")");
  Tensor out = bmm_raw(a2, b2, op);
  // Drop the dims a 1-D operand got.
  Dims shape = out->shape;
  if (b->ndim() == 1) shape.erase(shape.size() - 1);
  if (a->ndim() == 1) shape.erase(shape.size() - (b->ndim() == 1 ? 1 : 2));
  out->shape = shape;
  out->strides = contiguous_strides(shape);
  if (autograd::needs_grad({&a, &b})) {
    const char* name = a->ndim() == 2 && b->ndim() == 2   ? "MmBackward"
                       : a->ndim() == 1 && b->ndim() == 1 ? "DotBackward"
                       : a->ndim() == 2 && b->ndim() == 1 ? "MvBackward"
                                                          : "MatmulBackward";
    auto node = std::make_shared<MatmulBackward>(name);
    node->a_saved = autograd::SavedTensor(a);
    node->b_saved = autograd::SavedTensor(b);
    autograd::record(node, {a, b}, {out});
  }
  return out;
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const char* op = "linear";
  check_operand(x, op, "x");
  check_operand(weight, op, "weight");
  check_same_device(x, weight, op, "x", "weight");
  detail::check_same_dtype(x, weight, op, "x", "weight");
  detail::check_ndim(weight, 2, op, "weight");
  TC_CHECK(x->ndim() >= 1, TC_ERR_SHAPE, op, ": x must have at least 1 dim but is a scalar");
  const int64_t in = weight->shape[1], outf = weight->shape[0];
  TC_CHECK(x->shape[x->ndim() - 1] == in, TC_ERR_SHAPE, op, ": x of shape ", x->shape,
           " does not fit weight of shape ", weight->shape, " (", x->shape[x->ndim() - 1], " vs ", in,
           " input features)");
  if (bias) {
    check_operand(bias, op, "bias");
    check_same_device(x, bias, op, "x", "bias");
    detail::check_same_dtype(x, bias, op, "x", "bias");
    TC_CHECK(bias->ndim() == 1 && bias->shape[0] == outf, TC_ERR_SHAPE, op, ": bias must have shape [", outf,
             "] but has shape ", bias->shape);
  }
  Tensor x2 = flatten_rows(x);
  Dims out_shape = x->shape;
  out_shape[out_shape.size() - 1] = outf;
  Tensor out = empty(out_shape, x->dtype, x->device);
  if (out->numel() > 0) backend_for(out).linear(out, x2, weight, bias);
  std::vector<Tensor> inputs = detail::defined({x, weight, bias});
  if (autograd::needs_grad(inputs)) {
    auto node = std::make_shared<LinearBackward>();
    node->x_saved = autograd::SavedTensor(x);
    node->w_saved = autograd::SavedTensor(weight);
    autograd::record(node, inputs, {out});
  }
  return out;
}

}  // namespace tc::ops
