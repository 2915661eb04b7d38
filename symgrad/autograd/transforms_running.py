"""How many transforms of :mod:`symgrad.func` are running (``vmap``, ``grad``, ``vjp``,
``jvp``, ...): ``backward()`` inside one is refused, as in PyTorch. A transform's level is
its place in :data:`KINDS` counted from 1, as PyTorch numbers its transforms' levels."""

from __future__ import annotations

__all__ = ["KINDS", "RUNNING", "check_backward", "enter", "leave"]

RUNNING = [0]
KINDS: list = []  # the running transforms, outermost first: "vmap" or "grad" (any other)
# where each running transform's nodes start (their sequence number; None for vmap's)
STARTS: list = []


def enter(kind: str, start: int | None = None) -> int:
    """Count one more running transform of ``kind`` whose nodes are those numbered from
    ``start`` on; its level."""
    RUNNING[0] += 1
    KINDS.append(kind)
    STARTS.append(start)
    return RUNNING[0]


def leave() -> None:
    RUNNING[0] -= 1
    KINDS.pop()
    STARTS.pop()


def check_backward() -> None:
    """PyTorch's error for ``backward()`` called inside a transform."""
    if RUNNING[0]:
        raise RuntimeError(
            "backward() called inside a functorch transform. This is not supported, please use "
            "functorch.grad or functorch.vjp instead or call backward() outside of functorch "
            "transforms."
        )
