"""The state of forward mode: the dual level in force and the tangents tensors carry in it.

A tensor's tangent is stored with the level it belongs to, so leaving the level drops every
tangent at once. As in PyTorch there is one level at a time, forward mode is independent of
grad mode (``no_grad`` keeps tangents flowing) and off in inference mode.
"""

from __future__ import annotations

import weakref
from typing import Any

from symgrad._version import state as _version_state

__all__ = [
    "STATE",
    "DUALS",
    "mark_dual",
    "is_dual",
    "Level",
    "tangent_of",
    "set_tangent",
    "active",
    "disabled",
]

# the tensors make_dual made (by id, held weakly): views of their primal whose tangent is
# their own, not shared with the primal's other views
DUALS: dict[int, weakref.ref] = {}


def mark_dual(t: Any) -> None:
    """Remember ``t`` as made by ``make_dual``."""
    key = id(t)
    DUALS[key] = weakref.ref(t, lambda _, key=key: DUALS.pop(key, None))


def is_dual(t: Any) -> bool:
    """Whether ``t`` was made by ``make_dual``."""
    ref = DUALS.get(id(t))
    return ref is not None and ref() is t


class Level:
    """One entered dual level (its index is the number PyTorch's functions return)."""

    __slots__ = ("index", "alive")

    def __init__(self, index: int) -> None:
        self.index = index
        self.alive = True  # until the level is exited (read by Tensor's repr)


class _State:
    """The level in force (None outside ``dual_level``) and how many computations of tangents
    (or custom Function forwards) are running, during which ops make no tangents."""

    __slots__ = ("level", "off")

    def __init__(self) -> None:
        self.level: Level | None = None
        self.off = 0


STATE = _State()


def active() -> bool:
    """Whether ops made now compute tangents."""
    return STATE.level is not None and not STATE.off and not _version_state.inference


def tangent_of(t: Any) -> Any:
    """``t``'s tangent at the present level, or None."""
    fw = t._fw
    if fw is None or fw[0] is not STATE.level:
        return None
    return fw[1]


def set_tangent(t: Any, tangent: Any) -> None:
    """Give ``t`` the tangent ``tangent`` at the present level (None: take it away)."""
    t._fw = None if tangent is None else (STATE.level, tangent)


class disabled:
    """A context in which ops compute no tangents (the computation of a tangent itself, the
    forward of a custom Function)."""

    def __enter__(self) -> None:
        STATE.off += 1

    def __exit__(self, *exc: object) -> None:
        STATE.off -= 1
