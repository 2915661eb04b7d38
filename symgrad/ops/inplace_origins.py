"""Named data changed in place: the closed forms of the tensors involved follow the change.

An in-place op that records a node rebases the history of the tensor it changes (and of
every view sharing its memory). Data computed from named tensors records no node but keeps
its provenance (``Tensor._origin``, see ``symgrad.prim.primitive.with_origin``); here that
provenance is rebased the same way, so ``z = y.clone(); z[0] = 5`` reads ``[5, y[1], ...]``
in closed forms rather than the values ``z`` held before.
"""

from __future__ import annotations

from symgrad.ops import views
from symgrad.tensor import NAMES, Tensor, live_aliases

__all__ = ["involves_names", "before_change", "follow_change"]


def involves_names(x: Tensor, others: tuple) -> bool:
    """Whether changing ``x`` (unnamed, not requiring grad) in place, with the tensors
    ``others``, involves named data: then closed forms follow the change."""
    if not NAMES.used or x._name is not None or x._requires_grad:
        return False
    root, _, aliases = live_aliases(x)
    tensors = [t for t in (x, *others) if isinstance(t, Tensor)]
    tensors += aliases if root is None else [root, *aliases]
    return any(t._origin is not None or t._name is not None for t in tensors)


def before_change(x: Tensor, others: tuple) -> Tensor | None:
    """When the change of ``x`` involves named data: a copy of ``x`` as it is (values and
    provenance) for the op to read, so that ``x`` can take the op as its provenance;
    otherwise None (nothing to follow: the op reads ``x`` itself)."""
    if not involves_names(x, others):
        return None
    before = Tensor._make(x._data.copy())
    before._origin = x._origin
    return before


def follow_change(x: Tensor, result: Tensor) -> None:
    """After ``x`` took the values of ``result`` in place (the op having read the copy
    :func:`before_change` made): ``x``, the tensor whose memory it shares and that tensor's
    other views take their values' provenance, as a recorded op rebases their histories."""
    root, _, aliases = live_aliases(x)
    owner = x if root is None else root
    if owner._name is not None:  # named data: its symbols stand for whatever it holds
        return
    if root is None:
        owner._origin = result._origin
    else:
        before = Tensor._make(owner._data.copy())  # outside x's places, the values are kept
        before._origin = owner._origin
        index = views.positions(owner._data, x._data)
        owner._origin = views._COPY_SLICES(before, result, index=index)._origin
    for v in aliases:
        if v is not owner and v._name is None:
            index = views.positions(owner._data, v._data)
            unique = views.reads_once(v._data, index)
            v._origin = views._AS_STRIDED(owner, index=index, unique=unique)._origin
