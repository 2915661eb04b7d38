"""In-place ops in forward mode: the changed tensor takes the tangent of its new values.

Tensors that share memory through views share their tangents too, as in PyTorch: after an
in-place change through a view (or of a tensor that has views), the tangent of the tensor
viewed gets the new tangent in the view's places, and each of its views reads its own places
from it. (Tangents are separate tensors here, so this is done at each in-place change, from the
views' memory layout.) A tensor made by ``make_dual`` keeps its tangent to itself, as in
PyTorch; ``detach()``'s aliases share values, not tangents. A tensor that has a tangent keeps
that tangent tensor and gets the new values written into it, as PyTorch's in-place formulas
do, so the tangent given to ``make_dual`` (and every view of it) sees them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd import dual
from symgrad.ops.views import positions, put_flat
from symgrad.tensor import Tensor

__all__ = ["check_inplace", "take_tangent", "overwritten"]

_DIFFERENTIABLE = (
    "{op}: an in-place change of a tensor (shape {shape}) that shares its memory with another "
    "(a view, or a tensor with views) involves a forward-mode tangent that requires grad; "
    "the tangents of views are updated here without recording. Change a clone "
    "(t = t.clone()) or use the out-of-place op."
)


def _family(x: Tensor) -> tuple[Tensor, list]:
    """The tensor whose memory ``x`` views (``x`` itself if none) and the live views of it
    that share its tangent (none for a tensor made by ``make_dual``)."""
    if dual.is_dual(x):
        return x, []
    shared = x._view_base
    root = shared[0] if shared is not None and shared[1] != "alias" else x
    views = [v for v in (r() for r in root._views or ()) if v is not None]
    views = [v for v in views if v._view_base[1] != "alias" and not dual.is_dual(v)]
    return root, views


def check_inplace(x: Tensor, others: tuple, op: str) -> None:
    """Refuse an in-place ``op`` on ``x`` whose tangents would lose their graph: views share
    tangents through arrays here, which is only right for tangents not requiring grad."""
    root, views = _family(x)
    if not views and root is x:
        return
    involved = [x, root, *views] + [o for o in others if isinstance(o, Tensor)]
    tangents = [dual.tangent_of(t) for t in involved]
    if any(t is not None and t._requires_grad for t in tangents):
        raise RuntimeError(_DIFFERENTIABLE.format(op=op, shape=list(x.shape)))


def _set(t: Tensor, tangent: Tensor | None) -> None:
    """Give ``t`` the tangent ``tangent``: written into ``t``'s present tangent where it has
    one that can take the values (PyTorch updates a tangent in place), else set."""
    old = dual.tangent_of(t)
    if old is not None and old is tangent:
        old._counter.value += 1  # (PyTorch's formula changes it in place)
        return
    if (
        tangent is not None
        and old is not None
        and not old._requires_grad
        and not tangent._requires_grad
        and old.shape == tangent.shape
        and old.dtype == tangent.dtype
        and old._data.flags.writeable
        and 0 not in old._data.strides
    ):
        np.copyto(old._data, tangent._data)
        old._counter.value += 1
        return
    dual.set_tangent(t, tangent)


def _share(x: Tensor, tangent: Tensor | None) -> None:
    """Give ``x`` the tangent ``tangent`` (None: none), and the tensors sharing its memory
    through views theirs."""
    root, views = _family(x)
    if root is x and not views:
        _set(x, tangent)
        return
    if tangent is None and all(dual.tangent_of(t) is None for t in (root, *views)):
        return
    base = dual.tangent_of(root)
    values = (
        np.zeros(root.shape, root._data.dtype)
        if base is None
        else np.array(base._data, dtype=root._data.dtype)
    )
    new = np.zeros(x.shape) if tangent is None else tangent._data
    put_flat(values, positions(root._data, x._data), new)
    _set(root, Tensor._make(values))
    for v in views:
        picked = values.reshape(-1)[positions(root._data, v._data)]
        _set(v, Tensor._make(np.array(picked, dtype=v._data.dtype)))


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
    _share(x, tangent)


def overwritten(x: Tensor, src: Any) -> None:
    """``x``'s tangent after its values were overwritten by ``src`` (None: by a number)."""
    if not dual.active() or not x.dtype.is_floating_point:
        return
    tangent = None if src is None else dual.tangent_of(src)
    if tangent is None:
        if dual.tangent_of(x) is not None:
            _share(x, Tensor._make(np.zeros(x.shape, x._data.dtype)))
        return
    with dual.disabled():
        tangent = tangent.expand(x.shape).to(x.dtype).clone()
    _share(x, tangent)
