"""Every torch 1.13 learning-rate scheduler in tc.optim.lr_scheduler against
torch's: the same learning rates over 30 steps (with a C-backed optimizer and
a Python one), state dicts with torch's keys that resume the schedule, and
torch's errors and warnings."""
import math
import warnings

import pytest

import tc

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

S = tc.optim.lr_scheduler


def _sh():
    return torch.optim.lr_scheduler


class Scale:
    """A callable object (its state is saved by LambdaLR's state_dict)."""

    def __init__(self, base):
        self.base = base

    def __call__(self, epoch):
        return self.base ** epoch


CASES = [
    ("LambdaLR", lambda: dict(lr_lambda=lambda e: 1.0 / (1 + e))),
    ("LambdaLR", lambda: dict(lr_lambda=[lambda e: 0.9 ** e, Scale(0.8)])),
    ("MultiplicativeLR", lambda: dict(lr_lambda=lambda e: 0.95)),
    ("MultiplicativeLR", lambda: dict(lr_lambda=[lambda e: 0.9, lambda e: 1.0 if e % 2 else 0.8])),
    ("StepLR", lambda: dict(step_size=4, gamma=0.5)),
    ("MultiStepLR", lambda: dict(milestones=[3, 7, 7, 20], gamma=0.3)),
    ("ConstantLR", lambda: dict(factor=0.25, total_iters=6)),
    ("ConstantLR", lambda: dict()),
    ("LinearLR", lambda: dict(start_factor=0.2, end_factor=0.9, total_iters=12)),
    ("ExponentialLR", lambda: dict(gamma=0.9)),
    ("PolynomialLR", lambda: dict(total_iters=20, power=2.0)),
    ("PolynomialLR", lambda: dict()),
    ("CosineAnnealingLR", lambda: dict(T_max=7, eta_min=0.001)),
    ("CyclicLR", lambda: dict(base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=6)),
    ("CyclicLR", lambda: dict(base_lr=[0.01, 0.02], max_lr=0.2, step_size_up=3, mode="triangular2")),
    ("CyclicLR", lambda: dict(base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.95)),
    ("CyclicLR", lambda: dict(base_lr=0.01, max_lr=0.1, step_size_up=5, scale_fn=lambda x: 0.5 ** x,
                              scale_mode="iterations", cycle_momentum=False)),
    ("OneCycleLR", lambda: dict(max_lr=0.5, total_steps=31)),
    ("OneCycleLR", lambda: dict(max_lr=[0.5, 0.3], epochs=4, steps_per_epoch=8, anneal_strategy="linear",
                                three_phase=True, div_factor=10.0)),
    ("CosineAnnealingWarmRestarts", lambda: dict(T_0=5)),
    ("CosineAnnealingWarmRestarts", lambda: dict(T_0=3, T_mult=2, eta_min=0.01)),
]


def make_optimizers(kind):
    w, wh = tc.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    b, bh = tc.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    groups = lambda p, q: [{"params": [p]}, {"params": [q], "lr": 0.03}]  # noqa: E731
    if kind == "c_sgd":
        return (tc.optim.SGD(groups(w, b), lr=0.1, momentum=0.9),
                torch.optim.SGD(groups(wh, bh), lr=0.1, momentum=0.9))
    if kind == "c_adam":
        return tc.optim.Adam(groups(w, b), lr=0.1), torch.optim.Adam(groups(wh, bh), lr=0.1)
    return tc.optim.NAdam(groups(w, b), lr=0.1), torch.optim.NAdam(groups(wh, bh), lr=0.1)


def run(sched, opt, n=30):
    out = []
    for _ in range(n):
        out.append(list(sched.get_last_lr()))
        opt.step()
        sched.step()
    out.append(list(sched.get_last_lr()))
    return out


def _momentum(group):
    return group["betas"][0] if "betas" in group else group.get("momentum")


@pytest.mark.parametrize("kind", ["c_sgd", "c_adam", "python_nadam"])
@pytest.mark.parametrize("name, make_kw", CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_thirty_steps_match_torch(name, make_kw, kind):
    kw = make_kw()
    if name == "CyclicLR" and kind != "c_sgd":
        kw["cycle_momentum"] = False  # only SGD (of these) has a momentum option
    opt, opt_h = make_optimizers(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = getattr(S, name)(opt, **kw)
        s_h = getattr(_sh(), name)(opt_h, **kw)
        got, want = run(s, opt), run(s_h, opt_h)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    for g, gh in zip(opt.param_groups, opt_h.param_groups):
        assert g["lr"] == pytest.approx(gh["lr"], rel=1e-12, abs=1e-15)
        if _momentum(gh) is not None:
            assert _momentum(g) == pytest.approx(_momentum(gh), rel=1e-12)
    sd, sd_h = s.state_dict(), s_h.state_dict()
    assert set(sd) == set(sd_h)
    for k in ("last_epoch", "_step_count", "base_lrs", "_last_lr", "T_cur", "T_i", "total_size"):
        if k in sd_h:
            assert sd[k] == pytest.approx(sd_h[k], rel=1e-12)


@pytest.mark.parametrize("name, make_kw", CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_state_dict_resumes_the_schedule(name, make_kw):
    opt, _ = make_optimizers("c_sgd")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = getattr(S, name)(opt, **make_kw())
        run(s, opt, n=7)
        sd = s.state_dict()
        opt2, _ = make_optimizers("c_sgd")
        s2 = getattr(S, name)(opt2, **make_kw())
        # the new scheduler's first step changed opt2's lr: the optimizer's
        # groups are restored after it is made, as a checkpoint would
        for g, g2 in zip(opt.param_groups, opt2.param_groups):
            for k, v in g.items():
                if k != "params":
                    g2[k] = v
        s2.load_state_dict(sd)
        assert run(s2, opt2, n=10) == run(s, opt, n=10)


def test_lambda_state_dict_saves_callable_objects_only():
    opt, opt_h = make_optimizers("c_sgd")
    f = Scale(0.7)
    s = S.LambdaLR(opt, [lambda e: 1.0, f])
    s_h = _sh().LambdaLR(opt_h, [lambda e: 1.0, Scale(0.7)])
    assert s.state_dict()["lr_lambdas"] == s_h.state_dict()["lr_lambdas"] == [None, {"base": 0.7}]
    sd = s.state_dict()
    sd["lr_lambdas"][1] = {"base": 0.5}
    s.load_state_dict(sd)
    assert f.base == 0.5 and "lr_lambdas" in sd


@pytest.mark.parametrize("kind", ["c_sgd", "python_nadam"])
@pytest.mark.parametrize("kw", [dict(), dict(mode="max", factor=0.5, patience=2, threshold=0.1,
                                             threshold_mode="abs", cooldown=2, min_lr=[0.02, 0.001]),
                                dict(patience=1, cooldown=1, eps=0.05, min_lr=0.005)], ids=str)
def test_reduce_lr_on_plateau_matches_torch(kw, kind):
    opt, opt_h = make_optimizers(kind)
    s, s_h = S.ReduceLROnPlateau(opt, **kw), _sh().ReduceLROnPlateau(opt_h, **kw)
    metrics = [1.0, 0.9, 0.85, 0.85, 0.86, 0.84, 0.84, 0.84, 0.9, 0.95, 0.7, 0.7, 0.7, 0.7, 0.7, 0.71,
               0.72, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]
    for m in metrics:
        # a 0-dim tensor is read with float() (float32 here, in both)
        s.step(tc.tensor(m) if m > 0.8 else m)
        s_h.step(torch.tensor(m) if m > 0.8 else m)
        assert s.get_last_lr() == pytest.approx(s_h._last_lr, rel=1e-12)
        assert (s.num_bad_epochs, s.cooldown_counter, s.best) == (s_h.num_bad_epochs, s_h.cooldown_counter,
                                                                  s_h.best)
    assert set(s.state_dict()) == set(s_h.state_dict())


def test_chained_and_sequential_match_torch():
    for kind in ("c_sgd", "python_nadam"):
        opt, opt_h = make_optimizers(kind)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            chained = S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=3),
                                          S.ExponentialLR(opt, gamma=0.9)])
            chained_h = _sh().ChainedScheduler([_sh().ConstantLR(opt_h, factor=0.1, total_iters=3),
                                                _sh().ExponentialLR(opt_h, gamma=0.9)])
            np.testing.assert_allclose(run(chained, opt), run(chained_h, opt_h), rtol=1e-12)
            assert set(chained.state_dict()) == set(chained_h.state_dict())
            opt, opt_h = make_optimizers(kind)
            seq = S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=4), S.PolynomialLR(opt, 10, 1.5),
                                       S.CosineAnnealingLR(opt, T_max=5)], milestones=[5, 15])
            seq_h = _sh().SequentialLR(opt_h, [_sh().LinearLR(opt_h, 0.1, total_iters=4),
                                               _sh().PolynomialLR(opt_h, 10, 1.5),
                                               _sh().CosineAnnealingLR(opt_h, T_max=5)], milestones=[5, 15])
            np.testing.assert_allclose(run(seq, opt), run(seq_h, opt_h), rtol=1e-12)


def test_closed_forms_with_epoch_argument_match_torch():
    for name, kw in [("ConstantLR", dict(factor=0.5, total_iters=3)), ("PolynomialLR", dict(total_iters=8)),
                     ("LinearLR", dict(total_iters=6)), ("CosineAnnealingLR", dict(T_max=9))]:
        opt, opt_h = make_optimizers("c_sgd")
        s, s_h = getattr(S, name)(opt, **kw), getattr(_sh(), name)(opt_h, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for e in (2, 5, 4, 11):
                s.step(e)
                s_h.step(e)
                assert s.get_last_lr() == pytest.approx(s_h.get_last_lr(), rel=1e-12)


def test_warm_restarts_fractional_epochs_match_torch():
    for T_mult in (1, 2):
        opt, opt_h = make_optimizers("c_adam")
        s = S.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=T_mult, eta_min=0.001)
        s_h = _sh().CosineAnnealingWarmRestarts(opt_h, T_0=4, T_mult=T_mult, eta_min=0.001)
        for e in (0.5, 1.25, 3.9, 4.0, 7.5, 13.2, 30.0):
            s.step(e)
            s_h.step(e)
            assert s.get_last_lr() == pytest.approx(s_h.get_last_lr(), rel=1e-12)
            assert (s.T_i, s.last_epoch) == (s_h.T_i, s_h.last_epoch)
        s.step()
        s_h.step()
        assert s.get_last_lr() == pytest.approx(s_h.get_last_lr(), rel=1e-12)


def _error(make):
    try:
        make()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e)
    return None


@pytest.mark.parametrize("name, kw", [
    ("ConstantLR", dict(factor=1.5)), ("LinearLR", dict(start_factor=1.5)), ("LinearLR", dict(end_factor=-1)),
    ("CyclicLR", dict(base_lr=0.1, max_lr=1.0, mode="bogus")), ("CyclicLR", dict(base_lr=[0.1], max_lr=1.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=0)), ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=2.0)), ("ReduceLROnPlateau", dict(factor=1.0)),
    ("ReduceLROnPlateau", dict(mode="middle")), ("ReduceLROnPlateau", dict(threshold_mode="x")),
    ("ReduceLROnPlateau", dict(min_lr=[0.1])), ("LambdaLR", dict(lr_lambda=[lambda e: 1.0])),
    ("MultiplicativeLR", dict(lr_lambda=[lambda e: 1.0] * 3)), ("OneCycleLR", dict(max_lr=1.0)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=10, pct_start=1.5)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=10, anneal_strategy="square")),
    ("StepLR", dict(step_size=2, last_epoch=3)),
], ids=lambda v: v if isinstance(v, str) else str(v))
def test_errors_as_torch(name, kw):
    opt, opt_h = make_optimizers("c_adam")
    want = _error(lambda: getattr(_sh(), name)(opt_h, **kw))
    assert want is not None
    assert _error(lambda: getattr(S, name)(opt, **kw)) == want


@pytest.mark.filterwarnings("ignore:Detected call of")
def test_not_an_optimizer_and_momentum_required():
    for name, kw in [("StepLR", dict(step_size=1)), ("CyclicLR", dict(base_lr=0.1, max_lr=1.0)),
                     ("ReduceLROnPlateau", {}), ("OneCycleLR", dict(max_lr=1.0, total_steps=3))]:
        with pytest.raises(TypeError, match="list is not an Optimizer"):
            getattr(S, name)([], **kw)
    opt, opt_h = make_optimizers("python_nadam")
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        S.CyclicLR(opt, base_lr=0.1, max_lr=1.0)
    s = S.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    s.step()
    s.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 2"):
        s.step()


def test_warnings_as_torch():
    opt, _ = make_optimizers("c_sgd")
    s = S.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()
    with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)`"):
        s.step(3)
    opt, _ = make_optimizers("python_nadam")
    s = S.StepLR(opt, step_size=1)
    opt.step = lambda closure=None: None  # replaced after the scheduler was made
    with pytest.warns(UserWarning, match="has been overridden"):
        s.step()
    # the scheduler counts the optimizer's steps through its wrapper
    opt, _ = make_optimizers("c_adam")
    s = S.StepLR(opt, step_size=1)
    opt.step()
    opt.step()
    assert opt._step_count == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.step()


@pytest.mark.filterwarnings("ignore:Detected call of")
def test_verbose_prints_like_torch(capsys):
    opt, opt_h = make_optimizers("c_sgd")
    S.StepLR(opt, step_size=1, gamma=0.5, verbose=True).step()
    mine = capsys.readouterr().out
    _sh().StepLR(opt_h, step_size=1, gamma=0.5, verbose=True).step()
    theirs = capsys.readouterr().out
    assert mine == theirs and "Adjusting learning rate of group 1 to" in mine
    r = S.ReduceLROnPlateau(opt, patience=0, verbose=True)
    r_h = _sh().ReduceLROnPlateau(opt_h, patience=0, verbose=True)
    for m in (1.0, 2.0):
        r.step(m)
        r_h.step(m)
    out = capsys.readouterr().out
    assert out and out == out[:len(out) // 2] * 2
    assert math.isfinite(r.get_last_lr()[0])
