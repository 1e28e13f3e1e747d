"""Dataset, TensorDataset, Subset, random_split, the samplers and DataLoader
with PyTorch's default_collate, as torch.utils.data (num_workers > 0 loads in
worker processes: _dataloader_iter.py and _worker.py). Imported into
tc.utils.data."""
import collections.abc
import itertools
import math
import numbers
from typing import Any, Callable, Generic, Iterable, Iterator, List, Optional, Sequence, TypeVar, Union

from .._generator import Generator, randperm
from .._tensor import Tensor, stack, tensor

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define __getitem__ (and usually __len__)."""

    def __getitem__(self, index: int) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A dataset that is an iterable of samples: subclasses define __iter__."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Samples are tuples of tensors[i][index] (every tensor has the same first dim).

    Args:
        tensors: tensors with one first-dim size.
    """

    def __init__(self, *tensors: Tensor):
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset):
    """The concatenation of datasets.

    Args:
        datasets: map-style datasets with lengths.
    """

    def __init__(self, datasets: Iterable[Dataset]):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        import bisect
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[d][idx - (self.cumulative_sizes[d - 1] if d > 0 else 0)]


class Subset(Dataset):
    """The samples of dataset at indices.

    Args:
        dataset: the whole dataset.
        indices: the indices kept, in order.
    """

    def __init__(self, dataset: Dataset, indices: Sequence[int]):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[Union[int, float]],
                 generator: Optional[Generator] = None) -> List[Subset]:
    """Splits dataset into non-overlapping random subsets.

    Args:
        dataset: the dataset.
        lengths: the subsets' lengths, or fractions summing to 1 (the remainder
            goes round-robin to the first subsets, as in PyTorch).
        generator: the stream the permutation is drawn from (default generator if None).

    Returns:
        A list of Subsets.
    """
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError("Fraction at index {} is not between 0 and 1".format(i))
            subset_lengths.append(int(math.floor(n * frac)))
        remainder = n - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset:offset + length]))
        offset += length
    return out


# ---------------------------------------------------------------- samplers
class Sampler(Generic[T_co]):
    """Yields indices (or batches of indices) of a dataset."""

    def __init__(self, data_source: Optional[Any] = None):
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1.

    Args:
        data_source: the dataset.
    """

    def __init__(self, data_source: Any):
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random order of the indices (or num_samples draws with replacement).

    Args:
        data_source: the dataset.
        replacement: draw with replacement.
        num_samples: how many indices (default: the dataset's length).
        generator: the stream drawn from (default: libtc's default generator).
    """

    def __init__(self, data_source: Any, replacement: bool = False, num_samples: Optional[int] = None,
                 generator: Optional[Generator] = None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement={}".format(
                self.replacement))
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got num_samples={}".format(
                self.num_samples))

    @property
    def num_samples(self) -> int:
        """The number of indices drawn per epoch."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        if self.replacement:
            import contextlib
            from .._tensor import rand
            ctx = self.generator._active() if self.generator is not None else contextlib.nullcontext()
            with ctx:
                u = rand(self.num_samples, dtype="float64").tolist()
            yield from (min(int(x * n), n - 1) for x in u)
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, self.generator).tolist()
        yield from randperm(n, self.generator).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order.

    Args:
        indices: the indices.
        generator: the stream drawn from.
    """

    def __init__(self, indices: Sequence[int], generator: Optional[Generator] = None):
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler[List[int]]):
    """Groups a sampler's indices into lists of batch_size.

    Args:
        sampler: the indices.
        batch_size: the batch size.
        drop_last: drop the last, smaller batch.
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got batch_size={}".format(
                batch_size))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got drop_last={}".format(drop_last))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[List[int]]:
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


# ---------------------------------------------------------------- collation
def default_collate(batch: List[Any]) -> Any:
    """Merges a list of samples into a batch, as torch's default_collate:
    tensors are stacked (a new first dim), floats become a float64 tensor,
    ints an int64 tensor (bools a bool tensor), strings stay a list, and
    mappings, named tuples and sequences are collated field by field.

    Args:
        batch: the samples.

    Returns:
        The batch.
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        out = stack(list(batch), 0)
        from ._worker import get_worker_info
        if get_worker_info() is not None:
            # In a worker: the batch goes to shared memory here, so that the
            # main process maps it instead of receiving a copy.
            from .._errors import MissingFunctionError
            try:
                out.share_memory_()
            except MissingFunctionError:  # a libtc without shared memory: sent by value
                pass
        return out
    if type(elem).__module__ == "numpy" and type(elem).__name__ not in ("str_", "string_"):
        if type(elem).__name__ in ("ndarray", "memmap"):  # arrays: stacked (copies)
            return stack([tensor(b) for b in batch], 0)
        if getattr(elem, "shape", None) == ():  # numpy scalars keep their dtype
            import numpy
            return tensor(numpy.array(batch))
    if isinstance(elem, bool):
        return tensor(list(batch), dtype="bool")
    if isinstance(elem, float):
        return tensor(list(batch), dtype="float64")
    if isinstance(elem, numbers.Integral):
        return tensor([int(b) for b in batch], dtype="int64")
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        size = len(next(it))
        if not all(len(e) == size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(list(samples)) for samples in transposed]
        try:
            return type(elem)([default_collate(list(samples)) for samples in transposed])
        except TypeError:
            return [default_collate(list(samples)) for samples in transposed]
    raise TypeError("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    "found {}".format(type(elem)))


def _no_collate(sample):
    # Unbatched loading hands samples over as they are (a module-level
    # function, not a lambda: worker processes started by spawn pickle it).
    return sample


class DataLoader(Generic[T_co]):
    """Iterates over a dataset in batches, as torch.utils.data.DataLoader:
    in this process (num_workers=0), or in num_workers worker processes whose
    batches come back, in order, through shared memory.

    Args:
        dataset: a map-style (or iterable) dataset.
        batch_size: samples per batch (None: unbatched samples).
        shuffle: a new random order every epoch (from generator, or libtc's default generator).
        sampler: the indices (instead of shuffle).
        batch_sampler: lists of indices (instead of batch_size, shuffle, sampler, drop_last).
        num_workers: worker processes loading batches (0: load in this process).
        collate_fn: merges a list of samples (default_collate by default).
        pin_memory: accepted; tc does not page-lock memory.
        drop_last: drop the last, smaller batch.
        timeout: seconds to wait for a worker's batch (0: no limit), then RuntimeError.
        worker_init_fn: called with the worker id in each worker, after seeding.
        multiprocessing_context: a start method name or a multiprocessing context for the workers.
        generator: the stream shuffling and the workers' base seed draw from.
        prefetch_factor: batches loaded ahead per worker.
        persistent_workers: keep the workers alive between epochs.
        pin_memory_device: accepted, as pin_memory.
    """

    def __init__(self, dataset: Dataset, batch_size: Optional[int] = 1, shuffle: Optional[bool] = None,
                 sampler: Optional[Iterable] = None, batch_sampler: Optional[Iterable] = None,
                 num_workers: int = 0, collate_fn: Optional[Callable] = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Optional[Callable] = None,
                 multiprocessing_context=None, generator: Optional[Generator] = None, *,
                 prefetch_factor: int = 2, persistent_workers: bool = False, pin_memory_device: str = ""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing.")
        assert prefetch_factor > 0
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._iterator = None
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 "shuffle={}".format(shuffle))
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler and "
                                 "batch_sampler options")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_size is not None or batch_sampler is not None else _no_collate)

    @property
    def multiprocessing_context(self):
        """The multiprocessing context the workers start from (None: the default)."""
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        import multiprocessing
        import multiprocessing.context
        if multiprocessing_context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 "(num_workers > 0), but got num_workers={}".format(self.num_workers))
            if isinstance(multiprocessing_context, str):
                valid = multiprocessing.get_all_start_methods()
                if multiprocessing_context not in valid:
                    raise ValueError("multiprocessing_context option should specify a valid start method in "
                                     "{!r}, but got multiprocessing_context={!r}".format(
                                         valid, multiprocessing_context))
                multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
            if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                "specifying the start method, but got multiprocessing_context={}".format(
                                    multiprocessing_context))
        self._multiprocessing_context = multiprocessing_context

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers > 0:
            from ._dataloader_iter import MultiProcessingDataLoaderIter
            if not self.persistent_workers:
                return MultiProcessingDataLoaderIter(self)
            if self._iterator is None:
                self._iterator = MultiProcessingDataLoaderIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._single_process_iter()

    def _single_process_iter(self) -> Iterator[Any]:
        if self._iterable:
            it = iter(self.dataset)
            if self.batch_size is None:
                yield from (self.collate_fn(s) for s in it)
                return
            while True:
                batch = list(itertools.islice(it, self.batch_size))
                if not batch or (self.drop_last and len(batch) < self.batch_size):
                    return
                yield self.collate_fn(batch)
        elif self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
