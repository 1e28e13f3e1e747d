// Advanced indexing, as PyTorch's aten::index / index_put_: a list of indices,
// one per leading dim of a, each an integer tensor (int64/int32, any shape), a
// bool mask (covering as many dims as it has) or null (a full slice, `:`).
// The integer indices broadcast together to a block shape B; the result has
// B where the indexed dims stood when they are adjacent, else B first, then
// the sliced dims. Every element is a[offs[b] + s] with offs the storage
// offsets of the indexed dims (computed with the ops, so any device) and s a
// position of the sliced dims: the backend kernels only gather and put.
// Also take, masked_select and nonzero, which are made of it.
#include "ops/indexing.h"

#include <limits>

#include "backend/backend.h"
#include "core/init.h"
#include "math/rows/compare_lt.h"
#include "math/rows/compare_ne.h"
#include "ops/internal.h"
#include "ops/nn_util.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace detail {

namespace {

// index (int64, contiguous) checked against [-size, size) and wrapped.
Tensor wrap_index(const char* op, const Tensor& index, int64_t dim, int64_t size, bool allow_negative) {
  Tensor ic = contiguous_on_device(index);
  if (ic->numel() == 0) return ic;
  const Backend& be = backend_for(ic);
  if (!allow_negative) {
    const int64_t bad = be.first_out_of_range(ic, size);
    TC_CHECK(bad < 0, TC_ERR_INDEX, op, ": index ", be.read_index(ic, bad),
             " is out of bounds for dimension ", dim, " with size ", size);
    return ic;
  }
  // index + size in [0, 2 size) <=> index in [-size, size); an index so large
  // that the sum wraps round is negative, so out of range too.
  Tensor shifted = add(ic, scalar_tensor(double(size), DType::i64, ic->device));
  const int64_t bound =
      size > std::numeric_limits<int64_t>::max() / 2 ? std::numeric_limits<int64_t>::max() : 2 * size;
  const int64_t bad = be.first_out_of_range(shifted, bound);
  TC_CHECK(bad < 0, TC_ERR_INDEX, op, ": index ", be.read_index(ic, bad), " is out of bounds for dimension ",
           dim, " with size ", size);
  return where(binary(row::lt, ic, scalar_tensor(0, DType::i64, ic->device)), shifted, ic);
}

}  // namespace

IndexPlan plan_index(const char* op, const Tensor& a, const std::vector<Tensor>& indices,
                     bool allow_negative) {
  NoGradGuard ng;
  std::vector<Tensor> idx;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor& t = indices[i];
    if (!t) {
      idx.push_back(nullptr);
      continue;
    }
    TC_CHECK(t->device == a->device, TC_ERR_DEVICE, op, ": indices[", i, "] is on ", device_name(t->device),
             " but the indexed tensor is on ", device_name(a->device));
    TC_CHECK(t->dtype == DType::i64 || t->dtype == DType::i32 || t->dtype == DType::b8, TC_ERR_DTYPE, op,
             ": indices[", i, "] is a ", describe(t),
             "; tensors used as indices must be int64, int32 or bool");
    if (t->dtype == DType::b8) {
      // A mask covers as many dims as it has: its nonzero columns index them.
      TC_CHECK(t->ndim() > 0, TC_ERR_INTERNAL, op, ": 0-dim masks are expanded before planning");
      const int64_t at = int64_t(idx.size());
      TC_CHECK(at + t->ndim() <= a->ndim(), TC_ERR_INDEX, op, ": too many indices for tensor of dimension ",
               a->ndim(), " (the mask indices[", i, "] of shape ", t->shape, " covers dims ", at, " to ",
               at + t->ndim() - 1, ")");
      for (int64_t j = 0; j < t->ndim(); ++j) {
        TC_CHECK(t->shape[j] == a->shape[at + j], TC_ERR_INDEX, op, ": the shape of the mask ", t->shape,
                 " at index ", j, " does not match the shape of the indexed tensor ", a->shape, " at index ",
                 at + j);
      }
      Tensor nz = nonzero(t);  // [n, mask dims]
      for (int64_t j = 0; j < t->ndim(); ++j) idx.push_back(raw_select(nz, 1, j));
      continue;
    }
    idx.push_back(cast(t, DType::i64));
  }
  TC_CHECK(int64_t(idx.size()) <= a->ndim(), TC_ERR_INDEX, op, ": too many indices for tensor of dimension ",
           a->ndim(), " (got ", idx.size(), ")");
  idx.resize(size_t(a->ndim()));

  IndexPlan p;
  int64_t first = -1, last = -1;
  bool adjacent = true, any = false;
  for (int64_t k = 0; k < a->ndim(); ++k) {
    if (!idx[size_t(k)]) {
      p.sliced.push_back(k);
      continue;
    }
    if (first < 0) first = k;
    if (last >= 0 && last != k - 1) adjacent = false;
    last = k;
    const Dims& s = idx[size_t(k)]->shape;
    if (!any) {
      p.bshape = s;
      any = true;
      continue;
    }
    // Broadcast (right-aligned), with PyTorch's wording on failure.
    const size_t n = std::max(p.bshape.size(), s.size());
    Dims b = Dims::filled(int64_t(n), 1);
    for (size_t j = 0; j < n; ++j) {
      const int64_t x = j + p.bshape.size() >= n ? p.bshape[j + p.bshape.size() - n] : 1;
      const int64_t y = j + s.size() >= n ? s[j + s.size() - n] : 1;
      TC_CHECK(x == y || x == 1 || y == 1, TC_ERR_SHAPE, op,
               ": shape mismatch: indexing tensors could not be broadcast together with shapes ", p.bshape,
               ", ", s);
      b[j] = x == 1 ? y : x;
    }
    p.bshape = b;
  }
  for (int64_t k = 0; k < a->ndim(); ++k) {
    if (idx[size_t(k)]) idx[size_t(k)] = wrap_index(op, idx[size_t(k)], k, a->shape[k], allow_negative);
  }
  p.idx = std::move(idx);
  p.place = any && adjacent ? first : 0;
  for (int64_t k = 0; k < p.place; ++k) p.result.push_back(a->shape[k]);
  for (int64_t v : p.bshape) p.result.push_back(v);
  for (int64_t k : p.sliced) {
    if (k >= p.place) p.result.push_back(a->shape[k]);
  }
  TC_CHECK(int64_t(p.result.size()) <= TC_MAX_DIMS, TC_ERR_SHAPE, op, ": the result would have ",
           p.result.size(), " dims (at most ", TC_MAX_DIMS, ")");
  return p;
}

namespace {

// offs[b] = sum over the indexed dims k of idx_k[b] * t's stride k, as [nb].
Tensor offsets(const IndexPlan& p, const Tensor& t) {
  NoGradGuard ng;
  Tensor offs;
  for (size_t k = 0; k < p.idx.size(); ++k) {
    if (!p.idx[k]) continue;
    Tensor term = t->strides[k] == 1
                      ? p.idx[k]
                      : mul(p.idx[k], scalar_tensor(double(t->strides[k]), DType::i64, t->device));
    offs = offs ? add(offs, term) : term;
  }
  if (!offs) return zeros({1}, DType::i64, t->device);  // no indexed dim: the one position 0
  offs = contiguous_on_device(raw_expand(offs, p.bshape));
  return make_view(offs, {offs->numel()}, {1}, offs->offset);
}

// t over its sliced dims: the view the kernels add offs[b] to.
Tensor sliced_view(const IndexPlan& p, const Tensor& t) {
  Dims shape, strides;
  for (int64_t k : p.sliced) {
    shape.push_back(t->shape[k]);
    strides.push_back(t->strides[k]);
  }
  return make_view(t, shape, strides, t->offset);
}

// r (of the result's shape) as [nb, S...]: the block of indexed dims first,
// merged into one; null when the block's strides cannot merge.
Tensor block_view(const IndexPlan& p, const Tensor& r) {
  const int64_t m = int64_t(p.bshape.size()), at = p.place;
  // The block's dims of size > 1 must nest (each stride the next one's
  // stride times its size); a size-1 dim's stride is never used, whatever it
  // is (an expanded view gives it 0, a fresh tensor the next dim's).
  int64_t stride = 0, next = -1;
  for (int64_t i = at + m - 1; i >= at; --i) {
    if (r->shape[i] == 1) continue;
    if (next < 0) {
      stride = r->strides[i];
    } else if (r->strides[i] != next) {
      return nullptr;
    }
    next = r->strides[i] * r->shape[i];
  }
  Dims shape{numel_of(p.bshape)}, strides{stride};
  for (int64_t k = 0; k < r->ndim(); ++k) {
    if (k >= at && k < at + m) continue;
    shape.push_back(r->shape[k]);
    strides.push_back(r->strides[k]);
  }
  return make_view(r, shape, strides, r->offset);
}

}  // namespace

Tensor index_raw(const Tensor& a, const IndexPlan& p) {
  Tensor out = empty(p.result, a->dtype, a->device);
  if (out->numel() == 0) return out;
  backend_for(a).index_offsets_gather(block_view(p, out), sliced_view(p, a), offsets(p, a));
  return out;
}

void index_put_raw(const Tensor& a, const IndexPlan& p, const Tensor& values, IndexPutMode mode) {
  if (numel_of(p.result) == 0) return;
  // Values sharing a's memory would be read while being written: copy them first.
  Tensor v = raw_expand(values->storage == a->storage ? clone_data(values) : values, p.result);
  Tensor bv = block_view(p, v);
  if (!bv) bv = block_view(p, clone_data(v));  // dense: its block always merges
  TC_CHECK(bv, TC_ERR_INTERNAL, "index_put: the values' indexed dims do not merge (shape ", v->shape,
           ", strides ", v->strides, ")");
  backend_for(a).index_offsets_put(sliced_view(p, a), offsets(p, a), bv, mode);
}

void check_values(const char* op, const Tensor& a, const IndexPlan& p, const Tensor& values) {
  TC_CHECK(values->device == a->device, TC_ERR_DEVICE, op, ": values are on ", device_name(values->device),
           " but the indexed tensor is on ", device_name(a->device));
  TC_CHECK(values->dtype == a->dtype, TC_ERR_DTYPE, op,
           ": index_put requires the source and destination dtypes match, got ", dtype_name(a->dtype),
           " for the destination and ", dtype_name(values->dtype), " for the source");
  bool fits = values->ndim() <= int64_t(p.result.size());
  for (int64_t j = 1; fits && j <= values->ndim(); ++j) {
    const int64_t v = values->shape[values->ndim() - j], r = p.result[p.result.size() - j];
    fits = v == r || v == 1;
  }
  TC_CHECK(fits, TC_ERR_SHAPE, op, ": shape mismatch: value tensor of shape ", values->shape,
           " cannot be broadcast to indexing result of shape ", p.result);
}

}  // namespace detail

namespace {

// The first 0-dim bool index: it adds a dim of size 1 (true) or 0 (false)
// where it stands, as in PyTorch. Returns its position in indices (or -1) and
// the dim of a it stands at.
int64_t scalar_mask(const std::vector<Tensor>& indices, int64_t* dim) {
  int64_t at = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Tensor& t = indices[i];
    if (t && t->dtype == DType::b8 && t->ndim() == 0) {
      *dim = at;
      return int64_t(i);
    }
    at += t && t->dtype == DType::b8 ? t->ndim() : 1;
  }
  return -1;
}

std::vector<Tensor> with_mask_1d(std::vector<Tensor> indices, int64_t i) {
  indices[size_t(i)] = reshaped(indices[size_t(i)], {1});
  return indices;
}

IndexPlan without_tensors(IndexPlan p) {
  p.idx.clear();
  return p;
}

Tensor index_planned(const Tensor& a, const IndexPlan& p);

Grads index_backward(const IndexPlan& shape_only, const Dims& in_shape, const Grads& g,
                     const std::vector<Tensor>& saved) {
  IndexPlan p = shape_only;
  p.idx = saved;
  Tensor gi = zeros(in_shape, g[0]->dtype, g[0]->device);
  index_put_raw(gi, p, g[0], IndexPutMode::add);  // duplicates add up
  // Linear in g: under create_graph its own backward indexes the gradient.
  return {linear_of_grad("IndexBackwardBackward", g[0], gi,
                         [p](const Tensor& gg) { return index_planned(gg, p); })};
}

// a indexed by a plan made for a tensor of a's shape, recorded as IndexBackward.
Tensor index_planned(const Tensor& a, const IndexPlan& p) {
  Tensor out = index_raw(a, p);
  const Dims in = a->shape;
  const IndexPlan shape_only = without_tensors(p);
  autograd::record_function("IndexBackward", {a}, {out}, p.idx,
                            [in, shape_only](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              return index_backward(shape_only, in, g, s);
                            });
  return out;
}

// index_put's gradients (a's, then values') for an upstream g: without
// accumulate the overwritten elements get nothing from a. Under create_graph
// in recorded ops (where and a recorded index), so that they can be
// differentiated again.
Grads index_put_grads(const Tensor& g, const IndexPlan& q, const Dims& vshape, bool accumulate) {
  if (creating_graph()) {
    Tensor ga = g;
    if (!accumulate) {
      Tensor written = zeros(g->shape, g->dtype, g->device);
      const Tensor zero = scalar_tensor(0, g->dtype, g->device);
      index_put_raw(written, q, scalar_tensor(1, g->dtype, g->device), IndexPutMode::assign);
      ga = where(binary(row::ne, written, zero), zero, g);
    }
    return {ga, autograd::reduce_to_shape(index_planned(g, q), vshape)};
  }
  Tensor ga = g;
  if (!accumulate) {
    ga = clone_data(g);
    index_put_raw(ga, q, scalar_tensor(0, ga->dtype, ga->device), IndexPutMode::assign);
  }
  return {ga, sum_to_size(index_raw(g, q), vshape)};
}

}  // namespace

Tensor index_with(const char* op, const Tensor& a, const std::vector<Tensor>& indices, bool allow_negative) {
  int64_t dim = 0;
  const int64_t m = scalar_mask(indices, &dim);
  if (m >= 0) return index_with(op, unsqueeze(a, dim), with_mask_1d(indices, m), allow_negative);
  IndexPlan p = plan_index(op, a, indices, allow_negative);
  Tensor out = index_raw(a, p);
  const Dims in = a->shape;
  const IndexPlan shape_only = without_tensors(p);
  autograd::record_function("IndexBackward", {a}, {out}, p.idx,
                            [in, shape_only](const Grads& g, const std::vector<Tensor>& s) -> Grads {
                              return index_backward(shape_only, in, g, s);
                            });
  return out;
}

Tensor index(const Tensor& a, const std::vector<Tensor>& indices) {
  return index_with("index", a, indices, true);
}

Tensor index_put_with(const char* op, const Tensor& a, const std::vector<Tensor>& indices,
                      const Tensor& values, IndexPutMode mode, bool allow_negative) {
  int64_t dim = 0;
  const int64_t m = scalar_mask(indices, &dim);
  if (m >= 0) {
    Tensor r = index_put_with(op, unsqueeze(a, dim), with_mask_1d(indices, m), values, mode, allow_negative);
    return squeeze(r, dim);
  }
  IndexPlan p = plan_index(op, a, indices, allow_negative);
  check_values(op, a, p, values);
  Tensor out = clone_data(a);
  index_put_raw(out, p, values, mode);
  const Dims vshape = values->shape;
  const IndexPlan shape_only = without_tensors(p);
  const bool accumulate = mode == IndexPutMode::add;
  TC_CHECK(accumulate || mode == IndexPutMode::assign || !autograd::needs_grad({&a, &values}),
           TC_ERR_INTERNAL, op, ": only assign and add record gradients here");
  autograd::record_function(
      "IndexPutBackward", {a, values}, {out}, p.idx,
      [shape_only, vshape, accumulate](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        IndexPlan q = shape_only;
        q.idx = s;
        return index_put_grads(g[0], q, vshape, accumulate);
      });
  return out;
}

Tensor index_put(const Tensor& a, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  return index_put_with("index_put", a, indices, values,
                        accumulate ? IndexPutMode::add : IndexPutMode::assign, true);
}

void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                bool accumulate) {
  const char* op = "index_put_";
  check_writable(self, op);
  const bool grad = autograd::needs_grad({&self, &values});
  int64_t dim = 0;
  const int64_t m = scalar_mask(indices, &dim);
  if (m >= 0) {
    TC_CHECK(!grad, TC_ERR_NOT_IMPLEMENTED, op,
             ": a 0-dim bool index with autograd; use tc_index_put (out of place) or no-grad mode");
    Tensor u = raw_view(self, [&] {
      Dims s = self->shape;
      s.insert(dim, 1);
      return s;
    }());
    TC_CHECK(u != nullptr, TC_ERR_INTERNAL, op, ": no view with a new dim");
    index_put_(u, with_mask_1d(indices, m), values, accumulate);
    return;
  }
  IndexPlan p = plan_index(op, self, indices, true);
  check_values(op, self, p, values);
  if (grad) {
    // libtc rebases the graph of the tensor written in place (its grad_fn
    // becomes IndexPutBackward, whose edge goes to the old one), but cannot
    // rebase another view of the same memory: such writes are refused.
    TC_CHECK(!(self->requires_grad && self->is_leaf()), TC_ERR_AUTOGRAD, op,
             ": a leaf tensor that requires grad is used in an in-place operation (use no-grad mode, or "
             "detach/clone it first)");
    TC_CHECK(self->storage.use_count() == 1, TC_ERR_AUTOGRAD, op,
             ": self shares its memory with another tensor (a view, or a tensor saved for backward); "
             "libtc records in-place indexing with autograd only on a tensor that owns its memory alone "
             "(index a clone, or use tc_index_put)");
  }
  index_put_raw(self, p, values, accumulate ? IndexPutMode::add : IndexPutMode::assign);
  self->bump_version();
  if (!grad) return;
  const Dims vshape = values->shape;
  const IndexPlan shape_only = without_tensors(p);
  // record() reads self's edge (its old grad_fn) before making the new node its grad_fn.
  autograd::record_function(
      "IndexPutBackward", {self, values}, {self}, p.idx,
      [shape_only, vshape, accumulate](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        IndexPlan q = shape_only;
        q.idx = s;
        return index_put_grads(g[0], q, vshape, accumulate);
      });
}

Tensor nonzero(const Tensor& a) {
  const Backend& be = backend_for(a);
  const Tensor c = contiguous_on_device(a);
  const int64_t n = be.count_nonzero(c);
  Tensor out = empty({n, a->ndim()}, DType::i64, a->device);
  be.nonzero(out, c);
  return out;
}

Tensor take(const Tensor& a, const Tensor& index) {
  TC_CHECK(index->dtype == DType::i64, TC_ERR_DTYPE, "take: index must be an int64 tensor but is ",
           describe(index));
  return index_with("take", reshape(a, {a->numel()}), {index}, true);
}

Tensor masked_select(const Tensor& a, const Tensor& mask) {
  const char* op = "masked_select";
  TC_CHECK(mask->dtype == DType::b8, TC_ERR_DTYPE, op, ": mask must be a bool tensor but is ",
           describe(mask));
  TC_CHECK(mask->device == a->device, TC_ERR_DEVICE, op, ": mask is on ", device_name(mask->device),
           " but a is on ", device_name(a->device));
  const Dims shape = broadcast_shapes(a->shape, mask->shape, op);
  Tensor ab = a->shape == shape ? a : expand(a, shape);
  Tensor mb = raw_expand(mask, shape);
  if (shape.empty()) return index_with(op, reshape(ab, {1}), {reshaped(mb, {1})}, true);
  return index_with(op, ab, {mb}, true);
}

}  // namespace tc::ops
