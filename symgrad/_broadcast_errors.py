"""PyTorch's words for shapes that don't broadcast together."""

from __future__ import annotations

import numpy as np

__all__ = ["broadcast_mismatch", "check_broadcast"]


def broadcast_mismatch(shapes: list) -> str:
    """PyTorch's words for the last dimension where two of ``shapes`` (lists of sizes) don't
    broadcast, or "" when they do.

    Examples
    --------
    >>> broadcast_mismatch([[2, 3], [3, 2]])
    ' (the size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1)'
    """
    ndim = max(len(shape) for shape in shapes)
    for back in range(1, ndim + 1):
        found = [(shape[-back], k) for k, shape in enumerate(shapes) if len(shape) >= back]
        wide = [(n, k) for n, k in found if n != 1]
        for n, k in wide[1:]:
            if n != wide[0][0]:
                (m, j) = wide[0]
                return (
                    f" (the size of tensor {chr(97 + j)} ({m}) must match the size of tensor "
                    f"{chr(97 + k)} ({n}) at non-singleton dimension {ndim - back})"
                )
    return ""


def check_broadcast(op: str, datas: list) -> None:
    """PyTorch's RuntimeError when the shapes of ``datas`` (arrays, numbers) don't broadcast."""
    shapes = [list(np.shape(d)) for d in datas]
    try:
        np.broadcast_shapes(*(np.shape(d) for d in datas))
    except ValueError:
        words = broadcast_mismatch(shapes)[2:-1]
        shown = " and ".join(map(str, shapes))
        raise RuntimeError(
            f"{words[0].upper()}{words[1:]}\n({op}: {shown} don't broadcast)"
        ) from None
