"""PyTorch's errors for the sizes given to ``expand``."""

from __future__ import annotations

from symgrad.tensor import Tensor


def _expanded_shape(input: Tensor, shape: tuple) -> tuple:
    """``shape`` with its -1s filled from ``input``'s, after PyTorch's checks."""
    lead = len(shape) - input.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.{input.dtype.scalar_type}Tensor{{{list(input.shape)}}}, "
            f"size={list(shape)}): the number of sizes provided ({len(shape)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({input.ndim})"
        )
    for i, n in enumerate(shape[:lead]):
        if n < 0:  # -1 keeps a size, and a new leading dimension has none to keep
            raise RuntimeError(
                f"The expanded size of the tensor ({n}) isn't allowed in a leading, "
                f"non-existing dimension {i}\n(expanding a tensor of shape {list(input.shape)} "
                f"to {list(shape)}: give the size of each new dimension)"
            )
    shape = tuple(input.shape[i - lead] if n == -1 else n for i, n in enumerate(shape))
    for i in reversed(range(input.ndim)):  # PyTorch checks from the last dimension
        n, m = shape[lead + i], input.shape[i]
        if n < 0 or m not in (n, 1):  # (NumPy would also broadcast the target)
            raise RuntimeError(
                f"The expanded size of the tensor ({n}) must match the existing size ({m}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: {list(shape)}.  Tensor "
                f"sizes: {list(input.shape)}\n(the shape {list(input.shape)} can't be expanded "
                f"to {list(shape)}: only dimensions of size 1 can grow)"
            )
    return shape
