// How index_put/scatter combine a value into an element (src/backend/backend.h's
// index_offsets_put): one definition both backends' kernels run, so the CPU
// and CUDA agree on NaN (amax/amin propagate it, as PyTorch's scatter_reduce).
#pragma once
#include "math/hd.h"

namespace tc {

enum class IndexPutMode { assign, add, mul, max, min };

namespace index_put {
template <typename T>
TC_HD inline bool is_nan(T v) {
  return v != v;  // integers: never
}
template <typename T>
TC_HD inline T combine(IndexPutMode mode, T cur, T v) {
  switch (mode) {
    case IndexPutMode::assign:
      return v;
    case IndexPutMode::add:
      return T(cur + v);
    case IndexPutMode::mul:
      return T(cur * v);
    case IndexPutMode::max:
      return (is_nan(cur) || cur >= v) && !is_nan(v) ? cur : v;
    case IndexPutMode::min:
      return (is_nan(cur) || cur <= v) && !is_nan(v) ? cur : v;
  }
  return v;
}
// bool: add is "or", mul is "and" (PyTorch's sum/prod of bools as scatter does).
TC_HD inline bool combine(IndexPutMode mode, bool cur, bool v) {
  switch (mode) {
    case IndexPutMode::assign:
      return v;
    case IndexPutMode::add:
    case IndexPutMode::max:
      return cur || v;
    case IndexPutMode::mul:
    case IndexPutMode::min:
      return cur && v;
  }
  return v;
}
}  // namespace index_put
}  // namespace tc
