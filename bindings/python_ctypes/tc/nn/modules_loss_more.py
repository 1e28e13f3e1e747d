"""The margin, embedding, ranking, likelihood and CTC loss modules of
torch.nn (they call tc.nn.functional), with torch's constructor arguments
and attributes."""
import warnings
from typing import Callable, Optional

from . import functional as F
from .functional_loss import _reduction
from .modules import _Loss
from .modules_loss import NLLLoss, PairwiseDistance
from .._tensor import Tensor

_NAMES = {0: "none", 1: "mean", 2: "sum"}


class _LegacyLoss(_Loss):
    """A loss taking torch's deprecated size_average/reduce arguments, which
    override reduction when given (as torch's _Loss does)."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        if size_average is not None or reduce is not None:
            reduction = _NAMES[_reduction(reduction, size_average, reduce)]
        super().__init__(reduction)


class _LegacyWeightedLoss(_LegacyLoss):
    """A _LegacyLoss with an optional ``weight`` buffer."""

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MarginRankingLoss(_LegacyLoss):
    """max(0, -y (x1 - x2) + margin) (see tc.nn.functional.margin_ranking_loss).

    Args:
        margin: the margin.
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """Returns the loss of the scores ``input1``, ``input2`` under the ranking ``target`` (+-1)."""
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_LegacyLoss):
    """x where y = 1, max(0, margin - x) where y = -1 (see tc.nn.functional.hinge_embedding_loss).

    Args:
        margin: the margin.
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Returns the loss of the distances ``input`` under the labels ``target`` (+-1)."""
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_LegacyLoss):
    """log(1 + exp(-y x)) (see tc.nn.functional.soft_margin_loss).

    Args:
        reduction: "none", "mean" or "sum".
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Returns the loss of the scores ``input`` under the labels ``target`` (+-1)."""
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CosineEmbeddingLoss(_LegacyLoss):
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1
    (see tc.nn.functional.cosine_embedding_loss).

    Args:
        margin: in [-1, 1].
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """Returns the loss of the pairs (``input1``, ``input2``) under the labels ``target`` (+-1)."""
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class MultiMarginLoss(_LegacyWeightedLoss):
    """The multi-class hinge loss (see tc.nn.functional.multi_margin_loss).

    Args:
        p: 1 or 2.
        margin: the margin.
        weight: optional class weights [C] (a buffer).
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Optional[Tensor] = None, size_average=None,
                 reduce=None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise AssertionError("weight must be one-dimensional")
        self.p = p
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Returns the loss of the scores ``input`` [N, C] for the classes ``target`` [N]."""
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_LegacyLoss):
    """The multi-label hinge loss (see tc.nn.functional.multilabel_margin_loss).

    Args:
        reduction: "none", "mean" or "sum".
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Returns the loss of the scores ``input`` for the -1-terminated class lists ``target``."""
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_LegacyWeightedLoss):
    """The one-vs-all logistic loss (see tc.nn.functional.multilabel_soft_margin_loss).

    Args:
        weight: optional class weights (a buffer).
        reduction: "none", "mean" or "sum".
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Returns the loss of the scores ``input`` for the 0/1 labels ``target``."""
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class TripletMarginLoss(_LegacyLoss):
    """max(0, margin + d(a, p) - d(a, n)) with the p-norm distance
    (see tc.nn.functional.triplet_margin_loss).

    Args:
        margin: the margin.
        p: the norm's degree.
        eps: added to the differences.
        swap: the distance swap (min of d(a, n) and d(p, n)).
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """Returns the loss of the triplets (``anchor``, ``positive``, ``negative``)."""
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """max(0, d(a, p) - d(a, n) + margin) with any distance function
    (see tc.nn.functional.triplet_margin_with_distance_loss).

    Args:
        distance_function: (x, y) -> distances; a PairwiseDistance() when None
            (then a submodule, as in torch).
        margin: the margin.
        swap: the distance swap.
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, *, distance_function: Optional[Callable[[Tensor, Tensor], Tensor]] = None,
                 margin: float = 1.0, swap: bool = False, reduction: str = "mean"):
        super().__init__(reduction)
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin = margin
        self.swap = swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """Returns the loss of the triplets (``anchor``, ``positive``, ``negative``)."""
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """The Gaussian negative log-likelihood (see tc.nn.functional.gaussian_nll_loss).

    Args:
        full: add the constant term.
        eps: the smallest variance.
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(reduction)
        self.full = full
        self.eps = eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor) -> Tensor:
        """Returns the loss of the means ``input`` and variances ``var`` for the samples ``target``."""
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class PoissonNLLLoss(_LegacyLoss):
    """The Poisson negative log-likelihood (see tc.nn.functional.poisson_nll_loss).

    Args:
        log_input: whether the input holds log-rates.
        full: add the Stirling term.
        eps: added to the rate in the log (log_input False).
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None, eps: float = 1e-8,
                 reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        """Returns the loss of the (log-)rates ``log_input`` for the counts ``target``."""
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class CTCLoss(_Loss):
    """The Connectionist Temporal Classification loss (see tc.nn.functional.ctc_loss).

    Args:
        blank: the blank label.
        reduction: "none", "mean" or "sum".
        zero_infinity: give impossible samples a loss and gradient of 0.
    """

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths, target_lengths) -> Tensor:
        """Returns the loss of ``log_probs`` [T, N, C] for ``targets`` (see tc.nn.functional.ctc_loss)."""
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


class NLLLoss2d(NLLLoss):
    """Deprecated: NLLLoss (which takes [N, C, H, W] inputs itself), kept as in torch."""

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean"):
        warnings.warn("NLLLoss2d has been deprecated. Please use NLLLoss instead as a drop-in replacement and see "
                      "https://pytorch.org/docs/master/nn.html#torch.nn.NLLLoss for more details.")
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


__all__ = ["MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss", "CosineEmbeddingLoss", "MultiMarginLoss",
           "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
           "GaussianNLLLoss", "PoissonNLLLoss", "CTCLoss", "NLLLoss2d"]
