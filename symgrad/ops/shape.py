"""Shape primitives: every rule is one forward and one VJP over the namespace ``xp``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import OMITTED, no_overload, require_tensor
from symgrad._data import distinct_dims, keyword_sizes, sizes
from symgrad._memory_format import copy_strided, laid_out_like
from symgrad._silent import cast, through_float
from symgrad.ops._strides import expanded, new_shape, reshaped, unsqueezed, view_strides
from symgrad.ops.copies import _CLONE
from symgrad.ops.rounding import stored_values
from symgrad.ops.shape_checks import _expanded_shape
from symgrad.ops.shown import shown
from symgrad.ops.transposes import t
from symgrad.prim import batching as _batching
from symgrad.prim.primitive import as_operand
from symgrad.prim.structural import Structural, reshaped_back
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, _wrap_dim

__all__ = [
    "to_dtype",
    "sum_to_size",
    "expand",
    "broadcast_to",
    "reshape",
    "view",
    "flatten",
    "transpose",
    "swapaxes",
    "permute",
    "t",
    "unsqueeze",
    "squeeze",
    "flip",
    "movedim",
]


def _tensor(value: Any, op: str) -> Tensor:
    value = as_operand(value, op)
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): expected a Tensor, got {type(value).__name__}")
    return value


# -- dtype conversion -----------------------------------------------------------------------------
def _convert(xp: Any, a: Any, dtype: dtypes.dtype, strides: tuple | None = None) -> Any:
    if strides is None:  # (a double to half through float, as PyTorch; laid out as empty_like)
        return laid_out_like(cast(a, dtype.numpy), a)
    return copy_strided(through_float(a, dtype.numpy), strides, dtype.numpy)


_TO = Structural(
    "to_dtype",
    lambda xp, a, dtype, strides=None: stored_values(xp, a, dtype),
    lambda xp, g, c: (g,),
    backward="ToCopyBackward0",
    kernel=_convert,
    jvp="linear",
    text=COPIES,
    batch="reduction",
)


def to_dtype(input: Tensor, dtype: dtypes.dtype) -> Tensor:
    """``input`` converted to ``dtype`` (a copy; gradients flow back in the input's dtype)."""
    if input.dtype is dtype:
        return input
    if input._requires_grad and not dtype.is_floating_point:
        return Tensor._make(laid_out_like(input._data.astype(dtype.numpy), input._data))
    return _TO(input, dtype=dtype)


# -- broadcasting -------------------------------------------------------------------------------
def sum_to_size(input: Tensor, *size: Any, **keyword: Any) -> Tensor:
    """Sum ``input`` down to a shape it broadcasts from (the VJP of broadcasting), recorded as
    PyTorch's ``at::sum_to``: a sum keeping dimensions, viewed without the leading ones.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2, 3, requires_grad=True).sum_to_size(3)
    tensor([2., 2., 2.], grad_fn=<ViewBackward0>)
    """
    if keyword:
        size = keyword_sizes("sum_to_size", size, keyword, "size")
    shape = sizes(size, "sum_to_size")
    if input.shape == shape:
        return input
    lead = input.ndim - len(shape)
    if lead < 0 or any(n not in (1, m) for n, m in zip(shape, input.shape[lead:])):
        raise RuntimeError(
            f"size {{{list(shape)}}} is not expandable to size {{{list(input.shape)}}}."
        )
    if not shape:
        return input.sum()
    dims = tuple(range(lead)) + tuple(
        i for i in range(lead, input.ndim) if shape[i - lead] == 1 and input.shape[i] != 1
    )
    out = input.sum(dims, keepdim=True) if dims else input
    return out.view(shape) if lead else out


_EXPAND = Structural(
    "expand",
    lambda xp, a, shape: xp.expand(a, shape),
    lambda xp, g, c: (xp.sum_to_size(g, c.shapes[0]),),
    kernel=expanded,
    jvp="linear",
    text=COPIES,
    batch="expand",
)


def expand(input: Tensor, *size: Any, **keyword: Any) -> Tensor:
    """``input`` broadcast to ``size`` (-1 keeps a size): a view, also to its own shape.

    >>> import symgrad
    >>> symgrad.ones(2, 1, requires_grad=True).expand(2, 1).grad_fn.name()
    'ExpandBackward0'
    """
    if not size and not keyword:  # PyTorch's TypeError, even where () would fit
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    if keyword:
        size = keyword_sizes("expand", size, keyword, "size")
    shape = _expanded_shape(input, sizes(size, "expand"))
    return _EXPAND(input, shape=shape)


def expand_to(input: Tensor, shape: tuple) -> Tensor:
    """``input`` broadcast to ``shape`` for an op's use: itself if of that shape (PyTorch's
    ``expand_outplace``)."""
    shape = _expanded_shape(input, tuple(shape))
    return input if shape == input.shape else _EXPAND(input, shape=shape)


def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor:
    """Broadcast ``input`` to ``size`` (like :func:`expand`)."""
    return expand(input, tuple(size))


# -- reshaping ----------------------------------------------------------------------------------
def _reshape_forward(xp: Any, a: Any, shape: tuple) -> Any:
    return xp.reshape(a, shape)


def _reshape_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (xp.reshape(g, c.shapes[0]),)


def _reshaping(name: str) -> Structural:
    """A primitive that gives its input a new shape (a view, or the view after a copy)."""
    return Structural(
        name,
        _reshape_forward,
        _reshape_vjp,
        kernel=reshaped,
        jvp="linear",
        text=COPIES,
        batch="reduction",
        numeric_vjp=reshaped_back,
    )


_VIEW, _UNSAFE_VIEW, _RESHAPE_ALIAS = map(_reshaping, ("view", "unsafe_view", "reshape_alias"))


def reshape(input: Tensor, *shape: Any, **keyword: Any) -> Tensor:
    """The same values in a new shape (one size may be -1): a view of ``input`` when its
    layout allows one (``ViewBackward0``, ``ReshapeAliasBackward0`` for a non-contiguous one),
    else a copy (``CloneBackward0`` then ``UnsafeViewBackward0``), as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.arange(6).reshape(2, 3)
    tensor([[0, 1, 2],
            [3, 4, 5]])
    """
    input = _tensor(input, "reshape")
    if not shape and not keyword:  # PyTorch's TypeError, even where () would fit
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    if keyword:
        shape = keyword_sizes("reshape", shape, keyword, "shape")
    new = new_shape(input.shape, shape, "reshape")
    if _viewable(input, new):
        # PyTorch: a view of a contiguous tensor, an alias of the same memory otherwise
        contiguous = isinstance(input, _batching.BatchedTensor) or input._data.flags.c_contiguous
        return (_VIEW if contiguous else _RESHAPE_ALIAS)(input, shape=new)
    out = _UNSAFE_VIEW(_CLONE(input, order="C"), shape=new)
    out._view_base = None  # PyTorch's _unsafe_view: the copy is not a view (_base is None)
    return out


def view(input: Tensor, *shape: Any, **keyword: Any) -> Tensor:
    """The same memory seen in a new shape (one size may be -1); a RuntimeError when the
    layout allows no view (use :func:`reshape`, which copies then).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.arange(6.0)
    >>> v = x.view(2, 3)
    >>> v._base is x, v.grad_fn
    (True, None)
    """
    if not shape and not keyword:  # PyTorch's TypeError, even where () would fit
        raise TypeError(
            "view() received an invalid combination of arguments - got (), but expected one "
            "of:\n * (torch.dtype dtype)\n * (tuple of ints size)\n"
        )
    if keyword:
        shape = keyword_sizes("view", shape, keyword, "size")
    new = new_shape(input.shape, shape, "view")
    if not _viewable(input, new):
        raise RuntimeError(
            f"view size is not compatible with input tensor's size and stride (at least one "
            f"dimension spans across two contiguous subspaces). Use .reshape(...) instead.\n"
            f"(shape {list(input.shape)}, stride {list(input.stride())}, asked for {list(new)})"
        )
    return _VIEW(input, shape=new)


def _viewable(t: Tensor, shape: tuple) -> bool:
    """Whether ``t``'s memory can be seen in ``shape`` without copying."""
    a = t._data
    if type(t) is _batching.BatchedTensor:  # inside vmap: the whole batch's memory
        a, batch = _batching.storage(t)
        shape = batch + tuple(shape)
    return view_strides(a.shape, a.strides, tuple(shape)) is not None


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim`` to ``end_dim`` into one (one dim: ``input`` itself)."""
    if type(input) is not Tensor:
        require_tensor("flatten", "input", 1, input)
    s, e, shape = _wrap_dim(start_dim, input.ndim), _wrap_dim(end_dim, input.ndim), input.shape
    if input.ndim == 0:
        return reshape(input, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    merged = shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :]
    return input if s == e else reshape(input, merged)  # (PyTorch records no node for s == e)


def _transpose_forward(xp: Any, a: Any, dim0: int, dim1: int, saved_as: tuple = ()) -> Any:
    return xp.transpose(a, dim0, dim1)


def _transpose_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (xp.transpose(g, c.params["dim0"], c.params["dim1"]),)


_TRANSPOSE = Structural(
    "transpose", _transpose_forward, _transpose_vjp, jvp="linear", text=COPIES, batch="reduction"
)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions ``dim0`` and ``dim1``."""
    if type(input) is not Tensor:
        require_tensor("transpose", "input", 1, input)
    n = input.ndim
    dims = {"dim0": _wrap_dim(dim0, n), "dim1": _wrap_dim(dim1, n)}
    return _TRANSPOSE(input, **dims, saved_as=shown(dim0=dim0, dim1=dim1))


swapaxes = transpose


def _permute_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (xp.permute(g, tuple(np.argsort(c.params["dims"]))),)


_PERMUTE = Structural(
    "permute",
    lambda xp, a, dims, saved_as=(): xp.permute(a, dims),
    _permute_vjp,
    jvp="linear",
    text=COPIES,
    batch="reduction",
)


def permute(input: Tensor, *dims: Any, **keyword: Any) -> Tensor:
    """Reorder the dimensions."""
    if type(input) is not Tensor:
        require_tensor("permute", "input", 1, input)
    if not dims and not keyword:  # PyTorch's TypeError, even for a 0-d tensor
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    if keyword:
        dims = keyword_sizes("permute", dims, keyword, "dims")
    order = sizes(dims, "permute")
    n = input.ndim
    if len(order) != n:
        raise RuntimeError(
            f"permute(): the tensor has {n} dimensions but the order {list(order)} names "
            f"{len(order)}; give one dim per dimension"
        )
    wrapped = tuple(_wrap_dim(d, n) for d in order)
    if sorted(wrapped) != list(range(n)):
        raise RuntimeError(
            f"permute(): duplicate dims are not allowed.\n(dims {list(order)} must be a "
            f"permutation of the {n} dimensions)"
        )
    return _PERMUTE(input, dims=wrapped, saved_as=shown(dims=order))


def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """Move dimension ``source`` to position ``destination`` (or each of a sequence of
    dimensions to the matching position; the others keep their order).

    Examples
    --------
    >>> import symgrad
    >>> tuple(symgrad.zeros(2, 3, 4).movedim((0, 1), (-1, -2)).shape)
    (4, 3, 2)
    """
    n = input.ndim
    many = isinstance(source, (tuple, list)) or isinstance(destination, (tuple, list))
    sources = list(source) if isinstance(source, (tuple, list)) else [source]
    targets = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(sources) != len(targets):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({sources} dims) should "
            f"contain the same number of dims as destination ({targets} dims)"
        )
    sources = [_wrap_dim(d, n) for d in sources]
    targets = [_wrap_dim(d, n) for d in targets]
    for name, dims in (("source", sources), ("destination", targets)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    if n == 0:  # dim 0 (or -1) of a 0-d tensor moves nowhere: an alias, as in PyTorch
        return input[...]
    if not many:
        order = list(range(n))
        order.insert(targets[0], order.pop(sources[0]))
        return permute(input, order)
    rest = iter(d for d in range(n) if d not in sources)
    placed = dict(zip(targets, sources))
    return permute(input, [placed[i] if i in placed else next(rest) for i in range(n)])


_UNSQUEEZE = Structural(
    "unsqueeze",
    lambda xp, a, dim, saved_as=(): xp.unsqueeze(a, dim),
    lambda xp, g, c: (xp.squeeze(g, c.params["dim"]),),
    kernel=unsqueezed,
    jvp="linear",
    text=COPIES,
    batch="reduction",
)


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at ``dim``."""
    if type(input) is not Tensor:
        require_tensor("unsqueeze", "input", 1, input)
    return _UNSQUEEZE(input, dim=_wrap_dim(dim, input.ndim + 1), saved_as=shown(dim=dim))


def _squeeze_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # PyTorch's unsqueeze of each removed dim, in order (UnsqueezeBackward0 under create_graph)
    for d in sorted(c.params["dim"]):
        g = xp.unsqueeze(g, d)
    return (g,)


def _squeeze(backward: str) -> Structural:
    return Structural(
        "squeeze",
        lambda xp, a, dim, saved_as=(): xp.squeeze(a, dim),
        _squeeze_vjp,
        backward=backward,
        jvp="linear",
        text=COPIES,
        batch="reduction",
        numeric_vjp=reshaped_back,
    )


# PyTorch's names: every size-1 dim, one dim, a tuple of dims
_SQUEEZE_ALL, _SQUEEZE_DIM, _SQUEEZE_DIMS = (_squeeze(f"SqueezeBackward{k}") for k in range(3))


def squeeze(input: Tensor, dim: Any = OMITTED) -> Tensor:
    """Remove dimensions of size 1 (all of them, or those named in ``dim``)."""
    if type(input) is not Tensor:
        require_tensor("squeeze", "input", 1, input)
    n = input.ndim
    if dim is None:
        raise no_overload("squeeze", input, dim, none_given=True)
    if dim is OMITTED:
        dims = tuple(i for i, s in enumerate(input.shape) if s == 1)
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        wrapped = [_wrap_dim(d, n) for d in dims]
        distinct_dims(wrapped)
        # a 0-d tensor accepts dim 0 and -1 and has nothing to remove
        dims = tuple(i for i in wrapped if n and input.shape[i] == 1)
    if dim is OMITTED:
        return _SQUEEZE_ALL(input, dim=dims)
    prim = _SQUEEZE_DIMS if isinstance(dim, (tuple, list)) else _SQUEEZE_DIM
    return prim(input, dim=dims, saved_as=shown(dim=dim))


_FLIP = Structural(
    "flip",
    lambda xp, a, dims, saved_as=(): xp.flip(a, dims),
    lambda xp, g, c: (xp.flip(g, c.params["dims"]),),
    # a copy, not a view, as in PyTorch, laid out as the input
    kernel=lambda xp, a, dims, saved_as=(): np.flip(a, dims).copy(),
    jvp="linear",
    text=COPIES,
    batch="flip",
    like_input=True,
)


def flip(input: Tensor, dims: Any) -> Tensor:
    """Reverse the order of elements along ``dims``."""
    if type(input) is not Tensor:
        require_tensor("flip", "input", 1, input)
    if not isinstance(dims, (tuple, list)):  # (the method takes ints one by one)
        raise TypeError(
            "flip(): argument 'dims' (position 2) must be tuple of ints, not "
            f"{type(dims).__name__}: give the dims as a list, flip(x, [{dims!r}])"
        )
    wrapped = tuple(_wrap_dim(d, input.ndim) for d in dims)
    for d in set(wrapped):
        if wrapped.count(d) > 1:
            raise RuntimeError(
                f"flip(): dim {d} appears multiple times in the list of dims {list(dims)}"
            )
    # a 0-d tensor accepts dim 0 (or -1) and has nothing to reverse
    return _FLIP(input, dims=wrapped if input.ndim else (), saved_as=shown(dims=dims))
