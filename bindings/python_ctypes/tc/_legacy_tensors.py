"""PyTorch's legacy constructors: ``tc.Tensor(2, 3)`` (uninitialized
float32 of that shape), ``tc.Tensor([1., 2.])`` (float32 from data),
``tc.Tensor(tc.Size([2, 3]))``, and the typed classes ``tc.FloatTensor``,
``tc.LongTensor``, ... which construct the same way in their dtype and are
what ``isinstance(t, tc.FloatTensor)`` tests (a CPU tensor of that dtype)."""
import numbers

from . import _core as K
from ._tensor_base import Size, TensorBase, empty, tensor


def _is_size_arg(x):
    # (numpy arrays have __index__ too: only true integers are sizes)
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def legacy_new(args, kwargs, dtype):
    """A tensor built the way ``torch.Tensor(*args)`` builds one, in dtype.

    Args:
        args (tuple): nothing (an empty tensor), sizes (ints or one
            tc.Size), data (a sequence or array), or one tensor (returned
            as a view of it, which must have ``dtype``).
        kwargs (dict): at most ``device``.
        dtype (tc.dtype): the element type.

    Returns:
        Tensor: the new tensor.
    """
    device = kwargs.pop("device", None)
    if kwargs:
        raise TypeError("new() received an invalid combination of arguments: unexpected keyword(s) %s"
                        % ", ".join(sorted(kwargs)))
    if not args:
        return empty(0, dtype=dtype, device=device)
    if all(_is_size_arg(a) for a in args):
        return empty(*[int(a) for a in args], dtype=dtype, device=device)
    if len(args) == 1:
        (data,) = args
        if isinstance(data, Size):
            return empty(*data, dtype=dtype, device=device)
        if isinstance(data, TensorBase):
            if data.dtype != dtype:
                raise TypeError("expected %s (got %s)" % (dtype, data.dtype))
            return data.detach()
        if isinstance(data, numbers.Number):
            raise TypeError("new(): data must be a sequence (got %s)" % type(data).__name__)
        return tensor(data, dtype=dtype, device=device)
    raise TypeError("new() received an invalid combination of arguments: %s"
                    % ", ".join(type(a).__name__ for a in args))


class LegacyTensorType(type):
    """The metaclass of tc.FloatTensor & co.: calling the class builds a
    tensor (see legacy_new); isinstance checks the dtype and the CPU."""

    def __call__(cls, *args, **kwargs):
        return legacy_new(args, dict(kwargs), cls.dtype)

    def __instancecheck__(cls, obj):
        return isinstance(obj, TensorBase) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return "<class 'tc.%s'>" % cls.__name__


def _legacy_class(name, dtype):
    return LegacyTensorType(name, (), {"dtype": dtype, "__slots__": (),
                                       "__doc__": "A %s CPU tensor: %s(*sizes) or %s(data), like torch.%s."
                                                  % (dtype.name, name, name, name),
                                       "__module__": "tc"})


LEGACY_CLASSES = {name: _legacy_class(name, dt) for name, dt in (
    ("FloatTensor", K.float32), ("DoubleTensor", K.float64), ("HalfTensor", K.float16),
    ("BFloat16Tensor", K.bfloat16), ("ByteTensor", K.uint8), ("CharTensor", K.int8),
    ("ShortTensor", K.int16), ("IntTensor", K.int32), ("LongTensor", K.int64), ("BoolTensor", K.bool_))}
