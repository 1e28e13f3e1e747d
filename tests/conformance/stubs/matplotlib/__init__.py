"""A stand-in for the bit of matplotlib the vendored programs call (they
plot their results at the end); put on sys.path by run_one.py only, so the
suite needs no plotting library. Every call does nothing (pyplot can print
what would be drawn: see pyplot's echo)."""


def use(backend, **kwargs):
    """Does nothing (no backend to select)."""
