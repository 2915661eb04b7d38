"""``unsafe_split``, ``unsafe_split_with_sizes`` and ``unsafe_chunk``: ``split`` and ``chunk``
whose pieces share the input's memory without autograd knowing it.

As in PyTorch, the pieces are not views to autograd: changing one in place is allowed and
neither the input's history nor the other pieces' is told (the reason for the name).
"""

from __future__ import annotations

from typing import Any

from symgrad._arguments import int_value, require_tensor
from symgrad.ops import joining
from symgrad.ops.view_copies import sizes_list
from symgrad.tensor import Tensor, _wrap_dim, bind_methods

__all__ = ["unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"]

_UNSAFE_SPLIT = joining._Pieces("UnsafeSplitBackward0", joining.cat, "unlinked")
_UNSAFE_SPLIT_WITH_SIZES = joining._Pieces("UnsafeSplitWithSizesBackward0", joining.cat, "unlinked")


def unsafe_split(tensor: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``tensor.split(split_size, dim)`` whose pieces autograd does not track as views (one
    ``UnsafeSplitBackward0`` node).

    Examples
    --------
    >>> import symgrad
    >>> a, b = symgrad.arange(4.0, requires_grad=True).unsafe_split(2)
    >>> b
    tensor([2., 3.], grad_fn=<UnsafeSplitBackward0>)
    """
    if type(tensor) is not Tensor:
        require_tensor("unsafe_split", "input", 1, tensor)
    split_size = int_value("unsafe_split", "split_size", split_size, 2)
    if split_size < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={split_size}"
        )
    d, keys, _ = joining.split_keys(tensor, split_size, dim)
    return _UNSAFE_SPLIT(tensor, d, keys)


def unsafe_split_with_sizes(tensor: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """``tensor.split_with_sizes(split_sizes, dim)`` whose pieces autograd does not track as
    views (one ``UnsafeSplitWithSizesBackward0`` node).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.unsafe_split_with_sizes(symgrad.arange(4), [1, 3])
    (tensor([0]), tensor([1, 2, 3]))
    """
    if type(tensor) is not Tensor:
        require_tensor("unsafe_split_with_sizes", "input", 1, tensor)
    sizes = sizes_list(split_sizes, "unsafe_split_with_sizes")
    d, keys, _ = joining.split_keys(tensor, sizes, dim)
    return _UNSAFE_SPLIT_WITH_SIZES(tensor, d, keys)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``input.chunk(chunks, dim)`` whose pieces autograd does not track as views (one
    ``UnsafeSplitBackward0`` node).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.unsafe_chunk(symgrad.arange(5), 2)
    (tensor([0, 1, 2]), tensor([3, 4]))
    """
    if type(input) is not Tensor:
        require_tensor("unsafe_chunk", "input", 1, input)
    chunks = int_value("unsafe_chunk", "chunks", chunks, 2)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    n = input.shape[_wrap_dim(dim, input.ndim)]
    if n == 0:  # PyTorch: `chunks` empty pieces
        d, keys, _ = joining.split_keys(input, [0] * chunks, dim)
    else:
        d, keys, _ = joining.split_keys(input, -(-n // chunks), dim)
    return _UNSAFE_SPLIT(input, d, keys)


bind_methods(
    {
        "unsafe_split": unsafe_split,
        "unsafe_split_with_sizes": unsafe_split_with_sizes,
        "unsafe_chunk": unsafe_chunk,
    }
)
