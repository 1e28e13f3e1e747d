"""Conformance: public PyTorch programs (tests/conformance/programs/, listed
with their sources in tests/conformance/SOURCES.md) run unchanged under
PyTorch and under `python3 -m tc.run`, from the same initial weights and
random draws (tests/conformance/run_one.py), and print the same losses step
by step (float32 tolerances).

A program listed in EXPECTED_MISSING cannot run on tc yet: its tc run must
stop with tc.run's "X is not implemented in tc" report, and the test is an
expected failure naming what is missing (it reports XPASS once tc has it)."""
import os
import re
import subprocess
import sys

import pytest

import tc

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
RUN_ONE = os.path.join(REPO, "tests", "conformance", "run_one.py")
PKG = os.path.join(REPO, "bindings", "python_ctypes")

# program -> the PyTorch names tc lacks that stop it (none now; a program
# that stops on one is an expected failure naming it).
EXPECTED_MISSING = {}

PROGRAMS = ["regression", "linear_regression", "mnist", "vae", "word_language_model_lstm", "word_language_model_transformer"]

# A loss as the programs print it: "Loss: 0.123", "loss  2.82", "test loss 3.1".
_LOSS = re.compile(r"loss[:\s]+(-?\d+\.\d+(?:e[-+]?\d+)?)", re.IGNORECASE)
_BATCHES = re.compile(r"after (\d+) batches")
_MISSING = re.compile(r"tc\.run: (.*) is not implemented in tc")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = PKG + os.pathsep + env.get("PYTHONPATH", "")
    env["TC_LIBRARY"] = tc.library_path
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _run(name, workdir, on_tc):
    cmd = [sys.executable] + (["-m", "tc.run"] if on_tc else []) + [RUN_ONE, name, "--workdir", str(workdir)]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=120)


_UNTIL_CONVERGED = {"regression"}
_LEARNED = re.compile(r"Learned function:\s*y = (.*)")


def _learned(out):
    m = _LEARNED.search(out)
    return [float(x) for x in re.findall(r"[-+]\d+\.\d+", m.group(1))] if m else []


def _numbers(out):
    return [float(x) for x in _LOSS.findall(out)] + [float(x) for x in _BATCHES.findall(out)]


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_pytorch(name, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("numpy")
    if name in EXPECTED_MISSING:
        # a probe without PyTorch's weights first: if tc stops on a missing
        # name, the PyTorch run (seconds) is not needed
        probe = _run(name, tmp_path / "probe", on_tc=True)
        missing = _MISSING.search(probe.stderr)
        if probe.returncode != 0:
            assert missing, probe.stderr[-3000:]
            pytest.xfail("tc lacks %s (known to need: %s)" % (missing.group(1), ", ".join(EXPECTED_MISSING[name])))
    ref = _run(name, tmp_path, on_tc=False)
    assert ref.returncode == 0, ref.stderr[-3000:]
    got = _run(name, tmp_path, on_tc=True)
    assert got.returncode == 0, got.stderr[-3000:]
    if name in _UNTIL_CONVERGED:
        # it trains until its loss is below 1e-3: float32 rounding decides the
        # step count, so compare what it learned (and that both converged)
        want, have = _learned(ref.stdout), _learned(got.stdout)
        assert want and len(have) == len(want), (ref.stdout, got.stdout)
        assert have == pytest.approx(want, abs=0.1), (ref.stdout, got.stdout)
        return
    want, have = _numbers(ref.stdout), _numbers(got.stdout)
    assert want, ref.stdout
    assert len(have) == len(want), (ref.stdout, got.stdout)
    assert have == pytest.approx(want, rel=2e-3, abs=2e-3), (ref.stdout, got.stdout)
