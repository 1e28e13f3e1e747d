"""Loss and distance modules, as torch.nn's (they call tc.nn.functional)."""
from typing import Optional, Tuple

from . import functional as F
from .functional_loss import _reduction
from .modules import Module, _Loss
from .._tensor import Tensor


class _FunctionalLoss(_Loss):
    """Base of the loss modules that call one function of tc.nn.functional:
    ``_fn`` names it; it gets ``reduction`` and, as keywords, the attributes
    that ``_options`` names."""
    _fn = ""
    _options: Tuple[str, ...] = ()

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        options = {k: getattr(self, k) for k in self._options}
        return getattr(F, self._fn)(input, target, reduction=self.reduction, **options)


class _WeightedLoss(_FunctionalLoss):
    """Base of the losses with an optional class ``weight``."""
    def __init__(self, weight: Optional[Tensor] = None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(reduction)
        if size_average is not None or reduce is not None:
            self.reduction = {0: "none", 1: "mean", 2: "sum"}[_reduction(reduction, size_average, reduce)]
        # A buffer, as in torch (state_dict keeps it, parameters() does not).
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy of logits against class indices or probabilities (see tc.nn.functional.cross_entropy).

    Args:
        weight: optional class weights [C].
        ignore_index: class index whose targets add nothing.
        reduction: "none", "mean" or "sum".
        label_smoothing: in [0, 1].
    """
    _fn, _options = "cross_entropy", ("weight", "ignore_index", "label_smoothing")

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (see tc.nn.functional.nll_loss).

    Args:
        weight: optional class weights [C].
        ignore_index: class index whose targets add nothing.
        reduction: "none", "mean" or "sum".
    """
    _fn, _options = "nll_loss", ("weight", "ignore_index")

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (see tc.nn.functional.binary_cross_entropy).

    Args:
        weight: optional, broadcast to the input.
        reduction: "none", "mean" or "sum".
    """
    _fn, _options = "binary_cross_entropy", ("weight",)


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross-entropy of logits (see tc.nn.functional.binary_cross_entropy_with_logits).

    Args:
        weight: optional, broadcast to the input.
        reduction: "none", "mean" or "sum".
        pos_weight: optional weight of the positive term.
    """
    _fn, _options = "binary_cross_entropy_with_logits", ("weight", "pos_weight")

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight: Optional[Tensor] = None):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)


class L1Loss(_FunctionalLoss):
    """Mean absolute error (see tc.nn.functional.l1_loss).

    Args:
        reduction: "none", "mean" or "sum".
    """
    _fn = "l1_loss"


class SmoothL1Loss(_FunctionalLoss):
    """Smooth L1 loss (see tc.nn.functional.smooth_l1_loss).

    Args:
        reduction: "none", "mean" or "sum".
        beta: the threshold (>= 0).
    """
    _fn, _options = "smooth_l1_loss", ("beta",)

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(reduction)
        self.beta = beta


class HuberLoss(_FunctionalLoss):
    """Huber loss (see tc.nn.functional.huber_loss).

    Args:
        reduction: "none", "mean" or "sum".
        delta: the threshold (> 0).
    """
    _fn, _options = "huber_loss", ("delta",)

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction)
        self.delta = delta


class KLDivLoss(_FunctionalLoss):
    """Kullback-Leibler divergence (see tc.nn.functional.kl_div).

    Args:
        reduction: "none", "mean", "sum" or "batchmean".
        log_target: whether the target holds log-probabilities.
    """
    _fn, _options = "kl_div", ("log_target",)

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
        # "batchmean" is kl_div's own: the base checks the others.
        super().__init__("mean" if reduction == "batchmean" else reduction)
        self.reduction = reduction
        self.log_target = log_target


class CosineSimilarity(Module):
    """Cosine similarity along dim (see tc.nn.functional.cosine_similarity).

    Args:
        dim: the dim of the vectors.
        eps: the smallest norm divided by.
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """Returns the cosine similarity of ``x1`` and ``x2`` along ``dim``.

        Args:
            x1 (Tensor): the first input.
            x2 (Tensor): the second input.

        Returns:
            Tensor: the result.
        """
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """p-norm distance along the last dim (see tc.nn.functional.pairwise_distance).

    Args:
        p: the norm's degree.
        eps: added to the difference.
        keepdim: keep the last dim.
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """Returns the p-norm distance between the rows of ``x1`` and ``x2``.

        Args:
            x1 (Tensor): the first input.
            x2 (Tensor): the second input.

        Returns:
            Tensor: the result.
        """
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
