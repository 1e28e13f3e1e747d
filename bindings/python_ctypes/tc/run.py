"""The launcher: ``python3 -m tc.run script.py [args]`` runs an unchanged
PyTorch script on tc.

It installs tc.compat's import hook (so the script's ``import torch`` gets
tc), then runs the script as ``__main__`` the way ``python3 script.py``
would (sys.argv = [script, args...], the script's folder first on
sys.path). When something tc lacks is reached (a NotImplementedError
escapes), it prints what is missing and the line of the program that asked
for it, and exits with status 1; a missing Tensor attribute (an
AttributeError on a tc object) is reported the same way."""
import os
import runpy
import sys
import traceback

_USAGE = "usage: python3 -m tc.run script.py [args...]"
_TC_DIR = os.path.dirname(os.path.abspath(__file__))


def _is_program_frame(filename):
    """True for a frame of the user's program: not tc itself, not the import
    machinery, runpy or this launcher."""
    if filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    if path.startswith(_TC_DIR + os.sep):
        return False
    return os.path.basename(path) != "runpy.py"


def program_location(exc):
    """(filename, line) of the innermost frame of the user's program in
    exc's traceback, or None."""
    where = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if _is_program_frame(frame.filename):
            where = (frame.filename, frame.lineno)
    return where


def _tc_object(obj):
    module = getattr(type(obj), "__module__", "") or ""
    return module == "tc" or module.startswith("tc.")


def missing_name(exc):
    """The message to report for an exception that means "tc lacks this",
    or None for any other exception (left to Python's usual traceback)."""
    if isinstance(exc, NotImplementedError):
        return str(exc) or type(exc).__name__
    if isinstance(exc, AttributeError) and getattr(exc, "name", None) and _tc_object(getattr(exc, "obj", None)):
        obj = exc.obj
        if isinstance(obj, sys.modules["tc"].Tensor):
            owner = "torch.Tensor"
        else:  # tc.optim.SGD -> torch.optim.SGD (private module parts dropped)
            parts = [p for p in type(obj).__module__.split(".")[1:] if not p.startswith("_")]
            owner = ".".join(["torch"] + parts + [type(obj).__name__])
        return "%s.%s is not implemented in tc" % (owner, exc.name)
    return None


def main(argv=None):
    """Runs ``argv[0]`` (a script path) with arguments ``argv[1:]`` on tc.

    Args:
        argv (list of str, optional): default sys.argv[1:].

    Returns:
        int: the exit status (0, or 1 when tc lacks something the script used).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr)
        return 2
    script = argv[0]
    if not os.path.exists(script):
        print("tc.run: cannot open %r: no such file" % script, file=sys.stderr)
        return 2
    from . import compat
    compat.install()
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except (NotImplementedError, AttributeError) as exc:
        message = missing_name(exc)
        if message is None:
            raise
        where = program_location(exc)
        print("tc.run: %s" % message, file=sys.stderr)
        if where is not None:
            print("  at %s:%d" % where, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
