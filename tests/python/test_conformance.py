"""Conformance: public PyTorch programs (tests/conformance/programs/, listed
with their sources in tests/conformance/SOURCES.md) run unchanged under
PyTorch and under `python3 -m tc.run`, from the same initial weights and
random draws (tests/conformance/run_one.py), and print the same losses step
by step (float32 tolerances).

The programs are listed in tests/conformance/suites/ (one module per source
repository). A program whose entry names `missing` cannot run on tc yet: its
tc run must stop with tc.run's "X is not implemented in tc" report, and the
test is an expected failure naming what is missing (it reports XPASS once tc
has it). A program whose entry names `differs` runs to the end on tc but is
known to print other numbers (the entry says why): the test is an expected
failure until tc matches. A program whose entry says `slow` (a full-size
model the program fixes itself) runs only with TC_CONFORMANCE_SLOW=1 in the
environment. This file runs as its own ctest test, python.conformance, beside
python.pytest."""
import os
import re
import subprocess
import sys

import pytest

import tc

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RUN_ONE = os.path.join(REPO, "tests", "conformance", "run_one.py")
PKG = os.path.join(REPO, "bindings", "python_ctypes")

sys.path.insert(0, os.path.join(REPO, "tests", "conformance"))
from suites import all_programs  # noqa: E402

PROGRAMS = all_programs()

# A loss as the programs print it: "Loss: 0.123", "loss  2.82", "test loss 3.1".
_LOSS = re.compile(r"loss[:\s]+(-?\d+\.\d+(?:e[-+]?\d+)?)", re.IGNORECASE)
_BATCHES = re.compile(r"after (\d+) batches")
_MISSING = re.compile(r"tc\.run: (.*) is not implemented in tc")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG + os.pathsep + env.get("PYTHONPATH", "")
    env["TC_LIBRARY"] = tc.library_path
    env.setdefault("OMP_NUM_THREADS", "1")
    # libtc's own thread pool reads TC_NUM_THREADS, not OMP_NUM_THREADS: the
    # same single thread as the PyTorch run (on a busy machine each parallel
    # op otherwise waits for a scheduler slice)
    env.setdefault("TC_NUM_THREADS", env["OMP_NUM_THREADS"])
    env["PYTHONHASHSEED"] = "0"  # run_one.py would restart itself to get it
    return env


def _run(name, workdir, on_tc):
    cmd = [sys.executable] + (["-m", "tc.run"] if on_tc else []) + [RUN_ONE, name, "--workdir", str(workdir)]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=PROGRAMS[name].get("timeout", 120))


def _numbers(out):
    return [float(x) for x in _LOSS.findall(out)] + [float(x) for x in _BATCHES.findall(out)]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_pytorch(name, tmp_path, request):
    pytest.importorskip("torch")
    pytest.importorskip("numpy")
    spec = PROGRAMS[name]
    if spec.get("differs"):
        request.applymarker(pytest.mark.xfail(reason="known difference: %s" % spec["differs"]))
    if spec.get("slow") and os.environ.get("TC_CONFORMANCE_SLOW") != "1":
        pytest.skip("a full-size model, too heavy for every test run: set TC_CONFORMANCE_SLOW=1 to run it")
    if spec.get("missing"):
        # a probe without PyTorch's weights first: if tc stops on a missing
        # name, the PyTorch run (seconds) is not needed
        probe = _run(name, tmp_path / "probe", on_tc=True)
        missing = _MISSING.search(probe.stderr)
        if probe.returncode != 0:
            assert missing, probe.stderr[-3000:]
            pytest.xfail("tc lacks %s (known to need: %s)" % (missing.group(1), ", ".join(spec["missing"])))
    ref = _run(name, tmp_path, on_tc=False)
    assert ref.returncode == 0, ref.stderr[-3000:]
    got = _run(name, tmp_path, on_tc=True)
    assert got.returncode == 0, got.stderr[-3000:]
    compare = spec.get("compare", _numbers)
    want, have = compare(ref.stdout), compare(got.stdout)
    assert want, ref.stdout
    assert len(have) == len(want), (ref.stdout, got.stdout)
    assert have == pytest.approx(want, rel=spec.get("rel", 2e-3), abs=spec.get("abs", 2e-3)), (ref.stdout, got.stdout)
