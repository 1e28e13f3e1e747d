// Helpers shared by the ops' .cpp files: views without autograd (the building
// blocks of the differentiable views and of several backward formulas) and
// argument checks with messages that name the op.
#pragma once
#include <string>

#include "autograd/function.h"
#include "core/init.h"
#include "ops/ops.h"

namespace tc::ops::detail {

// "float32 tensor of shape [2, 3]": how errors describe an argument.
std::string describe(const Tensor& t);
// Both tensors on the same device, else TC_ERR_DEVICE naming op. A device other
// than the CPU is TC_ERR_NOT_IMPLEMENTED unless the op has CUDA kernels and
// says so (cuda_ok).
void check_same_device(const char* op, const Tensor& a, const Tensor& b, bool cuda_ok = false);
// Only f32/f64 and the integer dtypes (optionally bool) are computed on the CPU.
void check_compute_dtype(const char* op, const char* arg, DType d, bool allow_bool);

// Views without autograd.
Dims infer_shape(const Dims& shape, int64_t numel, const char* op);  // resolves one -1
Tensor raw_view(const Tensor& t, const Dims& shape);                 // null when no view is possible
Tensor raw_reshape(const Tensor& t, const Dims& shape);              // view, or a contiguous copy
Tensor raw_permute(const Tensor& t, const Dims& perm);
Tensor raw_narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor raw_slice(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor raw_select(const Tensor& t, int64_t dim, int64_t index);
Tensor raw_expand(const Tensor& t, const Dims& shape);
// Backward formulas under create_graph: a backward pass runs them with grad
// mode on only then (autograd::grad/backward with create_graph), and they must
// use recorded ops so that their results can be differentiated again. These
// pick the recorded op then and the raw kernel otherwise, so first-order
// backward costs what it did.
inline bool creating_graph() { return grad_enabled(); }
inline Tensor bw_reshape(const Tensor& g, const Dims& shape) {
  return creating_graph() ? reshape(g, shape) : raw_reshape(g, shape);
}
inline Tensor bw_permute(const Tensor& g, const Dims& perm) {
  return creating_graph() ? permute(g, perm) : raw_permute(g, perm);
}
inline Tensor bw_expand(const Tensor& g, const Dims& shape) {
  return creating_graph() ? expand(g, shape) : raw_expand(g, shape);
}
inline Tensor bw_cast(const Tensor& g, DType dtype) {
  return creating_graph() ? to_dtype(g, dtype) : cast(g, dtype);
}
// out: a linear function of g made with raw kernels. Under create_graph it
// gets a node `name` whose backward is adjoint(grad) (the forward op the
// formula is the backward of, itself recorded), so out stays differentiable.
template <typename F>
Tensor linear_of_grad(const char* name, const Tensor& g, Tensor out, F adjoint) {
  autograd::record_function(
      name, {g}, {out}, {},
      [adjoint](const autograd::Grads& gg, const std::vector<Tensor>&) -> autograd::Grads {
        return {adjoint(gg[0])};
      });
  return out;
}
// t's shape with the dims in `dims` (wrapped, unique) set to 1; `reduced` marks them.
Dims keepdim_shape(const Tensor& t, const Dims& dims, const char* op, bool reduced[TC_MAX_DIMS]);
// Removes the marked dims from a keepdim shape.
Dims squeeze_marked(const Dims& shape, const bool reduced[TC_MAX_DIMS]);

}  // namespace tc::ops::detail

namespace tc::ops::detail {
// result_type({a, b}) without building a vector (the hot path of every binary op).
DType result_type2(const Tensor& a, const Tensor& b);
}  // namespace tc::ops::detail

namespace tc::ops::detail {
// gather's adjoint: zeros of in_shape, then out[..., idx[p], ...] += g[p] along dim.
Tensor scatter_add_grad(const Tensor& g, const Tensor& idx, const Dims& in_shape, int64_t dim);
}  // namespace tc::ops::detail

namespace tc::ops::detail {
// ops/binary_ext.cpp: the dtype a BinaryOp computes operands of result type ct
// in (its row's dtypes: floating rows promote integers or refuse them, integer
// rows refuse floats), else TC_ERR_DTYPE naming op and both operands; and
// PyTorch's ZeroDivisionError (TC_ERR_INVALID_ARGUMENT) when an integer
// divisor b holds a zero.
DType binary_compute_dtype(BinaryOp op, const char* name, const Tensor& a, const Tensor& b, DType ct);
void check_no_zero_divisor(const char* name, const Tensor& a, const Tensor& b);
}  // namespace tc::ops::detail

namespace tc::ops::detail {
// The backward of an op returning several views of one tensor (split,
// unbind): one tensor of base_shape with each piece's gradient copied into
// view_of(result, i), zero-filled only when some piece got none (g[i] null).
// One node for all the pieces, as PyTorch's SplitBackward: a node per piece
// would make a zero tensor of the whole base for each, summed by the engine.
template <typename ViewFn>
Tensor pieces_grad(const Dims& base_shape, const std::vector<Tensor>& g, ViewFn view_of) {
  const Tensor* any = nullptr;
  bool all = true;
  for (const Tensor& gi : g) {
    if (gi && !any) any = &gi;
    all = all && gi;
  }
  // The engine runs a node only when one of its outputs got a gradient.
  Tensor out = all ? empty(base_shape, (*any)->dtype, (*any)->device)
                   : zeros(base_shape, (*any)->dtype, (*any)->device);
  for (size_t i = 0; i < g.size(); ++i)
    if (g[i]) copy_into(view_of(out, int64_t(i)), g[i]);
  return out;
}
}  // namespace tc::ops::detail
