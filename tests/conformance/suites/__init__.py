"""The conformance programs, one module per source repository.

Each module here defines ``PROGRAMS``: run_one name -> a dict with
  script      the program's path under tests/conformance/programs/
  argv        function(workdir) -> the program's command-line arguments
              (few steps, small sizes; data it would download comes from
              tests/conformance/stubs/ or is written into workdir)
  no_dropout  optional, default False: every dropout is set to 0 when the
              model is first called, in both runs (for programs whose dropout
              tc draws inside a fused op, so that no common draws exist)
  compare     optional, default "losses": the numbers matched step by step are
              the losses the program prints ("loss: 0.12", "Loss 3.1"); a
              function(stdout) -> list of floats for a program that prints
              its progress another way
  trace_backward  optional, default False: every one-element tensor the
              program calls .backward() on is printed as "[run_one] backward
              loss: X" (compared with the program's own loss lines), for
              programs that print their loss only every 100 steps or so
  sync_optimizers  optional, default False: the parameters each optimizer
              is built with are also given PyTorch's initial values (for
              programs that call their modules' forward directly, so that
              the first-call sync never happens)
  rel, abs    optional tolerances (default 2e-3 each)
  missing     optional: the PyTorch names tc lacks that stop it (the test is
              then an expected failure that must stop on tc.run's report)

This package imports neither torch nor tc: the test collects it under tc,
run_one.py under both."""
import importlib
import os
import pkgutil

_HERE = os.path.dirname(os.path.abspath(__file__))


def all_programs():
    """Every suite's PROGRAMS, merged; a name defined twice is an error."""
    programs = {}
    for info in sorted(pkgutil.iter_modules([_HERE]), key=lambda m: m.name):
        module = importlib.import_module("%s.%s" % (__name__, info.name))
        for name, spec in module.PROGRAMS.items():
            if name in programs:
                raise ValueError("conformance program %r is defined twice (%s)" % (name, info.name))
            programs[name] = dict(spec, suite=info.name)
    return programs
