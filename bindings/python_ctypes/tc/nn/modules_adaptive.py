"""AdaptiveLogSoftmaxWithLoss (torch.nn's, Grave et al.'s efficient softmax
approximation) and the deprecated Container, composed from tc modules and ops."""
import collections
import math
import warnings
from typing import List, Sequence

from . import functional as F
from . import init
from .modules import Linear, Module, ModuleList, Sequential
from .._tensor import Tensor, cat, tensor, where

_ASMoutput = collections.namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities over many classes, frequent ones (below cutoffs[0])
    in a head softmax together with one entry per cluster of rarer classes,
    each cluster its own softmax behind a smaller projection.

    Args:
        in_features (int): the input's features.
        n_classes (int): the number of classes.
        cutoffs (sequence of int): increasing cluster boundaries in [1, n_classes - 1].
        div_value (float): each cluster's hidden size is in_features / div_value^(i+1).
        head_bias (bool): give the head a bias.
        device, dtype: where and in what dtype to make the parameters.
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs: List[int] = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False), Linear(hsz, osz, bias=False)))
        if device is not None or dtype is not None:
            self.to(*(a for a in (device, dtype) if a is not None))

    def reset_parameters(self) -> None:
        """Re-draws every weight as Linear's constructor does (and the head's bias)."""
        for lin in [self.head] + [m for seq in self.tail for m in seq]:
            init.kaiming_uniform_(lin.weight, a=math.sqrt(5))
            if lin.bias is not None:
                bound = 1.0 / math.sqrt(lin.weight.shape[1]) if lin.weight.shape[1] > 0 else 0.0
                init.uniform_(lin.bias, -bound, bound)

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """Returns (output, loss): each sample's log-probability of its target
        class, and the mean negative log-likelihood.

        Args:
            input_ (Tensor): [N, in_features] (or [in_features]).
            target_ (Tensor): int64 classes [N] (or 0-dim).

        Returns:
            _ASMoutput: a named tuple (output [N] or 0-dim, loss 0-dim).
        """
        tdim = target_.dim()
        if tdim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size",
                                   tuple(input_.shape))
        elif tdim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with size",
                                   tuple(input_.shape))
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = tdim > 0
        x = input_ if batched else input_.unsqueeze(0)
        targets = target_.reshape(-1).tolist()
        if targets and (min(targets) < 0 or max(targets) >= self.n_classes):
            raise RuntimeError("Target values should be in [0, {}], but values in range [{}, {}] were found. "
                               .format(self.n_classes - 1, min(targets), max(targets)))
        # The head's class of each sample: its own below the shortlist, else its cluster's entry.
        head_index, order, parts = [], [], []
        short_rows = [r for r, t in enumerate(targets) if t < self.shortlist_size]
        order += short_rows
        if short_rows:
            parts.append(x.new_zeros(len(short_rows)))
        for i in range(1, len(self.cutoffs)):
            low, high = self.cutoffs[i - 1], self.cutoffs[i]
            rows = [r for r, t in enumerate(targets) if low <= t < high]
            if not rows:
                continue
            rows_t = tensor(rows, dtype="int64", device=x.device)
            relative = tensor([[targets[r] - low] for r in rows], dtype="int64", device=x.device)
            logprob = F.log_softmax(self.tail[i - 1](x.index_select(0, rows_t)), 1)
            parts.append(logprob.gather(1, relative).reshape(-1))
            order += rows
        for t in targets:
            head_index.append(t if t < self.shortlist_size else self.shortlist_size + self._cluster_of(t))
        # The cluster terms in sample order: the inverse of the concatenation's order.
        inverse = [0] * len(order)
        for k, r in enumerate(order):
            inverse[r] = k
        cluster_term = cat(parts, 0).index_select(0, tensor(inverse, dtype="int64", device=x.device))
        head_logprob = F.log_softmax(self.head(x), 1)
        index = tensor([[h] for h in head_index], dtype="int64", device=x.device)
        output = cluster_term + head_logprob.gather(1, index).reshape(-1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _cluster_of(self, t: int) -> int:
        for i in range(self.n_clusters):
            if t < self.cutoffs[i + 1]:
                return i
        raise RuntimeError("class %d past n_classes" % t)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = F.log_softmax(head_output, 1)
        pieces = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logprob = F.log_softmax(self.tail[i](input), 1)
            pieces.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(pieces, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """Returns the log-probabilities of every class.

        Args:
            input (Tensor): [N, in_features].

        Returns:
            Tensor: [N, n_classes].
        """
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """Returns the most likely class of each sample (the head alone
        decides when its best entry is a shortlist class).

        Args:
            input (Tensor): [N, in_features].

        Returns:
            Tensor: int64 [N].
        """
        head_output = self.head(input)
        output = head_output.argmax(1)
        outside = output >= self.shortlist_size
        if not outside.any().item():
            return output
        full = self._get_full_log_prob(input, head_output).argmax(1)
        return where(outside, full, output)


class Container(Module):
    """Deprecated (torch keeps it): a Module whose keyword arguments become submodules.

    Args:
        **kwargs: name -> Module.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__()
        warnings.warn("nn.Container is deprecated. All of it's functionality is now implemented in nn.Module. "
                      "Subclass that instead.")
        for key, value in kwargs.items():
            self.add_module(key, value)


__all__ = ["AdaptiveLogSoftmaxWithLoss", "Container"]
