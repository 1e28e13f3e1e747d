"""Prints the public surface of the tc package, one sorted line per name, so
that a refactoring of how the package is put together can be checked against
the surface it had before (tests/python/test_api_snapshot.py compares the
live package with tests/python/api_snapshot.txt). Public names and, on
Tensor, the dunder methods (operators); private helpers (`_name`) may come
and go with the implementation.

Regenerate the snapshot on purpose, after adding or removing API:
    TC_LIBRARY=... /usr/bin/python3 tests/python/api_snapshot.py > tests/python/api_snapshot.txt
"""
import inspect
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE_DIR = os.path.normpath(os.path.join(_HERE, "..", "..", "bindings", "python_ctypes"))


def _dunder(name):
    return name.startswith("__") and name.endswith("__")


def _tensor_kind(name, cls):
    """'property', 'method', 'attribute' (a non-callable class attribute)
    for one name on the Tensor class."""
    attr = inspect.getattr_static(cls, name)
    if isinstance(attr, property):
        return "property"
    if isinstance(attr, staticmethod):
        return "staticmethod"
    if isinstance(attr, classmethod):
        return "classmethod"
    if callable(attr):
        return "method"
    return "attribute"


def snapshot_lines(tc):
    """The snapshot of the imported package `tc`, as a list of lines."""
    import tc.fft
    import tc.linalg
    import tc.nn
    import tc.nn.functional
    import tc.special
    spaces = [("tc", tc), ("tc.nn", tc.nn), ("tc.nn.functional", tc.nn.functional),
              ("tc.linalg", tc.linalg), ("tc.fft", tc.fft), ("tc.special", tc.special)]
    lines = []
    for name in sorted(dir(tc.Tensor)):
        if _dunder(name):
            lines.append("tc.Tensor %s" % name)
        elif not name.startswith("_"):
            lines.append("tc.Tensor %s %s" % (name, _tensor_kind(name, tc.Tensor)))
    for label, ns in spaces:
        for name in sorted(dir(ns)):
            if not name.startswith("_"):
                lines.append("%s %s" % (label, name))
    return lines


def main():
    """Prints the snapshot of the checkout's package."""
    if not os.environ.get("TC_TEST_INSTALLED"):  # as conftest.py: the checkout's package
        sys.path.insert(0, _PACKAGE_DIR)
    import tc
    print("\n".join(snapshot_lines(tc)))


if __name__ == "__main__":
    main()
