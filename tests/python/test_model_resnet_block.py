"""Whole-model parity: a ResNet basic block (conv3x3-BN-ReLU-conv3x3-BN plus a
1x1-conv-BN shortcut, ReLU) with a pooled linear head, trained a few SGD
steps in tc and in PyTorch 1.13 from the same initial weights, gives the same
loss at every step, the same running statistics, and the same eval-mode
output."""
import pytest

import tc
import tc.nn as nn
import tc.nn.functional as F
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


def block(lib):
    """The same architecture from either library's nn (tc.nn or torch.nn)."""

    class BasicBlock(lib.Module):
        def __init__(self, cin, cout):
            super().__init__()
            self.conv1 = lib.Conv2d(cin, cout, 3, padding=1, bias=False)
            self.bn1 = lib.BatchNorm2d(cout)
            self.conv2 = lib.Conv2d(cout, cout, 3, padding="same", bias=False)
            self.bn2 = lib.BatchNorm2d(cout, momentum=None)  # the cumulative average too
            self.short = lib.Conv2d(cin, cout, 1, bias=False)
            self.short_bn = lib.BatchNorm2d(cout)
            self.pool = lib.AdaptiveAvgPool2d(1)
            self.head = lib.Linear(cout, 3)

        def forward(self, x):
            f = F if lib is nn else torch.nn.functional
            y = f.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            y = f.relu(y + self.short_bn(self.short(x)))
            return self.head(self.pool(y).flatten(1))

    return BasicBlock(3, 4)


def to_tc(t):
    return tc.tensor(t.detach().numpy())


def np_of(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_resnet_block_trains_like_torch(dtype):
    need("tc_batch_norm", "tc_conv2d_padded", "tc_adaptive_avg_pool2d")
    tdt = getattr(torch, dtype)
    torch.manual_seed(0)
    ref = block(torch.nn).to(tdt)
    prev = tc.get_default_dtype()
    tc.set_default_dtype(dtype)  # parameters and buffers in dtype
    try:
        model = block(nn)
    finally:
        tc.set_default_dtype(prev)
    model.load_state_dict({k: to_tc(v) for k, v in ref.state_dict().items()})
    for p in model.parameters():
        assert p.dtype.name == dtype
    opt_t = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    opt_c = tc.optim.SGD(list(model.parameters()), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(3)
    tol = dict(rtol=1e-9, atol=1e-11) if dtype == "float64" else dict(rtol=2e-4, atol=2e-5)
    for step in range(5):
        x = rng.standard_normal((4, 3, 6, 5)).astype(dtype) * (1 + step)
        y = rng.integers(0, 3, size=4)
        opt_t.zero_grad()
        opt_c.zero_grad()
        loss_t = torch.nn.functional.cross_entropy(ref(torch.tensor(x)), torch.tensor(y))
        loss_c = F.cross_entropy(model(tc.tensor(x)), tc.tensor(y))
        np.testing.assert_allclose(float(loss_c.item()), float(loss_t.item()), **tol, err_msg="step %d" % step)
        loss_t.backward()
        loss_c.backward()
        opt_t.step()
        opt_c.step()
    ours = model.state_dict()
    for k, v in ref.state_dict().items():
        np.testing.assert_allclose(np_of(ours[k]), v.detach().double().numpy(), **tol, err_msg=k)
    assert int(ours["bn1.num_batches_tracked"].item()) == 5
    ref.eval()
    model.eval()
    x = rng.standard_normal((2, 3, 6, 5)).astype(dtype)
    np.testing.assert_allclose(np_of(model(tc.tensor(x))), ref(torch.tensor(x)).detach().double().numpy(), **tol)
