"""``symgrad.distributed``: the queries training scripts make before they set up several
processes. symgrad runs in one process, so distributed training is not available: scripts
that ask ``is_available()`` and ``is_initialized()`` take their single-process path, and the
rank and world size of a group never set up raise PyTorch's ``ValueError``.

Examples
--------
>>> import symgrad
>>> symgrad.distributed.is_available() and symgrad.distributed.is_initialized()
False
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "is_initialized", "get_rank", "get_world_size"]

_NO_GROUP = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


def is_available() -> bool:
    """False: symgrad has no distributed backend (one process computes everything)."""
    return False


def is_initialized() -> bool:
    """False: no process group is ever set up."""
    return False


def get_rank(group: Any = None) -> int:
    """Raises PyTorch's ``ValueError``: there is no process group to have a rank in."""
    raise ValueError(_NO_GROUP)


def get_world_size(group: Any = None) -> int:
    """Raises PyTorch's ``ValueError``: there is no process group to count."""
    raise ValueError(_NO_GROUP)
