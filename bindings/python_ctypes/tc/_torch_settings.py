"""PyTorch's process-wide settings functions, with real state: the
deterministic-algorithms switch (libtc's "deterministic" flag), its debug
mode and warn-only variant, warn_always, the inter-op
thread count, seed(), is_inference_mode_enabled, set_default_tensor_type and
is_storage. FUNCTIONS maps their torch names to them."""
import random as _random

from . import _core as K
from ._tensor_base import manual_seed

# warn_only belongs to the Python side: libtc's flag only says "deterministic".
_state = {"warn_only": False, "warn_always": False, "interop_threads": None}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Makes libtc use only deterministic algorithms (libtc's
    ``deterministic`` flag), like torch.use_deterministic_algorithms.

    Args:
        mode (bool): True to require deterministic algorithms.
        warn_only (bool): remembered for
            :func:`is_deterministic_algorithms_warn_only_enabled` and
            :func:`get_deterministic_debug_mode` ("warn" instead of "error").
    """
    if not isinstance(mode, bool):
        raise TypeError("use_deterministic_algorithms(): argument 'mode' must be bool, not %s"
                        % type(mode).__name__)
    K.set_flag("deterministic", 1 if mode else 0)
    _state["warn_only"] = bool(warn_only) if mode else False


def are_deterministic_algorithms_enabled():
    """True when :func:`use_deterministic_algorithms` turned them on."""
    return bool(K.get_flag("deterministic"))


def is_deterministic_algorithms_warn_only_enabled():
    """True when deterministic algorithms are on in warn-only mode."""
    return are_deterministic_algorithms_enabled() and _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """The other interface of :func:`use_deterministic_algorithms`:
    "default" or 0 (off), "warn" or 1 (on, warn only), "error" or 2 (on).

    Args:
        debug_mode (str or int): the mode.
    """
    if isinstance(debug_mode, bool) or not isinstance(debug_mode, (int, str)):
        raise TypeError("debug_mode must be str or int, but got %s" % type(debug_mode))
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got %s"
                               % debug_mode)
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode == 0:
        use_deterministic_algorithms(False)
    elif debug_mode == 1:
        use_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        use_deterministic_algorithms(True)
    else:
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got %d" % debug_mode)


def get_deterministic_debug_mode():
    """0 (off), 1 (warn only) or 2 (error), see :func:`set_deterministic_debug_mode`."""
    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if _state["warn_only"] else 2


def set_warn_always(b):
    """Records whether warnings PyTorch issues once per process should be
    issued every time, read back by :func:`is_warn_always_enabled` (tc's own
    warnings go through Python's warnings module, whose filters decide).

    Args:
        b (bool): the new setting.
    """
    _state["warn_always"] = bool(b)


def is_warn_always_enabled():
    """The setting made by :func:`set_warn_always` (False by default)."""
    return _state["warn_always"]


def get_num_interop_threads():
    """The number of threads for inter-op parallelism. libtc runs each op on
    the calling thread with its intra-op pool (tc.get_num_threads), so this
    is the count set by :func:`set_num_interop_threads`, else the intra-op
    count, which is what PyTorch reports by default too."""
    n = _state["interop_threads"]
    return n if n is not None else K.get_flag("num_threads")


def set_num_interop_threads(nthreads):
    """Sets the inter-op thread count once, like PyTorch (a second call
    raises RuntimeError). libtc has no inter-op pool: the value is kept and
    reported by :func:`get_num_interop_threads`.

    Args:
        nthreads (int): a positive count.
    """
    if not isinstance(nthreads, int) or isinstance(nthreads, bool):
        raise TypeError("set_num_interop_threads(): argument 'nthreads' must be int, not %s"
                        % type(nthreads).__name__)
    if nthreads <= 0:
        raise RuntimeError("Expected positive number of threads")
    if _state["interop_threads"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _state["interop_threads"] = nthreads


def seed():
    """Seeds the default generator with a non-deterministic random number
    and returns it (a 64-bit integer), like torch.seed."""
    s = _random.SystemRandom().getrandbits(63)
    manual_seed(s)
    return s


def is_inference_mode_enabled():
    """False: libtc has no inference mode (torch.inference_mode); tensors
    are never inference tensors (Tensor.is_inference() is False too)."""
    return False


def is_storage(obj):
    """True if obj is a storage object. tc exposes no storage objects
    (tensors share memory through views and tc.from_numpy), so this is
    always False."""
    return False


def set_default_tensor_type(t):
    """Sets the default floating point type from a tensor type, like
    torch.set_default_tensor_type: tc.FloatTensor / tc.DoubleTensor /
    tc.HalfTensor / tc.BFloat16Tensor or their names ("torch.DoubleTensor"
    and "tc.DoubleTensor" both work). Sets the default dtype.

    Args:
        t (type or str): the tensor type.
    """
    from ._legacy_tensors import LEGACY_CLASSES
    if isinstance(t, str):
        name = t.split(".", 1)[1] if t.startswith(("torch.", "tc.")) else t
        if name.startswith("cuda."):
            raise TypeError("set_default_tensor_type(): tc keeps CUDA tensor types out of the defaults "
                            "(got %s); use tc.set_default_dtype and .to(device)" % t)
        if name not in LEGACY_CLASSES:
            raise TypeError("invalid type: '%s'" % t)
        t = LEGACY_CLASSES[name]
    dtype = getattr(t, "dtype", None)
    if not isinstance(dtype, K.dtype):
        raise TypeError("invalid type: '%r'" % (t,))
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    K.set_default_dtype(dtype)


FUNCTIONS = {f.__name__: f for f in (
    use_deterministic_algorithms, are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode, get_deterministic_debug_mode,
    set_warn_always, is_warn_always_enabled, get_num_interop_threads, set_num_interop_threads, seed,
    is_inference_mode_enabled, is_storage, set_default_tensor_type)}
