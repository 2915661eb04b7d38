"""``tensor_split`` and its fixed-dimension forms ``hsplit``, ``vsplit`` and ``dsplit``:
views of ``input`` cut into parts, by a number of sections or at indices read as slice bounds
(a negative one counts from the end), with PyTorch's checks of the arguments."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from symgrad._arguments import invalid_combination, require_tensor
from symgrad._data import _wrap_dim
from symgrad.ops import joining
from symgrad.tensor import Tensor

__all__ = ["tensor_split", "hsplit", "vsplit", "dsplit"]

_SIGNATURES = (
    "tuple of ints indices, int dim = 0",
    "Tensor tensor_indices_or_sections, int dim = 0",
    "int sections, int dim = 0",
)
_UNSET: Any = object()


def _is_int(value: Any) -> bool:
    if isinstance(value, Tensor):  # a one-element integer tensor reads as its value
        return value.numel() == 1 and value.dtype.category == 1
    return not isinstance(value, (bool, np.bool_)) and hasattr(type(value), "__index__")


def _as_int(value: Any) -> int:
    return int(value.item()) if isinstance(value, Tensor) else operator.index(value)


def _from_tensor(spec: Tensor) -> Any:
    """A tensor of sections (0-d) or indices (1-d), checked as PyTorch checks it."""
    if spec.ndim > 1:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
            f"one-dimensional tensor, but got a tensor with {spec.ndim} dims"
        )
    if spec.dtype.scalar_type != "Long":
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
            f"{spec.dtype.scalar_type}"
        )
    return int(spec.item()) if spec.ndim == 0 else [int(i) for i in spec.tolist()]


def _spec(given: Any, sections: Any, indices: Any, tensor: Any) -> Any:
    """The one way of splitting given: an int (sections) or a list of ints (indices)."""
    named = [(k, v) for k, v in (("s", sections), ("i", indices), ("t", tensor)) if v is not _UNSET]
    if len(named) + (given is not _UNSET) != 1:
        raise TypeError(
            "tensor_split() takes one of indices_or_sections, sections=, indices= or "
            "tensor_indices_or_sections="
        )
    kind, spec = named[0] if named else ("any", given)
    if isinstance(spec, Tensor) and kind in ("any", "t"):
        return _from_tensor(spec)
    if kind in ("any", "s") and _is_int(spec):
        return _as_int(spec)
    if kind in ("any", "i") and isinstance(spec, (tuple, list)) and all(map(_is_int, spec)):
        return [_as_int(i) for i in spec]
    raise invalid_combination("tensor_split", (spec,), _SIGNATURES)


def _bound(i: int, size: int) -> int:
    """A slice bound: a negative one counts from the end; clamped to the dimension."""
    return min(max(i + size if i < 0 else i, 0), size)


def tensor_split(
    input: Tensor,
    indices_or_sections: Any = _UNSET,
    dim: int = 0,
    *,
    sections: Any = _UNSET,
    indices: Any = _UNSET,
    tensor_indices_or_sections: Any = _UNSET,
) -> tuple:
    """Split into ``n`` nearly equal parts (the first ``size % n`` one longer), or at the
    given indices, read as slice bounds (``[-2]`` cuts before the last two); every part is a
    view of ``input``.

    Examples
    --------
    >>> import symgrad
    >>> [t.tolist() for t in symgrad.arange(5).tensor_split(3)]
    [[0, 1], [2, 3], [4]]
    >>> [t.tolist() for t in symgrad.arange(5).tensor_split([1, -1])]
    [[0], [1, 2, 3], [4]]
    """
    if type(input) is not Tensor:
        require_tensor("tensor_split", "input", 1, input)
    spec = _spec(indices_or_sections, sections, indices, tensor_indices_or_sections)
    if input.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    dim = _wrap_dim(dim, input.ndim)
    size = input.shape[dim]
    if isinstance(spec, int):
        if spec <= 0:
            raise RuntimeError(
                f"number of sections must be larger than 0, got {spec} (ask for at least one part)"
            )
        q, r = divmod(size, spec)
        bounds = [0, *np.cumsum([q + 1 if i < r else q for i in range(spec)]).tolist()]
    else:
        bounds = [0, *[_bound(i, size) for i in spec], size]
    return tuple(
        joining.narrow(input, dim, a, max(b - a, 0)) for a, b in zip(bounds[:-1], bounds[1:])
    )


def _split_along(name: str, dim: int, least: int) -> Any:
    def split(input: Tensor, indices_or_sections: Any) -> tuple:
        if type(input) is not Tensor:
            require_tensor(name, "input", 1, input)
        if input.ndim < least:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {least} dimension, but got a "
                f"tensor with {input.ndim} dimensions!"
            )
        axis = 0 if (name == "hsplit" and input.ndim == 1) else dim
        spec = indices_or_sections
        if isinstance(spec, Tensor) and spec.ndim == 0 and spec.dtype.category == 1:
            spec = int(spec.item())
        if _is_int(spec) and not isinstance(spec, Tensor):
            n = operator.index(spec)
            if n == 0 or input.shape[axis] % n:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {axis}, but the size of "
                    f"the dimension {input.shape[axis]} is not divisible by the split_size "
                    f"{n}!"
                )
        return tensor_split(input, spec, axis)

    split.__name__ = name
    split.__doc__ = (
        f"``tensor_split`` along dimension {dim}, needing equal parts.\n\n>>> import symgrad\n"
        f">>> len(symgrad.{name}(symgrad.ones(2, 2, 2), 2))\n2"
    )
    return split


hsplit = _split_along("hsplit", 1, 1)
vsplit = _split_along("vsplit", 0, 2)
dsplit = _split_along("dsplit", 2, 3)
