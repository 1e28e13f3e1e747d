// matmul (torch.matmul's rules) and linear (x @ W^T + b as one op) on
// oneDNN's GEMM, and on cuBLAS for CUDA tensors (float32/64, and float16 and
// bfloat16 with fp32 accumulation). Operands are passed to the GEMM through
// their strides, so a transposed or sliced matrix costs no copy; only layouts
// GEMM cannot express (neither dim unit-stride, broadcast rows) are copied
// first. On CUDA, backward's sums over broadcast dims are GEMMs with a ones
// vector too, so the whole op and its gradient stay on cuBLAS.
#include <algorithm>
#include <vector>

#include "autograd/node.h"
#include "cpu/matmul.h"
#include "cuda/dispatch.h"
#include "device_hooks.h"
#include "dtype.h"
#include "init.h"
#include "ops/nn_util.h"
#include "ops/ops.h"
#if TC_HAVE_CUDA
#include "cuda/blas.h"
#endif

namespace tc::ops {
namespace {

using detail::reshaped;
using detail::transposed_last2;

// matmul/linear operands: float32/float64 on the CPU, any floating dtype on
// CUDA.
void check_operand(const Tensor& t, const char* op, const char* arg) {
  if (on_cuda(t)) {
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

#if TC_HAVE_CUDA
// Element `index` of t's storage, counted from t's first element.
void* element_ptr(const Tensor& t, int64_t index) {
  return static_cast<char*>(t->data()) + index * t->itemsize();
}

// The CUDA form of batched_gemm: out (contiguous [batch..., m, n]) =
// (or += with beta 1) a x b. Batch dims whose strides chain are merged so
// that most products are one strided-batched cuBLAS call.
void cuda_batched_gemm(const Tensor& a, const Tensor& b, const Tensor& out, const Dims& batch, const Dims& sa,
                       const Dims& sb, cpu::MatLayout la, cpu::MatLayout lb, int64_t m, int64_t n, int64_t k,
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
  auto lx = cpu::mat_layout(rows, in, x->strides[0], x->strides[1]);
  if (!lx.usable) {
    x = tc::contiguous(x);
    lx = cpu::mat_layout(rows, in, x->strides[0], x->strides[1]);
  }
  Tensor w = weight;
  auto lw = cpu::mat_layout(in, outf, w->strides[1], w->strides[0]);
  if (!lw.usable) {
    w = tc::contiguous(weight);
    lw = cpu::mat_layout(in, outf, w->strides[1], w->strides[0]);
  }
  cuda::gemm(dt, dev, lx.trans, lw.trans, rows, outf, in, x->data(), lx.ld, 0, w->data(), lw.ld, 0, beta,
             out->data(), outf, 0, 1);
}
#endif

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
  Tensor out = empty(out_shape, a->dtype, a->device);
  if (out->numel() == 0) return out;
  if (k == 0 && on_cuda(out)) return zeros(out_shape, a->dtype, a->device);

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
  if (on_cuda(out)) {
    TC_CUDA_CALL(cuda_batched_gemm(a, b, out, batch, sa, sb, la, lb, m, n, k, 0.0));
    return out;
  }
  TC_DISPATCH_FLOATING(a->dtype, op, [&] {
    using T = scalar_t;
    batched_gemm<T>(a->data_as<T>(), b->data_as<T>(), out->data_as<T>(), batch, sa, sb, la, lb, m, n, k);
  });
  return out;
}

// Sums g over the dims where it was broadcast from `shape` (autograd's
// reduce_to_shape). On CUDA each reduced dim is one batched GEMM:
// [outer][1, s] x [s, inner] with a ones row.
Tensor sum_to(const Tensor& g, const Dims& shape, const char* op) {
  if (!on_cuda(g)) return autograd::reduce_to_shape(g, shape);
  if (g->shape == shape) return g;
  const int64_t lead = g->ndim() - shape.size();
  TC_CHECK(lead >= 0, TC_ERR_INTERNAL, op, ": gradient shape ", g->shape, " has fewer dims than ", shape);
  if (numel_of(shape) == 0 || g->numel() == 0) return zeros(shape, g->dtype, g->device);
  Tensor cur = tc::contiguous(g);
  for (int64_t d = 0; d < g->ndim(); ++d) {
    const int64_t want = d < lead ? 1 : shape[d - lead];
    const int64_t s = cur->shape[d];
    if (s == want) continue;
    TC_CHECK(want == 1, TC_ERR_INTERNAL, op, ": gradient shape ", g->shape, " does not broadcast from ",
             shape);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < d; ++i) outer *= cur->shape[i];
    for (int64_t i = d + 1; i < cur->ndim(); ++i) inner *= cur->shape[i];
    Dims next_shape = cur->shape;
    next_shape[d] = 1;
    Tensor next = empty(next_shape, g->dtype, g->device);
    Tensor ones_row = ones({1, s}, g->dtype, g->device);
    // next[o] (1 x inner) = ones (1 x s) x cur[o] (s x inner).
    TC_CUDA_CALL(cuda::gemm(g->dtype, device_index(g->device), false, false, 1, inner, s, ones_row->data(), s,
                            0, cur->data(), inner, s * inner, 0.0, next->data(), inner, inner, outer));
    cur = next;
  }
  return make_view(cur, shape, contiguous_strides(shape), cur->offset);
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
  bool has_saved() const override { return true; }
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
      out[0] = reshaped(sum_to(ga, a2->shape, name()), a->shape);
    }
    if (detail::wants_grad(*this, 1)) {
      Tensor gb;
      if (b2->ndim() == 2 && a2->ndim() > 2) {
        // Sum over a's batch inside one GEMM: [K, R] x [R, N].
        gb = bmm_raw(transposed_last2(flatten_rows(a2)), flatten_rows(g), name());
      } else {
        gb = sum_to(bmm_raw(transposed_last2(a2), g, name()), b2->shape, name());
      }
      out[1] = reshaped(gb, b->shape);
    }
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
    Tensor g2 = flatten_rows(grads[0]);  // [R, O]
    std::vector<Tensor> out(next.size());
    if (detail::wants_grad(*this, 0)) out[0] = reshaped(bmm_raw(g2, w, name()), x->shape);
    if (detail::wants_grad(*this, 1)) out[1] = bmm_raw(transposed_last2(g2), flatten_rows(x), name());
    if (next.size() > 2 && detail::wants_grad(*this, 2) && on_cuda(g2)) {
      // Column sums as a GEMM: [1, R] ones x [R, O].
      Tensor ones_row = ones({1, g2->shape[0]}, g2->dtype, g2->device);
      Tensor gb = bmm_raw(ones_row, g2, name());
      out[2] = make_view(gb, {g2->shape[1]}, {1}, gb->offset);
    } else if (next.size() > 2 && detail::wants_grad(*this, 2)) {
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
  const int64_t rows = x2->shape[0];
  Dims out_shape = x->shape;
  out_shape[out_shape.size() - 1] = outf;
  Tensor out = empty(out_shape, x->dtype, x->device);
  if (out->numel() > 0 && on_cuda(out)) {
    TC_CUDA_CALL(cuda_linear(x2, weight, bias, out, rows, in, outf));
  } else if (out->numel() > 0) {
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
