"""This process's connection to the file_system cleanup process
(_shm_manager.py): started on first use, its address passed to child
processes in the TC_SHM_MANAGER environment variable, one connection per
process (a forked child makes its own)."""
import os
import socket
import subprocess
import sys
import threading

_ENV = "TC_SHM_MANAGER"
_lock = threading.Lock()
_conn = None
_conn_pid = None
_manager_proc = None  # kept so the Popen object does not warn when collected


def _start_manager():
    address = "tc_shm_manager_%d_%s" % (os.getpid(), os.urandom(6).hex())
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_shm_manager.py")
    global _manager_proc
    proc = _manager_proc = subprocess.Popen([sys.executable, script, address], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, start_new_session=True, close_fds=True)
    if proc.stdout.readline().strip() != b"ready":
        raise RuntimeError("tc.multiprocessing: the shared memory manager did not start")
    proc.stdout.close()
    os.environ[_ENV] = address
    return address


def _connect():
    address = os.environ.get(_ENV)
    if address:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect("\0" + address)
            return s
        except OSError:  # it has exited (all its clients were gone): start another
            s.close()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("\0" + _start_manager())
    return s


def _ensure():
    global _conn, _conn_pid
    if _conn is None or _conn_pid != os.getpid():
        _conn = _connect()
        _conn.set_inheritable(False)
        _conn_pid = os.getpid()


def ensure_connected():
    """Connects this process (one that maps file_system segments) so the
    cleanup process waits for it before sweeping."""
    with _lock:
        _ensure()


def register(name):
    """Tells the cleanup process about a new file_system segment."""
    with _lock:
        _ensure()
        _conn.sendall(name.encode() + b"\n")
