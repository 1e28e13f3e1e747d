"""cross_entropy over rows wider than the CPU kernel's 2048-logit block (a language model's
vocabulary: src/cpu/nn.cpp sums such rows in several running values) against PyTorch 1.13,
float32: the loss, its gradient, and rows with -inf logits or one dominating logit."""
import pytest

import tc
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


def to_np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float32).reshape(tuple(t.shape))


@pytest.mark.parametrize("classes", [2049, 5003, 10000])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_wide_rows_match_torch(classes, reduction):
    rng = np.random.default_rng(classes)
    a = (rng.standard_normal((6, classes)) * 4).astype(np.float32)
    a[1, ::7] = -np.inf  # some classes ruled out
    a[2, 17] = 80.0  # one logit dominates the row
    t = rng.integers(0, classes, 6)
    t[1] = 1  # a finite logit of row 1
    x_tc, x_ref = tc.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    l_tc = F.cross_entropy(x_tc, tc.tensor(t), reduction=reduction)
    l_ref = torch.nn.functional.cross_entropy(x_ref, torch.tensor(t), reduction=reduction)
    np.testing.assert_allclose(to_np(l_tc), l_ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    w = rng.standard_normal(tuple(l_ref.shape)).astype(np.float32)
    (l_tc * tc.tensor(w)).sum().backward()
    (l_ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(to_np(x_tc.grad), x_ref.grad.numpy(), rtol=1e-4, atol=1e-7)
