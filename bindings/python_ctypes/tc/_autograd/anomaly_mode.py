"""Anomaly detection (torch.autograd.detect_anomaly / set_detect_anomaly and
torch.is_anomaly_enabled / set_anomaly_enabled of PyTorch 1.13), over tc.h's
tc_set_anomaly_mode.

While the mode is on, libtc's engine checks every gradient a backward node
returns for NaN and fails (tc.AutogradError, a RuntimeError) with PyTorch's
message, "Function 'MulBackward0' returned nan values in its 0th output.",
followed by the traceback of the forward call that recorded that node. The
traceback is taken here: libtc calls a hook of this module as each node is
recorded while the mode is on, and keeps the text it returns beside the node
(PyTorch records the same Python stack per node in anomaly mode). That costs
a Python stack walk per recorded op: a debugging mode, as in PyTorch."""
import ctypes as C
import threading
import traceback
import warnings

from .. import _decls as D
from .._core import byref, fn
from .._errors import check

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "set_anomaly_enabled"]

# The text returned to libtc must stay alive until its next call on that
# thread (libtc copies it at once): one buffer per thread.
_buffers = threading.local()


@D.tc_anomaly_trace_hook
def _trace_hook(_context):
    try:
        # The stack without this hook's own frame: where the op was called.
        text = "".join(traceback.format_stack()[:-1]).encode("utf-8", "replace")
        buf = C.create_string_buffer(text)
        _buffers.last = buf
        return C.addressof(buf)
    except BaseException:  # noqa: B902 (a trace is best effort: never fail the op for it)
        return None


def _mode():
    enabled, check_nan = C.c_int32(), C.c_int32()
    check(fn("tc_anomaly_mode")(byref(enabled), byref(check_nan)))
    return bool(enabled.value), bool(check_nan.value)


def is_anomaly_enabled():
    """True while anomaly detection is on (torch.is_anomaly_enabled).

    Returns:
        bool: the mode.
    """
    return _mode()[0]


def is_anomaly_check_nan_enabled():
    """True when anomaly detection checks gradients for NaN (torch.is_anomaly_check_nan_enabled).

    Returns:
        bool: the setting.
    """
    return _mode()[1]


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns anomaly detection on or off for the whole process (torch.set_anomaly_enabled).

    Args:
        enabled (bool): the mode.
        check_nan (bool): fail backward on a NaN gradient while enabled.
    """
    check(fn("tc_set_anomaly_mode")(C.c_int32(1 if enabled else 0), C.c_int32(1 if check_nan else 0),
                                    _trace_hook if enabled else D.tc_anomaly_trace_hook(), None))


class detect_anomaly:
    """Context manager enabling anomaly detection for the autograd engine
    (torch.autograd.detect_anomaly): a backward node that returns a NaN
    gradient makes backward fail, naming the node and showing the traceback
    of the forward call that created it.

    Args:
        check_nan (bool): raise on NaN gradients. Default True.
    """

    def __init__(self, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets anomaly detection on or off now; as a context manager, restores
    the previous setting on exit (torch.autograd.set_detect_anomaly).

    Args:
        mode (bool): enable (True) or disable (False).
        check_nan (bool): raise on NaN gradients. Default True.
    """

    def __init__(self, mode, check_nan=True):
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)
