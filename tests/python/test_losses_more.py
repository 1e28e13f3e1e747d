"""Parity of the margin, embedding, ranking, triplet, likelihood and CTC
losses (tc.nn.functional and the tc.nn modules) with PyTorch 1.13: values
for every reduction (float64 and float32), float64 gradients against
torch.autograd, class weights, shapes, the module attributes and the errors."""
import warnings

import pytest

import tc
import tc.nn as nn
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional
TN = torch.nn

TOL = {np.float64: dict(rtol=1e-7, atol=1e-9), np.float32: dict(rtol=3e-5, atol=3e-6)}
REDUCTIONS = ["none", "mean", "sum"]
R = np.random.default_rng(7)


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().astype(np.float64)
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def check(f_tc, f_torch, arrays, dtypes=(np.float64, np.float32), grad_args=None):
    """Runs f on tc and torch tensors made from the same arrays (float arrays
    in each dtype), compares outputs, then the float64 gradients of the float
    inputs (or of those in grad_args) for a random output gradient."""
    for dt in dtypes:
        arrs = [a.astype(dt) if a.dtype.kind == "f" else a for a in arrays]
        tcs = [tc.tensor(a) for a in arrs]
        ths = [torch.tensor(a) for a in arrs]
        floats = [i for i, a in enumerate(arrs) if a.dtype.kind == "f" and (grad_args is None or i in grad_args)]
        do_grad = dt == np.float64 and floats
        if do_grad:
            for i in floats:
                tcs[i].requires_grad = True
                ths[i].requires_grad_(True)
        out_tc, out_th = f_tc(*tcs), f_torch(*ths)
        assert tuple(out_tc.shape) == tuple(out_th.shape), (out_tc.shape, out_th.shape)
        assert out_tc.dtype.name == str(out_th.dtype).replace("torch.", "")
        np.testing.assert_allclose(to_np(out_tc), to_np(out_th), **TOL[dt])
        if not do_grad:
            continue
        g = R.standard_normal(tuple(out_th.shape))
        out_tc.backward(tc.tensor(np.asarray(g, dtype=np.float64)))
        out_th.backward(torch.tensor(g))
        for i in floats:
            expected = ths[i].grad
            got = tcs[i].grad
            if expected is None:
                assert got is None or not np.any(to_np(got))
                continue
            np.testing.assert_allclose(to_np(got), to_np(expected), rtol=1e-6, atol=1e-9)


def signs(*shape):
    return np.where(R.random(shape) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking_loss(reduction):
    x1, x2, y = R.standard_normal(7), R.standard_normal(7), signs(7)
    for margin in (0.0, 0.4):
        check(lambda a, b, t: F.margin_ranking_loss(a, b, t, margin=margin, reduction=reduction),
              lambda a, b, t: TF.margin_ranking_loss(a, b, t, margin=margin, reduction=reduction), [x1, x2, y],
              grad_args=(0, 1))
    check(lambda a, b, t: nn.MarginRankingLoss(0.3, reduction=reduction)(a, b, t),
          lambda a, b, t: TN.MarginRankingLoss(0.3, reduction=reduction)(a, b, t), [x1, x2, y], grad_args=(0, 1))


def test_margin_ranking_loss_checks_dims():
    with pytest.raises(RuntimeError, match="same dimension"):
        F.margin_ranking_loss(tc.zeros(3), tc.zeros(3), tc.zeros(1, 3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hinge_embedding_loss(reduction):
    x = R.standard_normal((4, 5))
    y = signs(4, 5)
    y[0, 0] = 0.5  # neither 1 nor -1: both terms, as torch
    check(lambda a, t: F.hinge_embedding_loss(a, t, margin=0.7, reduction=reduction),
          lambda a, t: TF.hinge_embedding_loss(a, t, margin=0.7, reduction=reduction), [x, y], grad_args=(0,))
    check(lambda a, t: nn.HingeEmbeddingLoss(reduction=reduction)(a, t),
          lambda a, t: TN.HingeEmbeddingLoss(reduction=reduction)(a, t), [x, y], grad_args=(0,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction):
    x = R.standard_normal((3, 4)) * 3
    y = signs(3, 4)
    check(lambda a, t: F.soft_margin_loss(a, t, reduction=reduction),
          lambda a, t: TF.soft_margin_loss(a, t, reduction=reduction), [x, y], grad_args=(0,))
    check(lambda a, t: nn.SoftMarginLoss(reduction=reduction)(a, t),
          lambda a, t: TN.SoftMarginLoss(reduction=reduction)(a, t), [x, y], grad_args=(0,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding_loss(reduction):
    a, b, y = R.standard_normal((5, 3)), R.standard_normal((5, 3)), signs(5)
    for margin in (0.0, -0.2, 0.5):
        check(lambda p, q, t: F.cosine_embedding_loss(p, q, t, margin=margin, reduction=reduction),
              lambda p, q, t: TF.cosine_embedding_loss(p, q, t, margin=margin, reduction=reduction), [a, b, y],
              grad_args=(0, 1))
    # one pair: 1-D inputs and a 0-dim target
    check(lambda p, q, t: nn.CosineEmbeddingLoss(0.1, reduction=reduction)(p, q, t),
          lambda p, q, t: TN.CosineEmbeddingLoss(0.1, reduction=reduction)(p, q, t),
          [a[0], b[0], np.array(-1.0)], grad_args=(0, 1))


def test_cosine_embedding_loss_errors():
    with pytest.raises(RuntimeError, match="0D or 1D target"):
        F.cosine_embedding_loss(tc.zeros(2, 3), tc.zeros(2, 3), tc.zeros(2, 1))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input"):
        F.cosine_embedding_loss(tc.zeros(3), tc.zeros(3), tc.zeros(2))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin_loss(reduction, p):
    x = R.standard_normal((6, 4))
    y = R.integers(0, 4, 6)
    w = R.random(4) + 0.5
    for margin in (1.0, 0.3):
        check(lambda a, t: F.multi_margin_loss(a, t, p=p, margin=margin, reduction=reduction),
              lambda a, t: TF.multi_margin_loss(a, t, p=p, margin=margin, reduction=reduction), [x, y])
    check(lambda a, t, c: F.multi_margin_loss(a, t, p=p, weight=c, reduction=reduction),
          lambda a, t, c: TF.multi_margin_loss(a, t, p=p, weight=c, reduction=reduction), [x, y, w],
          grad_args=(0,))
    check(lambda a, t, c: nn.MultiMarginLoss(p=p, weight=c, reduction=reduction)(a, t),
          lambda a, t, c: TN.MultiMarginLoss(p=p, weight=c, reduction=reduction)(a, t), [x, y, w],
          grad_args=(0,))
    # a 1-D input with a 0-dim and a 1-element target
    for t in (np.array(2), np.array([2])):
        check(lambda a, tt: F.multi_margin_loss(a, tt, p=p, reduction=reduction),
              lambda a, tt: TF.multi_margin_loss(a, tt, p=p, reduction=reduction), [x[0], t])


def test_multi_margin_loss_errors():
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        F.multi_margin_loss(tc.zeros(2, 3), tc.tensor([0, 1]), p=3)
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="weight must be one-dimensional"):
        F.multi_margin_loss(tc.zeros(2, 3), tc.tensor([0, 1]), weight=tc.ones(1, 3))
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(tc.zeros(2, 3), tc.tensor([0, 3]))
    with pytest.raises(RuntimeError, match="inconsistent target size"):
        F.multi_margin_loss(tc.zeros(2, 3), tc.tensor([0, 1, 2]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction):
    x = R.standard_normal((4, 5))
    y = np.array([[3, 0, -1, 1, 2],  # the entries after the first -1 do not count
                  [0, 1, 2, 3, 4],  # every class a target: no pairs
                  [4, 4, -1, 0, 0],  # a repeated target counts twice, as torch
                  [-1, 1, 2, 3, 4]])  # no targets
    check(lambda a, t: F.multilabel_margin_loss(a, t, reduction=reduction),
          lambda a, t: TF.multilabel_margin_loss(a, t, reduction=reduction), [x, y])
    check(lambda a, t: nn.MultiLabelMarginLoss(reduction=reduction)(a, t),
          lambda a, t: TN.MultiLabelMarginLoss(reduction=reduction)(a, t), [x, y])
    check(lambda a, t: F.multilabel_margin_loss(a, t, reduction=reduction),
          lambda a, t: TF.multilabel_margin_loss(a, t, reduction=reduction), [x[0], y[0]])


def test_multilabel_margin_loss_target_range():
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        F.multilabel_margin_loss(tc.zeros(2, 3), tc.tensor([[0, 3, -1], [1, -1, 0]]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_soft_margin_loss(reduction):
    x = R.standard_normal((4, 5)) * 2
    y = (R.random((4, 5)) < 0.4).astype(np.float64)
    w = R.random(5) + 0.5
    check(lambda a, t: F.multilabel_soft_margin_loss(a, t, reduction=reduction),
          lambda a, t: TF.multilabel_soft_margin_loss(a, t, reduction=reduction), [x, y], grad_args=(0,))
    check(lambda a, t, c: nn.MultiLabelSoftMarginLoss(weight=c, reduction=reduction)(a, t),
          lambda a, t, c: TN.MultiLabelSoftMarginLoss(weight=c, reduction=reduction)(a, t), [x, y, w],
          grad_args=(0,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_loss(reduction):
    a, p, n = (R.standard_normal((5, 4)) for _ in range(3))
    for kw in (dict(), dict(margin=0.5, p=1.0, swap=True), dict(p=3.0, eps=1e-3)):
        check(lambda x, y, z: F.triplet_margin_loss(x, y, z, reduction=reduction, **kw),
              lambda x, y, z: TF.triplet_margin_loss(x, y, z, reduction=reduction, **kw), [a, p, n])
    check(lambda x, y, z: nn.TripletMarginLoss(margin=2.0, swap=True, reduction=reduction)(x, y, z),
          lambda x, y, z: TN.TripletMarginLoss(margin=2.0, swap=True, reduction=reduction)(x, y, z), [a, p, n])
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_loss(tc.zeros(2, 3), tc.zeros(2, 3), tc.zeros(3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_triplet_margin_with_distance_loss(reduction):
    a, p, n = (R.standard_normal((5, 4)) for _ in range(3))
    check(lambda x, y, z: F.triplet_margin_with_distance_loss(x, y, z, reduction=reduction),
          lambda x, y, z: TF.triplet_margin_with_distance_loss(x, y, z, reduction=reduction), [a, p, n])
    check(lambda x, y, z: nn.TripletMarginWithDistanceLoss(
              distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5, swap=True,
              reduction=reduction)(x, y, z),
          lambda x, y, z: TN.TripletMarginWithDistanceLoss(
              distance_function=lambda u, v: 1 - TF.cosine_similarity(u, v), margin=0.5, swap=True,
              reduction=reduction)(x, y, z), [a, p, n])
    m = nn.TripletMarginWithDistanceLoss()
    assert isinstance(m.distance_function, nn.PairwiseDistance)
    assert "distance_function" in dict(m.named_children())


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gaussian_nll_loss(reduction):
    x, t = R.standard_normal((4, 3)), R.standard_normal((4, 3))
    var = R.random((4, 3)) + 0.1
    var[0, 0] = 1e-9  # clamped to eps: the gradient still reaches var, as torch's
    for full in (False, True):
        check(lambda a, b, v: F.gaussian_nll_loss(a, b, v, full=full, reduction=reduction),
              lambda a, b, v: TF.gaussian_nll_loss(a, b, v, full=full, reduction=reduction), [x, t, var])
    # homoscedastic: var one dim short, or with a last dim of 1
    for v in (var[:, 0], var[:, :1]):
        check(lambda a, b, vv: nn.GaussianNLLLoss(eps=1e-3, reduction=reduction)(a, b, vv),
              lambda a, b, vv: TN.GaussianNLLLoss(eps=1e-3, reduction=reduction)(a, b, vv), [x, t, v])


def test_gaussian_nll_loss_errors():
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(tc.zeros(4, 3), tc.zeros(4, 3), tc.ones(4, 2))
    with pytest.raises(ValueError, match="negative"):
        F.gaussian_nll_loss(tc.zeros(2), tc.zeros(2), tc.tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match="is not valid"):
        F.gaussian_nll_loss(tc.zeros(2), tc.zeros(2), tc.ones(2), reduction="max")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_poisson_nll_loss(reduction):
    x = R.standard_normal((3, 4))
    t = R.integers(0, 5, (3, 4)).astype(np.float64)
    for full in (False, True):
        check(lambda a, b: F.poisson_nll_loss(a, b, full=full, reduction=reduction),
              lambda a, b: TF.poisson_nll_loss(a, b, full=full, reduction=reduction), [x, t], grad_args=(0,))
        rate = np.abs(x) + 0.1
        check(lambda a, b: nn.PoissonNLLLoss(log_input=False, full=full, reduction=reduction)(a, b),
              lambda a, b: TN.PoissonNLLLoss(log_input=False, full=full, reduction=reduction)(a, b), [rate, t],
              grad_args=(0,))
    with pytest.raises(ValueError, match="is not valid"):
        F.poisson_nll_loss(tc.zeros(2), tc.zeros(2), reduction="max")


@pytest.mark.filterwarnings("ignore:size_average and reduce args")
def test_legacy_size_average_and_reduce():
    x, y = R.standard_normal(5), signs(5)
    for kw in (dict(size_average=False), dict(reduce=False), dict(size_average=True, reduce=True)):
        check(lambda a, t: F.soft_margin_loss(a, t, **kw), lambda a, t: TF.soft_margin_loss(a, t, **kw), [x, y],
              grad_args=(0,))
        assert nn.HingeEmbeddingLoss(**kw).reduction == TN.HingeEmbeddingLoss(**kw).reduction


def test_module_attributes_match_torch():
    pairs = [("MarginRankingLoss", {}), ("HingeEmbeddingLoss", {}), ("SoftMarginLoss", {}),
             ("CosineEmbeddingLoss", {}), ("MultiMarginLoss", {}), ("MultiLabelMarginLoss", {}),
             ("MultiLabelSoftMarginLoss", {}), ("TripletMarginLoss", {}), ("GaussianNLLLoss", {}),
             ("PoissonNLLLoss", {}), ("CTCLoss", {"blank": 2, "zero_infinity": True})]
    for name, kw in pairs:
        ours, theirs = getattr(nn, name)(**kw), getattr(TN, name)(**kw)
        public = {k: v for k, v in vars(theirs).items() if not k.startswith("_") and k != "training"}
        for k, v in public.items():
            assert getattr(ours, k) == v, (name, k)
        assert list(ours.state_dict()) == list(theirs.state_dict())
    with pytest.raises(ValueError):
        nn.SoftMarginLoss(reduction="max")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = nn.NLLLoss2d(ignore_index=1)
    assert isinstance(m, nn.NLLLoss) and m.ignore_index == 1 and w
    assert list(nn.MultiMarginLoss(weight=tc.ones(3)).state_dict()) == ["weight"]


# ------------------------------------------------------------------ CTC

def _ctc_case(seed, frames=12, batch=3, classes=5, max_target=4, concatenated=False):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((frames, batch, classes))
    in_lens = rng.integers(max_target * 2 + 1, frames + 1, batch)
    in_lens[0] = frames
    tgt_lens = rng.integers(0, max_target + 1, batch)
    tgt_lens[0] = max_target
    targets = rng.integers(1, classes, (batch, max_target))
    targets[0, 1] = targets[0, 0]  # a repeated label: needs a blank between
    if concatenated:
        targets = np.concatenate([targets[b, :tgt_lens[b]] for b in range(batch)])
    return logits, targets, in_lens, tgt_lens


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss_values_and_logit_gradients(reduction, concatenated):
    logits, targets, in_lens, tgt_lens = _ctc_case(1, concatenated=concatenated)
    for blank in (0, 4):
        tg = np.where(targets == blank, 1 if blank else 2, targets) if blank else targets
        check(lambda x, t, il, tl: F.ctc_loss(x.log_softmax(2), t, il, tl, blank=blank, reduction=reduction),
              lambda x, t, il, tl: TF.ctc_loss(x.log_softmax(2), t, il, tl, blank=blank, reduction=reduction),
              [logits, tg, in_lens, tgt_lens])


def test_ctc_loss_log_prob_gradients_and_lists():
    # log_probs as a leaf: torch's gradient also holds exp(log_probs)
    logits, targets, in_lens, tgt_lens = _ctc_case(2, frames=9, batch=2, classes=4, max_target=3)
    lp = torch.tensor(logits).log_softmax(2).numpy()
    check(lambda x, t: F.ctc_loss(x, t, tuple(in_lens.tolist()), list(tgt_lens.tolist())),
          lambda x, t: TF.ctc_loss(x, t, tuple(in_lens.tolist()), tuple(tgt_lens.tolist())), [lp, targets])
    check(lambda x, t: nn.CTCLoss(reduction="sum")(x, t, tc.tensor(in_lens), tc.tensor(tgt_lens)),
          lambda x, t: TN.CTCLoss(reduction="sum")(x, t, torch.tensor(in_lens), torch.tensor(tgt_lens)),
          [lp, targets])


def test_ctc_loss_unbatched():
    logits, targets, _, _ = _ctc_case(3, frames=7, batch=1, classes=4, max_target=3)
    for reduction in REDUCTIONS:
        check(lambda x, t: F.ctc_loss(x.log_softmax(1), t, tc.tensor(7), tc.tensor(3), reduction=reduction),
              lambda x, t: TF.ctc_loss(x.log_softmax(1), t, torch.tensor(7), torch.tensor(3), reduction=reduction),
              [logits[:, 0], targets[0]])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_loss_impossible_alignment(reduction):
    # sample 1 has 3 frames for 3 labels with a repeat (it needs 4): infinite loss
    logits = R.standard_normal((6, 2, 4))
    targets = np.array([[1, 2, 2], [1, 1, 3]])
    args = [logits, targets, np.array([6, 3]), np.array([3, 3])]
    check(lambda x, t, il, tl: F.ctc_loss(x.log_softmax(2), t, il, tl, reduction=reduction, zero_infinity=True),
          lambda x, t, il, tl: TF.ctc_loss(x.log_softmax(2), t, il, tl, reduction=reduction, zero_infinity=True),
          args)
    out = F.ctc_loss(tc.tensor(logits).log_softmax(2), tc.tensor(targets), [6, 3], [3, 3], reduction="none")
    ref = TF.ctc_loss(torch.tensor(logits).log_softmax(2), torch.tensor(targets), (6, 3), (3, 3), reduction="none")
    np.testing.assert_allclose(to_np(out), to_np(ref), rtol=1e-7)
    assert to_np(out)[1] == np.inf


def test_ctc_loss_errors():
    lp = tc.zeros(6, 2, 4)
    targets = tc.tensor([[1, 2, 2], [1, 1, 3]])
    with pytest.raises(RuntimeError, match="input_lengths to have value at most 6"):
        F.ctc_loss(lp, targets, [7, 6], [2, 2])
    with pytest.raises(RuntimeError, match="size at least 4 at dimension 1"):
        F.ctc_loss(lp, targets, [6, 6], [4, 2])
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(lp, targets, [6, 6], [2, 2], blank=4)
    with pytest.raises(ValueError):
        F.ctc_loss(lp, targets, [6, 6], [2, 2], reduction="max")


# ------------------------------------------------------------------ AdaptiveLogSoftmaxWithLoss

def _adaptive_pair(head_bias):
    ref = TN.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=head_bias).double()
    ours = nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=head_bias, dtype=tc.float64)
    assert list(ours.state_dict()) == list(ref.state_dict())
    ours.load_state_dict({k: tc.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    return ours, ref


@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_with_loss(head_bias):
    ours, ref = _adaptive_pair(head_bias)
    x = R.standard_normal((7, 8))
    t = np.array([0, 11, 4, 2, 7, 5, 10])
    xt, xr = tc.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out_t, out_r = ours(xt, tc.tensor(t)), ref(xr, torch.tensor(t))
    np.testing.assert_allclose(to_np(out_t.output), to_np(out_r.output), rtol=1e-10)
    np.testing.assert_allclose(to_np(out_t.loss), to_np(out_r.loss), rtol=1e-10)
    (out_t.loss * 2 + out_t.output.sum()).backward()
    (out_r.loss * 2 + out_r.output.sum()).backward()
    np.testing.assert_allclose(to_np(xt.grad), to_np(xr.grad), rtol=1e-8, atol=1e-12)
    theirs = dict(ref.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(to_np(p.grad), to_np(theirs[name].grad), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(to_np(ours.log_prob(tc.tensor(x))), to_np(ref.log_prob(torch.tensor(x))),
                               rtol=1e-10)
    assert ours.predict(tc.tensor(x * 5)).tolist() == ref.predict(torch.tensor(x * 5)).tolist()
    single = ours(tc.tensor(x[1]), tc.tensor(11))
    assert tuple(single.output.shape) == ()
    np.testing.assert_allclose(single.output.item(), ref(torch.tensor(x[1]), torch.tensor(11)).output.item(),
                               rtol=1e-10)


def test_adaptive_log_softmax_errors():
    with pytest.raises(ValueError, match="cutoffs should be a sequence"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3])
    with pytest.raises(ValueError, match="cutoffs should be a sequence"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 10])
    m = nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])
    with pytest.raises(RuntimeError, match="Target values should be in"):
        m(tc.zeros(2, 4), tc.tensor([1, 10]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        m(tc.zeros(2, 4), tc.tensor([1]))


def test_container_is_deprecated():
    with pytest.warns(UserWarning, match="nn.Container is deprecated"):
        c = nn.Container(a=nn.Linear(2, 2))
    assert "a" in dict(c.named_children())
