// In-place ops. They write self's data and bump its version counter, so a node
// that saved self notices at backward. libtc does not rebase graphs the way
// PyTorch does: an in-place op on a tensor that requires grad (a leaf or not),
// or one whose other operand requires grad, is an autograd error while grad
// mode is on. Under no-grad (optimizers, initializers) they are plain writes.
#include "cpu/dispatch.h"
#include "cpu/loops.h"
#include "cuda/dispatch.h"
#include "cuda/elementwise.h"
#include "device_hooks.h"
#include "init.h"
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
  if (op == BinaryOp::div && !is_floating(ct)) ct = default_dtype();
  TC_CHECK(ct == self->dtype, TC_ERR_DTYPE, name, ": the result of ", describe(self), " and ",
           describe(other), " would be ", dtype_name(ct), ", which cannot be written into self (",
           dtype_name(self->dtype), ")");
  if (on_cuda(self)) {  // float16/bfloat16 compute there (in float)
    TC_CHECK(self->dtype != DType::b8, TC_ERR_DTYPE, name,
             ": self is bool, and arithmetic on bool tensors is not supported");
  } else {
    check_compute_dtype(name, "self", self->dtype, false);
  }
  const Dims shape = broadcast_shapes(self->shape, other->shape, name);
  TC_CHECK(shape == self->shape, TC_ERR_SHAPE, name, ": other (shape ", other->shape,
           ") does not broadcast to self's shape ", self->shape);
  const Tensor oc = cast(other, ct);
  if (on_cuda(self)) {
    TC_CUDA_CALL(cuda::binary(op, self, self, oc));
    self->bump_version();
    return;
  }
  TC_DISPATCH_NUMERIC(ct, name, [&] {
    using T = scalar_t;
    switch (op) {
      case BinaryOp::add:
        return cpu::map2<T, T, T>(self, self, oc, [](T x, T y) { return cpu::wrapping_add(x, y); });
      case BinaryOp::sub:
        return cpu::map2<T, T, T>(self, self, oc, [](T x, T y) { return cpu::wrapping_sub(x, y); });
      case BinaryOp::mul:
        return cpu::map2<T, T, T>(self, self, oc, [](T x, T y) { return cpu::wrapping_mul(x, y); });
      case BinaryOp::div:
        return cpu::map2<T, T, T>(self, self, oc, [](T x, T y) { return T(x / y); });
      default:
        fail(TC_ERR_INTERNAL, "binary_inplace: unhandled op");
    }
  });
  self->bump_version();
}

}  // namespace

void add_(const Tensor& self, const Tensor& other) { binary_inplace(BinaryOp::add, "add_", self, other); }
void sub_(const Tensor& self, const Tensor& other) { binary_inplace(BinaryOp::sub, "sub_", self, other); }
void mul_(const Tensor& self, const Tensor& other) { binary_inplace(BinaryOp::mul, "mul_", self, other); }
void div_(const Tensor& self, const Tensor& other) { binary_inplace(BinaryOp::div, "div_", self, other); }

void fill_(const Tensor& self, double value) {
  check_inplace("fill_", self, nullptr);
  value = checked_fill_value("fill_", value, self->dtype);
  if (on_cuda(self) && self->is_contiguous()) {
    // One fill kernel with the element's bytes, converted on the host.
    const Tensor one = scalar_tensor(value, self->dtype, kCPU);
    if (self->numel() > 0)
      require_cuda(device_index(self->device))
          .fill(self->data(), device_index(self->device), self->numel(), self->itemsize(), one->data());
    self->bump_version();
    return;
  }
  // Through a one-element tensor of self's dtype, so every dtype (16-bit floats
  // included) converts the value the way copies do.
  Tensor v = scalar_tensor(value, self->dtype, self->device);
  copy_into(self, make_view(v, self->shape, Dims::filled(self->ndim(), 0), v->offset));
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
