// In-place ops. They write self's data and bump its version counter, so a node
// that saved self notices at backward. libtc does not rebase graphs the way
// PyTorch does: an in-place op on a tensor that requires grad (a leaf or not),
// or one whose other operand requires grad, is an autograd error while grad
// mode is on. Under no-grad (optimizers, initializers) they are plain writes.
#include "backend/backend.h"
#include "core/init.h"
#include "math/rows/binary_add.h"
#include "math/rows/binary_div.h"
#include "math/rows/binary_mul.h"
#include "math/rows/binary_sub.h"
#include "ops/internal.h"

namespace tc::ops {

using namespace detail;

namespace {

void check_inplace(const char* op, const Tensor& self, const Tensor* other) {
  check_writable(self, op);
  if (!grad_enabled()) return;
  TC_CHECK(!self->requires_grad || !self->is_leaf(), TC_ERR_AUTOGRAD, op,
           ": a leaf tensor that requires grad is used in an in-place operation (use no-grad mode, or "
           "detach/clone it first)");
  TC_CHECK(!self->requires_grad, TC_ERR_AUTOGRAD, op,
           ": in-place ops on tensors that require grad (this one was made by ", self->grad_fn->name(),
           ") are not supported by libtc; use the out-of-place op");
  TC_CHECK(
      !other || !(*other)->requires_grad, TC_ERR_AUTOGRAD, op,
      ": the other operand requires grad, and libtc does not record in-place ops; use the out-of-place op");
}

void binary_inplace(BinaryOp op, const char* name, const Tensor& self, const Tensor& other) {
  check_same_device(name, self, other, true);
  check_inplace(name, self, &other);
  DType ct = result_type2(self, other);
  if (op == row::div && !is_floating(ct)) ct = default_dtype();
  TC_CHECK(ct == self->dtype, TC_ERR_DTYPE, name, ": the result of ", describe(self), " and ",
           describe(other), " would be ", dtype_name(ct), ", which cannot be written into self (",
           dtype_name(self->dtype), ")");
  const Backend& be = backend_for(self);
  if (be.computes_half) {  // float16/bfloat16 compute there (in float)
    TC_CHECK(self->dtype != DType::b8, TC_ERR_DTYPE, name,
             ": self is bool, and arithmetic on bool tensors is not supported");
  } else {
    check_compute_dtype(name, "self", self->dtype, false);
  }
  const Dims shape = broadcast_shapes(self->shape, other->shape, name);
  TC_CHECK(shape == self->shape, TC_ERR_SHAPE, name, ": other (shape ", other->shape,
           ") does not broadcast to self's shape ", self->shape);
  const Tensor oc = cast(other, ct);
  be.binary(op, self, self, oc);
  self->bump_version();
}

}  // namespace

void add_(const Tensor& self, const Tensor& other) { binary_inplace(row::add, "add_", self, other); }
void sub_(const Tensor& self, const Tensor& other) { binary_inplace(row::sub, "sub_", self, other); }
void mul_(const Tensor& self, const Tensor& other) { binary_inplace(row::mul, "mul_", self, other); }
void div_(const Tensor& self, const Tensor& other) { binary_inplace(row::div, "div_", self, other); }

void fill_(const Tensor& self, double value) {
  check_inplace("fill_", self, nullptr);
  value = checked_fill_value("fill_", value, self->dtype);
  backend_for(self).fill(self, value);
  self->bump_version();
}

void zero_(const Tensor& self) { fill_(self, 0.0); }

void copy_(const Tensor& self, const Tensor& src) {
  check_inplace("copy_", self, &src);
  const Dims shape = broadcast_shapes(self->shape, src->shape, "copy_");
  TC_CHECK(shape == self->shape, TC_ERR_SHAPE, "copy_: src (shape ", src->shape,
           ") does not broadcast to self's shape ", self->shape);
  copy_into(self, raw_expand(src, self->shape));
  self->bump_version();
}

}  // namespace tc::ops
