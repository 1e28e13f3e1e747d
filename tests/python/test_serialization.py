"""Saving and loading: safetensors files checked by an independent
reader written here from the format's specification (numpy + json), a
PyTorch state dict loaded into the same architecture in tc, Module and
optimizer state dicts, the generator's state, a training run resumed bit for
bit, and pickling that keeps dtype, shape, requires_grad and Parameter-ness."""
import json
import os
import pickle
import struct

import numpy as np
import pytest

import tc
from tc import nn

NP_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
             "U8": "u1", "BOOL": "?"}
RANK = {"BOOL": 0, "U8": 1, "I8": 2, "I16": 5, "F16": 7, "BF16": 8, "I32": 9, "F32": 11, "F64": 12, "I64": 13}


def read_safetensors(path):
    """An independent reader: (header dict, {name: numpy array or raw bytes})."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    assert n % 8 == 0, "the header is padded to a multiple of 8"
    text = blob[8:8 + n].decode("utf-8")
    assert text.rstrip(" ") == text.rstrip(), "padding is spaces"
    header = json.loads(text)
    data = blob[8 + n:]
    out, end = {}, 0
    names = [k for k in header if k != "__metadata__"]
    for name in names:
        info = header[name]
        b, e = info["data_offsets"]
        assert b == end, "tensors are contiguous, in the order of the header"
        end = e
        raw = data[b:e]
        if info["dtype"] in NP_DTYPES:
            out[name] = np.frombuffer(raw, dtype=NP_DTYPES[info["dtype"]]).reshape(info["shape"])
        else:
            out[name] = raw
    assert end == len(data)
    order = [(-RANK[header[k]["dtype"]], k) for k in names]
    assert order == sorted(order), "descending dtype alignment, then name"
    return header, out


def test_save_file_matches_an_independent_reader(tmp_path):
    tensors = {
        "w": tc.tensor([[1.5, -2.0], [3.0, 4.25]]),
        "idx": tc.tensor([1, 2, 3]),
        "mask": tc.tensor([True, False]),
        "half": tc.tensor([0.5, 2.0], dtype=tc.float16),
        "d": tc.tensor(3.0, dtype=tc.float64),
        "b": tc.tensor([7, 8], dtype=tc.uint8),
        "t": tc.arange(6.0).reshape(2, 3).t(),  # non-contiguous: saved as its values
    }
    path = str(tmp_path / "m.safetensors")
    tc.save_file(tensors, path, metadata={"format": "pt"})
    header, arrays = read_safetensors(path)
    assert header["__metadata__"] == {"format": "pt"}
    assert list(header)[1:] == ["idx", "d", "t", "w", "half", "b", "mask"]
    for name, t in tensors.items():
        np.testing.assert_array_equal(arrays[name], t.numpy())
        assert list(header[name]["shape"]) == list(t.shape)
    # And back through libtc, mapped and copied, and from bytes.
    for loaded in (tc.load_file(path), tc.load_file(path, mmap=False),
                   tc.serialization.load_bytes(open(path, "rb").read())):
        assert set(loaded) == set(tensors)
        for name, t in tensors.items():
            assert loaded[name].dtype == t.dtype and loaded[name].tolist() == t.tolist()
    assert tc.serialization.save_bytes(tensors, {"format": "pt"}) == open(path, "rb").read()


def test_bad_files_raise_io_errors(tmp_path):
    path = tmp_path / "bad.safetensors"
    header = b'{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}'
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 8)
    with pytest.raises(tc.TcIOError, match='"x".*needs 12'):
        tc.load_file(str(path))
    with pytest.raises(tc.TcIOError, match="cannot open"):
        tc.load_file(str(tmp_path / "missing.safetensors"))


class MLP(nn.Module):
    def __init__(self, p=0.0):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(self.drop(tc.relu(self.fc1(x))))


def test_torch_state_dict_loads_into_the_same_architecture(tmp_path, torch):
    tm = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    names = {"0.weight": "fc1.weight", "0.bias": "fc1.bias", "2.weight": "fc2.weight", "2.bias": "fc2.bias"}
    sd = {names[k]: tc.from_numpy(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
    path = str(tmp_path / "torch.safetensors")
    tc.save(sd, path)
    m = MLP()
    result = m.load_state_dict(tc.load(path))
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32)
    np.testing.assert_allclose(m(tc.from_numpy(x)).detach().numpy(), tm(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_load_state_dict_strictness_like_pytorch():
    m = MLP()
    sd = m.state_dict()
    del sd["fc2.bias"]
    sd["extra"] = tc.zeros(1)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(sd)
    assert 'Missing key(s) in state_dict: "fc2.bias"' in str(e.value)
    assert 'Unexpected key(s) in state_dict: "extra"' in str(e.value)
    result = m.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc2.bias"] and result.unexpected_keys == ["extra"]
    sd2 = m.state_dict()
    sd2["fc1.weight"] = tc.zeros(2, 2)
    with pytest.raises(RuntimeError, match="size mismatch for fc1.weight"):
        m.load_state_dict(sd2)
    assert str(m.load_state_dict(m.state_dict())) == "<All keys matched successfully>"


def test_state_dict_includes_buffers():
    m = MLP()
    m.register_buffer("running", tc.ones(3))
    assert "running" in m.state_dict()


def train(model, opt, x, y, steps):
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_training_resumes_bit_for_bit(tmp_path, kind):
    def make():
        tc.manual_seed(3)
        x, y = tc.randn(32, 6), tc.tensor([i % 3 for i in range(32)])
        model = MLP(p=0.25)
        if kind == "sgd":
            opt = tc.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        else:
            opt = tc.optim.AdamW(model.parameters(), lr=0.01)
        return x, y, model, opt

    x, y, model, opt = make()
    full = train(model, opt, x, y, 7)
    final = {k: v.numpy().copy() for k, v in model.state_dict().items()}

    x, y, model, opt = make()
    first = train(model, opt, x, y, 3)
    assert first == full[:3]
    path = str(tmp_path / "ckpt.safetensors")
    tc.save({"model": model.state_dict(), "optim": opt.state_dict(), "rng": tc.get_rng_state(), "epoch": 3},
            path)

    x, y, model, opt = make()
    with tc.no_grad():  # other weights and generator state: the checkpoint's must win
        model.fc1.weight.fill_(0.0)
    tc.manual_seed(99)
    ckpt = tc.load(path)
    assert ckpt["epoch"] == 3
    model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optim"])
    tc.set_rng_state(ckpt["rng"])
    rest = train(model, opt, x, y, 4)
    assert rest == full[3:]
    for k, v in model.state_dict().items():
        assert v.numpy().tobytes() == final[k].tobytes(), k


def test_optimizer_state_dict_layout():
    m = MLP()
    opt = tc.optim.Adam(m.parameters(), lr=0.01, betas=(0.8, 0.9))
    sd = opt.state_dict()
    assert sd["state"] == {} and sd["param_groups"][0]["betas"] == (0.8, 0.9)
    assert sd["param_groups"][0]["params"] == [0, 1, 2, 3]
    x, y = tc.randn(4, 6), tc.tensor([0, 1, 2, 0])
    train(m, opt, x, y, 2)
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1, 2, 3]
    assert sd["state"][0]["step"].item() == 2 and sd["state"][0]["exp_avg"].shape == m.fc1.weight.shape
    sd["param_groups"][0]["lr"] = 0.5
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.5
    bad = opt.state_dict()
    bad["state"][1]["exp_avg"] = tc.zeros(7)
    with pytest.raises(tc.ShapeError):
        opt.load_state_dict(bad)
    assert opt.state_dict()["state"][1]["exp_avg"].shape == m.fc1.bias.shape


def test_rng_state_round_trip():
    tc.manual_seed(5)
    s = tc.get_rng_state()
    assert s.dtype == tc.uint8 and list(s.shape) == [16]
    a = tc.rand(4).tolist()
    tc.set_rng_state(s)
    assert tc.rand(4).tolist() == a


def test_pickle_keeps_dtype_shape_grad_and_parameter():
    t = tc.tensor([[1.5, 2.5]], dtype=tc.float64, requires_grad=True)
    p = nn.Parameter(tc.randn(3, 2))
    h = tc.tensor([1.0, 65504.0], dtype=tc.bfloat16)
    for x in (t, p, h, tc.tensor([True, False]), tc.zeros(0, 3)):
        y = pickle.loads(pickle.dumps(x))
        assert type(y) is type(x) and y.dtype == x.dtype and y.shape == x.shape
        assert y.requires_grad == x.requires_grad and y.tolist() == x.tolist()
    assert isinstance(pickle.loads(pickle.dumps(p)), nn.Parameter)
    # A binary buffer, not nested lists.
    big = tc.randn(1000)
    assert isinstance(big.__reduce__()[1][0], bytes)
    assert len(pickle.dumps(big)) < 4000 + 200
    with pytest.raises(RuntimeError, match="non-leaf"):
        pickle.dumps(t * 2)


def test_save_rejects_what_it_cannot_store(tmp_path):
    # other objects are pickled (a whole Module, as torch.save); a lambda cannot be
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        tc.save({"f": lambda: 1}, str(tmp_path / "x.safetensors"))
    assert not os.path.exists(str(tmp_path / "x.safetensors"))


class _TiedModel(tc.nn.Module):
    """A module saved whole (torch.save(model, f)): tied weights, a buffer."""

    def __init__(self):
        super().__init__()
        self.emb = tc.nn.Embedding(5, 4)
        self.head = tc.nn.Linear(4, 5)
        self.head.weight = self.emb.weight
        self.bn = tc.nn.BatchNorm1d(4)


def test_a_whole_module_saved_to_a_file_object_comes_back_with_its_ties(tmp_path):
    import io
    m = _TiedModel()
    m.bn(tc.randn(3, 4))  # moves the running statistics
    f = io.BytesIO()
    tc.save(m, f)
    f.seek(0)
    m2 = tc.load(f)
    assert type(m2) is _TiedModel and m2.head.weight is m2.emb.weight
    assert isinstance(m2.emb.weight, tc.nn.Parameter) and m2.emb.weight.requires_grad
    assert m2.emb.weight.tolist() == m.emb.weight.tolist()
    assert m2.bn.running_mean.tolist() == m.bn.running_mean.tolist()
    assert m2.bn.num_batches_tracked.item() == 1
    path = str(tmp_path / "ckpt.tc")
    tc.save({"model": m, "epoch": 3}, path)  # inside a checkpoint dict, to a path
    d = tc.load(path)
    assert d["epoch"] == 3 and d["model"].head.bias.tolist() == m.head.bias.tolist()
