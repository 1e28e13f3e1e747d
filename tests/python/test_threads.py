"""Several Python threads run ops at once (ctypes drops the GIL during every
libtc call); every result is checked."""
import threading

import pytest

import tc
from conftest import need

N_THREADS = 8
ITERS = 60


def run_threads(work):
    errors, results = [], {}

    def runner(i):
        try:
            results[i] = work(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append((i, e))

    ts = [threading.Thread(target=runner, args=(i,)) for i in range(N_THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    return results


def test_threads_create_and_free():
    def work(i):
        for k in range(ITERS):
            t = tc.full((3, 4), float(i * 1000 + k))
            assert t.tolist() == [[float(i * 1000 + k)] * 4] * 3
        return True

    assert all(run_threads(work).values())


def test_threads_arithmetic_and_matmul():
    need("tc_add", "tc_mul", "tc_matmul", "tc_sum")

    def work(i):
        for k in range(ITERS):
            a = tc.full((16, 16), float(i + 1), dtype=tc.float64)
            b = tc.full((16, 16), float(k + 1), dtype=tc.float64)
            c = (a @ b + a * 2).sum().item()
            assert c == 256 * (16 * (i + 1) * (k + 1) + 2 * (i + 1)), (i, k, c)
        return True

    assert all(run_threads(work).values())


def test_threads_autograd_and_grad_mode():
    need("tc_mul", "tc_sum", "tc_backward", "tc_set_grad_enabled")

    def work(i):
        for k in range(ITERS // 2):
            x = tc.full((5,), float(i + k), dtype=tc.float64, requires_grad=True)
            if k % 2:
                with tc.no_grad():  # grad mode is per thread
                    assert not (x * x).requires_grad
            y = (x * x).sum()
            y.backward()
            assert x.grad.tolist() == [2.0 * (i + k)] * 5
        return True

    assert all(run_threads(work).values())


def test_threads_errors_keep_their_own_messages():
    need("tc_add")

    def work(i):
        for _ in range(ITERS):
            with pytest.raises(tc.ShapeError) as ei:
                tc.ones(i + 1, 2) + tc.ones(i + 10)
            assert str(i + 10) in ei.value.message
        return True

    assert all(run_threads(work).values())


def test_threads_share_a_read_only_tensor():
    need("tc_mul_scalar", "tc_sum")
    shared = tc.arange(1000, dtype=tc.float64)
    expected = sum(range(1000))

    def work(i):
        for _ in range(ITERS):
            assert (shared * float(i)).sum().item() == expected * i
        return True

    assert all(run_threads(work).values())
