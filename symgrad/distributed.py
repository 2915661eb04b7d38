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

__all__ = [
    "is_available",
    "is_initialized",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "destroy_process_group",
    "barrier",
    "all_reduce",
]

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


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> None:
    """Raises PyTorch's ``ValueError``: there is no process group to wait for."""
    raise ValueError(_NO_GROUP)


def all_reduce(tensor: Any, op: Any = None, group: Any = None, async_op: bool = False) -> None:
    """Raises PyTorch's ``ValueError``: there is no process group to reduce over."""
    raise ValueError(_NO_GROUP)


def init_process_group(*args: Any, **kwargs: Any) -> None:
    """Raises ``RuntimeError``: symgrad runs in one process (imported by scripts that call it
    only when launched on several, as ``from torch.distributed import init_process_group``)."""
    raise RuntimeError(
        "symgrad has no distributed backend: it trains in one process (launch the script "
        "without torchrun, or check distributed.is_available() first)"
    )


def destroy_process_group(group: Any = None) -> None:
    """Raises PyTorch's ``AssertionError``: there is no process group to destroy."""
    raise AssertionError("Process group cannot be None")
