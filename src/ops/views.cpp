// Views share storage with their base (tc::make_view) and are differentiable:
// the backward of a view gives the gradient for the base's shape.
#include <algorithm>
#include <numeric>

#include "ops/internal.h"

namespace tc::ops {

namespace detail {

std::string describe(const Tensor& t) { return str(dtype_name(t->dtype), " tensor of shape ", t->shape); }

void check_same_device(const char* op, const Tensor& a, const Tensor& b, bool cuda_ok) {
  TC_CHECK(a->device == b->device, TC_ERR_DEVICE, op, ": tensors are on different devices (",
           device_name(a->device), " and ", device_name(b->device), ")");
  TC_CHECK(device_type(a->device) == TC_DEVICE_CPU || (cuda_ok && device_type(a->device) == TC_DEVICE_CUDA),
           TC_ERR_NOT_IMPLEMENTED, op, ": not implemented on ", device_name(a->device));
}

void check_compute_dtype(const char* op, const char* arg, DType d, bool allow_bool) {
  TC_CHECK(!is_complex(d), TC_ERR_DTYPE, op, ": ", arg, " is ", dtype_name(d), ", and ", op,
           " does not support complex tensors");
  TC_CHECK(d != DType::f16 && d != DType::bf16, TC_ERR_DTYPE, op, ": ", arg, " is ", dtype_name(d),
           ", which the CPU only converts (cast it to float32 first)");
  TC_CHECK(allow_bool || d != DType::b8, TC_ERR_DTYPE, op, ": ", arg,
           " is bool, and arithmetic on bool tensors is not supported");
}

Dims infer_shape(const Dims& shape, int64_t numel, const char* op) {
  Dims out = shape;
  int64_t infer = -1, known = 1;
  for (int64_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      TC_CHECK(infer < 0, TC_ERR_SHAPE, op, ": only one dim can be -1 (shape ", shape, ")");
      infer = i;
    } else {
      TC_CHECK(shape[i] >= 0, TC_ERR_SHAPE, op, ": invalid size ", shape[i], " at dim ", i, " (shape ", shape,
               ")");
      TC_CHECK(!__builtin_mul_overflow(known, shape[i], &known), TC_ERR_SHAPE, op, ": the product of shape ",
               shape, " overflows int64");
    }
  }
  if (infer >= 0) {
    TC_CHECK(known != 0 && numel % known == 0, TC_ERR_SHAPE, op, ": shape ", shape,
             " is invalid for input of size ", numel);
    out[infer] = numel / known;
  } else {
    TC_CHECK(known == numel, TC_ERR_SHAPE, op, ": shape ", shape, " is invalid for input of size ", numel);
  }
  return out;
}

// PyTorch's computeStride: the strides of a view of t with `shape`, if one exists.
Tensor raw_view(const Tensor& t, const Dims& shape) {
  if (t->numel() <= 1 || t->is_contiguous()) return make_view(t, shape, contiguous_strides(shape), t->offset);
  Dims strides = Dims::filled(shape.size(), 0);
  int64_t view_d = shape.size() - 1;
  int64_t chunk_base_stride = t->strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = t->ndim() - 1; d >= 0; --d) {
    tensor_numel *= t->shape[d];
    if (d == 0 || (t->shape[d - 1] != 1 && t->strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return nullptr;
      if (d > 0) {
        chunk_base_stride = t->strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return nullptr;
  return make_view(t, shape, strides, t->offset);
}

Tensor raw_reshape(const Tensor& t, const Dims& shape) {
  if (Tensor v = raw_view(t, shape)) return v;
  Tensor c = clone_data(t);
  return make_view(c, shape, contiguous_strides(shape), c->offset);
}

Tensor raw_permute(const Tensor& t, const Dims& perm) {
  Dims shape, strides;
  for (int64_t i = 0; i < perm.size(); ++i) {
    shape.push_back(t->shape[perm[i]]);
    strides.push_back(t->strides[perm[i]]);
  }
  return make_view(t, shape, strides, t->offset);
}

Tensor raw_narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  Dims shape = t->shape;
  shape[dim] = length;
  int64_t skip = 0;
  if (length > 0 && __builtin_mul_overflow(start, t->strides[dim], &skip)) skip = 0;  // only with no elements
  return make_view(t, shape, t->strides, t->offset + skip);
}

Tensor raw_slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Dims shape = t->shape, strides = t->strides;
  const int64_t len = end > start ? (end - start + step - 1) / step : 0;
  shape[dim] = len;
  // These products can only overflow when the tensor has no elements (its
  // strides are then arbitrary and may be huge); any value is right then.
  if (__builtin_mul_overflow(strides[dim], step, &strides[dim])) strides[dim] = 0;
  int64_t skip = 0;
  if (len > 0 && __builtin_mul_overflow(start, t->strides[dim], &skip)) skip = 0;
  return make_view(t, shape, strides, t->offset + skip);
}

Tensor raw_select(const Tensor& t, int64_t dim, int64_t index) {
  Dims shape = t->shape, strides = t->strides;
  shape.erase(dim);
  strides.erase(dim);
  int64_t skip = 0;
  if (__builtin_mul_overflow(index, t->strides[dim], &skip)) skip = 0;  // only with no elements
  return make_view(t, shape, strides, t->offset + skip);
}

Tensor raw_expand(const Tensor& t, const Dims& shape) {
  // t's dims aligned to the right; stride 0 where t has size 1 or lacks the dim.
  Dims strides = Dims::filled(shape.size(), 0);
  const int64_t lead = shape.size() - t->ndim();
  for (int64_t i = 0; i < t->ndim(); ++i) strides[lead + i] = t->shape[i] == 1 ? 0 : t->strides[i];
  return make_view(t, shape, strides, t->offset);
}

Dims keepdim_shape(const Tensor& t, const Dims& dims, const char* op, bool reduced[TC_MAX_DIMS]) {
  for (int64_t i = 0; i < TC_MAX_DIMS; ++i) reduced[i] = dims.empty() && i < t->ndim();
  Dims shape = t->shape;
  for (int64_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], std::max<int64_t>(t->ndim(), 1), op);
    if (t->ndim() == 0) continue;  // a 0-dim tensor reduces over "dim 0" like PyTorch
    TC_CHECK(!reduced[d], TC_ERR_INVALID_ARGUMENT, op, ": dim ", d, " appears more than once in the dims ",
             dims);
    reduced[d] = true;
  }
  for (int64_t d = 0; d < t->ndim(); ++d) {
    if (reduced[d]) shape[d] = 1;
  }
  return shape;
}

Dims squeeze_marked(const Dims& shape, const bool reduced[TC_MAX_DIMS]) {
  Dims out;
  for (int64_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) out.push_back(shape[d]);
  }
  return out;
}

}  // namespace detail

using namespace detail;
using autograd::Grads;

namespace {

// The gradient of a view, given how to take the same view of a zero tensor of
// the base's shape: zeros, then the incoming gradient copied into that view.
template <typename ViewFn>
Tensor scatter_into_zeros(const Dims& base_shape, const Tensor& g, ViewFn view_of) {
  Tensor gi = zeros(base_shape, g->dtype, g->device);
  copy_into(view_of(gi), g);
  return gi;
}

Tensor reshape_like(const Tensor& t, const Dims& shape, bool must_view, const char* op) {
  const Dims target = infer_shape(shape, t->numel(), op);
  Tensor v = raw_view(t, target);
  TC_CHECK(v || !must_view, TC_ERR_SHAPE, op, ": a view of shape ", target,
           " is not possible for a tensor of shape ", t->shape, " and strides ", t->strides,
           " (use reshape, which copies)");
  const bool copied = !v;
  if (copied) v = raw_reshape(t, target);
  const Dims in_shape = t->shape;
  autograd::record_function(copied ? "ReshapeBackward" : "ViewBackward", {t}, {v}, {},
                            [in_shape](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              return {bw_reshape(g[0], in_shape)};
                            });
  return v;
}

}  // namespace

Tensor reshape(const Tensor& t, const Dims& shape) { return reshape_like(t, shape, false, "reshape"); }
Tensor view(const Tensor& t, const Dims& shape) { return reshape_like(t, shape, true, "view"); }

Tensor permute(const Tensor& t, const Dims& dims) {
  TC_CHECK(dims.size() == t->ndim(), TC_ERR_INVALID_ARGUMENT, "permute: got ", dims.size(),
           " dims for a tensor with ", t->ndim(), " dims (dims ", dims, ", shape ", t->shape, ")");
  Dims perm, inverse = Dims::filled(t->ndim(), -1);
  for (int64_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], t->ndim(), "permute");
    TC_CHECK(inverse[d] < 0, TC_ERR_INVALID_ARGUMENT, "permute: dim ", d, " repeats in ", dims);
    inverse[d] = i;
    perm.push_back(d);
  }
  Tensor out = raw_permute(t, perm);
  autograd::record_function(
      "PermuteBackward", {t}, {out}, {},
      [inverse](const Grads& g, const std::vector<Tensor>&) -> Grads { return {bw_permute(g[0], inverse)}; });
  return out;
}

Tensor transpose(const Tensor& t, int64_t dim0, int64_t dim1) {
  const int64_t n = std::max<int64_t>(t->ndim(), 1);
  const int64_t a = wrap_dim(dim0, n, "transpose"), b = wrap_dim(dim1, n, "transpose");
  if (t->ndim() == 0) return view(t, t->shape);
  Dims perm;
  for (int64_t i = 0; i < t->ndim(); ++i) perm.push_back(i);
  std::swap(perm[a], perm[b]);
  Tensor out = raw_permute(t, perm);
  autograd::record_function("TransposeBackward", {t}, {out}, {},
                            [perm](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              return {bw_permute(g[0], perm)};  // a swap is its own inverse
                            });
  return out;
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  TC_CHECK(t->ndim() > 0, TC_ERR_INDEX, "narrow: cannot narrow a 0-dim tensor");
  const int64_t d = wrap_dim(dim, t->ndim(), "narrow");
  const int64_t size = t->shape[d];
  if (start < 0 && start >= -size) start += size;
  TC_CHECK(start >= 0 && start <= size, TC_ERR_INDEX, "narrow: start ", start, " is out of range for dim ", d,
           " of size ", size);
  TC_CHECK(length >= 0 && length <= size - start, TC_ERR_INDEX, "narrow: start (", start, ") + length (",
           length, ") exceeds dim ", d, " of size ", size);
  Tensor out = raw_narrow(t, d, start, length);
  const Dims in_shape = t->shape;
  autograd::record_function(
      "NarrowBackward", {t}, {out}, {}, [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
        return {linear_of_grad(
            "NarrowBackwardBackward", g[0],
            scatter_into_zeros(in_shape, g[0],
                               [&](const Tensor& z) { return raw_narrow(z, d, start, length); }),
            [=](const Tensor& gg) { return narrow(gg, d, start, length); })};
      });
  return out;
}

Tensor slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
  TC_CHECK(t->ndim() > 0, TC_ERR_INDEX, "slice: cannot slice a 0-dim tensor");
  TC_CHECK(step > 0, TC_ERR_INVALID_ARGUMENT, "slice: step must be positive but is ", step);
  const int64_t d = wrap_dim(dim, t->ndim(), "slice");
  const int64_t size = t->shape[d];
  auto clampi = [size](int64_t i) {
    if (i < 0) i += size;
    return std::min(std::max<int64_t>(i, 0), size);
  };
  start = clampi(start);
  end = std::max(clampi(end), start);
  Tensor out = raw_slice(t, d, start, end, step);
  const Dims in_shape = t->shape;
  autograd::record_function(
      "SliceBackward", {t}, {out}, {}, [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
        return {linear_of_grad(
            "SliceBackwardBackward", g[0],
            scatter_into_zeros(in_shape, g[0],
                               [&](const Tensor& z) { return raw_slice(z, d, start, end, step); }),
            [=](const Tensor& gg) { return slice(gg, d, start, end, step); })};
      });
  return out;
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  TC_CHECK(t->ndim() > 0, TC_ERR_INDEX, "select: cannot select from a 0-dim tensor");
  const int64_t d = wrap_dim(dim, t->ndim(), "select");
  const int64_t size = t->shape[d];
  TC_CHECK(index >= -size && index < size, TC_ERR_INDEX, "select: index ", index, " is out of range for dim ",
           d, " of size ", size);
  if (index < 0) index += size;
  Tensor out = raw_select(t, d, index);
  const Dims in_shape = t->shape;
  autograd::record_function(
      "SelectBackward", {t}, {out}, {}, [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
        return {linear_of_grad(
            "SelectBackwardBackward", g[0],
            scatter_into_zeros(in_shape, g[0], [&](const Tensor& z) { return raw_select(z, d, index); }),
            [=](const Tensor& gg) { return select(gg, d, index); })};
      });
  return out;
}

Tensor squeeze(const Tensor& t, int64_t dim) {
  Dims shape, strides;
  const int64_t only = dim == TC_DIM_ALL ? -1 : wrap_dim(dim, std::max<int64_t>(t->ndim(), 1), "squeeze");
  for (int64_t d = 0; d < t->ndim(); ++d) {
    const bool drop = t->shape[d] == 1 && (only < 0 || only == d);
    if (drop) continue;
    shape.push_back(t->shape[d]);
    strides.push_back(t->strides[d]);
  }
  Tensor out = make_view(t, shape, strides, t->offset);
  const Dims in_shape = t->shape;
  autograd::record_function("SqueezeBackward", {t}, {out}, {},
                            [in_shape](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              return {bw_reshape(g[0], in_shape)};
                            });
  return out;
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  TC_CHECK(t->ndim() < TC_MAX_DIMS, TC_ERR_SHAPE, "unsqueeze: a tensor has at most ", TC_MAX_DIMS, " dims");
  const int64_t d = wrap_dim(dim, t->ndim() + 1, "unsqueeze");
  Dims shape = t->shape, strides = t->strides;
  const int64_t stride = d < t->ndim() ? t->shape[d] * t->strides[d] : 1;
  shape.insert(d, 1);
  strides.insert(d, stride);
  Tensor out = make_view(t, shape, strides, t->offset);
  const Dims in_shape = t->shape;
  autograd::record_function("UnsqueezeBackward", {t}, {out}, {},
                            [in_shape](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              return {bw_reshape(g[0], in_shape)};
                            });
  return out;
}

Tensor expand(const Tensor& t, const Dims& shape_in) {
  TC_CHECK(shape_in.size() >= t->ndim(), TC_ERR_SHAPE, "expand: the shape ", shape_in,
           " has fewer dims than the tensor's ", t->shape);
  Dims shape = shape_in;
  const int64_t lead = shape.size() - t->ndim();
  for (int64_t i = 0; i < shape.size(); ++i) {
    if (i < lead) {
      TC_CHECK(shape[i] >= 0, TC_ERR_SHAPE, "expand: size ", shape[i], " is invalid for the new leading dim ",
               i);
      continue;
    }
    const int64_t have = t->shape[i - lead];
    if (shape[i] == -1) shape[i] = have;
    TC_CHECK(shape[i] == have || have == 1, TC_ERR_SHAPE, "expand: the tensor of shape ", t->shape,
             " cannot be expanded to ", shape_in, " (dim ", i, ": ", have, " vs ", shape[i], ")");
  }
  checked_numel(shape, "expand");  // a huge shape must not wrap around
  Tensor out = raw_expand(t, shape);
  const Dims in_shape = t->shape;
  autograd::record_function("ExpandBackward", {t}, {out}, {},
                            [in_shape](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              return {autograd::reduce_to_shape(g[0], in_shape)};
                            });
  return out;
}

Tensor clone(const Tensor& t) {
  Tensor out = clone_data(t);
  autograd::record_function("CloneBackward", {t}, {out}, {},
                            [](const Grads& g, const std::vector<Tensor>&) -> Grads { return {g[0]}; });
  return out;
}

Tensor contiguous(const Tensor& t) { return t->is_contiguous() ? t : clone(t); }

Tensor detach(const Tensor& t) { return autograd::alias(t); }

Tensor to_dtype(const Tensor& t, DType dtype) {
  if (t->dtype == dtype) return t;
  Tensor out = cast(t, dtype);
  if (is_complex(t->dtype) && !is_complex(dtype) && is_floating(dtype)) {
    // The imaginary part is dropped: its gradient is 0 (PyTorch's ToCopyBackward).
    const DType in = t->dtype;
    autograd::record_function(
        "ToCopyBackward", {t}, {out}, {},
        [in](const Grads& g, const std::vector<Tensor>&) -> Grads { return {cast(g[0], in)}; });
  } else if (is_complex(dtype) && is_floating(t->dtype)) {
    // Real to complex: the input's gradient is the real part of g.
    const DType in = t->dtype;
    autograd::record_function(
        "ToCopyBackward", {t}, {out}, {},
        [in](const Grads& g, const std::vector<Tensor>&) -> Grads { return {cast(real(g[0]), in)}; });
  } else if (is_differentiable(dtype) && is_differentiable(t->dtype)) {
    const DType in = t->dtype;
    autograd::record_function(
        "ToCopyBackward", {t}, {out}, {},
        [in](const Grads& g, const std::vector<Tensor>&) -> Grads { return {bw_cast(g[0], in)}; });
  }
  return out;
}

Tensor to_device(const Tensor& t, Device device) {
  if (t->device == device) return t;
  Tensor out = tc::to_device(t, device);
  const Device in = t->device;
  autograd::record_function("ToCopyBackward", {t}, {out}, {},
                            [in](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              return {creating_graph() ? ops::to_device(g[0], in) : tc::to_device(g[0], in)};
                            });
  return out;
}

}  // namespace tc::ops
