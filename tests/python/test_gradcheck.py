"""tc.autograd.gradcheck / gradgradcheck against torch.autograd's: the same
verdicts on correct and wrong custom Functions, GradcheckError (a
RuntimeError) with PyTorch's message, raise_exception=False, the input
checks. gradgradcheck needs create_graph (tc_autograd_grad)."""
import numpy as np
import pytest

import tc
from conftest import need

torch = pytest.importorskip("torch")
TorchGradcheckError = __import__("sys").modules["torch.autograd.gradcheck"].GradcheckError


def _wrong_backward(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3
    return Scale


def _inputs():
    a = np.random.RandomState(0).randn(3, 2)
    return (tc.tensor(a, dtype=tc.float64, requires_grad=True),
            torch.tensor(a, dtype=torch.float64, requires_grad=True))


def test_correct_function_passes():
    x, tx = _inputs()
    g = lambda a: (a.sin() * a).sum(0)  # noqa: E731
    assert tc.autograd.gradcheck(g, (x,)) is True
    assert torch.autograd.gradcheck(g, (tx,)) is True
    y = tc.tensor(np.random.RandomState(1).randn(2), dtype=tc.float64, requires_grad=True)
    assert tc.autograd.gradcheck(lambda a, b, k: (a * b * k).tanh(), (x, y, 1.5))


def test_wrong_backward_raises_gradcheck_error_like_torch():
    x, tx = _inputs()
    with pytest.raises(tc.autograd.GradcheckError) as ours:
        tc.autograd.gradcheck(_wrong_backward(tc).apply, (x,))
    with pytest.raises(TorchGradcheckError) as theirs:
        torch.autograd.gradcheck(_wrong_backward(torch).apply, (tx,))
    assert isinstance(ours.value, RuntimeError)
    first = lambda e: str(e).splitlines()[0]  # noqa: E731
    assert first(ours.value) == first(theirs.value) == "Jacobian mismatch for output 0 with respect to input 0,"
    assert tc.autograd.gradcheck(_wrong_backward(tc).apply, (x,), raise_exception=False) is False


def test_tolerances_decide_like_torch():
    # a backward off by 1e-4 relative: passes with rtol 1e-3, fails with 1e-6
    def make(lib):
        class Off(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2.0002
        return Off
    x, tx = _inputs()
    for rtol in (1e-3, 1e-6):
        ours = tc.autograd.gradcheck(make(tc).apply, (x,), rtol=rtol, atol=0, raise_exception=False)
        theirs = torch.autograd.gradcheck(make(torch).apply, (tx,), rtol=rtol, atol=0, raise_exception=False)
        assert ours == theirs


def test_input_errors_like_torch():
    a = tc.tensor([1.0, 2.0], dtype=tc.float64)
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        tc.autograd.gradcheck(lambda t: t * 2, (a,))
    f32 = tc.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="is not a double precision"):
        tc.autograd.gradcheck(lambda t: t * 2, (f32,), eps=1e-2, atol=1e-2)


def test_backward_not_multiplied_by_grad_output():
    def make(lib):
        class Ignores(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a.sum()

            @staticmethod
            def backward(ctx, g):
                return lib.ones(3, 2, dtype=lib.float64)  # ignores g
        return Ignores
    x, tx = _inputs()
    # the Jacobian itself is right (g is one there), the zero-grad check fails
    with pytest.raises(tc.autograd.GradcheckError, match="backward not multiplied by grad_output") as ours:
        tc.autograd.gradcheck(make(tc).apply, (x,), check_undefined_grad=False)
    with pytest.raises(TorchGradcheckError) as theirs:
        torch.autograd.gradcheck(make(torch).apply, (tx,), check_undefined_grad=False)
    assert str(ours.value) == str(theirs.value)


def test_unsupported_flags_raise():
    x, _ = _inputs()
    with pytest.raises(NotImplementedError):
        tc.autograd.gradcheck(lambda a: a * 2, (x,), check_forward_ad=True)


def test_gradgradcheck():
    need("tc_autograd_grad")
    x, tx = _inputs()
    for f in (lambda a: (a.sin() * a).sum(0), lambda a: a.tanh() * a.exp()):
        assert tc.autograd.gradgradcheck(f, (x,)) is True
        assert torch.autograd.gradgradcheck(f, (tx,)) is True


def test_gradgradcheck_catches_a_wrong_second_derivative():
    need("tc_autograd_grad")
    x, tx = _inputs()

    def make(lib):
        class NoDouble(lib.autograd.Function):
            # backward correct to first order but wrong to second: it treats
            # x as a constant, so the gradient's gradient is 0
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return g * 2 * a.detach()
        return NoDouble
    assert tc.autograd.gradcheck(make(tc).apply, (x,))
    try:
        ours = tc.autograd.gradgradcheck(make(tc).apply, (x,), raise_exception=False)
    except NotImplementedError as e:  # the engine does not record custom Functions' backward
        pytest.skip("libtc cannot differentiate a custom Function's backward: %s" % e)
    theirs = torch.autograd.gradgradcheck(make(torch).apply, (tx,), raise_exception=False)
    assert ours is theirs is False


def test_gradgradcheck_with_a_zero_dim_output_like_torch():
    # The random grad_output and the perturbed inputs keep a 0-d shape.
    data = np.random.RandomState(3).randn(4)
    results = []
    for lib in (tc, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        results.append((lib.autograd.gradcheck(lambda t: (t ** 3).sum(), (x,)),
                        lib.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))))
        s = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        results[-1] += (lib.autograd.gradgradcheck(lambda t: t.sin() * t, (s,)),)
    assert results[0] == results[1] == (True, True, True)
