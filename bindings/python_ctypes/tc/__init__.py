"""tc: a PyTorch-like Python API over libtc's C ABI (ctypes, no compiled
extension). `import tc` loads libtc (see tc._lib for where it looks),
initializes it (tc_init) and registers tc_shutdown at exit."""
import atexit as _atexit
import ctypes as _C

from . import _decls, _ops_generated
from ._lib import lib as _L, path as library_path, missing as missing_functions
from ._errors import (AutogradError, CallbackError, DeviceError, DTypeError, InternalError, IntOverflowError,
                      InvalidArgumentError, InvalidHandleError, MissingFunctionError, NotCompiledError,
                      NotInitializedError, OutOfMemoryError, ReadOnlyError, ShapeError, TcError,
                      TcIndexError, TcIOError, TcTimeoutError,
                      TcNotImplementedError, UnavailableError, UnknownStatusError, ERROR_CLASSES,
                      check as _check, last_error, status_name)

# ---- initialization ----------------------------------------------------------
_check(_L.tc_init(None))
_initialized = True


def _shutdown():
    global _initialized
    if _initialized:
        _initialized = False
        _L.tc_shutdown()


_atexit.register(_shutdown)

from ._core import (DTYPES as _DTYPES, bfloat16, bool_ as bool, device, dtype, enable_grad,  # noqa: E402
                    float16, float32, float64, get_default_dtype, get_flag, int8, int16, int32, int64,
                    is_grad_enabled, no_grad, promote_types, set_default_dtype, set_flag,
                    set_grad_enabled, uint8)
from ._core import flag_names as _flag_names, copy_string as _copy_string  # noqa: E402
from ._tensor import (GradFn, Size, Tensor, arange, as_tensor, cat, chunk, concat, concatenate,  # noqa: E402
                      empty, empty_like, full, full_like, gather, index_select, initial_seed,
                      manual_seed, matmul, ones, ones_like, rand, rand_like, randn,
                      randn_like, split, stack, tensor, where, zeros, zeros_like)
from ._interop import from_dlpack, from_numpy, to_dlpack  # noqa: E402
from . import autograd, cuda, distributed, nn, ops, optim, utils  # noqa: E402
from ._tensor import tensor_new  # noqa: E402
from . import _sort_reduce  # noqa: E402  (tc.prod, tc.sort, ...)
from ._tensor import (index_add, index_copy, index_fill, index_put, index_put_, masked_select,  # noqa: E402
                      nonzero, scatter, scatter_add, scatter_reduce, take)
from ._shape_ops import (bernoulli, broadcast_to, diag, diagonal, dot, einsum, eye, flatten, flip,  # noqa: E402
                         ger, linspace, logspace, meshgrid, moveaxis, movedim, outer, randint, randperm,
                         repeat_interleave, roll, tile, unbind, unflatten)
from .serialization import (get_rng_state, load, load_file, save, save_file,  # noqa: E402
                            set_rng_state)
from .nn import Parameter  # noqa: E402
from ._generator import Generator  # noqa: E402  (tc.randperm is _shape_ops')

float = float32
double = float64
half = float16
long = int64
int = int32
short = int16

__version__ = "0.1.0"


def version():
    """The loaded library's version string ("0.1.0")."""
    n, text = _C.c_int32(), _C.c_char_p()
    _check(_L.tc_version(_C.byref(n), _C.byref(text)))
    return text.value.decode()


def is_initialized():
    """Returns True if libtc has been initialized."""
    out = _C.c_int32()
    _check(_L.tc_is_initialized(_C.byref(out)))
    return out.value == 1


def abi_version():
    """Returns the ABI version of the loaded libtc."""
    out = _C.c_int32()
    _check(_L.tc_abi_version(_C.byref(out)))
    return out.value


_STAGE_STATES = {0: "pending", 1: "ok", 2: "failed", 3: "skipped", 4: "lazy"}


class InitReport(list):
    """The stages of tc_init: a list of dicts (name, state, required,
    duration_ms, message); str() gives libtc's text report."""

    def __init__(self, stages, text):
        super().__init__(stages)
        self.text = text

    def __str__(self):
        return self.text


def init_report():
    """Returns libtc's initialization report (backends, modules, versions) as a string."""
    n = _C.c_int64()
    _check(_L.tc_init_stage_count(_C.byref(n)))
    stages = []
    for i in range(n.value):
        s = _decls.tc_stage_info()
        s.size = _C.sizeof(s)
        _check(_L.tc_init_stage(i, _C.byref(s)))
        stages.append({"name": s.name.decode(), "state": _STAGE_STATES.get(s.state, str(s.state)),
                       "required": s.required != 0,
                       "duration_ms": s.duration_ms, "message": (s.message or b"").decode()})
    return InitReport(stages, _copy_string(_L.tc_init_report))


def config():
    """A build and runtime report like torch.__config__.show()."""
    return _copy_string(_L.tc_config)


class _Flags:
    """tc.flags: a mapping view of libtc's flags; assignment sets one."""

    def __getitem__(self, name):
        try:
            return get_flag(name)
        except InvalidArgumentError as e:
            raise KeyError(name) from e

    def __setitem__(self, name, value):
        set_flag(name, value)

    def __contains__(self, name):
        return name in self.keys()

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def keys(self):
        return [n for n, _ in _flag_names()]

    def items(self):
        return [(n, get_flag(n)) for n in self.keys()]

    def values(self):
        return [v for _, v in self.items()]

    def settable(self):
        return [n for n, s in _flag_names() if s]

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def __repr__(self):
        return "tc.flags(%s)" % dict(self.items())


flags = _Flags()


def set_num_threads(n):
    """Sets the number of threads CPU kernels use.

    Args:
        n (int): a positive count.
    """
    set_flag("num_threads", n)


def get_num_threads():
    """Returns the number of threads CPU kernels use."""
    return get_flag("num_threads")


_MATMUL_PRECISIONS = {"highest": 0, "high": 1, "medium": 2}


def set_float32_matmul_precision(precision):
    """Like torch.set_float32_matmul_precision: "highest" (plain float32, the
    default), "high" (TF32 allowed on CUDA) or "medium" (the fastest reduced
    precision the device offers; TF32 on CUDA today). Process-wide."""
    if precision not in _MATMUL_PRECISIONS:
        raise ValueError("precision must be one of %s, got %r" % (sorted(_MATMUL_PRECISIONS), precision))
    _check(_L.tc_set_matmul_precision(_MATMUL_PRECISIONS[precision]))


def get_float32_matmul_precision():
    """"highest", "high" or "medium" (see set_float32_matmul_precision)."""
    out = _C.c_int32()
    _check(_L.tc_get_matmul_precision(_C.byref(out)))
    return {v: k for k, v in _MATMUL_PRECISIONS.items()}[out.value]


def is_tensor(x):
    """Returns True if ``x`` is a tc.Tensor."""
    return isinstance(x, Tensor)


def numel(t):
    """Returns the number of elements of ``t``."""
    return t.numel()


def _fwd(name):
    def f(t, *args, **kwargs):
        return getattr(t, name)(*args, **kwargs)

    f.__name__ = name
    f.__doc__ = "tc.%s(t, ...) is t.%s(...)" % (name, name)
    return f


globals().update(_ops_generated.FUNCTIONS)  # tc.add, tc.exp, ...: the elementwise families

for _name in ("clamp", "clip", "sum", "mean", "var",
              "std", "logsumexp", "max", "min", "argmax", "argmin", "softmax", "log_softmax",
              "reshape", "transpose", "permute", "narrow", "select", "squeeze", "unsqueeze", "flatten",
              "clone", "detach", "t", "allclose", "equal", "square", "rsqrt",
              "tril", "triu", "masked_fill", "cumsum", "bmm", "topk", "multinomial", "addmm", "baddbmm"):
    globals()[_name] = _fwd(_name)
del _name

globals().update({_n: getattr(_sort_reduce, _n) for _n in _sort_reduce.FUNCTIONS})  # tc.prod, tc.sort, ...
subtract, multiply, divide, true_divide, negative = (globals()[n] for n in ("sub", "mul", "div", "div", "neg"))
from . import _binary_ext  # noqa: E402
globals().update(_binary_ext.FUNCTIONS)  # tc.div(rounding_mode=), tc.clamp with tensor bounds, tc.lerp, ...

from . import _rnn  # noqa: E402
globals().update(_rnn.FUNCTIONS)  # tc.lstm, tc.gru, tc.rnn_tanh, tc.rnn_relu (torch's signatures)

__all__ = [n for n in globals() if not n.startswith("_")]

# ---- tc.distributions (torch.distributions) ----------------------------------
from . import distributions  # noqa: E402,F401

# ---- PyTorch surface: legacy tensor classes, factory keywords, matrix products ------------------
# (tc/_legacy_tensors.py, tc/_factory_keywords.py, tc/_matrix_products.py, tc/backends/)
from ._legacy_tensors import LEGACY_CLASSES as _LEGACY_CLASSES  # noqa: E402
from . import _factory_keywords, _matrix_products, backends  # noqa: E402
globals().update(_LEGACY_CLASSES)  # tc.FloatTensor, tc.LongTensor, ...
globals().update(_factory_keywords.LAYOUTS_AND_FORMATS)  # tc.strided, tc.contiguous_format, ...
globals().update(_factory_keywords.build())  # tc.zeros(size=..., out=...), tc.randint(..., size=...)
from . import _torch_namespace_extras  # noqa: E402
for _n, _f in list(_matrix_products.FUNCTIONS.items()) + list(_torch_namespace_extras.FUNCTIONS.items()) + list(
        _torch_namespace_extras.functional_aliases(nn.functional).items()) + list(
        _torch_namespace_extras.forwarded(Tensor).items()):
    globals().setdefault(_n, _f)  # tc.mm, tc.kron, tc.hstack, tc.conv2d, tc.is_signed...: only where tc has none
del _n, _f
__all__ = [n for n in globals() if not n.startswith("_")]
# ---- end of the PyTorch surface block ------------------------------------------------------------

# ---- tc.normal (torch.normal), in tc/_normal.py ------------------------------------------------
from ._normal import FUNCTIONS as _NORMAL_FUNCTIONS  # noqa: E402
globals().update(_NORMAL_FUNCTIONS)
__all__ = [n for n in globals() if not n.startswith("_")]
# ---- end of tc.normal ----------------------------------------------------------------------------

# ---- PyTorch surface composed in Python: settings, top-level nn ops, statistics, calculus, windows, ----------
# scatter variants, factories, in-place view changes, sparse COO tensors (tc/_surface_extras.py)
from . import _surface_extras  # noqa: E402
_surface_extras.install(globals())
__all__ = [n for n in globals() if not n.startswith("_")]
# ---- end of the composed PyTorch surface block ---------------------------------------------------------------


# ---- torch.linalg and the legacy linear-algebra functions (tc/linalg.py, tc/_linalg_legacy.py) ----
from . import linalg  # noqa: E402
from . import _linalg_legacy  # noqa: E402
for _n, _f in _linalg_legacy.FUNCTIONS.items():
    globals().setdefault(_n, _f)  # tc.inverse, tc.det, tc.svd, ...: only where tc has none
del _n, _f
__all__ = [n for n in globals() if not n.startswith("_")]
# ---- end of the linear-algebra block ---------------------------------------------------------------

# ---- special functions: tc.polygamma, tc.mvlgamma, in-place variants, tc.special -----------------
# (tc/_special_functions.py, tc/special.py; the kernels are op-table rows)
from . import _special_functions  # noqa: E402
globals().update(_special_functions.FUNCTIONS)  # tc.polygamma(n, input), tc.mvlgamma(input, p)
from . import special  # noqa: E402,F401
__all__ = [n for n in globals() if not n.startswith("_")]
# ---- end of the special functions block ----------------------------------------------------------

# ---- torch.linalg's LAPACK extras: torch.orgqr, ormqr, symeig, chain_matmul, ... (tc/_linalg_more.py) ----
from . import _linalg_more  # noqa: E402
_linalg_more.install(globals())  # only names tc does not have yet
__all__ = [n for n in globals() if not n.startswith("_")]
# ---- end of the linalg extras block ------------------------------------------------------------------
# ---- tensors in shared memory, tc.multiprocessing (tc/_shared_memory.py, tc/multiprocessing/) ---
from . import _shared_memory  # noqa: E402
from .nn import Module as _SharedModule  # noqa: E402
_shared_memory.install(_SharedModule)
del _SharedModule
from . import multiprocessing  # noqa: E402,F401  (registers the ForkingPickler reducers, as torch does)
__all__ = [n for n in globals() if not n.startswith("_") and n != "multiprocessing"]
# ---- end of the shared memory block --------------------------------------------------------------
# ---- inference and anomaly modes (tc/_autograd/: grad_mode.py replaces the always-False
# is_inference_mode_enabled; anomaly_mode.py) ----
from .autograd import inference_mode  # noqa: E402,F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: E402,F401
from .autograd.anomaly_mode import (is_anomaly_check_nan_enabled, is_anomaly_enabled,  # noqa: E402,F401
                                    set_anomaly_enabled)
__all__ = [n for n in globals() if not n.startswith("_") and n != "multiprocessing"]
# ---- end of inference and anomaly modes ----
# ---- complex dtypes, tc.fft, tc.stft/istft (tc/_complex.py, tc/_complex_methods.py, tc/fft.py, --------
# tc/_spectral.py)
from . import _complex_methods, _spectral  # noqa: E402
_complex_methods.install(globals())
_spectral.install(globals())
from . import fft  # noqa: E402,F401
__all__ = [n for n in globals() if not n.startswith("_") and n != "multiprocessing"]
# ---- end of the complex and FFT block -------------------------------------------------------------------
