// PyTorch's type promotion (c10's result_type): tensors with dims decide first;
// 0-dim tensors only when they are of a higher category (bool < integer <
// floating); a Python-like float scalar only lifts bool/integer to the default dtype.
#include "core/init.h"
#include "ops/internal.h"

namespace tc::ops {

namespace {

// c10's combine_categories(higher, lower); `defined` flags stand in for Undefined.
DType combine(bool has_higher, DType higher, bool has_lower, DType lower) {
  if (!has_higher) return lower;
  if (!has_lower) return higher;
  if (is_complex(higher)) return higher;
  // A complex 0-dim tensor lifts a floating one to complex of its width, an integer one to itself.
  if (is_complex(lower)) return is_floating(higher) ? to_complex_dtype(higher) : lower;
  if (is_floating(higher)) return higher;
  if (higher == DType::b8 || is_floating(lower)) return promote_types(higher, lower);
  return higher;
}

}  // namespace

DType result_type(const std::vector<Tensor>& inputs) {
  bool has_dim = false, has_zero = false;
  DType dim = DType::b8, zero = DType::b8;
  for (const Tensor& t : inputs) {
    if (!t) continue;
    if (t->ndim() > 0) {
      dim = has_dim ? promote_types(dim, t->dtype) : t->dtype;
      has_dim = true;
    } else {
      zero = has_zero ? promote_types(zero, t->dtype) : t->dtype;
      has_zero = true;
    }
  }
  TC_CHECK(has_dim || has_zero, TC_ERR_INVALID_ARGUMENT, "result_type: no tensors given");
  return combine(has_dim, dim, has_zero, zero);
}

namespace detail {
DType result_type2(const Tensor& a, const Tensor& b) {
  const bool ad = a->ndim() > 0, bd = b->ndim() > 0;
  if (ad == bd) return promote_types(a->dtype, b->dtype);
  return ad ? combine(true, a->dtype, true, b->dtype) : combine(true, b->dtype, true, a->dtype);
}
}  // namespace detail

DType result_type_scalar(const Tensor& a) {
  return is_floating(a->dtype) || is_complex(a->dtype) ? a->dtype : default_dtype();
}

Dims broadcast_shapes(const Dims& a, const Dims& b, const char* op) {
  const int64_t n = std::max(a.size(), b.size());
  Dims out = Dims::filled(n, 1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ia = i - (n - a.size()), ib = i - (n - b.size());
    const int64_t x = ia >= 0 ? a[ia] : 1, y = ib >= 0 ? b[ib] : 1;
    TC_CHECK(x == y || x == 1 || y == 1, TC_ERR_SHAPE, op, ": a has shape ", a, " and b has shape ", b,
             ": cannot broadcast (dim ", i, ": ", x, " vs ", y, ")");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

}  // namespace tc::ops
