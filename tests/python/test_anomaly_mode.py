"""tc.autograd.detect_anomaly / set_detect_anomaly and tc.is_anomaly_enabled
against torch 1.13: the flags, the NaN check naming the backward node with
PyTorch's message, the forward traceback in the error, and that nothing is
checked once the mode is off. Needs tc_set_anomaly_mode (libtc's engine)."""
import warnings

import pytest

import tc
from conftest import need

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _needs_engine_hook():
    need("tc_set_anomaly_mode")
    yield
    tc.set_anomaly_enabled(False)


def _nan_backward(lib):
    """sqrt at 0 times 0: SqrtBackward gets a zero gradient and returns 0/0."""
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt()  # the forward call anomaly mode must point at
    z = (y * 0).sum()
    z.backward()
    return x.grad


def _flags(lib):
    seen = [(lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            with lib.autograd.set_detect_anomaly(False):
                seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            with lib.autograd.detect_anomaly(check_nan=False):
                seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    lib.autograd.set_detect_anomaly(True, check_nan=False)
    seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    lib.set_anomaly_enabled(False)
    seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    return seen


def test_flags_match_torch():
    assert _flags(tc) == _flags(torch)


def test_detect_anomaly_warns_like_torch():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with tc.autograd.detect_anomaly():
            pass


def test_nan_gradient_names_the_node_and_the_forward_call():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tc.autograd.detect_anomaly():
            with pytest.raises(RuntimeError) as ours:
                _nan_backward(tc)
        with torch.autograd.detect_anomaly():
            with pytest.raises(RuntimeError) as theirs:
                _nan_backward(torch)
    # libtc's messages start with the status and the failing call ("TC_ERR_AUTOGRAD: tc_backward: ")
    first = str(ours.value).splitlines()[0]
    assert str(theirs.value) == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert first.endswith(": " + str(theirs.value))
    text = str(ours.value)
    assert "Traceback of forward call that caused the error" in text
    assert "y = x.sqrt()  # the forward call anomaly mode must point at" in text
    assert "_nan_backward" in text


def test_off_or_without_nan_check_backward_gives_nan():
    g = _nan_backward(tc)
    assert bool(g.isnan().any())
    with tc.autograd.set_detect_anomaly(True, check_nan=False):
        g = _nan_backward(tc)
    assert bool(g.isnan().any())
    assert not tc.is_anomaly_enabled()


def test_finite_gradients_pass_in_anomaly_mode():
    x = tc.tensor([1.0, 4.0], requires_grad=True)
    tx = torch.tensor([1.0, 4.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tc.autograd.detect_anomaly():
            (x.sqrt() * x).sum().backward()
    (tx.sqrt() * tx).sum().backward()
    assert x.grad.tolist() == pytest.approx(tx.grad.tolist())
