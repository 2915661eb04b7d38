"""``Size``: a tensor's shape, PyTorch's ``torch.Size``."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any


class Size(tuple):
    """A tensor's shape: a tuple of ints, printed as ``symgrad.Size([2, 3])`` (PyTorch's
    ``torch.Size``).

    Examples
    --------
    >>> import symgrad
    >>> s = symgrad.zeros(2, 3).shape
    >>> s, s == (2, 3), s.numel(), s[1:]
    (symgrad.Size([2, 3]), True, 6, symgrad.Size([3]))
    """

    __slots__ = ()

    def __new__(cls, sizes: Iterable[Any] = ()) -> Size:
        shape = tuple.__new__(cls, sizes)
        for k in shape:
            if type(k) is not int:
                return tuple.__new__(cls, [_one_size(k, i) for i, k in enumerate(shape)])
        return shape

    def __repr__(self) -> str:
        # the sizes as ints, whatever integer type they were given as (NumPy's prints its type)
        return f"symgrad.Size({[int(k) for k in self]})"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        n = 1
        for k in self:
            n *= k
        return n

    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            raise TypeError(
                f"can only concatenate tuple (not {type(other).__name__}) to symgrad.Size"
            )
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Size:
        # a plain tuple in front: Python asks the Size first, and PyTorch gives a Size
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: Any) -> Size:
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


def _one_size(k: Any, i: int) -> int:
    """Item ``i`` of a Size as PyTorch reads it: anything with ``__index__`` (a bool, a NumPy
    integer, an integer tensor of one element), as an int of 64 bits."""
    try:
        n = operator.index(k)
    except TypeError:
        kind = type(k)
        name = kind.__name__  # a tensor is 'Tensor', a NumPy scalar 'numpy.float64', as PyTorch
        if kind.__module__ != "builtins" and not hasattr(k, "grad_fn"):
            name = f"{kind.__module__.split('.')[0]}.{kind.__qualname__}"
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{name}')") from None
    if not -(2**63) <= n < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return int(n)


# its public home, as PyTorch's is torch: <class 'symgrad.Size'>
Size.__module__ = "symgrad"
