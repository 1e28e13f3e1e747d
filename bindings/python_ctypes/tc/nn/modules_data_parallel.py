"""torch.nn.DataParallel for tc: without CUDA it is the wrapped module (as
torch's without GPUs); with CUDA the module runs on device_ids[0] with the
inputs moved there. The batch is not split over several GPUs (tc has no
module replication): with more than one device id the whole batch runs on
the first, so results are those of one device. For training over several
GPUs, use tc.nn.parallel.DistributedDataParallel."""
from typing import Optional, Sequence

import tc as _tc

from .._tensor import Tensor
from .modules import Module

__all__ = ["DataParallel"]


def _device_index(d) -> int:
    if isinstance(d, int):
        return d
    text = str(d)
    return int(text.split(":", 1)[1]) if ":" in text else 0


def _move(obj, device):
    """Tensors in obj (nested tuples, lists and dicts) moved to device."""
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple):
        return tuple(_move(o, device) for o in obj)
    if isinstance(obj, list):
        return [_move(o, device) for o in obj]
    if isinstance(obj, dict):
        return {k: _move(v, device) for k, v in obj.items()}
    return obj


class DataParallel(Module):
    """Runs module on the first of device_ids (torch.nn.DataParallel's interface;
    see the module docstring for what is not done).

    Args:
        module: the module to wrap (registered as ``module``: state_dict keys start with "module.").
        device_ids: CUDA device indices (default: all), ignored without CUDA.
        output_device: where the output goes (default: device_ids[0]).
        dim: the batch dim torch would split along (kept).
    """

    def __init__(self, module: Module, device_ids: Optional[Sequence] = None, output_device=None, dim: int = 0):
        super().__init__()
        self.module = module
        if not _tc.cuda.is_available():
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(_tc.cuda.device_count()))
        if not device_ids:
            raise ValueError("DataParallel: device_ids must not be empty")
        self.dim = dim
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device if output_device is not None else self.device_ids[0])
        self.src_device_obj = "cuda:%d" % self.device_ids[0]
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        """Runs the wrapped module (on device_ids[0] with CUDA).

        Returns:
            the module's output (on output_device with CUDA).
        """
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        src = _tc.device(self.src_device_obj)
        for name, t in list(self.module.named_parameters()) + list(self.module.named_buffers()):
            if t.device != src:
                raise RuntimeError("module must have its parameters and buffers on device {} (device_ids[0]) but "
                                   "found one of them on device: {}".format(self.src_device_obj, t.device))
        out = self.module(*_move(inputs, self.src_device_obj), **_move(kwargs, self.src_device_obj))
        if self.output_device != self.device_ids[0]:
            out = _move(out, "cuda:%d" % self.output_device)
        return out
