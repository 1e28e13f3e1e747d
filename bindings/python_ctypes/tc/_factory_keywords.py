"""PyTorch's keyword forms of the tensor factories: ``size=`` (tc.empty(size=
(2, 3)), tc.randint(0, 10, size=(3,))), ``out=`` (tc.zeros(2, 3, out=t)),
``layout=``, ``pin_memory=``, ``memory_format=`` and ``generator=``, over
tc's factories (tc/_tensor.py, tc/_shape_ops.py), plus the layout and memory
format objects (tc.strided, tc.contiguous_format, ...) they accept."""
import contextlib
import functools
from ._tensor_base import full


class layout:
    """A tensor memory layout, like torch.layout; tc has dense strided
    tensors only (tc.strided)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "tc." + self.name


class memory_format:
    """A memory format, like torch.memory_format. tc accepts them where
    PyTorch does; its tensors are laid out row-major (contiguous_format)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "tc." + self.name


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

LAYOUTS_AND_FORMATS = {"strided": strided, "contiguous_format": contiguous_format,
                       "preserve_format": preserve_format, "channels_last": channels_last,
                       "channels_last_3d": channels_last_3d, "layout": layout, "memory_format": memory_format}


def _check_layout(value):
    if value is not None and value is not strided:
        raise NotImplementedError("layout=%r: tc has strided (dense) tensors only" % (value,))


def write_out(out, result):
    """Writes ``result`` into ``out`` (PyTorch's ``out=``) and returns out.

    Args:
        out (Tensor): the destination; it must have the result's shape (tc
            cannot resize a tensor in place).
        result (Tensor): the computed value.

    Returns:
        Tensor: out.
    """
    if tuple(out.shape) != tuple(result.shape):
        raise RuntimeError("out= needs a tensor of the result's shape %s, got %s (tc does not resize out)"
                           % (list(result.shape), list(out.shape)))
    from ._core import no_grad
    with no_grad():
        out.copy_(result)
    return out


def _with_generator(generator):
    return generator._active() if generator is not None else contextlib.nullcontext()


def _keywords(f, positional_size):
    """Wraps the factory f with PyTorch's extra keywords. positional_size:
    whether ``size=`` goes last among the positional arguments (zeros,
    randint) or is f's keyword (full)."""

    @functools.wraps(f)
    def factory(*args, size=None, out=None, layout=None, pin_memory=False, memory_format=None,
                generator=None, **kwargs):
        _check_layout(layout)
        if size is not None:
            if positional_size:
                args = args + (tuple(size) if not hasattr(size, "__index__") else (size,),)
            else:
                kwargs["size"] = size
        if out is not None:
            kwargs.setdefault("dtype", out.dtype)
            kwargs.setdefault("device", out.device)
        with _with_generator(generator):
            result = f(*args, **kwargs)
        return write_out(out, result) if out is not None else result

    return factory


def _like_keywords(f):
    """Wraps a *_like factory with PyTorch's layout/memory_format/pin_memory keywords."""

    @functools.wraps(f)
    def factory(input, *args, layout=None, memory_format=None, pin_memory=False, generator=None, **kwargs):
        _check_layout(layout)
        with _with_generator(generator):
            return f(input, *args, **kwargs)

    return factory


def build():
    """The wrapped factories by name (made when tc is imported; the
    originals stay where they are for tc's own use)."""
    from . import _shape_ops as S
    from . import _tensor as T
    made = {}
    for name in ("empty", "zeros", "ones", "rand", "randn"):
        made[name] = _keywords(getattr(T, name), positional_size=True)
    made["randint"] = _keywords(S.randint, positional_size=True)
    made["full"] = _keywords(_full_by_keyword, positional_size=False)
    made["full"].__name__, made["full"].__doc__ = "full", T.full.__doc__
    made["arange"] = _keywords(T.arange, positional_size=False)
    for name in ("randperm", "eye", "linspace", "logspace"):
        made[name] = _keywords(getattr(S, name), positional_size=False)
    for name in ("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like", "full_like"):
        made[name] = _like_keywords(getattr(T, name))
    return made


def _full_by_keyword(size=None, fill_value=None, **kwargs):
    """tc.full accepting ``size=`` and ``fill_value=`` as keywords."""
    if size is None or fill_value is None:
        raise TypeError("full() missing required argument 'size' or 'fill_value'")
    return full(size, fill_value, **kwargs)
