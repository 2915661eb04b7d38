"""How many transforms of :mod:`symgrad.func` are running (``vmap``, ``grad``, ``vjp``,
``jvp``, ...): ``backward()`` inside one is refused, as in PyTorch."""

from __future__ import annotations

__all__ = ["RUNNING", "check_backward"]

RUNNING = [0]


def check_backward() -> None:
    """PyTorch's error for ``backward()`` called inside a transform."""
    if RUNNING[0]:
        raise RuntimeError(
            "backward() called inside a functorch transform. This is not supported, please use "
            "functorch.grad or functorch.vjp instead or call backward() outside of functorch "
            "transforms."
        )
