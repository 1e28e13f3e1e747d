"""torch.nn's padding modules (1.13): reflection, replication, constant and
zero padding of the last 1, 2 or 3 dims, each a call of tc.nn.functional.pad.
``padding`` is an int (every side) or a tuple (left, right[, top, bottom[,
front, back]]); constant padding with negative sizes crops, as torch's."""
import itertools
from typing import Sequence, Tuple, Union

from .._ints import to_int64
from .._shape_ops import pad as _pad
from .._tensor import Tensor
from .modules import Module

__all__ = ["ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d"]


def _sides(padding: Union[int, Sequence[int]], n: int) -> Tuple[int, ...]:
    """2n ints from an int (all sides) or a 2n-sequence."""
    if hasattr(padding, "__index__"):
        return (to_int64(padding),) * (2 * n)
    if isinstance(padding, (str, bytes)) or not hasattr(padding, "__iter__"):
        raise TypeError("padding must be an int or a tuple of %d ints, got %s" % (2 * n, type(padding).__name__))
    items = tuple(itertools.islice(padding, 2 * n + 1))
    if len(items) != 2 * n:
        raise ValueError("padding must be an int or a tuple of %d ints, got %r" % (2 * n, items))
    return tuple(to_int64(v) for v in items)


class _PadNd(Module):
    """Base of the padding modules: ``_mode`` for tc.nn.functional.pad, ``_n`` padded dims."""
    _mode = "constant"
    _n = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _sides(padding, self._n)

    def forward(self, input: Tensor) -> Tensor:
        """Pads the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the padded tensor.
        """
        return _pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "{}".format(self.padding)


class _ConstantPadNd(_PadNd):
    """Base of the constant padding modules: keeps ``value``."""

    def __init__(self, padding, value: float):
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        """Pads the input with ``value`` (negative sizes crop).

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the padded tensor.
        """
        return _pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "padding={}, value={}".format(self.padding, self.value)


class ReflectionPad1d(_PadNd):
    """Pads the last dim by reflection (without the edge) (torch.nn.ReflectionPad1d).

    Args:
        padding: an int or (left, right); each less than the dim's size.
    """
    _mode, _n = "reflect", 1


class ReflectionPad2d(_PadNd):
    """Pads the last 2 dims by reflection (torch.nn.ReflectionPad2d).

    Args:
        padding: an int or (left, right, top, bottom).
    """
    _mode, _n = "reflect", 2


class ReflectionPad3d(_PadNd):
    """Pads the last 3 dims by reflection (torch.nn.ReflectionPad3d).

    Args:
        padding: an int or (left, right, top, bottom, front, back).
    """
    _mode, _n = "reflect", 3


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating its edge (torch.nn.ReplicationPad1d).

    Args:
        padding: an int or (left, right).
    """
    _mode, _n = "replicate", 1


class ReplicationPad2d(_PadNd):
    """Pads the last 2 dims by repeating the edges (torch.nn.ReplicationPad2d).

    Args:
        padding: an int or (left, right, top, bottom).
    """
    _mode, _n = "replicate", 2


class ReplicationPad3d(_PadNd):
    """Pads the last 3 dims by repeating the edges (torch.nn.ReplicationPad3d).

    Args:
        padding: an int or (left, right, top, bottom, front, back).
    """
    _mode, _n = "replicate", 3


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with a constant (torch.nn.ConstantPad1d).

    Args:
        padding: an int or (left, right); negative sizes crop.
        value: the fill.
    """
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims with a constant (torch.nn.ConstantPad2d).

    Args:
        padding: an int or (left, right, top, bottom); negative sizes crop.
        value: the fill.
    """
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims with a constant (torch.nn.ConstantPad3d).

    Args:
        padding: an int or (left, right, top, bottom, front, back); negative sizes crop.
        value: the fill.
    """
    _n = 3


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dims with zeros (torch.nn.ZeroPad2d).

    Args:
        padding: an int or (left, right, top, bottom); negative sizes crop.
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "{}".format(self.padding)
