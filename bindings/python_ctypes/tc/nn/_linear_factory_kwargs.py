"""nn.Linear's factory arguments: PyTorch 1.13's signature is
``Linear(in_features, out_features, bias=True, device=None, dtype=None)``,
and subclasses pass all five positionally
(``super().__init__(in_features, out_features, bias, device, dtype)``).
modules.Linear builds its parameters in the default dtype on the CPU; this
gives its __init__ the two arguments, creating the parameters where and as
asked (initialized as before, then moved and cast)."""
import inspect

from .modules import Linear

_plain_init = Linear.__init__


def _linear_init(self, in_features, out_features, bias=True, device=None, dtype=None):
    """Linear(in_features, out_features, bias=True, device=None, dtype=None).

    Args:
        in_features (int): the input size.
        out_features (int): the output size.
        bias (bool): learn an additive bias.
        device (str or device, optional): where the parameters live (default: the CPU).
        dtype (dtype, optional): the parameters' floating dtype (default: the default dtype).
    """
    _plain_init(self, in_features, out_features, bias)
    if device is not None or dtype is not None:
        # in place, so that the Parameter objects stay the module's own
        for name in ("weight", "bias"):
            param = getattr(self, name)
            if param is not None:
                param.data = param.data.to(device=device, dtype=dtype)


def install():
    """Gives nn.Linear (and so its subclasses) the device/dtype arguments, once."""
    if "dtype" not in inspect.signature(Linear.__init__).parameters:
        Linear.__init__ = _linear_init
