"""Loader workers as ``torch.utils.data`` describes them: :class:`WorkerInfo` and
:func:`get_worker_info`.

symgrad's :class:`~symgrad.utils.data.DataLoader` reads every sample in the calling process,
whatever its ``num_workers``, so code always runs outside a worker and
:func:`get_worker_info` answers ``None``, as PyTorch's does in the main process. Datasets
that split their work by worker (``if info is None: read everything``) therefore read
everything once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["WorkerInfo", "get_worker_info"]


@dataclass(frozen=True)
class WorkerInfo:
    """What a loader worker knows about itself: its ``id`` (``0`` to ``num_workers - 1``),
    ``num_workers``, its random ``seed``, its copy of the ``dataset``, an optional ``rng``
    and the ``worker_method``. Frozen, as PyTorch's.

    Examples
    --------
    >>> from symgrad.utils.data.worker import WorkerInfo
    >>> info = WorkerInfo(id=0, num_workers=2, seed=7, dataset=None)
    >>> info.id, info.num_workers, info.worker_method
    (0, 2, 'multiprocessing')
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str = "multiprocessing"


# Set only while code runs inside a worker; symgrad's loader starts none.
_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The :class:`WorkerInfo` of the loader worker running this code, or ``None`` outside
    a worker (always, with symgrad's loader: it reads samples in the calling process).

    Examples
    --------
    >>> from symgrad.utils.data import get_worker_info
    >>> get_worker_info() is None
    True
    """
    return _worker_info
