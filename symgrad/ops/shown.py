"""The arguments of an op as PyTorch's node shows them (``grad_fn._saved_dim``): as the user
gave them, before they are made non-negative.

An op passes them to its primitive as the parameter ``saved_as``, which
:mod:`symgrad.autograd.saved_names` reads before the normalized parameters.
"""

from __future__ import annotations

from typing import Any

from symgrad._arguments import OMITTED

__all__ = ["shown", "shown_dims"]


def _as_saved(value: Any) -> Any:
    # PyTorch shows a saved negative int64 as the unsigned number of the same bits
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return tuple(_as_saved(v) for v in value)
    return int(value) % 2**64


def shown(**given: Any) -> tuple:
    """``((name, value), ...)`` for the ``saved_as`` parameter: each int as given (a negative
    one as the unsigned 64-bit number of the same bits), a sequence as a tuple of those.

    Examples
    --------
    >>> shown(dim=-1)
    (('dim', 18446744073709551615),)
    >>> shown(dim=[0, -2])
    (('dim', (0, 18446744073709551614)),)
    """
    return tuple((name, _as_saved(value)) for name, value in given.items())


def shown_dims(dim: Any) -> dict:
    """``{"saved_as": ...}`` for a reduction's ``dim`` (PyTorch's list of ints: one int as a
    1-tuple, None as None), or no parameter where no ``dim`` was given (``OMITTED``).

    Examples
    --------
    >>> shown_dims(-1)
    {'saved_as': (('dim', (18446744073709551615,)),)}
    """
    if dim is OMITTED:
        return {}
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    return {"saved_as": shown(dim=dim)}
