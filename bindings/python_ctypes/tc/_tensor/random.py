"""tc.Tensor's random fills and sampling: uniform_, normal_, multinomial (a
mixin of tc.Tensor, tc/_tensor/__init__.py)."""
from typing import TYPE_CHECKING

from .._tensor_base import _call, check, fn

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


class RandomMethods:
    """tc.Tensor's random fills and sampling: uniform_, normal_, multinomial."""

    __slots__ = ()

    def uniform_(self, a=0.0, b=1.0) -> "Tensor":
        """Fills the tensor in place with samples of U(a, b).

        Args:
            a (float): the lower bound.
            b (float): the upper bound.

        Returns:
            Tensor: self.
        """
        check(fn("tc_uniform_")(self._h, float(a), float(b)))
        return self

    def normal_(self, mean=0.0, std=1.0) -> "Tensor":
        """Fills the tensor in place with samples of N(mean, std^2).

        Args:
            mean (float): the mean.
            std (float): the standard deviation.

        Returns:
            Tensor: self.
        """
        check(fn("tc_normal_")(self._h, float(mean), float(std)))
        return self

    def multinomial(self, num_samples, replacement=False) -> "Tensor":
        """Samples indices from the (unnormalized) probabilities in each row.

        Args:
            num_samples (int): samples per row.
            replacement (bool): sample with replacement.

        Returns:
            Tensor: int64 indices.
        """
        return _call(fn("tc_multinomial"), self._h, int(num_samples), 1 if replacement else 0)
