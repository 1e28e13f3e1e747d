"""tc.compat: run unchanged PyTorch code on tc.

``tc.compat.install()`` puts an import hook on sys.meta_path so that
``import torch`` (and ``torch.nn``, ``torch.optim.lr_scheduler``, ...) gives
proxy modules over tc's; ``uninstall()`` takes it off again. Importing tc
(or this module) installs nothing: only install() and the launcher
``python3 -m tc.run script.py`` do.

What tc lacks fails with a NotImplementedError naming the PyTorch name
(MissingAttribute for an attribute, MissingModule for an import), e.g.
"torch.fft.hfft2 is not implemented in tc"."""
import sys

from ._finder import MissingAttribute, MissingModule, TorchFinder, TorchProxy

_finder = None
_saved_modules = {}  # the real torch's modules, set aside while the hook is on


def _is_torch_name(name):
    return name == "torch" or name.startswith("torch.")


def is_installed():
    """True while the import hook is on sys.meta_path."""
    return _finder is not None and _finder in sys.meta_path


def install():
    """Installs the import hook (idempotent): from now on ``import torch``
    and ``import torch.*`` give tc's modules. A real PyTorch imported before
    is set aside (its sys.modules entries) and put back by uninstall().

    Returns:
        TorchFinder: the finder on sys.meta_path.
    """
    global _finder
    if is_installed():
        return _finder
    for name in [n for n in sys.modules if _is_torch_name(n)]:
        module = sys.modules.pop(name)
        if not isinstance(module, TorchProxy):
            _saved_modules[name] = module
    _finder = TorchFinder()
    sys.meta_path.insert(0, _finder)
    return _finder


def uninstall():
    """Removes the import hook and the proxy modules it made (``torch`` is
    then whatever a plain import finds: the real PyTorch, or nothing), and
    puts back the real PyTorch's modules set aside by install()."""
    global _finder
    if _finder is not None:
        while _finder in sys.meta_path:
            sys.meta_path.remove(_finder)
        _finder = None
    for name in [n for n in sys.modules if _is_torch_name(n)]:
        if isinstance(sys.modules[name], TorchProxy):
            del sys.modules[name]
    sys.modules.update(_saved_modules)
    _saved_modules.clear()


__all__ = ["install", "uninstall", "is_installed", "MissingAttribute", "MissingModule", "TorchFinder",
           "TorchProxy"]

# ---- spawned children inherit the hook (tc/compat/_spawn_children.py) ----
from . import _spawn_children  # noqa: E402

_install_without_children, _uninstall_without_children = install, uninstall


def install():  # noqa: F811
    """Installs the import hook (idempotent): from now on ``import torch``
    and ``import torch.*`` give tc's modules, in this process and in the
    processes it starts with the 'spawn' or 'forkserver' method. A real
    PyTorch imported before is set aside (its sys.modules entries) and put
    back by uninstall().

    Returns:
        TorchFinder: the finder on sys.meta_path.
    """
    finder = _install_without_children()
    _spawn_children.enable()
    return finder


def uninstall():  # noqa: F811
    """Removes the import hook (here and for processes started later) and
    the proxy modules it made, and puts back the real PyTorch's modules set
    aside by install()."""
    _spawn_children.disable()
    _uninstall_without_children()
# ---- end of the spawned-children block ----
