// frexp (PyTorch's torch.frexp): its own header, so that adding it rebuilt
// only its shim and tests, not every includer of ops/ops.h.
#pragma once
#include <utility>

#include "core/tensor.h"

namespace tc::ops {

// a = mantissa * 2^exponent with |mantissa| in [0.5, 1) (a's dtype) and an
// int32 exponent; 0, inf and NaN give themselves and exponent 0. The
// mantissa is differentiable (g / 2^exponent); the exponent is not.
std::pair<Tensor, Tensor> frexp(const Tensor& a);

}  // namespace tc::ops
