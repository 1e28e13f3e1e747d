"""tc.nn.utils.rnn: packed variable-length sequences, as torch.nn.utils.rnn.

A PackedSequence holds the steps of a batch of sequences sorted by length, longest first,
step after step: ``data`` has one row per (step, sequence still running), and
``batch_sizes[t]`` says how many sequences run at step t. The recurrent layers take one and
skip the padding. Every reordering here is one ``index_select`` (one gather, one backward
node), with the indices computed in Python from the lengths.
"""
from collections import namedtuple
from typing import Iterable, List, Optional, Sequence, Tuple, Union

from .. import _core as K
from .._tensor import Tensor, cat, full, tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequenceBase = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def _index(values: Sequence[int], device=None) -> Tensor:
    return tensor(list(values), dtype=K.int64, device=device)


def _permutation_list(p: Optional[Tensor]) -> Optional[List[int]]:
    return None if p is None else [int(v) for v in p.tolist()]


class PackedSequence(_PackedSequenceBase):
    """A batch of variable-length sequences, packed (a namedtuple, as PyTorch's).

    Made by :func:`pack_padded_sequence` and :func:`pack_sequence`, not by hand.

    Attributes:
        data (Tensor): (sum of the lengths, *): the steps, time-major, longest sequence first.
        batch_sizes (Tensor): int64 on the CPU: how many sequences run at each step.
        sorted_indices (Tensor, optional): the batch position of each packed sequence
            (None when the input was already sorted).
        unsorted_indices (Tensor, optional): the inverse permutation of sorted_indices.
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), ...) as PyTorch allows
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise TypeError("PackedSequence: give data and batch_sizes, or one (data, batch_sizes) pair")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn.")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> "PackedSequence":
        """Returns the sequence with its data converted as ``Tensor.to(...)`` does (batch_sizes
        stays on the CPU; the indices follow the data's device). Returns self if nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: None if t is None else t.to(data.device))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cpu(self) -> "PackedSequence":
        """Returns the sequence with its data on the CPU."""
        return self.to("cpu")

    def cuda(self, device=None) -> "PackedSequence":
        """Returns the sequence with its data on a CUDA device (``"cuda"`` unless given)."""
        return self.to(device if device is not None else "cuda")

    def double(self) -> "PackedSequence":
        """Returns the sequence with float64 data."""
        return self.to(dtype=K.float64)

    def float(self) -> "PackedSequence":
        """Returns the sequence with float32 data."""
        return self.to(dtype=K.float32)

    def half(self) -> "PackedSequence":
        """Returns the sequence with float16 data."""
        return self.to(dtype=K.float16)

    def long(self) -> "PackedSequence":
        """Returns the sequence with int64 data."""
        return self.to(dtype=K.int64)

    def int(self) -> "PackedSequence":
        """Returns the sequence with int32 data."""
        return self.to(dtype=K.int32)

    def short(self) -> "PackedSequence":
        """Returns the sequence with int16 data."""
        return self.to(dtype=K.int16)

    def char(self) -> "PackedSequence":
        """Returns the sequence with int8 data."""
        return self.to(dtype=K.int8)

    def byte(self) -> "PackedSequence":
        """Returns the sequence with uint8 data."""
        return self.to(dtype=K.uint8)

    @property
    def is_cuda(self) -> bool:
        """Whether the data is on a CUDA device."""
        return self.data.is_cuda


def invert_permutation(permutation: Optional[Tensor]) -> Optional[Tensor]:
    """Returns the inverse of a permutation (None for None).

    Args:
        permutation: a 1-D int64 tensor holding 0 .. n-1 in some order.
    """
    if permutation is None:
        return None
    p = _permutation_list(permutation)
    inverse = [0] * len(p)
    for i, v in enumerate(p):
        inverse[v] = i
    return _index(inverse, permutation.device)


def _lengths_list(lengths) -> List[int]:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got %dD tensor"
                               % lengths.dim())
        return [int(v) for v in lengths.tolist()]
    if hasattr(lengths, "tolist"):  # numpy arrays and other frameworks' tensors
        lengths = lengths.tolist()
    return [int(v) for v in lengths]


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded batch of variable-length sequences.

    Args:
        input: (T, B, *) padded sequences, or (B, T, *) with batch_first.
        lengths: the B lengths (a list or a 1-D int64 CPU tensor), each at least 1.
        batch_first: the input is (B, T, *).
        enforce_sorted: the lengths must be in decreasing order; if False they are
            sorted here and the permutation kept in the result.

    Returns:
        PackedSequence: differentiable in ``input``.

    Raises:
        RuntimeError: lengths not matching the batch, a length below 1 or above T, or
            (with enforce_sorted) lengths not in decreasing order.
    """
    lengths = _lengths_list(lengths)
    batch_dim, time_dim = (0, 1) if batch_first else (1, 0)
    sorted_indices = None
    if not enforce_sorted:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])  # stable, as torch's CPU sort
        sorted_indices = _index(order, input.device)
        input = input.index_select(batch_dim, sorted_indices)
        lengths = [lengths[i] for i in order]
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch, steps = input.shape[batch_dim], input.shape[time_dim]
    if len(lengths) != batch:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got %d (batch_size=%d)"
                           % (len(lengths), batch))
    if lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(lengths[i] < lengths[i + 1] for i in range(batch - 1)):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if lengths[0] > steps:  # PyTorch reads past the input here; refuse instead
        raise RuntimeError("pack_padded_sequence: a length (%d) is larger than the padded sequence length (%d)"
                           % (lengths[0], steps))
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    # Row of step t of sequence b in input flattened over its first two dims.
    if batch_first:
        rows = [b * steps + t for t, bs in enumerate(batch_sizes) for b in range(bs)]
    else:
        rows = [t * batch + b for t, bs in enumerate(batch_sizes) for b in range(bs)]
    flat = input.reshape(batch * steps, *input.shape[2:])
    data = flat.index_select(0, _index(rows, input.device))
    return PackedSequence(data, _index(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """Pads a packed batch back into a tensor (the inverse of :func:`pack_padded_sequence`).

    Args:
        sequence: the PackedSequence.
        batch_first: return (B, T, *) instead of (T, B, *).
        padding_value: the value of the padded slots.
        total_length: pad to this many steps (at least the longest length).

    Returns:
        ``(padded, lengths)``: lengths an int64 CPU tensor, both in the original batch order.

    Raises:
        ValueError: total_length below the longest length.
    """
    data = sequence.data
    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             "but got total_length=%d and max sequence length being %d" % (total_length, steps))
        steps = total_length
    batch = batch_sizes[0]
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(batch)]
    order = _permutation_list(sequence.unsorted_indices) or list(range(batch))
    offsets = [0]
    for bs in batch_sizes:
        offsets.append(offsets[-1] + bs)
    pad_row = data.shape[0]  # the padding row appended below

    def row(t, b):
        s = order[b]  # output column b is packed sequence s
        return offsets[t] + s if t < len(batch_sizes) and s < batch_sizes[t] else pad_row

    if batch_first:
        rows = [row(t, b) for b in range(batch) for t in range(steps)]
        shape = (batch, steps) + tuple(data.shape[1:])
    else:
        rows = [row(t, b) for t in range(steps) for b in range(batch)]
        shape = (steps, batch) + tuple(data.shape[1:])
    padding = full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    padded = cat([data, padding], 0).index_select(0, _index(rows, data.device)).reshape(shape)
    return padded, _index([lengths[s] for s in order])


def pad_sequence(sequences: Union[Tensor, Iterable[Tensor]], batch_first: bool = False,
                 padding_value: float = 0.0) -> Tensor:
    """Stacks variable-length sequences into one padded tensor.

    Args:
        sequences: tensors of shape (L_i, *), the same * for all.
        batch_first: return (B, T, *) instead of (T, B, *), T the longest L_i.
        padding_value: the value of the padded slots.

    Returns:
        Tensor: the padded batch, differentiable in every sequence.

    Raises:
        RuntimeError: no sequences, or differing trailing shapes.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: %s"
                           % type(sequences))
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    lengths = [s.shape[0] for s in sequences]
    steps, batch = max(lengths), len(sequences)
    starts = [0]
    for n in lengths:
        starts.append(starts[-1] + n)
    pad_row = starts[-1]
    rest = tuple(sequences[0].shape[1:])

    def row(t, b):
        return starts[b] + t if t < lengths[b] else pad_row

    if batch_first:
        rows = [row(t, b) for b in range(batch) for t in range(steps)]
        shape = (batch, steps) + rest
    else:
        rows = [row(t, b) for t in range(steps) for b in range(batch)]
        shape = (steps, batch) + rest
    first = sequences[0]
    padding = full((1,) + rest, padding_value, dtype=first.dtype, device=first.device)
    return cat(list(sequences) + [padding], 0).index_select(0, _index(rows, first.device)).reshape(shape)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> List[Tensor]:
    """Splits a padded batch into its sequences (the inverse of :func:`pad_sequence`).

    Args:
        padded_sequences: (T, B, *), or (B, T, *) with batch_first.
        lengths: the B lengths.
        batch_first: the batch is dim 0.

    Returns:
        list of Tensor: B tensors of shape (L_i, *).
    """
    batch_dim = 0 if batch_first else 1
    return [padded_sequences.select(batch_dim, b).narrow(0, 0, n)
            for b, n in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of variable-length sequences (``pad_sequence`` then ``pack_padded_sequence``).

    Args:
        sequences: tensors of shape (L_i, *); with enforce_sorted, by decreasing length.
        enforce_sorted: require decreasing lengths (else they are sorted here).

    Returns:
        PackedSequence: differentiable in every sequence.
    """
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> List[Tensor]:
    """Unpacks a PackedSequence into its list of sequences (the inverse of :func:`pack_sequence`).

    Args:
        packed_sequences: the PackedSequence.

    Returns:
        list of Tensor: the sequences, in their original order.
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
