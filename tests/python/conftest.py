"""pytest setup: import tc from the checkout (bindings/python_ctypes) unless
an installed one is wanted (TC_TEST_INSTALLED=1), and helpers to skip tests of
ops the loaded libtc does not export yet."""
import os
import sys

import pytest

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
if not os.environ.get("TC_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(REPO, "bindings", "python_ctypes"))

import tc  # noqa: E402


def missing(*names):
    return [n for n in names if not hasattr(tc._lib.lib, n)]


def need(*names):
    """Skips the calling test while libtc lacks any of these functions."""
    gone = missing(*names)
    if gone:
        pytest.skip("libtc does not export %s yet" % ", ".join(gone))


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def np():
    return pytest.importorskip("numpy")
