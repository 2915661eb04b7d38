"""Datasets as in ``torch.utils.data``: a map-style :class:`Dataset` answers ``dataset[i]``
and ``len(dataset)``; an :class:`IterableDataset` yields its samples."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any, Generic, TypeVar

from symgrad.random import Generator, numpy_generator
from symgrad.tensor import Tensor

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "Subset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
    "random_split",
]

# the sample types, so that programs may write `class Pairs(Dataset[tuple[Tensor, int]])`
_T_co = TypeVar("_T_co", covariant=True)
_T_stack = TypeVar("_T_stack", tuple, dict)


class Dataset(Generic[_T_co]):
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``);
    ``a + b`` concatenates two datasets."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co]):
    """A dataset read as a stream: subclasses define ``__iter__``; ``a + b`` chains two
    streams (:class:`ChainDataset`)."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple]):
    """Samples are the rows of the given tensors: ``dataset[i] == (t[i] for t in tensors)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.data import TensorDataset
    >>> data = TensorDataset(symgrad.arange(6.0).reshape(3, 2), symgrad.tensor([0, 1, 0]))
    >>> len(data), data[1]
    (3, (tensor([2., 3.]), tensor(1)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        sizes = [t.size(0) for t in tensors]
        if any(size != sizes[0] for size in sizes):
            raise AssertionError(
                f"Size mismatch between tensors\n(their first dimensions are {sizes}: every "
                "tensor of a TensorDataset needs one row per sample)"
            )
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset[_T_co]):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list:
        chosen = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(chosen)  # type: ignore[attr-defined]
        return [self.dataset[i] for i in chosen]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[_T_co]):
    """The samples of several datasets, one after another."""

    def __init__(self, datasets: Any) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        for which, end in enumerate(self.cumulative_sizes):
            if index < end:
                start = self.cumulative_sizes[which - 1] if which else 0
                return self.datasets[which][index - start]
        raise IndexError(f"index {index} is out of range for a dataset of {len(self)} samples")


class ChainDataset(IterableDataset):
    """Several streams read one after another, each only when the one before has ended (so
    a stream without an end never lets the next start). Every dataset must be an
    :class:`IterableDataset`, checked as it is reached (``AssertionError``, as PyTorch).

    Examples
    --------
    >>> from symgrad.utils.data import ChainDataset, IterableDataset
    >>> class Count(IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n))
    >>> list(ChainDataset([Count(2), Count(3)]))
    [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        # kept as given, not copied to a list: a one-shot iterator is read once, as in PyTorch
        self.datasets = datasets

    def __iter__(self) -> Iterator:
        for dataset in self.datasets:
            _require_stream(dataset)
            yield from dataset  # type: ignore[misc]

    def __len__(self) -> int:
        total = 0
        for dataset in self.datasets:
            _require_stream(dataset)
            total += len(dataset)  # type: ignore[arg-type]
        return total


def _require_stream(dataset: Any) -> None:
    if not isinstance(dataset, IterableDataset):
        raise AssertionError("ChainDataset only supports IterableDataset")


class StackDataset(Dataset[_T_stack]):
    """Datasets of the same length read side by side: given as positional arguments, sample
    ``i`` is the tuple of their samples ``i``; given as keywords, the dict of them by name.
    Datasets that read a batch at once (``__getitems__``) are asked for whole batches.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.data import StackDataset
    >>> pairs = StackDataset(symgrad.tensor([1.0, 2.0]), ["a", "b"])
    >>> len(pairs), pairs[1]
    (2, (tensor(2.), 'b'))
    >>> StackDataset(image=[10, 20], label=[0, 1])[0]
    {'image': 10, 'label': 0}
    """

    datasets: tuple | dict

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args if args else kwargs
        parts = args if args else tuple(kwargs.values())
        self._length = len(parts[0])
        if any(len(part) != self._length for part in parts):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index: Any) -> tuple | dict:
        if isinstance(self.datasets, dict):
            return {name: d[index] for name, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list) -> list:
        names = list(self.datasets) if isinstance(self.datasets, dict) else None
        parts = list(self.datasets.values()) if names else list(self.datasets)
        columns = [_read_batch(d, indices) for d in parts]
        rows = zip(*columns)
        if names is not None:
            return [dict(zip(names, row)) for row in rows]
        return [tuple(row) for row in rows]

    def __len__(self) -> int:
        return self._length


def _read_batch(dataset: Any, indices: list) -> list:
    if not callable(getattr(dataset, "__getitems__", None)):
        return [dataset[i] for i in indices]
    items = dataset.__getitems__(indices)
    if len(items) != len(indices):
        raise ValueError(
            f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}"
        )
    return list(items)


def random_split(
    dataset: Dataset, lengths: Sequence[int | float], generator: Generator | None = None
) -> list[Subset]:
    """Split ``dataset`` at random into non-overlapping subsets of the given ``lengths``
    (counts summing to ``len(dataset)``, or fractions summing to 1, the remainder given out
    one by one from the first subset on, as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.data import TensorDataset, random_split
    >>> data = TensorDataset(symgrad.arange(10.0))
    >>> train, test = random_split(data, [0.8, 0.2], generator=symgrad.Generator().manual_seed(0))
    >>> len(train), len(test)
    (8, 2)
    """
    n = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, fraction in enumerate(lengths):
            if not 0 <= fraction <= 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(n * fraction)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    UserWarning,
                    stacklevel=2,
                )
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(
            f"Sum of input lengths ({sum(lengths)}) does not equal the length of the input "
            f"dataset ({n})"
        )
    order = numpy_generator(generator).randperm(n).tolist()
    ends = list(accumulate(int(k) for k in lengths))
    return [Subset(dataset, order[end - k : end]) for k, end in zip(lengths, ends)]
