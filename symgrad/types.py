"""``torch.types``: the type aliases programs annotate with (``Number``, ``_size``,
``Device``), for programs that import them from there.

Examples
--------
>>> from symgrad.types import Number, _size
>>> isinstance(2.5, Number), _size
(True, symgrad.Size | list[int] | tuple[int, ...])
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from symgrad._device import device as _device
from symgrad._size import Size
from symgrad.dtypes import dtype as _dtype  # noqa: F401  (PyTorch's alias names)
from symgrad.ops.tensor_facts import layout as _layout  # noqa: F401
from symgrad.tensor import Tensor

_bool = builtins.bool
_int = builtins.int
_float = builtins.float
_complex = builtins.complex
_str = builtins.str
_bytes = builtins.bytes

_size = Size | list[int] | tuple[int, ...]
Number = int | float | bool
_Number = (int, float, bool)  # for isinstance
Device = _device | str | int | None
_TensorOrTensors = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors = Tensor | Sequence[Tensor | None] | None
FileLike = Any
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool

__all__ = ["Number", "Device", "FileLike", "Size", "Tensor"]
