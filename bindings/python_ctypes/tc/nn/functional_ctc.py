"""tc.nn.functional.ctc_loss: the Connectionist Temporal Classification
loss, its forward (alpha) recursion composed in log space from tc ops, so
that autograd yields the backward (beta) pass.

Impossible paths carry a large negative finite log-probability (_NEG) rather
than -inf: logsumexp over -inf entries has NaN gradients, while the finite
sentinel gives those entries weight exp(_NEG - x) = 0. A sample whose final
log-likelihood is still at the sentinel's scale has no alignment (input too
short) and gets an infinite loss, as torch's."""
from typing import List, Sequence, Union

from .. import _decls as D
from .._core import no_grad
from .._tensor import Tensor, arange, cat, tensor, where
from .functional_loss import _reduction

_NEG = -1e30  # "log 0" (see the module's docstring); a float32 holds it
_INFEASIBLE = _NEG / 2  # a final log-likelihood below this had no alignment


def _lengths(lengths: Union[Tensor, Sequence[int], int], what: str) -> List[int]:
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.reshape(-1).tolist()]
    if hasattr(lengths, "__index__"):
        return [int(lengths)]
    return [int(v) for v in lengths]


def _padded_targets(targets: Tensor, target_lengths: List[int], batch: int) -> List[List[int]]:
    """Each sample's target labels, from a padded [N, S] or a concatenated 1-D targets."""
    if targets.dim() == 2:
        if targets.shape[0] != batch:
            raise RuntimeError("Expected tensor to have size %d at dimension 0, but got size %d for argument #2 "
                               "'targets' (while checking arguments for ctc_loss_cpu)" % (batch, targets.shape[0]))
        rows = targets.tolist()
        for n in target_lengths:
            if n > targets.shape[1]:
                raise RuntimeError("Expected tensor to have size at least %d at dimension 1, but got size %d for "
                                   "argument #2 'targets' (while checking arguments for ctc_loss_cpu)"
                                   % (n, targets.shape[1]))
        return [rows[b][:target_lengths[b]] for b in range(batch)]
    flat = targets.reshape(-1).tolist()
    if sum(target_lengths) > len(flat):
        raise RuntimeError("Expected tensor to have size at least %d at dimension 0, but got size %d for argument "
                           "#2 'targets' (while checking arguments for ctc_loss_cpu)"
                           % (sum(target_lengths), len(flat)))
    out, start = [], 0
    for n in target_lengths:
        out.append(flat[start:start + n])
        start += n
    return out


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss: -log of the total probability of every alignment of each
    target to its input frames (blanks between and repeats collapsed).

    Like torch's, the gradient with respect to log_probs also holds
    exp(log_probs) (torch's kernel assumes log_softmax outputs); through a
    log_softmax that term cancels, so gradients of the logits are exact.

    Args:
        log_probs: log-probabilities [T, N, C] (or [T, C] for one sample).
        targets: int64 labels, padded [N, S] or concatenated [sum(target_lengths)] ([S] unbatched).
        input_lengths: the frames of each sample (tensor or sequence of N ints; an int unbatched).
        target_lengths: the labels of each sample, likewise.
        blank: the blank label.
        reduction: "none", "mean" (each loss divided by its target length, then averaged) or "sum".
        zero_infinity: give impossible samples (infinite loss) a loss and gradient of 0.

    Returns:
        The loss: [N] for "none" (0-dim unbatched), else 0-dim.
    """
    code = _reduction(reduction)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.reshape(1, -1)
    if log_probs.dim() != 3:
        raise RuntimeError("ctc_loss: expected log_probs of 2 or 3 dims, got %d" % log_probs.dim())
    frames, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    in_lens = _lengths(input_lengths, "input_lengths")
    tgt_lens = _lengths(target_lengths, "target_lengths")
    if len(in_lens) != batch or len(tgt_lens) != batch:
        raise RuntimeError("input_lengths and target_lengths must have %d entries, got %d and %d"
                           % (batch, len(in_lens), len(tgt_lens)))
    for n in in_lens:
        if n > frames:
            raise RuntimeError("Expected input_lengths to have value at most %d, but got value %d (while checking "
                               "arguments for ctc_loss_cpu)" % (frames, n))
    labels = _padded_targets(targets, tgt_lens, batch)
    nll = _negative_log_likelihood(log_probs, labels, in_lens, blank)
    with no_grad():
        infeasible = nll > -_INFEASIBLE
    loss = where(infeasible, 0.0 if zero_infinity else float("inf"), nll)
    loss = loss + _torch_extra_gradient(log_probs, in_lens, infeasible if zero_infinity else None)
    if unbatched and code == D.TC_REDUCTION_NONE:
        return loss.reshape(())
    if code == D.TC_REDUCTION_MEAN:
        divisors = tensor([max(n, 1) for n in tgt_lens], dtype=loss.dtype, device=loss.device)
        return (loss / divisors).mean()
    if code == D.TC_REDUCTION_SUM:
        return loss.sum()
    return loss


def _negative_log_likelihood(log_probs: Tensor, labels: List[List[int]], in_lens: List[int],
                             blank: int) -> Tensor:
    """-log p(labels[b] | log_probs[:, b]) for each sample b, by the alpha recursion
    over the blank-extended labels (blank, l1, blank, l2, ..., blank)."""
    frames, batch, _ = log_probs.shape
    width = 2 * max([len(l) for l in labels] + [0]) + 1
    extended, skip = [], []
    for lab in labels:
        ext = [blank] * width
        ext[1:2 * len(lab):2] = lab
        extended.append(ext)
        # A label may follow the label two back directly (skipping the blank
        # between) unless both are the same label.
        skip.append([s >= 2 and s % 2 == 1 and s < 2 * len(lab) and ext[s] != ext[s - 2] for s in range(width)])
    dev, dt = log_probs.device, log_probs.dtype
    ext_t = tensor(extended, dtype="int64", device=dev)
    skip_t = tensor(skip, dtype="bool", device=dev)
    # emit[t, b, s] = log_probs[t, b, extended[b][s]]
    emit = log_probs.gather(2, ext_t.unsqueeze(0).expand(frames, batch, width).contiguous())
    # One frame per step: unbind's backward assembles the gradient once,
    # where T selections would each add a gradient of the whole [T, N, L].
    emit = emit.unbind(0)
    neg1 = tensor(_NEG, dtype=dt, device=dev).expand(batch, 1)
    neg2 = tensor(_NEG, dtype=dt, device=dev).expand(batch, 2)
    positions = arange(width, device=dev).unsqueeze(0)
    alpha = where(positions < 2, emit[0], _NEG)
    lens_t = tensor(in_lens, dtype="int64", device=dev).unsqueeze(1)
    for t in range(1, max(in_lens + [1])):
        from_prev = cat([neg1, alpha[:, :-1]], 1)
        if width > 2:
            from_skip = where(skip_t, cat([neg2, alpha[:, :-2]], 1), _NEG)
            paths = alpha.logaddexp(from_prev).logaddexp(from_skip)
        else:
            paths = alpha.logaddexp(from_prev)
        # A sample past its own length keeps its alpha of its last frame.
        alpha = where(lens_t > t, paths + emit[t], alpha)
    ends = [2 * len(l) for l in labels]
    last = alpha.gather(1, tensor([[e] for e in ends], dtype="int64", device=dev))
    before = alpha.gather(1, tensor([[max(e - 1, 0)] for e in ends], dtype="int64", device=dev))
    before = where(tensor([[e > 0] for e in ends], dtype="bool", device=dev), before, _NEG)
    return -last.logaddexp(before).reshape(batch)


def _torch_extra_gradient(log_probs: Tensor, in_lens: List[int], dropped) -> Tensor:
    """A zero per sample whose gradient is exp(log_probs) over the sample's
    frames: torch's ctc_loss backward has that term (see ctc_loss). dropped
    (bool [N] or None) marks samples that zero_infinity zeroed (no gradient)."""
    frames, batch, _ = log_probs.shape
    probs = log_probs.exp()
    with no_grad():
        frozen = probs.detach()
    mask = arange(frames, device=log_probs.device).unsqueeze(1) < tensor(in_lens, dtype="int64",
                                                                         device=log_probs.device).unsqueeze(0)
    if dropped is not None:
        mask = mask.logical_and(dropped.logical_not().unsqueeze(0))
    return where(mask.unsqueeze(2), probs - frozen, 0.0).sum((0, 2))
