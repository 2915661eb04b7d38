"""In-place changes that no graph recorded, to tensors that have a history.

Under ``no_grad``, or through ``.data`` or ``detach()``, an in-place op writes new values into
a tensor whose ``grad_fn`` made the old ones. ``backward()`` then differentiates the formula
that made the tensor at its new values (as PyTorch does), which no closed form expresses. Each
such change is noted on the tensor's node with a stamp from the nodes' creation sequence, so
that the symbolic replay can tell the nodes that read the tensor after the change (refused)
from those that read it before (whose closed forms hold).
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

__all__ = ["SEQUENCE", "note_data", "note_change", "check_read"]

SEQUENCE = itertools.count()  # the creation order of nodes (``Node._seq``) and of the changes

# node -> [(output_nr, stamp, what was changed, by which op)]
_changes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# id of a ``.data`` tensor -> references to it and to the tensor with a history whose memory
# it shares (by id: a tensor's == compares values)
_data_of: dict[int, tuple] = {}


def note_data(data: Any, t: Any) -> None:
    """``data`` is ``t.data``: a change through it changes ``t``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad._unrecorded import data_base
    >>> y = symgrad.ones(2, requires_grad=True) * 2
    >>> data_base(y.data) is y  # (Tensor.data calls note_data)
    True
    """
    if t.grad_fn is not None:
        key = id(data)
        _data_of[key] = (weakref.ref(data, lambda _: _data_of.pop(key, None)), weakref.ref(t))


def data_base(t: Any) -> Any:
    """The tensor whose ``.data`` ``t`` is, if it has a history; else None."""
    if not _data_of:
        return None
    refs = _data_of.get(id(t))
    return None if refs is None or refs[0]() is not t else refs[1]()


def note_change(tensors: list, op: str) -> None:
    """The values of ``tensors`` (None among them is skipped) were changed by ``op`` in place
    and no graph recorded it.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad._unrecorded import check_read, note_change
    >>> y = symgrad.ones(2, requires_grad=True) * 2
    >>> note_change([y, None], "mul_")  # (what an in-place op under no_grad does)
    >>> check_read((y * y).grad_fn, 0)
    Traceback (most recent call last):
    ...
    ValueError: the output of MulBackward0 (shape [2], dtype symgrad.float32) was changed ...
    """
    stamp = None
    for t in tensors:
        if t is None or t.grad_fn is None:
            continue
        if stamp is None:
            stamp = next(SEQUENCE)
        what = f"the output of {t.grad_fn.name()} (shape {list(t.shape)}, dtype {t.dtype})"
        if getattr(t, "_name", None) is not None:
            what = f"the tensor {t._name!r} ({what})"
        _changes.setdefault(t.grad_fn, []).append((t._output_nr, stamp, what, op))


def check_read(node: Any, i: int) -> None:
    """Raise ValueError if ``node`` read its input ``i`` after an unrecorded change of it.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad._unrecorded import check_read
    >>> y = symgrad.ones(2, requires_grad=True) * 2
    >>> check_read((y * 3).grad_fn, 0)  # nothing changed y: no error
    """
    if not _changes:
        return
    fn, nr = node._edges[i]
    for output_nr, stamp, what, op in _changes.get(fn, ()):
        if output_nr == nr and stamp < node._seq:
            raise ValueError(
                f"{what} was changed in place by {op} where no graph recorded it (under "
                f"no_grad, or through .data or detach()), and {node.name()} read it after "
                "the change: backward() differentiates the formula that made it at its new "
                "values, which no closed form expresses. Make the change while the graph "
                "records (outside no_grad, on the tensor itself), or compute the new values "
                "out of place"
            )
