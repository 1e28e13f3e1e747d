"""PyTorch forms that public programs of the conformance suite use (wgan_gp,
mnist_hogwild, tonyduan/normalizing-flows), against PyTorch 1.13: the
torch.utils.data submodules, torch.multiprocessing children spawned under
tc.compat's hook, ModuleList's list interface, ``~mask``,
``t.flip(dims=...)`` and ``x[key] += v`` on a tensor that requires grad."""
import importlib
import multiprocessing
import multiprocessing.spawn

import pytest

import tc
import tc.compat
import tc.nn as nn
from tc._errors import AutogradError

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


# -- torch.utils.data.sampler / dataset / dataloader / distributed ---------------------------------

@pytest.mark.parametrize("sub", ["sampler", "dataset", "dataloader", "distributed"])
def test_data_submodules_hold_the_same_objects(sub):
    mod = importlib.import_module("tc.utils.data." + sub)
    assert getattr(tc.utils.data, sub) is mod
    ref = importlib.import_module("torch.utils.data." + sub)
    assert mod.__all__
    for name in mod.__all__:
        assert hasattr(ref, name), name  # only names PyTorch's module has
        assert getattr(mod, name) is getattr(tc.utils.data, name)


def test_from_torch_utils_data_sampler_import_under_the_hook():
    tc.compat.install()
    try:
        sampler = importlib.import_module("torch.utils.data.sampler")
        assert sampler.Sampler is tc.utils.data.Sampler
        assert sampler.RandomSampler is tc.utils.data.RandomSampler
        dataset = importlib.import_module("torch.utils.data.dataset")
        assert dataset.TensorDataset is tc.utils.data.TensorDataset
    finally:
        tc.compat.uninstall()


# -- spawned children inherit the import hook -------------------------------------------------------

def test_preparation_data_carries_the_hook_only_while_installed():
    key = "tc_compat_import_hook"
    assert key not in multiprocessing.spawn.get_preparation_data("x")
    tc.compat.install()
    try:
        assert key in multiprocessing.spawn.get_preparation_data("x")
    finally:
        tc.compat.uninstall()
    assert key not in multiprocessing.spawn.get_preparation_data("x")
    assert multiprocessing.spawn.get_preparation_data is tc.compat._spawn_children._real_get_preparation_data


_CHILD = ("import sys, torch\n"
          "sys.exit(0 if type(torch.zeros(1)).__module__.split('.')[0] == 'tc' else 3)\n")


def test_spawned_child_imports_tc_as_torch():
    tc.compat.install()
    try:
        p = multiprocessing.get_context("spawn").Process(target=exec, args=(_CHILD, {}))
        p.start()
        p.join(60)
    finally:
        tc.compat.uninstall()
    assert p.exitcode == 0


# -- ModuleList ------------------------------------------------------------------------------------

def _lists(lib):
    return lib.nn.ModuleList([lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1)])


def _keys(m):
    return sorted(m.state_dict())


def test_module_list_iadd_extend_add_insert():
    got, want = _lists(tc), _lists(torch)
    got += [tc.nn.Linear(1, 4)]
    want += [torch.nn.Linear(1, 4)]
    assert _keys(got) == _keys(want) and len(got) == len(want) == 4
    got.extend((tc.nn.Tanh(),))
    want.extend((torch.nn.Tanh(),))
    got.insert(1, tc.nn.Linear(3, 3))
    want.insert(1, torch.nn.Linear(3, 3))
    assert [type(m).__name__ for m in got] == [type(m).__name__ for m in want]
    assert _keys(got) == _keys(want)
    both = got + [tc.nn.Sigmoid()]
    ref = want + [torch.nn.Sigmoid()]
    assert type(both) is tc.nn.ModuleList and len(both) == len(ref) == 7
    assert len(got) == 6  # + makes a new list


def test_module_list_slices_setitem_delitem_pop():
    got, want = _lists(tc), _lists(torch)
    part = got[1:]
    assert type(part) is tc.nn.ModuleList and len(part) == len(want[1:]) == 2
    assert got[-1] is list(got)[2]
    got[0] = tc.nn.Linear(2, 5)
    want[0] = torch.nn.Linear(2, 5)
    assert tuple(got[0].weight.shape) == tuple(want[0].weight.shape)
    del got[0]
    del want[0]
    assert _keys(got) == _keys(want)  # renumbered from "0"
    popped, ref = got.pop(-1), want.pop(-1)
    assert type(popped).__name__ == type(ref).__name__ and len(got) == len(want) == 1
    g2, w2 = _lists(tc), _lists(torch)
    del g2[::2]
    del w2[::2]
    assert [type(m).__name__ for m in g2] == [type(m).__name__ for m in w2] == ["ReLU"]
    assert "0" not in dir(g2)


def test_module_list_errors_match():
    got, want = _lists(tc), _lists(torch)
    with pytest.raises(IndexError):
        want[3]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        got[3]
    with pytest.raises(TypeError) as ref:
        want.extend(5)
    with pytest.raises(TypeError) as err:
        got.extend(5)
    assert str(err.value) == str(ref.value)


def test_module_list_extend_trains_like_torch():
    # the flow's pattern: layers added by +=, their parameters optimized
    got, want = tc.nn.ModuleList(), torch.nn.ModuleList()
    got += [tc.nn.Linear(2, 2)]
    want += [torch.nn.Linear(2, 2)]
    got.load_state_dict({k: tc.tensor(v.detach().numpy()) for k, v in want.state_dict().items()})
    assert len(list(got.parameters())) == len(list(want.parameters())) == 2


# -- ~tensor, flip(dims=) ---------------------------------------------------------------------------

@pytest.mark.parametrize("values,dtype", [([True, False, True], "bool"), ([0, 5, -3], "int64"),
                                          ([0, 7, 255], "uint8"), ([1, -2], "int32")])
def test_invert(values, dtype):
    got = ~tc.tensor(values, dtype=getattr(tc, dtype))
    want = ~torch.tensor(values, dtype=getattr(torch, dtype))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_invert_float_is_a_type_error():
    with pytest.raises(TypeError) as ref:
        ~torch.tensor([1.5])
    with pytest.raises(TypeError) as err:
        ~tc.tensor([1.5])
    assert str(err.value) == str(ref.value)


@pytest.mark.parametrize("args,kwargs", [((1,), {}), ((0, 1), {}), (((0, 1),), {}), ((), {"dims": (1,)}),
                                         ((), {"dims": [0]})])
def test_flip_forms(args, kwargs):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(tc.tensor(a).flip(*args, **kwargs).numpy(),
                                  torch.tensor(a).flip(*args, **kwargs).numpy())


def test_flip_dims_keyword_keeps_the_gradient():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    x, y = tc.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    w = np.array([1.0, 2.0, 3.0])
    (x.flip(dims=(1,)) * tc.tensor(w)).sum().backward()
    (y.flip(dims=(1,)) * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())


# -- x[key] op= v on a tensor that requires grad ------------------------------------------------------

def _augmented(lib, a):
    leaf = lib.tensor(a, requires_grad=True)
    x = leaf * 2.0
    x[..., -1] += 1e-3          # the spline flow's searchsorted
    x[:, 0] *= 3.0
    x[1] -= x[0].detach()
    x[0, 1:] /= 4.0
    (x * x).sum().backward()
    return x.detach().numpy(), leaf.grad.numpy()


def test_augmented_subscript_assignment_through_a_view():
    a = np.linspace(-1, 1, 8).reshape(2, 4)
    got, want = _augmented(tc, a), _augmented(torch, a)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


def test_augmented_name_on_a_view_still_refuses():
    # PyTorch writes through the view into x; tc cannot record that, and
    # must not leave x silently unchanged
    x = tc.tensor([1.0, 2.0], requires_grad=True) * 2.0
    v = x[0:1]
    with pytest.raises(AutogradError):
        v += 1.0
