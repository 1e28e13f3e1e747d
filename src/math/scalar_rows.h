// The scalar rows (scalar_ops.def: x (op) s, tc_add_scalar, ...), apart from
// math/elementwise_math.h so that src/cuda/elementwise.cu (their CUDA
// kernels) does not rebuild when a unary or binary row is added.
#pragma once
#include "math/ew_row_math.h"
#include "math/scalar_op_enum.h"

namespace tc::ew {

using ops::ScalarOp;

// x (op) s, s already converted to the compute type (as the CPU's T(s));
// scalar_ops.def has the rows.
template <ScalarOp OP>
struct ScalarDef;
#define TC_SCALAR_OP(name, GradName, forward)      \
  template <>                                      \
  struct ScalarDef<ScalarOp::name> {               \
    template <typename C>                          \
    static TC_HD C value(C x, C s, PowMode mode) { \
      (void)mode;                                  \
      return forward;                              \
    }                                              \
  };
#include "math/scalar_ops.def"
template <ScalarOp OP, typename C>
TC_HD inline C scalar_value(C x, C s, PowMode mode) {
  return ScalarDef<OP>::template value<C>(x, s, mode);
}

}  // namespace tc::ew
