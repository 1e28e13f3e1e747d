"""tc.distributions against torch.distributions (PyTorch 1.13): log_prob,
entropy, moments, cdf/icdf and their float64 gradients on fixed parameters;
sample shapes; sample moments of seeded draws within 5-sigma bounds (the
Python gamma/Poisson/binomial samplers too, also against their pmf/cdf);
kl_divergence for the registered pairs; validation errors; transforms."""
import math

import pytest

import tc
import tc.distributions as D
from tc.distributions import constraints, transforms as T

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TD = torch.distributions

R = np.random.default_rng(7)
POS = R.uniform(0.5, 3.0, size=(3,))
POS2 = R.uniform(0.5, 3.0, size=(3,))
REAL = R.normal(size=(3,))
PROB = np.array([0.2, 0.5, 0.85])
SIMPLEX = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
LOGITS = R.normal(size=(2, 3))


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().astype(np.float64)
    if not isinstance(t, tc.Tensor):
        return np.asarray(t, dtype=np.float64)
    return np.asarray(t.detach().double().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def close(a, b, rtol=1e-9, atol=1e-10):
    a, b = to_np(a), to_np(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def lib_tensors(lib, arrays, grad):
    out = []
    for a in arrays:
        if lib is torch:
            t = torch.tensor(a, dtype=torch.float64, requires_grad=grad)
        else:
            t = tc.tensor(np.asarray(a, dtype=np.float64))
            if grad:
                t.requires_grad = True
        out.append(t)
    return out


# name: (build(Dlib, *params), params, grad mask, value, extra methods)
CASES = {
    "Normal": (lambda M, a, b: M.Normal(a, b), [REAL, POS], [1, 1], R.normal(size=3), ("cdf", "icdf", "mode")),
    "Uniform": (lambda M, a, b: M.Uniform(a, a + b), [REAL, POS], [1, 1], REAL + 0.3 * POS, ("cdf", "icdf")),
    "Exponential": (lambda M, r: M.Exponential(r), [POS], [1], POS2, ("cdf", "icdf", "mode")),
    "Laplace": (lambda M, a, b: M.Laplace(a, b), [REAL, POS], [1, 1], R.normal(size=3), ("cdf", "icdf", "mode")),
    "Cauchy": (lambda M, a, b: M.Cauchy(a, b), [REAL, POS], [1, 1], R.normal(size=3), ("cdf", "icdf", "mode")),
    "Gamma": (lambda M, a, b: M.Gamma(a, b), [POS, POS2], [1, 1], POS2 * 0.7, ("mode",)),
    "Chi2": (lambda M, a: M.Chi2(a), [POS * 2], [1], POS2, ()),
    "Beta": (lambda M, a, b: M.Beta(a, b), [POS, POS2], [1, 1], PROB, ("mode",)),
    "Dirichlet": (lambda M, a: M.Dirichlet(a), [np.stack([POS, POS2])], [1], SIMPLEX, ("mode",)),
    "StudentT": (lambda M, d, a, b: M.StudentT(d, a, b), [POS * 2, REAL, POS2], [1, 1, 1], R.normal(size=3), ()),
    "LogNormal": (lambda M, a, b: M.LogNormal(a, b), [REAL, POS], [1, 1], POS2, ("cdf", "icdf", "mode")),
    "HalfNormal": (lambda M, s: M.HalfNormal(s), [POS], [1], POS2, ("cdf", "icdf", "mode")),
    "HalfCauchy": (lambda M, s: M.HalfCauchy(s), [POS], [1], POS2, ("cdf", "icdf", "mode")),
    "Gumbel": (lambda M, a, b: M.Gumbel(a, b), [REAL, POS], [1, 1], R.normal(size=3), ("mode",)),
    "Bernoulli": (lambda M, p: M.Bernoulli(p), [PROB], [1], np.array([0., 1., 1.]), ("mode",)),
    "BernoulliLogits": (lambda M, lg: M.Bernoulli(logits=lg), [REAL], [1], np.array([1., 0., 1.]), ()),
    "Geometric": (lambda M, p: M.Geometric(p), [PROB], [1], np.array([0., 3., 1.]), ("mode",)),
    "Poisson": (lambda M, r: M.Poisson(r), [POS * 3], [1], np.array([0., 2., 7.]), ("mode",)),
    "Binomial": (lambda M, n, p: M.Binomial(n, p), [np.array([10., 10., 10.]), PROB], [0, 1],
                 np.array([0., 4., 10.]), ("mode",)),
    "BinomialLogits": (lambda M, p: M.Binomial(6, logits=p), [REAL], [1], np.array([1., 6., 3.]), ()),
    "Categorical": (lambda M, p: M.Categorical(p), [SIMPLEX], [1], np.array([2., 0.]), ("mode",)),
    "CategoricalLogits": (lambda M, lg: M.Categorical(logits=lg), [LOGITS], [1], np.array([1., 2.]), ()),
    "OneHotCategorical": (lambda M, lg: M.OneHotCategorical(logits=lg), [LOGITS], [1],
                          np.array([[0., 1., 0.], [0., 0., 1.]]), ("mode",)),
    "Multinomial": (lambda M, p: M.Multinomial(7, p), [SIMPLEX], [1], np.array([[1., 2., 4.], [7., 0., 0.]]), ()),
    "RelaxedBernoulli": (lambda M, t, p: M.RelaxedBernoulli(t, p), [np.array(0.7), PROB], [1, 1],
                         np.array([0.1, 0.5, 0.9]), ()),
    "RelaxedOneHotCategorical": (lambda M, t, lg: M.RelaxedOneHotCategorical(t, logits=lg),
                                 [np.array(0.8), LOGITS], [1, 1], SIMPLEX, ()),
    "MultivariateNormal": (lambda M, m, L: M.MultivariateNormal(m, scale_tril=L),
                           [R.normal(size=(2, 3)), np.tril(R.normal(size=(3, 3))) + 3 * np.eye(3)], [1, 1],
                           R.normal(size=(4, 2, 3)), ("mode",)),
}
NO_ENTROPY = {"Uniform_never"}
# torch raises NotImplementedError for these (no closed form), so do we
NO_ENTROPY |= {"RelaxedBernoulli", "RelaxedOneHotCategorical", "Poisson"}
NO_MOMENTS = {"RelaxedBernoulli", "RelaxedOneHotCategorical"}


def build(name, lib, grad=False):
    ctor, params, _, _, _ = CASES[name]
    ps = lib_tensors(lib, params, grad)
    return ctor(D if lib is tc else TD, *ps), ps


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_torch(name):
    _, _, _, value, extra = CASES[name]
    d, _ = build(name, tc)
    t, _ = build(name, torch)
    assert tuple(d.batch_shape) == tuple(t.batch_shape)
    assert tuple(d.event_shape) == tuple(t.event_shape)
    assert d.has_rsample == t.has_rsample
    v_tc, v_t = lib_tensors(tc, [value], False)[0], lib_tensors(torch, [value], False)[0]
    close(d.log_prob(v_tc), t.log_prob(v_t))
    if name not in NO_ENTROPY:
        # torch's Multinomial entropy takes lgamma(total_count + 1) in float32
        close(d.entropy(), t.entropy(), rtol=1e-6 if name == "Multinomial" else 1e-9)
    else:
        with pytest.raises(NotImplementedError):
            t.entropy()
        with pytest.raises(NotImplementedError):
            d.entropy()
    if name not in NO_MOMENTS:
        close(d.mean, t.mean)
        close(d.variance, t.variance)
        close(d.stddev, t.stddev)
    if "mode" in extra:
        close(d.mode, t.mode)
    if "cdf" in extra:
        close(d.cdf(v_tc), t.cdf(v_t))
    if "icdf" in extra:
        u = np.array([0.1, 0.45, 0.9])
        close(d.icdf(tc.tensor(u)), t.icdf(torch.tensor(u)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_match_torch(name):
    _, _, mask, value, _ = CASES[name]
    outs = []
    for lib in (tc, torch):
        d, ps = build(name, lib, grad=True)
        v = lib_tensors(lib, [value], False)[0]
        loss = d.log_prob(v).sum()
        if name not in NO_ENTROPY:
            loss = loss + d.entropy().sum() * 0.5
        loss.backward()
        outs.append([p.grad for p, m in zip(ps, mask) if m])
    for g_tc, g_t in zip(*outs):
        close(g_tc, g_t, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", sorted(CASES))
def test_sample_shapes(name):
    d, _ = build(name, tc)
    t, _ = build(name, torch)
    tc.manual_seed(0)
    for shape in ((), (2,), (4, 1)):
        s = d.sample(shape)
        assert tuple(s.shape) == tuple(t.sample(shape).shape)
        if d.has_rsample:
            assert tuple(d.rsample(shape).shape) == tuple(s.shape)
        assert bool(d.support.check(s).all()) if not constraints.is_dependent(d.support) else True
    e = d.expand((5,) + tuple(d.batch_shape))
    assert tuple(e.batch_shape) == (5,) + tuple(d.batch_shape)
    assert tuple(e.sample().shape) == (5,) + tuple(d.batch_shape) + tuple(d.event_shape)


# ---------------------------------------------------------------- special functions
def test_lgamma_digamma_match_torch():
    from tc.distributions._special import digamma, lgamma
    x = np.concatenate([np.linspace(0.01, 30, 97), [1e-6, 0.5, 1, 2, 7.99, 8, 150.5, 1e4],
                        [-0.5, -1.3, -2.7, -7.25]])
    xt = tc.tensor(x)
    xt.requires_grad = True
    tt = torch.tensor(x, requires_grad=True)
    close(lgamma(xt), torch.lgamma(tt), rtol=1e-12, atol=1e-12)
    close(digamma(xt), torch.digamma(tt), rtol=1e-12, atol=1e-11)
    (lgamma(xt).sum() + digamma(xt).sum()).backward()
    (torch.lgamma(tt).sum() + torch.digamma(tt).sum()).backward()
    close(xt.grad, tt.grad, rtol=1e-9, atol=1e-9)
    # poles: inf for lgamma, as torch
    z = tc.tensor([0.0, -1.0, -3.0])
    assert np.all(np.isinf(to_np(lgamma(z))))
    assert to_np(digamma(tc.tensor([0.0])))[0] == -np.inf


def test_standard_gamma_grad_matches_torch():
    from tc.distributions._sampling import standard_gamma_grad
    a = np.array([0.1, 0.5, 1.0, 2.5, 5.0, 9.0, 20.0, 50.0])
    xs = np.array([0.05, 0.3, 0.9, 2.0, 6.0, 9.5, 18.0, 60.0])
    A, X = np.meshgrid(a, xs)
    got = standard_gamma_grad(tc.tensor(A.ravel()), tc.tensor(X.ravel()))
    want = torch._standard_gamma_grad(torch.tensor(A.ravel()), torch.tensor(X.ravel()))
    close(got, want, rtol=1e-9, atol=1e-12)


def test_cholesky_and_solves_match_torch():
    from tc.distributions._linalg import cholesky, cholesky_ex, solve_triangular
    A = R.normal(size=(2, 4, 4))
    spd = A @ np.swapaxes(A, -1, -2) + 4 * np.eye(4)
    a = tc.tensor(spd)
    a.requires_grad = True
    ta = torch.tensor(spd, requires_grad=True)
    L, tL = cholesky(a), torch.linalg.cholesky(ta)
    close(L, tL, rtol=1e-10, atol=1e-12)
    b = R.normal(size=(2, 4, 3))
    X = solve_triangular(L, tc.tensor(b))
    tX = torch.linalg.solve_triangular(tL, torch.tensor(b), upper=False)
    close(X, tX, rtol=1e-10, atol=1e-12)
    (X * X).sum().backward()
    (tX * tX).sum().backward()
    close(a.grad, ta.grad, rtol=1e-8, atol=1e-10)
    assert not bool(cholesky_ex(tc.tensor([[1.0, 2.0], [2.0, 1.0]]))[1])
    with pytest.raises(RuntimeError):
        cholesky(tc.tensor([[1.0, 2.0], [2.0, 1.0]]))


# ---------------------------------------------------------------- MultivariateNormal
def test_multivariate_normal_parameterizations():
    A = R.normal(size=(3, 3))
    cov = A @ A.T + np.eye(3)
    prec = np.linalg.inv(cov)
    loc = R.normal(size=3)
    x = R.normal(size=(5, 3))
    for kw, arr in (("covariance_matrix", cov), ("precision_matrix", prec), ("scale_tril", np.linalg.cholesky(cov))):
        m = tc.tensor(arr)
        m.requires_grad = True
        tm = torch.tensor(arr, requires_grad=True)
        d = D.MultivariateNormal(tc.tensor(loc), **{kw: m})
        t = TD.MultivariateNormal(torch.tensor(loc), **{kw: tm})
        close(d.log_prob(tc.tensor(x)), t.log_prob(torch.tensor(x)), rtol=1e-9)
        close(d.entropy(), t.entropy())
        close(d.covariance_matrix, t.covariance_matrix, rtol=1e-9)
        close(d.precision_matrix, t.precision_matrix, rtol=1e-8, atol=1e-10)
        close(d.scale_tril, t.scale_tril, rtol=1e-9, atol=1e-12)
        close(d.variance, t.variance, rtol=1e-9)
        (d.log_prob(tc.tensor(x)).sum() + d.entropy()).backward()
        (t.log_prob(torch.tensor(x)).sum() + t.entropy()).backward()
        close(m.grad, tm.grad, rtol=1e-7, atol=1e-9)
    with pytest.raises(ValueError):
        D.MultivariateNormal(tc.tensor(loc))
    with pytest.raises(ValueError):
        D.MultivariateNormal(tc.tensor(loc), covariance_matrix=tc.tensor([[1.0, 2.0, 0], [2.0, 1.0, 0], [0, 0, 1.]]))


# ---------------------------------------------------------------- sampling statistics
N = 20000


def _check_moments(samples, mean, var, sigmas=5.0):
    """Sample mean within `sigmas` standard errors (from the true variance) of
    `mean`, and sample variance within `sigmas` standard errors of `var`, the
    latter's error estimated from the sample's fourth central moment."""
    s = to_np(samples)
    n = s.shape[0]
    mean, var = np.broadcast_to(mean, s.shape[1:]), np.broadcast_to(var, s.shape[1:])
    se = np.sqrt(var / n)
    assert np.all(np.abs(s.mean(0) - mean) <= sigmas * se + 1e-12), (s.mean(0), mean, se)
    centered = s - s.mean(0)
    s2 = (centered ** 2).mean(0)
    m4 = (centered ** 4).mean(0)
    se_var = np.sqrt(np.maximum(m4 - s2 ** 2, 0) / n)
    assert np.all(np.abs(s2 - var) <= sigmas * se_var + 1e-12), (s2, var, se_var)


MOMENT_CASES = {
    "Normal": lambda: D.Normal(tc.tensor([0.5, -2.0]), tc.tensor([1.0, 3.0])),
    "Uniform": lambda: D.Uniform(tc.tensor([0.0, -1.0]), tc.tensor([1.0, 5.0])),
    "Exponential": lambda: D.Exponential(tc.tensor([0.5, 3.0])),
    "Laplace": lambda: D.Laplace(tc.tensor([1.0, -1.0]), tc.tensor([0.5, 2.0])),
    "Gamma": lambda: D.Gamma(tc.tensor([0.05, 0.7, 1.0, 3.5, 40.0]), tc.tensor([1.0, 2.0, 0.5, 1.0, 3.0])),
    "Chi2": lambda: D.Chi2(tc.tensor([1.0, 7.0])),
    "Beta": lambda: D.Beta(tc.tensor([0.3, 2.0, 9.0]), tc.tensor([0.5, 5.0, 1.5])),
    "Dirichlet": lambda: D.Dirichlet(tc.tensor([[0.4, 1.0, 3.0], [5.0, 5.0, 0.2]])),
    "Poisson": lambda: D.Poisson(tc.tensor([0.0, 0.3, 4.0, 9.99, 10.0, 37.0, 500.0])),
    "Binomial": lambda: D.Binomial(tc.tensor([1.0, 10.0, 30.0, 200.0, 1000.0, 50.0]),
                                   tc.tensor([0.3, 0.5, 0.9, 0.07, 0.4, 0.0])),
    "Geometric": lambda: D.Geometric(tc.tensor([0.2, 0.9])),
    "Bernoulli": lambda: D.Bernoulli(tc.tensor([0.1, 0.5, 0.99])),
    "Categorical": None,
    "Multinomial": lambda: D.Multinomial(9, tc.tensor([0.2, 0.3, 0.5])),
    "OneHotCategorical": lambda: D.OneHotCategorical(tc.tensor([0.1, 0.6, 0.3])),
    "StudentT": lambda: D.StudentT(tc.tensor([9.0, 12.0]), tc.tensor([1.0, -1.0]), tc.tensor([2.0, 0.5])),
    "LogNormal": lambda: D.LogNormal(tc.tensor([0.0, 1.0]), tc.tensor([0.25, 0.5])),
    "HalfNormal": lambda: D.HalfNormal(tc.tensor([1.0, 3.0])),
    "Gumbel": lambda: D.Gumbel(tc.tensor([1.0, -2.0]), tc.tensor([2.0, 0.5])),
    "MultivariateNormal": lambda: D.MultivariateNormal(
        tc.tensor([1.0, -1.0]), covariance_matrix=tc.tensor([[2.0, 0.8], [0.8, 1.0]])),
    "MixtureSameFamily": lambda: D.MixtureSameFamily(D.Categorical(tc.tensor([0.3, 0.7])),
                                                     D.Normal(tc.tensor([-2.0, 3.0]), tc.tensor([1.0, 0.5]))),
}
del MOMENT_CASES["Categorical"]


@pytest.mark.parametrize("name", sorted(MOMENT_CASES))
def test_sample_moments(name):
    d = MOMENT_CASES[name]()
    if type(d).sample is not D.Distribution.sample or not d.has_rsample:
        tc.manual_seed(1234)  # sample has its own code: check it too
        _check_moments(d.sample((N,)), to_np(d.mean), to_np(d.variance))
    if d.has_rsample:
        tc.manual_seed(99)
        _check_moments(d.rsample((N,)), to_np(d.mean), to_np(d.variance))


def test_sampling_is_seeded():
    for make in (MOMENT_CASES["Gamma"], MOMENT_CASES["Poisson"], MOMENT_CASES["Binomial"]):
        d = make()
        tc.manual_seed(5)
        a = to_np(d.sample((50,)))
        tc.manual_seed(5)
        b = to_np(d.sample((50,)))
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("rate", [0.7, 6.0, 23.0])
def test_poisson_sampler_matches_pmf(rate):
    tc.manual_seed(11)
    s = to_np(D.Poisson(tc.tensor(rate)).sample((N,)))
    _check_pmf(s, TD.Poisson(torch.tensor(rate), validate_args=False))


@pytest.mark.parametrize("n,p", [(8, 0.3), (40, 0.6), (300, 0.2)])
def test_binomial_sampler_matches_pmf(n, p):
    tc.manual_seed(12)
    s = to_np(D.Binomial(n, tc.tensor(p)).sample((N,)))
    _check_pmf(s, TD.Binomial(n, torch.tensor(p), validate_args=False))


def _check_pmf(s, t):
    """Every value's observed frequency within 5 sigma of its pmf."""
    assert np.all(s == np.round(s)) and s.min() >= 0
    ks = np.arange(0, int(s.max()) + 3)
    pmf = t.log_prob(torch.tensor(ks, dtype=torch.float64)).exp().numpy()
    freq = np.array([(s == k).mean() for k in ks])
    se = np.sqrt(pmf * (1 - pmf) / len(s))
    assert np.all(np.abs(freq - pmf) <= 5 * se + 1e-4), (freq, pmf)


@pytest.mark.parametrize("alpha", [0.2, 1.0, 4.5])
def test_gamma_sampler_matches_cdf(alpha):
    tc.manual_seed(13)
    s = to_np(D.Gamma(tc.tensor(alpha), tc.tensor(1.0)).sample((N,)))
    qs = np.array([0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 9.0])
    cdf = torch.special.gammainc(torch.tensor(alpha, dtype=torch.float64), torch.tensor(qs)).numpy()
    freq = np.array([(s <= q).mean() for q in qs])
    se = np.sqrt(cdf * (1 - cdf) / N)
    assert np.all(np.abs(freq - cdf) <= 5 * se + 1e-4), (freq, cdf)


# ---------------------------------------------------------------- reparameterized gradients
def test_normal_rsample_gradient_is_the_noise():
    loc, scale = tc.tensor([1.0, 2.0], dtype=tc.float64), tc.tensor([0.5, 3.0], dtype=tc.float64)
    loc.requires_grad = True
    scale.requires_grad = True
    tc.manual_seed(3)
    x = D.Normal(loc, scale).rsample((4,))
    x.sum().backward()
    eps = (to_np(x) - to_np(loc)) / to_np(scale)
    close(loc.grad, np.full(2, 4.0))
    close(scale.grad, eps.sum(0), rtol=1e-9)


@pytest.mark.parametrize("alpha", [0.3, 2.0, 15.0])
def test_gamma_rsample_gradient_is_unbiased(alpha):
    # d/dalpha E[X] = 1 / rate: the mean of the per-draw pathwise gradients
    # estimates it, within 5 standard errors
    a = tc.full((N,), alpha, dtype=tc.float64)
    a.requires_grad = True
    tc.manual_seed(21)
    x = D.Gamma(a, tc.tensor(2.0, dtype=tc.float64)).rsample()
    x.sum().backward()
    g = to_np(a.grad)
    assert np.all(np.isfinite(g)) and np.all(g > 0)
    assert abs(g.mean() - 0.5) <= 5 * g.std() / math.sqrt(N), (g.mean(), g.std())


def _unbiased(per_draw, want):
    g = to_np(per_draw)
    assert np.all(np.isfinite(g))
    assert np.all(np.abs(g.mean(0) - want) <= 5 * g.std(0) / math.sqrt(g.shape[0])), (g.mean(0), want)


def test_dirichlet_and_beta_rsample_gradients():
    # d/dc_j E[x_0] = (a0 - c_0) / a0^2 for j = 0, -c_0 / a0^2 otherwise
    c = tc.tensor([1.5, 3.0, 0.7], dtype=tc.float64).expand((N, 3)).clone()
    c.requires_grad = True
    tc.manual_seed(4)
    D.Dirichlet(c).rsample()[:, 0].sum().backward()
    a0 = 5.2
    _unbiased(c.grad, np.array([(a0 - 1.5) / a0 ** 2, -1.5 / a0 ** 2, -1.5 / a0 ** 2]))
    a = tc.full((N,), 2.0, dtype=tc.float64)
    b = tc.full((N,), 3.0, dtype=tc.float64)
    a.requires_grad = True
    b.requires_grad = True
    D.Beta(a, b).rsample().sum().backward()
    _unbiased(a.grad, 3.0 / 25.0)
    _unbiased(b.grad, -2.0 / 25.0)


# ---------------------------------------------------------------- kl_divergence
def _pair(ctor, *arrays):
    return ctor(D, *lib_tensors(tc, arrays, False)), ctor(TD, *lib_tensors(torch, arrays, False))


P1, P2 = R.uniform(0.5, 2.0, size=3), R.uniform(0.5, 2.0, size=3)
KL_SPECS = {
    "Normal": (lambda M, a, b: M.Normal(a, b), [REAL, P1], [REAL[::-1].copy(), P2]),
    "Bernoulli": (lambda M, p: M.Bernoulli(p), [PROB], [PROB[::-1].copy()]),
    "Beta": (lambda M, a, b: M.Beta(a, b), [P1, P2], [P2, P1]),
    "Binomial": (lambda M, p: M.Binomial(5, p), [PROB], [PROB[::-1].copy()]),
    "Categorical": (lambda M, p: M.Categorical(p), [SIMPLEX], [SIMPLEX[::-1].copy()]),
    "OneHotCategorical": (lambda M, p: M.OneHotCategorical(p), [SIMPLEX], [SIMPLEX[::-1].copy()]),
    "Dirichlet": (lambda M, a: M.Dirichlet(a), [np.stack([P1, P2])], [np.stack([P2, P1])]),
    "Exponential": (lambda M, r: M.Exponential(r), [P1], [P2]),
    "Gamma": (lambda M, a, b: M.Gamma(a, b), [P1, P2], [P2, P1]),
    "Gumbel": (lambda M, a, b: M.Gumbel(a, b), [REAL, P1], [REAL * 0.5, P2]),
    "Geometric": (lambda M, p: M.Geometric(p), [PROB], [PROB[::-1].copy()]),
    "HalfNormal": (lambda M, s: M.HalfNormal(s), [P1], [P2]),
    "Laplace": (lambda M, a, b: M.Laplace(a, b), [REAL, P1], [REAL * 2, P2]),
    "Poisson": (lambda M, r: M.Poisson(r), [P1], [P2]),
    "Uniform": (lambda M, a, b: M.Uniform(a, b), [np.zeros(3) - 1, P1], [np.zeros(3) - 2, P1 + P2]),
    "Cauchy": (lambda M, a, b: M.Cauchy(a, b), [REAL, P1], [REAL * 0.3, P2]),
    "LogNormal": (lambda M, a, b: M.LogNormal(a, b), [REAL, P1], [REAL * 0.3, P2]),
    "Independent": (lambda M, a, b: M.Independent(M.Normal(a, b), 1), [REAL, P1], [REAL * 0.3, P2]),
    "MultivariateNormal": (lambda M, m, L: M.MultivariateNormal(m, scale_tril=L),
                           [REAL, np.tril(R.normal(size=(3, 3))) + 2 * np.eye(3)],
                           [REAL * 0.5, np.tril(R.normal(size=(3, 3))) + 3 * np.eye(3)]),
}
# cross-family pairs torch registers: (p spec, q spec)
KL_CROSS = [("Normal", "Laplace"), ("Normal", "Gumbel"), ("Normal", "Exponential"), ("Normal", "Uniform"),
            ("Exponential", "Gamma"), ("Exponential", "Normal"), ("Exponential", "Gumbel"),
            ("Gamma", "Exponential"), ("Gamma", "Normal"), ("Gamma", "Gumbel"), ("Gamma", "Uniform"),
            ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Uniform"),
            ("Laplace", "Normal"), ("Laplace", "Gamma"), ("Gumbel", "Normal"), ("Gumbel", "Beta"),
            ("Uniform", "Normal"), ("Uniform", "Gumbel"), ("Uniform", "Gamma"), ("Uniform", "Exponential"),
            ("Uniform", "Beta"), ("Bernoulli", "Poisson"), ("Poisson", "Bernoulli"), ("Poisson", "Binomial"),
            ("Exponential", "Uniform"), ("Gamma", "Beta"), ("Laplace", "Exponential"), ("Normal", "Beta")]


@pytest.mark.parametrize("name", sorted(KL_SPECS))
def test_kl_same_family_matches_torch(name):
    ctor, pa, qa = KL_SPECS[name]
    (p, tp), (q, tq) = _pair(ctor, *pa), _pair(ctor, *qa)
    close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq), rtol=1e-8, atol=1e-10)
    close(D.kl_divergence(p, p), TD.kl_divergence(tp, tp), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("pname,qname", KL_CROSS)
def test_kl_cross_family_matches_torch(pname, qname):
    (p, tp), (q, tq) = _pair(KL_SPECS[pname][0], *KL_SPECS[pname][1]), _pair(KL_SPECS[qname][0], *KL_SPECS[qname][2])
    close(D.kl_divergence(p, q), TD.kl_divergence(tp, tq), rtol=1e-8, atol=1e-10)


def test_kl_gradients_and_registry():
    outs = []
    for M, lib in ((D, tc), (TD, torch)):
        a, b, c = lib_tensors(lib, [P1, P2, REAL], True)
        M.kl_divergence(M.Gamma(a, b), M.Gamma(b, a)).sum().backward()
        M.kl_divergence(M.Normal(c, a), M.Laplace(c * 0.5, b)).sum().backward()
        outs.append([a.grad, b.grad, c.grad])
    for x, y in zip(*outs):
        close(x, y, rtol=1e-8)
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.StudentT(2.0), D.Normal(0.0, 1.0))

    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, MyNormal)
    def _kl(p, q):
        return tc.zeros(())

    assert float(D.kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 2.0))) == 0.0
    p = D.Normal(0.0, 1.0)
    assert abs(float(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 1.0))) - 0.5) < 1e-12
    assert float(D.kl_divergence(p, p)) == 0.0


# ---------------------------------------------------------------- validation
def test_validate_args_errors_match_torch():
    for make in (lambda M: M.Normal(torch.tensor([0.0]) if M is TD else tc.tensor([0.0]),
                                    torch.tensor([-1.0]) if M is TD else tc.tensor([-1.0])),):
        with pytest.raises(ValueError) as e_tc:
            make(D)
        with pytest.raises(ValueError) as e_t:
            make(TD)
        assert "Expected parameter scale (Tensor of shape (1,)) of distribution Normal" in str(e_tc.value)
        assert str(e_t.value).split("but found")[0] == str(e_tc.value).split("but found")[0]
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="Uniform is not defined when low>= high"):
        D.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="Expected parameter probs"):
        D.Categorical(tc.tensor([0.5, -0.5]))
    with pytest.raises(ValueError, match="to be positive"):
        D.Geometric(tc.tensor([0.0]))
    d = D.Poisson(tc.tensor([2.0]))
    with pytest.raises(ValueError, match="Expected value argument .* to be within the support"):
        d.log_prob(tc.tensor([1.5]))
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        d.log_prob(1.0)
    with pytest.raises(ValueError, match="Value is not broadcastable"):
        D.Normal(tc.zeros(3), tc.ones(3)).log_prob(tc.zeros(4))
    with pytest.raises(ValueError, match="must match event_shape"):
        D.Dirichlet(tc.ones(3)).log_prob(tc.ones(4) / 4)
    # validation off: no error, and the default can be switched
    D.Normal(tc.tensor([0.0]), tc.tensor([-1.0]), validate_args=False)
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(tc.tensor([0.0]), tc.tensor([-1.0]))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(3)


def test_constraints_match_torch():
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, float("nan")])
    pairs = [("real", ()), ("positive", ()), ("nonnegative", ()), ("unit_interval", ()), ("boolean", ()),
             ("nonnegative_integer", ()), ("positive_integer", ()), ("greater_than", (0.5,)),
             ("greater_than_eq", (0.5,)), ("less_than", (1.0,)), ("interval", (-1.0, 1.0)),
             ("half_open_interval", (-1.0, 1.0)), ("integer_interval", (0, 1))]
    for name, args in pairs:
        c, tcn = getattr(constraints, name), getattr(TD.constraints, name)
        if args:
            c, tcn = c(*args), tcn(*args)
        np.testing.assert_array_equal(to_np(c.check(tc.tensor(x))), tcn.check(torch.tensor(x)).numpy())
        assert repr(c) == repr(tcn)
    mats = [np.eye(2), np.array([[1.0, 0.0], [2.0, 3.0]]), np.array([[1.0, 1.0], [0.0, 1.0]]),
            np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([[1.0, 2.0], [2.0, 1.0]])]
    for name in ("lower_cholesky", "lower_triangular", "positive_definite", "symmetric", "square"):
        for m in mats:
            assert bool(getattr(constraints, name).check(tc.tensor(m))) == bool(
                getattr(TD.constraints, name).check(torch.tensor(m))), (name, m)
    s = np.array([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])
    np.testing.assert_array_equal(to_np(constraints.simplex.check(tc.tensor(s))),
                                  TD.constraints.simplex.check(torch.tensor(s)).numpy())
    assert constraints.is_dependent(constraints.dependent)
    assert constraints.independent(constraints.positive, 1).event_dim == 1


# ---------------------------------------------------------------- transforms and wrappers
TRANSFORMS = [
    (lambda M: M.ExpTransform(), R.normal(size=(2, 3))),
    (lambda M: M.SigmoidTransform(), R.normal(size=(2, 3))),
    (lambda M: M.TanhTransform(), R.normal(size=(2, 3))),
    (lambda M: M.SoftplusTransform(), R.normal(size=(2, 3))),
    (lambda M: M.AffineTransform(1.5, -2.0), R.normal(size=(2, 3))),
    (lambda M: M.PowerTransform(2.5), R.uniform(0.5, 2, size=(2, 3))),
    (lambda M: M.StickBreakingTransform(), R.normal(size=(2, 3))),
    (lambda M: M.ComposeTransform([M.AffineTransform(0.3, 2.0), M.ExpTransform()]), R.normal(size=(2, 3))),
    (lambda M: M.ExpTransform().inv, R.uniform(0.5, 2, size=(2, 3))),
    (lambda M: M.IndependentTransform(M.SigmoidTransform(), 1), R.normal(size=(2, 3))),
]


@pytest.mark.parametrize("i", range(len(TRANSFORMS)))
def test_transforms_match_torch(i):
    make, x = TRANSFORMS[i]
    t, tt = make(T), make(TD.transforms)
    xt = tc.tensor(x)
    xt.requires_grad = True
    xtt = torch.tensor(x, requires_grad=True)
    y, ty = t(xt), tt(xtt)
    close(y, ty, rtol=1e-12)
    close(t.inv(y), tt.inv(ty), rtol=1e-9, atol=1e-12)
    ld, tld = t.log_abs_det_jacobian(xt, y), tt.log_abs_det_jacobian(xtt, ty)
    close(ld, tld, rtol=1e-9, atol=1e-12)
    (y.sum() + ld.sum()).backward()
    (ty.sum() + tld.sum()).backward()
    close(xt.grad, xtt.grad, rtol=1e-8, atol=1e-10)
    assert tuple(t.forward_shape((2, 3))) == tuple(tt.forward_shape(torch.Size((2, 3))))
    assert t.bijective == tt.bijective


def test_softmax_transform_and_transformed_distribution():
    x = R.normal(size=(2, 3))
    close(T.SoftmaxTransform()(tc.tensor(x)), TD.transforms.SoftmaxTransform()(torch.tensor(x)), rtol=1e-12)
    base_args = [REAL, P1]
    d = D.TransformedDistribution(D.Normal(*lib_tensors(tc, base_args, False)),
                                  [T.AffineTransform(0.5, -2.0), T.SigmoidTransform()])
    t = TD.TransformedDistribution(TD.Normal(*lib_tensors(torch, base_args, False)),
                                   [TD.transforms.AffineTransform(0.5, -2.0), TD.transforms.SigmoidTransform()])
    v = np.array([0.2, 0.5, 0.9])
    close(d.log_prob(tc.tensor(v)), t.log_prob(torch.tensor(v)), rtol=1e-9)
    close(d.cdf(tc.tensor(v)), t.cdf(torch.tensor(v)), rtol=1e-9)
    close(d.icdf(tc.tensor(v)), t.icdf(torch.tensor(v)), rtol=1e-9)
    d = D.TransformedDistribution(D.Normal(tc.zeros(3), tc.ones(3)), T.StickBreakingTransform())
    t = TD.TransformedDistribution(TD.Normal(torch.zeros(3, dtype=torch.float64),
                                             torch.ones(3, dtype=torch.float64)),
                                   TD.transforms.StickBreakingTransform())
    assert tuple(d.event_shape) == tuple(t.event_shape) == (4,)
    y = np.array([0.1, 0.2, 0.3, 0.4])
    close(d.log_prob(tc.tensor(y)), t.log_prob(torch.tensor(y)), rtol=1e-9)


def test_independent_and_mixture_match_torch():
    outs = []
    arrays = [R.normal(size=(2, 3)), R.uniform(0.5, 2, size=(2, 3)), R.uniform(0.1, 1, size=(2, 3))]
    for M, lib in ((D, tc), (TD, torch)):
        loc, scale, w = lib_tensors(lib, arrays, True)
        ind = M.Independent(M.Normal(loc, scale), 1)
        assert tuple(ind.batch_shape) == (2,) and tuple(ind.event_shape) == (3,)
        mix = M.MixtureSameFamily(M.Categorical(w), M.Normal(loc, scale))
        x = lib_tensors(lib, [np.array([[0.3, -1.0], [2.0, 0.1]])], False)[0]
        lp = mix.log_prob(x)
        v = ind.log_prob(lib_tensors(lib, [np.ones((2, 3)) * 0.2], False)[0])
        (lp.sum() + v.sum() + mix.mean.sum() + mix.variance.sum() + ind.entropy().sum()).backward()
        outs.append([lp, v, mix.mean, mix.variance, mix.cdf(x), loc.grad, scale.grad, w.grad])
    for a, b in zip(*outs):
        close(a, b, rtol=1e-8, atol=1e-10)


def test_enumerate_support_and_perplexity():
    for name in ("Bernoulli", "Categorical", "Binomial", "OneHotCategorical"):
        d, _ = build(name, tc)
        t, _ = build(name, torch)
        for expand in (True, False):
            close(d.enumerate_support(expand).double(), t.enumerate_support(expand).double())
    d, _ = build("Normal", tc)
    t, _ = build("Normal", torch)
    close(d.perplexity(), t.perplexity())
    assert repr(D.Normal(0.0, 1.0)) == repr(TD.Normal(0.0, 1.0))
    assert repr(D.Bernoulli(logits=tc.zeros(4))) == "Bernoulli(logits: tc.Size([4]))"


def test_import_path():
    import tc.distributions as td
    assert tc.distributions is td and td.Normal is D.Normal
    assert set(TD.__all__) >= {n for n in td.__all__ if not n.startswith("_")} - {"transforms", "constraints"}


def test_docstrings():
    import test_docstrings as docs
    from tc.distributions import constraint_registry, kl, utils
    missing = []
    for ns in (D, constraints, T, kl, utils, constraint_registry):
        for name in docs._public_names(ns):
            obj = getattr(ns, name, None)
            if isinstance(obj, (constraints.Constraint, T.Transform)):
                obj = type(obj)  # constraint and transform instances: check their classes
            if obj is None or not docs._ours(obj) or not callable(obj):
                continue
            if not (obj.__doc__ and obj.__doc__.strip()):
                missing.append(f"{ns.__name__}.{name}")
            if isinstance(obj, type):
                for cls in obj.__mro__:
                    if docs._ours(cls):
                        docs._class_members(cls, cls.__qualname__, missing)
    assert not sorted(set(missing)), sorted(set(missing))


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_log_prob_and_samples(name):
    ctor, params, _, value, _ = CASES[name]
    d = ctor(D, *[tc.tensor(np.asarray(p, dtype=np.float32)) for p in params])
    t = ctor(TD, *[torch.tensor(np.asarray(p, dtype=np.float32)) for p in params])
    v = np.asarray(value, dtype=np.float32)
    lp = d.log_prob(tc.tensor(v))
    assert lp.dtype == tc.float32
    close(lp, t.log_prob(torch.tensor(v)), rtol=2e-5, atol=2e-5)
    tc.manual_seed(2)
    s = d.sample((3,))
    assert str(s.dtype).split(".")[-1] == str(t.sample((3,)).dtype).split(".")[-1]
