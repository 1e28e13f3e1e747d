"""tc.multiprocessing: the standard library's multiprocessing, with tc
tensors sent between processes through shared memory instead of by copy
(torch.multiprocessing's counterpart).

Importing it registers ForkingPickler reducers (reductions.py): a tensor put
on a multiprocessing Queue or Pipe, or passed to a Process, is moved into
shared memory (in place) and the receiver maps the same memory. Two sharing
strategies, as PyTorch's: 'file_descriptor' (the default on Linux; the
segment is reached only through file descriptors passed over Unix sockets)
and 'file_system' (segments keep a name in /dev/shm; a cleanup process,
_shm_manager.py, unlinks what killed processes leave). See
docs/MULTIPROCESSING.md."""
import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from .. import _shared_memory
from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessExitedException, ProcessRaisedException, SpawnContext,  # noqa: F401
                    spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn",
           "start_processes", "ProcessContext", "SpawnContext", "ProcessRaisedException",
           "ProcessExitedException"]
__all__ += multiprocessing.__all__

_sharing_strategy = "file_descriptor"
_all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors with other processes (this
    process's new segments; a storage already shared keeps its kind).

    Args:
        new_strategy (str): one of get_all_sharing_strategies().
    """
    global _sharing_strategy
    assert new_strategy in _all_sharing_strategies
    _shared_memory.set_library_strategy(new_strategy)
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """Returns the current strategy for sharing CPU tensors."""
    return _shared_memory.library_strategy(_sharing_strategy)


def get_all_sharing_strategies():
    """Returns the set of sharing strategies supported here."""
    return _all_sharing_strategies


def _register_file_system_segment(name):
    from . import _manager_client  # imported on first use: sockets, subprocess
    _manager_client.register(name)


_shared_memory.on_file_system_segment = _register_file_system_segment
init_reductions()
if sys.platform != "linux":  # SCM_RIGHTS of a shm fd is what Linux has
    _all_sharing_strategies = {"file_system"}
