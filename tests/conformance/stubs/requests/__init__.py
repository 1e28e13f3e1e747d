"""A stand-in for requests.get, for programs that download an archive
(gcn/main.py fetches cora.tgz): get(url) serves the file named like the
URL's last part from the working folder (the suite's argv function writes
it there), so nothing is fetched from the network. Put on sys.path by
tests/conformance/run_one.py only."""
import os


class _Response:
    """What the programs read of a streamed response: ``raw`` (a binary file)
    and the context-manager protocol."""

    def __init__(self, path):
        self.raw = open(path, "rb")
        self.status_code = 200

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.raw.close()
        return False


def get(url, stream=False, **kwargs):
    """Opens ./<last part of url>; a missing file is an error (no network here)."""
    path = os.path.basename(url.split("?")[0])
    if not os.path.exists(path):
        raise RuntimeError("requests stand-in: %s is not in the working folder (no downloads)" % path)
    return _Response(path)
