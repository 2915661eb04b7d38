"""``pixel_shuffle`` and ``pixel_unshuffle`` as two primitives (PyTorch's
``PixelShuffleBackward0`` and ``PixelUnshuffleBackward0``): each is a reshape, a permutation
of the axes and a reshape of the last three dimensions, and each one's VJP is the other.

``pixel_shuffle`` with factor ``r`` takes ``(*, C r^2, H, W)`` to ``(*, C, H r, W r)``:
channel ``c r^2 + i r + j`` becomes the positions ``(h r + i, w r + j)`` of channel ``c``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["pixel_shuffle_node", "pixel_unshuffle_node", "channel_shuffle_node"]


def _shuffle(xp: Any, x: Any, r: int) -> Any:
    *lead, c, h, w = x.shape
    n = len(lead)
    x = xp.reshape(x, (*lead, c // (r * r), r, r, h, w))
    order = tuple(range(n)) + tuple(n + i for i in (0, 3, 1, 4, 2))
    return xp.reshape(xp.permute(x, order), (*lead, c // (r * r), h * r, w * r))


def _unshuffle(xp: Any, x: Any, r: int) -> Any:
    *lead, c, h, w = x.shape
    n = len(lead)
    x = xp.reshape(x, (*lead, c, h // r, r, w // r, r))
    order = tuple(range(n)) + tuple(n + i for i in (0, 2, 4, 1, 3))
    return xp.reshape(xp.permute(x, order), (*lead, c * r * r, h // r, w // r))


def _copying(rule: Any) -> Any:
    """The NumPy kernel of ``rule``: a new array also where the rearrangement is the
    identity (a factor of 1), as PyTorch's result is never the input's view."""

    def kernel(xp: Any, x: Any, **params: int) -> Any:
        out = rule(xp, x, *params.values())
        return out.copy() if np.shares_memory(out, x) else out

    return kernel


def _recorded(xp: Any, g: Any) -> bool:
    """Whether the gradient is the other op's node (under ``create_graph``, as PyTorch's
    formula calls it), not its steps."""
    return xp is INTERPRETERS.tensor and type(g) is Tensor


def _shuffle_vjp(xp: Any, g: Any, c: Any) -> tuple:
    if _recorded(xp, g):
        return (_PIXEL_UNSHUFFLE(g, r=c.params["r"]),)
    return (_unshuffle(xp, g, c.params["r"]),)


def _unshuffle_vjp(xp: Any, g: Any, c: Any) -> tuple:
    if _recorded(xp, g):
        return (_PIXEL_SHUFFLE(g, r=c.params["r"]),)
    return (_shuffle(xp, g, c.params["r"]),)


_PIXEL_SHUFFLE = Structural(
    "pixel_shuffle",
    _shuffle,
    _shuffle_vjp,
    backward="PixelShuffleBackward0",
    suggested=True,  # a channels-last image gives a channels-last one, as PyTorch's
    kernel=_copying(_shuffle),
    jvp="linear",
    text=COPIES,
    batch="trailing",
)
_PIXEL_UNSHUFFLE = Structural(
    "pixel_unshuffle",
    _unshuffle,
    _unshuffle_vjp,
    backward="PixelUnshuffleBackward0",
    suggested=True,  # a channels-last image gives a channels-last one, as PyTorch's
    kernel=_copying(_unshuffle),
    jvp="linear",
    text=COPIES,
    batch="trailing",
)


def pixel_shuffle_node(x: Any, r: int) -> Any:
    """The ``PixelShuffleBackward0`` node of a checked input (at least 3-d, channels
    divisible by ``r * r``)."""
    return _PIXEL_SHUFFLE(x, r=r)


def pixel_unshuffle_node(x: Any, r: int) -> Any:
    """The ``PixelUnshuffleBackward0`` node of a checked input (height and width divisible
    by ``r``)."""
    return _PIXEL_UNSHUFFLE(x, r=r)


def _channel_shuffle(xp: Any, x: Any, groups: int) -> Any:
    n, c, *rest = x.shape
    x = xp.reshape(x, (n, groups, c // groups, *rest))
    order = (0, 2, 1, *range(3, x.ndim))
    return xp.reshape(xp.permute(x, order), (n, c, *rest))


def _channel_shuffle_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # shuffling by the other factor of the channel count undoes the shuffle
    groups = g.shape[1] // c.params["groups"]
    if _recorded(xp, g):
        return (_CHANNEL_SHUFFLE(g, groups=groups),)
    return (_channel_shuffle(xp, g, groups),)


_CHANNEL_SHUFFLE = Structural(
    "channel_shuffle",
    _channel_shuffle,
    _channel_shuffle_vjp,
    backward="ChannelShuffleBackward0",
    suggested=True,  # a channels-last image gives a channels-last one, as PyTorch's
    kernel=_copying(_channel_shuffle),
    jvp="linear",
    text=COPIES,
)


def channel_shuffle_node(x: Any, groups: int) -> Any:
    """The ``ChannelShuffleBackward0`` node of a checked input (at least 3-d, channels
    divisible by ``groups``): channel ``g * (C / groups) + k`` moves to ``k * groups + g``."""
    return _CHANNEL_SHUFFLE(x, groups=groups)
