// The elementwise families' enum types, declared without their enumerators
// (one per row of src/math/*_ops.def, in math/op_enums.h), and the scalar
// arguments of a backward formula. The interfaces (backend/backend.h,
// ops/ops.h) name these types only, so that adding a row to ops/ops.toml
// rebuilds the files that use the rows, not everything that includes them.
#pragma once
#include <cstdint>

namespace tc {
namespace ops {
enum class BinaryOp : int32_t;  // arithmetic rows, then comparisons
enum class ScalarOp : int32_t;
enum class UnaryOp : int32_t;
}  // namespace ops

namespace ew {
enum class Grad : int32_t;  // the backward formulas (math/elementwise_math.h)

// The scalar arguments of a two-operand formula.
struct GradParams {
  double s = 0;  // pow_scalar, rdiv_scalar
  double lo = 0, hi = 0;
  bool has_lo = false, has_hi = false;  // clamp
  // A UnaryOp's parameters p and q; the row's defaults unless unary_params.
  bool unary_params = false;
  double up = 0, uq = 0;
};
}  // namespace ew
}  // namespace tc
