"""tc.nn.utils against torch 1.13's torch.nn.utils: weight_norm and
spectral_norm (the hook forms: torch's parameter and buffer names, so state
dicts load both ways; float64 values and gradients), parametrize
(register/remove, chaining, right_inverse, caching, several originals),
parametrizations.spectral_norm, parameter vectors and gradient clipping."""
import inspect
import pickle
import warnings

import pytest

import tc
import tc.nn as nn
from tc.nn import utils
from tc.nn.utils import parametrizations, parametrize

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TN = torch.nn
TU = torch.nn.utils

R = np.random.default_rng(5)


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().astype(np.float64)
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def close(a, b, **kw):
    np.testing.assert_allclose(to_np(a), to_np(b), **(kw or dict(rtol=1e-10, atol=1e-12)))


def tc_of(t):
    return tc.tensor(t.detach().numpy())


def pair_linear(i=4, o=3):
    """A float64 torch Linear and a tc Linear with the same weights."""
    ref = TN.Linear(i, o).double()
    ours = nn.Linear(i, o).to(tc.float64)
    ours.load_state_dict({k: tc_of(v) for k, v in ref.state_dict().items()})
    return ours, ref


def pair_conv(cin=2, cout=3, k=3):
    ref = TN.Conv2d(cin, cout, k).double()
    ours = nn.Conv2d(cin, cout, k).to(tc.float64)
    ours.load_state_dict({k_: tc_of(v) for k_, v in ref.state_dict().items()})
    return ours, ref


def load_from(ours, ref):
    ours.load_state_dict({k: tc_of(v) for k, v in ref.state_dict().items()})


def same_forward_and_grads(ours, ref, x_shape):
    x = R.standard_normal(x_shape)
    xt, xr = tc.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yt, yr = ours(xt), ref(xr)
    close(yt, yr)
    g = R.standard_normal(tuple(yr.shape))
    yt.backward(tc.tensor(g))
    yr.backward(torch.tensor(g))
    close(xt.grad, xr.grad)
    ours_p = dict(ours.named_parameters())
    for name, p in ref.named_parameters():
        close(ours_p[name].grad, p.grad)


# ------------------------------------------------------------ weight_norm

@pytest.mark.parametrize("dim", [0, 1, None, -2])
def test_weight_norm_linear(dim):
    ours, ref = pair_linear()
    utils.weight_norm(ours, dim=dim)
    TU.weight_norm(ref, dim=dim)
    assert list(ours.state_dict()) == list(ref.state_dict()) == ["bias", "weight_g", "weight_v"]
    for k, v in ref.state_dict().items():
        assert tuple(ours.state_dict()[k].shape) == tuple(v.shape), k
        close(ours.state_dict()[k], v)
    assert "weight" not in dict(ours.named_parameters())
    same_forward_and_grads(ours, ref, (5, 4))


def test_weight_norm_conv_recomputes_each_forward_and_removes():
    ours, ref = pair_conv()
    utils.weight_norm(ours, name="weight", dim=1)
    TU.weight_norm(ref, name="weight", dim=1)
    with torch.no_grad():
        ref.weight_g.mul_(1.5)
    load_from(ours, ref)  # a state dict of torch's loads into tc's module
    same_forward_and_grads(ours, ref, (2, 2, 5, 5))
    utils.remove_weight_norm(ours)
    TU.remove_weight_norm(ref)
    assert list(ours.state_dict()) == list(ref.state_dict()) == ["bias", "weight"]
    assert isinstance(ours.weight, nn.Parameter)
    close(ours.weight, ref.weight)
    same_forward_and_grads(ours, ref, (1, 2, 4, 4))


def test_weight_norm_errors():
    m = nn.Linear(3, 2)
    utils.weight_norm(m)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        utils.weight_norm(m)
    with pytest.raises(ValueError, match="weight_norm of 'bias' not found"):
        utils.remove_weight_norm(m, "bias")
    utils.remove_weight_norm(m)
    with pytest.raises(ValueError, match="not found"):
        utils.remove_weight_norm(m)


# ------------------------------------------------------------ spectral_norm (hook form)

def test_spectral_norm_linear_train_and_eval():
    ours, ref = pair_linear(5, 4)
    utils.spectral_norm(ours)
    TU.spectral_norm(ref)
    assert list(ours.state_dict()) == list(ref.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    load_from(ours, ref)
    for _ in range(2):  # training: one power iteration per forward, u and v updated in place
        same_forward_and_grads(ours, ref, (3, 5))
        close(ours.weight_u, ref.weight_u)
        close(ours.weight_v, ref.weight_v)
        ours.zero_grad()
        ref.zero_grad()
    ours.eval()
    ref.eval()
    u = to_np(ours.weight_u)
    same_forward_and_grads(ours, ref, (3, 5))
    assert np.array_equal(to_np(ours.weight_u), u)  # eval: no iteration


def gapped_linear(i, o):
    """A float64 Linear whose weight has singular values 4, 2, 1, ... (power
    iteration converges like 2^-k)."""
    m = nn.Linear(i, o).to(tc.float64)
    u = np.linalg.qr(R.standard_normal((o, o)))[0]
    v = np.linalg.qr(R.standard_normal((i, i)))[0]
    s = np.zeros((o, i))
    np.fill_diagonal(s, 4.0 / 2.0 ** np.arange(min(i, o)))
    m.load_state_dict({"weight": tc.tensor(u @ s @ v.T), "bias": m.bias.detach()})
    return m


def test_spectral_norm_normalizes_largest_singular_value():
    m = gapped_linear(6, 4)
    utils.spectral_norm(m, n_power_iterations=20)
    for _ in range(3):
        m(tc.zeros(1, 6, dtype="float64"))
    s = np.linalg.svd(to_np(m.weight), compute_uv=False)
    assert abs(s[0] - 1.0) < 1e-9


def test_spectral_norm_conv_dims_and_remove():
    ours, ref = pair_conv()
    utils.spectral_norm(ours, n_power_iterations=2)
    TU.spectral_norm(ref, n_power_iterations=2)
    assert tuple(ours.weight_u.shape) == (3,) and tuple(ours.weight_v.shape) == (18,)
    load_from(ours, ref)
    same_forward_and_grads(ours, ref, (2, 2, 5, 5))
    utils.remove_spectral_norm(ours)
    TU.remove_spectral_norm(ref)
    assert list(ours.state_dict()) == list(ref.state_dict())
    close(ours.weight, ref.weight)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        utils.remove_spectral_norm(ours)


def test_spectral_norm_transposed_conv_uses_dim_1():
    if not hasattr(nn, "ConvTranspose2d"):
        pytest.skip("no ConvTranspose2d")
    m = nn.ConvTranspose2d(2, 5, 3)
    utils.spectral_norm(m)
    assert tuple(m.weight_u.shape) == (5,) and tuple(m.weight_v.shape) == (18,)


def test_spectral_norm_errors():
    m = nn.Linear(3, 2)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        utils.spectral_norm(m, n_power_iterations=0)
    utils.spectral_norm(m)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        utils.spectral_norm(m)
    with pytest.raises(KeyError):
        utils.spectral_norm(nn.Linear(3, 2), name="nothing")


# ------------------------------------------------------------ parametrize

class Symmetric(nn.Module):
    """X -> triu(X) + triu(X, 1)^T."""

    def forward(self, x):
        return x.triu() + x.triu(1).transpose(0, 1)


class TSymmetric(TN.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).transpose(0, 1)


class Scale(nn.Module):
    """X -> 2 X, with a right inverse."""

    def forward(self, x):
        return x * 2

    def right_inverse(self, x):
        return x / 2


class TScale(TN.Module):
    def forward(self, x):
        return x * 2

    def right_inverse(self, x):
        return x / 2


def test_register_parametrization_matches_torch():
    ours, ref = pair_linear(3, 3)
    parametrize.register_parametrization(ours, "weight", Symmetric())
    TU.parametrize.register_parametrization(ref, "weight", TSymmetric())
    assert type(ours).__name__ == type(ref).__name__ == "ParametrizedLinear"
    assert isinstance(ours, nn.Linear)
    assert list(ours.state_dict()) == list(ref.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert sorted(n for n, _ in ours.named_parameters()) == sorted(n for n, _ in ref.named_parameters())
    w = to_np(ours.weight)
    assert np.array_equal(w, w.T)
    close(ours.weight, ref.weight)
    same_forward_and_grads(ours, ref, (4, 3))
    assert parametrize.is_parametrized(ours) and parametrize.is_parametrized(ours, "weight")
    assert not parametrize.is_parametrized(ours, "bias")
    assert parametrize.type_before_parametrizations(ours) is nn.Linear
    assert nn.Linear(2, 2).__class__ is nn.Linear  # the class itself is untouched


def test_chained_parametrizations_and_right_inverse():
    ours, ref = pair_linear(3, 3)
    for m, mods in ((ours, (Scale(), Symmetric())), (ref, (TScale(), TSymmetric()))):
        reg = parametrize.register_parametrization if m is ours else TU.parametrize.register_parametrization
        reg(m, "weight", mods[0])
        reg(m, "weight", mods[1])
    close(ours.parametrizations.weight.original, ref.parametrizations.weight.original)
    close(ours.weight, ref.weight)
    same_forward_and_grads(ours, ref, (2, 3))
    assert len(ours.parametrizations.weight) == 2
    # assigning runs right_inverse (Symmetric has none: an error, as torch)
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        ours.weight = tc.ones(3, 3, dtype="float64")


def test_assignment_sets_original_through_right_inverse():
    m = nn.Linear(3, 2).to(tc.float64)
    parametrize.register_parametrization(m, "weight", Scale())
    original = m.parametrizations.weight.original
    value = tc.tensor(R.standard_normal((2, 3)))
    m.weight = value
    assert m.parametrizations.weight.original is original  # same object, new values
    close(m.parametrizations.weight.original, value / 2)
    close(m.weight, value)
    m.weight = nn.Parameter(value * 3)  # a Parameter too goes through right_inverse
    close(m.weight, value * 3)
    assert "weight" not in m._parameters


def test_cached():
    calls = []

    class Counting(nn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 1

    m = nn.Linear(2, 2)
    parametrize.register_parametrization(m, "weight", Counting())
    calls.clear()
    m.weight
    m.weight
    assert len(calls) == 2
    calls.clear()
    with parametrize.cached():
        a = m.weight
        b = m.weight
        assert a is b
    assert len(calls) == 1


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations(leave):
    ours, ref = pair_linear(3, 3)
    parametrize.register_parametrization(ours, "weight", Symmetric())
    TU.parametrize.register_parametrization(ref, "weight", TSymmetric())
    parametrize.remove_parametrizations(ours, "weight", leave_parametrized=leave)
    TU.parametrize.remove_parametrizations(ref, "weight", leave_parametrized=leave)
    assert type(ours) is nn.Linear
    assert not hasattr(ours, "parametrizations")
    assert list(ours.state_dict()) == list(ref.state_dict())
    assert isinstance(ours.weight, nn.Parameter)
    close(ours.weight, ref.weight)
    same_forward_and_grads(ours, ref, (2, 3))
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(ours, "weight")


def test_buffer_parametrization_and_pickling():
    m = nn.Linear(2, 2)
    m.register_buffer("scale", tc.ones(2))
    parametrize.register_parametrization(m, "scale", Scale())
    assert "parametrizations.scale.original" in m.state_dict()
    assert to_np(m.scale).tolist() == [1.0, 1.0]
    assert to_np(m.parametrizations.scale.original).tolist() == [0.5, 0.5]
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)


def test_several_originals():
    class Split(nn.Module):
        """(A, B) -> A + B; right_inverse gives (X, 0)."""

        def forward(self, a, b):
            return a + b

        def right_inverse(self, x):
            return x, tc.zeros_like(x)

    m = nn.Linear(3, 2)
    w = to_np(m.weight)
    parametrize.register_parametrization(m, "weight", Split())
    keys = list(m.state_dict())
    assert "parametrizations.weight.original0" in keys and "parametrizations.weight.original1" in keys
    assert isinstance(m.parametrizations.weight.original1, nn.Parameter)
    np.testing.assert_allclose(to_np(m.weight), w)
    with pytest.raises(ValueError, match="sequence of tensors"):
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)


def test_parametrization_errors():
    class Shrink(nn.Module):
        def forward(self, x):
            return x[:1]

    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(nn.Linear(3, 2), "weight", Shrink())
    m = nn.Linear(3, 2)
    parametrize.register_parametrization(m, "weight", Shrink(), unsafe=True)
    assert tuple(m.weight.shape) == (1, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        parametrize.register_parametrization(nn.Linear(3, 2), "nothing", Scale())


def test_transfer_parametrizations_and_params():
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    parametrize.register_parametrization(a, "weight", Symmetric())
    parametrize.transfer_parametrizations_and_params(a, b)
    assert parametrize.is_parametrized(b, "weight")
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    np.testing.assert_allclose(to_np(b.weight), to_np(a.weight))


# ------------------------------------------------------------ parametrizations.spectral_norm

def test_parametrizations_spectral_norm_matches_torch():
    ours, ref = pair_linear(5, 4)
    parametrizations.spectral_norm(ours)
    TU.parametrizations.spectral_norm(ref)
    assert list(ours.state_dict()) == list(ref.state_dict()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    load_from(ours, ref)
    for _ in range(2):
        same_forward_and_grads(ours, ref, (3, 5))
        close(ours.parametrizations.weight[0]._u, ref.parametrizations.weight[0]._u)
        ours.zero_grad()
        ref.zero_grad()
    ours.eval()
    ref.eval()
    same_forward_and_grads(ours, ref, (3, 5))
    parametrize.remove_parametrizations(ours, "weight")
    TU.parametrize.remove_parametrizations(ref, "weight")
    close(ours.weight, ref.weight)


def test_parametrizations_spectral_norm_initial_estimate_and_errors():
    m = gapped_linear(8, 6)
    parametrizations.spectral_norm(m)  # 15 power iterations at registration
    for _ in range(30):
        m(tc.zeros(1, 8, dtype="float64"))
    s = np.linalg.svd(to_np(m.weight), compute_uv=False)
    assert abs(s[0] - 1.0) < 1e-9
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nothing'"):
        parametrizations.spectral_norm(nn.Linear(2, 2), "nothing")
    with pytest.raises(IndexError, match="Dimension out of range"):
        parametrizations.spectral_norm(nn.Linear(2, 2), dim=2)
    v = nn.Linear(3, 1)
    v.register_parameter("vec", nn.Parameter(tc.tensor([3.0, 4.0])))
    parametrizations.spectral_norm(v, "vec")  # a 1-D tensor is just normalized
    np.testing.assert_allclose(to_np(v.vec), [0.6, 0.8], rtol=1e-6)


def _orthonormal(w):
    w = to_np(w)
    gram = w.T @ w if w.shape[-2] >= w.shape[-1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(gram.shape[0]), atol=1e-10)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_orthogonal_matches_torch(orthogonal_map, shape):
    ours, ref = pair_linear(shape[1], shape[0])
    parametrizations.orthogonal(ours, orthogonal_map=orthogonal_map)
    TU.parametrizations.orthogonal(ref, orthogonal_map=orthogonal_map)
    assert list(ours.state_dict()) == list(ref.state_dict())
    _orthonormal(ours.weight)
    if shape[0] == shape[1]:  # no random completion: the same base as torch's
        close(ours.weight, ref.weight, rtol=1e-9, atol=1e-12)
    # a point away from the base: torch's values loaded, then values and gradients
    sd = ref.state_dict()
    sd["parametrizations.weight.original"] = sd["parametrizations.weight.original"] + \
        0.3 * torch.tensor(R.standard_normal(tuple(sd["parametrizations.weight.original"].shape)))
    ref.load_state_dict(sd)
    load_from(ours, ref)
    close(ours.weight, ref.weight, rtol=1e-9, atol=1e-12)
    if orthogonal_map != "householder":  # (torch's householder map scales by int(diagonal), 0 here)
        _orthonormal(ours.weight)
    same_forward_and_grads(ours, ref, (2, shape[1]))


def test_orthogonal_householder_without_trivialization():
    ours, ref = pair_linear(3, 5)
    parametrizations.orthogonal(ours, orthogonal_map="householder", use_trivialization=False)
    TU.parametrizations.orthogonal(ref, orthogonal_map="householder", use_trivialization=False)
    assert list(ours.state_dict()) == list(ref.state_dict()) == ["bias", "parametrizations.weight.original"]
    close(ours.parametrizations.weight.original, ref.parametrizations.weight.original, rtol=1e-9, atol=1e-12)
    close(ours.weight, ref.weight, rtol=1e-9, atol=1e-12)
    same_forward_and_grads(ours, ref, (2, 3))
    for orthogonal_map in ("cayley", "matrix_exp"):
        ours, ref = pair_linear(3, 3)
        parametrizations.orthogonal(ours, orthogonal_map=orthogonal_map, use_trivialization=False)
        TU.parametrizations.orthogonal(ref, orthogonal_map=orthogonal_map, use_trivialization=False)
        assert list(ours.state_dict()) == list(ref.state_dict())
        close(ours.weight, ref.weight, rtol=1e-9, atol=1e-12)  # the weight itself as the original
        with pytest.raises(NotImplementedError, match="not possible to assign"):
            ours.weight = tc.zeros(3, 3, dtype="float64")


def test_orthogonal_assignment_and_errors():
    m = nn.Linear(4, 4).to(tc.float64)
    parametrizations.orthogonal(m)
    q = tc.tensor(np.linalg.qr(R.standard_normal((4, 4)))[0])
    m.weight = q  # already orthogonal: becomes the base as is
    close(m.weight, q, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        m.weight = tc.zeros(3, 4, dtype="float64")
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        parametrizations.orthogonal(nn.Linear(3, 1), "bias")
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")


# ------------------------------------------------------------ vectors and clipping

def test_parameters_to_vector_and_back():
    ours, ref = pair_linear(3, 2)
    v = utils.parameters_to_vector(ours.parameters())
    close(v, TU.parameters_to_vector(ref.parameters()))
    new = R.standard_normal(v.numel())
    utils.vector_to_parameters(tc.tensor(new), ours.parameters())
    TU.vector_to_parameters(torch.tensor(new), ref.parameters())
    for (n, p), (_, q) in zip(ours.named_parameters(), ref.named_parameters()):
        close(p, q)
    with pytest.raises(TypeError):
        utils.vector_to_parameters([1.0], ours.parameters())


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
def test_clip_grad_norm(norm_type):
    grads = [R.standard_normal((3, 2)) * 4, R.standard_normal(5)]
    ours = [tc.zeros(*g.shape, dtype="float64", requires_grad=True) for g in grads]
    ref = [torch.zeros(*g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
    for p, q, g in zip(ours, ref, grads):
        p.grad = tc.tensor(g)
        q.grad = torch.tensor(g)
    close(utils.clip_grad_norm_(ours, 1.5, norm_type), TU.clip_grad_norm_(ref, 1.5, norm_type))
    for p, q in zip(ours, ref):
        close(p.grad, q.grad)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        close(utils.clip_grad_norm(ours, 0.5, norm_type), TU.clip_grad_norm_(ref, 0.5, norm_type))
    assert any("deprecated" in str(x.message) for x in w)


def test_clip_grad_value():
    g = R.standard_normal((4, 3)) * 2
    p = tc.zeros(4, 3, dtype="float64", requires_grad=True)
    q = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
    p.grad, q.grad = tc.tensor(g), torch.tensor(g)
    utils.clip_grad_value_([p], 0.7)
    TU.clip_grad_value_([q], 0.7)
    close(p.grad, q.grad)


def test_skip_init():
    m = utils.skip_init(nn.Linear, 3, 4, bias=False)
    assert isinstance(m, nn.Linear) and tuple(m.weight.shape) == (4, 3) and m.bias is None
    with pytest.raises(RuntimeError, match="Expected a Module"):
        utils.skip_init(int)


def test_torch_names_importable():
    for name in ("weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm", "parametrize",
                 "parametrizations", "parameters_to_vector", "vector_to_parameters", "clip_grad_norm_",
                 "clip_grad_value_", "clip_grad_norm", "skip_init"):
        assert hasattr(utils, name), name
    from tc.nn.utils.spectral_norm import SpectralNorm  # noqa: F401
    from tc.nn.utils.weight_norm import WeightNorm  # noqa: F401
    for name in TU.parametrize.__all__:
        assert hasattr(parametrize, name), name


def test_new_modules_are_documented():
    import sys
    # (the package's names spectral_norm and weight_norm are the functions, as in torch)
    misc, sn, wn = (sys.modules["tc.nn.utils." + n] for n in ("misc", "spectral_norm", "weight_norm"))
    missing = []
    for mod in (parametrize, parametrizations, sn, wn, misc, utils.fusion, utils.stateless):
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if not (obj.__doc__ or "").strip():
                missing.append("%s.%s" % (mod.__name__, name))
            if inspect.isclass(obj):
                for k, v in vars(obj).items():
                    if (not k.startswith("_") or k == "__call__") and inspect.isfunction(v) \
                            and not (v.__doc__ or "").strip():
                        missing.append("%s.%s.%s" % (mod.__name__, name, k))
    assert not missing, missing


# ------------------------------------------------------------ fusion and functional_call

def _bn_pair(kind, channels):
    ref = getattr(TN, kind)(channels).double()
    with torch.no_grad():
        ref.running_mean.copy_(torch.tensor(R.standard_normal(channels)))
        ref.running_var.copy_(torch.tensor(R.random(channels) + 0.5))
        ref.weight.copy_(torch.tensor(R.standard_normal(channels)))
        ref.bias.copy_(torch.tensor(R.standard_normal(channels)))
    ours = getattr(nn, kind)(channels).to(tc.float64)
    ours.load_state_dict({k: tc_of(v).to(ours.state_dict()[k].dtype) for k, v in ref.state_dict().items()})
    for name in ("running_mean", "running_var"):  # (Module.to converts parameters only)
        ours.register_buffer(name, tc_of(getattr(ref, name)))
    return ours.eval(), ref.eval()


def test_fuse_conv_bn_eval():
    conv, tconv = pair_conv(2, 3)
    bn, tbn = _bn_pair("BatchNorm2d", 3)
    conv.eval()
    tconv.eval()
    fused, tfused = utils.fuse_conv_bn_eval(conv, bn), TU.fuse_conv_bn_eval(tconv, tbn)
    close(fused.weight, tfused.weight)
    close(fused.bias, tfused.bias)
    assert isinstance(fused.weight, nn.Parameter) and fused is not conv
    x = R.standard_normal((1, 2, 5, 5))
    close(fused(tc.tensor(x)), bn(conv(tc.tensor(x))), rtol=1e-10, atol=1e-12)
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        utils.fuse_conv_bn_eval(conv.train(), bn)


def test_fuse_linear_bn_eval():
    lin, tlin = pair_linear(4, 3)
    bn, tbn = _bn_pair("BatchNorm1d", 3)
    lin.eval()
    tlin.eval()
    fused, tfused = utils.fusion.fuse_linear_bn_eval(lin, bn), TU.fusion.fuse_linear_bn_eval(tlin, tbn)
    close(fused.weight, tfused.weight)
    close(fused.bias, tfused.bias)


def test_functional_call():
    ours, ref = pair_linear(3, 2)
    w = R.standard_normal((2, 3))
    x = R.standard_normal((4, 3))
    wt, wr = tc.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    yt = utils.stateless.functional_call(ours, {"weight": wt}, (tc.tensor(x),))
    yr = TU.stateless.functional_call(ref, {"weight": wr}, (torch.tensor(x),))
    close(yt, yr)
    yt.sum().backward()
    yr.sum().backward()
    close(wt.grad, wr.grad)
    assert ours.weight.grad is None
    close(ours.weight, ref.weight)  # the module's own weight is back
    seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    before = to_np(seq(tc.ones(1, 3)))
    zero = {"0.weight": tc.zeros(3, 3), "0.bias": tc.zeros(3)}
    assert not to_np(utils.stateless.functional_call(seq, zero, tc.ones(1, 3))).any()
    np.testing.assert_array_equal(to_np(seq(tc.ones(1, 3))), before)


def test_parametrized_module_deepcopies():
    import copy
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", Symmetric())
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear" and list(c.state_dict()) == list(m.state_dict())
    np.testing.assert_array_equal(to_np(c.weight), to_np(m.weight))
    c.parametrizations.weight.original.detach().add_(1.0)  # its own copy of the original
    assert not np.array_equal(to_np(c.weight), to_np(m.weight))
