"""The submodules of torch.utils.data that programs import names from
(``from torch.utils.data.sampler import Sampler``, ``from
torch.utils.data.dataset import Dataset``, ...): tc keeps all of these in
the one module tc.utils.data, so each submodule here is a small module
object holding the names PyTorch 1.13's file of that name defines (the
same objects as tc.utils.data's). They are registered in sys.modules under
``tc.utils.data.<name>`` so that a plain import finds them too."""
import sys
import types

from .data_loading import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler,
                           Sampler, SequentialSampler, Subset, SubsetRandomSampler, TensorDataset, default_collate,
                           random_split)
from ._worker import get_worker_info


def _submodule(name, doc, names):
    """A module object tc.utils.data.<name> holding ``names`` (a dict)."""
    full = "tc.utils.data." + name
    module = types.ModuleType(full, doc)
    module.__dict__.update(names)
    module.__all__ = sorted(names)
    sys.modules[full] = module
    return module


sampler = _submodule("sampler", "Samplers (torch.utils.data.sampler's names).", {
    "Sampler": Sampler, "SequentialSampler": SequentialSampler, "RandomSampler": RandomSampler,
    "SubsetRandomSampler": SubsetRandomSampler, "BatchSampler": BatchSampler})

dataset = _submodule("dataset", "Datasets (torch.utils.data.dataset's names).", {
    "Dataset": Dataset, "IterableDataset": IterableDataset, "TensorDataset": TensorDataset,
    "ConcatDataset": ConcatDataset, "Subset": Subset, "random_split": random_split})

dataloader = _submodule("dataloader", "DataLoader (torch.utils.data.dataloader's names).", {
    "DataLoader": DataLoader, "default_collate": default_collate, "get_worker_info": get_worker_info})


def add_distributed(distributed_sampler):
    """tc.utils.data.distributed (DistributedSampler lives in tc.utils.data
    itself, which calls this once it is defined).

    Args:
        distributed_sampler (type): tc.utils.data.DistributedSampler.

    Returns:
        module: the submodule.
    """
    return _submodule("distributed", "DistributedSampler (torch.utils.data.distributed's names).",
                      {"DistributedSampler": distributed_sampler})
