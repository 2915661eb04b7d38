"""``symgrad.nn.parallel``: the wrappers that run a module on several devices or processes.

symgrad has the CPU only and one process: :class:`DataParallel` calls its module itself, and
:class:`DistributedDataParallel` needs a process group, which is never set up (PyTorch's
``ValueError``, as when none was initialised), so scripts import it and use it only on their
distributed path.
"""

from __future__ import annotations

from typing import Any

from symgrad.distributed import _NO_GROUP
from symgrad.nn.modules.container import DataParallel
from symgrad.nn.modules.module import Module

__all__ = ["DataParallel", "DistributedDataParallel"]


class DistributedDataParallel(Module):
    """A module whose gradients are averaged over processes: without a process group (symgrad
    never has one) it raises PyTorch's ``ValueError``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.parallel import DistributedDataParallel as DDP
    >>> try:
    ...     DDP(symgrad.nn.Linear(2, 2))
    ... except ValueError as error:
    ...     print(str(error)[:46])
    Default process group has not been initialized
    """

    def __init__(self, module: Module, *args: Any, **kwargs: Any) -> None:
        raise ValueError(_NO_GROUP)
