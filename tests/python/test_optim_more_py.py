"""tc.optim's Python optimizers (Adadelta, Adamax, NAdam, RAdam, ASGD,
Rprop, LBFGS, SparseAdam, Adam/AdamW with amsgrad) and the torch options of
the C-backed ones (maximize, amsgrad) against torch 1.13: the same float64
parameters and gradients give the same parameters step by step; state dicts
round-trip, and torch's state dicts load into tc and tc's into torch."""
import warnings

import pytest

import tc
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def close(a, b, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(to_np(a), to_np(b), rtol=rtol, atol=atol)


def tc_from_torch(v):
    """A torch state value converted to tc (tensors keep their dtype)."""
    if isinstance(v, torch.Tensor):
        return tc.tensor(v.detach().numpy().copy())
    if isinstance(v, dict):
        return {k: tc_from_torch(x) for k, x in v.items()}
    if isinstance(v, list):
        return [tc_from_torch(x) for x in v]
    return v


def torch_from_tc(v):
    if isinstance(v, tc.Tensor):
        return torch.from_numpy(np.array(v.numpy(), copy=True))
    if isinstance(v, dict):
        return {k: torch_from_tc(x) for k, x in v.items()}
    if isinstance(v, list):
        return [torch_from_tc(x) for x in v]
    return v


class Pair:
    """The same linear least-squares problem in tc and in torch (float64)."""

    def __init__(self, seed=0):
        r = np.random.default_rng(seed)
        self.w0, self.b0 = r.standard_normal((3, 4)), r.standard_normal(3)
        self.x, self.y = r.standard_normal((6, 4)), r.standard_normal((6, 3))
        self.tc = [tc.tensor(self.w0, requires_grad=True), tc.tensor(self.b0, requires_grad=True)]
        self.th = [torch.tensor(self.w0, requires_grad=True), torch.tensor(self.b0, requires_grad=True)]

    def groups(self, lib, grouped):
        ps = self.tc if lib == "tc" else self.th
        return [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}] if grouped else list(ps)

    def loss_tc(self):
        w, b = self.tc
        return F.mse_loss(F.linear(tc.tensor(self.x), w, b), tc.tensor(self.y))

    def loss_th(self):
        w, b = self.th
        return torch.nn.functional.mse_loss(torch.nn.functional.linear(torch.tensor(self.x), w, b),
                                            torch.tensor(self.y))

    def step(self, opt, opt_h):
        opt.zero_grad()
        opt_h.zero_grad()
        self.loss_tc().backward()
        self.loss_th().backward()
        opt.step()
        opt_h.step()

    def torch_steps_into(self, opt_h, opt, steps):
        """Runs torch's optimizer ``steps`` times, then gives tc torch's
        parameters and (converted) optimizer state."""
        for _ in range(steps):
            opt_h.zero_grad()
            self.loss_th().backward()
            opt_h.step()
        with tc.no_grad():
            for a, b in zip(self.tc, self.th):
                a.copy_(tc.tensor(b.detach().numpy().copy()))
        opt.load_state_dict(tc_from_torch(opt_h.state_dict()))

    def check(self, rtol=1e-10):
        for a, b in zip(self.tc, self.th):
            close(a, b, rtol=rtol)


CASES = [
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}),
    ("Adamax", {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.2, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.01, "betas": (0.8, 0.95), "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("RAdam", {}),  # 10 steps cross rho_t > 5 (the rectified branch)
    ("RAdam", {"lr": 0.01, "betas": (0.7, 0.8), "weight_decay": 0.1}),
    ("ASGD", {}),
    ("ASGD", {"lr": 0.05, "lambd": 1e-2, "alpha": 0.6, "t0": 3, "weight_decay": 0.1, "maximize": True}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.02, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05), "maximize": True}),
    ("Adam", {"amsgrad": True}),
    ("Adam", {"amsgrad": True, "weight_decay": 0.1, "maximize": True, "betas": (0.5, 0.6)}),
    ("AdamW", {"amsgrad": True, "weight_decay": 0.1}),
    ("Adam", {"maximize": True, "weight_decay": 0.1}),
    ("AdamW", {"maximize": True}),
    ("SGD", {"lr": 0.01, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1, "maximize": True}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True, "maximize": True}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
]


@pytest.mark.parametrize("grouped", [False, True], ids=["one_group", "two_groups"])
@pytest.mark.parametrize("name, kw", CASES, ids=lambda v: v if isinstance(v, str) else str(sorted(v)))
def test_ten_steps_match_torch(name, kw, grouped):
    pair = Pair()
    opt = getattr(tc.optim, name)(pair.groups("tc", grouped), **kw)
    opt_h = getattr(torch.optim, name)(pair.groups("th", grouped), **kw)
    for _ in range(10):
        pair.step(opt, opt_h)
        pair.check()
    # the gradients are left as they were (maximize negates a copy, or twice)
    for a, b in zip(pair.tc, pair.th):
        close(a.grad, b.grad)
    sd, sd_h = opt.state_dict(), opt_h.state_dict()
    # torch's keys are all there (the C Adam adds decoupled_weight_decay)
    assert set(sd_h["param_groups"][0]) <= set(sd["param_groups"][0])
    assert [g["params"] for g in sd["param_groups"]] == [g["params"] for g in sd_h["param_groups"]]
    for i in sd_h["state"]:
        for key, v in sd_h["state"][i].items():
            if isinstance(v, torch.Tensor) and v.dim() > 0:
                close(sd["state"][i][key], v)


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"])
def test_float32_parameters_match_torch(name):
    # the state follows the parameters' dtype (the scalar state stays float32)
    r = np.random.default_rng(7)
    w0, x, y = r.standard_normal(5).astype(np.float32), r.standard_normal((4, 5)), r.standard_normal(4)
    w, wh = tc.tensor(w0, requires_grad=True), torch.tensor(w0, requires_grad=True)
    opt, opt_h = getattr(tc.optim, name)([w], lr=0.05), getattr(torch.optim, name)([wh], lr=0.05)
    xt, yt = tc.tensor(x.astype(np.float32)), tc.tensor(y.astype(np.float32))
    xh, yh = torch.tensor(x.astype(np.float32)), torch.tensor(y.astype(np.float32))
    for _ in range(5):
        opt.zero_grad()
        opt_h.zero_grad()
        (((xt * w).sum(1) - yt) ** 2).mean().backward()
        (((xh * wh).sum(1) - yh) ** 2).mean().backward()
        opt.step()
        opt_h.step()
    assert str(w.dtype) == "tc.float32"
    close(w, wh, rtol=1e-5, atol=1e-6)
    for key, v in opt_h.state_dict()["state"][0].items():
        mine = opt.state_dict()["state"][0][key]
        if isinstance(v, torch.Tensor):
            assert str(mine.dtype) == "tc.float32"
            close(mine, v, rtol=1e-5, atol=1e-6)


PY_CASES = [c for c in CASES if c[0] not in ("SGD", "RMSprop", "Adagrad") and
            not (c[0] in ("Adam", "AdamW") and not c[1].get("amsgrad"))]


@pytest.mark.parametrize("name, kw", PY_CASES, ids=lambda v: v if isinstance(v, str) else str(sorted(v)))
def test_python_optimizer_state_dicts_have_torchs_layout(name, kw):
    pair = Pair(1)
    opt = getattr(tc.optim, name)(pair.groups("tc", True), **kw)
    opt_h = getattr(torch.optim, name)(pair.groups("th", True), **kw)
    for _ in range(3):
        pair.step(opt, opt_h)
    sd, sd_h = opt.state_dict(), opt_h.state_dict()
    assert sd["param_groups"] == [{k: v for k, v in g.items()} for g in sd_h["param_groups"]]
    assert sd["state"].keys() == sd_h["state"].keys()
    for i, fields in sd_h["state"].items():
        assert sd["state"][i].keys() == fields.keys()
        for key, v in fields.items():
            mine = sd["state"][i][key]
            if isinstance(v, torch.Tensor):
                assert isinstance(mine, tc.Tensor) and str(mine.dtype) == "tc." + str(v.dtype).split(".")[1]
                close(mine, v)
            else:
                assert mine == v


@pytest.mark.parametrize("name, kw", PY_CASES, ids=lambda v: v if isinstance(v, str) else str(sorted(v)))
def test_state_dicts_cross_between_tc_and_torch(name, kw):
    # torch's state after 3 steps loads into tc (params copied), and the
    # next 3 steps agree; then tc's state loads into a fresh torch optimizer.
    pair = Pair(2)
    opt_h = getattr(torch.optim, name)(pair.groups("th", True), **kw)
    opt = getattr(tc.optim, name)(pair.groups("tc", True), **kw)
    pair.torch_steps_into(opt_h, opt, 3)
    # torch's load converts state (NAdam's float32 mu_product to float64):
    # the torch side reloads its own state so that both sides hold the same.
    opt_h.load_state_dict(opt_h.state_dict())
    for _ in range(3):
        pair.step(opt, opt_h)
        pair.check()
    fresh = getattr(torch.optim, name)(pair.groups("th", True), **kw)
    fresh.load_state_dict(torch_from_tc(opt.state_dict()))
    for _ in range(2):
        pair.step(opt, fresh)
        pair.check()


@pytest.mark.parametrize("name, kw", PY_CASES, ids=lambda v: v if isinstance(v, str) else str(sorted(v)))
def test_state_dict_round_trip(name, kw):
    pair = Pair(3)
    opt = getattr(tc.optim, name)(pair.groups("tc", False), **kw)
    for _ in range(3):
        opt.zero_grad()
        pair.loss_tc().backward()
        opt.step()
    sd = opt.state_dict()
    clones = [tc.tensor(p.tolist(), dtype=tc.float64, requires_grad=True) for p in pair.tc]
    opt2 = getattr(tc.optim, name)(clones, **kw)
    opt2.load_state_dict(sd)
    # loading converts floating state to the parameters' dtype (as torch:
    # ASGD's float32 eta becomes float64), so the original reloads too.
    opt.load_state_dict(opt.state_dict())
    for _ in range(3):
        for o, ps in ((opt, pair.tc), (opt2, clones)):
            o.zero_grad()
            F.mse_loss(F.linear(tc.tensor(pair.x), ps[0], ps[1]), tc.tensor(pair.y)).backward()
            o.step()
    for a, b in zip(pair.tc, clones):
        assert a.tolist() == b.tolist()


def test_c_adam_state_dict_from_torch_loads():
    # torch keeps Adam's step as a float32 tensor; the C optimizer counts in int64.
    pair = Pair(4)
    opt_h = torch.optim.Adam(pair.th, lr=0.01, maximize=True)
    opt = tc.optim.Adam(pair.tc, lr=0.01, maximize=True)
    pair.torch_steps_into(opt_h, opt, 2)
    for _ in range(3):
        pair.step(opt, opt_h)
        pair.check()
    assert opt.state_dict()["param_groups"][0]["maximize"] is True


# ---------------------------------------------------------------- LBFGS
def rosenbrock_pair():
    x0 = np.array([-1.5, 2.0, 0.5, -0.3])
    xt = tc.tensor(x0, requires_grad=True)
    xh = torch.tensor(x0, requires_grad=True)

    def f(x):
        return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
    return xt, xh, f


@pytest.mark.parametrize("kw", [{}, {"line_search_fn": "strong_wolfe"}, {"history_size": 3, "max_iter": 7},
                                {"history_size": 2, "line_search_fn": "strong_wolfe", "lr": 0.5, "max_eval": 9}],
                         ids=str)
def test_lbfgs_matches_torch(kw):
    xt, xh, f = rosenbrock_pair()
    opt, opt_h = tc.optim.LBFGS([xt], **kw), torch.optim.LBFGS([xh], **kw)

    def closure_tc():
        opt.zero_grad()
        loss = f(xt)
        loss.backward()
        return loss

    def closure_th():
        opt_h.zero_grad()
        loss = f(xh)
        loss.backward()
        return loss

    for _ in range(4):
        lt, lh = opt.step(closure_tc), opt_h.step(closure_th)
        assert float(lt) == pytest.approx(float(lh), rel=1e-9, abs=1e-12)
        close(xt, xh, rtol=1e-8, atol=1e-10)
    st, sh = opt.state_dict()["state"][0], opt_h.state_dict()["state"][0]
    assert st["func_evals"] == sh["func_evals"] and st["n_iter"] == sh["n_iter"]
    assert len(st["old_dirs"]) == len(sh["old_dirs"])


def test_lbfgs_errors_as_torch():
    x = tc.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="per-parameter options"):
        tc.optim.LBFGS([{"params": [x]}, {"params": [tc.zeros(1, requires_grad=True)]}])
    opt = tc.optim.LBFGS([x], line_search_fn="bogus")

    def closure():
        opt.zero_grad()
        loss = ((x - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


# ---------------------------------------------------------------- SparseAdam
def test_sparse_adam_refuses_dense_gradients_as_torch():
    x, xh = tc.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    opt, opt_h = tc.optim.SparseAdam([x]), torch.optim.SparseAdam([xh])
    assert opt.step() is None and opt_h.step() is None  # no gradient yet: nothing to refuse
    (x * 2).sum().backward()
    (xh * 2).sum().backward()
    with pytest.raises(RuntimeError) as e_h:
        opt_h.step()
    with pytest.raises(RuntimeError) as e:
        opt.step()
    assert str(e.value) == str(e_h.value)
    assert x.tolist() == [1.0, 1.0, 1.0]
    assert opt.state_dict()["param_groups"] == opt_h.state_dict()["param_groups"]


# ---------------------------------------------------------------- errors
ERROR_CASES = [
    ("Adadelta", {"lr": -1}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"eps": -1}),
    ("Adadelta", {"weight_decay": -1}),
    ("Adamax", {"lr": -1}), ("Adamax", {"betas": (1.0, 0.9)}), ("Adamax", {"betas": (0.9, -0.1)}),
    ("Adamax", {"eps": -1}), ("NAdam", {"momentum_decay": -1}), ("NAdam", {"lr": -0.1}),
    ("RAdam", {"weight_decay": -1}), ("RAdam", {"betas": (0.9, 1.0)}), ("ASGD", {"lr": -1}),
    ("ASGD", {"weight_decay": -0.5}), ("Rprop", {"etas": (1.1, 1.2)}), ("Rprop", {"lr": -1}),
    ("SparseAdam", {"lr": 0.0}), ("SparseAdam", {"eps": 0.0}), ("SparseAdam", {"betas": (0.9, 1.5)}),
    ("Adam", {"lr": -1}), ("Adam", {"betas": (1.0, 0.9)}), ("AdamW", {"eps": -1}), ("SGD", {"lr": -1}),
    ("SGD", {"lr": 0.1, "nesterov": True}), ("SGD", {"lr": 0.1, "momentum": -1}), ("SGD", {}),
    ("RMSprop", {"alpha": -1}), ("RMSprop", {"momentum": -1}), ("Adagrad", {"lr_decay": -1}),
    ("Adagrad", {"initial_accumulator_value": -1}),
]


@pytest.mark.parametrize("name, kw", ERROR_CASES, ids=lambda v: v if isinstance(v, str) else str(v))
def test_invalid_options_raise_as_torch(name, kw):
    with pytest.raises(Exception) as e_h:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kw)
    with pytest.raises(Exception) as e:
        getattr(tc.optim, name)([tc.zeros(2, requires_grad=True)], **kw)
    assert type(e.value) is type(e_h.value)
    assert str(e.value) == str(e_h.value)


def test_param_group_protocol_as_torch():
    a, b = tc.zeros(2, requires_grad=True), tc.zeros(3, requires_grad=True)
    opt = tc.optim.Adadelta([a], lr=0.5)
    assert isinstance(opt, tc.optim.Optimizer)
    opt.add_param_group({"params": b, "rho": 0.5})
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["lr"] == 0.5
    assert type(opt.param_groups[1]) is dict
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        tc.optim.NAdam(a)
    with pytest.raises(ValueError, match="empty parameter list"):
        tc.optim.RAdam([])
    with pytest.raises(ValueError, match="non-leaf"):
        tc.optim.Rprop([a * 2])
    with pytest.raises(TypeError, match="ordered collections"):
        tc.optim.Adamax([{"params": {a}}])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tc.optim.ASGD([b, b])
    assert any("duplicate parameters" in str(x.message) for x in w)
    assert repr(opt).startswith("Adadelta (\nParameter Group 0\n")
    assert repr(tc.optim.Adam([tc.zeros(1, requires_grad=True)], amsgrad=True)).startswith("Adam (")


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_differentiable_is_refused(name):
    # torch accepts it; libtc's autograd refuses in-place updates of tensors
    # that require grad, so tc says so instead of stepping without a graph
    x = tc.zeros(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="differentiable=True is not supported"):
        getattr(tc.optim, name)([x], lr=0.1, differentiable=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        tc.optim.Adam([x], amsgrad=True, differentiable=True)


def test_c_optimizer_repr_as_torch():
    x, xh = tc.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    assert repr(tc.optim.SGD([x], lr=0.1, momentum=0.9)) == repr(torch.optim.SGD([xh], lr=0.1, momentum=0.9))
    assert repr(tc.optim.Adadelta([x])) == repr(torch.optim.Adadelta([xh]))


def test_zero_grad_and_closure():
    x = tc.ones(2, requires_grad=True)
    opt = tc.optim.Adamax([x], lr=0.1)

    def closure():
        loss = (x * x).sum()
        loss.backward()
        return loss
    with tc.no_grad():  # the closure runs with grad enabled anyway
        loss = opt.step(closure)
    assert float(loss) == 2.0 and x.grad is not None
    opt.zero_grad(set_to_none=False)
    assert x.grad is not None and x.grad.tolist() == [0.0, 0.0]
    opt.zero_grad(set_to_none=True)
    assert x.grad is None
    # the C-backed optimizers too
    y = tc.ones(2, requires_grad=True)
    sgd = tc.optim.SGD([y], lr=0.1)
    (y * y).sum().backward()
    sgd.zero_grad(set_to_none=False)
    assert y.grad.tolist() == [0.0, 0.0]


def test_amsgrad_routes_to_python_adam():
    x = tc.zeros(2, requires_grad=True)
    from tc.optim.adam_python import PythonAdam, PythonAdamW
    opt = tc.optim.Adam([x], lr=0.1, amsgrad=True)
    assert isinstance(opt, tc.optim.Adam) and isinstance(opt, PythonAdam)
    assert isinstance(tc.optim.AdamW([x], amsgrad=True), PythonAdamW)
    plain = tc.optim.Adam([x], lr=0.1)
    assert not isinstance(plain, PythonAdam) and plain._handles  # the C step
    grouped = tc.optim.Adam([{"params": [x], "amsgrad": True}], lr=0.1)
    assert isinstance(grouped, PythonAdam)
    with pytest.raises(ValueError, match="amsgrad"):
        tc.optim.Adam(iter([{"params": [x], "amsgrad": True}]))


def test_python_optimizers_with_schedulers():
    pair = Pair(5)
    opt = tc.optim.NAdam(pair.groups("tc", True), lr=0.1)
    opt_h = torch.optim.NAdam(pair.groups("th", True), lr=0.1)
    s = tc.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    s_h = torch.optim.lr_scheduler.StepLR(opt_h, step_size=2, gamma=0.5)
    for _ in range(6):
        pair.step(opt, opt_h)
        s.step()
        s_h.step()
        pair.check()
    assert s.get_last_lr() == s_h.get_last_lr()


def _signed_sgd(base, no_grad):
    """A user optimizer written against torch's base class (signSGD with decay)."""

    class SignSGD(base):
        def __init__(self, params, lr=0.01, decay=0.0):
            super().__init__(params, dict(lr=lr, decay=decay))

        def step(self, closure=None):
            with no_grad():
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is None:
                            continue
                        state = self.state[p]
                        state["n"] = state.get("n", 0) + 1
                        p.mul_(1 - group["decay"]).sub_(p.grad.sign() * group["lr"])
    return SignSGD


def test_user_subclass_of_optimizer_as_torch():
    pair = Pair(6)
    opt = _signed_sgd(tc.optim.Optimizer, tc.no_grad)(pair.groups("tc", True), lr=0.1, decay=0.01)
    opt_h = _signed_sgd(torch.optim.Optimizer, torch.no_grad)(pair.groups("th", True), lr=0.1, decay=0.01)
    for _ in range(4):
        pair.step(opt, opt_h)
        pair.check()
    assert opt.state_dict() == opt_h.state_dict()
    assert isinstance(opt, tc.optim.Optimizer) and repr(opt) == repr(opt_h)


def test_c_optimizer_state_snapshot_and_no_pickling():
    import copy
    x = tc.ones(2, requires_grad=True)
    opt = tc.optim.Adam([x], lr=0.1)
    assert opt.state == {}
    (x * x).sum().backward()
    opt.step()
    assert set(opt.state[x]) == {"step", "exp_avg", "exp_avg_sq"} and int(opt.state[x]["step"]) == 1
    with pytest.raises(TypeError, match="state_dict"):
        copy.deepcopy(opt)
