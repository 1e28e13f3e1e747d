"""Gradients of tc.linalg.eig / eigvals for real float64 inputs against
PyTorch 1.13 (its linalg_eig_backward) and against central finite
differences, for matrices with real and with complex eigenvalues, and
PyTorch's error when the loss depends on the eigenvectors' phases."""

import numpy as np
import pytest

import tc
import tc.linalg

torch = pytest.importorskip("torch")


def real_spectrum(n, seed):
    # P diag(d) P^-1: real, distinct eigenvalues, not symmetric.
    rng = np.random.default_rng(seed)
    p = rng.standard_normal((n, n)) + 2 * np.eye(n)
    return p @ np.diag(np.arange(1.0, n + 1) * 0.7 + rng.uniform(0, 0.2, n)) @ np.linalg.inv(p)


def complex_spectrum(n, seed):
    rng = np.random.default_rng(seed)
    while True:
        a = rng.standard_normal((n, n))
        w = np.linalg.eigvals(a)
        gaps = np.abs(w[:, None] - w[None, :]) + np.eye(n)
        if np.abs(w.imag).max() > 0.1 and gaps.min() > 0.1:
            return a


MATRICES = [("real", real_spectrum(4, 1)), ("complex", complex_spectrum(4, 2)),
            ("complex5", complex_spectrum(5, 3))]


def weights(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape)


def eigvals_loss(lib, a, c1, c2):
    w = lib.linalg.eigvals(a)
    return (w.real * c1).sum() + (w.imag * c2).sum() + (w.abs() ** 2).sum()


def eig_loss(lib, a, c1, wv):
    # |V_ij| does not depend on the eigenvectors' phases: a well-defined loss.
    w, v = lib.linalg.eig(a)
    return (w.real * c1).sum() + ((v.abs() ** 2) * wv).sum() + (w.imag ** 2).sum()


def grads(lib, a, fn, *consts):
    x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
    cs = [lib.tensor(c, dtype=lib.float64) for c in consts]
    loss = fn(lib, x, *cs)
    loss.backward()
    return float(loss), np.array(x.grad.numpy())


def finite_difference(fn, a, *consts, h=1e-6):
    g = np.zeros_like(a)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            e = np.zeros_like(a)
            e[i, j] = h
            cs = [torch.tensor(c) for c in consts]
            up = float(fn(torch, torch.tensor(a + e), *cs))
            down = float(fn(torch, torch.tensor(a - e), *cs))
            g[i, j] = (up - down) / (2 * h)
    return g


@pytest.mark.parametrize("name,a", MATRICES)
def test_eigvals_gradient(name, a):
    n = a.shape[0]
    c1, c2 = weights(n, 5), weights(n, 6)
    loss, got = grads(tc, a, eigvals_loss, c1, c2)
    want_loss, want = grads(torch, a, eigvals_loss, c1, c2)
    assert abs(loss - want_loss) < 1e-10 * max(1, abs(want_loss))
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(got, finite_difference(eigvals_loss, a, c1, c2), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,a", MATRICES)
def test_eig_gradient(name, a):
    n = a.shape[0]
    c1, wv = weights(n, 7), weights((n, n), 8)
    loss, got = grads(tc, a, eig_loss, c1, wv)
    want_loss, want = grads(torch, a, eig_loss, c1, wv)
    assert abs(loss - want_loss) < 1e-10 * max(1, abs(want_loss))
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(got, finite_difference(eig_loss, a, c1, wv), rtol=1e-5, atol=1e-6)


def test_eigenvalues_only_through_eig():
    # eig with only its eigenvalues used: the eigenvectors' gradient is absent.
    a = complex_spectrum(3, 9)
    x = tc.tensor(a, dtype=tc.float64, requires_grad=True)
    tc.linalg.eig(x)[0].real.sum().backward()
    y = torch.tensor(a, requires_grad=True)
    torch.linalg.eig(y)[0].real.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_batched_gradient():
    a = np.stack([real_spectrum(3, 11), complex_spectrum(3, 12)])
    x = tc.tensor(a, dtype=tc.float64, requires_grad=True)
    y = torch.tensor(a, requires_grad=True)
    (tc.linalg.eigvals(x).abs() ** 3).sum().backward()
    (torch.linalg.eigvals(y).abs() ** 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name,a", MATRICES[1:])
def test_phase_dependent_loss_is_refused(name, a):
    # The real part of an eigenvector's entries depends on its arbitrary phase.
    y = torch.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError, match="ill-defined"):
        torch.linalg.eig(y)[1].real.sum().backward()
    x = tc.tensor(a, dtype=tc.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="ill-defined"):
        tc.linalg.eig(x)[1].real.sum().backward()
