// matmul (torch.matmul's rules) and linear (x @ W^T + b as one op) on
// oneDNN's GEMM. Operands are passed to the GEMM through their strides, so a
// transposed or sliced matrix costs no copy; only layouts GEMM cannot express
// (neither dim unit-stride, broadcast rows) are copied first.
#include <algorithm>
#include <vector>

#include "autograd/node.h"
#include "cpu/matmul.h"
#include "dtype.h"
#include "init.h"
#include "ops/nn_util.h"
#include "ops/ops.h"

namespace tc::ops {
namespace {

using detail::reshaped;
using detail::transposed_last2;

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
  if (rs >= 0 && cpu::mat_layout(rows, cols, rs, t->strides[n - 1]).usable)
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

// One GEMM per batch entry; operand offsets from the aligned batch strides.
template <typename T>
void batched_gemm(const T* pa, const T* pb, T* pc, const Dims& batch, const Dims& sa, const Dims& sb,
                  cpu::MatLayout la, cpu::MatLayout lb, int64_t m, int64_t n, int64_t k) {
  const int64_t nbatch = batch.size(), count = numel_of(batch);
  // Many small products: one GEMM per thread beats threads inside each one.
  const bool per_thread = count >= 2 && m * n * k < (1 << 18);
  sync_omp_threads();
  auto one = [&](int64_t i) {
    int64_t oa = 0, ob = 0;
    for (int64_t d = nbatch - 1, idx = i; d >= 0; --d) {
      const int64_t j = idx % batch[d];
      idx /= batch[d];
      oa += j * sa[d];
      ob += j * sb[d];
    }
    cpu::gemm(la.trans, lb.trans, m, n, k, T(1), pa + oa, la.ld, pb + ob, lb.ld, T(0), pc + i * m * n, n);
  };
  if (!per_thread) {
    // No enclosing parallel region, not even an inactive `if (false)` one:
    // oneDNN's own threads would then be a nested team, made anew per call.
    for (int64_t i = 0; i < count; ++i) one(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) one(i);
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
  Tensor out = empty(out_shape, a->dtype);
  if (out->numel() == 0) return out;

  // A batched a times an unbatched b is one tall GEMM when a's rows merge.
  if (numel_of(bb) == 1 && na > 2 && numel_of(ba) == numel_of(batch)) {
    const int64_t rs = merged_stride(a, 0, na - 2);
    if (rs >= 0 && cpu::mat_layout(numel_of(ba) * m, k, rs, a->strides[na - 1]).usable) {
      Tensor a2 = make_view(a, {numel_of(ba) * m, k}, {rs, a->strides[na - 1]}, a->offset);
      Tensor b2 = make_view(b, {k, n}, {b->strides[nb - 2], b->strides[nb - 1]}, b->offset);
      Tensor o2 = bmm_raw(a2, b2, op);
      o2->shape = out_shape;
      o2->strides = contiguous_strides(out_shape);
      return o2;
    }
  }
  auto la = cpu::mat_layout(m, k, a->strides[na - 2], a->strides[na - 1]);
  if (!la.usable) {
    a = tc::contiguous(a);
    la = cpu::mat_layout(m, k, a->strides[na - 2], a->strides[na - 1]);
  }
  auto lb = cpu::mat_layout(k, n, b->strides[nb - 2], b->strides[nb - 1]);
  if (!lb.usable) {
    b = tc::contiguous(b);
    lb = cpu::mat_layout(k, n, b->strides[nb - 2], b->strides[nb - 1]);
  }
  // Batch strides aligned to the broadcast batch (0 where an operand has 1).
  const int64_t nbatch = batch.size();
  Dims sa = Dims::filled(nbatch, 0), sb = Dims::filled(nbatch, 0);
  for (int64_t i = 0; i < nbatch; ++i) {
    const int64_t ai = i - (nbatch - (na - 2)), bi = i - (nbatch - (nb - 2));
    if (ai >= 0 && a->shape[ai] != 1) sa[i] = a->strides[ai];
    if (bi >= 0 && b->shape[bi] != 1) sb[i] = b->strides[bi];
  }
  TC_DISPATCH_FLOATING(a->dtype, op, [&] {
    using T = scalar_t;
    batched_gemm<T>(a->data_as<T>(), b->data_as<T>(), out->data_as<T>(), batch, sa, sb, la, lb, m, n, k);
  });
  return out;
}

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
  void release_saved() override {
    a_saved.release();
    b_saved.release();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor a = a_saved.unpack(name()), b = b_saved.unpack(name());
    Tensor a2 = as_matrix(a, true), b2 = as_matrix(b, false);
    // The gradient in the 2-D-operand form: [batch..., M, N].
    const Dims ba(a2->shape.data(), a2->ndim() - 2), bb(b2->shape.data(), b2->ndim() - 2);
    Dims g_shape = broadcast_batch(ba, bb, name(), a->shape, b->shape);
    g_shape.push_back(a2->shape[a2->ndim() - 2]);
    g_shape.push_back(b2->shape[b2->ndim() - 1]);
    Tensor g = reshaped(grads[0], g_shape);
    std::vector<Tensor> out(2);
    if (detail::wants_grad(*this, 0)) {
      Tensor ga = bmm_raw(g, transposed_last2(b2), name());
      out[0] = reshaped(autograd::reduce_to_shape(ga, a2->shape), a->shape);
    }
    if (detail::wants_grad(*this, 1)) {
      Tensor gb;
      if (b2->ndim() == 2 && a2->ndim() > 2) {
        // Sum over a's batch inside one GEMM: [K, R] x [R, N].
        gb = bmm_raw(transposed_last2(flatten_rows(a2)), flatten_rows(g), name());
      } else {
        gb = autograd::reduce_to_shape(bmm_raw(transposed_last2(a2), g, name()), b2->shape);
      }
      out[1] = reshaped(gb, b->shape);
    }
    return out;
  }
};

struct LinearBackward : autograd::Node {
  autograd::SavedTensor x_saved, w_saved;
  const char* name() const override { return "LinearBackward"; }
  void release_saved() override {
    x_saved.release();
    w_saved.release();
  }
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensor x = x_saved.unpack(name()), w = w_saved.unpack(name());
    Tensor g2 = flatten_rows(grads[0]);  // [R, O]
    std::vector<Tensor> out(next.size());
    if (detail::wants_grad(*this, 0)) out[0] = reshaped(bmm_raw(g2, w, name()), x->shape);
    if (detail::wants_grad(*this, 1)) out[1] = bmm_raw(transposed_last2(g2), flatten_rows(x), name());
    if (next.size() > 2 && detail::wants_grad(*this, 2)) {
      const int64_t rows = g2->shape[0], cols = g2->shape[1];
      const int64_t rs = g2->strides[0], cs = g2->strides[1];
      Tensor gb = empty({cols}, g2->dtype);
      TC_DISPATCH_FLOATING(g2->dtype, name(), [&] {
        using T = scalar_t;
        // Column sums in double, rows in order: accurate and deterministic.
        std::vector<double> acc(size_t(cols), 0.0);
        const T* p = g2->data_as<T>();
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) acc[j] += double(p[i * rs + j * cs]);
        T* o = gb->data_as<T>();
        for (int64_t j = 0; j < cols; ++j) o[j] = T(acc[j]);
      });
      out[2] = gb;
    }
    return out;
  }
};

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  const char* op = "matmul";
  detail::check_float(a, op, "a");
  detail::check_float(b, op, "b");
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
  detail::check_float(x, op, "x");
  detail::check_float(weight, op, "weight");
  detail::check_same_dtype(x, weight, op, "x", "weight");
  detail::check_ndim(weight, 2, op, "weight");
  TC_CHECK(x->ndim() >= 1, TC_ERR_SHAPE, op, ": x must have at least 1 dim but is a scalar");
  const int64_t in = weight->shape[1], outf = weight->shape[0];
  TC_CHECK(x->shape[x->ndim() - 1] == in, TC_ERR_SHAPE, op, ": x of shape ", x->shape,
           " does not fit weight of shape ", weight->shape, " (", x->shape[x->ndim() - 1], " vs ", in,
           " input features)");
  if (bias) {
    detail::check_float(bias, op, "bias");
    detail::check_same_dtype(x, bias, op, "x", "bias");
    TC_CHECK(bias->ndim() == 1 && bias->shape[0] == outf, TC_ERR_SHAPE, op, ": bias must have shape [", outf,
             "] but has shape ", bias->shape);
  }
  Tensor x2 = flatten_rows(x);
  const int64_t rows = x2->shape[0];
  Dims out_shape = x->shape;
  out_shape[out_shape.size() - 1] = outf;
  Tensor out = empty(out_shape, x->dtype);
  if (out->numel() > 0) {
    auto lx = cpu::mat_layout(rows, in, x2->strides[0], x2->strides[1]);
    // weight^T as the right operand: [in, out] with swapped strides.
    auto lw = cpu::mat_layout(in, outf, weight->strides[1], weight->strides[0]);
    Tensor w = weight;
    if (!lw.usable) {
      w = tc::contiguous(weight);
      lw = cpu::mat_layout(in, outf, w->strides[1], w->strides[0]);
    }
    TC_DISPATCH_FLOATING(x->dtype, op, [&] {
      using T = scalar_t;
      T* o = out->data_as<T>();
      T beta = T(0);
      if (bias) {
        // Every row starts as the bias; GEMM then adds x @ W^T onto it.
        Tensor bc = tc::contiguous(bias);
        const T* pb = bc->data_as<T>();
        for (int64_t i = 0; i < rows; ++i) std::copy(pb, pb + outf, o + i * outf);
        beta = T(1);
      }
      cpu::gemm(lx.trans, lw.trans, rows, outf, in, T(1), x2->data_as<T>(), lx.ld, w->data_as<T>(), lw.ld,
                beta, o, outf);
    });
  }
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
