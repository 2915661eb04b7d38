"""Samplers as in ``torch.utils.data``: they give the indices (or batches of indices) a
:class:`~symgrad.utils.data.DataLoader` reads."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from typing import Any, Generic, TypeVar

from symgrad import creation, dtypes
from symgrad.ops.categorical_sampling import multinomial
from symgrad.random import Generator, numpy_generator

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "WeightedRandomSampler",
]

_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: subclasses define ``__iter__`` (and ``__len__`` where known)."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """The indices in a random order (a new one each pass), or ``num_samples`` drawn with
    ``replacement``; from ``generator`` if given, else the default generator."""

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        rng = numpy_generator(self.generator)
        if self.generator is None:  # as PyTorch: a generator of its own, seeded from the default
            seed = int(rng.random_from_to((), 0, 2**63))
            rng = numpy_generator(Generator().manual_seed(seed))
        if self.replacement:
            return iter(rng.random_from_to((self.num_samples,), 0, n).tolist())
        full, rest = divmod(self.num_samples, n)
        order = [i for _ in range(full) for i in rng.randperm(n).tolist()]
        return iter(order + rng.randperm(n).tolist()[:rest])

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order."""

    def __init__(self, indices: Any, generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator:
        order = numpy_generator(self.generator).randperm(len(self.indices)).tolist()
        return iter([self.indices[i] for i in order])

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler[list]):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless
    ``drop_last``)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    ``replacement``, an index may come again; without, each at most once), the way to
    oversample rare classes. Drawn by :func:`symgrad.multinomial`, so a seeded ``generator``
    repeats the draw (PyTorch's own random stream is not reproduced).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.utils.data import WeightedRandomSampler
    >>> s = WeightedRandomSampler([0.0, 1.0, 0.0], num_samples=4)
    >>> list(s), len(s)
    ([1, 1, 1, 1], 4)
    """

    def __init__(
        self,
        weights: Any,
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        weights_tensor = creation.as_tensor(weights, dtype=dtypes.float64)
        if weights_tensor.ndim != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(weights_tensor.shape)}"
            )
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples
