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
- randomness: torch.randn/rand/randn_like/rand_like/randint/randperm/normal,
  dropout (F.dropout and nn.Dropout) and the shuffling RandomSampler draw
  from one numpy generator, reseeded by torch.manual_seed, in both runs;
  Python's random module and numpy's global generator (which some programs
  draw from without seeding them) are seeded with 0 before the program;
- data: the programs' downloads are replaced by tiny synthetic data (the
  torchvision stand-in in tests/conformance/stubs/, the corpus written
  below), and their arguments ask for few steps; plotting goes to the
  matplotlib stand-in there, which draws nothing.

A program that prints a line per step of a long fixed loop can be cut short:
an entry's ``max_lines`` ends the run (SystemExit(0)) once the program has
printed that many lines on stdout. An entry may also name a ``patch``: a function(torch, workdir) run just before
the program (stubs on sys.path, in the work folder), in both runs, e.g. to ask
the matplotlib stand-in to print what the program would have drawn.

The programs are listed, one module per source repository, in
tests/conformance/suites/ (its __init__ says what an entry holds).

The program's own output goes to stdout; tests/python/test_conformance.py
compares the losses it prints.

Both runs also share Python's other sources of variation: string hashing
(PYTHONHASHSEED=0, so ``list(set(words))`` orders a vocabulary alike; the
script restarts itself with it when it is unset), and the global generators
of ``random`` and ``numpy.random`` (seeded with 0 before the program runs,
as is torch's own, so that PyTorch's initial weights are the same from one
test run to the next).
An entry may also hand the program names for its namespace (``globals``)
and adjust the libraries before it runs (``patch``); see suites/__init__."""
import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    # set/dict order of strings must be the same in both runs: restart the
    # interpreter (with the same command, tc.run included) with fixed hashing
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, sys.orig_argv)

import argparse  # noqa: E402
import random  # noqa: E402
import runpy  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

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


def _normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
            requires_grad=False, layout=None, pin_memory=False):
    """torch.normal in its forms (tensor/number mean and std, or numbers and
    size): mean + std * z, with z drawn from the shared generator."""
    shapes = [tuple(a.shape) for a in (mean, std) if hasattr(a, "shape")]
    shape = tuple(size) if size is not None else tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    z = _tensor(_Random.rng.standard_normal(shape).astype(np.float32), dtype)
    return z * std + mean


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
    if hasattr(torch, "normal"):  # where tc lacks it, the run reports it missing
        torch.normal = _normal
    F.dropout = _dropout
    nn.Dropout.forward = lambda self, x: _dropout(x, self.p, self.training)

    def sampler_iter(self):
        yield from _Random.rng.permutation(len(self.data_source)).tolist()

    torch.utils.data.RandomSampler.__iter__ = sampler_iter


def _install_weight_sync(weights_dir, save, no_dropout=False, sync_first=None):
    """Patches nn.Module.__call__: the first outermost call of each module
    saves (PyTorch run) or loads (tc run) its state_dict, by call order;
    with sync_first=N only the first N modules are (the later ones keep what
    the program gave them, e.g. weights it restored from its own file)."""
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
        if state["depth"] == 0 and id(self) not in state["seen"] and (
                sync_first is None or state["synced"] < sync_first):
            sync(self)
        state["depth"] += 1
        try:
            return real_call(self, *args, **kwargs)
        finally:
            state["depth"] -= 1

    nn.Module.__call__ = call


class _LineLimit:
    """sys.stdout for a program cut short: passes its output through and
    ends the run (SystemExit(0)) once max_lines lines have been written."""

    def __init__(self, stream, max_lines):
        self.stream, self.left = stream, max_lines

    def write(self, text):
        """Writes text; ends the run after the max_lines-th newline."""
        self.stream.write(text)
        self.left -= text.count("\n")
        if self.left <= 0:
            self.stream.flush()
            raise SystemExit(0)
        return len(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


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
    _install_weight_sync(os.path.join(workdir, "weights"), save=not on_tc,
                         no_dropout=spec.get("no_dropout", False), sync_first=spec.get("sync_first"))
    torch.manual_seed(0)  # also reseeds the shared generator (see _install_random)
    random.seed(0)
    np.random.seed(0)
    sys.path.insert(0, STUBS_DIR)
    sys.path.insert(0, os.path.dirname(script))
    os.chdir(workdir)
    sys.argv = [script] + argv
    if spec.get("patch"):
        spec["patch"](torch, workdir)
    if spec.get("max_lines"):
        sys.stdout = _LineLimit(sys.stdout, spec["max_lines"])
    names = spec["globals"]() if spec.get("globals") else None
    runpy.run_path(script, init_globals=names, run_name="__main__")


if __name__ == "__main__":
    main()
