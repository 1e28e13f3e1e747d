"""The small helpers of torch.nn.utils: the deprecated clip_grad_norm and skip_init."""
import warnings

__all__ = ["clip_grad_norm", "skip_init"]


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Deprecated name of :func:`tc.nn.utils.clip_grad_norm_` (warns, then calls it), as in torch."""
    from . import clip_grad_norm_
    warnings.warn("torch.nn.utils.clip_grad_norm is now deprecated in favor of torch.nn.utils.clip_grad_norm_.",
                  stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def skip_init(module_cls, *args, **kwargs):
    """Builds ``module_cls(*args, **kwargs)`` whose parameters' values are left
    unspecified (torch builds it on the meta device and allocates memory
    without initializing it; tc builds it normally, which is one valid
    result: the caller initializes the parameters itself).

    Args:
        module_cls (type): a Module class.
        *args, **kwargs: its constructor's arguments.

    Returns:
        Module: the module.
    """
    from ..modules import Module
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError("Expected a Module; got {}".format(module_cls))
    return module_cls(*args, **kwargs)
