"""tc.set_printoptions (tc/_printing.py) against torch.set_printoptions:
the same printouts for each option (up to the "torch." prefix and where the
dtype suffix wraps, which depends on its length), and libtc's own printer
back with the defaults."""
import re

import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")

CASES = [np.arange(10.0) / 3, np.arange(2000.0).reshape(40, 50) / 7, np.array([1e-5, 1.0, 300.0]),
         np.array([1.0, 2.0, 1e9]), np.arange(24).reshape(2, 3, 4), np.array([True, False]),
         np.array([1.5, np.nan, np.inf, -2.0]), np.zeros((2, 0)), np.array(3.25), np.arange(12.0).reshape(3, 4) * 1000,
         np.arange(30, dtype=np.float32) * 1.1, np.array([0.0, 0.0]), np.arange(64.0).reshape(2, 2, 4, 4) - 20.5]
OPTIONS = [dict(precision=2), dict(threshold=5), dict(edgeitems=1, threshold=10), dict(linewidth=30),
           dict(sci_mode=True), dict(sci_mode=False, precision=6), dict(profile="short"),
           dict(profile="full", linewidth=60)]


def _normal(text):
    text = text.replace("torch.", "")
    return re.sub(r",\n {7}(dtype|requires_grad|grad_fn|size|device)", r", \1", text)


@pytest.fixture
def restore():
    yield
    tc.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_printouts_match_torch(options, restore):
    tc.set_printoptions(**options)
    torch.set_printoptions(**options)
    for case in CASES:
        assert _normal(repr(tc.tensor(case))) == _normal(repr(torch.tensor(case)))
        assert _normal(str(tc.tensor(case))) == _normal(str(torch.tensor(case)))
    g = tc.tensor(np.arange(3.0) / 3, requires_grad=True)
    h = torch.tensor(np.arange(3.0) / 3, requires_grad=True)
    assert _normal(repr(g)) == _normal(repr(h))


def test_defaults_restore_libtc_printer(restore):
    t = tc.tensor([1.123456, 2.0])
    native = repr(t)
    tc.set_printoptions(precision=1)
    assert repr(t) == "tensor([1.1, 2.0])"
    tc.set_printoptions(profile="default")
    assert repr(t) == native == "tensor([1.1235, 2.0000])"
    with pytest.raises(ValueError):
        tc.set_printoptions(profile="loud")
