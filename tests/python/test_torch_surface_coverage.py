"""How much of PyTorch 1.13's surface tc has: the public attributes of
torch.Tensor (torch_tensor_attrs_1_13.txt) and the public functions of the
torch namespace (torch_functions_1_13.txt), both generated from torch by
gen_torch_surface_lists.py. Prints the coverage percentages (pytest -s) and
fails on any name a list marks "required" that tc lacks, or when a
percentage falls below the MIN_* floor, so coverage can only grow."""
import os

import tc

HERE = os.path.dirname(os.path.abspath(__file__))

# Coverage reached so far, rounded down: the percentages may only grow.
MIN_TENSOR_ATTRIBUTE_PCT = 93
MIN_TORCH_FUNCTION_PCT = 97


def _read(name):
    """(all names, required names) of a list file."""
    names, required = [], []
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split()
            names.append(parts[0])
            if parts[1:] == ["required"]:
                required.append(parts[0])
    return names, required


def _coverage(title, names, has):
    have = [n for n in names if has(n)]
    pct = 100.0 * len(have) / len(names)
    print("\n%s: %d of %d (%.1f%%)" % (title, len(have), len(names), pct))
    return pct


def test_tensor_attribute_coverage():
    names, required = _read("torch_tensor_attrs_1_13.txt")
    assert len(names) > 500  # the list is torch's, not a handful
    pct = _coverage("torch.Tensor attributes in tc.Tensor", names, lambda n: hasattr(tc.Tensor, n))
    assert pct >= MIN_TENSOR_ATTRIBUTE_PCT, "Tensor attribute coverage fell to %.1f%%" % pct
    lost = [n for n in required if not hasattr(tc.Tensor, n)]
    assert not lost, "tc.Tensor lacks required PyTorch attributes: %s" % ", ".join(lost)


def test_torch_function_coverage():
    names, required = _read("torch_functions_1_13.txt")
    assert len(names) > 400
    pct = _coverage("torch functions in tc", names, lambda n: callable(getattr(tc, n, None)))
    assert pct >= MIN_TORCH_FUNCTION_PCT, "torch function coverage fell to %.1f%%" % pct
    lost = [n for n in required if not callable(getattr(tc, n, None))]
    assert not lost, "tc lacks required PyTorch functions: %s" % ", ".join(lost)


def test_new_surface_behaves_like_torch(torch):
    """A few of the names this list made required, checked against torch."""
    import numpy as np
    a = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
    b = np.arange(12, dtype=np.float64).reshape(3, 4) / 5 - 1
    v = np.array([0.5, -1.0, 2.0])
    ta, tb, tv = (tc.tensor(x) for x in (a, b, v))
    pa, pb, pv = (torch.tensor(x) for x in (a, b, v))
    np.testing.assert_allclose(tc.mm(ta, tb).numpy(), torch.mm(pa, pb).numpy(), rtol=1e-12)
    np.testing.assert_allclose(ta.mv(tv).numpy(), pa.mv(pv).numpy(), rtol=1e-12)
    np.testing.assert_allclose(tc.kron(ta, tb).numpy(), torch.kron(pa, pb).numpy(), rtol=1e-12)
    np.testing.assert_allclose(tc.trace(tb[:, :3]).numpy(), torch.trace(pb[:, :3]).numpy(), rtol=1e-12)
