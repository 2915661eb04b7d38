"""``symgrad.utils.data``: datasets, samplers and the :class:`DataLoader`, as in
``torch.utils.data``, so training loops written for PyTorch run unchanged."""

from symgrad.utils.data import _utils
from symgrad.utils.data.dataloader import DataLoader, default_collate, default_convert
from symgrad.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from symgrad.utils.data.distributed import DistributedSampler
from symgrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from symgrad.utils.data.worker import get_worker_info

__all__ = [
    "DataLoader",
    "default_collate",
    "default_convert",
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "Subset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "WeightedRandomSampler",
    "DistributedSampler",
    "get_worker_info",
]
