"""Facts about a tensor's storage PyTorch code reads (``layout``, ``is_cpu``, ``itemsize``,
``nbytes``), ``can_cast``, ``is_floating_point`` and ``is_nonzero``."""

from __future__ import annotations

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad._meta import MetaArray
from symgrad.tensor import Tensor, bind_methods

__all__ = ["layout", "strided", "can_cast", "is_floating_point", "is_nonzero"]


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


def _data_ptr(self: Tensor) -> int:
    """The address of the first element: equal for a tensor and a view starting where it
    does (0 for a meta tensor, which holds no data)."""
    if type(self._data) is MetaArray:
        return 0
    return self._data.__array_interface__["data"][0]


def can_cast(from_: dtypes.dtype, to: dtypes.dtype) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` in place: never to a lower
    category (floating to integer, integer to bool).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.can_cast(symgrad.float32, symgrad.int32)
    False
    """
    from_ = dtypes.as_dtype(from_, "can_cast", "from_", 1)
    to = dtypes.as_dtype(to, "can_cast", "to", 2)
    return from_.category <= to.category


def is_floating_point(input: Tensor) -> bool:
    """Whether the tensor's dtype is a floating one.

    >>> import symgrad
    >>> symgrad.is_floating_point(symgrad.tensor([1.0])), symgrad.tensor(1).is_floating_point()
    (True, False)
    """
    if type(input) is not Tensor:
        require_tensor("is_floating_point", "input", 1, input)
    return input.dtype.is_floating_point


def is_nonzero(input: Tensor) -> bool:
    """Whether a one-element tensor is not zero (more elements raise, as in PyTorch).

    >>> import symgrad
    >>> symgrad.is_nonzero(symgrad.tensor([0.5]))
    True
    """
    if input.numel() != 1:
        raise RuntimeError(
            "Boolean value of Tensor with more than one value is ambiguous"
            if input.numel()
            else "Boolean value of Tensor with no values is ambiguous"
        )
    return bool(input.item())


bind_methods(
    {
        "is_nonzero": is_nonzero,
        "data_ptr": _data_ptr,
        "layout": property(lambda self: strided),
        "is_cpu": property(lambda self: self.device.type == "cpu"),
        "itemsize": property(lambda self: self.dtype.itemsize),
        "nbytes": property(lambda self: self.dtype.itemsize * self.numel()),
    }
)

# its public home, as PyTorch's is torch: <class 'symgrad.layout'>
layout.__module__ = "symgrad"
