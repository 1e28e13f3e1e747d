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
  rel, abs    optional tolerances (default 2e-3 each)
  missing     optional: the PyTorch names tc lacks that stop it (the test is
              then an expected failure that must stop on tc.run's report)
  differs     optional: why tc's numbers are known to differ from PyTorch's
              (the test is then an expected failure, XPASS once tc matches)
  max_lines   optional: the run ends (exit status 0) once the program has
              printed that many lines, for one that prints every step of a
              long fixed loop
  sync_first  optional: only the first N top-level modules called get
              PyTorch's initial weights; later ones keep what the program
              gave them (e.g. a model it restored from its own saved file)
  slow        optional, default False: the program's own sizes make it too
              heavy for every test run (minutes on CI's cores): the test
              skips it unless TC_CONFORMANCE_SLOW=1 is set
  timeout     optional, default 120: seconds each run may take
  globals     optional: function() -> dict of names put into the program's
              namespace before it runs (runpy's init_globals), in both runs;
              a name there shadows a builtin, e.g. a ``range`` that keeps a
              program's long training loop short (see thinned_range below)
  patch       optional: function(torch, workdir) called in both runs just
              before the program runs (after run_one's own patches, stubs on
              sys.path, in the work folder), for an adjustment one program
              needs: drawing the initial weights of modules it builds inside
              forward from a shared numpy generator, or setting the matplotlib
              stand-in's echo/stop_after (stubs/matplotlib/pyplot.py) for a
              program that shows its progress only in plots

This package imports neither torch nor tc: the test collects it under tc,
run_one.py under both.

run_one.py runs every program with PYTHONHASHSEED=0 and the global
generators of ``random`` and ``numpy.random`` seeded with 0, in both runs."""
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


def thinned_range(total, every, steps, blocks):
    """A stand-in for the builtin ``range`` (for an entry's ``globals``) that
    shortens a training loop which prints its loss every ``every`` epochs,
    such as ``for epoch in range(5000): ... if (epoch + 1) % 1000 == 0: print``.

    ``range(total)`` (that one call only) yields, for each of the first
    ``blocks`` printing epochs, the ``steps`` epochs ending with it: with
    (5000, 1000, 20, 3) it gives 980..999, 1980..1999, 2980..2999, so the
    program trains 60 steps and prints 3 losses. Every other call is the
    builtin's. Each step is unchanged; only the epoch numbers in between
    (which such a loop uses just to decide when to print) are skipped."""
    if not 1 <= steps <= every or blocks * every > total:
        raise ValueError("thinned_range(%d, %d, %d, %d): steps must be 1..every and blocks*every <= total"
                         % (total, every, steps, blocks))
    builtin = range

    def thinned(*args):
        if args != (total,):
            return builtin(*args)
        return [epoch for block in builtin(1, blocks + 1) for epoch in builtin(block * every - steps, block * every)]
    return thinned
