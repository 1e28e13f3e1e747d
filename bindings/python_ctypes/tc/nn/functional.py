"""tc.nn.functional: the neural-network ops of tc.h as functions."""
import itertools
import math
import numbers

from .. import _core as K
from .. import _decls as D
from .._core import fn
from .._ints import to_int64
from .._tensor import _call
from .. import _ops_generated

_REDUCTIONS = {"none": D.TC_REDUCTION_NONE, "mean": D.TC_REDUCTION_MEAN, "sum": D.TC_REDUCTION_SUM}


def _reduction(r):
    try:
        return _REDUCTIONS[r]
    except KeyError:
        raise ValueError("%r is not a valid value for reduction" % (r,)) from None


def _pair(v):
    """(a, b) from an integer or a pair of integers, each fitting int64
    (IntOverflowError past it, TypeError for floats). Looks at no more than
    three items of an iterable, so a huge or endless one fails at once."""
    if hasattr(v, "__index__"):  # ints, bools, numpy integers
        v = to_int64(v)
        return (v, v)
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError("expected an int or a pair of ints, got %s" % type(v).__name__)
    items = tuple(itertools.islice(v, 3))
    if len(items) != 2:
        raise ValueError("expected an int or a pair of ints, got %d or more values" % len(items)
                         if len(items) == 3 else "expected an int or a pair of ints, got %r" % (items,))
    return tuple(map(to_int64, items))


def _arr2(v):
    arr, _ = K.int64_array(_pair(v))
    return arr


def relu(x, inplace=False):
    """Applies ``max(x, 0)`` element-wise.

    Args:
        x (Tensor): the input.
        inplace (bool): accepted for PyTorch compatibility; a new tensor is returned.

    Returns:
        Tensor: the result.
    """
    return x.relu()


def gelu(x, approximate="none"):
    """Applies GELU element-wise.

    Args:
        x (Tensor): the input.
        approximate (str): ``'none'`` (erf) or ``'tanh'``.

    Returns:
        Tensor: the result.
    """
    if approximate == "none":
        return x.gelu()
    if approximate == "tanh":
        return x.gelu_tanh()
    raise ValueError("approximate must be 'none' or 'tanh', got %r" % (approximate,))


def sigmoid(x):
    """Applies ``1 / (1 + exp(-x))`` element-wise."""
    return x.sigmoid()


def tanh(x):
    """Applies tanh element-wise."""
    return x.tanh()


def softmax(x, dim):
    """See :func:`tc.Tensor.softmax`."""
    return x.softmax(dim)


def log_softmax(x, dim):
    """See :func:`tc.Tensor.log_softmax`."""
    return x.log_softmax(dim)


def linear(x, weight, bias=None):
    """Returns ``x @ weight.T + bias``.

    Args:
        x (Tensor): (..., in_features).
        weight (Tensor): (out_features, in_features).
        bias (Tensor, optional): (out_features,).

    Returns:
        Tensor: (..., out_features).
    """
    return _call(fn("tc_linear"), x._h, weight._h, bias._h if bias is not None else None)


def mse_loss(input, target, reduction="mean"):
    """Mean squared error between ``input`` and ``target``.

    Args:
        input (Tensor): the prediction.
        target (Tensor): the target.
        reduction (str): ``'mean'``, ``'sum'`` or ``'none'``.

    Returns:
        Tensor: the loss.
    """
    return _call(fn("tc_mse_loss"), input._h, target._h, _reduction(reduction))


def dropout(x, p=0.5, training=True):
    """Zeroes elements with probability ``p`` and scales the rest by 1 / (1 - p) when ``training``.

    Args:
        x (Tensor): the input.
        p (float): the drop probability.
        training (bool): apply dropout (identity otherwise).

    Returns:
        Tensor: the result.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
    return _call(fn("tc_dropout"), x._h, float(p), 1 if training else 0)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _call(fn("tc_conv2d"), x._h, weight._h, bias._h if bias is not None else None,
                 _arr2(stride), _arr2(padding), _arr2(dilation), int(groups))


def max_pool2d(x, kernel_size, stride=None, padding=0):
    return _call(fn("tc_max_pool2d"), x._h, _arr2(kernel_size),
                 _arr2(stride) if stride is not None else None, _arr2(padding))


def avg_pool2d(x, kernel_size, stride=None, padding=0):
    return _call(fn("tc_avg_pool2d"), x._h, _arr2(kernel_size),
                 _arr2(stride) if stride is not None else None, _arr2(padding))


def embedding(input, weight):
    return _call(fn("tc_embedding"), weight._h, input._h)


def _normalized_shape(shape):
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    return K.int64_array(tuple(shape))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalizes the trailing ``normalized_shape`` dimensions to zero mean and unit variance.

    Args:
        input (Tensor): the input.
        normalized_shape (sequence of int): the trailing shape.
        weight (Tensor, optional): the scale.
        bias (Tensor, optional): the shift.
        eps (float): added to the variance.

    Returns:
        Tensor: the result.
    """
    arr, n = _normalized_shape(normalized_shape)
    return _call(fn("tc_layer_norm"), input._h, arr, n, weight._h if weight is not None else None,
                 bias._h if bias is not None else None, float(eps))


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) * weight; eps None is the dtype's machine
    epsilon, like torch.nn.functional.rms_norm."""
    if eps is None:
        eps = 2.220446049250313e-16 if input.dtype == "float64" else 1.1920928955078125e-07
    arr, n = _normalized_shape(normalized_shape)
    return _call(fn("tc_rms_norm"), input._h, arr, n, weight._h if weight is not None else None, float(eps))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False):
    """Computes ``softmax(query @ key^T / sqrt(E) + mask) @ value``.

    Args:
        query (Tensor): (..., L, E).
        key (Tensor): (..., S, E).
        value (Tensor): (..., S, Ev).
        attn_mask (Tensor, optional): a bool mask (True keeps) or an additive float mask.
        dropout_p (float): dropout probability on the attention weights.
        is_causal (bool): apply a causal mask.

    Returns:
        Tensor: (..., L, Ev).
    """
    return _call(fn("tc_scaled_dot_product_attention"), query._h, key._h, value._h,
                 attn_mask._h if attn_mask is not None else None, float(dropout_p), 1 if is_causal else 0)


def one_hot(tensor, num_classes=-1):
    """Returns the one-hot encoding of the int64 ``tensor``.

    Args:
        tensor (Tensor): class indices.
        num_classes (int): the number of classes (max + 1 when -1).

    Returns:
        Tensor: int64, with a trailing dimension of size ``num_classes``.
    """
    return _call(fn("tc_one_hot"), tensor._h, int(num_classes))


def _nn_function(name, params):
    """tc.nn.functional.<name>(x, *params, inplace=False): inplace is accepted
    for PyTorch's signatures and ignored (the result is a new tensor)."""
    def f(x, *args, **kwargs):
        kwargs.pop("inplace", None)
        return getattr(x, name)(*args[:len(params)], **kwargs)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = ("Applies ``%s`` element-wise: %s\n\nArgs:\n    x (Tensor): the input.\n%s"
                 "    inplace (bool): accepted for PyTorch compatibility; a new tensor is returned.\n\n"
                 "Returns:\n    Tensor: the result." % (name, _method_doc(name),
                 "".join("    %s (Number): defaults to %r.\n" % (p, d) for p, d in params)))
    return f


def _method_doc(name):
    from .._tensor import Tensor
    return (getattr(Tensor, name).__doc__ or "").strip()


# The table's nn_functional ops (ops/ops.toml), e.g. softplus.
_PARAMS = {c[3:]: params for c, *_, params in _ops_generated.METHODS}
globals().update({_n: _nn_function(_n, _PARAMS[_n]) for _n in _ops_generated.NN_FUNCTIONAL})

from .._binary_ext import glu, prelu  # noqa: E402,F401  (tc/_binary_ext.py)

# The losses and distances: cross_entropy and nll_loss take weights,
# ignore_index, label smoothing and N-d inputs (tc_cross_entropy_ex, tc_nll_loss_ex).
from .functional_loss import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: E402,F401
                              cosine_similarity, cross_entropy, huber_loss, kl_div, l1_loss, nll_loss,
                              normalize, pairwise_distance, smooth_l1_loss)

from .._shape_ops import pad  # noqa: E402,F401  (torch.nn.functional.pad)

# The layer functions (norms, 1-D and transposed convolutions, pooling with
# ceil_mode/dilation/indices, resampling): conv2d, max_pool2d, avg_pool2d and
# embedding there extend the forms above with PyTorch's further arguments.
from .functional_layers import *  # noqa: E402,F401,F403

# ---- more losses (functional_loss_more.py, functional_ctc.py): margin, embedding,
# ranking, triplet, Gaussian/Poisson likelihood and CTC losses.
from .functional_loss_more import (cosine_embedding_loss, gaussian_nll_loss, hinge_embedding_loss,  # noqa: E402,F401
                                   margin_ranking_loss, multi_margin_loss, multilabel_margin_loss,
                                   multilabel_soft_margin_loss, poisson_nll_loss, soft_margin_loss,
                                   triplet_margin_loss, triplet_margin_with_distance_loss)
from .functional_ctc import ctc_loss  # noqa: E402,F401

# ---- more layer functions of torch.nn.functional 1.13 (3-D and window ops,
# unfold/fold, unpooling, shrink/threshold activations, dropouts, embedding_bag,
# bilinear, LRN, channel shuffle, affine_grid/grid_sample, interpolate's other modes):
# tc/nn/functional_nd.py, functional_more.py, functional_vision.py and functional_interp.py.
from .functional_nd import *  # noqa: E402,F401,F403
from .functional_more import *  # noqa: E402,F401,F403
from .functional_vision import *  # noqa: E402,F401,F403
# interpolate/upsample with every mode of torch's (the tc_interpolate forms still go to it)
from .functional_interp import interpolate, upsample  # noqa: E402,F401,F811

# Multi-head attention (torch.nn.functional.multi_head_attention_forward).
from .functional_attention import multi_head_attention_forward  # noqa: E402,F401

# ---- softmax / log_softmax with torch's signature (dim=None's implicit
# choice, dtype): tc/nn/functional_softmax.py
from .functional_softmax import log_softmax, softmax  # noqa: E402,F401,F811
