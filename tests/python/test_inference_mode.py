"""tc.inference_mode against torch.inference_mode: the grad mode and
is_inference_mode_enabled inside (nested, mode=False, as a decorator) and after, and that nothing is recorded inside."""
import pytest

import tc

torch = pytest.importorskip("torch")


def _state(lib):
    return lib.is_grad_enabled(), lib.is_inference_mode_enabled()


def _trace(lib):
    seen = [_state(lib)]
    with lib.inference_mode():
        seen.append(_state(lib))
        with lib.inference_mode(mode=False):
            seen.append(_state(lib))
            with lib.no_grad():
                with lib.inference_mode(False):
                    seen.append(_state(lib))
        seen.append(_state(lib))
    seen.append(_state(lib))

    @lib.inference_mode()
    def called():
        return _state(lib)

    @lib.inference_mode(False)
    def off():
        return _state(lib)

    seen += [called(), off(), _state(lib)]
    try:
        with lib.inference_mode():
            raise KeyError("x")
    except KeyError:
        pass
    seen.append(_state(lib))
    return seen


def test_modes_match_torch():
    assert _trace(tc) == _trace(torch)


def test_nothing_recorded_inside():
    x = tc.ones(3, requires_grad=True)
    with tc.inference_mode():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    z = x * 2
    assert z.requires_grad
