"""The public surface of tc (Tensor's methods and properties, tc, tc.nn,
tc.nn.functional, tc.linalg, tc.fft, tc.special) equals the recorded snapshot
in api_snapshot.txt: a name that disappears fails, and so does a new one, so
that the snapshot is regenerated on purpose (see api_snapshot.py)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _live():
    # a fresh interpreter: what other tests imported (tc.compat, tc.utils.data, ...) would
    # otherwise show up as attributes of the package
    out = subprocess.run([sys.executable, os.path.join(HERE, "api_snapshot.py")], check=True,
                         capture_output=True, text=True)
    return out.stdout.splitlines()


def test_public_api_matches_snapshot():
    with open(os.path.join(HERE, "api_snapshot.txt")) as f:
        recorded = f.read().splitlines()
    live = _live()
    missing = sorted(set(recorded) - set(live))
    added = sorted(set(live) - set(recorded))
    message = []
    if missing:
        message.append("%d names of the snapshot are gone (or changed kind):\n  %s" % (len(missing), "\n  ".join(missing)))
    if added:
        message.append("%d names are new; regenerate tests/python/api_snapshot.txt if they are meant:\n  %s"
                       % (len(added), "\n  ".join(added)))
    assert not message, "\n".join(message)
