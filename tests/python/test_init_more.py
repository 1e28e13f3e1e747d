"""tc.nn.init against torch 1.13's torch.nn.init: every function exists with
torch's parameter names; the random initializers' statistics (mean, std,
bounds) match their distributions; eye_, dirac_ and orthogonal_ have their
exact structure; gains, fans and errors are torch's."""
import inspect
import math
import warnings

import pytest

import tc
import tc.nn as nn
import tc.nn.init as init

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TI = torch.nn.init


def to_np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def public_functions(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_") and inspect.isfunction(getattr(mod, n)))


def test_every_torch_init_function_with_torch_parameters():
    names = public_functions(TI)
    assert "orthogonal_" in names and "trunc_normal_" in names
    for name in names:
        assert hasattr(init, name), name
        theirs = list(inspect.signature(getattr(TI, name)).parameters)
        ours = list(inspect.signature(getattr(init, name)).parameters)
        if theirs != ["args", "kwargs"]:  # the deprecated aliases forward everything
            assert ours == theirs, (name, ours, theirs)


def test_calculate_gain():
    for nl in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
               "sigmoid", "tanh", "relu", "leaky_relu", "selu"):
        assert init.calculate_gain(nl) == TI.calculate_gain(nl), nl
    for p in (0.2, 0, 3):
        assert init.calculate_gain("leaky_relu", p) == TI.calculate_gain("leaky_relu", p)
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("softmax")
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", "0.1")


def test_fans_as_torch():
    for shape in ((3, 5), (4, 3, 2), (6, 2, 3, 3), (2, 3, 1, 2, 2)):
        assert init._calculate_fan_in_and_fan_out(tc.empty(*shape)) == \
            TI._calculate_fan_in_and_fan_out(torch.empty(*shape))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(tc.empty(5))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.kaiming_normal_(tc.empty(5))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(tc.empty(3, 4), mode="fan_avg")


def stats(t):
    v = to_np(t).ravel()
    return v.mean(), v.std(), v.min(), v.max()


N = (200, 300)  # 60000 samples: the mean within ~4/sqrt(n) std


def test_uniform_and_normal_statistics():
    mean, std, lo, hi = stats(init.uniform_(tc.empty(*N), -2.0, 4.0))
    assert -2.0 <= lo and hi <= 4.0
    assert abs(mean - 1.0) < 0.05 and abs(std - 6 / math.sqrt(12)) < 0.03
    mean, std, _, _ = stats(init.normal_(tc.empty(*N), 3.0, 0.5))
    assert abs(mean - 3.0) < 0.01 and abs(std - 0.5) < 0.01


def _truncated_normal_moments(mu, sigma, a, b):
    def pdf(x):
        return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)

    def cdf(x):
        return (1 + math.erf(x / math.sqrt(2))) / 2

    al, be = (a - mu) / sigma, (b - mu) / sigma
    z = cdf(be) - cdf(al)
    m = (pdf(al) - pdf(be)) / z
    var = 1 + (al * pdf(al) - be * pdf(be)) / z - m * m
    return mu + sigma * m, sigma * math.sqrt(var)


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 3.0), (0.0, 0.02, -0.04, 0.01)])
def test_trunc_normal_statistics(mean, std, a, b):
    t = init.trunc_normal_(tc.empty(*N, dtype="float64"), mean, std, a, b)
    m, s, lo, hi = stats(t)
    assert a <= lo and hi <= b
    em, es = _truncated_normal_moments(mean, std, a, b)
    assert abs(m - em) < 4 * es / math.sqrt(t.numel()) + 1e-12
    assert abs(s - es) < 0.02 * es


def test_trunc_normal_warns_far_mean():
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        init.trunc_normal_(tc.empty(10), mean=10.0, std=1.0)


def test_constant_ones_zeros():
    t = tc.empty(3, 4)
    assert to_np(init.constant_(t, 2.5)).tolist() == [[2.5] * 4] * 3
    assert to_np(init.ones_(t)).tolist() == [[1.0] * 4] * 3
    assert to_np(init.zeros_(t)).tolist() == [[0.0] * 4] * 3


def test_eye():
    for shape in ((3, 3), (2, 5), (5, 2)):
        t = init.eye_(tc.empty(*shape))
        assert to_np(t).tolist() == TI.eye_(torch.empty(*shape)).tolist()
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.eye_(tc.empty(2, 2, 2))


@pytest.mark.parametrize("shape,groups", [((4, 3, 3), 1), ((6, 2, 3, 4), 2), ((4, 4, 2, 3, 3), 2), ((3, 5, 5), 3)])
def test_dirac(shape, groups):
    t = init.dirac_(tc.empty(*shape), groups)
    assert to_np(t).tolist() == TI.dirac_(torch.empty(*shape), groups).tolist()


def test_dirac_errors():
    with pytest.raises(ValueError, match="3, 4, or 5 dimensions"):
        init.dirac_(tc.empty(3, 3))
    with pytest.raises(ValueError, match="divisible by groups"):
        init.dirac_(tc.empty(5, 2, 3), groups=2)


def test_dirac_conv_keeps_input():
    conv = nn.Conv2d(3, 3, 3, padding=1, bias=False)
    init.dirac_(conv.weight)
    x = tc.randn(2, 3, 5, 5)
    np.testing.assert_allclose(to_np(conv(x)), to_np(x), atol=1e-6)


def test_xavier_statistics():
    fan_in, fan_out = 300, 200
    a = math.sqrt(6.0 / (fan_in + fan_out)) * 0.5
    _, std, lo, hi = stats(init.xavier_uniform_(tc.empty(fan_out, fan_in), gain=0.5))
    assert -a <= lo and hi <= a and hi > 0.99 * a
    assert abs(std - a / math.sqrt(3)) < 0.01 * a
    _, std, _, _ = stats(init.xavier_normal_(tc.empty(fan_out, fan_in), gain=2.0))
    assert abs(std - 2.0 * math.sqrt(2.0 / (fan_in + fan_out))) < 0.01 * std


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
@pytest.mark.parametrize("nonlinearity,a", [("leaky_relu", 0), ("leaky_relu", math.sqrt(5)), ("relu", 0),
                                             ("tanh", 0), ("linear", 0)])
def test_kaiming_statistics(mode, nonlinearity, a):
    shape = (100, 30, 2, 5)  # fan_in 300, fan_out 1000
    fan = 300 if mode == "fan_in" else 1000
    expected = TI.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    _, std, lo, hi = stats(init.kaiming_uniform_(tc.empty(*shape), a=a, mode=mode, nonlinearity=nonlinearity))
    bound = math.sqrt(3) * expected
    assert -bound <= lo and hi <= bound and hi > 0.99 * bound
    assert abs(std - expected) < 0.01 * expected
    mean, std, _, _ = stats(init.kaiming_normal_(tc.empty(*shape), a=a, mode=mode, nonlinearity=nonlinearity))
    assert abs(std - expected) < 0.015 * expected and abs(mean) < 0.02 * expected


def test_kaiming_zero_element_is_a_no_op():
    for f in (init.kaiming_uniform_, init.kaiming_normal_):
        with pytest.warns(UserWarning, match="zero-element"):
            f(tc.empty(0, 3))


@pytest.mark.parametrize("shape", [(5, 5), (3, 7), (7, 3), (4, 2, 3, 3), (40, 40)])
def test_orthogonal(shape):
    gain = 1.7
    t = init.orthogonal_(tc.empty(*shape), gain=gain)
    w = to_np(t).reshape(shape[0], -1) / gain
    rows, cols = w.shape
    gram = w @ w.T if rows <= cols else w.T @ w
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-6)
    t64 = init.orthogonal_(tc.empty(*shape, dtype="float64"))
    w = to_np(t64).reshape(shape[0], -1)
    gram = w @ w.T if rows <= cols else w.T @ w
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-12)


def test_orthogonal_is_random_and_seeded():
    tc.manual_seed(3)
    a = to_np(init.orthogonal_(tc.empty(4, 4)))
    b = to_np(init.orthogonal_(tc.empty(4, 4)))
    tc.manual_seed(3)
    c = to_np(init.orthogonal_(tc.empty(4, 4)))
    assert not np.allclose(a, b) and np.array_equal(a, c)


def test_orthogonal_errors_and_empty():
    with pytest.raises(ValueError, match="2 or more dimensions"):
        init.orthogonal_(tc.empty(4))
    assert init.orthogonal_(tc.empty(0, 3)).shape == (0, 3)


def test_sparse():
    rows, cols, sparsity = 40, 30, 0.3
    w = to_np(init.sparse_(tc.empty(rows, cols), sparsity, std=0.5))
    zeros_per_col = (w == 0).sum(axis=0)
    assert (zeros_per_col == math.ceil(sparsity * rows)).all()
    nz = w[w != 0]
    assert abs(nz.std() - 0.5) < 0.05
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.sparse_(tc.empty(2, 3, 4), 0.1)


def test_fills_parameters_outside_autograd():
    p = nn.Parameter(tc.empty(4, 6))
    for f in (lambda t: init.uniform_(t), lambda t: init.normal_(t), lambda t: init.trunc_normal_(t),
              init.zeros_, init.ones_, lambda t: init.constant_(t, 3), init.eye_, init.xavier_uniform_,
              init.xavier_normal_, init.kaiming_uniform_, init.kaiming_normal_, init.orthogonal_,
              lambda t: init.sparse_(t, 0.5)):
        assert f(p) is p
        assert p.requires_grad and p.is_leaf and p.grad_fn is None


def test_deprecated_aliases_warn():
    t = tc.empty(3, 3)
    for old in ("uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
                "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"):
        args = {"constant": (1.0,), "sparse": (0.1,)}.get(old, ())
        target = tc.empty(3, 3, 3) if old == "dirac" else t
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert getattr(init, old)(target, *args) is target
        assert any("nn.init.%s is now deprecated in favor of nn.init.%s_" % (old, old) in str(x.message) for x in w)
