"""tc.fft, tc.stft and tc.istft against PyTorch 1.13: values (float32 and
float64, real and complex inputs, n/s, dim, every norm), gradients in float64
(against torch and against central finite differences) and errors."""

import numpy as np
import pytest

import tc
import tc.fft

torch = pytest.importorskip("torch")

NORMS = (None, "backward", "forward", "ortho")


def T(t):
    return torch.from_numpy(np.array(t.detach().numpy()))


def close(a, b, tol):
    a = a.detach().numpy()
    b = b.detach().resolve_conj().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def signal(shape, complex_=False, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if complex_:
        x = x + 1j * rng.standard_normal(shape)
        return x.astype(np.complex128 if dtype == np.float64 else np.complex64)
    return x.astype(dtype)


ONE_DIM = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
REAL_ONLY = ("rfft", "ihfft")


@pytest.mark.parametrize("name", ONE_DIM)
@pytest.mark.parametrize("dtype", (np.float32, np.float64))
def test_one_dim_values(name, dtype):
    tol = 2e-4 if dtype == np.float32 else 1e-10
    for complex_ in ((False,) if name in REAL_ONLY else (False, True)):
        for shape, dim in (((16,), -1), ((3, 7), 0), ((2, 9, 4), 1)):
            x = signal(shape, complex_, dtype)
            for n in (None, 5, 12):
                for norm in NORMS:
                    got = getattr(tc.fft, name)(tc.tensor(x), n=n, dim=dim, norm=norm)
                    want = getattr(torch.fft, name)(torch.tensor(x), n=n, dim=dim, norm=norm)
                    close(got, want, tol)


@pytest.mark.parametrize("name", ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"))
def test_multi_dim_values(name):
    complex_ = not name.startswith("rfft")
    x = signal((3, 6, 5), complex_)
    two = name.endswith("2")
    for s, dim in ((None, None), ((4, 6), None), ((5, -1), (0, 2)), (None, (2, 0))):
        if two and dim is None:
            dim = (-2, -1)
        for norm in (None, "ortho", "forward"):
            got = getattr(tc.fft, name)(tc.tensor(x), s=s, dim=dim, norm=norm)
            want = getattr(torch.fft, name)(torch.tensor(x), s=s, dim=dim, norm=norm)
            close(got, want, 1e-10)


def test_real_and_integer_inputs_are_promoted():
    close(tc.fft.fft(tc.tensor([1.0, 2.0, 3.0])), torch.fft.fft(torch.tensor([1.0, 2.0, 3.0])), 1e-6)
    close(tc.fft.fft(tc.tensor([1, 2, 3])), torch.fft.fft(torch.tensor([1, 2, 3])), 1e-6)
    close(tc.fft.rfft(tc.tensor([1, 2, 3, 4])), torch.fft.rfft(torch.tensor([1, 2, 3, 4])), 1e-6)
    x = tc.tensor(signal((4,), dtype=np.float64))
    assert tc.fft.fft(x).dtype is tc.complex128 and tc.fft.irfft(tc.fft.rfft(x)).dtype is tc.float64


def test_helpers():
    for n, d in ((8, 1.0), (9, 0.5), (1, 2.0)):
        close(tc.fft.fftfreq(n, d), torch.fft.fftfreq(n, d), 1e-7)
        close(tc.fft.rfftfreq(n, d, dtype=tc.float64), torch.fft.rfftfreq(n, d, dtype=torch.float64), 1e-12)
    f = tc.fft.fftfreq(4, requires_grad=True)
    assert f.requires_grad and f.dtype is tc.float32
    x = signal((4, 5), True)
    for dim in (None, 0, (1,), (0, 1)):
        close(tc.fft.fftshift(tc.tensor(x), dim), torch.fft.fftshift(torch.tensor(x), dim), 0)
        close(tc.fft.ifftshift(tc.tensor(x), dim), torch.fft.ifftshift(torch.tensor(x), dim), 0)


def test_errors_match_torch():
    x, z = tc.zeros(4), tc.zeros(4, dtype=tc.complex64)
    with pytest.raises(RuntimeError, match="Invalid normalization mode"):
        tc.fft.fft(x, norm="foo")
    with pytest.raises(RuntimeError, match="rfft expects a real input tensor"):
        tc.fft.rfft(z)
    with pytest.raises(RuntimeError, match="Invalid number of data points"):
        tc.fft.fft(x, n=0)
    with pytest.raises(IndexError):
        tc.fft.fft(x, dim=2)


def _loss_weights(out, seed):
    r = np.random.default_rng(seed).standard_normal(tuple(out.shape) + ((2,) if out.is_complex() else ()))
    return r


def _grad(lib, name, x, kwargs, seed):
    t = lib.tensor(x, requires_grad=True)
    out = getattr(lib.fft, name)(t, **kwargs)
    r = lib.tensor(_loss_weights(out, seed))
    y = (lib.view_as_real(out.resolve_conj()) if out.is_complex() else out) * r
    y.sum().backward()
    return t.grad


@pytest.mark.parametrize("name", ONE_DIM + ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "rfftn", "irfftn"))
def test_gradients_match_torch(name):
    multi = name[-1] in "2n"
    cases = [dict(), dict(norm="ortho"), dict(norm="forward")]
    cases += [dict(s=(3, 8), dim=(0, 2))] if multi else [dict(n=6), dict(n=11, dim=0)]
    for complex_ in ((False,) if name in REAL_ONLY or name.startswith("rfft") else (False, True)):
        x = signal((4, 5, 6), complex_)
        for i, kw in enumerate(cases):
            close(_grad(tc, name, x, kw, i), _grad(torch, name, x, kw, i), 1e-9)


@pytest.mark.parametrize("name,kw", [("fft", {}), ("rfft", {"n": 7}), ("irfft", {"n": 9}), ("hfft", {}),
                                     ("ihfft", {"norm": "ortho"}), ("irfft", {})])
def test_gradients_match_finite_differences(name, kw):
    complex_in = name in ("irfft", "hfft")
    x = signal((6,), complex_in, seed=3)
    g = _grad(tc, name, x, kw, 9).numpy()

    def loss(v):
        out = getattr(torch.fft, name)(torch.tensor(v), **kw)
        w = _loss_weights(out, 9)
        return float(((torch.view_as_real(out.resolve_conj()) if out.is_complex() else out)
                      * torch.tensor(w)).sum())

    # The loss through libtc itself, for the finite differences.
    def tc_loss(v):
        out = getattr(tc.fft, name)(tc.tensor(v), **kw)
        w = tc.tensor(_loss_weights(out, 9))
        return float(((tc.view_as_real(out) if out.is_complex() else out) * w).sum())

    eps = 1e-6
    fd = np.zeros_like(x)
    for i in range(x.size):
        for part in ((1,) if not complex_in else (1, 1j)):
            d = np.zeros_like(x)
            d[i] = eps * part
            fd[i] += part * (tc_loss(x + d) - tc_loss(x - d)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)
    assert abs(tc_loss(x) - loss(x)) < 1e-9


def test_stft_matches_torch():
    x = signal((2, 600), seed=1)
    for kw in (dict(n_fft=64), dict(n_fft=64, hop_length=20, win_length=50, normalized=True),
               dict(n_fft=40, center=False, onesided=False), dict(n_fft=32, pad_mode="constant")):
        for window in (None, "hann"):
            args = dict(kw)
            wl = kw.get("win_length", kw["n_fft"])
            if window:
                args["window"] = tc.hann_window(wl, dtype=tc.float64)
            got = tc.stft(tc.tensor(x), return_complex=True, **args)
            if window:
                args["window"] = torch.hann_window(wl, dtype=torch.float64)
            want = torch.stft(torch.tensor(x), return_complex=True, **args)
            close(got, want, 1e-10)
    z = signal((300,), True, seed=2)
    close(tc.stft(tc.tensor(z), 32, return_complex=True), torch.stft(torch.tensor(z), 32, return_complex=True),
          1e-10)


def test_stft_return_complex_rules():
    x = tc.zeros(200)
    with pytest.warns(UserWarning, match="return_complex"):
        out = tc.stft(x, 32)
    assert out.shape == torch.stft(torch.zeros(200), 32, return_complex=False).shape
    assert tc.Tensor.stft(x, 32, return_complex=False).shape == out.shape
    with pytest.raises(RuntimeError):
        tc.stft(tc.zeros(2, 2, 50), 8, return_complex=True)


def test_istft_matches_torch_and_inverts():
    x = signal((2, 500), seed=4)
    for kw in (dict(n_fft=64), dict(n_fft=64, hop_length=16, win_length=48, normalized=True),
               dict(n_fft=32, length=470), dict(n_fft=32, hop_length=8, length=520)):
        wl = kw.get("win_length", kw["n_fft"])
        targs = {k: v for k, v in kw.items() if k != "length"}
        spec = torch.stft(torch.tensor(x), window=torch.hann_window(wl, dtype=torch.float64),
                          return_complex=True, **targs)
        want = torch.istft(spec, window=torch.hann_window(wl, dtype=torch.float64), **kw)
        got = tc.istft(tc.tensor(spec.numpy()), window=tc.hann_window(wl, dtype=tc.float64), **kw)
        close(got, want, 1e-10)
    spec = tc.stft(tc.tensor(x), 64, window=tc.hann_window(64, dtype=tc.float64), return_complex=True)
    back = spec.istft(64, window=tc.hann_window(64, dtype=tc.float64), length=500)
    close(back, torch.tensor(x), 1e-10)
    # A Hann window without centering leaves the first sample uncovered: both refuse.
    tspec = torch.stft(torch.tensor(x), 32, window=torch.hann_window(32, dtype=torch.float64), center=False,
                       return_complex=True)
    with pytest.raises(RuntimeError):
        torch.istft(tspec, 32, window=torch.hann_window(32, dtype=torch.float64), center=False)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        tc.istft(tc.tensor(tspec.numpy()), 32, window=tc.hann_window(32, dtype=tc.float64), center=False)


def test_stft_istft_gradients_match_torch():
    x = signal((300,), seed=5)
    w = np.random.default_rng(6).standard_normal((33, 19, 2))

    def run(lib):
        t = lib.tensor(x, requires_grad=True)
        s = lib.stft(t, 64, hop_length=16, window=lib.hann_window(64, dtype=lib.float64), return_complex=True)
        y = (lib.view_as_real(s) * lib.tensor(w)).sum()
        back = lib.istft(s * 2, 64, hop_length=16, window=lib.hann_window(64, dtype=lib.float64), length=300)
        (y + (back * back).sum()).backward()
        return t.grad

    close(run(tc), run(torch), 1e-9)
