"""tc.utils.data: datasets, samplers and DataLoader (data_loading.py), and
DistributedSampler (what data-parallel training needs to give each rank its
own share of a dataset), like torch.utils.data's."""
import math

from .data_loading import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset,  # noqa: F401
                           RandomSampler, Sampler, SequentialSampler, Subset, SubsetRandomSampler, TensorDataset,
                           default_collate, random_split)

__all__ = ["DistributedSampler", "BatchSampler", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset",
           "default_collate", "random_split"]


class DistributedSampler:
    """Indices of dataset (anything with len()) for one rank of num_replicas:
    every rank gets the same number, the ranks' shares are disjoint and
    together cover the dataset (padded by repeating indices unless
    drop_last). With shuffle, the order is a permutation seeded by seed +
    epoch (set_epoch), the same on every rank. Defaults come from the default
    process group, like torch's."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from .. import distributed as dist
            if not dist.is_initialized():
                raise RuntimeError("DistributedSampler needs num_replicas and rank, or an initialized "
                                   "default process group")
            num_replicas = dist.get_world_size() if num_replicas is None else num_replicas
            rank = dist.get_rank() if rank is None else rank
        if not 0 <= rank < num_replicas:
            raise ValueError("invalid rank %d, rank should be in the interval [0, %d]" % (rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            import random
            indices = list(range(n))
            random.Random(self.seed + self.epoch).shuffle(indices)
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            while pad > 0:
                indices += indices[:pad]
                pad = self.total_size - len(indices)
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch, which seeds the shuffle (call it before each epoch).

        Args:
            epoch (int): the epoch.
        """
        self.epoch = epoch

# ---- worker processes: get_worker_info (tc/utils/_worker.py) ----
from ._worker import WorkerInfo, get_worker_info  # noqa: E402,F401

__all__ += ["get_worker_info"]
# ---- end of the worker processes block ----

# ---- submodules sampler/dataset/dataloader/distributed (tc/utils/_data_submodules.py) ----
from ._data_submodules import add_distributed as _add_distributed  # noqa: E402
from ._data_submodules import dataloader, dataset, sampler  # noqa: E402,F401

distributed = _add_distributed(DistributedSampler)
# ---- end of the submodules block ----
