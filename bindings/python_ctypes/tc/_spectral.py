"""tc.stft and tc.istft (PyTorch 1.13's signatures and checks) on tc.fft:
frames gathered (strided slices of blocks of the signal, or index_select),
windowed, transformed; the inverse
overlap-adds with index_add and divides by the summed squared window. Every
step is a differentiable tc op, so both have autograd."""
import warnings

from . import _core as K
from ._tensor_base import arange, cat, ones, stack, zeros
from . import _complex, fft
from ._shape_ops import pad


def _window(window, win_length, n_fft, dtype, device, name):
    """The window zero-padded (centered) to n_fft; ones when None."""
    if window is None:
        window = ones(win_length, dtype=dtype, device=device)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError("%s: expected a 1D window tensor of size equal to win_length=%d, but got window with "
                           "size %s" % (name, win_length, list(window.shape)))
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return cat([zeros(left, dtype=window.dtype, device=window.device), window,
                zeros(n_fft - win_length - left, dtype=window.dtype, device=window.device)])


_INDEX_CACHE = {}  # (n_frames, n_fft, hop) -> the CPU index tensor (read only by index_select/index_add)


def _frame_index(n_frames, n_fft, hop, device):
    """The sample positions of every frame, flattened: f * hop + k (cached: audio front ends repeat shapes)."""
    key = (n_frames, n_fft, hop)
    idx = _INDEX_CACHE.get(key)
    if idx is None:
        if len(_INDEX_CACHE) > 64:
            _INDEX_CACHE.clear()
        idx = _INDEX_CACHE[key] = _make_frame_index(n_frames, n_fft, hop)
    return idx if device is None or K.device(device).type == "cpu" else idx.to(device)


def _make_frame_index(n_frames, n_fft, hop):
    starts = arange(0, n_frames, dtype=K.int64) * hop
    return (starts.reshape(-1, 1) + arange(0, n_fft, dtype=K.int64).reshape(1, -1)).reshape(-1)


# Above this many pieces per frame, _block_frames' Python loop costs more than index_select.
_MAX_FRAME_PIECES = 32


def _block_frames(x, n_frames, n_fft, hop):
    """The frames of a real x as [..., n_frames, n_fft] without an index tensor: with
    g = gcd(hop, n_fft), x cut into blocks of g samples holds frame f as blocks
    f * hop / g ... + n_fft / g - 1, so each of the n_fft / g pieces of every frame is a
    strided slice of the blocks; one stack gathers them (None when there are too many)."""
    import math
    g = math.gcd(hop, n_fft)
    pieces, step = n_fft // g, hop // g
    if pieces > _MAX_FRAME_PIECES:
        return None
    lead = list(x.shape[:-1])
    n_blocks = x.shape[-1] // g
    blocks = x.narrow(-1, 0, n_blocks * g).reshape(*(lead + [n_blocks, g]))
    span = step * (n_frames - 1) + 1
    parts = [blocks.narrow(-2, j, span)[..., ::step, :] if step > 1 else blocks.narrow(-2, j, span)
             for j in range(pieces)]
    return stack(parts, -2).reshape(*(lead + [n_frames, n_fft]))


def _reflect_pad(v, p):
    """v padded by p reflected samples on both ends of its last dim (p < its length), from
    flipped slices: PyTorch's reflect padding without the general padding kernel."""
    n = v.shape[-1]
    return cat([v.narrow(-1, 1, p).flip(-1), v, v.narrow(-1, n - 1 - p, p).flip(-1)], -1)


def _gather_frames(x, idx, n_frames, n_fft):
    """x[..., idx] reshaped to [..., n_frames, n_fft] (complex x through its real view)."""
    if x.is_complex():
        pairs = _complex.view_as_real(x)
        got = pairs.index_select(-2, idx)
        shape = list(pairs.shape[:-2]) + [n_frames, n_fft, 2]
        return _complex.view_as_complex(got.reshape(*shape))
    return x.index_select(-1, idx).reshape(*(list(x.shape[:-1]) + [n_frames, n_fft]))


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None):
    """The short-time Fourier transform, as torch.stft (1.13).

    Args:
        input (Tensor): a 1-D signal or a 2-D batch of signals.
        n_fft (int): the frame (and DFT) length.
        hop_length (int, optional): the distance between frames (default n_fft // 4).
        win_length (int, optional): the window length (default n_fft).
        window (Tensor, optional): the window (default all ones), zero-padded to n_fft.
        center (bool): pad the signal by n_fft // 2 on both sides (pad_mode) first.
        pad_mode (str): the padding mode with center ("reflect", "constant", "replicate", "circular").
        normalized (bool): scale by 1 / sqrt(n_fft).
        onesided (bool, optional): only the n_fft // 2 + 1 non-negative frequencies (default for real input).
        return_complex (bool, optional): a complex result, else its real view [..., 2]. Required for
            real inputs: None warns (as PyTorch 1.13) and gives the real view.

    Returns:
        Tensor: [(B,) n_freq, n_frames] complex, or its real view.
    """
    complex_in = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not complex_in:
            warnings.warn("stft will soon require the return_complex parameter be given for real inputs, and will "
                          "further require that return_complex=True in a future PyTorch release.")
        return_complex = complex_in
    if input.ndim not in (1, 2):
        raise RuntimeError("stft: expected a 1D or 2D tensor, but got %dD tensor" % input.ndim)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    x = input
    if center:
        extra = 3 - x.ndim
        p = n_fft // 2
        def padded(v):
            if pad_mode == "reflect" and 0 < p < v.shape[-1]:
                return _reflect_pad(v, p)
            v = pad(v.reshape(*([1] * extra + list(v.shape))), [p, p], pad_mode)
            return v.reshape(*list(v.shape[extra:]))

        # The parts of a complex signal apart: padding takes real tensors.
        x = _complex.complex(padded(x.real), padded(x.imag)) if x.is_complex() else padded(x)
    length = x.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError("stft: expected 0 < n_fft < %d, but got n_fft=%d" % (length, n_fft))
    if hop <= 0:
        raise RuntimeError("stft: expected hop_length > 0, but got hop_length=%d" % hop)
    if win <= 0 or win > n_fft:
        raise RuntimeError("stft: expected 0 < win_length <= n_fft, but got win_length=%d" % win)
    w = _window(window, win, n_fft, x.dtype if not x.is_complex() else _complex.part_dtype(x.dtype),
                x.device, "stft")
    n_frames = 1 + (length - n_fft) // hop
    frames = None if x.is_complex() else _block_frames(x, n_frames, n_fft, hop)
    if frames is None:
        frames = _gather_frames(x, _frame_index(n_frames, n_fft, hop, x.device), n_frames, n_fft)
    frames = frames * w
    if onesided is None:
        onesided = not complex_in
    if onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else None
    spec = fft.rfft(frames, dim=-1, norm=norm) if onesided else fft.fft(frames, dim=-1, norm=norm)
    spec = spec.transpose(-1, -2)
    return spec if return_complex else _complex.view_as_real(spec)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """The inverse short-time Fourier transform (least-squares overlap-add), as torch.istft (1.13).

    Args:
        input (Tensor): [(B,) n_freq, n_frames] complex (a real view [..., 2] warns, as PyTorch 1.13).
        n_fft (int): the frame length.
        hop_length (int, optional): the distance between frames (default n_fft // 4).
        win_length (int, optional): the window length (default n_fft).
        window (Tensor, optional): the window (default all ones).
        center (bool): whether stft padded the signal (its n_fft // 2 first samples are dropped).
        normalized (bool): whether stft scaled by 1 / sqrt(n_fft).
        onesided (bool, optional): whether input holds only the non-negative frequencies (default: when
            n_freq != n_fft).
        length (int, optional): the output length (cut or zero-padded).
        return_complex (bool): a complex signal (two-sided input only).

    Returns:
        Tensor: [(B,) length] the signal.
    """
    if not input.is_complex():
        warnings.warn("istft will require a complex-valued input tensor in a future PyTorch release. Matching the "
                      "output from stft with return_complex=True. ")
        input = _complex.view_as_complex(input.contiguous())
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if input.ndim not in (2, 3):
        raise RuntimeError("istft: expected a tensor with 2 or 3 dimensions of complex dtype, but got %dD"
                           % input.ndim)
    fft_size, n_frames = input.shape[-2], input.shape[-1]
    if onesided is None:
        onesided = fft_size != n_fft
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError("istft expected the frequency dimension (3rd to the last) of the input tensor to match "
                           "n_fft / 2 + 1 when onesided=True, but got %d" % fft_size)
    if not onesided and n_fft != fft_size:
        raise RuntimeError("istft expected the frequency dimension (3rd to the last) of the input tensor to match "
                           "n_fft when onesided=False, but got %d" % fft_size)
    if not 0 < hop <= win:
        raise RuntimeError("istft: expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError("istft: expected 0 < win_length <= n_fft")
    if return_complex and onesided:
        raise RuntimeError("cannot have onesided output if window or input is complex")
    part = _complex.part_dtype(input.dtype)
    w = _window(window, win, n_fft, part, input.device, "istft")
    norm = "ortho" if normalized else None
    spec = input.transpose(-1, -2)
    if onesided:
        frames = fft.irfft(spec, n=n_fft, dim=-1, norm=norm)
    else:
        frames = fft.ifft(spec, n=n_fft, dim=-1, norm=norm)
        if not return_complex:
            frames = _complex.real(frames)
    frames = frames * w  # [(B,) n_frames, n_fft]
    total = n_fft + hop * (n_frames - 1)
    idx = _frame_index(n_frames, n_fft, hop, input.device)
    batch = list(frames.shape[:-2])
    flat = frames.reshape(*(batch + [n_frames * n_fft]))
    if frames.is_complex():
        pairs = _complex.view_as_real(flat)
        y = _complex.view_as_complex(zeros(*(batch + [total, 2]), dtype=part, device=input.device)
                                     .index_add(-2, idx, pairs).contiguous())
    else:
        y = zeros(*(batch + [total]), dtype=part, device=input.device).index_add(-1, idx, flat)
    envelope = zeros(total, dtype=part, device=input.device).index_add(
        0, idx, (w * w).detach().repeat(n_frames))
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = total - (n_fft // 2 if center else 0)
    stop = min(end, total)
    y = y.narrow(-1, start, stop - start)
    envelope = envelope.narrow(0, start, stop - start)
    if envelope.numel() and float(envelope.abs().min()) < 1e-11:
        raise RuntimeError("istft: window overlap add min: %g (the window's squares do not cover every sample; "
                           "check the window, hop_length and center)" % float(envelope.abs().min()))
    y = y / envelope
    if end > total:
        warnings.warn("The length of signal is shorter than the length parameter. Result is being padded with "
                      "zeros in the tail. Please check your center and hop_length settings.")
        pad_shape = batch + [end - total]
        y = _cat_last(y, zeros(*pad_shape, dtype=y.dtype, device=y.device))
    return y


def _cat_last(a, b):
    return cat([a, b], -1)


class SpectralMethods:
    """tc.Tensor's stft and istft."""

    __slots__ = ()

    def stft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
             normalized=False, onesided=None, return_complex=None):
        """See :func:`tc.stft`."""
        return stft(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                    return_complex)

    def istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
              onesided=None, length=None, return_complex=False):
        """See :func:`tc.istft`."""
        return istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length,
                     return_complex)


def install(namespace):
    """Adds tc.stft and tc.istft.

    Args:
        namespace (dict): tc's globals.
    """
    namespace["stft"] = stft
    namespace["istft"] = istft
