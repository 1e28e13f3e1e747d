"""Parity of the losses and distances (tc.nn.functional and the tc.nn loss
modules) with PyTorch 1.13: values for every reduction, float32 and float64,
and float64 gradients against torch.autograd, over class weights,
ignore_index, label smoothing, probability targets, N-d inputs, broadcasting,
non-contiguous, 0-d and empty inputs."""
import math

import pytest

import tc
import tc.nn as nn
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional

TOL = {np.float64: dict(rtol=1e-7, atol=1e-9), np.float32: dict(rtol=2e-5, atol=2e-6)}
REDUCTIONS = ["none", "mean", "sum"]
R = np.random.default_rng(12)


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def check(f_tc, f_torch, arrays, grad_args=None, dtypes=(np.float64, np.float32), transpose=()):
    """Runs f on tc and torch tensors made from the same arrays (float arrays
    in each dtype; indices in `transpose` are made non-contiguous), compares
    outputs, then float64 gradients of the float inputs (or grad_args)."""
    for dt in dtypes:
        arrs = [a.astype(dt) if a.dtype.kind == "f" else a for a in arrays]
        tcs = [tc.tensor(a) for a in arrs]
        ths = [torch.tensor(a) for a in arrs]
        for i in transpose:  # same values, a transposed layout
            tcs[i] = tc.tensor(np.ascontiguousarray(arrs[i].T)).transpose(0, 1)
            ths[i] = torch.tensor(np.ascontiguousarray(arrs[i].T)).transpose(0, 1)
            assert not tcs[i].is_contiguous()
        floats = [i for i, a in enumerate(arrs) if a.dtype.kind == "f"]
        if grad_args is not None:
            floats = [i for i in floats if i in grad_args]
        do_grad = dt == np.float64 and floats
        if do_grad:
            for i in floats:
                tcs[i].requires_grad = True
                ths[i].requires_grad_(True)
        out_tc, out_th = f_tc(*tcs), f_torch(*ths)
        assert tuple(out_tc.shape) == tuple(out_th.shape), (out_tc.shape, out_th.shape)
        assert out_tc.dtype.name == str(out_th.dtype).replace("torch.", "")
        np.testing.assert_allclose(to_np(out_tc), to_np(out_th).astype(np.float64), **TOL[dt])
        if not do_grad:
            continue
        g = R.standard_normal(tuple(out_th.shape))
        out_tc.backward(tc.tensor(np.asarray(g, dtype=np.float64)))
        out_th.backward(torch.tensor(g))
        for i in floats:
            if ths[i].grad is None:
                continue
            assert tcs[i].grad is not None, "no grad for input %d" % i
            np.testing.assert_allclose(to_np(tcs[i].grad), to_np(ths[i].grad), rtol=1e-6, atol=1e-8)


def randn(*s):
    return R.standard_normal(s)


def unit(*s, lo=0.0, hi=1.0):
    return R.uniform(lo, hi, s)


def classes(c, *s, ignore=None, frac=0.25):
    t = R.integers(0, c, s).astype(np.int64)
    if ignore is not None:
        t[R.uniform(size=s) < frac] = ignore
    return t


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 5), (2, 5, 3), (2, 5, 3, 2), (5,)], ids=str)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_cross_entropy_class_targets(reduction, shape, weighted, smoothing):
    c = shape[1] if len(shape) > 1 else shape[0]
    tshape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    t = classes(c, *tshape, ignore=-1) if tshape else np.array(2, dtype=np.int64)
    arrays = [randn(*shape), t] + ([unit(c, lo=0.2, hi=2.0)] if weighted else [])

    def f(lib_f):
        return lambda x, t, *w: lib_f(x, t, weight=w[0] if w else None, ignore_index=-1, reduction=reduction,
                                      label_smoothing=smoothing)
    # torch does not differentiate class-index losses in their weight.
    check(f(F.cross_entropy), f(TF.cross_entropy), arrays, grad_args=[0])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4), (3,)], ids=str)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_probability_targets(reduction, shape, weighted, smoothing):
    c = shape[1] if len(shape) > 1 else shape[0]
    p = R.uniform(0.1, 1.0, shape)
    p = p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True)
    arrays = [randn(*shape), p] + ([unit(c, lo=0.2, hi=2.0)] if weighted else [])

    def f(lib_f):
        return lambda x, t, *w: lib_f(x, t, weight=w[0] if w else None, reduction=reduction,
                                      label_smoothing=smoothing)
    check(f(F.cross_entropy), f(TF.cross_entropy), arrays)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 5), (2, 5, 3), (5,)], ids=str)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, shape, weighted):
    c = shape[1] if len(shape) > 1 else shape[0]
    tshape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    t = classes(c, *tshape, ignore=3) if tshape else np.array(1, dtype=np.int64)
    arrays = [randn(*shape), t] + ([unit(c, lo=0.2, hi=2.0)] if weighted else [])

    def f(lib_f):
        return lambda x, t, *w: lib_f(x, t, weight=w[0] if w else None, ignore_index=3, reduction=reduction)
    check(f(F.nll_loss), f(TF.nll_loss), arrays, grad_args=[0])


def test_cross_entropy_positional_reduction_and_non_contiguous_logits():
    x, t = randn(5, 4), classes(4, 5)
    check(lambda a, b: F.cross_entropy(a, b, "sum"), lambda a, b: TF.cross_entropy(a, b, reduction="sum"),
          [x, t], transpose=(0,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, kwargs", [("l1_loss", {}), ("smooth_l1_loss", {"beta": 0.6}),
                                          ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {"delta": 0.8}),
                                          ("mse_loss", {})])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((), ()), ((0, 3), (0, 3))], ids=str)
def test_regression_losses(reduction, name, kwargs, shapes):
    arrays = [randn(*shapes[0]), randn(*shapes[1])]
    check(lambda a, b: getattr(F, name)(a, b, reduction=reduction, **kwargs),
          lambda a, b: getattr(TF, name)(a, b, reduction=reduction, **kwargs), arrays)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(reduction, weighted):
    arrays = [unit(3, 4, lo=0.02, hi=0.98), unit(3, 4)] + ([unit(4, lo=0.5, hi=2)] if weighted else [])
    check(lambda x, t, *w: F.binary_cross_entropy(x, t, weight=w[0] if w else None, reduction=reduction),
          lambda x, t, *w: TF.binary_cross_entropy(x, t, weight=w[0] if w else None, reduction=reduction),
          arrays, grad_args=[0, 1])  # torch does not differentiate in the weight


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape, pos_shape", [(None, None), ((4,), None), (None, (4,)), ((3, 1), (4,))],
                         ids=str)
def test_binary_cross_entropy_with_logits(reduction, weight_shape, pos_shape):
    arrays = [randn(3, 4) * 4, unit(3, 4)]
    if weight_shape:
        arrays.append(unit(*weight_shape, lo=0.5, hi=2))
    if pos_shape:
        arrays.append(unit(*pos_shape, lo=0.5, hi=3))

    def f(lib_f):
        def run(x, t, *rest):
            rest = list(rest)
            w = rest.pop(0) if weight_shape else None
            pw = rest.pop(0) if pos_shape else None
            return lib_f(x, t, weight=w, reduction=reduction, pos_weight=pw)
        return run
    check(f(F.binary_cross_entropy_with_logits), f(TF.binary_cross_entropy_with_logits), arrays,
          grad_args=[0, 1])  # torch does not differentiate in weight and pos_weight


def test_binary_cross_entropy_with_logits_is_stable_far_out():
    x = tc.tensor([-200.0, -60.0, 60.0, 200.0], dtype="float32")
    t = tc.tensor([1.0, 1.0, 0.0, 0.0], dtype="float32")
    ref = TF.binary_cross_entropy_with_logits(torch.tensor(to_np(x), dtype=torch.float32),
                                              torch.tensor(to_np(t), dtype=torch.float32), reduction="none")
    got = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    np.testing.assert_allclose(to_np(got), ref.numpy(), rtol=1e-6)
    assert all(math.isfinite(v) for v in got.tolist())


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    p = unit(3, 4, lo=0.05)
    p[0, 1] = 0.0  # a zero target counts 0 (xlogy)
    target = np.log(unit(3, 4, lo=0.05)) if log_target else p
    check(lambda x, t: F.kl_div(x, t, reduction=reduction, log_target=log_target),
          lambda x, t: TF.kl_div(x, t, reduction=reduction, log_target=log_target),
          [np.log(unit(3, 4, lo=0.05)), target], grad_args=[0])
    # The target's gradient where it is positive (torch's is NaN at a zero target).
    check(lambda x, t: F.kl_div(x, t, reduction=reduction, log_target=log_target),
          lambda x, t: TF.kl_div(x, t, reduction=reduction, log_target=log_target),
          [np.log(unit(3, 4, lo=0.05)), unit(3, 4, lo=0.05)], dtypes=(np.float64,))


@pytest.mark.parametrize("shapes, dim", [(((3, 5), (3, 5)), 1), (((2, 1, 4), (3, 4)), -1), (((4,), (4,)), 0)],
                         ids=str)
def test_cosine_similarity(shapes, dim):
    check(lambda a, b: F.cosine_similarity(a, b, dim=dim), lambda a, b: TF.cosine_similarity(a, b, dim=dim),
          [randn(*shapes[0]), randn(*shapes[1])])


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(p, keepdim):
    check(lambda a, b: F.pairwise_distance(a, b, p=p, keepdim=keepdim),
          lambda a, b: TF.pairwise_distance(a, b, p=p, keepdim=keepdim), [randn(4, 5), randn(4, 5)])


@pytest.mark.parametrize("p, dim", [(2.0, 1), (1.0, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize(p, dim):
    check(lambda a: F.normalize(a, p=p, dim=dim), lambda a: TF.normalize(a, p=p, dim=dim), [randn(3, 4)],
          transpose=(0,))


def test_loss_modules_match_torch():
    x, t = randn(6, 4), classes(4, 6, ignore=-100)
    w = unit(4, lo=0.5, hi=2)
    cases = [
        (nn.CrossEntropyLoss(weight=tc.tensor(w), label_smoothing=0.1),
         torch.nn.CrossEntropyLoss(weight=torch.tensor(w), label_smoothing=0.1), x, t),
        (nn.NLLLoss(weight=tc.tensor(w), ignore_index=2, reduction="sum"),
         torch.nn.NLLLoss(weight=torch.tensor(w), ignore_index=2, reduction="sum"), x, t.clip(0, 3)),
        (nn.L1Loss(), torch.nn.L1Loss(), x, randn(6, 4)),
        (nn.SmoothL1Loss(beta=0.5), torch.nn.SmoothL1Loss(beta=0.5), x, randn(6, 4)),
        (nn.HuberLoss(delta=0.3, reduction="none"), torch.nn.HuberLoss(delta=0.3, reduction="none"), x,
         randn(6, 4)),
        (nn.BCELoss(), torch.nn.BCELoss(), unit(6, 4, lo=0.1, hi=0.9), unit(6, 4)),
        (nn.BCEWithLogitsLoss(pos_weight=tc.tensor(w)), torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(w)),
         x, unit(6, 4)),
        (nn.KLDivLoss(reduction="batchmean"), torch.nn.KLDivLoss(reduction="batchmean"), x, unit(6, 4)),
        (nn.CosineSimilarity(dim=1), torch.nn.CosineSimilarity(dim=1), x, randn(6, 4)),
        (nn.PairwiseDistance(p=1.0), torch.nn.PairwiseDistance(p=1.0), x, randn(6, 4)),
    ]
    for m_tc, m_th, a, b in cases:
        got = m_tc(tc.tensor(a), tc.tensor(b))
        want = m_th(torch.tensor(a), torch.tensor(b))
        np.testing.assert_allclose(to_np(got), want.numpy(), rtol=1e-7, atol=1e-9, err_msg=type(m_tc).__name__)
    # The class weights are buffers, as in torch: in the state dict, not in parameters().
    m = nn.CrossEntropyLoss(weight=tc.tensor(w))
    assert list(m.parameters()) == [] and list(m.state_dict()) == ["weight"]
    assert list(nn.CrossEntropyLoss().state_dict()) == []


def test_loss_errors_are_pytorch_like():
    with pytest.raises(ValueError, match="target size"):
        F.binary_cross_entropy(tc.tensor([0.5, 0.5]), tc.tensor([1.0]))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(tc.tensor([1.5]), tc.tensor([1.0]))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(tc.zeros(2, 3), tc.tensor([0, 3]))
    with pytest.raises(ValueError, match="reduction"):
        F.l1_loss(tc.zeros(2), tc.zeros(2), reduction="avg")
    with pytest.raises(RuntimeError, match="label_smoothing"):
        F.cross_entropy(tc.zeros(2, 3), tc.tensor([0, 1]), label_smoothing=1.5)
