// Shape and creation ops after PyTorch: flip, roll, repeat, tile,
// repeat_interleave, diag, diagonal, eye, linspace, logspace, meshgrid, pad,
// movedim, flatten, unflatten, broadcast_to, unbind, outer and dot. Most are
// compositions of differentiable views and ops (autograd records the pieces,
// and every device that runs those pieces runs these); diagonal (a view), the
// constant pad and diag's 1-D -> 2-D form record a node of their own, since a
// composition would copy more or need a scatter.
#include <algorithm>
#include <cmath>

#include "core/parallel_for.h"
#include "ops/internal.h"
#include "ops/nn_util.h"
#include "ops/pieces_recorded.h"

namespace tc::ops {

using autograd::Grads;
using namespace detail;

namespace {

// An int64 index tensor with these values, on device (for index_select).
Tensor index_tensor(const std::vector<int64_t>& values, Device device) {
  Tensor t = empty(Dims{int64_t(values.size())}, DType::i64);
  std::copy(values.begin(), values.end(), t->data_as<int64_t>());
  return device == kCPU ? t : tc::to_device(t, device);
}

// dims wrapped to [0, ndim) and unique, else TC_ERR_INVALID_ARGUMENT naming op.
Dims unique_dims(const Dims& dims, int64_t ndim, const char* op) {
  Dims out;
  bool seen[TC_MAX_DIMS] = {};
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, ndim, op);
    TC_CHECK(!seen[w], TC_ERR_INVALID_ARGUMENT, op, ": dim ", w,
             " appears multiple times in the list of dims ", dims);
    seen[w] = true;
    out.push_back(w);
  }
  return out;
}

// PyTorch's diagonal geometry: the diagonal `offset` of dims d1, d2 as a view
// (no autograd); the diagonal becomes the last dim.
Tensor raw_diagonal(const Tensor& t, int64_t offset, int64_t d1, int64_t d2) {
  const int64_t s1 = t->shape[d1], s2 = t->shape[d2];
  int64_t size = offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2);
  size = std::max<int64_t>(size, 0);
  int64_t start = t->offset;
  if (size > 0) start += offset >= 0 ? offset * t->strides[d2] : -offset * t->strides[d1];
  Dims shape, strides;
  for (int64_t i = 0; i < t->ndim(); ++i) {
    if (i == d1 || i == d2) continue;
    shape.push_back(t->shape[i]);
    strides.push_back(t->strides[i]);
  }
  shape.push_back(size);
  strides.push_back(t->strides[d1] + t->strides[d2]);
  return make_view(t, shape, strides, start);
}

// flip, roll, repeat, repeat_interleave and the non-constant pads give new
// tensors in PyTorch even when nothing moves (no dims to flip, a zero shift,
// all repeats 1): a composition that came back as a view of the input is cloned.
Tensor fresh(const Tensor& t, const Tensor& input) { return t->storage == input->storage ? clone(t) : t; }

}  // namespace

Tensor flip(const Tensor& a, const Dims& dims) {
  const char* op = "flip";
  const Dims ds = unique_dims(dims, std::max<int64_t>(a->ndim(), 1), op);
  if (a->ndim() == 0) return clone(a);
  Tensor out = a;
  for (int64_t d : ds) {
    const int64_t n = a->shape[d];
    if (n <= 1) continue;
    std::vector<int64_t> idx(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) idx[size_t(i)] = n - 1 - i;
    out = index_select(out, d, index_tensor(idx, a->device));
  }
  return fresh(out, a);
}

Tensor roll(const Tensor& a, const Dims& shifts, const Dims& dims) {
  const char* op = "roll";
  if (dims.empty()) {
    TC_CHECK(shifts.size() == 1, TC_ERR_INVALID_ARGUMENT, op,
             ": without dims, shifts must have one entry but has ", shifts.size(), " (shifts ", shifts, ")");
    Tensor flat = reshape(a, {-1});
    return reshape(roll(flat, shifts, Dims{0}), a->shape);
  }
  TC_CHECK(shifts.size() == dims.size(), TC_ERR_INVALID_ARGUMENT, op, ": shifts and dims must align: shifts ",
           shifts, ", dims ", dims);
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, op, ": cannot roll a 0-dim tensor along a dim");
  Tensor out = a;
  for (int64_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], a->ndim(), op);
    const int64_t n = a->shape[d];
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    out = cat({narrow(out, d, n - s, s), narrow(out, d, 0, n - s)}, d);
  }
  return fresh(out, a);
}

Tensor repeat(const Tensor& a, const Dims& repeats) {
  const char* op = "repeat";
  TC_CHECK(repeats.size() >= a->ndim(), TC_ERR_INVALID_ARGUMENT, op,
           ": number of dimensions of repeat dims (", repeats.size(),
           ") can not be smaller than number of dimensions of tensor (", a->ndim(), ")");
  const int64_t k = repeats.size(), lead = k - a->ndim();
  Dims interleaved, expanded, result;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t s = i < lead ? 1 : a->shape[i - lead];
    TC_CHECK(repeats[i] >= 0, TC_ERR_INVALID_ARGUMENT, op, ": repeats must be non-negative but are ",
             repeats);
    int64_t total = 0;
    TC_CHECK(!__builtin_mul_overflow(s, repeats[i], &total), TC_ERR_OUT_OF_MEMORY, op, ": repeating shape ",
             a->shape, " by ", repeats, " overflows int64");
    interleaved.push_back(1);
    interleaved.push_back(s);
    expanded.push_back(repeats[i]);
    expanded.push_back(s);
    result.push_back(total);
  }
  if (2 * k > TC_MAX_DIMS) {
    // Too many dims to interleave with size-1 dims: gather dim by dim.
    Dims padded = a->shape;
    for (int64_t i = 0; i < lead; ++i) padded.insert(0, 1);
    Tensor out = reshape(a, padded);
    for (int64_t d = 0; d < k; ++d) {
      if (repeats[d] == 1) continue;
      std::vector<int64_t> idx(static_cast<size_t>(result[d]));
      for (int64_t o = 0; o < result[d]; ++o) idx[size_t(o)] = o % padded[d];
      out = index_select(out, d, index_tensor(idx, a->device));
    }
    return fresh(out, a);
  }
  Tensor v = reshape(a, interleaved);
  Tensor e = expand(v, expanded);
  return fresh(reshape(e, result), a);
}

Tensor tile(const Tensor& a, const Dims& reps) {
  Dims r = reps;
  while (r.size() < a->ndim()) r.insert(0, 1);
  return repeat(a, r);
}

Tensor repeat_interleave(const Tensor& a, int64_t repeats, int64_t dim) {
  const char* op = "repeat_interleave";
  TC_CHECK(repeats >= 0, TC_ERR_INVALID_ARGUMENT, op, ": repeats must be non-negative but is ", repeats);
  if (dim == TC_DIM_ALL) return repeat_interleave(reshape(a, {-1}), repeats, 0);
  const int64_t nd = std::max<int64_t>(a->ndim(), 1);
  const int64_t d = wrap_dim(dim, nd, op);
  Tensor x = a->ndim() == 0 ? reshape(a, {1}) : a;
  Dims inserted = x->shape, expanded = x->shape, result = x->shape;
  inserted.insert(d + 1, 1);
  expanded.insert(d + 1, repeats);
  TC_CHECK(!__builtin_mul_overflow(x->shape[d], repeats, &result[d]), TC_ERR_OUT_OF_MEMORY, op,
           ": repeating dim ", d, " of size ", x->shape[d], " ", repeats, " times overflows int64");
  TC_CHECK(inserted.size() <= TC_MAX_DIMS, TC_ERR_SHAPE, op, ": a has ", a->ndim(), " dims, the most is ",
           TC_MAX_DIMS - 1);
  return fresh(reshape(expand(reshape(x, inserted), expanded), result), a);
}

Tensor repeat_interleave(const Tensor& a, const Tensor& repeats, int64_t dim) {
  const char* op = "repeat_interleave";
  TC_CHECK(repeats->dtype == DType::i64 || repeats->dtype == DType::i32, TC_ERR_DTYPE, op,
           ": repeats must be an int64 or int32 tensor but is ", describe(repeats));
  TC_CHECK(repeats->ndim() <= 1, TC_ERR_SHAPE, op, ": repeats must be 0-dim or 1-D but has shape ",
           repeats->shape);
  Tensor x = dim == TC_DIM_ALL ? reshape(a, {-1}) : (a->ndim() == 0 ? reshape(a, {1}) : a);
  const int64_t d = dim == TC_DIM_ALL ? 0 : wrap_dim(dim, x->ndim(), op);
  const int64_t n = x->shape[d];
  if (repeats->numel() == 1) {
    const int64_t r = int64_t(read_element(repeats, 0));
    return repeat_interleave(x, r, d);
  }
  TC_CHECK(repeats->numel() == n, TC_ERR_SHAPE, op, ": repeats must have the same size as input along dim ",
           d, " (", n, ") but has shape ", repeats->shape);
  std::vector<int64_t> idx;
  Tensor rc = repeats->device == kCPU ? repeats : tc::to_device(repeats, kCPU);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = int64_t(read_element(rc, i));
    TC_CHECK(r >= 0, TC_ERR_INVALID_ARGUMENT, op, ": repeats can not be negative (repeats[", i, "] is ", r,
             ")");
    TC_CHECK(int64_t(idx.size()) <= INT64_MAX / 2 - r, TC_ERR_OUT_OF_MEMORY, op,
             ": the repeats sum past int64");
    idx.insert(idx.end(), size_t(r), i);
  }
  return index_select(x, d, index_tensor(idx, x->device));
}

Tensor diagonal(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2) {
  const char* op = "diagonal";
  TC_CHECK(a->ndim() >= 2, TC_ERR_SHAPE, op, ": a must have at least 2 dims but has shape ", a->shape);
  const int64_t d1 = wrap_dim(dim1, a->ndim(), op), d2 = wrap_dim(dim2, a->ndim(), op);
  TC_CHECK(d1 != d2, TC_ERR_INVALID_ARGUMENT, op, ": dim1 and dim2 cannot be identical (both are dim ", d1,
           ")");
  Tensor out = raw_diagonal(a, offset, d1, d2);
  const Dims in_shape = a->shape;
  autograd::record_function(
      "DiagonalBackward", {a}, {out}, {}, [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
        Tensor gi = zeros(in_shape, g[0]->dtype, g[0]->device);
        copy_into(raw_diagonal(gi, offset, d1, d2), g[0]);
        // under create_graph: linear in g, its adjoint the diagonal again
        return {linear_of_grad("DiagonalBackwardBackward", g[0], gi,
                               [=](const Tensor& gg) { return diagonal(gg, offset, d1, d2); })};
      });
  return out;
}

Tensor diag(const Tensor& a, int64_t k) {
  const char* op = "diag";
  TC_CHECK(a->ndim() == 1 || a->ndim() == 2, TC_ERR_SHAPE, op, ": supports 1D or 2D tensors, got shape ",
           a->shape);
  if (a->ndim() == 2) return clone(diagonal(a, k, 0, 1));
  const int64_t n = a->shape[0];
  int64_t side = 0;
  TC_CHECK(k != INT64_MIN && !__builtin_add_overflow(n, k < 0 ? -k : k, &side), TC_ERR_OUT_OF_MEMORY, op,
           ": diagonal ", k, " of a vector of size ", n, " is too large");
  Tensor out = zeros({side, side}, a->dtype, a->device);
  copy_into(raw_diagonal(out, k, 0, 1), a);
  autograd::record_function("DiagEmbedBackward", {a}, {out}, {},
                            [k](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              if (creating_graph()) return {clone(diagonal(g[0], k, 0, 1))};  // recorded
                              return {clone_data(raw_diagonal(g[0], k, 0, 1))};
                            });
  return out;
}

Tensor eye(int64_t n, int64_t m, DType dtype, Device device) {
  // m = -1 (tc_eye's "absent") makes it n x n; other negative sizes are errors.
  TC_CHECK(n >= 0 && m >= -1, TC_ERR_INVALID_ARGUMENT, "n must be >= 0 and m >= -1 but are ", n, " and ", m);
  if (m < 0) m = n;
  checked_numel(Dims{n, m}, "n, m");  // the size must fit in int64
  Tensor out = zeros({n, m}, dtype, device);
  Tensor d = raw_diagonal(out, 0, 0, 1);
  if (d->numel() > 0) copy_into(d, raw_expand(scalar_tensor(1.0, dtype, device), d->shape));
  return out;
}

namespace {
// PyTorch's linspace values, in float64: from both ends toward the middle,
// so that the first is start and the last exactly end.
Tensor linspace_f64(double start, double end, int64_t steps) {
  Tensor t = empty(Dims{steps}, DType::f64);
  double* v = t->data_as<double>();
  if (steps == 1) v[0] = start;
  if (steps <= 1) return t;
  const double step = (end - start) / double(steps - 1);
  const int64_t half = steps / 2;
  // Each value from its index alone: the split across threads changes nothing.
  parallel_for(steps, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      v[i] = i < half ? start + step * double(i) : end - step * double(steps - 1 - i);
  });
  return t;
}

Tensor finish_values(const Tensor& f64, DType dtype, Device device, const char* op) {
  TC_CHECK(dtype != DType::b8, TC_ERR_DTYPE, op, ": bool is not a supported dtype");
  Tensor c = tc::cast(f64, dtype);
  return device == kCPU ? c : tc::to_device(c, device);
}

void check_steps(double start, double end, int64_t steps, const char* op) {
  TC_CHECK(steps >= 0, TC_ERR_INVALID_ARGUMENT, op, ": number of steps must be non-negative but is ", steps);
  TC_CHECK(std::isfinite(start) && std::isfinite(end), TC_ERR_INVALID_ARGUMENT, op,
           ": start and end must be finite but are ", start, " and ", end);
  TC_CHECK(steps <= (int64_t(1) << 40), TC_ERR_OUT_OF_MEMORY, op, ": ", steps, " steps is too many");
}
}  // namespace

Tensor linspace(double start, double end, int64_t steps, DType dtype, Device device) {
  check_steps(start, end, steps, "linspace");
  // PyTorch converts start and end to an integer dtype first (-3.5 is -3).
  if (!is_floating(dtype)) start = std::trunc(start), end = std::trunc(end);
  return finish_values(linspace_f64(start, end, steps), dtype, device, "linspace");
}

Tensor logspace(double start, double end, int64_t steps, double base, DType dtype, Device device) {
  TC_CHECK(std::isfinite(base), TC_ERR_INVALID_ARGUMENT, "base must be finite but is ", base);
  check_steps(start, end, steps, "logspace");
  Tensor t = linspace_f64(start, end, steps);
  double* v = t->data_as<double>();
  parallel_for(steps, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) v[i] = std::pow(base, v[i]);
  });
  return finish_values(t, dtype, device, "logspace");
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& ts, bool xy) {
  const char* op = "meshgrid";
  TC_CHECK(!ts.empty(), TC_ERR_INVALID_ARGUMENT, op, ": expects a non-empty list of tensors");
  TC_CHECK(ts.size() <= TC_MAX_DIMS, TC_ERR_SHAPE, op, ": at most ", TC_MAX_DIMS, " tensors, got ",
           ts.size());
  Dims shape;
  for (size_t i = 0; i < ts.size(); ++i) {
    TC_CHECK(ts[i]->ndim() <= 1, TC_ERR_SHAPE, op, ": expects 0D or 1D tensors, but tensors[", i,
             "] has shape ", ts[i]->shape);
    TC_CHECK(ts[i]->dtype == ts[0]->dtype && ts[i]->device == ts[0]->device, TC_ERR_DTYPE, op,
             ": expects all tensors to have the same dtype and device, but tensors[0] is ", describe(ts[0]),
             " on ", device_name(ts[0]->device), " and tensors[", i, "] is ", describe(ts[i]), " on ",
             device_name(ts[i]->device));
    shape.push_back(ts[i]->numel());
  }
  // "xy" indexing swaps the first two output dims (Cartesian, as numpy).
  const bool swap = xy && ts.size() >= 2;
  if (swap) std::swap(shape[0], shape[1]);
  std::vector<Tensor> out;
  for (size_t i = 0; i < ts.size(); ++i) {
    int64_t pos = int64_t(i);
    if (swap && i < 2) pos = 1 - pos;
    Dims view = Dims::filled(shape.size(), 1);
    view[pos] = shape[pos];
    out.push_back(expand(reshape(ts[i], view), shape));
  }
  return out;
}

namespace {
// Where output position o (of out_size, starting `before` positions before the
// input) reads the input of `size` under a non-constant pad mode.
int64_t pad_source(int64_t o, int64_t before, int64_t after, int64_t size, int32_t mode) {
  int64_t i = o - before;
  switch (mode) {
    case TC_PAD_REFLECT:
      if (i < 0) i = -i;
      if (i >= size) i = 2 * (size - 1) - i;
      return i;
    case TC_PAD_REPLICATE:
      return std::clamp<int64_t>(i, 0, size - 1);
    default: {  // TC_PAD_CIRCULAR: PyTorch crops first, then wraps around what is left
      const int64_t first = std::max<int64_t>(0, -before);
      const int64_t kept = size - first - std::max<int64_t>(0, -after);  // > 0: checked by pad
      const int64_t k = o - std::max<int64_t>(0, before);
      return first + ((k % kept) + kept) % kept;
    }
  }
}

std::string pad_text(const std::vector<int64_t>& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
  return s + "]";
}

const char* pad_mode_name(int32_t mode) {
  switch (mode) {
    case TC_PAD_CONSTANT:
      return "constant";
    case TC_PAD_REFLECT:
      return "reflect";
    case TC_PAD_REPLICATE:
      return "replicate";
    default:
      return "circular";
  }
}
}  // namespace

Tensor pad(const Tensor& a, const std::vector<int64_t>& p, int32_t mode, double value) {
  const char* op = "pad";
  const int64_t np = int64_t(p.size());
  TC_CHECK(mode == TC_PAD_CONSTANT || mode == TC_PAD_REFLECT || mode == TC_PAD_REPLICATE ||
               mode == TC_PAD_CIRCULAR,
           TC_ERR_INVALID_ARGUMENT, op, ": unknown mode ", mode,
           " (TC_PAD_CONSTANT, TC_PAD_REFLECT, TC_PAD_REPLICATE or TC_PAD_CIRCULAR)");
  TC_CHECK(np % 2 == 0, TC_ERR_INVALID_ARGUMENT, op, ": padding length must be divisible by 2, got ", np,
           " (pad ", pad_text(p), ")");
  TC_CHECK(np / 2 <= a->ndim(), TC_ERR_INVALID_ARGUMENT, op, ": padding length (", np,
           ") is too large for a tensor of shape ", a->shape, " (at most twice its dims)");
  TC_CHECK(mode == TC_PAD_CONSTANT || value == 0.0, TC_ERR_INVALID_ARGUMENT, op, ": padding mode \"",
           pad_mode_name(mode), "\" doesn't take in value argument");
  const int64_t nd = a->ndim();
  // pad[2j], pad[2j+1]: before and after of dim nd-1-j (PyTorch's order).
  Dims out_shape = a->shape;
  for (int64_t j = 0; j < np / 2; ++j) {
    const int64_t d = nd - 1 - j, size = a->shape[d], lo = p[size_t(2 * j)], hi = p[size_t(2 * j + 1)];
    int64_t total = 0;
    TC_CHECK(
        !__builtin_add_overflow(size, lo, &total) && !__builtin_add_overflow(total, hi, &total) && total >= 0,
        TC_ERR_INVALID_ARGUMENT, op, ": the padded size of dim ", d, " (", size, " + ", lo, " + ", hi,
        ") is negative or overflows (input shape ", a->shape, ", pad ", pad_text(p), ")");
    if (mode == TC_PAD_REFLECT)
      TC_CHECK(lo < size && hi < size && lo > -size && hi > -size, TC_ERR_INVALID_ARGUMENT, op,
               ": padding size should be less than the corresponding input dimension, but got: padding (", lo,
               ", ", hi, ") at dimension ", d, " of input ", a->shape);
    if (mode == TC_PAD_CIRCULAR) {
      TC_CHECK(lo <= size && hi <= size, TC_ERR_INVALID_ARGUMENT, op,
               ": padding value causes wrapping around more than once (padding (", lo, ", ", hi,
               ") at dimension ", d, " of input ", a->shape, ")");
      TC_CHECK(total == 0 || size - std::max<int64_t>(0, -lo) - std::max<int64_t>(0, -hi) > 0,
               TC_ERR_INVALID_ARGUMENT, op, ": cannot circular-pad dim ", d, ": cropping (", lo, ", ", hi,
               ") leaves nothing to wrap (input ", a->shape, ")");
    }
    if (mode != TC_PAD_CONSTANT)
      TC_CHECK(size > 0 || total == 0, TC_ERR_INVALID_ARGUMENT, op, ": cannot ", pad_mode_name(mode),
               "-pad dim ", d, " of size 0 (input ", a->shape, ")");
    out_shape[d] = total;
  }
  if (mode != TC_PAD_CONSTANT) {
    Tensor out = a;
    for (int64_t j = 0; j < np / 2; ++j) {
      const int64_t d = nd - 1 - j;
      if (p[size_t(2 * j)] == 0 && p[size_t(2 * j + 1)] == 0) continue;
      std::vector<int64_t> idx(static_cast<size_t>(out_shape[d]));
      for (int64_t o = 0; o < out_shape[d]; ++o)
        idx[size_t(o)] = pad_source(o, p[size_t(2 * j)], p[size_t(2 * j + 1)], a->shape[d], mode);
      out = index_select(out, d, index_tensor(idx, a->device));
    }
    return fresh(out, a);
  }
  // Constant: value (checked like tc_full's) everywhere, then the kept part
  // of a copied into its place.
  value = checked_fill_value(op, value, a->dtype);
  // Negative pads crop; the gradient is g's window for the kept part, 0 for the cropped.
  Tensor out = full(out_shape, value, a->dtype, a->device);
  auto windows = [p, np, nd](const Tensor& in, const Tensor& res, bool want_in) {
    Tensor w = want_in ? in : res;
    for (int64_t j = 0; j < np / 2; ++j) {
      const int64_t d = nd - 1 - j, lo = p[size_t(2 * j)], hi = p[size_t(2 * j + 1)];
      const int64_t in_start = std::max<int64_t>(0, -lo);
      const int64_t kept = std::max<int64_t>(0, in->shape[d] - in_start - std::max<int64_t>(0, -hi));
      w = raw_narrow(w, d, want_in ? in_start : std::max<int64_t>(0, lo), kept);
    }
    return w;
  };
  if (out->numel() > 0) {
    Tensor src = windows(a, out, true);
    if (src->numel() > 0) copy_into(windows(a, out, false), src);
  }
  const Dims in_shape = a->shape;
  autograd::record_function("ConstantPadNdBackward", {a}, {out}, {},
                            [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              if (creating_graph()) {  // recorded: the opposite padding crops g back
                                std::vector<int64_t> back(p.size());
                                for (size_t i = 0; i < p.size(); ++i) back[i] = -p[i];
                                return {pad(g[0], back, TC_PAD_CONSTANT, 0.0)};
                              }
                              Tensor gi = zeros(in_shape, g[0]->dtype, g[0]->device);
                              Tensor dst = windows(gi, g[0], true);
                              if (dst->numel() > 0) copy_into(dst, windows(gi, g[0], false));
                              return {gi};
                            });
  return out;
}

Tensor movedim(const Tensor& a, const Dims& source, const Dims& destination) {
  const char* op = "movedim";
  TC_CHECK(source.size() == destination.size(), TC_ERR_INVALID_ARGUMENT, op,
           ": Invalid source or destination dims: source (", source,
           " dims) should contain the same number of dims "
           "as destination (",
           destination, " dims)");
  const int64_t nd = std::max<int64_t>(a->ndim(), 1);
  const Dims src = unique_dims(source, nd, op), dst = unique_dims(destination, nd, op);
  if (a->ndim() == 0) return view(a, a->shape);
  Dims perm = Dims::filled(a->ndim(), -1);
  bool used[TC_MAX_DIMS] = {};
  for (int64_t i = 0; i < src.size(); ++i) {
    perm[dst[i]] = src[i];
    used[src[i]] = true;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < a->ndim(); ++d) {
    if (perm[d] >= 0) continue;
    while (used[next]) ++next;
    perm[d] = next++;
  }
  return permute(a, perm);
}

Tensor flatten(const Tensor& a, int64_t start_dim, int64_t end_dim) {
  const char* op = "flatten";
  const int64_t nd = std::max<int64_t>(a->ndim(), 1);
  const int64_t s = wrap_dim(start_dim, nd, op), e = wrap_dim(end_dim, nd, op);
  TC_CHECK(s <= e, TC_ERR_INVALID_ARGUMENT, op, ": start_dim (", s, ") cannot come after end_dim (", e, ")");
  if (a->ndim() == 0) return reshape(a, {1});
  if (s == e) return view(a, a->shape);
  Dims shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(a->shape[d]);
  shape.push_back(-1);
  for (int64_t d = e + 1; d < a->ndim(); ++d) shape.push_back(a->shape[d]);
  int64_t prod = 1;
  for (int64_t d = s; d <= e; ++d) prod *= a->shape[d];
  shape[s] = prod;
  return reshape(a, shape);
}

Tensor unflatten(const Tensor& a, int64_t dim, const Dims& sizes) {
  const char* op = "unflatten";
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, op, ": cannot unflatten a 0-dim tensor");
  TC_CHECK(!sizes.empty(), TC_ERR_INVALID_ARGUMENT, op, ": sizes must be non-empty");
  const int64_t d = wrap_dim(dim, a->ndim(), op);
  TC_CHECK(a->ndim() - 1 + sizes.size() <= TC_MAX_DIMS, TC_ERR_SHAPE, op,
           ": the result would have more than ", TC_MAX_DIMS, " dims");
  const Dims inner = infer_shape(sizes, a->shape[d], op);  // checks the product, resolves one -1
  Dims shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(a->shape[i]);
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t i = d + 1; i < a->ndim(); ++i) shape.push_back(a->shape[i]);
  return reshape(a, shape);
}

Tensor broadcast_to(const Tensor& a, const Dims& shape) { return expand(a, shape); }

std::vector<Tensor> unbind(const Tensor& a, int64_t dim) {
  const char* op = "unbind";
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, op, ": dimension specified as ", dim,
           " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, a->ndim(), op);
  std::vector<Tensor> out;
  out.reserve(size_t(a->shape[d]));
  for (int64_t i = 0; i < a->shape[d]; ++i) out.push_back(raw_select(a, d, i));
  // One node for all the slices (detail::pieces_grad), as split's.
  const Dims in_shape = a->shape;
  if (!out.empty())
    autograd::record_function(
        "UnbindBackward", {a}, out, {}, [in_shape, d](const Grads& g, const std::vector<Tensor>&) -> Grads {
          if (creating_graph()) {  // recorded: the pieces' gradients stacked (zeros for those without)
            Dims piece = in_shape;
            piece.erase(d);
            return {stack(pieces_or_zeros(g, [&](size_t) { return piece; }), d)};
          }
          return {pieces_grad(in_shape, g, [&](const Tensor& t, int64_t i) { return raw_select(t, d, i); })};
        });
  return out;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  const char* op = "outer";
  TC_CHECK(a->ndim() == 1, TC_ERR_SHAPE, op, ": expected 1-D argument a, but got shape ", a->shape);
  TC_CHECK(b->ndim() == 1, TC_ERR_SHAPE, op, ": expected 1-D argument b, but got shape ", b->shape);
  return mul(reshape(a, {-1, 1}), reshape(b, {1, -1}));
}

Tensor dot(const Tensor& a, const Tensor& b) {
  const char* op = "dot";
  TC_CHECK(a->ndim() == 1 && b->ndim() == 1, TC_ERR_SHAPE, op, ": 1D tensors expected, but got shapes ",
           a->shape, " and ", b->shape);
  TC_CHECK(a->shape[0] == b->shape[0], TC_ERR_SHAPE, op, ": inconsistent tensor size, expected a of shape ",
           a->shape, " and b of shape ", b->shape, " to have the same number of elements");
  TC_CHECK(a->dtype == b->dtype, TC_ERR_DTYPE, op, ": expected both vectors to have same dtype, but found ",
           dtype_name(a->dtype), " and ", dtype_name(b->dtype));
  check_compute_dtype(op, "a", a->dtype, false);
  Tensor s = sum(mul(a, b), {}, false);
  return s->dtype == a->dtype ? s : to_dtype(s, a->dtype);  // integer sums widen; dot keeps the dtype
}

}  // namespace tc::ops
