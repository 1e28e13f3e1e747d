"""Batched frees (tc._deferred_free, tc_tensor_free_many; opt-in with
TC_PY_BATCH_FREE=1, switched on here for each test): which tensors wait,
that the wait is bounded, and that every queued handle is freed exactly once."""
import ctypes as C
import gc
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tc
from tc import _deferred_free as DF
from tc._lib import lib

SMALL = 1 << 31
PKG = os.path.dirname(os.path.dirname(os.path.abspath(tc.__file__)))


@pytest.fixture(autouse=True)
def batching_on(monkeypatch):
    """What TC_PY_BATCH_FREE=1 sets up at import, for this test only."""
    import tc._tensor as T
    monkeypatch.setattr(T, "_SMALL", SMALL)
    monkeypatch.setattr(T.Tensor, "__del__", T.Tensor._del_batched)
    gc.callbacks.append(DF._after_gc)
    yield
    gc.callbacks.remove(DF._after_gc)
    DF.flush()


def test_batching_is_off_by_default():
    r = run_python("import tc._tensor as T; print(T._SMALL, T.Tensor.__del__ is T.Tensor._del_batched)",
                   TC_PY_BATCH_FREE="")
    assert r.stdout.split() == ["0", "False"], r.stderr
    r = run_python("import tc._tensor as T; print(T._SMALL > 0, T.Tensor.__del__ is T.Tensor._del_batched)")
    assert r.stdout.split() == ["True", "True"], r.stderr


def run_python(code, **extra):
    env = dict(os.environ, PYTHONPATH=PKG, TC_PY_BATCH_FREE="1")
    env.update(extra)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)


def raw_live_handles():
    """The live handle count without flushing the queue (tc.flags flushes)."""
    out = C.c_int64()
    assert lib.tc_get_flag(b"live_handles", C.byref(out)) == 0
    return out.value


def test_small_handle_bit_marks_only_small_graphless_cpu_tensors():
    assert tc.ones(1).handle & SMALL
    assert tc.ones(8, dtype=tc.float64).handle & SMALL  # 64 bytes: still inline
    assert not tc.ones(9, dtype=tc.float64).handle & SMALL
    assert not tc.ones(1000).handle & SMALL
    w = tc.ones(2, requires_grad=True)
    assert w.handle & SMALL  # a leaf: no graph behind it
    assert not (w * 2).handle & SMALL  # a graph output frees at once
    big = tc.ones(100)
    assert not big[:1].handle & SMALL  # a view of a big storage keeps it alive
    assert not tc.from_numpy(np.ones(1, np.float32)).handle & SMALL


def test_small_tensor_waits_and_flag_queries_flush():
    one = tc.ones(1)
    tc.flags["live_handles"]  # flushes what earlier tests left
    before = raw_live_handles()
    x = one + one
    assert raw_live_handles() == before + 1
    del x
    assert raw_live_handles() == before + 1  # queued, not freed yet
    assert len(DF.queued) == 1
    assert tc.flags["live_handles"] == before  # the query flushed
    assert not DF.queued


def test_big_and_graph_tensors_free_at_once():
    tc.flags["live_handles"]
    before = raw_live_handles()
    big = tc.ones(1000) + 1.0
    del big
    assert raw_live_handles() == before
    w = tc.ones(1, requires_grad=True)
    y = w * 3.0
    del y
    assert raw_live_handles() == before + 1  # only w
    assert not DF.queued


def test_numpy_import_released_at_once():
    a = np.ones(1, np.float32)
    refs = sys.getrefcount(a)
    t = tc.from_numpy(a)
    assert sys.getrefcount(a) == refs + 1
    del t
    assert sys.getrefcount(a) == refs  # never queued: the producer is released now


def test_queue_is_bounded_and_frees_everything():
    tc.flags["live_handles"]
    before = raw_live_handles()
    most = 0
    x = tc.ones(1)
    for _ in range(2000):
        y = x + 1.0
        del y
        most = max(most, raw_live_handles() - before)
    assert most <= DF.MAX_QUEUED + 1  # x plus at most a full queue
    assert tc.flags["live_handles"] == before + 1
    del x
    assert tc.flags["live_handles"] == before


def test_backward_and_gc_flush():
    w = tc.ones(2, requires_grad=True)
    tmp = tc.ones(1) * 2
    del tmp
    assert DF.queued
    (w * w).sum().backward()
    assert not DF.queued
    tmp = tc.ones(1) * 2
    del tmp
    assert DF.queued
    gc.collect()
    assert not DF.queued
    assert w.grad.tolist() == [2.0, 2.0]


def test_flush_skips_a_stale_handle_and_frees_the_rest():
    tc.flags["live_handles"]
    before = raw_live_handles()
    a, b = tc.ones(1) + 0.0, tc.ones(1) + 0.0
    stale = tc.ones(1) + 0.0
    stale_value = stale.handle
    assert lib.tc_tensor_free(C.c_void_p(stale_value)) == 0  # freed behind the Tensor's back
    stale._h = None  # the Tensor no longer owns it
    del a
    DF.queued.append(stale_value)  # a stale entry between two valid ones
    del b
    DF.flush()  # libtc skips the stale one (an ignored error), frees the others
    assert not DF.queued
    assert raw_live_handles() == before


def test_threads_dropping_small_tensors():
    tc.flags["live_handles"]
    before = raw_live_handles()
    x = tc.ones(1)
    errors = []

    def work():
        try:
            for _ in range(3000):
                y = x * 2.0 + 1.0
                assert y.item() == 3.0
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert tc.flags["live_handles"] == before + 1


def test_values_match_torch_through_the_queue():
    torch = pytest.importorskip("torch")
    xs = [0.5, -1.25, 3.0]
    out = []
    for v in xs:  # results die and queue while later ones are computed
        out.append(((tc.tensor([v]) + 1.0) * 2.0).item())
    ref = [((torch.tensor([v]) + 1.0) * 2.0).item() for v in xs]
    assert out == ref


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_child_after_fork_flushes():
    code = (
        "import os, tc\n"
        "from tc import _deferred_free as DF\n"
        "x = tc.ones(1)\n"
        "for _ in range(5): y = x + 1.0; del y\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    for _ in range(1000): y = x + 1.0; del y\n"
        "    n = tc.flags['live_handles']\n"
        "    os._exit(0 if n == 1 and not DF.queued else 1)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "assert os.waitstatus_to_exitcode(status) == 0\n"
        "print(tc.flags['live_handles'])\n")
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "1"


def test_exit_with_queued_handles_is_clean():
    code = "import tc\nx = tc.ones(1)\nfor _ in range(10): y = x + 1.0; del y\nprint('ok')\n"
    r = run_python(code)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
