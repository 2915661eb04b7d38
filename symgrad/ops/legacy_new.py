"""``Tensor.new``: PyTorch's legacy constructor, always of the tensor's dtype.

``x.new(2, 3)`` (or ``x.new(symgrad.Size([2, 3]))``) is a tensor of that size (zero-filled,
where PyTorch leaves it uninitialised), ``x.new([1, 2])`` (any sequence, a tuple too) is that
data converted to ``x``'s dtype, ``x.new(t)`` is ``t`` itself as an alias sharing its memory
(``AliasBackward0`` when ``t`` requires grad; ``t`` must have ``x``'s dtype), and ``x.new()``
is an empty tensor. The result never requires grad unless it is such an alias.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import creation, dtypes
from symgrad._data import HoldsArray, Size, sizes
from symgrad.tensor import Tensor, bind_methods

__all__: list[str] = []


def _options(t: Tensor) -> str:
    return f"TensorOptions(dtype={dtypes.cpp_name(t.dtype)}, device=cpu, layout=Strided)"


def _is_size(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def new(self: Tensor, *args: Any, size: Any = None, device: Any = None) -> Tensor:
    """A new tensor of this tensor's dtype: ``new(*sizes)`` (or ``new(size=sizes)``)
    zero-filled, ``new(data)`` from a sequence, ``new(tensor)`` an alias of ``tensor`` (of the
    same dtype), ``new()`` empty.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1, 2])
    >>> x.new(2, 3).shape, x.new(2, 3).dtype
    (symgrad.Size([2, 3]), symgrad.int64)
    >>> x.new([1.5, 2.5])
    tensor([1, 2])
    >>> x.new(size=(1, 2))
    tensor([[0, 0]])
    """
    if device is not None:
        creation.zeros(0, device=device)  # PyTorch's checks of the device
    if size is not None:
        if args or not isinstance(size, (tuple, list)):
            given = [type(a).__name__ for a in args] + [f"size={type(size).__name__}"]
            raise TypeError(
                f"new() received an invalid combination of arguments - got ({', '.join(given)})"
            )
        return creation.zeros(sizes(tuple(size), "new"), dtype=self.dtype)
    if not args:
        return creation.zeros(0, dtype=self.dtype)
    first = args[0]
    if len(args) == 1 and isinstance(first, Size):
        args = tuple(first)
    if all(_is_size(a) for a in args):
        return creation.zeros(*[int(a) for a in args], dtype=self.dtype)
    if len(args) > 1:
        wrong = next(a for a in args if not _is_size(a))
        raise TypeError(
            f"new(): argument 'size' failed to unpack the object at pos {args.index(wrong) + 1} "
            f'with error "type must be tuple of ints,but got {type(wrong).__name__}"'
        )
    if isinstance(first, Tensor):
        if first.dtype is not self.dtype:
            raise TypeError(f"expected {_options(self)} (got {_options(first)})")
        return first[...]
    if isinstance(first, (bool, float, complex, np.bool_, np.floating)):
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
    if isinstance(first, (list, tuple, np.ndarray, HoldsArray)):
        return creation.tensor(first, dtype=self.dtype)
    raise TypeError(f"new(): invalid data type '{type(first).__name__}'")


bind_methods({"new": new})
