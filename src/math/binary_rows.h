// What each arithmetic BinaryOp takes and gives (binary_ops.def's dtypes,
// differentiable and gradient columns), as tables over ops::BinaryOp. Apart
// from math/binary_ext_math.h because it names the rows: only the files that
// include math/elementwise_math.h see it, so that the per-row kernels
// (math/ew_row_math.h) do not rebuild when a row is added.
#pragma once
#include "core/dtype.h"
#include "math/ew_row_math.h"  // BinaryDtypes
#include "math/op_enums.h"

namespace tc::ew {

// ---- what each BinaryOp takes (binary_ops.def's dtypes and differentiable columns) ----

constexpr BinaryDtypes kBinaryDtypes[] = {
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, dtypes, ...) BinaryDtypes(dtypes),
#include "math/binary_ops.def"
};
constexpr bool kBinaryDifferentiable[] = {
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, dtypes, diff, ...) diff != 0,
#include "math/binary_ops.def"
};
// The input gradients a row leaves unimplemented (column 2 of a_is_g/b_is_g:
// ops.toml's "not_implemented"): backward raises when it needs one.
constexpr bool kBinaryGradMissing[][2] = {
#define TC_BINARY_OP(name, GradName, saves, a_is_g, b_is_g, ...) {a_is_g == 2, b_is_g == 2},
#include "math/binary_ops.def"
};
constexpr bool binary_grad_implemented(ops::BinaryOp op, bool second) {
  return int(op) < ops::kArithmeticBinaryOps && !kBinaryGradMissing[int(op)][second ? 1 : 0];
}
constexpr BinaryDtypes binary_dtypes(ops::BinaryOp op) {
  return int(op) < ops::kArithmeticBinaryOps ? kBinaryDtypes[int(op)] : BinaryDtypes::any;
}
constexpr bool binary_differentiable(ops::BinaryOp op) {
  return int(op) < ops::kArithmeticBinaryOps && kBinaryDifferentiable[int(op)];
}
constexpr bool binary_takes_bool(ops::BinaryOp op) { return binary_dtypes_take_bool(binary_dtypes(op)); }
// Whether the op computes operands of dtype d as they are (floating rows
// compute integers only after promoting them; the CPU computes no float16).
inline bool binary_computes(ops::BinaryOp op, DType d) {
  return binary_dtypes_compute(binary_dtypes(op), is_floating(d), d == DType::b8);
}
// The ops that divide integers: a zero divisor is PyTorch's ZeroDivisionError.
constexpr bool binary_integer_division(ops::BinaryOp op) {
  return op == ops::BinaryOp::fmod || op == ops::BinaryOp::remainder || op == ops::BinaryOp::floor_divide ||
         op == ops::BinaryOp::div_trunc;
}

}  // namespace tc::ew
