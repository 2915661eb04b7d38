"""The ``*_copy`` forms of the view ops (``diagonal_copy``, ``t_copy``, ``split_copy``, ...)
and ``narrow_copy``: the view's values in new memory, never shared with the input.

Each single-output copy is one node, named as PyTorch names it (the view's node with
``_copy``: ``DiagonalBackward0_copy``), that reads the input at the flat positions the view
would hold; those positions come from the view op itself applied to ``arange``, so every copy
checks its arguments exactly as its view does. The gradient puts ``g`` back at those positions
(summed where a position is read twice, as by ``expand_copy``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import creation
from symgrad._arguments import OMITTED, invalid_combination, no_overload, require_tensor
from symgrad.dtypes import dtype as _dtype
from symgrad.ops import joining
from symgrad.ops.joining import split_keys
from symgrad.ops.strided_views import _check_arguments, _strided
from symgrad.ops.triangular import diagonal_copy
from symgrad.ops.views import _as_strided_forward, _as_strided_vjp
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, _wrap_dim, bind_methods

__all__ = [
    "alias_copy",
    "as_strided_copy",
    "detach_copy",
    "diagonal_copy",
    "expand_copy",
    "permute_copy",
    "select_copy",
    "slice_copy",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsqueeze_copy",
    "view_copy",
    "narrow_copy",
]

_READ = Structural(
    "view_copy",
    lambda xp, a, index, unique, node: _as_strided_forward(xp, a, index),
    _as_strided_vjp,
    backward=lambda params, shapes: params["node"],
    jvp="linear",
    text=COPIES,
)


def view_positions(input: Tensor, view: Callable) -> np.ndarray:
    """For each element of ``view(input)``, its flat (row-major) position in ``input``."""
    places = creation.arange(input.numel()).reshape(input.shape)
    return np.ascontiguousarray(view(places)._data, dtype=np.int64)


def read_copy(input: Tensor, index: np.ndarray, node: str, unique: bool = True) -> Tensor:
    """New memory holding ``input``'s elements at the flat positions ``index``, one node named
    ``node``."""
    return _READ(input, index=index, unique=unique, node=node)


def _copy_of(op: str, input: Any, view: Callable, node: str, unique: bool = True) -> Tensor:
    if type(input) is not Tensor:
        require_tensor(op, "input", 1, input)
    index = view_positions(input, view)
    if not unique:
        unique = bool(np.unique(index).size == index.size)
    return read_copy(input, index, node, unique)


def alias_copy(input: Tensor) -> Tensor:
    """A copy of ``input`` in new memory (``torch.alias`` without the sharing), recorded as
    ``AliasBackward0_copy``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.alias_copy(symgrad.ones(2, requires_grad=True))
    tensor([1., 1.], grad_fn=<AliasBackward0_copy>)
    """
    return _copy_of("alias_copy", input, lambda p: p, "AliasBackward0_copy")


def as_strided_copy(
    input: Tensor, size: Any, stride: Any, storage_offset: int | None = None
) -> Tensor:
    """The values of ``input.as_strided(size, stride, storage_offset)`` in new memory
    (``AsStridedBackward0_copy``; an element read twice gets both gradients).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.as_strided_copy(symgrad.arange(4.0), (2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    _check_arguments("as_strided_copy", input, size, stride)
    data, index = _strided(input, size, stride, storage_offset, index=True)
    unique = bool(np.unique(index).size == index.size)
    return read_copy(input, np.asarray(index, dtype=np.int64), "AsStridedBackward0_copy", unique)


def detach_copy(input: Tensor) -> Tensor:
    """A copy of ``input`` in new memory. As in PyTorch, a result made from a tensor that
    requires grad requires grad too, but its node has no derivative: backward through it
    raises.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.detach_copy(symgrad.tensor([1.0, 2.0]))
    tensor([1., 2.])
    """
    if type(input) is not Tensor:
        require_tensor("detach_copy", "input", 1, input)
    return _DETACH_COPY(input)


def _no_derivative(xp: Any, g: Any, c: Any) -> tuple:
    raise RuntimeError("derivative for aten::detach_copy is not implemented")


_DETACH_COPY = Structural(
    "detach_copy",
    lambda xp, a: np.array(a, copy=True),
    _no_derivative,
    backward="NotImplemented",
    text=COPIES,
)


def expand_copy(input: Tensor, size: Any, *, implicit: bool = False) -> Tensor:
    """The values of ``input.expand(size)`` in new memory (``ExpandBackward0_copy``: the
    gradient sums over the repeated elements).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.expand_copy(symgrad.tensor([[1], [2]]), (2, 3))
    tensor([[1, 1, 1],
            [2, 2, 2]])
    """
    return _copy_of(
        "expand_copy", input, lambda p: p.expand(size), "ExpandBackward0_copy", unique=False
    )


def permute_copy(input: Tensor, dims: Any) -> Tensor:
    """The values of ``input.permute(dims)`` in new, row-major memory
    (``PermuteBackward0_copy``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.permute_copy(symgrad.arange(6).reshape(2, 3), (1, 0)).stride()
    (2, 1)
    """
    return _copy_of("permute_copy", input, lambda p: p.permute(dims), "PermuteBackward0_copy")


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    """The values of ``input.select(dim, index)`` in new memory (``SelectBackward0_copy``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.select_copy(symgrad.arange(6).reshape(2, 3), 1, -1)
    tensor([2, 5])
    """
    return _copy_of("select_copy", input, lambda p: p.select(dim, index), "SelectBackward0_copy")


def slice_key(input: Tensor, dim: int, start: Any, end: Any, step: int) -> tuple:
    """The index key of PyTorch's ``slice(input, dim, start, end, step)`` (``step`` > 0; the
    bounds clamped to the dimension as Python's slices are)."""
    d = _wrap_dim(dim, max(input.ndim, 1))
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    bounds = [None if b is None else int(b) for b in (start, end)]
    return (slice(None),) * d + (slice(bounds[0], bounds[1], int(step)),)


def slice_copy(
    input: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
) -> Tensor:
    """The values of ``input[..., start:end:step]`` (along ``dim``) in new memory
    (``SliceBackward0_copy``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.slice_copy(symgrad.arange(6), 0, 1, None, 2)
    tensor([1, 3, 5])
    """
    if type(input) is not Tensor:
        require_tensor("slice_copy", "input", 1, input)
    key = slice_key(input, dim, start, end, step)
    return _copy_of("slice_copy", input, lambda p: p[key], "SliceBackward0_copy")


def squeeze_copy(input: Tensor, dim: Any = OMITTED) -> Tensor:
    """The values of ``input.squeeze(dim)`` in new memory (``SqueezeBackward0_copy`` for all
    dimensions, ``1`` for one, ``2`` for a list of them).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.squeeze_copy(symgrad.zeros(1, 2, 1), [0]).shape
    symgrad.Size([2, 1])
    """
    if dim is None:
        raise no_overload("squeeze_copy", input, dim, none_given=True)
    number = 0 if dim is OMITTED else 2 if isinstance(dim, (tuple, list)) else 1
    node = f"SqueezeBackward{number}_copy"
    view = (lambda p: p.squeeze()) if dim is OMITTED else (lambda p: p.squeeze(dim))
    return _copy_of("squeeze_copy", input, view, node)


def t_copy(input: Tensor) -> Tensor:
    """The values of ``input.t()`` in new, row-major memory (``TBackward0_copy``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.t_copy(symgrad.tensor([[1, 2]]))
    tensor([[1],
            [2]])
    """
    return _copy_of("t_copy", input, lambda p: p.t(), "TBackward0_copy")


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """The values of ``input.transpose(dim0, dim1)`` in new, row-major memory
    (``TransposeBackward0_copy``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.transpose_copy(symgrad.zeros(2, 3, 4), 0, 2).shape
    symgrad.Size([4, 3, 2])
    """
    return _copy_of(
        "transpose_copy", input, lambda p: p.transpose(dim0, dim1), "TransposeBackward0_copy"
    )


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The values of ``input.unfold(dimension, size, step)`` in new memory
    (``UnfoldBackward0_copy``: an element in several windows gets each window's gradient).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.unfold_copy(symgrad.arange(4), 0, 2, 1)
    tensor([[0, 1],
            [1, 2],
            [2, 3]])
    """
    return _copy_of(
        "unfold_copy",
        input,
        lambda p: p.unfold(dimension, size, step),
        "UnfoldBackward0_copy",
        unique=False,
    )


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    """The values of ``input.unsqueeze(dim)`` in new memory (``UnsqueezeBackward0_copy``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.unsqueeze_copy(symgrad.tensor([1, 2]), 1)
    tensor([[1],
            [2]])
    """
    return _copy_of("unsqueeze_copy", input, lambda p: p.unsqueeze(dim), "UnsqueezeBackward0_copy")


def view_copy(input: Tensor, size: Any) -> Tensor:
    """The values of ``input.view(size)`` in new memory (``ViewBackward0_copy``; any layout
    of ``input`` is accepted), or of ``input.view(dtype)`` (its bytes read as ``dtype``, not
    differentiable).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.view_copy(symgrad.arange(6), (3, -1))
    tensor([[0, 1],
            [2, 3],
            [4, 5]])
    """
    if type(input) is not Tensor:
        require_tensor("view_copy", "input", 1, input)
    if isinstance(size, _dtype):
        return input.detach().view(size).clone()
    if isinstance(size, (int, Tensor)) or not hasattr(size, "__iter__"):
        raise invalid_combination(
            "view_copy",
            (input, size),
            ("Tensor input, torch.dtype dtype", "Tensor input, tuple of ints size"),
        )
    return _copy_of("view_copy", input, lambda p: p.view(tuple(size)), "ViewBackward0_copy")


def narrow_copy(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """The values of ``input.narrow(dim, start, length)`` in new memory
    (``NarrowCopyBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.arange(5).narrow_copy(0, 1, 3)
    tensor([1, 2, 3])
    """
    if isinstance(start, Tensor):
        start = int(start.item())
    return _copy_of(
        "narrow_copy", input, lambda p: joining.narrow(p, dim, start, length), "NarrowCopyBackward0"
    )


# -- several outputs --------------------------------------------------------------------------
_SPLIT_COPY = joining._Pieces("SplitBackward0_copy", joining.cat, "copy")
_SPLIT_WITH_SIZES_COPY = joining._Pieces("SplitWithSizesBackward0_copy", joining.cat, "copy")
_UNBIND_COPY = joining._Pieces("UnbindBackward0_copy", joining.stack, "copy")


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple[Tensor, ...]:
    """The pieces of ``input.split(split_size, dim)``, each in new memory (the outputs of one
    ``SplitBackward0_copy`` node).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.split_copy(symgrad.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    """
    if type(input) is not Tensor:
        require_tensor("split_copy", "input", 1, input)
    integral(split_size, "split_copy", "split_size")
    d, keys, _ = split_keys(input, split_size, dim)
    return _SPLIT_COPY(input, d, keys)


def split_with_sizes_copy(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """The pieces of ``input.split_with_sizes(split_sizes, dim)``, each in new memory (the
    outputs of one ``SplitWithSizesBackward0_copy`` node).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.split_with_sizes_copy(symgrad.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
    """
    if type(input) is not Tensor:
        require_tensor("split_with_sizes_copy", "input", 1, input)
    d, keys, _ = split_keys(input, sizes_list(split_sizes, "split_with_sizes_copy"), dim)
    return _SPLIT_WITH_SIZES_COPY(input, d, keys)


def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of ``input`` along ``dim``, each in new memory (the outputs of one
    ``UnbindBackward0_copy`` node).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.unbind_copy(symgrad.tensor([[1, 2], [3, 4]]), 1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    if type(input) is not Tensor:
        require_tensor("unbind_copy", "input", 1, input)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, input.ndim)
    lead = (slice(None),) * d
    return _UNBIND_COPY(input, d, tuple(lead + (i, Ellipsis) for i in range(input.shape[d])))


def integral(value: Any, op: str, name: str) -> None:
    """PyTorch's TypeError for a split size that is not an int."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{op}(): argument '{name}' (position 2) must be int, not {type(value).__name__}"
        )


def sizes_list(value: Any, op: str) -> list:
    """``value`` as a list of ints, PyTorch's TypeError if it is not a sequence of them."""
    if isinstance(value, (int, float, Tensor)) or not hasattr(value, "__iter__"):
        raise TypeError(
            f"{op}(): argument 'split_sizes' (position 2) must be tuple of ints, not "
            f"{type(value).__name__}"
        )
    return [int(k) for k in value]


bind_methods({"narrow_copy": narrow_copy})
