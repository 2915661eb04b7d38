"""In-place ops in forward mode: the changed tensor takes the tangent of its new values.

A tensor sharing its memory with others (a view, or a tensor with views) can't have its
tangent changed consistently with theirs here, so an in-place op there that involves a tangent
is refused with a clear error rather than leaving a wrong tangent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd import dual
from symgrad.tensor import Tensor, live_aliases

__all__ = ["check_inplace", "take_tangent", "overwritten"]

_SHARED = (
    "{op}: an in-place change of a tensor (shape {shape}) that shares its memory with another "
    "(a view, a tensor with views, or a tensor made by make_dual) involves a forward-mode "
    "tangent, and tangents of views are not updated in place. Change a clone (t = t.clone()) "
    "or use the out-of-place op."
)


def check_inplace(x: Tensor, others: tuple, op: str) -> None:
    """Refuse an in-place ``op`` on ``x`` involving a tangent when ``x`` shares its memory."""
    involved = dual.tangent_of(x) is not None or any(
        isinstance(o, Tensor) and dual.tangent_of(o) is not None for o in others
    )
    if not involved:
        return
    root, kind, aliases = live_aliases(x)
    shared = (root is not None and kind != "alias") or any(v is not x for v in aliases)
    if shared:
        raise RuntimeError(_SHARED.format(op=op, shape=list(x.shape)))


def take_tangent(x: Tensor, result: Tensor) -> None:
    """After ``x`` took ``result``'s values in place, it takes ``result``'s tangent too."""
    if not dual.active():
        return
    tangent = dual.tangent_of(result)
    if tangent is None and dual.tangent_of(x) is not None:
        tangent = Tensor._make(np.zeros(x.shape, x._data.dtype))
    if tangent is not None and tangent._data.dtype != x._data.dtype:
        with dual.disabled():
            tangent = tangent.to(x.dtype)
    dual.set_tangent(x, tangent)


def overwritten(x: Tensor, src: Any) -> None:
    """``x``'s tangent after its values were overwritten by ``src`` (None: by a number)."""
    if not dual.active() or not x.dtype.is_floating_point:
        return
    tangent = None if src is None else dual.tangent_of(src)
    if tangent is None:
        if dual.tangent_of(x) is not None:
            dual.set_tangent(x, Tensor._make(np.zeros(x.shape, x._data.dtype)))
        return
    with dual.disabled():
        tangent = tangent.expand(x.shape).to(x.dtype).clone()
    dual.set_tangent(x, tangent)
