"""The memory a deep copy of tensors gets: one copy of each array's memory, shared by the
copies of all the tensors that read it (PyTorch copies each storage once per deepcopy)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["copied_memory"]


def copied_memory(data: Any, memo: dict) -> Any:
    """``data`` read from a copy of all the memory it views, made once per deepcopy (as
    PyTorch copies each storage once: tensors sharing memory still share it), at its offset
    and with its strides."""
    if type(data) is not np.ndarray:
        return data.copy()  # (meta data)
    base = data
    while isinstance(base.base, np.ndarray):
        base = base.base
    if base.dtype != data.dtype or not base.flags.forc:
        return data.copy()  # (memory read as another dtype: the values only)
    copies = memo.setdefault("symgrad.memory", {})
    if id(base) not in copies:
        copies[id(base)] = (base, base.copy(order="A").ravel(order="A"))
    flat = copies[id(base)][1]
    start = data.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    out = np.ndarray(data.shape, data.dtype, buffer=flat, offset=start, strides=data.strides)
    out.flags.writeable = bool(data.flags.writeable)
    return out
