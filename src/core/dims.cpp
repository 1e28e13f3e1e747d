// The shape arithmetic every layer needs (Dims, element counts, strides,
// contiguity): stateless, so the CUDA module compiles its own copy of this
// file (CMakeLists.txt: TC_SHARED_WITH_MODULE) instead of calling the core.
#include <ostream>

#include "core/error.h"
#include "core/tensor.h"

namespace tc {

// ---- Dims ----
Dims Dims::filled(int64_t n, int64_t value) {
  Dims d;
  d.resize(n, value);
  return d;
}
void Dims::assign(const int64_t* data, int64_t n) {
  TC_CHECK(n >= 0 && n <= TC_MAX_DIMS, TC_ERR_INVALID_ARGUMENT, "at most ", TC_MAX_DIMS,
           " dims are supported, got ", n);
  for (int64_t i = 0; i < n; ++i) d_[i] = data[i];
  n_ = n;
}
void Dims::push_back(int64_t v) {
  TC_CHECK(n_ < TC_MAX_DIMS, TC_ERR_INVALID_ARGUMENT, "at most ", TC_MAX_DIMS, " dims are supported");
  d_[n_++] = v;
}
void Dims::insert(int64_t pos, int64_t v) {
  TC_CHECK(n_ < TC_MAX_DIMS, TC_ERR_INVALID_ARGUMENT, "at most ", TC_MAX_DIMS, " dims are supported");
  for (int64_t i = n_; i > pos; --i) d_[i] = d_[i - 1];
  d_[pos] = v;
  ++n_;
}
void Dims::erase(int64_t pos) {
  for (int64_t i = pos; i + 1 < n_; ++i) d_[i] = d_[i + 1];
  --n_;
}
void Dims::resize(int64_t n, int64_t value) {
  TC_CHECK(n >= 0 && n <= TC_MAX_DIMS, TC_ERR_INVALID_ARGUMENT, "at most ", TC_MAX_DIMS,
           " dims are supported, got ", n);
  for (int64_t i = n_; i < n; ++i) d_[i] = value;
  n_ = n;
}
bool Dims::operator==(const Dims& o) const {
  if (n_ != o.n_) return false;
  for (int64_t i = 0; i < n_; ++i)
    if (d_[i] != o.d_[i]) return false;
  return true;
}
std::ostream& operator<<(std::ostream& os, const Dims& d) {
  os << '[';
  for (int64_t i = 0; i < d.size(); ++i) os << (i ? ", " : "") << d[i];
  return os << ']';
}

int64_t checked_numel(const Dims& shape, const char* what) {
  int64_t n = 1;
  bool zero = false;
  bool overflow = false;
  for (int64_t s : shape) {
    TC_CHECK(s >= 0, TC_ERR_INVALID_ARGUMENT, what, ": negative size ", s, " in shape ", shape);
    if (s == 0) zero = true;
    if (!overflow && __builtin_mul_overflow(n, s, &n)) overflow = true;
  }
  if (zero) return 0;
  TC_CHECK(!overflow, TC_ERR_OUT_OF_MEMORY, what, ": shape ", shape,
           " has more elements than int64 can count");
  return n;
}

Dims contiguous_strides(const Dims& shape) {
  Dims st = Dims::filled(shape.size(), 1);
  int64_t acc = 1;
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    st[i] = acc;
    // A shape with a 0 has no elements, so any stride is right; saturating
    // keeps huge sizes next to that 0 from overflowing.
    if (__builtin_mul_overflow(acc, shape[i] > 0 ? shape[i] : 1, &acc)) acc = INT64_MAX;
  }
  return st;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* what) {
  const int64_t lo = ndim == 0 ? -1 : -ndim;
  const int64_t hi = ndim == 0 ? 0 : ndim - 1;
  TC_CHECK(dim >= lo && dim <= hi, TC_ERR_INDEX, what, ": dim ", dim, " is out of range for a tensor with ",
           ndim, " dims (expected ", lo, " to ", hi, ")");
  return dim < 0 ? dim + (ndim == 0 ? 1 : ndim) : dim;
}

bool TensorImpl::is_contiguous() const {
  if (numel() == 0) return true;  // also keeps `expected` below from overflowing
  int64_t expected = 1;
  for (int64_t i = ndim() - 1; i >= 0; --i) {
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

}  // namespace tc
