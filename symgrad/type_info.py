"""``iinfo`` and ``finfo``: the range and precision of the integer and floating dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes

__all__ = ["iinfo", "finfo"]


def _dtype_argument(kind: str, value: Any) -> dtypes.dtype:
    return dtypes.as_dtype(value, kind, "type", 1)


class iinfo:  # noqa: N801 - the PyTorch name
    """The range of an integer dtype: ``bits``, ``min``, ``max`` (Python ints) and ``dtype``
    (its name, a string, as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.iinfo(symgrad.uint8)
    iinfo(min=0, max=255, dtype=uint8)
    >>> symgrad.iinfo(symgrad.int16).max
    32767
    """

    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type: dtypes.dtype) -> None:  # noqa: A002 - PyTorch's argument name
        d = _dtype_argument("iinfo", type)
        if d is dtypes.bool_:
            raise TypeError(f"{d!r} is not supported by symgrad.iinfo")
        if d.is_floating_point:
            raise TypeError(
                f"symgrad.iinfo() requires an integer input type, not {d!r}. Use "
                "symgrad.finfo to handle floating types"
            )
        info = np.iinfo(d.numpy)
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = d.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        # PyTorch prints the bounds as %g
        return f"iinfo(min={self.min:.6g}, max={self.max:.6g}, dtype={self.dtype})"


class finfo:  # noqa: N801 - the PyTorch name
    """The precision of a floating dtype (the default dtype when none is given): ``bits``,
    ``eps``, ``min``, ``max``, ``tiny`` (= ``smallest_normal``), ``resolution`` and ``dtype``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.finfo(symgrad.float32).eps
    1.1920928955078125e-07
    >>> symgrad.finfo(symgrad.float16)
    finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)
    """  # noqa: E501

    __slots__ = ("bits", "eps", "min", "max", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: dtypes.dtype | None = None) -> None:  # noqa: A002
        d = dtypes.get_default_dtype() if type is None else _dtype_argument("finfo", type)
        if not d.is_floating_point:
            raise TypeError(
                f"symgrad.finfo() requires a floating point input type, not {d!r}. Use "
                "symgrad.iinfo to handle integer types"
            )
        info = np.finfo(d.numpy)
        self.bits = info.bits
        self.eps, self.min, self.max = float(info.eps), float(info.min), float(info.max)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = d.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")
        shown = ", ".join(f"{f}={getattr(self, f):.6g}" for f in fields)
        return f"finfo({shown}, dtype={self.dtype})"


# its public home, as PyTorch's is torch: <class 'symgrad.finfo'>
finfo.__module__ = "symgrad"
iinfo.__module__ = "symgrad"
