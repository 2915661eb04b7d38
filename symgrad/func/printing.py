"""How a tensor prints inside the transforms of :mod:`symgrad.func`, as PyTorch's wrappers do.

PyTorch's transforms wrap the tensors a function sees: ``grad``, ``vjp``, ``jacrev`` and
``jvp`` in a ``GradTrackingTensor`` of their level, ``vmap`` in a ``BatchedTensor``, the
transform running inside another wrapping the outer one's tensors. Here a tensor stands for the
input of a differentiating transform or was computed from one while it runs (a node made
after the transform started), and ``vmap``'s batched tensors carry their level: the text
nests the wrappers by level, the highest outside, around the values the caller's code would
see (with the caller's own ``requires_grad`` or ``grad_fn``).

Examples
--------
>>> import symgrad
>>> from symgrad.func import grad
>>> _ = grad(lambda x: print(x) or x.sum())(symgrad.tensor([1.0, 2.0]))
GradTrackingTensor(lvl=1, value=
    tensor([1., 2.])
)
"""

from __future__ import annotations

import textwrap

from symgrad import _tensor_text
from symgrad.autograd.transforms_running import KINDS, RUNNING, STARTS
from symgrad.func._run import _reaches_outside, passed_at, stood_for
from symgrad.prim import batching
from symgrad.tensor import Tensor

__all__ = ["transform_text"]


def transform_text(t: Tensor) -> str | None:
    """``repr(t)`` inside running transforms, as PyTorch's wrappers print; None when no
    transform wraps ``t``."""
    if not RUNNING[0] or _OWN_TEXT[0]:
        return None
    wrappers = []
    while isinstance(t, batching.BatchedTensor):
        wrappers.append((_vmap_level(t), "BatchedTensor", ", bdim=0"))
        t = t._physical
    levels = _levels(t)
    wrappers += [
        (level, "GradTrackingTensor", "") for level in levels if KINDS[level - 1] == "grad"
    ]
    if not wrappers and not levels:
        return None
    text = _caller_text(t)  # (linearize's trace shows the values alone, as PyTorch's)
    for level, name, extra in sorted(wrappers):  # the lowest level innermost
        text = f"{name}(lvl={level}{extra}, value=\n{textwrap.indent(text, ' ' * 4)}\n)"
    return text


def _vmap_level(t: batching.BatchedTensor) -> int:
    levels = batching.STATE.levels
    return levels[t._level - 1] if t._level <= len(levels) else t._level


def _levels(t: Tensor) -> list:
    """The levels of the running differentiating transforms that see ``t`` as theirs: the one
    that made it for its input, and every one running when its node was made."""
    found = stood_for(t)
    passed = passed_at(t)
    node = t.grad_fn
    seq = getattr(node, "_seq", None) if node is not None else None
    levels = []
    for level, (kind, start) in enumerate(zip(KINDS, STARTS), 1):
        if kind == "vmap":
            continue
        if (found is not None and found[0] == level) or level in passed:
            levels.append(level)
        elif seq is not None and seq >= start:
            levels.append(level)
    return levels


def _caller_text(t: Tensor) -> str:
    """The values as the code outside every transform sees them: with its own autograd state
    (the input itself for a transform's copy of it), without the transforms'."""
    found = stood_for(t)
    while found is not None and found[1] is not None:  # a copy of an input: that input
        t = found[1]
        found = stood_for(t)
    if found is not None:  # a new leaf for an input that requires no grad
        return _tensor_text.plain_text(t, False)
    starts = [s for s, kind in zip(STARTS, KINDS) if kind == "grad"]
    node = t.grad_fn
    if node is None or not starts or getattr(node, "_seq", -1) < min(starts):
        return _own_text(t)  # made outside the transforms
    return _tensor_text.plain_text(t, _reaches_outside([t], set(), min(starts)))


def _own_text(t: Tensor) -> str:
    """``repr(t)`` of a tensor made outside the transforms, as its class writes it (a
    Parameter's ``Parameter containing:``), with no wrapper."""
    _OWN_TEXT[0] = True
    try:
        return repr(t)
    finally:
        _OWN_TEXT[0] = False


_OWN_TEXT = [False]  # (while a tensor made outside the transforms writes its own text)
_tensor_text.TRANSFORM_TEXT[0] = transform_text
