// The elementwise rows' backward formulas (ops/ops.toml: backward, grad_a,
// grad_b) as compositions of recorded ops, for a backward pass with
// create_graph: the fused grad kernels (backend grad2/grad3) compute the same
// values but record nothing, so their results could not be differentiated
// again. tools/gen_ops.py translates each formula's text into
// ew_grad_composed_generated.inc; the first-order path keeps the kernels.
#pragma once
#include "core/tensor.h"
#include "math/op_kinds.h"

namespace tc::ops::composed {

// Input gradient of unary row op from g and the saved tensor s (the input x,
// or the output y through autograd::output_with_graph, as the row saves), with
// the row's parameters p, q; null when the row's formula has no composition.
Tensor unary_grad(UnaryOp op, const Tensor& g, const Tensor& s, double p, double q);
// Gradient of binary row op for a (for_b false) or b, from g and the saved
// inputs x, y (broadcast as the forward did); null as above.
Tensor binary_grad(BinaryOp op, bool for_b, const Tensor& g, const Tensor& x, const Tensor& y);
// Whether every row whose node is named `node` has a composition.
bool has_composed_grad(const char* node);

}  // namespace tc::ops::composed
