"""``Size``: a tensor's shape, PyTorch's ``torch.Size``."""

from __future__ import annotations

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
