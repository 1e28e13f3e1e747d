// The elementwise families' enumerators: one per row of src/math/*_ops.def
// (generated from ops/ops.toml by tools/gen_ops.py); count_ is the number of
// ops, for static_asserts and for tests that iterate a whole family. Only the
// files that name a row or loop over a family include this header (adding a
// row rebuilds them); interfaces use math/op_kinds.h.
#pragma once
#include "math/op_kinds.h"
#include "math/scalar_op_enum.h"  // ScalarOp

namespace tc::ops {

enum class BinaryOp : int32_t {
#define TC_BINARY_OP(name, ...) name,
#include "math/binary_ops.def"
#define TC_COMPARE_OP(name, ...) name,
#include "math/compare_ops.def"
  count_
};
// The arithmetic ops come first, then the comparisons (bool results).
constexpr int kArithmeticBinaryOps = 0
#define TC_BINARY_OP(...) +1
#include "math/binary_ops.def"
    ;
constexpr bool is_comparison(BinaryOp op) { return int(op) >= kArithmeticBinaryOps; }
static_assert(kArithmeticBinaryOps > 0 && kArithmeticBinaryOps < int(BinaryOp::count_),
              "binary_ops.def and compare_ops.def both have rows");
enum class UnaryOp : int32_t {
#define TC_UNARY_OP(name, ...) name,
#include "math/unary_ops.def"
  count_
};

}  // namespace tc::ops
