#!/usr/bin/env python3
"""Three programs that differentiate through gradients, run step by step in
tc and in PyTorch 1.13 from the same initial weights (made by PyTorch,
copied into tc) and the same inputs, in float64, printing both losses at
every step and the largest relative difference:

- wgan_gp: a WGAN-GP step: the critic's loss carries the gradient penalty
  ((||grad_x D(x_hat)|| - 1)^2 on points between real and fake samples),
  whose gradient needs create_graph=True; then the generator's step.
- pinn: a physics-informed network solving u'' = f on [0, 1] with
  u(0) = u(1) = 0 (f = -pi^2 sin(pi x), so u = sin(pi x)): the loss holds
  u'' taken by autograd with respect to the input (grad of grad).
- maml: MAML on sine regression tasks: one inner SGD step on functional
  parameters, kept differentiable (create_graph=True), then the outer Adam
  step on the query loss through the inner step.

    python3 examples/higher_order_autograd.py [--steps N] [--program NAME]

Each program is a function of the library (tc or torch), so the code that
runs is the same for both; tests/python/test_higher_order_programs.py runs
a few steps of each. Exits 1 when a relative difference exceeds 1e-8."""
import argparse
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


# ------------------------------------------------------------------ weights and data
def _mlp_init(sizes, seed):
    """Weights of an MLP as PyTorch's nn.Linear initialises them (numpy, float64)."""
    import torch
    torch.manual_seed(seed)
    layers = [torch.nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
    return [(lin.weight.detach().double().numpy().copy(), lin.bias.detach().double().numpy().copy())
            for lin in layers]


def _params(lib, init):
    """Leaf tensors (requiring grad) of lib from numpy weights, flat [w0, b0, w1, b1, ...]."""
    out = []
    for w, b in init:
        out.append(lib.tensor(w, dtype=lib.float64, requires_grad=True))
        out.append(lib.tensor(b, dtype=lib.float64, requires_grad=True))
    return out


def _mlp(lib, params, x, act):
    """x -> act(x W0^T + b0) -> ... -> last layer linear."""
    h = x
    n = len(params) // 2
    for i in range(n):
        h = lib.matmul(h, params[2 * i].t()) + params[2 * i + 1]
        if i < n - 1:
            h = act(h)
    return h


# ------------------------------------------------------------------ WGAN-GP
def wgan_gp(lib, steps=3, seed=0, lam=10.0):
    """Critic and generator steps of a WGAN-GP; returns [(critic_loss, gp, gen_loss)] per step."""
    d_params = _params(lib, _mlp_init([2, 16, 16, 1], seed))
    g_params = _params(lib, _mlp_init([3, 16, 2], seed + 1))
    d_opt = lib.optim.Adam(d_params, lr=1e-3, betas=(0.5, 0.9))
    g_opt = lib.optim.Adam(g_params, lr=1e-3, betas=(0.5, 0.9))
    rs = np.random.RandomState(seed)
    critic = lambda x: _mlp(lib, d_params, x, lib.tanh)  # noqa: E731
    gen = lambda z: _mlp(lib, g_params, z, lib.tanh)  # noqa: E731
    losses = []
    for _ in range(steps):
        real = lib.tensor(rs.randn(8, 2) * 0.5 + np.array([1.0, -1.0]), dtype=lib.float64)
        z = lib.tensor(rs.randn(8, 3), dtype=lib.float64)
        eps = lib.tensor(rs.rand(8, 1), dtype=lib.float64)
        # critic step
        fake = gen(z).detach()
        x_hat = (eps * real + (1 - eps) * fake).detach().requires_grad_(True)
        d_hat = critic(x_hat)
        (g,) = lib.autograd.grad(d_hat, x_hat, grad_outputs=lib.ones_like(d_hat), create_graph=True,
                                 retain_graph=True)
        gp = ((g.pow(2).sum(1) + 1e-12).sqrt() - 1).pow(2).mean()
        d_loss = critic(fake).mean() - critic(real).mean() + lam * gp
        d_opt.zero_grad()
        d_loss.backward()
        d_opt.step()
        # generator step
        g_loss = -critic(gen(z)).mean()
        g_opt.zero_grad()
        g_loss.backward()
        g_opt.step()
        losses.append((d_loss.item(), gp.item(), g_loss.item()))
    return losses


# ------------------------------------------------------------------ PINN
def pinn(lib, steps=5, seed=0, n=16):
    """Adam steps of a PINN for u'' = -pi^2 sin(pi x), u(0) = u(1) = 0; returns [(loss,)] per step."""
    params = _params(lib, _mlp_init([1, 16, 16, 1], seed))
    opt = lib.optim.Adam(params, lr=1e-2)
    xs = np.linspace(0.0, 1.0, n).reshape(n, 1)
    f = lib.tensor(-math.pi ** 2 * np.sin(math.pi * xs), dtype=lib.float64)
    ends = lib.tensor(np.array([[0.0], [1.0]]), dtype=lib.float64)
    losses = []
    for _ in range(steps):
        x = lib.tensor(xs, dtype=lib.float64, requires_grad=True)
        u = _mlp(lib, params, x, lib.tanh)
        (u_x,) = lib.autograd.grad(u, x, grad_outputs=lib.ones_like(u), create_graph=True)
        (u_xx,) = lib.autograd.grad(u_x, x, grad_outputs=lib.ones_like(u_x), create_graph=True)
        residual = (u_xx - f).pow(2).mean()
        boundary = _mlp(lib, params, ends, lib.tanh).pow(2).mean()
        loss = residual + boundary
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append((loss.item(),))
    return losses


# ------------------------------------------------------------------ MAML
def maml(lib, steps=3, seed=0, tasks=4, inner_lr=0.05):
    """Outer Adam steps of MAML (one inner SGD step, second order); returns [(meta_loss,)] per step."""
    params = _params(lib, _mlp_init([1, 32, 32, 1], seed))
    opt = lib.optim.Adam(params, lr=1e-3)
    rs = np.random.RandomState(seed)
    net = lambda x, p: _mlp(lib, p, x, lib.tanh)  # noqa: E731
    losses = []
    for _ in range(steps):
        meta = 0
        for _ in range(tasks):
            amp, phase = rs.uniform(0.1, 5.0), rs.uniform(0, math.pi)
            xs_np, xq_np = rs.uniform(-5, 5, (10, 1)), rs.uniform(-5, 5, (10, 1))
            xs, xq = lib.tensor(xs_np, dtype=lib.float64), lib.tensor(xq_np, dtype=lib.float64)
            ys = lib.tensor(amp * np.sin(xs_np + phase), dtype=lib.float64)
            yq = lib.tensor(amp * np.sin(xq_np + phase), dtype=lib.float64)
            support = (net(xs, params) - ys).pow(2).mean()
            grads = lib.autograd.grad(support, params, create_graph=True)
            fast = [p - inner_lr * g for p, g in zip(params, grads)]
            meta = meta + (net(xq, fast) - yq).pow(2).mean()
        meta = meta / tasks
        opt.zero_grad()
        meta.backward()
        opt.step()
        losses.append((meta.item(),))
    return losses


PROGRAMS = {"wgan_gp": wgan_gp, "pinn": pinn, "maml": maml}


def compare(name, steps):
    """Runs program ``name`` in tc and torch; returns (tc losses, torch losses, max relative difference)."""
    import torch

    import tc
    program = PROGRAMS[name]
    ours = program(tc, steps)
    theirs = program(torch, steps)
    worst = 0.0
    for a_row, b_row in zip(ours, theirs):
        for a, b in zip(a_row, b_row):
            worst = max(worst, abs(a - b) / max(abs(b), 1e-12))
    return ours, theirs, worst


def _import_tc():
    try:
        import tc  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python_ctypes"))


def main():
    """Runs the programs and prints the step-by-step comparison."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--program", choices=sorted(PROGRAMS), action="append")
    args = ap.parse_args()
    _import_tc()
    failed = False
    for name in args.program or list(PROGRAMS):
        ours, theirs, worst = compare(name, args.steps)
        print("%s:" % name)
        for step, (a, b) in enumerate(zip(ours, theirs)):
            print("  step %d  tc %s  torch %s" % (step, " ".join("%.12g" % v for v in a),
                                                  " ".join("%.12g" % v for v in b)))
        print("  max relative difference %.3g" % worst)
        failed |= worst > 1e-8
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
