"""``DataLoader``: batches of samples from a dataset, as ``torch.utils.data.DataLoader``
gives them (the same batches from the same sampler order, collated the same way)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

import numpy as np

from symgrad.random import Generator, numpy_generator
from symgrad.tensor import NAMES, Tensor
from symgrad.utils.data._utils.collate import default_collate, default_convert
from symgrad.utils.data.dataset import IterableDataset, Subset, TensorDataset
from symgrad.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert"]

_FROZEN = frozenset(
    ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")
)

_T_co = TypeVar("_T_co", covariant=True)


class DataLoader(Generic[_T_co]):
    """Batches of ``batch_size`` samples of ``dataset``, in order or (``shuffle=True``) in
    a new random order each pass, put together by ``collate_fn`` (:func:`default_collate`).

    ``len(loader)`` is the number of batches. ``num_workers`` is accepted, and the samples
    are read in this process (the same batches, without worker processes); ``pin_memory``
    (with PyTorch's warning at each pass: there is no accelerator) and the other worker
    options change nothing.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.data import DataLoader, TensorDataset
    >>> data = TensorDataset(symgrad.arange(10.0).reshape(5, 2), symgrad.arange(5))
    >>> loader = DataLoader(data, batch_size=2)
    >>> len(loader)
    3
    >>> [y.tolist() for _, y in loader]
    [[0, 1], [2, 3], [4]]
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading "
                "(num_workers > 0), but got num_workers=0"
            )
        if prefetch_factor is not None and num_workers == 0:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None"
            )
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for option, value in (
                ("shuffle", shuffle),
                ("sampler", sampler),
                ("batch_sampler", batch_sampler),
            ):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {option} "
                        f"option, but got {option}={value}"
                    )
        elif shuffle not in {False, None} and sampler is not None:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )
        if sampler is None and not iterable:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler: Sampler | None = sampler
        self.batch_sampler = batch_sampler
        self._auto_batch = batch_size is not None or batch_sampler is not None
        if collate_fn is None:
            collate_fn = default_collate if self._auto_batch else default_convert
        self.collate_fn = collate_fn
        self._initialized = True

    def __setattr__(self, name: str, value: Any) -> None:
        # PyTorch freezes the options that decide the batches once the loader is built
        if name in _FROZEN and getattr(self, "_initialized", False):
            raise ValueError(
                f"{name} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(name, value)

    def __iter__(self) -> Iterator:
        return _SingleProcessDataLoaderIter(self)

    def _batches(self) -> Iterator:
        if isinstance(self.dataset, IterableDataset):
            yield from self._iterate_stream()
        elif self.batch_sampler is not None:
            # a dataset that reads a whole batch at once is asked for it, as PyTorch asks
            read_batch = getattr(self.dataset, "__getitems__", None)
            for indices in self.batch_sampler:
                rows = None
                if self.collate_fn is default_collate:
                    rows = _tensor_rows(self.dataset, indices)
                if rows is not None:
                    yield rows
                elif read_batch:
                    yield self.collate_fn(read_batch(indices))
                else:
                    yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for index in self.sampler:  # type: ignore[union-attr]
                yield self.collate_fn(self.dataset[index])

    def _iterate_stream(self) -> Iterator:
        if not self._auto_batch:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch: list = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)  # type: ignore[arg-type]


class _SingleProcessDataLoaderIter:
    """One pass over a :class:`DataLoader`: ``next`` gives a batch, ``len`` the loader's
    number of batches, as PyTorch's iterator."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(
                "pin_memory_device is deprecated, the current accelerator will be used as the "
                f"device,ignore pin_memory_device='{loader.pin_memory_device}'.",
                stacklevel=3,
            )
        if loader.pin_memory:  # (there is no accelerator: the CPU only)
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used.",
                stacklevel=3,
            )
        # PyTorch's iterator draws its workers' base seed first (an int64 from the loader's
        # generator), so that the draws after it are PyTorch's
        self._base_seed = int(numpy_generator(loader.generator).random_from_to((), 0, 2**63))
        self._batches = loader._batches()

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return self

    def __next__(self) -> Any:
        return next(self._batches)

    def __len__(self) -> int:
        return len(self._loader)


def _tensor_rows(dataset: Any, indices: list) -> list | None:
    """The batch ``default_collate`` makes of the samples at ``indices`` of a
    ``TensorDataset`` (or a ``Subset`` of one, as ``random_split`` gives), read at once: each
    tensor's rows, as the samples stacked would be (a list, as default_collate gives for
    tuples). None where that is not certain to be the same: a tensor that requires grad (its
    stack has a node of its own), a subclass, indices out of range."""
    while type(dataset) is Subset:
        chosen = dataset.indices
        indices = [chosen[i] for i in indices]
        dataset = dataset.dataset
    if type(dataset) is not TensorDataset or NAMES.used or not indices:
        return None
    tensors = dataset.tensors
    for t in tensors:
        if type(t) is not Tensor or t._requires_grad or type(t._data) is not np.ndarray:
            return None
        if not t._data.ndim:
            return None
    try:
        rows = np.asarray(indices)
    except (TypeError, ValueError):
        return None
    n = len(dataset)
    if rows.dtype.kind not in "iu" or rows.ndim != 1 or rows.min() < 0 or rows.max() >= n:
        return None
    return [Tensor._make(np.ascontiguousarray(t._data[rows])) for t in tensors]
