"""PyTorch forms the graykode/nlp-tutorial conformance programs use, against
PyTorch 1.13: nn.Embedding.from_pretrained, optimizers over frozen
parameters, tensors from lists of numpy arrays, F.softmax without dim."""
import warnings

import pytest

import tc
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

TABLE = np.arange(12, dtype=np.float32).reshape(4, 3) / 5


@pytest.mark.parametrize("freeze", [True, False])
def test_embedding_from_pretrained(freeze):
    got = tc.nn.Embedding.from_pretrained(tc.tensor(TABLE), freeze=freeze)
    want = torch.nn.Embedding.from_pretrained(torch.tensor(TABLE), freeze=freeze)
    assert isinstance(got, tc.nn.Embedding)
    assert got.weight.requires_grad == want.weight.requires_grad == (not freeze)
    assert got.num_embeddings == want.num_embeddings and got.embedding_dim == want.embedding_dim
    idx = [[3, 0], [1, 1]]
    np.testing.assert_array_equal(got(tc.tensor(idx)).detach().numpy(), want(torch.tensor(idx)).detach().numpy())
    assert sorted(got.state_dict()) == sorted(want.state_dict())


def test_embedding_from_pretrained_shares_memory_and_padding():
    table = tc.tensor(TABLE)
    emb = tc.nn.Embedding.from_pretrained(table, freeze=False, padding_idx=1)
    want = torch.nn.Embedding.from_pretrained(torch.tensor(TABLE), freeze=False, padding_idx=1)
    assert emb.padding_idx == want.padding_idx == 1
    # the padding row keeps the given values (PyTorch does not zero it)
    np.testing.assert_array_equal(emb.weight.detach().numpy()[1], TABLE[1])
    emb(tc.tensor([1, 2, 1])).sum().backward()
    want(torch.tensor([1, 2, 1])).sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy(), want.weight.grad.numpy())
    with tc.no_grad():
        emb.weight.mul_(2.0)
    np.testing.assert_array_equal(table.numpy(), TABLE * 2)


def test_embedding_from_pretrained_errors():
    with pytest.raises(AssertionError):
        torch.nn.Embedding.from_pretrained(torch.zeros(3))
    with pytest.raises(AssertionError):
        tc.nn.Embedding.from_pretrained(tc.zeros(3))
    with pytest.raises(NotImplementedError):
        tc.nn.Embedding.from_pretrained(tc.tensor(TABLE), max_norm=1.0)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_optimizer_over_frozen_parameters(name):
    def run(m):
        trained = m.nn.Parameter(m.tensor([1.0, -2.0, 0.5]))
        frozen = m.nn.Parameter(m.tensor([3.0, 1.0, 2.0]), requires_grad=False)
        opt = getattr(m.optim, name)([trained, frozen], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (trained * frozen).pow(2).sum().backward()
            opt.step()
        assert frozen.grad is None and not frozen.requires_grad
        assert len(opt.param_groups[0]["params"]) == 2
        return trained.detach().numpy().copy(), frozen.detach().numpy().copy()
    got, want = run(tc), run(torch)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[1], want[1])


def test_optimizer_frozen_parameter_unfrozen_later():
    def run(m):
        p = m.nn.Parameter(m.tensor([1.0, 2.0]), requires_grad=False)
        q = m.nn.Parameter(m.tensor([0.5]))
        opt = m.optim.SGD([p, q], lr=0.5)
        p.requires_grad_(True)
        (p.sum() * q).sum().backward()
        opt.step()
        return p.detach().numpy().copy()
    np.testing.assert_allclose(run(tc), run(torch))


def test_tensor_from_list_of_numpy_arrays():
    rows = [np.asarray([3, 1, 2]), np.asarray([0, 4, 5])]
    onehots = [np.eye(4)[[0, 2]], np.eye(4)[[1, 3]]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns that this is slow
        want_long = torch.LongTensor(rows)
        want_float = torch.FloatTensor(onehots)
        want_t = torch.tensor([np.array([1.5, 2.5]), [3.0, 4.0]], dtype=torch.float32)
    got_long, got_float = tc.LongTensor(rows), tc.FloatTensor(onehots)
    got_t = tc.tensor([np.array([1.5, 2.5]), [3.0, 4.0]], dtype=tc.float32)
    assert got_long.dtype == tc.int64 and got_float.dtype == tc.float32
    np.testing.assert_array_equal(got_long.numpy(), want_long.numpy())
    np.testing.assert_array_equal(got_float.numpy(), want_float.numpy())
    np.testing.assert_array_equal(got_t.numpy(), want_t.numpy())
    assert tuple(tc.tensor([np.int64(3), np.array(4)]).tolist()) == (3, 4)


def test_tensor_from_ragged_numpy_rows_is_refused():
    ragged = [np.array([1, 2]), np.array([1])]
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        torch.tensor(ragged)
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        tc.tensor(ragged)


@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4), (2, 3, 4, 2)])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_implicit_dim(shape, name):
    x = np.random.RandomState(0).standard_normal(shape)
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        got = getattr(F, name)(tc.tensor(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(torch.nn.functional, name)(torch.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_softmax_dtype_and_positional_dim():
    x = np.random.RandomState(1).standard_normal((3, 4)).astype(np.float32)
    got = F.softmax(tc.tensor(x), 0, dtype=tc.float64)
    want = torch.nn.functional.softmax(torch.tensor(x), 0, dtype=torch.float64)
    assert got.dtype == tc.float64
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_allclose(F.log_softmax(tc.tensor(x), dim=1).numpy(),
                               torch.nn.functional.log_softmax(torch.tensor(x), dim=1).numpy(), rtol=1e-5)
