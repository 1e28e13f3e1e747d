"""More PyTorch Tensor methods composed from tc ops: the legacy x.new(...),
sum_to_size, unfold (sliding windows), the random fills (random_,
exponential_, cauchy_, log_normal_, geometric_), fill_diagonal_, put/put_,
apply_/map_, nansum/nanmean, aminmax, argwhere, adjoint/mH/H and the byte()
/char()/short() conversions, in MiscTensorMethods, a base class of tc.Tensor."""
import collections
import math

from . import _core as K
from ._tensor_base import rand, randn, stack, tensor, where
from ._factory_keywords import _with_generator
from ._legacy_tensors import legacy_new
from ._shape_ops import randint

AMinMax = collections.namedtuple("aminmax", ["min", "max"])


def _new_like(self, values):
    return tensor(values, dtype=self.dtype, device=self.device)


class MiscTensorMethods:
    """The methods listed in the module docstring (a base class of tc.Tensor)."""

    __slots__ = ()

    def new(self, *args, **kwargs):
        """The legacy constructor in this tensor's dtype and device: new(*sizes)
        (uninitialized), new(data), new(size) with a tc.Size.

        Returns:
            Tensor: the new tensor.
        """
        kwargs = dict(kwargs)
        kwargs.setdefault("device", self.device)
        return legacy_new(args, kwargs, self.dtype)

    @property
    def is_cpu(self):
        """True if the tensor lives on the CPU."""
        return self.device.type == "cpu"

    @property
    def mH(self):
        """The transpose of the last two dims (the conjugate transpose of a real tensor)."""
        return self.transpose(-2, -1)

    @property
    def H(self):
        """The transpose of a 2-D tensor (conjugate transpose; tc tensors are real)."""
        if self.ndim > 2:
            raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got %d-D tensor." % self.ndim)
        return self.t()

    @property
    def real(self):
        """self: the real part of a real tensor."""
        return self

    def adjoint(self):
        """The conjugate transpose of the last two dims (their transpose for real tensors)."""
        return self.transpose(-2, -1)

    def byte(self):
        """This tensor as uint8."""
        return self.to(K.uint8)

    def char(self):
        """This tensor as int8."""
        return self.to(K.int8)

    def short(self):
        """This tensor as int16."""
        return self.to(K.int16)

    def sum_to_size(self, *size):
        """Sums the broadcast dimensions so the result has ``size`` (which
        self must be expandable from), like torch.Tensor.sum_to_size.

        Args:
            *size (int): the shape (or one sequence).

        Returns:
            Tensor: the sums.
        """
        if len(size) == 1 and not isinstance(size[0], int):
            size = tuple(size[0])
        lead = self.ndim - len(size)
        if lead < 0:
            raise RuntimeError("size {%s} is not expandable to size {%s}."
                               % (", ".join(map(str, size)), ", ".join(map(str, self.shape))))
        t = self
        if lead:
            t = t.sum(tuple(range(lead)))
        dims = tuple(i for i, s in enumerate(size) if s == 1 and t.shape[i] != 1)
        for i, s in enumerate(size):
            if s != 1 and s != t.shape[i]:
                raise RuntimeError("size {%s} is not expandable to size {%s}."
                                   % (", ".join(map(str, size)), ", ".join(map(str, self.shape))))
        return t.sum(dims, keepdim=True) if dims else t

    def unfold(self, dimension, size, step):
        """The windows of ``size`` elements every ``step`` along ``dimension``:
        that dimension becomes the window count and a new last dimension
        holds each window, like torch.Tensor.unfold.

        Args:
            dimension (int): the dimension.
            size (int): the window length.
            step (int): the distance between window starts.

        Returns:
            Tensor: the windows.
        """
        d = dimension % self.ndim if self.ndim else 0
        length = self.shape[d] if self.ndim else 1
        if size > length:
            raise RuntimeError("maximum size for tensor at dimension %d is %d but size is %d" % (d, length, size))
        if step <= 0:
            raise RuntimeError("step is %d but must be > 0" % step)
        n = (length - size) // step + 1
        windows = stack([self.narrow(d, i * step, size) for i in range(n)], d)
        return windows.movedim(d + 1, -1)

    def fill_diagonal_(self, fill_value, wrap=False):
        """Writes fill_value on the main diagonal (all dims of equal size, or a
        2-D matrix; wrap=True restarts it every ncols + 1 rows of a tall one).

        Args:
            fill_value (Number): the value.
            wrap (bool): continue the diagonal below a tall matrix's square part.

        Returns:
            Tensor: self.
        """
        if self.ndim < 2:
            raise RuntimeError("dimensions must larger than 1")
        if self.ndim > 2 and len(set(self.shape)) != 1:
            raise RuntimeError("all dimensions of input must be of equal length")
        if self.ndim == 2:
            rows, cols = self.shape
            mask = [[False] * cols for _ in range(rows)]
            limit = rows if wrap else min(rows, cols)
            for r in range(limit):
                c = r % (cols + 1) if wrap else r
                if c < cols:
                    mask[r][c] = True
        else:
            n = self.shape[0]
            flat = [False] * self.numel()
            stride = sum(n ** k for k in range(self.ndim))
            for i in range(n):
                flat[i * stride] = True
            mask = flat
        m = tensor(mask, device=self.device).reshape(*self.shape)
        return self.copy_(where(m, self.new_full((), fill_value), self))

    def random_(self, from_=0, to=None, *, generator=None):
        """Fills with integers uniform in [from_, to) (one argument: [0, it);
        none: [0, 2**mantissa] for floating, the dtype's range for integers).

        Args:
            from_ (int): the low end (the high end when ``to`` is None and it is given alone).
            to (int, optional): one past the high end.
            generator (tc.Generator, optional): the stream drawn from.

        Returns:
            Tensor: self.
        """
        if to is None:
            if from_ == 0:
                to = {"float16": 2 ** 11 + 1, "bfloat16": 2 ** 8 + 1, "float32": 2 ** 24 + 1,
                      "float64": 2 ** 53 + 1, "uint8": 256, "int8": 128, "int16": 2 ** 15,
                      "int32": 2 ** 31, "int64": 2 ** 63 - 1, "bool": 2}[self.dtype.name]
            else:
                from_, to = 0, from_
        drawn = randint(from_, to, tuple(self.shape), generator=generator, device=self.device)
        return self.copy_(drawn)

    def _uniform_draws(self, generator):
        with _with_generator(generator):
            return rand(*self.shape, dtype=self.dtype if self.dtype.is_floating_point else K.float64,
                        device=self.device)

    def exponential_(self, lambd=1.0, *, generator=None):
        """Fills with Exponential(lambd) samples (-log(1 - U) / lambd).

        Returns:
            Tensor: self.
        """
        u = self._uniform_draws(generator)
        return self.copy_(-(1.0 - u).log() / lambd)

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """Fills with Cauchy(median, sigma) samples (median + sigma * tan(pi * (U - 1/2))).

        Returns:
            Tensor: self.
        """
        u = self._uniform_draws(generator)
        return self.copy_(((u - 0.5) * math.pi).tan() * sigma + median)

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """Fills with exp(N(mean, std)) samples.

        Returns:
            Tensor: self.
        """
        with _with_generator(generator):
            z = randn(*self.shape, dtype=self.dtype, device=self.device)
        return self.copy_((z * std + mean).exp())

    def geometric_(self, p, *, generator=None):
        """Fills with Geometric(p) samples: the number of trials up to the
        first success (ceil(log(1 - U) / log(1 - p))).

        Returns:
            Tensor: self.
        """
        u = self._uniform_draws(generator)
        return self.copy_(((1.0 - u).log() / math.log1p(-p)).ceil().clamp(min=1))

    def put_(self, index, source, accumulate=False):
        """Writes source into self at ``index`` of its flattened view (adding with accumulate).

        Args:
            index (Tensor): int64 positions in the flattened self.
            source (Tensor): the values (as many as index).
            accumulate (bool): add instead of overwrite.

        Returns:
            Tensor: self.
        """
        return self.copy_(self.put(index, source, accumulate))

    def put(self, index, source, accumulate=False):
        """Out-of-place :meth:`put_`.

        Returns:
            Tensor: a new tensor.
        """
        if source.dtype != self.dtype:
            raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = %s "
                               "and source.dtype = %s" % (self.dtype, source.dtype))
        flat = self.reshape(-1).clone()
        n = flat.shape[0]
        idx = index.reshape(-1)
        idx = idx + (idx < 0).to(idx.dtype) * n
        flat = flat.index_put((idx,), source.reshape(-1), accumulate)
        return flat.reshape(*self.shape)

    def apply_(self, callable):
        """Replaces each element x by callable(x) (CPU tensors; slow: Python per element).

        Args:
            callable (function): number -> number.

        Returns:
            Tensor: self.
        """
        if self.device.type != "cpu":
            raise TypeError("apply_ is only implemented on CPU tensors")
        values = [callable(v) for v in self.reshape(-1).tolist()]
        return self.copy_(_new_like(self, values).reshape(*self.shape))

    def map_(self, tensor, callable):
        """Replaces each element x by callable(x, y), y the matching element of
        ``tensor`` broadcast to self's shape (CPU tensors).

        Args:
            tensor (Tensor): the other operand.
            callable (function): (number, number) -> number.

        Returns:
            Tensor: self.
        """
        if self.device.type != "cpu":
            raise TypeError("map_ is only implemented on CPU tensors")
        other = tensor.expand(*self.shape).reshape(-1).tolist()
        values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
        return self.copy_(_new_like(self, values).reshape(*self.shape))

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        """The sum treating NaN as zero.

        Returns:
            Tensor: the sums.
        """
        t = where(self.isnan(), self.new_zeros(()), self) if self.dtype.is_floating_point else self
        return t.sum(dim, keepdim=keepdim, dtype=dtype) if dim is not None else t.sum(dtype=dtype)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        """The mean of the non-NaN elements.

        Returns:
            Tensor: the means.
        """
        if not self.dtype.is_floating_point:
            raise RuntimeError("nanmean(): expected input to have floating point dtype but got %s" % self.dtype)
        count = self.isnan().logical_not().to(self.dtype)
        total = self.nansum(dim, keepdim, dtype=dtype)
        n = count.sum(dim, keepdim=keepdim) if dim is not None else count.sum()
        return total / n

    def aminmax(self, *, dim=None, keepdim=False):
        """(min, max) in one call, over all elements or along dim.

        Returns:
            aminmax: a named tuple (min, max).
        """
        if dim is None:
            lo, hi = self.min(), self.max()
            if keepdim:
                shape = (1,) * self.ndim
                lo, hi = lo.reshape(*shape), hi.reshape(*shape)
            return AMinMax(lo, hi)
        return AMinMax(self.amin(dim, keepdim), self.amax(dim, keepdim))

    def argwhere(self):
        """The (N, ndim) coordinates of the nonzero elements (same as nonzero())."""
        return self.nonzero()
