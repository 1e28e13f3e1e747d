"""Module, Parameter and the layers."""
import collections
import math
from typing import Dict, Iterator, Tuple

from .. import _core as K
from .. import _ops_generated
from .._core import fn
from .._errors import check
from .._tensor import Tensor, _new, empty
from . import functional as F
from . import init


from .module import Module, Parameter, _IncompatibleKeys  # noqa: F401  (their home is module.py)


def _param(shape, init_fn):
    t = empty(*shape)
    init_fn(t)
    return Parameter(t)


class Linear(Module):
    """Applies ``y = x @ weight.T + bias``.

    Args:
        in_features (int): the input size.
        out_features (int): the output size.
        bias (bool): learn an additive bias.
    """
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        # PyTorch's reset_parameters: kaiming_uniform_(a=sqrt(5)), bias U(-1/sqrt(fan_in), ..)
        self.weight = _param((out_features, in_features), lambda t: init.kaiming_uniform_(t, math.sqrt(5)))
        bound = 1.0 / math.sqrt(in_features) if in_features > 0 else 0.0
        self.bias = _param((out_features,), lambda t: init.uniform_(t, -bound, bound)) if bias else None

    def forward(self, x):
        """Applies the affine map ``x @ weight.T + bias`` to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "in_features=%d, out_features=%d, bias=%s" % (self.in_features, self.out_features,
                                                              self.bias is not None)


class Conv2d(Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True):
        super().__init__()
        kh, kw = F._pair(kernel_size)
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = (kh, kw), F._pair(stride)
        self.padding, self.dilation, self.groups = F._pair(padding), F._pair(dilation), groups
        self.weight = _param((out_channels, in_channels // groups, kh, kw),
                             lambda t: init.kaiming_uniform_(t, math.sqrt(5)))
        fan_in = (in_channels // groups) * kh * kw
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        self.bias = _param((out_channels,), lambda t: init.uniform_(t, -bound, bound)) if bias else None

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        return "%d, %d, kernel_size=%s, stride=%s, padding=%s" % (
            self.in_channels, self.out_channels, self.kernel_size, self.stride, self.padding)


class _Activation(Module):
    """Base of the element-wise activation modules: ``forward`` applies ``_fn``."""
    _fn = None

    def forward(self, x):
        """Applies the activation to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return type(self)._fn(x)


class ReLU(_Activation):
    """Applies ``max(x, 0)`` element-wise."""
    def __init__(self, inplace=False):
        super().__init__()

    _fn = staticmethod(F.relu)


class GELU(Module):
    """Applies GELU element-wise.

    Args:
        approximate (str): ``'none'`` (erf) or ``'tanh'``.
    """
    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError("approximate must be 'none' or 'tanh', got %r" % (approximate,))
        self.approximate = approximate

    def forward(self, x):
        """Applies GELU to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.gelu(x, approximate=self.approximate)


# The table's nn_module activations (ops/ops.toml), e.g. Softplus.
class _ParamActivation(Module):
    """An activation with parameters ((name, default), ...), kept as attributes
    (torch.nn.LeakyReLU(negative_slope=0.01, inplace=False) and the like)."""
    _fn = None
    _params = ()

    def __init__(self, *args, inplace=False, **kwargs):
        super().__init__()
        names = [p for p, _ in self._params]
        if len(args) > len(names):
            args, inplace = args[:len(names)], args[len(names)]
        values = dict(self._params)
        values.update(zip(names, args))
        for k, v in kwargs.items():
            if k not in values:
                raise TypeError("%s() got an unexpected keyword argument %r" % (type(self).__name__, k))
            values[k] = v
        for k in names:
            setattr(self, k, values[k])
        self.inplace = inplace

    def forward(self, x):
        """Applies the activation with this module's parameters to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return type(self)._fn(x, *(getattr(self, p) for p, _ in self._params))


for _cls, _op, _params in _ops_generated.NN_MODULES:
    globals()[_cls] = type(_cls, (_ParamActivation if _params else _Activation,),
                           {"_fn": staticmethod(getattr(F, _op)), "_params": _params, "__module__": __name__,
                            "__doc__": "Applies :func:`tc.nn.functional.%s` element-wise.%s" % (
                                _op, "\n\nArgs:\n" + "".join("    %s (Number): defaults to %r.\n" % p for p in _params)
                                if _params else "")})


class Tanh(_Activation):
    """Applies tanh element-wise."""
    _fn = staticmethod(F.tanh)


class Sigmoid(_Activation):
    """Applies ``1 / (1 + exp(-x))`` element-wise."""
    _fn = staticmethod(F.sigmoid)


class Identity(Module):
    """Returns its input unchanged (a placeholder layer)."""
    def forward(self, x):
        """Applies nothing (returns the input) to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return x


class Softmax(Module):
    """Applies softmax along ``dim``.

    Args:
        dim (int): the dimension.
    """
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        """Applies softmax along ``dim`` to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return x.softmax(self.dim)


class LogSoftmax(Softmax):
    """Applies log-softmax along ``dim``.

    Args:
        dim (int): the dimension.
    """
    def forward(self, x):
        """Applies log-softmax along ``dim`` to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return x.log_softmax(self.dim)


class Flatten(Module):
    """Flattens dimensions ``start_dim`` to ``end_dim`` into one.

    Args:
        start_dim (int): the first dimension (default 1).
        end_dim (int): the last dimension (default -1).
    """
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        """Applies the flattening to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return x.flatten(self.start_dim, self.end_dim)


class Dropout(Module):
    """Zeroes elements with probability ``p`` in training mode, scaling the rest by 1 / (1 - p).

    Args:
        p (float): the drop probability.
    """
    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
        self.p = p

    def forward(self, x):
        """Applies dropout (identity in eval mode) to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.dropout(x, self.p, self.training)

    def extra_repr(self):
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "p=%s" % self.p


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding)


class AvgPool2d(MaxPool2d):
    def forward(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding)


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.weight = _param((num_embeddings, embedding_dim), lambda t: init.normal_(t))

    def forward(self, indices):
        return F.embedding(indices, self.weight)


class LayerNorm(Module):
    """Layer normalization over the last dimensions.

    Args:
        normalized_shape (int or tuple of int): the trailing shape to normalize.
        eps (float): added to the variance.
        elementwise_affine (bool): learn a weight and a bias.
    """
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = _param(self.normalized_shape, init.ones_)
            self.bias = _param(self.normalized_shape, init.zeros_) if bias else None
        else:
            self.weight = self.bias = None

    def forward(self, x):
        """Applies layer normalization to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "%s, eps=%s, elementwise_affine=%s" % (self.normalized_shape, self.eps, self.elementwise_affine)


class RMSNorm(Module):
    """RMS normalization over the last dimensions.

    Args:
        normalized_shape (int or tuple of int): the trailing shape to normalize.
        eps (float, optional): added to the mean square.
        elementwise_affine (bool): learn a weight.
    """
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        self.weight = _param(self.normalized_shape, init.ones_) if elementwise_affine else None

    def forward(self, x):
        """Applies RMS normalization to the input.

        Args:
            x (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "%s, eps=%s, elementwise_affine=%s" % (self.normalized_shape, self.eps, self.elementwise_affine)


class Sequential(Module):
    """Chains modules: the output of each is the input of the next.

    Args:
        *modules (Module): the modules, or one OrderedDict of named modules.
    """
    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], collections.OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, x):
        """Runs the modules in order.

        Args:
            x: the input of the first module.

        Returns:
            the output of the last module.
        """
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        mods = list(self._modules.values())
        if isinstance(i, slice):
            return Sequential(*mods[i])
        return mods[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        """Appends ``module`` at the end and returns self."""
        self.add_module(str(len(self._modules)), module)
        return self


class ModuleList(Module):
    """Holds submodules in a list (registered, so their parameters are found).

    Args:
        modules (iterable of Module, optional): the initial modules.
    """
    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, module):
        """Appends ``module`` and returns self."""
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class _Loss(Module):
    """Base of the loss modules: keeps ``reduction``."""
    def __init__(self, reduction="mean"):
        super().__init__()
        F._reduction(reduction)
        self.reduction = reduction


class MSELoss(_Loss):
    """The mean squared error loss.

    Args:
        reduction (str): ``'mean'``, ``'sum'`` or ``'none'``.
    """
    def forward(self, input, target):
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.mse_loss(input, target, self.reduction)


class PReLU(Module):
    """PReLU(x) = x where x > 0, else weight * x, with a learned weight, as
    torch.nn.PReLU.

    Args:
        num_parameters: 1 (one slope for every element) or the number of
            channels (input's dim 1).
        init: the slopes' initial value.
        device: where the weight lives.
        dtype: the weight's floating dtype (the default one if None).
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None) -> None:
        super().__init__()
        from .._tensor import full
        self.num_parameters = num_parameters
        self.weight = Parameter(full((num_parameters,), float(init), dtype=dtype, device=device))

    def forward(self, x: Tensor) -> Tensor:
        """The activation of x (differentiable in x and weight)."""
        return F.prelu(x, self.weight)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "num_parameters=%d" % self.num_parameters


class GLU(Module):
    """The gated linear unit a * sigmoid(b) of x's halves a, b along dim, as
    torch.nn.GLU.

    Args:
        dim: the dim to halve (its size must be even).
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        """The gated halves of x."""
        return F.glu(x, self.dim)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "dim=%d" % self.dim
