// ops::ScalarOp's enumerators (scalar_ops.def's rows; math/op_enums.h has the
// other families). Apart so that the CPU's tensor-scalar kernels
// (src/cpu/elementwise.cpp) do not depend on the unary and binary rows.
#pragma once
#include "math/op_kinds.h"

namespace tc::ops {

enum class ScalarOp : int32_t {
#define TC_SCALAR_OP(name, ...) name,
#include "math/scalar_ops.def"
  count_
};

}  // namespace tc::ops
