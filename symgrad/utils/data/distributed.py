"""``DistributedSampler``: the share of a dataset's indices one replica (process) of a
data-parallel run reads, as ``torch.utils.data.distributed.DistributedSampler`` splits them."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized
from typing import TypeVar

from symgrad.creation import randperm
from symgrad.random import Generator
from symgrad.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class DistributedSampler(Sampler[_T_co]):
    """The indices of ``dataset`` that replica ``rank`` of ``num_replicas`` reads: every
    ``num_replicas``-th index of the (shuffled) order, starting at ``rank``.

    Each replica gets ``len(self)`` indices. Unless ``drop_last``, the order is padded by
    repeating its start until every replica has as many; with ``drop_last`` the tail that
    can't be shared evenly is left out. With ``shuffle`` the order is a permutation drawn
    from a generator seeded with ``seed + epoch``, the same in every replica: call
    :meth:`set_epoch` at the start of each epoch for a new one. Without shuffling the lists
    are PyTorch's exactly; the shuffled permutation comes from symgrad's generator, so it
    differs from PyTorch's (it covers the dataset all the same).

    symgrad has no process groups, so ``num_replicas`` and ``rank`` must be given
    (PyTorch's ``ValueError`` otherwise, as when no process group has been initialized).

    Examples
    --------
    >>> from symgrad.utils.data import DistributedSampler
    >>> [list(DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False))
    ...  for r in range(2)]
    [[0, 2, 4], [1, 3, 0]]
    >>> s = DistributedSampler(range(5), num_replicas=2, rank=0, drop_last=True)
    >>> len(s), s.total_size
    (2, 4)
    """

    def __init__(
        self,
        dataset: Sized,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            raise ValueError(
                "Default process group has not been initialized, please make sure to call "
                "init_process_group."
            )
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = n // num_replicas
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def _order(self) -> list[int]:
        n = len(self.dataset)
        if not self.shuffle:
            return list(range(n))
        generator = Generator().manual_seed(self.seed + self.epoch)
        return randperm(n, generator=generator).tolist()

    def __iter__(self) -> Iterator[int]:
        order = self._order()
        missing = self.total_size - len(order)
        if missing > 0 and order:
            repeats = math.ceil(missing / len(order))
            order += (order * repeats)[:missing]
        order = order[: self.total_size]
        return iter(order[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` for the next shuffle, so each epoch reads another order (the same
        in every replica)."""
        self.epoch = epoch
