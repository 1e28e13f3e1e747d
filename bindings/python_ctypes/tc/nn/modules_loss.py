"""Loss and distance modules, as torch.nn's (they call tc.nn.functional)."""
from typing import Optional

from . import functional as F
from .functional_loss import _reduction
from .modules import Module, _Loss
from .._tensor import Tensor


class _WeightedLoss(_Loss):
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

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of log-probabilities (see tc.nn.functional.nll_loss).

    Args:
        weight: optional class weights [C].
        ignore_index: class index whose targets add nothing.
        reduction: "none", "mean" or "sum".
    """

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, ignore_index: int = -100,
                 reduce=None, reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy of probabilities (see tc.nn.functional.binary_cross_entropy).

    Args:
        weight: optional, broadcast to the input.
        reduction: "none", "mean" or "sum".
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_WeightedLoss):
    """Binary cross-entropy of logits (see tc.nn.functional.binary_cross_entropy_with_logits).

    Args:
        weight: optional, broadcast to the input.
        reduction: "none", "mean" or "sum".
        pos_weight: optional weight of the positive term.
    """

    def __init__(self, weight: Optional[Tensor] = None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight: Optional[Tensor] = None):
        super().__init__(weight, size_average, reduce, reduction)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.binary_cross_entropy_with_logits(input, target, weight=self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class L1Loss(_Loss):
    """Mean absolute error (see tc.nn.functional.l1_loss).

    Args:
        reduction: "none", "mean" or "sum".
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Smooth L1 loss (see tc.nn.functional.smooth_l1_loss).

    Args:
        reduction: "none", "mean" or "sum".
        beta: the threshold (>= 0).
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss (see tc.nn.functional.huber_loss).

    Args:
        reduction: "none", "mean" or "sum".
        delta: the threshold (> 0).
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(Module):
    """Kullback-Leibler divergence (see tc.nn.functional.kl_div).

    Args:
        reduction: "none", "mean", "sum" or "batchmean".
        log_target: whether the target holds log-probabilities.
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
        super().__init__()
        if reduction != "batchmean":
            _reduction(reduction)
        self.reduction = reduction
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        """Computes the loss of ``input`` against ``target``.

        Args:
            input (Tensor): the prediction.
            target (Tensor): the target.

        Returns:
            Tensor: the loss, reduced as ``reduction`` says.
        """
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


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
