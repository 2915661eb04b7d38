"""Facts about a tensor's storage PyTorch code reads (``layout``, ``is_cpu``, ``itemsize``,
``nbytes``) and ``randint_like``."""

from __future__ import annotations

from typing import Any

from symgrad._meta import MetaArray
from symgrad.tensor import Tensor, bind_methods

__all__ = ["layout", "strided", "randint_like"]


class layout:  # noqa: N801 - the PyTorch name
    """A tensor's memory layout; symgrad's tensors are all ``strided`` (dense).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).layout
    symgrad.strided
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"symgrad.{self.name}"


strided = layout("strided")


def randint_like(input: Tensor, low: int, high: Any = None, **kwargs: Any) -> Tensor:
    """Random integers in ``[low, high)`` (``[0, low)`` when ``high`` is not given), with the
    shape and, unless ``dtype`` is given, the dtype of ``input``.

    Examples
    --------
    >>> import symgrad
    >>> r = symgrad.randint_like(symgrad.zeros(3), 5)
    >>> r.shape, r.dtype, bool((r < 5).all())
    (symgrad.Size([3]), symgrad.float32, True)
    """
    from symgrad.creation import randint

    low, high = (0, low) if high is None else (low, high)
    kwargs.setdefault("dtype", input.dtype)
    return randint(low, high, tuple(input.shape), **kwargs)


def _data_ptr(self: Tensor) -> int:
    """The address of the first element: equal for a tensor and a view starting where it
    does (0 for a meta tensor, which holds no data)."""
    if type(self._data) is MetaArray:
        return 0
    return self._data.__array_interface__["data"][0]


bind_methods(
    {
        "data_ptr": _data_ptr,
        "layout": property(lambda self: strided),
        "is_cpu": property(lambda self: self.device.type == "cpu"),
        "itemsize": property(lambda self: self.dtype.itemsize),
        "nbytes": property(lambda self: self.dtype.itemsize * self.numel()),
    }
)
