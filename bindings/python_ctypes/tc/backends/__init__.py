"""tc.backends: the switches PyTorch programs set on torch.backends
(cudnn.benchmark, cudnn.deterministic, mps.is_available()). libtc chooses
its kernels itself, so these only hold the values a program sets."""
from . import cudnn, mps  # noqa: F401

__all__ = ["cudnn", "mps"]
