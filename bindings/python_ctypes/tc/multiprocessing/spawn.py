"""tc.multiprocessing.spawn: start nprocs processes running fn(i, *args) and
wait for them, raising in the parent what a child raised, as
torch.multiprocessing.spawn (torch/multiprocessing/spawn.py's behaviour)."""
import multiprocessing
import multiprocessing.connection
import signal
import sys
from typing import Optional


class ProcessException(Exception):
    """A spawned process failed (base of the two kinds below)."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or died of a signal."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: Optional[str] = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent interrupted the group
    except Exception:
        import traceback
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The started processes; join() waits for them and reports the first failure.

    Args:
        processes: the Process objects.
        error_queues: one SimpleQueue per process, carrying a raised traceback.
    """

    def __init__(self, processes, error_queues):
        self.error_queues = error_queues
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        """The processes' pids."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None):
        """Waits (up to timeout seconds) for the processes. When one failed,
        terminates the others and raises ProcessRaisedException (with its
        traceback) or ProcessExitedException.

        Args:
            timeout (float): how long to wait; None waits until one ends.

        Returns:
            bool: True when all have ended successfully.
        """
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        for process in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
        failed = self.processes[error_index]
        if self.error_queues[error_index].empty():
            code = failed.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException("process %d terminated with signal %s" % (error_index, name),
                                             error_index=error_index, error_pid=failed.pid, exit_code=code,
                                             signal_name=name)
            raise ProcessExitedException("process %d terminated with exit code %d" % (error_index, code),
                                         error_index=error_index, error_pid=failed.pid, exit_code=code)
        trace = self.error_queues[error_index].get()
        msg = "\n\n-- Process %d terminated with the following error:\n" % error_index + trace
        raise ProcessRaisedException(msg, error_index, failed.pid)


class SpawnContext(ProcessContext):
    """What spawn(join=False) returns (PyTorch keeps this name)."""


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts nprocs processes running fn(i, *args) with the given start method.

    Args:
        fn: a picklable function (module level, for spawn).
        args: the rest of fn's arguments.
        nprocs (int): how many processes.
        join (bool): wait for them (else return the ProcessContext).
        daemon (bool): start them as daemons.
        start_method (str): 'spawn', 'fork' or 'forkserver'.

    Returns:
        None when join, else a ProcessContext.
    """
    mp = multiprocessing.get_context(start_method)
    error_queues, processes = [], []
    for i in range(nprocs):
        q = mp.SimpleQueue()
        p = mp.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
        p.start()
        error_queues.append(q)
        processes.append(p)
    context = ProcessContext(processes, error_queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Spawns nprocs processes running fn(i, *args), as torch.multiprocessing.spawn.
    When one fails the others are terminated and its exception re-raised
    here (ProcessRaisedException, with the child's traceback).

    Args:
        fn: a module-level function taking the process index first.
        args: the rest of fn's arguments.
        nprocs (int): how many processes.
        join (bool): wait for them (else return a SpawnContext).
        daemon (bool): start them as daemons.
        start_method (str): must be 'spawn' (use start_processes for others).

    Returns:
        None when join, else a SpawnContext.
    """
    if start_method != "spawn":
        import warnings
        warnings.warn("This method only supports start_method=spawn (got: %s).\n"
                      "To use a different start_method use:\n\t\t"
                      " tc.multiprocessing.start_processes(...)" % start_method)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
