"""tc.Tensor's autograd surface: requires_grad, grad, grad_fn, backward, hooks,
detach (a mixin of tc.Tensor, tc/_tensor/__init__.py)."""
import weakref
from typing import TYPE_CHECKING, Optional

from .. import _core as K
from .._tensor_base import (TensorBase, VP, _I32, _I32_0, _I32_1, _backward_f, _call, _clear_grad_fast,
                            _set_data_epoch, _wrap, byref, check, error_for, fn, tensor)
from .._autograd_grad import backward

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


# Tensors whose retain_grad() was called, by id, which retains_grad reports
# (weak: dropping the tensor drops the entry; not a WeakSet, whose lookups
# would call Tensor.__eq__).
_RETAINING = {}


class AutogradMethods:
    """tc.Tensor's autograd surface: requires_grad, grad, grad_fn, backward,
    hooks, detach."""

    __slots__ = ()

    @property
    def requires_grad(self):
        """Whether autograd records operations on this tensor (settable on leaves)."""
        out = _I32()
        check(fn("tc_tensor_requires_grad")(self._h, byref(out)))
        return bool(out.value)

    @requires_grad.setter
    def requires_grad(self, value):
        check(fn("tc_tensor_set_requires_grad")(self._h, 1 if value else 0))

    def requires_grad_(self, requires_grad=True) -> "Tensor":
        """Sets ``requires_grad`` in place and returns the tensor.

        Args:
            requires_grad (bool): the new value.

        Returns:
            Tensor: self.
        """
        self.requires_grad = requires_grad
        return self

    @property
    def data(self) -> "Tensor":
        """The tensor's data cut from the graph (a detached view); assigning a
        tensor replaces this tensor's data in place, keeping its identity
        (PyTorch's ``t.data = x``, how ``Module.to`` converts parameters):
        optimizers, tied modules and hooks holding it see the new data."""
        return self.detach()

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, TensorBase):
            raise TypeError("Variable data has to be a tensor, but got %s" % type(value).__name__)
        check(fn("tc_tensor_set_data")(self._h, value._h))
        _set_data_epoch[0] += 1

    @property
    def is_leaf(self):
        """True for tensors not produced by a differentiable op (gradients accumulate in leaves)."""
        out = _I32()
        check(fn("tc_tensor_is_leaf")(self._h, byref(out)))
        return bool(out.value)

    @property
    def grad(self):
        """The gradient accumulated by backward (None until one reaches this tensor)."""
        out = VP()
        check(fn("tc_tensor_grad")(self._h, byref(out)))
        return _wrap(out) if out.value else None

    @grad.setter
    def grad(self, value: Optional["Tensor"]) -> None:
        """Sets the gradient: None clears it; a tensor (same shape, dtype and
        device, not requiring grad) becomes .grad itself, not a copy, and later
        backward passes accumulate into it in place."""
        if value is not None:
            if not isinstance(value, TensorBase):
                raise TypeError("assigned grad expected to be a Tensor or None but got %s" % type(value).__name__)
            check(fn("tc_tensor_set_grad")(self._h, value._h))
            return
        rc = _clear_grad_fast(self._h)
        if rc:
            raise error_for(rc)

    @property
    def grad_fn(self):
        """The node that made this tensor (tc.autograd.Node: name(),
        next_functions), or None for a leaf."""
        from .. import autograd  # tc.autograd (with tc/_autograd/) is built on Tensor: a true cycle
        return autograd.grad_fn(self)

    def grad_fn_name(self):
        """The name of grad_fn ("" for a leaf), without making a node handle."""
        return K.copy_string(fn("tc_tensor_grad_fn_name"), self._h)

    def register_hook(self, hook):
        """hook(grad) runs when this tensor's gradient is computed and may
        return a replacement; returns a RemovableHandle."""
        from .. import autograd  # tc.autograd (with tc/_autograd/) is built on Tensor: a true cycle
        return autograd.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) runs after a leaf's .grad was accumulated."""
        from .. import autograd  # tc.autograd (with tc/_autograd/) is built on Tensor: a true cycle
        return autograd.register_post_accumulate_grad_hook(self, hook)

    def retain_grad(self) -> None:
        """Makes this non-leaf tensor keep its ``.grad`` after backward."""
        check(fn("tc_tensor_retain_grad")(self._h))
        key = id(self)
        _RETAINING[key] = weakref.ref(self, lambda _, key=key: _RETAINING.pop(key, None))

    @property
    def retains_grad(self):
        """True for a non-leaf tensor whose retain_grad() was called (a leaf: False)."""
        if self.is_leaf:
            return False
        live = [r() for r in list(_RETAINING.values())]
        return any(t is not None and (t is self or t.is_same(self)) for t in live)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Computes the gradient of this tensor with respect to the graph leaves, accumulated into their ``.grad``.

        Args:
            gradient (Tensor, optional): the gradient of this tensor; required unless it has one element.
            retain_graph (bool, optional): keep the graph for another backward (default: ``create_graph``).
            create_graph (bool): record the derivative's graph, for higher order derivatives.
            inputs (sequence of Tensor, optional): accumulate only into these tensors' ``.grad``.
        """
        if create_graph or inputs is not None:
            if gradient is not None and not isinstance(gradient, TensorBase):
                gradient = tensor(gradient, dtype=self.dtype)
            backward(self, gradient, retain_graph, create_graph, inputs=inputs)
            return
        if gradient is None:
            g = None
        else:
            g = gradient if isinstance(gradient, TensorBase) else tensor(gradient, dtype=self.dtype)
            g = g._h
        rc = _backward_f(self._h, g, _I32_1 if retain_graph else _I32_0)
        if rc:
            raise error_for(rc)

    def detach(self) -> "Tensor":
        """Returns a view of the same data cut from the autograd graph."""
        return _call(fn("tc_detach"), self._h)

    def detach_(self) -> "Tensor":
        """Cuts this tensor from the autograd graph in place and returns it."""
        raise NotImplementedError("detach_ is not supported; use detach()")
