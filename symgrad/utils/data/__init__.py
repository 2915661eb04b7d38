"""``symgrad.utils.data``: datasets, samplers and the :class:`DataLoader`, as in
``torch.utils.data``, so training loops written for PyTorch run unchanged."""

from symgrad.utils.data.dataloader import DataLoader, default_collate, default_convert
from symgrad.utils.data.dataset import (
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from symgrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "DataLoader",
    "default_collate",
    "default_convert",
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "Subset",
    "ConcatDataset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "WeightedRandomSampler",
]
