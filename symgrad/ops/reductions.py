"""Reductions: sums, means, products, extrema (variances: ``variance.py``, the softmax family:
``softmax_family.py``, norms: ``norms.py``, indices and truth values: ``arg_reductions.py``)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from symgrad import dtypes
from symgrad._arguments import (
    OMITTED,
    check_keepdim,
    no_overload,
    other_overload,
    require_tensor,
    require_tensor_input,
)
from symgrad._data import distinct_dims
from symgrad.ops.operand_checks import zero_count
from symgrad.ops.picking import _pick_forward, _pick_vjp, picked, picked_itself
from symgrad.ops.product_gradients import prod_gradient_with_zeros
from symgrad.ops.reduced_dtype import converted, kernel_dtype
from symgrad.ops.shown import shown, shown_dims
from symgrad.prim import batching as _batching
from symgrad.prim.numpy_xp import HALF
from symgrad.prim.structural import Structural
from symgrad.prim.text import reduction_text
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor, _wrap_dim

__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin"]


def _dims(input: Tensor, dim: Any) -> tuple[int, ...] | None:
    """``dim`` (None, an int or a tuple, negatives allowed) as sorted non-negative axes."""
    items = () if dim is None else dim if isinstance(dim, (tuple, list)) else (dim,)
    if not items:
        return None
    axes = tuple(sorted({_wrap_dim(d, input.ndim) for d in items}))
    if len(axes) != len(items):
        distinct_dims([_wrap_dim(d, input.ndim) for d in items])
    return axes if input.ndim else None


def _reduced_dims(input: Tensor, dim: Any) -> tuple[int, ...] | None:
    """The axes of a sum, mean or prod: None without ``dim`` (PyTorch's ...Backward0 node),
    a tuple when one is given (...Backward1), even one that names every axis or none, or
    is None (``x.sum(None)``, PyTorch's dim overload over every axis)."""
    if dim is OMITTED:
        return None
    if dim is None:
        return tuple(range(input.ndim))
    axes = _dims(input, dim)
    if axes is None:  # dim=[] reduces every axis; a 0-d tensor has none to reduce
        return tuple(range(input.ndim))
    return axes


def _overload(name: str) -> Any:
    """The node name of a reduction: ``{name}Backward1`` for a call with ``dim``."""
    return lambda params, inputs: f"{name}Backward{0 if params['dim'] is None else 1}"


def _keep(g: Any, c: Any, xp: Any) -> Any:
    """``g`` with the reduced dimensions put back as size 1, expanded to the input's shape."""
    shape, dim = c.shapes[0], c.params["dim"]
    if dim is not None and not c.params["keepdim"]:
        for d in sorted(dim):  # (PyTorch's unsqueeze nodes under create_graph)
            g = xp.unsqueeze(g, d)
    # (the whole reduction's gradient is 0-d, or all ones with keepdim: it expands as it is)
    return xp.expand(g, shape)


def _unsqueezed(a: Any, c: Any, xp: Any) -> Any:
    """``a`` with the reduced dimensions put back as size 1, not expanded: the products that
    use it broadcast it, as PyTorch's formulas do (``unsqueeze_multiple``)."""
    dim = c.params["dim"]
    if dim is not None and not c.params["keepdim"]:
        for d in sorted(dim):
            a = xp.unsqueeze(a, d)
    return a


def _count(shape: tuple, dim: Any) -> int:
    return math.prod(shape if dim is None else [shape[i] for i in dim])


# -- sum and mean ----------------------------------------------------------------------------------
_SUM = Structural(
    "sum",
    lambda xp, a, dim, keepdim, dtype=None, saved_as=(): xp.sum(
        converted(xp, a, dtype), dim, keepdim
    ),
    lambda xp, g, c: (_keep(g, c, xp),),
    backward=_overload("Sum"),
    jvp="linear",
    text=reduction_text("sum"),
    batch="reduction",
    rows=True,
)


def sum(input: Tensor, dim: Any = OMITTED, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum of all elements, or over ``dim`` (an int or a tuple).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2, 3).sum(dim=1)
    tensor([3., 3.])
    """
    if type(input) is not Tensor:
        require_tensor("sum", "input", 1, input)
    check_keepdim("sum", dim, keepdim)
    return total(input, dim, keepdim, None if dtype is None else dtypes.as_dtype(dtype, "sum"))


def total(input: Tensor, dim: Any = OMITTED, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """:func:`sum` without its argument checks, also the whole sum with ``keepdim`` (the rules'
    ``xp.sum``, recorded as PyTorch's backward formulas record it: ``SumBackward0``)."""
    dims, keepdim = _reduced_dims(input, dim), bool(keepdim)
    converts = None if dtype is None else kernel_dtype(input, dtype)
    if converts is not None:  # converted by the node itself
        return _SUM(input, dim=dims, keepdim=keepdim, dtype=converts, **shown_dims(dim))
    if dtype is not None:
        input = input.to(dtype)
    elif input.dtype.category < 2:  # PyTorch sums bool and integer tensors as int64
        input = input.to(dtypes.int64)
    return _in_dtype(_SUM(input, dim=dims, keepdim=keepdim, **shown_dims(dim)), input)


def _in_dtype(out: Tensor, input: Tensor) -> Tensor:
    """``out`` in ``input``'s dtype: NumPy sums small integers (and bools) as int64, PyTorch
    in the dtype asked for (``sum(dtype=torch.int32)``)."""
    return out if out.dtype == input.dtype else out.to(input.dtype)


def _mean_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (xp.div_scalar(_keep(g, c, xp), _count(c.shapes[0], c.params["dim"])),)


def _mean_kernel(xp: Any, a: Any, dim: Any, keepdim: bool, dtype: Any = None, saved_as=()) -> Any:
    a = converted(xp, a, dtype)
    if type(a) is np.ndarray and a.dtype is HALF:  # the float32 sum divided before rounding
        total = np.sum(a, axis=dim, keepdims=keepdim, dtype=np.float32)
        return np.asarray(total / np.float32(_count(a.shape, dim))).astype(HALF)
    return xp.sum(a, dim, keepdim) / _count(a.shape, dim)


_MEAN = Structural(
    "mean",
    lambda xp, a, dim, keepdim, dtype=None, saved_as=(): (
        xp.sum(converted(xp, a, dtype), dim, keepdim) / _count(a.shape, dim)
    ),
    _mean_vjp,
    kernel=_mean_kernel,
    backward=_overload("Mean"),
    jvp="linear",
    text=reduction_text("mean"),
    batch="reduction",
    rows=True,
)


def mean(input: Tensor, dim: Any = OMITTED, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of all elements, or over ``dim``."""
    if type(input) is not Tensor:
        require_tensor("mean", "input", 1, input)
    check_keepdim("mean", dim, keepdim)
    target = input.dtype if dtype is None else dtypes.as_dtype(dtype, "mean")
    if not target.is_floating_point:
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(
            f"mean(): could not infer output dtype. {which} dtype must be either a floating "
            f"point or complex dtype. Got: {target.scalar_type}"
        )
    dims, keepdim, shows = _reduced_dims(input, dim), bool(keepdim), shown_dims(dim)
    if input.dtype.is_floating_point:  # a dtype= converted by the node itself
        out = _MEAN(input, dim=dims, keepdim=keepdim, dtype=kernel_dtype(input, target), **shows)
    else:
        out = _MEAN(input.to(target), dim=dims, keepdim=keepdim, **shows)
    return out if out._data.dtype == target.numpy else out.to(target)


def _prod_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # (PyTorch's self.to(grad.scalar_type()): with dtype=, in the result's dtype)
    x = converted(xp, c.inputs[0], c.params.get("dtype"))
    shape, dim = c.shapes[0], c.params["dim"]
    zeros = zero_count(x)
    if shape and zeros and xp is INTERPRETERS.tensor and not _batching.any_batched(g, x):
        # (create_graph with a zero: PyTorch's prod_safe_zeros_backward, as it records it)
        return (prod_gradient_with_zeros(_unsqueezed(g, c, xp), x, dim),)
    # PyTorch's gradient of a product of single elements is g itself, with no graph back to
    # x, for a 0-d x and for an x holding a zero (the product of the others is 1 either way)
    if not shape or (_count(shape, dim) == 1 and zeros):
        return (_keep(g, c, xp),)
    # PyTorch's rule: without zeros the product over each element (nan for an infinite
    # element, 0 where the product underflowed); with two or more zeros in a whole product,
    # zeros unless a graph is recorded; otherwise the exact product of the others
    if zeros == 0:
        return (_unsqueezed(g, c, xp) * (_unsqueezed(c.out, c, xp) / x),)
    if zeros is not None and zeros > 1 and dim is None and xp is INTERPRETERS.numpy:
        return (np.zeros(shape, dtype=x.dtype),)
    return (_keep(g, c, xp) * xp.prod_others(x, dim),)


_PROD = Structural(
    "prod",
    lambda xp, a, dim, keepdim, dtype=None: np.prod(
        converted(xp, a, dtype), axis=dim, keepdims=keepdim
    ),
    _prod_vjp,
    saves=(0,),
    saves_out=True,
    backward=_overload("Prod"),
    batch="reduction",
    rows=True,
    shows=True,
)


def prod(input: Tensor, dim: Any = OMITTED, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The product of all elements, or along ``dim`` (exact gradients with zeros too)."""
    # PyTorch takes no dim, or one int: neither None nor a tuple
    if dim is None or (dim is not OMITTED and not hasattr(type(dim), "__index__")):
        raise no_overload("prod", input, dim, none_given=True)
    if type(input) is not Tensor:
        require_tensor("prod", "input", 1, input)
    check_keepdim("prod", dim, keepdim)
    dims, keepdim = _reduced_dims(input, dim), bool(keepdim)
    shows = {} if dim is OMITTED else {"saved_as": shown(dim=dim)}
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype, "prod")
        converts = kernel_dtype(input, dtype)
        if converts is not None:  # converted by the node itself
            return _PROD(input, dim=dims, keepdim=keepdim, dtype=converts, **shows)
        input = input.to(dtype)
    elif input.dtype.category < 2:  # as sum: bool and integer products are int64
        input = input.to(dtypes.int64)
    return _in_dtype(_PROD(input, dim=dims, keepdim=keepdim, **shows), input)


# -- extrema ---------------------------------------------------------------------------------------
def _extremum_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """amax's and amin's rule, PyTorch's ``scale_grad_by_count``: the gradient (viewed with
    the reduced dimensions as size 1) over the count of extrema, times the mask, so ties
    share it evenly, and elsewhere ``g * 0`` (``-0`` for a negative gradient, nan for an
    infinite one; nan everywhere when the extremum is nan, which no element equals)."""
    mask, count = _extremum_mask(xp, c, False)
    if not c.params["keepdim"]:
        g = xp.reshape(g, tuple(count.shape))
    return ((g / count) * (mask * 1),)  # (the mask as numbers: SymPy multiplies no bools)


def _distributed_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """Full max's and min's rule, PyTorch's ``evenly_distribute_backward``: zeros with the
    gradient over the count filled in where the elements equal the result, or at the nans
    when it is nan; ``+0`` elsewhere."""
    mask = _extremum_mask(xp, c, True)[0]
    dtype = g._data.dtype if isinstance(g, Tensor) else None  # (the tensor's own dtype)
    zeros = xp.constant(np.zeros(c.shapes[0], dtype=dtype))
    return (xp.masked_fill(zeros, mask, g / xp.count(mask)),)


def _extremum_mask(xp: Any, c: Any, nans: bool) -> tuple:
    """The elements equal to their extremum (with ``nans``: the nan elements where it is
    nan), and their count per reduced group, kept as size-1 dimensions."""
    x, out = c.inputs[0], c.out
    dim, keepdim = c.params["dim"], c.params["keepdim"]
    if not keepdim and dim is not None:
        out = xp.reshape(out, tuple(1 if i in dim else n for i, n in enumerate(c.shapes[0])))
    mask = xp.eq(x, out)
    if nans:
        mask = mask | (~xp.eq(x, x) & ~xp.eq(out, out))
    return mask, xp.count(mask, dim, True)


def _extremum(name: str, reduce: Any, pick: Any, backward: str, vjp: Any) -> Structural:
    return Structural(
        name,
        lambda xp, a, dim, keepdim: xp.extremum(a, dim, keepdim, pick),
        vjp,
        saves=(0,),
        saves_out=True,
        backward=backward,
        kernel=lambda xp, a, dim, keepdim: np.asarray(reduce(a, axis=dim, keepdims=keepdim)),
        batch="reduction",
        rows=True,
        shows=True,
    )


_AMAX = _extremum("amax", np.max, np.argmax, "AmaxBackward0", _extremum_vjp)
_AMIN = _extremum("amin", np.min, np.argmin, "AminBackward0", _extremum_vjp)
_MAX_ALL = _extremum("max", np.max, np.argmax, "MaxBackward1", _distributed_vjp)
_MIN_ALL = _extremum("min", np.min, np.argmin, "MinBackward1", _distributed_vjp)


def _check_nonempty(input: Tensor, op: str, dim: Any, error: type = RuntimeError) -> None:
    """PyTorch's errors for an extremum with nothing to pick from: ``error`` (RuntimeError for
    max, min, amax, amin; IndexError for argmax, argmin) for an empty tensor without ``dim``,
    IndexError for an empty dimension among ``dim``. Reducing a non-empty dimension of an
    empty tensor is fine: the result is empty too."""
    if input.numel() == 0:
        if dim is None or (isinstance(dim, (tuple, list)) and not dim):
            raise error(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        empty = _empty_dim(input, dim)
        if empty is not None:
            raise IndexError(
                f"{op}(): Expected reduction dim {empty} to have non-zero size (the input's "
                f"shape is {list(input.shape)}): an empty dimension has no element to pick"
            )


def _empty_dim(input: Tensor, dim: Any) -> int | None:
    """The first of the dimensions ``dim`` (an int or a sequence) that has size 0, if any."""
    for d in dim if isinstance(dim, (tuple, list)) else (dim,):
        d = _wrap_dim(d, input.ndim)
        if input.ndim and input.shape[d] == 0:
            return d
    return None


def _refuse_limited(input: Tensor, kernel: str) -> None:
    """PyTorch has no ordering kernels for uint16, uint32, uint64."""
    if input.dtype in dtypes.LIMITED:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{input.dtype.scalar_type}'; convert the tensor "
            "with .long() first"
        )


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The maximum over ``dim`` (all dims by default); ties share the gradient."""
    if type(input) is not Tensor:
        require_tensor("amax", "input", 1, input)
    _refuse_limited(input, "max_values_cpu")
    _check_nonempty(input, "amax", dim)
    dims, keepdim = _dims(input, dim), bool(keepdim)
    return _AMAX(input, dim=dims, keepdim=keepdim, **shown_dims(dim))


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The minimum over ``dim`` (all dims by default); ties share the gradient."""
    if type(input) is not Tensor:
        require_tensor("amin", "input", 1, input)
    _refuse_limited(input, "min_values_cpu")
    _check_nonempty(input, "amin", dim)
    dims, keepdim = _dims(input, dim), bool(keepdim)
    return _AMIN(input, dim=dims, keepdim=keepdim, **shown_dims(dim))


class MaxMin(NamedTuple):
    """``(values, indices)``, as ``torch.max(x, dim)`` returns (printed as PyTorch prints it,
    ``symgrad.return_types.max(values=..., indices=...)``)."""

    values: Tensor
    indices: Tensor

    def __repr__(self) -> str:
        op = type(self).op
        return f"symgrad.return_types.{op}(\nvalues={self.values!r},\nindices={self.indices!r})"


class _Max(MaxMin):
    __slots__ = ()
    op = "max"


class _Min(MaxMin):
    __slots__ = ()
    op = "min"


# max(x, dim) and min(x, dim): the gradient goes to the one element picked (not shared by ties)
_MAX_DIM = Structural("max", _pick_forward, _pick_vjp, backward="MaxBackward0")
_MIN_DIM = Structural("min", _pick_forward, _pick_vjp, backward="MinBackward0")


def _select_along(input: Tensor, dim: int, keepdim: bool, arg: Any, given: Any = None) -> MaxMin:
    if input.ndim == 0 and not _batching.any_batched(input):  # its own maximum
        return (_Max if arg is np.argmax else _Min)(*picked_itself(_select_prim(arg), input))
    if input.ndim == 0:  # along its one (implied) dimension
        input, keepdim = input.reshape(1), False
    if _batching.any_batched(input):  # inside vmap: the whole batch's extrema at once
        return _batching.per_batch(lambda p: _select_along(p, dim + 1, keepdim, arg), input)

    def find(a: np.ndarray) -> np.ndarray:
        return np.expand_dims(arg(a, axis=dim), dim).astype(np.int64)

    result = _Max if arg is np.argmax else _Min
    return result(*picked(_select_prim(arg), input, dim, bool(keepdim), find, given))


def _select_prim(arg: Any) -> Structural:
    return _MAX_DIM if arg is np.argmax else _MIN_DIM


def max(input: Tensor, dim: Any = OMITTED, keepdim: bool = False, *, other: Any = OMITTED) -> Any:
    """The maximum element, ``(values, indices)`` along ``dim``, or ``maximum(input, other)``
    when ``dim`` is a tensor."""
    dim = dim if other is OMITTED else other_overload("max", dim, keepdim, other)
    check_keepdim("max", dim, keepdim)
    if dim is OMITTED:
        dim = None
    elif dim is None:
        raise no_overload("max", input, dim, none_given=True)
    if type(input) is not Tensor:
        require_tensor_input("max", input, dim)
    if isinstance(dim, Tensor):
        from symgrad.ops.math import maximum

        return maximum(input, dim)
    _refuse_limited(input, "max_all" if dim is None else "max_cpu")
    d = None if dim is None else _wrap_dim(dim, input.ndim)  # (a dim that is no int first)
    _check_nonempty(input, "max", dim)
    if d is None:
        return _MAX_ALL(input, dim=None, keepdim=False)
    return _select_along(input, d, keepdim, np.argmax, dim)


def min(input: Tensor, dim: Any = OMITTED, keepdim: bool = False, *, other: Any = OMITTED) -> Any:
    """The minimum element, ``(values, indices)`` along ``dim``, or ``minimum(input, other)``."""
    dim = dim if other is OMITTED else other_overload("min", dim, keepdim, other)
    check_keepdim("min", dim, keepdim)
    if dim is OMITTED:
        dim = None
    elif dim is None:
        raise no_overload("min", input, dim, none_given=True)
    if type(input) is not Tensor:
        require_tensor_input("min", input, dim)
    if isinstance(dim, Tensor):
        from symgrad.ops.math import minimum

        return minimum(input, dim)
    _refuse_limited(input, "min_all" if dim is None else "min_cpu")
    d = None if dim is None else _wrap_dim(dim, input.ndim)  # (a dim that is no int first)
    _check_nonempty(input, "min", dim)
    if d is None:
        return _MIN_ALL(input, dim=None, keepdim=False)
    return _select_along(input, d, keepdim, np.argmin, dim)
