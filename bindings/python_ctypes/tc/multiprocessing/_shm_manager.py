"""The file_system strategy's cleanup process (PyTorch's torch_shm_manager),
run as a script: `python _shm_manager.py ADDRESS` (an abstract Unix socket
name). It imports nothing from tc, so a crash there cannot keep it from
cleaning up.

Every process that makes file_system segments connects to it and sends each
new segment's name as one line. Segments normally go away by their own
reference counts; this process only handles what a killed process left: once
every connected process has disconnected (exited, however it ended) and no new
one connects for a moment, it unlinks every registered segment that still
exists and exits. It runs in its own session, so a Ctrl-C aimed at the
program's process group does not stop it before it has cleaned up."""
import os
import select
import socket
import sys
import time

_LINGER_S = 0.5  # a new client may still connect just after the last one left


def _unlink(name):
    try:
        os.unlink("/dev/shm" + name)
    except OSError:
        pass


def serve(address):
    """Accepts clients on address until they are all gone, then cleans up."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    clients, pending, names = {}, {}, set()
    idle_since = None
    while True:
        timeout = None if idle_since is None else max(0.0, idle_since + _LINGER_S - time.monotonic())
        readable, _, _ = select.select([server] + list(clients), [], [], timeout)
        if not readable and idle_since is not None:
            break
        for s in readable:
            if s is server:
                conn, _ = server.accept()
                clients[conn] = True
                pending[conn] = b""
                idle_since = None
                continue
            data = s.recv(65536)
            if not data:
                del clients[s]
                pending.pop(s, None)
                s.close()
                if not clients:
                    idle_since = time.monotonic()
                continue
            buf = pending[s] + data
            *lines, pending[s] = buf.split(b"\n")
            for line in lines:
                if line.startswith(b"/tc_"):
                    names.add(line.decode())
            if len(names) > 4096:  # forget segments already released by their counts
                names = {n for n in names if os.path.exists("/dev/shm" + n)}
    for n in names:
        _unlink(n)


if __name__ == "__main__":
    serve("\0" + sys.argv[1])
