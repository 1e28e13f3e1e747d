// Shape ops: cat, stack, split, chunk, gather, index_select, one_hot.
#include <algorithm>

#include "backend/backend.h"
#include "core/init.h"
#include "ops/internal.h"
#include "ops/pieces_recorded.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {
// Same device and a dtype the device computes: the CPU's checks there; a
// backend computing 16-bit floats (CUDA) handles every dtype.
void check_operands(const char* op, const char* arg, const Tensor& a, const Tensor& b) {
  if (backend_for(a).computes_half || backend_for(b).computes_half) {
    TC_CHECK(a->device == b->device, TC_ERR_DEVICE, op, ": tensors are on different devices (",
             device_name(a->device), " and ", device_name(b->device), ")");
    return;
  }
  check_same_device(op, a, b);
  // Complex tensors are only moved here (cat, stack): their copies are the core's.
  if (!is_complex(a->dtype)) check_compute_dtype(op, arg, a->dtype, true);
}
}  // namespace

Tensor cat(const std::vector<Tensor>& ts, int64_t dim) {
  TC_CHECK(!ts.empty(), TC_ERR_INVALID_ARGUMENT, "cat: expected at least one tensor");
  const Tensor& first = ts[0];
  TC_CHECK(first->ndim() > 0, TC_ERR_SHAPE,
           "cat: tensor 0 is 0-dim; zero-dim tensors cannot be concatenated");
  const int64_t d = wrap_dim(dim, first->ndim(), "cat");
  const DType dt = result_type(ts);
  Dims shape = first->shape;
  shape[d] = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    check_operands("cat", "a tensor", t, first);
    TC_CHECK(t->ndim() == first->ndim(), TC_ERR_SHAPE, "cat: tensor ", i, " has ", t->ndim(),
             " dims but tensor 0 has ", first->ndim(), " (shapes ", t->shape, " and ", first->shape, ")");
    for (int64_t k = 0; k < t->ndim(); ++k) {
      TC_CHECK(k == d || t->shape[k] == first->shape[k], TC_ERR_SHAPE, "cat: tensor ", i, " has shape ",
               t->shape, " but tensor 0 has shape ", first->shape, ": sizes must match except in dim ", d);
    }
    // Element-less tensors may have any sizes: a sum past int64 is an error, not UB.
    TC_CHECK(!__builtin_add_overflow(shape[d], t->shape[d], &shape[d]), TC_ERR_SHAPE,
             "cat: the sizes in dim ", d, " add up to more than 2^63 - 1 (tensor ", i, " has shape ",
             t->shape, ")");
  }
  Tensor out = empty(shape, dt, first->device);
  int64_t at = 0;
  std::vector<int64_t> starts;
  std::vector<Dims> shapes;
  std::vector<DType> dtypes;
  for (const Tensor& t : ts) {
    backend_for(out).copy(raw_narrow(out, d, at, t->shape[d]), t);  // converted to the result's dtype
    starts.push_back(at);
    shapes.push_back(t->shape);
    dtypes.push_back(t->dtype);
    at += t->shape[d];
  }
  autograd::record_function("CatBackward", ts, {out}, {},
                            [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              Grads r;
                              for (size_t i = 0; i < starts.size(); ++i) {
                                if (!is_differentiable(dtypes[i])) {
                                  r.push_back(nullptr);
                                } else if (creating_graph()) {  // recorded, so it can be differentiated again
                                  r.push_back(to_dtype(narrow(g[0], d, starts[i], shapes[i][d]), dtypes[i]));
                                } else {
                                  r.push_back(cast(raw_narrow(g[0], d, starts[i], shapes[i][d]), dtypes[i]));
                                }
                              }
                              return r;
                            });
  return out;
}

Tensor stack(const std::vector<Tensor>& ts, int64_t dim) {
  TC_CHECK(!ts.empty(), TC_ERR_INVALID_ARGUMENT, "stack: expected at least one tensor");
  const int64_t d = wrap_dim(dim, ts[0]->ndim() + 1, "stack");
  std::vector<Tensor> us;
  for (size_t i = 0; i < ts.size(); ++i) {
    TC_CHECK(ts[i]->shape == ts[0]->shape, TC_ERR_SHAPE, "stack: tensor ", i, " has shape ", ts[i]->shape,
             " but tensor 0 has shape ", ts[0]->shape, " (stack needs equal shapes)");
    us.push_back(unsqueeze(ts[i], d));
  }
  return cat(us, d);
}

constexpr int64_t kMaxPieces = int64_t(1) << 20;

std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim) {
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, "split: cannot split a 0-dim tensor");
  const int64_t d = wrap_dim(dim, a->ndim(), "split");
  const int64_t size = a->shape[d];
  TC_CHECK(split_size > 0 || (split_size == 0 && size == 0), TC_ERR_INVALID_ARGUMENT,
           "split: split_size must be positive but is ", split_size);
  std::vector<Tensor> out;
  if (size == 0) {
    out.push_back(narrow(a, d, 0, 0));
    return out;
  }
  // Each piece becomes a handle: a request for millions of them (a huge
  // broadcast dim split by 1, say) is refused before any is made.
  const int64_t pieces = size / split_size + (size % split_size != 0);
  TC_CHECK(pieces <= kMaxPieces, TC_ERR_INVALID_ARGUMENT, "split: dim ", d, " of size ", size,
           " in pieces of ", split_size, " would make ", pieces, " tensors (at most ", kMaxPieces, ")");
  out.reserve(size_t(pieces));
  for (int64_t at = 0; at < size; at += split_size)
    out.push_back(raw_narrow(a, d, at, std::min(split_size, size - at)));
  // One node for all the pieces (detail::pieces_grad).
  const Dims in_shape = a->shape;
  autograd::record_function("SplitBackward", {a}, out, {},
                            [in_shape, d, split_size](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              if (creating_graph())  // recorded: the pieces' gradients concatenated
                                return {cat(pieces_or_zeros(g,
                                                            [&](size_t i) {
                                                              Dims piece = in_shape;
                                                              const int64_t at = int64_t(i) * split_size;
                                                              piece[d] =
                                                                  std::min(split_size, in_shape[d] - at);
                                                              return piece;
                                                            }),
                                            d)};
                              return {pieces_grad(in_shape, g, [&](const Tensor& t, int64_t i) {
                                const int64_t at = i * split_size;
                                return raw_narrow(t, d, at, std::min(split_size, in_shape[d] - at));
                              })};
                            });
  return out;
}

std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim) {
  TC_CHECK(chunks > 0, TC_ERR_INVALID_ARGUMENT, "chunk: chunks must be positive but is ", chunks);
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, "chunk: cannot chunk a 0-dim tensor");
  const int64_t d = wrap_dim(dim, a->ndim(), "chunk");
  const int64_t size = a->shape[d];
  if (size == 0) {  // torch.chunk gives `chunks` empty pieces
    TC_CHECK(chunks <= kMaxPieces, TC_ERR_INVALID_ARGUMENT, "chunk: ", chunks,
             " pieces are too many (at most ", kMaxPieces, ")");
    std::vector<Tensor> out;
    out.reserve(size_t(chunks));
    for (int64_t i = 0; i < chunks; ++i) out.push_back(narrow(a, d, 0, 0));
    return out;
  }
  // Like torch.chunk: pieces of ceil(size / chunks), so there may be fewer pieces.
  const int64_t piece =
      std::max<int64_t>(1, size / chunks + (size % chunks != 0));  // no size + chunks overflow
  return split(a, piece, d);
}

namespace {
void check_index_tensor(const char* op, const Tensor& index) {
  TC_CHECK(index->dtype == DType::i64, TC_ERR_DTYPE, op, ": index must be an int64 tensor but is ",
           describe(index));
}
}  // namespace

namespace {
Tensor record_gather(const Tensor& a, int64_t d, const Tensor& ic, const Tensor& out) {
  const Dims in = a->shape;
  autograd::record_function(
      "GatherBackward", {a}, {out}, {ic}, [=](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        const Tensor idx = s[0];  // under create_graph: gather's adjoint
        return {linear_of_grad("GatherBackwardBackward", g[0], scatter_add_grad(g[0], s[0], in, d),
                               [idx, d](const Tensor& gg) { return gather(gg, d, idx); })};
      });
  return out;
}
}  // namespace

Tensor gather(const Tensor& a, int64_t dim, const Tensor& index) {
  check_operands("gather", "a", a, index);
  check_index_tensor("gather", index);
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, "gather: a is 0-dim");
  const int64_t d = wrap_dim(dim, a->ndim(), "gather");
  TC_CHECK(index->ndim() == a->ndim(), TC_ERR_SHAPE, "gather: index has ", index->ndim(), " dims but a has ",
           a->ndim(), " (a ", a->shape, ", index ", index->shape, ")");
  for (int64_t k = 0; k < index->ndim(); ++k) {
    TC_CHECK(k == d || index->shape[k] <= a->shape[k], TC_ERR_SHAPE, "gather: index has shape ", index->shape,
             " which is larger than a's ", a->shape, " in dim ", k);
  }
  const int64_t len = a->shape[d];
  // Walk index and out together; read a at the gathered position.
  Tensor out = empty(index->shape, a->dtype, a->device);
  Tensor ic = tc::contiguous(index);
  const Backend& be = backend_for(a);
  const int64_t bad = be.first_out_of_range(ic, len);
  TC_CHECK(bad < 0, TC_ERR_INDEX, "gather: index ", be.read_index(ic, bad), " is out of range for dim ", d,
           " of size ", len);
  be.index_gather(out, a, d, ic, false);
  return record_gather(a, d, ic, out);
}

Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index) {
  check_operands("index_select", "a", a, index);
  check_index_tensor("index_select", index);
  TC_CHECK(index->ndim() <= 1, TC_ERR_SHAPE, "index_select: index must be 0-dim or 1-D but has shape ",
           index->shape);
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, "index_select: a is 0-dim");
  const int64_t d = wrap_dim(dim, a->ndim(), "index_select");
  Tensor ic = tc::contiguous(index);
  const int64_t count = ic->numel();
  const Dims in = a->shape;
  const Backend& be = backend_for(a);
  const int64_t bad = be.first_out_of_range(ic, a->shape[d]);
  TC_CHECK(bad < 0, TC_ERR_INDEX, "index_select: index ", be.read_index(ic, bad), " is out of range for dim ",
           d, " of size ", a->shape[d]);
  Dims shape = a->shape;
  shape[d] = count;
  Tensor out = empty(shape, a->dtype, a->device);
  be.index_gather(out, a, d, ic, true);
  autograd::record_function(
      "IndexSelectBackward", {a}, {out}, {ic}, [=](const Grads& g, const std::vector<Tensor>& s) -> Grads {
        Tensor gi = zeros(in, g[0]->dtype, g[0]->device);
        // Repeated indices sum, in index order.
        backend_for(gi).index_scatter_add(gi, g[0], d, s[0], true);
        const Tensor idx = s[0];  // under create_graph: index_select's adjoint
        return {linear_of_grad("IndexSelectBackwardBackward", g[0], gi,
                               [idx, d](const Tensor& gg) { return index_select(gg, d, idx); })};
      });
  return out;
}

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  check_index_tensor("one_hot", indices);
  TC_CHECK(num_classes >= -1, TC_ERR_INVALID_ARGUMENT, "one_hot: num_classes must be -1 or >= 0 but is ",
           num_classes);
  Tensor ic = tc::contiguous(indices);
  const int64_t n = ic->numel();
  const Backend& be = backend_for(ic);
  int64_t classes = num_classes;
  if (classes < 0) {
    TC_CHECK(n > 0, TC_ERR_INVALID_ARGUMENT, "one_hot: cannot infer num_classes from an empty tensor");
    NoGradGuard ng;
    classes = be.read_index(max_all(ic), 0) + 1;
  }
  const int64_t bad = be.first_out_of_range(ic, classes);
  TC_CHECK(bad < 0, TC_ERR_INDEX, "one_hot: class index ", be.read_index(ic, bad),
           " is out of range for num_classes ", classes);
  Dims shape = indices->shape;
  TC_CHECK(shape.size() < TC_MAX_DIMS, TC_ERR_SHAPE, "one_hot: indices have too many dims");
  shape.push_back(classes);
  Tensor out = zeros(shape, DType::i64, indices->device);
  be.one_hot(out, ic, classes);
  return out;
}

}  // namespace tc::ops
