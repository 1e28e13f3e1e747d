"""tc.normal against torch.normal: its forms, shapes, dtypes, statistics,
gradients (zero, as PyTorch 1.13's) and errors."""
import pytest

import tc

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("args,kwargs", [
    ((lambda m: m.zeros(3, 2), lambda m: m.ones(3, 2)), {}),
    ((lambda m: m.zeros(2, 1), lambda m: m.ones(3)), {}),
    ((lambda m: m.zeros(4, dtype=m.float64), 2.0), {}),
    ((1.0, lambda m: m.ones(2, 2)), {}),
    ((1.0, 2.0, (5, 3)), {}),
    ((1.0, 2.0, (2,)), {"dtype": "float64"}),
])
def test_shapes_and_dtypes_match_torch(args, kwargs):
    def build(m):
        a = [x(m) if callable(x) else x for x in args]
        k = {key: getattr(m, v) for key, v in kwargs.items()}
        return m.normal(*a, **k)
    ours, theirs = build(tc), build(torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


def test_statistics_follow_mean_and_std():
    mean = tc.tensor([0.0, 10.0]).reshape(2, 1).expand(2, 20000)
    std = tc.tensor([1.0, 3.0]).reshape(2, 1)
    x = tc.normal(mean, std).numpy()
    assert abs(x[0].mean()) < 0.05 and abs(x[1].mean() - 10.0) < 0.15
    assert abs(x[0].std() - 1.0) < 0.05 and abs(x[1].std() - 3.0) < 0.15


def test_zero_std_gives_the_mean():
    mean = tc.tensor([1.5, -2.0])
    assert tc.normal(mean, 0.0).tolist() == [1.5, -2.0]


def test_generator_makes_draws_repeatable():
    g = tc.Generator()
    g.manual_seed(3)
    a = tc.normal(0.0, 1.0, (4,), generator=g)
    g.manual_seed(3)
    b = tc.normal(0.0, 1.0, (4,), generator=g)
    assert a.tolist() == b.tolist()


def test_out_receives_the_samples():
    out = tc.empty(3)
    r = tc.normal(0.0, 1.0, (3,), out=out)
    assert r is out


@pytest.mark.parametrize("lib", ["tc", "torch"])
def test_gradients_are_zero_like_torch(lib):
    m = {"tc": tc, "torch": torch}[lib]
    mean = m.zeros(3, 2, requires_grad=True)
    std = m.ones(3, 2, requires_grad=True)
    r = m.normal(mean, std)
    assert r.requires_grad
    r.sum().backward()
    assert mean.grad.tolist() == [[0.0, 0.0]] * 3
    assert std.grad.tolist() == [[0.0, 0.0]] * 3


def test_requires_grad_for_number_forms():
    assert tc.normal(0.0, 1.0, (2,), requires_grad=True).requires_grad
    assert not tc.normal(tc.zeros(2), 1.0).requires_grad


@pytest.mark.parametrize("args,exc", [
    ((lambda m: m.zeros(2), lambda m: -m.ones(2)), RuntimeError),
    ((0.0, -1.0, (2,)), RuntimeError),
    ((lambda m: m.zeros(2), -1.0), RuntimeError),
    ((0.0, 1.0), TypeError),
])
def test_errors_match_torch(args, exc):
    for m in (tc, torch):
        a = [x(m) if callable(x) else x for x in args]
        with pytest.raises(exc):
            m.normal(*a)
