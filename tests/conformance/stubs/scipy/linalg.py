"""scipy.linalg.qr and scipy.linalg.lu for square matrices, in numpy: both
runs (PyTorch and tc) call this same code, so only their definitions matter
(A = Q R; A = P L U with L unit lower triangular, partial pivoting)."""
import numpy as np


def qr(a):
    """(Q, R) with a = Q @ R (LAPACK's Householder QR, as numpy's)."""
    return np.linalg.qr(np.asarray(a, dtype=np.float64))


def lu(a):
    """(P, L, U) with a = P @ L @ U, pivoting on the largest entry of each column."""
    u = np.array(a, dtype=np.float64)
    n = u.shape[0]
    low = np.eye(n)
    perm = np.arange(n)
    for k in range(n - 1):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if p != k:
            u[[k, p], :] = u[[p, k], :]
            low[[k, p], :k] = low[[p, k], :k]
            perm[[k, p]] = perm[[p, k]]
        for i in range(k + 1, n):
            low[i, k] = u[i, k] / u[k, k]
            u[i, k:] -= low[i, k] * u[k, k:]
    return np.eye(n)[perm].T, low, np.triu(u)
