"""Runs one vendored PyTorch program (tests/conformance/programs/) so that a
run under PyTorch and a run under tc can be compared step by step.

    python3 run_one.py NAME --workdir DIR                # under PyTorch
    python3 -m tc.run run_one.py NAME --workdir DIR      # under tc

This file is itself an unchanged-PyTorch program: under tc.run its
``import torch`` is tc. Before running the program it makes the two runs
see the same numbers:

- initial weights: the first time each top-level module is called (after the
  program built it, before training), the PyTorch run saves its state_dict
  (numpy .npz in DIR/weights/) and the tc run loads that file into its own
  module, so both start from PyTorch's initialization;
- randomness: torch.randn/rand/randn_like/rand_like/randint/randperm, dropout
  (F.dropout, nn.Dropout and the channel-wise dropout1d/2d/3d) and the
  shuffling RandomSampler draw from one numpy generator, reseeded by
  torch.manual_seed, in both runs; Python's random module starts from one seed;
- with sync_optimizers, the parameters each optimizer is built with are
  synced that way too (programs that never call their modules);
- losses: with trace_backward, every scalar .backward() is called on is
  printed (programs that print their loss only every 100 steps);
- data: the programs' downloads are replaced by tiny synthetic data (the
  torchvision stand-in in tests/conformance/stubs/, the corpus written
  below), and their arguments ask for few steps; plotting goes to the
  matplotlib stand-in there, which draws nothing.

The programs are listed, one module per source repository, in
tests/conformance/suites/ (its __init__ says what an entry holds).

The program's own output goes to stdout; tests/python/test_conformance.py
compares the losses it prints."""
import argparse
import os
import random
import runpy
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS_DIR = os.path.join(HERE, "programs")
STUBS_DIR = os.path.join(HERE, "stubs")


def _programs():
    sys.path.insert(0, HERE)
    from suites import all_programs

    return all_programs()


class _Random:
    """The numpy generator both runs draw from."""

    rng = np.random.RandomState(0)


def _tensor(array, dtype=None, requires_grad=False):
    t = torch.from_numpy(np.ascontiguousarray(array))
    if dtype is not None:
        t = t.to(dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _shape(size):
    if len(size) == 1 and not isinstance(size[0], int):
        return tuple(size[0])
    return tuple(size)


def _float_factory(draw):
    def factory(*size, dtype=None, device=None, requires_grad=False, generator=None, out=None):
        return _tensor(draw(_shape(size)).astype(np.float32), dtype, requires_grad)
    return factory


def _like(draw):
    def like(input, dtype=None, **kwargs):
        return _tensor(draw(tuple(input.shape)).astype(np.float32), dtype or input.dtype)
    return like


def _randint(*args, size=None, dtype=None, generator=None, device=None, requires_grad=False):
    if size is None:
        *args, size = args
    low, high = (0, args[0]) if len(args) == 1 else args
    return _tensor(_Random.rng.randint(low, high, size=tuple(size)).astype(np.int64), dtype)


def _randperm(n, dtype=None, generator=None, device=None, requires_grad=False):
    return _tensor(_Random.rng.permutation(n).astype(np.int64), dtype)


def _dropout(input, p=0.5, training=True, inplace=False):
    if not training or p == 0:
        return input
    keep = (_Random.rng.random_sample(tuple(input.shape)) >= p).astype(np.float32)
    return input * _tensor(keep, input.dtype) * (1.0 / (1.0 - p))


def _feature_dropout(input, p=0.5, training=True, inplace=False):
    # dropout1d/2d/3d: one draw per (sample, channel), as torch's
    # feature_dropout (a 2-D input gets one per element)
    if not training or p == 0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = (_Random.rng.random_sample(shape) >= p).astype(np.float32)
    return input * _tensor(keep, input.dtype) * (1.0 / (1.0 - p))


def _install_random():
    real_seed = torch.manual_seed

    def manual_seed(seed):
        _Random.rng = np.random.RandomState(int(seed) % (2 ** 32))
        return real_seed(seed)

    torch.manual_seed = manual_seed
    torch.randn = _float_factory(lambda s: _Random.rng.standard_normal(s))
    torch.rand = _float_factory(lambda s: _Random.rng.random_sample(s))
    torch.randn_like = _like(lambda s: _Random.rng.standard_normal(s))
    torch.rand_like = _like(lambda s: _Random.rng.random_sample(s))
    torch.randint = _randint
    torch.randperm = _randperm
    F.dropout = _dropout
    nn.Dropout.forward = lambda self, x: _dropout(x, self.p, self.training)
    for name in ("dropout1d", "dropout2d", "dropout3d"):
        setattr(F, name, _feature_dropout)
    for module in (nn.Dropout1d, nn.Dropout2d, nn.Dropout3d):
        module.forward = lambda self, x: _feature_dropout(x, self.p, self.training)
    # programs that draw from Python's own generator without seeding it
    # (siamese_network picks its image pairs with random.randint)
    random.seed(0)

    def sampler_iter(self):
        yield from _Random.rng.permutation(len(self.data_source)).tolist()

    torch.utils.data.RandomSampler.__iter__ = sampler_iter


def _install_backward_trace():
    """Prints every one-element tensor that .backward() is called on, as
    "[run_one] backward loss: X": for programs that print their loss every
    100 steps or so, more than a conformance run can afford."""
    real_backward = torch.Tensor.backward

    def backward(self, *args, **kwargs):
        if self.numel() == 1:
            print("[run_one] backward loss: %.6e" % float(self.detach()))
        return real_backward(self, *args, **kwargs)

    torch.Tensor.backward = backward


def _install_weight_sync(weights_dir, save, no_dropout=False):
    """Patches nn.Module.__call__: the first outermost call of each module
    saves (PyTorch run) or loads (tc run) its state_dict, by call order."""
    real_call = nn.Module.__call__
    state = {"depth": 0, "seen": set(), "synced": 0}
    os.makedirs(weights_dir, exist_ok=True)

    def sync(module):
        if no_dropout:
            # torch's attention dropout is drawn through F.dropout (shared
            # here), tc's inside its fused attention op: no common draws exist
            for m in module.modules():
                if isinstance(m, nn.Dropout):
                    m.p = 0.0
                if isinstance(m, nn.MultiheadAttention):
                    m.dropout = 0.0
        path = os.path.join(weights_dir, "%d.npz" % state["synced"])
        state["synced"] += 1
        # its submodules come with it: one called on its own later (vae's
        # model.decode calls fc3 directly) must not be synced again
        state["seen"].update(id(m) for m in module.modules())
        sd = module.state_dict()
        if not sd:
            return
        if save:
            np.savez(path, **{k: v.detach().cpu().numpy() for k, v in sd.items()})
            return
        if not os.path.exists(path):
            # A probe run (the test runs tc first for a program expected to
            # stop early): nothing to compare, so PyTorch's weights are not needed.
            print("[run_one] no PyTorch weights in %s: keeping tc's" % weights_dir, file=sys.stderr)
            return
        with np.load(path) as arrays:
            if sorted(arrays.files) != sorted(sd):
                raise RuntimeError("state_dict keys differ from PyTorch's: %s vs %s"
                                   % (sorted(sd), sorted(arrays.files)))
            module.load_state_dict({k: torch.from_numpy(arrays[k].copy()) for k in arrays.files})
        print("[run_one] loaded %d tensors from PyTorch's initial weights" % len(sd), file=sys.stderr)

    def call(self, *args, **kwargs):
        if state["depth"] == 0 and id(self) not in state["seen"]:
            sync(self)
        state["depth"] += 1
        try:
            return real_call(self, *args, **kwargs)
        finally:
            state["depth"] -= 1

    nn.Module.__call__ = call


def _install_optimizer_sync(weights_dir, save):
    """For programs whose modules are never called as modules (their
    forward is called directly): the parameters each optimizer is built
    with, in order of construction, are saved (PyTorch run) or loaded into
    (tc run) there, so both runs start from PyTorch's values."""
    state = {"count": 0, "depth": 0}

    def sync(params):
        tensors = [t for g in params for t in (g["params"] if isinstance(g, dict) else [g])]
        path = os.path.join(weights_dir, "optimizer%d.npz" % state["count"])
        state["count"] += 1
        if save:
            np.savez(path, *[t.detach().cpu().numpy() for t in tensors])
        elif os.path.exists(path):
            with np.load(path) as arrays, torch.no_grad():
                for i, t in enumerate(tensors):
                    t.copy_(torch.from_numpy(arrays["arr_%d" % i].copy()))
            print("[run_one] loaded %d optimized tensors from PyTorch's initial values" % len(tensors),
                  file=sys.stderr)

    def wrap(cls):
        real_init = cls.__init__

        def init(self, params, *args, **kwargs):
            params = list(params)
            if state["depth"] == 0:  # a subclass's __init__ calls its base's
                sync(params)
            state["depth"] += 1
            try:
                real_init(self, params, *args, **kwargs)
            finally:
                state["depth"] -= 1

        cls.__init__ = init

    for name in dir(torch.optim):
        obj = getattr(torch.optim, name, None)
        if isinstance(obj, type) and issubclass(obj, torch.optim.Optimizer) and obj is not torch.optim.Optimizer:
            wrap(obj)


def main():
    """Parses NAME and --workdir, prepares the run and runs the program as __main__."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    programs = _programs()
    parser.add_argument("name", choices=sorted(programs))
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    on_tc = type(torch.zeros(1)).__module__.split(".")[0] == "tc"
    spec = programs[args.name]
    script = os.path.join(PROGRAMS_DIR, spec["script"])
    workdir = os.path.abspath(args.workdir)
    os.makedirs(workdir, exist_ok=True)
    argv = spec["argv"](workdir)
    _install_random()
    if spec.get("trace_backward"):
        _install_backward_trace()
    if spec.get("sync_optimizers"):
        _install_optimizer_sync(os.path.join(workdir, "weights"), save=not on_tc)
    _install_weight_sync(os.path.join(workdir, "weights"), save=not on_tc,
                         no_dropout=spec.get("no_dropout", False))
    sys.path.insert(0, STUBS_DIR)
    sys.path.insert(0, os.path.dirname(script))
    os.chdir(workdir)
    sys.argv = [script] + argv
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
