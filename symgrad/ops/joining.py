"""Joining and splitting tensors: cat, stack, split, chunk, unbind, narrow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import OMITTED, int_value, require_ints, require_tensor
from symgrad._memory_format import in_common_format
from symgrad._tracing import TRACE, traced_outputs
from symgrad.autograd import dual, grad_mode
from symgrad.autograd.node import node_class
from symgrad.ops.indexing import slice_along
from symgrad.ops.shape import _tensor, to_dtype
from symgrad.ops.shown import shown
from symgrad.prim import tangents
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.primitive import Primitive, input_records, meta_gradients
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, _wrap_dim, link_view

__all__ = ["cat", "concat", "concatenate", "stack", "split", "chunk", "unbind", "narrow"]


# -- joining and splitting ----------------------------------------------------------------------
def _cat_vjp(xp: Any, g: Any, c: Any) -> tuple:
    dim, skip, grads, start = c.params["dim"], c.params["skip"], [], 0
    for shape, need, skipped in zip(c.shapes, c.needs, skip):
        stop = start if skipped else start + shape[dim]
        key = (slice(None),) * dim + (slice(start, stop),)
        if need and skipped:  # a skipped (0,)-shaped input gets an empty gradient of its shape
            grads.append(xp.reshape(xp.getitem(g, key), shape))
        else:
            grads.append(xp.getitem(g, key) if need else None)
        start = stop
    return tuple(grads)


def _cat_forward(xp: Any, *arrays: Any, dim: int, skip: tuple, saved_as: tuple = ()) -> Any:
    return xp.cat([a for a, skipped in zip(arrays, skip) if not skipped], dim)


def _cat_kernel(xp: Any, *arrays: Any, dim: int, skip: tuple, saved_as: tuple = ()) -> Any:
    joined = [a for a, skipped in zip(arrays, skip) if not skipped]
    return in_common_format(xp.cat(joined, dim), joined)


_CAT = Structural(
    "cat", _cat_forward, _cat_vjp, jvp="linear", text=COPIES, batch="join", kernel=_cat_kernel
)


def _legacy_empty(x: Tensor) -> bool:
    return x.shape == (0,)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension.

    Tensors of shape (0,) are left out whatever the others' shapes, as PyTorch does (they
    were its empty tensors of any shape), but still set the result's dtype.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.cat([symgrad.ones(2, 1), symgrad.zeros(0), symgrad.zeros(2, 2)], dim=1)
    tensor([[1., 0., 0.],
            [1., 0., 0.]])
    """
    tensors = _listed(tensors, "cat")
    if not tensors:
        raise ValueError("cat(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if x.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {i}) cannot be concatenated\n("
                "unsqueeze it to shape [1] or use stack)"
            )
    skip = tuple(_legacy_empty(x) for x in tensors)
    if all(skip):  # nothing but (0,)-shaped tensors: PyTorch takes dim as it is
        skip, first, d = (False,) * len(tensors), 0, 0
    else:
        first = skip.index(False)
        d = _wrap_dim(dim, tensors[first].ndim)
    ref = tensors[first]
    for i, x in enumerate(tensors):
        if skip[i]:
            continue
        if x.ndim != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {x.ndim}\n"
                f"({_shapes(first, ref, i, x)})"
            )
        for j, (n, m) in enumerate(zip(ref.shape, x.shape)):
            if j != d and n != m:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {n} "
                    f"but got size {m} for tensor number {i} in the list.\n"
                    f"({_shapes(first, ref, i, x)})"
                )
    common = dtypes.result_type(*tensors)
    joined = (to_dtype(x, common) for x in tensors)
    return _CAT(*joined, dim=d, skip=skip, saved_as=shown(dim=dim))


concat = concatenate = cat


def _shapes(first: int, ref: Tensor, i: int, x: Tensor) -> str:
    return f"tensor {first} has shape {list(ref.shape)} but tensor {i} has shape {list(x.shape)}"


def _listed(tensors: Any, op: str) -> list[Tensor]:
    """``tensors``, a list or tuple of tensors, as a list (PyTorch's TypeError otherwise)."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}\n(pass a list or tuple of tensors)"
        )
    return [_tensor(x, op) for x in tensors]


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of one shape along a new dimension."""
    tensors = _listed(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    shape, dtype = first._data.shape, first._data.dtype
    same = True
    for i, x in enumerate(tensors):
        data = x._data
        if data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} "
                f"at entry 0 and {list(x.shape)} at entry {i}"
            )
        same = same and data.dtype is dtype
    d = _wrap_dim(dim, first.ndim + 1)
    if not same:
        common = dtypes.result_type(*tensors)
        tensors = [to_dtype(x, common) for x in tensors]
    return _STACK(*tensors, dim=d, saved_as=shown(dim=dim))


def _stack_forward(xp: Any, *arrays: Any, dim: int, saved_as: tuple = ()) -> Any:
    return xp.cat([xp.unsqueeze(a, dim) for a in arrays], dim)


def _stack_kernel(xp: Any, *arrays: Any, dim: int, saved_as: tuple = ()) -> Any:
    for a in arrays:
        if type(a) is not np.ndarray:  # (a meta array, a number)
            return _stack_forward(xp, *arrays, dim=dim)
    return in_common_format(np.stack(arrays, axis=dim), arrays, keep=True)


def _stack_vjp(xp: Any, g: Any, c: Any) -> tuple:
    lead = (slice(None),) * c.params["dim"]
    return tuple(xp.getitem(g, lead + (i,)) if need else None for i, need in enumerate(c.needs))


_STACK = Structural(
    "stack", _stack_forward, _stack_vjp, jvp="linear", batch="join", kernel=_stack_kernel
)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The slice ``start:start+length`` of dimension ``dim``."""
    if type(start) is not int:
        if isinstance(start, Tensor) and (start.ndim or start.dtype.category != 1):
            raise RuntimeError(f"start must be an 0-dim integral Tensor, got {start!r}.")
        start = int_value("narrow", "start", start, 2)
    if type(length) is not int:
        length = int_value("narrow", "length", length, 3, sized=True)
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start = start % size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    # (SliceBackward0, as PyTorch's, with the dim as given)
    return slice_along(input, d, start, start + length, shown(dim=dim))


def _at_least_1d(input: Tensor, op: str) -> None:
    if input.ndim == 0:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")


class _Pieces(Primitive):
    """``split``, ``chunk`` and ``unbind``: one node whose outputs are views of the input's
    pieces, ``input[key]`` for each key; the gradient joins the pieces' gradients (zeros
    where a piece got none). ``pieces`` "copy" makes the outputs copies (``split_copy``);
    "unlinked" shares memory that autograd does not track (``unsafe_split``)."""

    name = "pieces"

    def __init__(self, backward: str, join: Any, pieces: str = "view") -> None:
        self.backward_name = backward
        self.join = join  # how the pieces' gradients join again: cat, or stack for unbind
        self.pieces = pieces

    def node_class(self, count: int) -> type:
        """PyTorch's node class, with ``count`` outputs."""
        return node_class(self.backward_name, outputs=count)

    def forward(self, xp: Any, a: Any, dim: int, keys: tuple, saved_as: tuple = ()) -> tuple:
        return tuple(xp.getitem(a, k) for k in keys)

    def outputs(self, xp: Any, inputs: tuple, params: dict) -> tuple:
        return self.forward(xp, *inputs, **params)

    def recompute(self, inputs: tuple, params: dict) -> tuple:
        return self(*inputs, **params)

    def saves(self, n: int) -> tuple[tuple, bool]:
        return (False,) * n, False

    def vjp(self, xp: Any, g: Any, ctx: Any) -> tuple:
        """Output ``ctx.output``'s gradient placed in zeros of the input's shape."""
        return (xp.index_put_zeros(ctx.shapes[0], ctx.params["keys"][ctx.output], g, True),)

    def jvp(self, xp: Any, tangents: tuple, ctx: Any) -> Any:
        t = tangents[0]
        return None if t is None else xp.getitem(t, ctx.params["keys"][ctx.output])

    def apply(self, node: Any, grads: list, create_graph: bool) -> tuple:
        shape, dtype = node._meta[0]
        dim, keys = node.params["dim"], node.params["keys"]
        if not create_graph and (meta := meta_gradients(node, grads)) is not None:
            return tuple(meta)
        if not create_graph:
            out = np.zeros(shape, dtype)
            for key, g in zip(keys, grads):
                if g is not None:
                    out[key] = g
            return (out,)
        pieces = [
            Tensor._make(np.zeros(np.empty(shape, np.bool_)[k].shape, dtype)) if g is None else g
            for k, g in zip(keys, grads)
        ]
        return (self.join(pieces, dim),)

    def __call__(
        self, tensor: Tensor, dim: int, keys: tuple, saved_as: tuple = ()
    ) -> tuple[Tensor, ...]:
        if type(tensor) is BatchedTensor:  # inside vmap: each piece by the indexing rule
            return tuple(tensor[k] for k in keys)
        arrays = [tensor._data[k] for k in keys]
        if self.pieces == "copy":
            arrays = [np.array(a, copy=True) for a in arrays]
        if not arrays or not (grad_mode.recording() and tensor._requires_grad):
            # pieces of a tensor needing no grad: PyTorch refuses recorded changes of them too
            kind = "multi_plain" if grad_mode.recording() and arrays else "no_grad"
            outs = tuple(Tensor._make(a) for a in arrays)
        else:
            kind = "multi"  # PyTorch refuses in-place changes of these while recording
            edges, saved, versions, meta, consts, held = input_records((tensor,), (False,))
            params = {"dim": dim, "keys": keys, "saved_as": saved_as}
            node = self.node_class(len(keys))(
                self, params, edges, saved, None, versions, meta, consts, held
            )
            outs = tuple(Tensor._make(a, node, True) for a in arrays)
            for i, t in enumerate(outs):
                t._output_nr = i
            if TRACE.log is not None:
                traced_outputs(node, outs)
        for t in outs if self.pieces == "view" else ():
            link_view(tensor, t, kind)
        if dual.active() and dual.tangent_of(tensor) is not None:
            params = {"dim": dim, "keys": keys, "saved_as": saved_as}
            for i, t in enumerate(outs):
                tangents.propagate(self, (tensor,), params, t, i)
        return outs


_SPLIT = _Pieces("SplitBackward0", cat)
_SPLIT_WITH_SIZES = _Pieces("SplitWithSizesBackward0", cat)
_UNBIND = _Pieces("UnbindBackward0", stack)


def split(
    tensor: Tensor,
    split_size_or_sections: Any = OMITTED,
    dim: int = 0,
    *,
    split_size: Any = OMITTED,
) -> tuple[Tensor, ...]:
    """Split into pieces of a given size (the last may be smaller), or of listed sizes: views
    of ``tensor``, the outputs of one node (``SplitBackward0``, ``SplitWithSizesBackward0``).
    ``split_size`` is the name of the size in the method ``x.split(split_size, dim)``.

    Examples
    --------
    >>> import symgrad
    >>> a, b = symgrad.arange(5.0, requires_grad=True).split(3)
    >>> a, b.grad_fn is a.grad_fn
    (tensor([0., 1., 2.], grad_fn=<SplitBackward0>), True)
    """
    if (split_size_or_sections is OMITTED) == (split_size is OMITTED):
        problem = (
            "missing 1 required positional argument"
            if split_size is OMITTED
            else "got multiple values for argument"
        )
        raise TypeError(
            f"split() {problem}: 'split_size' (the size of each piece, or a list of the sizes)"
        )
    if split_size_or_sections is OMITTED:
        split_size_or_sections = split_size
    if isinstance(split_size_or_sections, Tensor):
        split_size_or_sections = _size_of_tensor(split_size_or_sections)
    d, keys, by_size = split_keys(tensor, split_size_or_sections, dim)
    return (_SPLIT if by_size else _SPLIT_WITH_SIZES)(tensor, d, keys, shown(dim=dim))


def _size_of_tensor(size: Tensor) -> Any:
    """A one-element tensor as its int, as PyTorch's ``split`` reads it (``int(size)``, so a
    float's is truncated); a tensor of sizes is PyTorch's TypeError."""
    if size.numel() != 1:
        raise TypeError(
            "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
            "Tensor (give a list: sizes.tolist())"
        )
    return int(size)


def split_keys(tensor: Tensor, split_size_or_sections: Any, dim: int) -> tuple:
    """The checked dimension, each piece's index key, and whether the pieces are of one size
    (``split``'s two forms)."""
    _at_least_1d(tensor, "split")
    if type(split_size_or_sections) is not int:
        require_ints("split_with_sizes", "split_sizes", split_size_or_sections)
    d = _wrap_dim(dim, tensor.ndim)
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0 or (step == 0 and n):
            raise RuntimeError(
                f"split expects split_size be non-negative, and 0 only for a dimension of size "
                f"0, but got split_size={step} for dimension {d} of size {n}"
            )
        bounds = list(range(0, n, step)) + [n] if n else [0, 0]
    else:
        sections = list(split_size_or_sections)
        if sum(sections) != n or any(k < 0 for k in sections):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sections}"
            )
        bounds = list(np.cumsum([0] + sections))
    lead = (slice(None),) * d
    keys = tuple(lead + (slice(int(a), int(b)),) for a, b in zip(bounds[:-1], bounds[1:]))
    return d, keys, isinstance(split_size_or_sections, int)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """Split into ``chunks`` pieces of equal size (the last may be smaller)."""
    if type(chunks) is not int:
        chunks = int_value("chunk", "chunks", chunks, 1)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    _at_least_1d(input, "chunk")
    n = input.shape[_wrap_dim(dim, input.ndim)]
    if n == 0:  # PyTorch: `chunks` empty pieces
        return split(input, [0] * chunks, dim)
    return split(input, -(-n // chunks), dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along ``dim``, with that dimension removed: views of ``input``, the outputs
    of one node (``UnbindBackward0``)."""
    if type(input) is not Tensor:
        require_tensor("unbind", "input", 1, input)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, input.ndim)
    lead = (slice(None),) * d
    keys = tuple(lead + (i, Ellipsis) for i in range(input.shape[d]))
    return _UNBIND(input, d, keys, shown(dim=dim))
