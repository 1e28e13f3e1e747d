"""Gaussian process regression on a 1-D toy set with tc.linalg.

An RBF kernel k(x, x') = variance * exp(-(x - x')^2 / (2 lengthscale^2))
plus noise on the diagonal; the negative log marginal likelihood

    NLL = 1/2 y^T K^-1 y + 1/2 log det K + n/2 log(2 pi)

through the Cholesky factor K = L L^T (alpha = cholesky_solve(y, L),
log det K = 2 sum log diag L); the three hyperparameters live in log space
and Adam minimizes the NLL. The posterior mean and variance at test points
come from solve_triangular. Written against PyTorch's API: the same code runs
on torch (--torch) and prints the same losses to float64 precision.

    python examples/gp_regression.py [--steps N] [--lr X] [--every N] [--torch]

The data is deterministic (no random generator), so both libraries see the
same points. Exits with status 1 if the NLL did not decrease.
"""
import argparse
import math
import os
import sys


def toy_data(torch, n=40):
    """n points on [-3, 3] of sin(x) with a deterministic wiggle for noise."""
    x = torch.linspace(-3.0, 3.0, n, dtype=torch.float64)
    y = torch.sin(x) + 0.1 * torch.cos(7.0 * x + 0.3)
    return x, y


def rbf(torch, a, b, log_lengthscale, log_variance):
    """The RBF kernel matrix [len(a), len(b)]."""
    d = (a.unsqueeze(-1) - b.unsqueeze(-2)) / torch.exp(log_lengthscale)
    return torch.exp(log_variance) * torch.exp(-0.5 * d * d)


def negative_log_marginal_likelihood(torch, x, y, params):
    """The GP's NLL of y at x, and the Cholesky factor of K."""
    log_lengthscale, log_variance, log_noise = params
    n = x.shape[0]
    K = rbf(torch, x, x, log_lengthscale, log_variance) + (torch.exp(log_noise) + 1e-6) * torch.eye(
        n, dtype=x.dtype)
    L = torch.linalg.cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(-1), L)  # K^-1 y
    logdet = 2.0 * torch.log(torch.diagonal(L)).sum()
    nll = 0.5 * (y.unsqueeze(-1) * alpha).sum() + 0.5 * logdet + 0.5 * n * math.log(2.0 * math.pi)
    return nll, L


def predict(torch, x, y, x_test, params, L):
    """The posterior mean and variance at x_test (triangular solves on L)."""
    log_lengthscale, log_variance, log_noise = params
    Ks = rbf(torch, x, x_test, log_lengthscale, log_variance)  # [n, t]
    v = torch.linalg.solve_triangular(L, Ks, upper=False)  # L^-1 K*
    w = torch.linalg.solve_triangular(L, y.unsqueeze(-1), upper=False)  # L^-1 y
    mean = (v * w).sum(dim=0)  # K*^T K^-1 y
    var = torch.exp(log_variance) - (v * v).sum(dim=0)
    return mean, var


def train(torch, steps=100, lr=0.05, log=None, every=10):
    """Fits the hyperparameters with Adam; returns the NLL before each step
    and the final parameters."""
    x, y = toy_data(torch)
    params = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (0.0, 0.0, math.log(0.1))]
    opt = torch.optim.Adam(params, lr=lr)
    losses = []
    for step in range(steps):
        opt.zero_grad()
        nll, _ = negative_log_marginal_likelihood(torch, x, y, params)
        nll.backward()
        opt.step()
        losses.append(nll.item())
        if log is not None and (step % every == 0 or step == steps - 1):
            log("step %3d  nll %.12f" % (step, losses[-1]))
    return losses, params


def main(argv=None):
    """Trains on the toy set, prints the losses, the hyperparameters and a
    few predictions; returns the process status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--every", type=int, default=10, help="print the NLL every N steps")
    ap.add_argument("--torch", action="store_true", help="run on PyTorch instead of tc")
    args = ap.parse_args(argv)
    if args.steps < 1 or args.lr <= 0 or args.every < 1:
        ap.error("--steps and --every must be >= 1 and --lr > 0")
    if args.torch:
        import torch
    else:
        try:
            import tc as torch  # the installed package, when there is one
        except ImportError:  # else the checkout's
            sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings",
                                            "python_ctypes"))
            import tc as torch
    losses, params = train(torch, args.steps, args.lr, log=print, every=args.every)
    ls, var, noise = (math.exp(p.item()) for p in params)
    print("lengthscale %.6f  variance %.6f  noise %.6f" % (ls, var, noise))
    x, y = toy_data(torch)
    with torch.no_grad():
        _, L = negative_log_marginal_likelihood(torch, x, y, params)
        xt = torch.tensor([-2.5, 0.0, 1.25, 2.5], dtype=torch.float64)
        mean, var_t = predict(torch, x, y, xt, params, L)
    for xi, m, s in zip(xt.tolist(), mean.tolist(), var_t.tolist()):
        print("x %+.2f  mean %+.6f  (sin %+.6f)  std %.6f" % (xi, m, math.sin(xi), math.sqrt(max(s, 0.0))))
    print("final nll %.12f" % losses[-1])
    if not losses[-1] < losses[0]:
        print("the NLL did not decrease", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
