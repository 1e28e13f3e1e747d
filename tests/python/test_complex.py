"""Complex tensors (complex64, complex128) against PyTorch 1.13: creation,
views, arithmetic, reductions, promotion, printing, numpy, the refusal of the
ops that do not take them, and gradients (PyTorch's conjugate Wirtinger
convention) in complex128."""

import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")


def T(t):
    """tc -> torch (through numpy)."""
    return torch.from_numpy(np.array(t.detach().numpy()))


def close(a, b, tol=1e-6):
    a = a.detach().numpy() if isinstance(a, tc.Tensor) else a.detach().numpy()
    b = b.detach().numpy() if isinstance(b, (tc.Tensor, torch.Tensor)) else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def rand_complex(shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def test_dtype_names_and_promotion():
    assert tc.cfloat is tc.complex64 and tc.cdouble is tc.complex128
    assert tc.complex64.itemsize == 8 and tc.complex128.itemsize == 16
    assert tc.complex64.is_complex and not tc.float32.is_complex
    pairs = [(tc.float32, tc.complex64), (tc.float64, tc.complex64), (tc.int64, tc.complex128),
             (tc.bool, tc.complex64), (tc.complex64, tc.complex128), (tc.float16, tc.complex64)]
    for a, b in pairs:
        want = torch.promote_types(getattr(torch, a.name), getattr(torch, b.name))
        assert tc.promote_types(a, b).name == str(want).replace("torch.", "")
    z = tc.zeros(2, dtype=tc.complex64)
    for other in (tc.zeros(2), tc.zeros(2, dtype=tc.float64), tc.zeros((), dtype=tc.float64), 1.5, 2, 1j):
        tz = torch.zeros(2, dtype=torch.complex64)
        to = T(other) if isinstance(other, tc.Tensor) else other
        assert tc.result_type(z, other).name == str(torch.result_type(tz, to)).replace("torch.", "")
    x = tc.zeros(2, dtype=tc.float64)
    assert tc.result_type(x, 1j) is tc.complex128
    assert tc.result_type(tc.zeros(2), tc.zeros((), dtype=tc.complex128)) is tc.complex64


def test_creation_and_factories():
    re, im = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3) / 2
    z = tc.complex(tc.tensor(re, dtype=tc.float32), tc.tensor(im, dtype=tc.float32))
    assert z.dtype is tc.complex64 and z.is_complex() and tc.is_complex(z)
    close(z, torch.complex(torch.tensor(re, dtype=torch.float32), torch.tensor(im, dtype=torch.float32)))
    zb = tc.complex(tc.tensor(re, dtype=tc.float64), tc.tensor([1.0, 2.0, 3.0], dtype=tc.float64))
    assert zb.dtype is tc.complex128 and zb.shape == (2, 3)
    p = tc.polar(tc.tensor([1.0, 2.0]), tc.tensor([0.5, -1.0]))
    close(p, torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([0.5, -1.0])))
    for f in ("zeros", "ones"):
        close(getattr(tc, f)(2, 3, dtype=tc.cfloat), getattr(torch, f)(2, 3, dtype=torch.cfloat))
    close(tc.full((2,), 2.5, dtype=tc.complex128), torch.full((2,), 2.5, dtype=torch.complex128))
    assert tc.empty(4, dtype=tc.cdouble).dtype is tc.complex128
    t = tc.tensor([1 + 2j, 3, -1j])
    assert t.dtype is tc.complex64
    close(t, torch.tensor([1 + 2j, 3, -1j]))
    assert tc.tensor([[1j]], dtype=tc.complex128).dtype is tc.complex128
    with pytest.raises(TypeError):
        tc.complex(tc.zeros(2), tc.zeros(2, dtype=tc.float64))
    with pytest.raises(TypeError):
        tc.complex(tc.zeros(2, dtype=tc.int64), tc.zeros(2, dtype=tc.int64))


def test_views_share_storage():
    a = rand_complex((3, 4))
    z = tc.tensor(a)
    r = tc.view_as_real(z)
    assert r.shape == (3, 4, 2) and r.dtype is tc.float64 and r.stride() == (8, 2, 1)
    close(r, torch.view_as_real(torch.tensor(a)))
    r[0, 0, 1] = 7.0
    assert z[0, 0].item() == complex(a[0, 0].real, 7.0)
    back = tc.view_as_complex(r)
    assert back.data_ptr() == z.data_ptr() and back.dtype is tc.complex128
    z.real[1, 1] = 5.0
    z.imag[1, 2] = -3.0
    assert z[1, 1].item().real == 5.0 and z[1, 2].item().imag == -3.0
    assert z.real.data_ptr() == z.data_ptr() and z.imag.data_ptr() == z.data_ptr() + 8
    x = tc.zeros(3, 2)
    assert tc.view_as_complex(x).shape == (3,)
    with pytest.raises(RuntimeError):
        tc.view_as_complex(tc.zeros(3, 3))
    with pytest.raises(RuntimeError):
        tc.view_as_complex(tc.zeros(2, 4)[:, :2].t().contiguous().t())
    with pytest.raises(RuntimeError):
        tc.view_as_real(tc.zeros(2))
    with pytest.raises(RuntimeError):
        tc.zeros(2).imag
    assert tc.zeros(2).real.shape == (2,)
    assert not z.is_conj() and z.resolve_conj() is z


def test_shape_ops():
    a = rand_complex((2, 3, 4))
    z, tz = tc.tensor(a), torch.tensor(a)
    close(z.reshape(6, 4), tz.reshape(6, 4))
    close(z.permute(2, 0, 1).contiguous(), tz.permute(2, 0, 1).contiguous())
    close(z.transpose(0, 2), tz.transpose(0, 2))
    close(z[1, :, 1:3], tz[1, :, 1:3])
    close(tc.cat([z, z], 1), torch.cat([tz, tz], 1))
    close(tc.stack([z, z], 0), torch.stack([tz, tz], 0))
    close(z.unsqueeze(0).squeeze(0), tz)
    close(z.clone(), tz)
    close(z.to(tc.complex64), tz.to(torch.complex64))
    close(tc.tensor([1.0, 2.0]).to(tc.complex128), torch.tensor([1.0, 2.0]).to(torch.complex128))
    assert list(tz.flatten().numpy()) == list(z.flatten().numpy())


def test_complex_to_real_warns_and_drops_imag():
    z = tc.tensor([1 + 2j, -3 - 4j])
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        x = z.to(tc.float32)
    close(x, torch.tensor([1.0, -3.0]))


def test_arithmetic_against_torch():
    a, b = rand_complex((3, 4), seed=1), rand_complex((4,), seed=2)
    r = np.random.default_rng(3).standard_normal((3, 1))
    z, w, x = tc.tensor(a), tc.tensor(b), tc.tensor(r)
    tz, tw, tx = torch.tensor(a), torch.tensor(b), torch.tensor(r)
    for f in (lambda p, q: p + q, lambda p, q: p - q, lambda p, q: p * q, lambda p, q: p / q):
        close(f(z, w), f(tz, tw), 1e-12)
        close(f(z, x), f(tz, tx), 1e-12)
        close(f(x, z), f(tx, tz), 1e-12)
        for s in (2.5, 3, 1j, 0.5 - 2j):
            close(f(z, s), f(tz, s), 1e-12)
            close(f(s, z), f(s, tz), 1e-12)
    close(-z, -tz)
    close(z.abs(), tz.abs(), 1e-12)
    close(z.angle(), tz.angle(), 1e-12)
    close(tc.angle(x), torch.angle(tx))
    close(z.conj(), tz.conj().resolve_conj())
    close(z.sum(), tz.sum(), 1e-12)
    close(z.sum(0), tz.sum(0), 1e-12)
    close(z.mean(1, keepdim=True), tz.mean(1, keepdim=True), 1e-12)
    close(z.mean(), tz.mean(), 1e-12)
    assert (z == z).all()
    close(z == z.conj(), tz == tz.conj())
    close(z != w, tz != tw)
    f32 = tc.tensor(a.astype(np.complex64)) * tc.tensor(r.astype(np.float32))
    assert f32.dtype is tc.complex64
    assert (tc.tensor(a.astype(np.complex64)) + tc.zeros(3, 4, dtype=tc.float64)).dtype is tc.complex128


def test_printing_matches_torch():
    cases = [[1 + 2j, 3 - 4.5j], [1 + 2j, 3 - 4j], [[1e-5 + 2j], [3e5 + 1j]], [0j], [[1.25 - 1j, 2j], [3, 4]]]
    for data in cases:
        for tdt, cdt in ((tc.complex64, torch.complex64), (tc.complex128, torch.complex128)):
            want = repr(torch.tensor(data, dtype=cdt)).replace("torch.", "")
            assert repr(tc.tensor(data, dtype=tdt)) == want


def test_numpy_roundtrip_and_item():
    a = rand_complex((2, 2)).astype(np.complex64)
    z = tc.from_numpy(a)
    assert z.dtype is tc.complex64
    np.testing.assert_array_equal(z.numpy(), a)
    assert z[0, 1].item() == complex(a[0, 1])
    assert z.tolist() == a.tolist()
    assert complex(z[1, 1]) == complex(a[1, 1])


def test_unsupported_ops_raise_dtype_errors():
    z = tc.tensor([1 + 1j, 2 - 1j])
    for f, name in ((tc.exp, "tc_exp"), (lambda t: t.max(), "tc_max"), (lambda t: t @ t, "tc_matmul"),
                    (lambda t: tc.sort(t), "tc_sort"), (lambda t: t < t, "tc_lt"),
                    (lambda t: t ** 2, "pow"), (lambda t: tc.relu(t), "tc_relu")):
        with pytest.raises(tc.DTypeError, match=name):
            f(z)
    with pytest.raises(tc.DTypeError, match="tc_arange"):
        tc.arange(3, dtype=tc.complex64)
    with pytest.raises(tc.DTypeError):
        tc.randn(3, dtype=tc.complex64)


def test_gradients_follow_torch_convention():
    a, b = rand_complex((3,), seed=4), rand_complex((3,), seed=5)
    r = np.random.default_rng(6).standard_normal(3)

    def run(lib, A, B, R):
        z = lib.tensor(A, requires_grad=True)
        w = lib.tensor(B, requires_grad=True)
        x = lib.tensor(R, requires_grad=True)
        y = (z * w + z.conj() / w - x * z + 2j * w).abs().sum() + (z - w).angle().sum()
        y = y + lib.view_as_real(z * x).sum() + (w.real * w.imag).sum() + (z.sum() * w.mean()).abs()
        y = y + lib.complex(x, x * x).abs().sum()
        y.backward()
        return z.grad, w.grad, x.grad

    for mine, ref in zip(run(tc, a, b, r), run(torch, a, b, r)):
        close(mine, ref, 1e-10)


def test_abs_gradient_is_z_over_abs():
    a = rand_complex((4,), seed=7)
    z = tc.tensor(a, requires_grad=True)
    z.abs().sum().backward()
    close(z.grad, a / np.abs(a), 1e-12)
    z0 = tc.zeros(2, dtype=tc.complex128, requires_grad=True)
    z0.abs().sum().backward()
    close(z0.grad, torch.zeros(2, dtype=torch.complex128))


def test_grad_accumulates_on_complex_leaf():
    a = rand_complex((2,), seed=8)
    z = tc.tensor(a, requires_grad=True)
    tz = torch.tensor(a, requires_grad=True)
    for lib, v in ((tc, z), (torch, tz)):
        (lib.view_as_real(v).sum() + (v * v).abs().sum()).backward()
        (v.abs() ** 2).sum().backward()
    close(z.grad, tz.grad, 1e-12)
