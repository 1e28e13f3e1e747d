"""Tensors in shared memory: Tensor.share_memory_/is_shared, Module.share_memory,
tc.multiprocessing's reducers and strategies, spawn, and the failure paths
(missing, released and too small segments, an exhausted /dev/shm)."""
import os
import pickle
import signal
import stat
import subprocess
import sys
import textwrap
from multiprocessing.reduction import ForkingPickler

import pytest

import tc
import tc.multiprocessing as tmp
from tc import _shared_memory as S

torch = pytest.importorskip("torch")


def _child_env():
    """The environment for a child interpreter that imports this checkout's tc."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(tc.__file__)))
    return dict(os.environ, PYTHONPATH=pkg + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _segments():
    return {n for n in os.listdir("/dev/shm") if n.startswith("tc_")}


@pytest.fixture(autouse=True)
def _default_strategy():
    yield
    tmp.set_sharing_strategy("file_descriptor")


def test_share_memory_in_place_keeps_views_and_values():
    a = tc.arange(12, dtype=tc.float64).reshape(3, 4)
    view = a[1:, ::2]
    before = view.clone()
    assert not a.is_shared() and not view.is_shared()
    assert a.share_memory_() is a
    assert a.is_shared() and view.is_shared()
    assert tc.equal(view, before)
    view.fill_(-1.0)  # a view's write lands in the shared storage
    ref = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    ref[1:, ::2] = -1.0
    assert a.tolist() == ref.tolist()
    ptr = a.data_ptr()
    a.share_memory_()  # a no-op when shared already
    assert a.data_ptr() == ptr


def test_share_memory_matches_torch_flags():
    t, r = tc.zeros(3), torch.zeros(3)
    assert t.is_shared() == r.is_shared()
    t.share_memory_(), r.share_memory_()
    assert t.is_shared() == r.is_shared()
    assert tc.zeros(0).share_memory_().is_shared() == torch.zeros(0).share_memory_().is_shared()


def test_module_share_memory_shares_parameters_and_buffers():
    m = tc.nn.Sequential(tc.nn.Linear(3, 2), tc.nn.BatchNorm1d(2))
    weight = m[0].weight
    assert m.share_memory() is m
    assert all(p.is_shared() for p in m.parameters())
    assert all(b.is_shared() for b in m.buffers())
    assert m[0].weight is weight  # in place: optimizers keep their parameters


@pytest.mark.parametrize("strategy", ["file_descriptor", "file_system"])
def test_queue_sends_by_handle_both_ways(strategy):
    tmp.set_sharing_strategy(strategy)
    ctx = tmp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_double_in_place, args=(q_in, q_out))
    p.start()
    a = tc.arange(6, dtype=tc.float32).reshape(2, 3)
    b = a.t()  # a strided view travels with its strides and offset
    q_in.put((a, b[1]))
    got = q_out.get(timeout=30)
    p.join(30)
    assert p.exitcode == 0
    assert got == "done"
    # The child's writes are visible here: the same memory, not a copy.
    assert a.tolist() == (torch.arange(6, dtype=torch.float32).reshape(2, 3) * 2).tolist()
    assert a.is_shared()


def _double_in_place(q_in, q_out):
    a, row = q_in.get()
    assert a.is_shared() and row.is_shared()
    assert row.tolist() == a.t()[1].tolist()
    a.mul_(2)
    q_out.put("done")


def test_parameter_and_requires_grad_survive():
    ctx = tmp.get_context("fork")
    q = ctx.Queue()
    p = tc.nn.Parameter(tc.ones(2))
    q.put(p)
    got = q.get(timeout=30)
    assert isinstance(got, tc.nn.Parameter) and got.requires_grad


def test_non_leaf_requiring_grad_is_refused_like_torch():
    x = tc.ones(2, requires_grad=True) * 2
    tx = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="Cowardly refusing") as e1:
        ForkingPickler.dumps(x)
    with pytest.raises(RuntimeError) as e2:
        torch.multiprocessing.reductions.reduce_tensor(tx)
    assert type(e1.value) is type(e2.value)


def test_strategies_api_like_torch():
    assert tmp.get_all_sharing_strategies() == torch.multiprocessing.get_all_sharing_strategies()
    assert tmp.get_sharing_strategy() == torch.multiprocessing.get_sharing_strategy()
    tmp.set_sharing_strategy("file_system")
    assert tmp.get_sharing_strategy() == "file_system"
    with pytest.raises(AssertionError):
        tmp.set_sharing_strategy("nonsense")
    assert set(torch.multiprocessing.__all__) - set(tmp.__all__) <= set()


def test_file_system_segment_mode_0600_and_released_with_last_user():
    tmp.set_sharing_strategy("file_system")
    t = tc.ones(4).share_memory_()
    kind, fd, nbytes, name = S.shared_handle(t)
    assert kind == S.FILE_SYSTEM and fd == -1 and nbytes == 16
    st = os.stat("/dev/shm" + name)
    assert stat.S_IMODE(st.st_mode) == 0o600
    other = S.from_shared(kind, -1, name, nbytes, (2,), (1,), 2, "float32")
    del t
    assert os.path.exists("/dev/shm" + name)  # `other` still maps it
    assert other.tolist() == [1.0, 1.0]
    del other
    assert not os.path.exists("/dev/shm" + name)


def test_file_descriptor_segment_is_unlinked_at_once():
    before = _segments()
    t = tc.ones(1000).share_memory_()
    kind, fd, nbytes, name = S.shared_handle(t)
    assert kind == S.FILE_DESCRIPTOR and fd >= 0 and name == ""
    assert _segments() == before
    assert stat.S_IMODE(os.fstat(fd).st_mode) == 0o600


def test_import_missing_segment_is_a_clear_error():
    with pytest.raises(RuntimeError, match="does not exist"):
        S.from_shared(S.FILE_SYSTEM, -1, "/tc_no_such_segment_here", 8, (2,), (1,), 0, "float32")


def test_import_released_segment_is_a_clear_error():
    tmp.set_sharing_strategy("file_system")
    t = tc.ones(4).share_memory_()
    _, _, nbytes, name = S.shared_handle(t)
    del t
    with pytest.raises(RuntimeError, match="does not exist"):
        S.from_shared(S.FILE_SYSTEM, -1, name, nbytes, (4,), (1,), 0, "float32")


def test_import_too_small_segment_is_a_clear_error():
    t = tc.ones(4).share_memory_()
    _, fd, nbytes, _ = S.shared_handle(t)
    with pytest.raises(RuntimeError, match="too small"):
        S.from_shared(S.FILE_DESCRIPTOR, fd, None, 1 << 20, (4,), (1,), 0, "float32")
    with pytest.raises(ValueError, match="reaches past"):
        S.from_shared(S.FILE_DESCRIPTOR, fd, None, nbytes, (5,), (1,), 0, "float32")


def test_exhausted_shm_names_the_size_and_the_other_strategy():
    # A file size limit makes the segment's allocation fail as a full /dev/shm does.
    code = textwrap.dedent("""
        import resource, signal
        import tc
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            tc.zeros(1 << 20).share_memory_()
        except Exception as e:
            print(isinstance(e, MemoryError), "|", e)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=_child_env()).stdout
    assert out.startswith("True |"), out
    assert "4194304 bytes" in out and "file_system" in out, out
    assert "Traceback" not in out


def test_spawn_runs_and_reraises_like_torch():
    tmp.spawn(_spawned_ok, args=(3,), nprocs=2)
    with pytest.raises(tmp.ProcessRaisedException, match="ValueError: boom in 1"):
        tmp.spawn(_spawned_fails, nprocs=2)


def _spawned_ok(i, n):
    assert tc.ones(n).sum().item() == n


def _spawned_fails(i):
    if i == 1:
        raise ValueError("boom in %d" % i)


def test_start_processes_reports_a_signal():
    with pytest.raises(tmp.ProcessExitedException, match="terminated with signal SIGKILL"):
        tmp.start_processes(_kill_self, nprocs=1, start_method="fork")


def _kill_self(i):
    os.kill(os.getpid(), signal.SIGKILL)


def test_openmp_after_fork_child_computes():
    # A team of threads used before fork is not in the child; libtc must still compute there.
    code = textwrap.dedent("""
        import os, tc
        tc.set_num_threads(2)
        big = tc.ones(256, 256)
        for _ in range(3):
            (big @ big).sum(); (big * 2).exp().sum()
        pid = os.fork()
        if pid == 0:
            ok = float((big @ big).sum().item()) == 256.0 ** 3 and float((big * 0).exp().sum()) == 65536.0
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        print("child", os.WEXITSTATUS(status))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=_child_env()).stdout
    assert out.strip() == "child 0"


def test_plain_pickle_still_copies():
    t = tc.ones(3)
    back = pickle.loads(pickle.dumps(t))
    assert not back.is_shared() and back.tolist() == [1.0, 1.0, 1.0]


