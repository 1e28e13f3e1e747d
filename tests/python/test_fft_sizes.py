"""tc.fft's transforms over many lengths (every length 1..130, powers of 2, 3
and 5, primes small and large, 2^20), both directions, complex and real, float32 and
float64, against numpy.fft (computed in float64/complex128). Errors are measured
relative to the transform's magnitude (the largest output value), as an FFT's
rounding error scales with it."""

import numpy as np
import pytest

import tc
import tc.fft

torch = pytest.importorskip("torch")

LENGTHS = (list(range(1, 131)) + [2 ** k for k in range(8, 13)] + [3 ** 6, 3 ** 7, 5 ** 4, 5 ** 5]
           + [127, 251, 257, 509, 1021, 2039, 4093, 4099, 61 * 67, 2 * 3 * 5 * 7 * 11 * 13, 400, 1000, 1920])
TOL = {np.float32: 2e-6, np.float64: 1e-13}


def rel_err(got, want):
    scale = max(np.abs(want).max(), 1e-30)
    return np.abs(np.asarray(got, np.complex128) - want).max() / scale


def rows(n, dtype, complex_, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, n))
    if complex_:
        x = x + 1j * rng.standard_normal((2, n))
        return x.astype(np.complex64 if dtype == np.float32 else np.complex128)
    return x.astype(dtype)


def check_all(dtype, lengths, tol):
    for n in lengths:
        c = rows(n, dtype, True, n)
        r = rows(n, dtype, False, n + 1)
        tc_c, tc_r = tc.from_numpy(c), tc.from_numpy(r)
        ref_c = c.astype(np.complex128)
        for name, got, want in (
                ("fft", tc.fft.fft(tc_c), np.fft.fft(ref_c)),
                ("ifft", tc.fft.ifft(tc_c), np.fft.ifft(ref_c)),
                ("rfft", tc.fft.rfft(tc_r), np.fft.rfft(r.astype(np.float64))),
                ("irfft", tc.fft.irfft(tc_c, n=n), np.fft.irfft(ref_c, n=n)),
                ("hfft", tc.fft.hfft(tc_c, n=n), np.fft.hfft(ref_c, n=n))):
            g = got.numpy()
            assert g.shape == want.shape, (name, n, g.shape, want.shape)
            err = rel_err(g, want)
            assert err < tol * max(1.0, np.log2(n)), (name, n, dtype, err)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_length(dtype):
    check_all(dtype, LENGTHS, TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_transforms(dtype):
    # One long row (split across threads when there are several) and a large prime (Bluestein).
    check_all(dtype, [1 << 20, 65537], TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_many_rows_match_torch(dtype):
    # A batch of rows shared between threads gives each row's own transform.
    x = np.random.default_rng(4).standard_normal((257, 400)).astype(dtype)
    got = tc.fft.rfft(tc.from_numpy(x)).numpy()
    want = torch.fft.rfft(torch.from_numpy(x)).numpy()
    assert rel_err(got, want.astype(np.complex128)) < TOL[dtype] * 10
    back = tc.fft.irfft(tc.from_numpy(want), n=400).numpy()
    assert np.abs(back - x).max() < TOL[dtype] * 100


def test_round_trip_float64_is_exact_to_rounding():
    for n in (1, 2, 3, 17, 97, 128, 243, 1000, 4099):
        x = rows(n, np.float64, True, n)
        back = tc.fft.ifft(tc.fft.fft(tc.from_numpy(x))).numpy()
        assert np.abs(back - x).max() < 1e-13 * max(1, np.log2(n)), n
