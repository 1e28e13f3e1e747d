"""tc.inference_mode and tc.is_inference_mode_enabled (torch.inference_mode
of PyTorch 1.13), as far as libtc's engine allows.

In PyTorch, inference_mode(True) turns grad mode off and marks every tensor
made inside as an "inference tensor" (no version counter; refused later by
autograd); inference_mode(False) turns grad mode ON and inference mode off.
libtc's engine has no inference tensors, so here inference mode is the
grad-mode switch plus a per-thread flag read by is_inference_mode_enabled();
Tensor.is_inference() stays False and what inference_mode saves in PyTorch
(version-counter bumps) is not saved."""
import functools
import threading

from .. import _core

__all__ = ["inference_mode", "is_inference_mode_enabled"]

_state = threading.local()


def is_inference_mode_enabled():
    """True inside ``tc.inference_mode()`` on this thread (torch.is_inference_mode_enabled).

    Returns:
        bool: whether inference mode is on.
    """
    return getattr(_state, "enabled", False)


class inference_mode:
    """Context manager and decorator enabling (mode=True) or disabling
    (mode=False) inference mode, as torch.inference_mode: mode=True turns
    grad mode off, mode=False turns it on; both are restored on exit.

    Args:
        mode (bool): enable (True) or disable (False) inference mode.
    """

    def __init__(self, mode=True):
        self.mode = bool(mode)
        self._saved = threading.local()

    def __enter__(self):
        stack = getattr(self._saved, "stack", None)
        if stack is None:
            stack = self._saved.stack = []
        stack.append((_core.set_grad_mode(not self.mode), is_inference_mode_enabled()))
        _state.enabled = self.mode
        return self

    def __exit__(self, *exc):
        grad, enabled = self._saved.stack.pop()
        _core.set_grad_mode(grad)
        _state.enabled = enabled
        return False

    def __call__(self, func):
        """Decorates ``func`` to run in this mode.

        Args:
            func (callable): the function.

        Returns:
            callable: the wrapped function.
        """
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        """A new inference_mode with the same mode.

        Returns:
            inference_mode: the copy.
        """
        return self.__class__(self.mode)
