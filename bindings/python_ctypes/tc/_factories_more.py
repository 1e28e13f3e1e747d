"""More of PyTorch's factories, composed from tc ops: normal, randint_like,
range (end inclusive), fill, put, asarray, frombuffer, and empty_strided /
Tensor.new_empty_strided (real strides: a buffer sliced and permuted so that
the result has exactly the strides asked for)."""
import builtins

from . import _core as K
from ._factory_keywords import _with_generator


def _tc():
    import tc
    return tc


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """Samples of N(mean, std), like torch.normal: tensor mean and/or std
    (broadcast together), or float mean and std with ``size``. The samples
    carry no gradient (torch's is zero for mean and std too).

    Returns:
        Tensor: the samples.
    """
    tc = _tc()
    T = tc.Tensor
    if not isinstance(mean, T) and not isinstance(std, T):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: float mean and std need size")
        if std < 0:
            raise RuntimeError("normal expects std >= 0.0, but found std %s" % std)
        with _with_generator(generator):
            z = tc.randn(*tuple(size), dtype=dtype, device=device)
        result = z * std + mean
    else:
        if isinstance(std, T):
            if bool((std < 0).any()):
                raise RuntimeError("normal expects all elements of std >= 0.0")
        elif std < 0:
            raise RuntimeError("normal expects std >= 0.0, but found std %s" % std)
        m = mean.detach() if isinstance(mean, T) else mean
        s = std.detach() if isinstance(std, T) else std
        ref = m if isinstance(m, T) else s
        shape = tc.broadcast_shapes(*[t.shape for t in (m, s) if isinstance(t, T)])
        with _with_generator(generator):
            z = tc.randn(*shape, dtype=ref.dtype, device=ref.device)
        result = z * s + m
    if out is not None:
        return out.copy_(result)
    return result.requires_grad_(True) if requires_grad else result


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, pin_memory=False,
                 requires_grad=False, memory_format=None, generator=None):
    """Integers uniform in [low, high) shaped like input (randint_like(input,
    high) or randint_like(input, low, high)), in input's dtype unless given.

    Returns:
        Tensor: the draws.
    """
    tc = _tc()
    if high is None:
        low, high = 0, low
    dtype = dtype if dtype is not None else input.dtype
    device = device if device is not None else input.device
    if low >= high:
        raise RuntimeError("random_ expects 'from' to be less than 'to', but got from=%d >= to=%d" % (low, high))
    r = tc.randint(low, high, tuple(input.shape), device=device, generator=generator).to(dtype)
    return r.requires_grad_(True) if requires_grad else r


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Values from start to end INCLUSIVE by step (deprecated in torch in
    favour of arange), in the default floating dtype unless given.

    Returns:
        Tensor: 1-D, floor((end - start) / step) + 1 elements.
    """
    tc = _tc()
    import warnings
    warnings.warn("tc.range is deprecated (as torch.range is) because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use tc.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int((end - start) // step) + 1
    dtype = dtype if dtype is not None else K.get_default_dtype()
    values = tc.arange(n, dtype=K.float64, device=device) * step + start
    r = values.to(dtype)
    if out is not None:
        return out.copy_(r)
    return r.requires_grad_(True) if requires_grad else r


def fill(input, value):
    """A tensor like input filled with value (a number or a 0-dim tensor), out of place.

    Returns:
        Tensor: a new tensor.
    """
    tc = _tc()
    if isinstance(value, tc.Tensor):
        if value.ndim != 0:
            raise RuntimeError("fill only supports 0-dimension value tensor but got tensor with %d dimensions."
                               % value.ndim)
        return value.to(input.dtype).expand(*input.shape).clone() if input.ndim else value.to(input.dtype).clone()
    return tc.full(tuple(input.shape), value, dtype=input.dtype, device=input.device)


def put(input, index, source, accumulate=False):
    """input with source written at ``index`` of its flattened view (see Tensor.put).

    Returns:
        Tensor: a new tensor.
    """
    return input.put(index, source, accumulate)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A tensor from obj (a tensor, a numpy array, a buffer-protocol object,
    a scalar or a sequence), sharing memory when possible and copy is not
    True, like torch.asarray.

    Returns:
        Tensor: the tensor.
    """
    tc = _tc()
    if isinstance(obj, tc.Tensor):
        t = obj
        if dtype is not None and t.dtype != dtype:
            if copy is False:
                raise ValueError("can't alias tensor of dtype %s as %s" % (t.dtype, dtype))
            t = t.to(dtype)
        if device is not None:
            t = t.to(device)
        if copy:
            t = t.clone() if t is obj else t
        if requires_grad:
            t = t.detach().requires_grad_(True) if t is obj else t.requires_grad_(True)
        return t
    if hasattr(obj, "__array_interface__"):
        import numpy as np
        arr = np.asarray(obj)
        t = tc.from_numpy(arr.copy() if copy else arr)
        if dtype is not None:
            t = t.to(dtype)
        if device is not None:
            t = t.to(device)
        return t.requires_grad_(True) if requires_grad else t
    if isinstance(obj, (bytes, bytearray, memoryview)):
        raise TypeError("asarray(): use tc.frombuffer(obj, dtype=...) for raw buffers")
    t = tc.tensor(obj, dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor viewing the memory of a buffer-protocol object (bytes are
    read-only in tc: in-place writes raise), like torch.frombuffer.

    Args:
        buffer: an object with the buffer protocol.
        dtype (tc.dtype): the element type.
        count (int): the number of elements (-1: all after offset).
        offset (int): bytes skipped at the start.

    Returns:
        Tensor: the view.
    """
    tc = _tc()
    import numpy as np
    nbytes = memoryview(buffer).nbytes
    if dtype.name == "bfloat16":
        raise TypeError("frombuffer: numpy has no bfloat16, so tc cannot view a bfloat16 buffer")
    size = tc.empty(0, dtype=dtype).element_size()
    if offset < 0 or offset > nbytes:
        raise ValueError("offset (%d bytes) must be non-negative and no greater than buffer length (%d bytes) "
                         "minus 1" % (offset, nbytes))
    if count <= 0 and count != -1:
        raise ValueError("count must be either -1 or greater than 0, got %d" % count)
    if count == -1:
        if (nbytes - offset) % size:
            raise ValueError("buffer length (%d bytes) after offset (%d bytes) must be a multiple of element size "
                             "(%d)" % (nbytes - offset, offset, size))
        count = (nbytes - offset) // size
        if count == 0:
            raise ValueError("both buffer length (%d) and count (-1) must not be 0" % nbytes)
    elif offset + count * size > nbytes:
        raise ValueError("requested buffer length (%d * %d bytes) after offset (%d bytes) must not be greater than "
                         "actual buffer length (%d bytes)" % (count, size, offset, nbytes))
    arr = np.frombuffer(buffer, dtype=np.bool_ if dtype.name == "bool" else dtype.name, count=count, offset=offset)
    t = tc.from_numpy(arr)
    return t.requires_grad_(True) if requires_grad else t


def _strided_layout(size, stride):
    """A buffer shape, the buffer dims to select at 0 (padding), and the
    permutation giving a tensor of exactly (size, stride), or None."""
    size, stride = list(size), list(stride)
    order = sorted((i for i in builtins.range(len(size)) if stride[i] != 0 or size[i] <= 1),
                   key=lambda i: (stride[i], -i))
    inner = []  # innermost first: ("pad", extent) or ("dim", i)
    cur = 1
    for i in order:
        s = stride[i] if size[i] > 1 else max(stride[i], cur)
        if size[i] == 0:
            continue
        if s % cur:
            return None
        if s > cur:
            inner.append(("pad", s // cur))
        elif s < cur:
            return None
        inner.append(("dim", i))
        cur = s * size[i]
    return inner


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialized tensor of ``size`` whose stride() is exactly
    ``stride``, like torch.empty_strided: made by slicing and permuting a
    contiguous buffer (broadcast for zero strides), so each stride must be a
    multiple of the span of the dims with smaller strides; other layouts
    (overlapping elements, or strides that do not nest like that) raise
    RuntimeError.

    Returns:
        Tensor: the tensor.
    """
    tc = _tc()
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size):
        raise RuntimeError("Trying to create tensor with negative dimension")
    if 0 in size:
        t = tc.empty(*size, dtype=dtype, device=device)
        return t.requires_grad_(True) if requires_grad else t
    plan = _strided_layout(size, stride)
    if plan is None:
        raise RuntimeError("empty_strided: tc cannot lay out size %s with strides %s (overlapping or not nested)"
                           % (size, stride))
    extents = [e if kind == "pad" else size[e] for kind, e in plan][::-1]
    t = tc.empty(*extents, dtype=dtype, device=device)
    kinds = plan[::-1]
    for j in reversed(builtins.range(len(kinds))):
        if kinds[j][0] == "pad":
            t = t.select(j, 0)
    dims = [e for kind, e in kinds if kind == "dim"]  # dims of t, outermost first
    # insert the zero-stride dims (broadcast) and order the dims as asked
    missing = [i for i in builtins.range(len(size)) if i not in dims]
    for i in missing:
        t = t.unsqueeze(t.ndim)
        dims.append(i)
    t = t.permute(*[dims.index(i) for i in builtins.range(len(size))]) if size else t
    if missing:
        t = t.expand(*size)
    if list(t.stride()) != stride:
        raise RuntimeError("empty_strided: tc cannot lay out size %s with strides %s" % (size, stride))
    return t.requires_grad_(True) if requires_grad else t


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    """:func:`empty_strided` in this tensor's dtype and device (unless given).

    Returns:
        Tensor: the tensor.
    """
    return empty_strided(size, stride, dtype=dtype if dtype is not None else self.dtype,
                         device=device if device is not None else self.device, requires_grad=requires_grad)


FUNCTIONS = {f.__name__: f for f in (normal, randint_like, range, fill, put, asarray, frombuffer, empty_strided)}
METHODS = {"new_empty_strided": new_empty_strided}
