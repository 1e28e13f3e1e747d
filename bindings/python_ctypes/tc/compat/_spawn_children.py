"""Processes started with the 'spawn' or 'forkserver' method inherit the
import hook: under ``tc.run`` (or after ``tc.compat.install()``), a program
that starts workers with ``torch.multiprocessing`` / ``multiprocessing``
(``mp.set_start_method('spawn')``, Hogwild training, DataLoader workers)
gets tc in the children too, as a forked child does.

A spawned child is a fresh interpreter: it unpickles the parent's
"preparation data" (sys.path, the main module's path, ...), runs the main
module as ``__mp_main__``, then unpickles the process object (whose target's
module imports torch). One more entry in the preparation data, whose
unpickling installs the hook, makes every later ``import torch`` in the
child give tc. multiprocessing.spawn.prepare ignores keys it does not know."""
import multiprocessing.spawn as _mp_spawn
import os

_KEY = "tc_compat_import_hook"
_TC_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_real_get_preparation_data = _mp_spawn.get_preparation_data

# Run in the child while the preparation data is unpickled, before its
# sys.path is applied: the folder tc was imported from goes first so that
# the child imports the same tc (prepare() then sets the parent's sys.path).
_CHILD_SOURCE = ("import sys\n"
                 "sys.path.insert(0, %r)\n"
                 "import tc.compat\n"
                 "tc.compat.install()\n")


class _InstallInChild:
    """Pickles to a call that installs tc.compat's import hook when the
    child unpickles it."""

    def __reduce__(self):
        return exec, (_CHILD_SOURCE % _TC_PARENT, {})


def _get_preparation_data(name):
    """multiprocessing.spawn.get_preparation_data, plus the hook entry while
    tc.compat's hook is installed in this process."""
    data = _real_get_preparation_data(name)
    from . import is_installed
    if is_installed():
        data[_KEY] = _InstallInChild()
    return data


def enable():
    """Makes children started from now on inherit the hook while it is on
    (idempotent; the entry is added only while the hook is installed)."""
    _mp_spawn.get_preparation_data = _get_preparation_data


def disable():
    """Puts multiprocessing's own get_preparation_data back."""
    if _mp_spawn.get_preparation_data is _get_preparation_data:
        _mp_spawn.get_preparation_data = _real_get_preparation_data
