"""The NumPy interpreter of the rule vocabulary (:mod:`symgrad.prim.vocab`): ``backward()``'s
fast path. The tensor interpreter (``create_graph``) and the SymPy one (closed forms) offer the
same words with the same meaning; a rule uses nothing else (besides Python operators).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.prim import linalg_kernels
from symgrad.prim.vocab import INTERPRETERS

__all__ = ["NP", "scatter_add", "HALF", "widen", "half_in_float32", "half_rule_in_float32"]

HALF = np.dtype(np.float16)
_FLOAT32 = np.dtype(np.float32)


def _basic_key(key: Any) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (int, slice)) for k in items)


def scatter_add(out: np.ndarray, dim: int, index: np.ndarray, g: Any) -> np.ndarray:
    """``out`` with ``g`` added along ``dim`` at ``index`` (the adjoint of ``NP.gather``)."""
    if index.size == 0:
        return out
    if out.ndim == 0 or index.ndim == 0:
        flat = out.reshape(-1)
        np.add.at(flat, index.reshape(-1), np.reshape(g, -1))
        return flat.reshape(out.shape)
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    np.add.at(out, tuple(grids), g)
    return out


def reduce_to(g: Any, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Sum a broadcast gradient back to ``shape`` and cast it to the input's dtype."""
    if not isinstance(g, np.ndarray):  # (a meta array is a subclass, kept)
        g = np.asarray(g)
    if g.shape != shape:
        g = sum_to_numpy(g, shape)
    if g.dtype != dtype:
        g = g.astype(dtype)
    return g


def widen(a: Any) -> Any:
    """A float16 array as float32, the items of a tuple, list or dict one by one, anything else
    as it is: PyTorch's CPU kernels compute float16 in float32 and round the result once."""
    if type(a) is np.ndarray:
        return a.astype(_FLOAT32) if a.dtype is HALF else a
    if type(a) is tuple or type(a) is list:
        return type(a)(widen(v) for v in a)
    if type(a) is dict:
        return _widen_values(a)
    return a


def _narrow(a: Any) -> Any:
    """A float32 result of float16 arrays (one, or a tuple of them) rounded back to float16."""
    if type(a) is tuple:
        return tuple(_narrow(v) for v in a)
    a = np.asarray(a)
    return a.astype(HALF) if a.dtype is _FLOAT32 else a


def half_in_float32(kernel: Callable, **marks: Any) -> Callable:
    """``kernel(xp, *arrays, **params)``, run in float32 when its first array is float16 (its
    other float16 arrays, and those among the parameters, widened too, and the ``marks`` added
    to the parameters), its result rounded to float16 once."""

    @functools.wraps(kernel)
    def run(xp: Any, a: Any, *rest: Any, **params: Any) -> Any:
        if type(a) is not np.ndarray or a.dtype is not HALF:
            return kernel(xp, a, *rest, **params)
        wide = {**_widen_values(params), **marks}
        return _narrow(kernel(xp, a.astype(_FLOAT32), *widen(rest), **wide))

    return run


def _widen_values(params: dict) -> dict:
    return {k: widen(v) for k, v in params.items()}


def half_rule_in_float32(rule: Callable, **marks: Any) -> Callable:
    """A VJP rule ``rule(xp, g, ctx)`` that, on NumPy and for a float16 gradient (or a tuple
    holding one), runs on the gradient, inputs, output and parameters widened to float32, the
    ``marks`` added to the parameters; whoever runs a rule casts each gradient to its input's
    dtype, so float16 inputs get float16 gradients."""

    @functools.wraps(rule)
    def run(xp: Any, g: Any, c: Any) -> Any:
        if xp is not NP or not _holds_half(g):
            return rule(xp, g, c)
        wide = copy.copy(c)
        wide.inputs, wide.out = widen(c.inputs), widen(c.out)
        wide.params = {**_widen_values(c.params), **marks}
        return rule(xp, widen(g), wide)

    run.half_only = True  # type: ignore[attr-defined]  # (the rule itself off float16)
    return run


def _holds_half(g: Any) -> bool:
    if type(g) is tuple:
        return any(_holds_half(v) for v in g)
    return type(g) is np.ndarray and g.dtype is HALF


def sum_to_numpy(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Reduce ``g`` to ``shape`` by summing the dimensions broadcasting added or stretched
    (float16 in float32, as PyTorch's sums)."""
    if g.shape == shape:
        return g
    if g.ndim < len(shape) or any(n != 1 and n != m for n, m in zip(shape[::-1], g.shape[::-1])):
        return np.array(np.broadcast_to(g, shape))
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1
    )
    if axes:
        g = _half_sum(g, axes, True) if g.dtype is HALF else g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def _half_sum(a: np.ndarray, dim: Any, keepdim: bool) -> np.ndarray:
    """The sum of a float16 array accumulated in float32, rounded once (NumPy's own float16
    sum rounds every partial sum along a dimension that is not the last)."""
    return np.asarray(a.sum(axis=dim, keepdims=keepdim, dtype=_FLOAT32)).astype(HALF)


def spread(a: np.ndarray, shape: tuple) -> np.ndarray:
    """The 0-d array ``a`` as a read-only array of ``shape`` whose every element is ``a``'s
    one value (``np.broadcast_to``'s result, at a third of its cost: the gradient of every
    sum and mean of a training step)."""
    view = np.ndarray(shape, a.dtype, buffer=a, strides=(0,) * len(shape))
    view.flags.writeable = False
    return view


class NP:
    """NumPy implementations of the rule vocabulary."""

    @staticmethod
    def sum(a: Any, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        # the method skips np.sum's Python-level dispatch, which costs more than a small sum
        if type(a) is np.ndarray:
            if a.dtype is HALF:
                return _half_sum(a, dim, keepdim)
            return np.asarray(a.sum(axis=dim, keepdims=keepdim))
        return np.asarray(np.sum(a, axis=dim, keepdims=keepdim))

    @staticmethod
    def mean(a: Any, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        """The mean over ``dim`` (every axis for None)."""
        count = a.size if dim is None else int(np.prod([a.shape[d] for d in dim]))
        return NP.sum(a, dim, keepdim) / count

    sum_to_size = staticmethod(sum_to_numpy)

    # the ndarray methods below skip the NumPy functions' Python-level dispatch, which costs
    # more than the work itself on the small arrays of a training step
    @staticmethod
    def reshape(a: Any, shape: tuple) -> np.ndarray:
        return a.reshape(shape) if type(a) is np.ndarray else np.reshape(a, shape)

    @staticmethod
    def expand(a: Any, shape: tuple) -> np.ndarray:
        if type(a) is np.ndarray and a.ndim == 0:
            return spread(a, shape)
        return np.broadcast_to(a, shape)

    @staticmethod
    def permute(a: Any, dims: tuple) -> np.ndarray:
        return a.transpose(dims) if type(a) is np.ndarray else np.transpose(a, dims)

    @staticmethod
    def transpose(a: Any, dim0: int, dim1: int) -> np.ndarray:
        if type(a) is np.ndarray and a.ndim:
            return a.swapaxes(dim0, dim1)
        a = np.asanyarray(a)
        return a[...] if a.ndim == 0 else np.swapaxes(a, dim0, dim1)  # (0-d: itself, a view)

    @staticmethod
    def unsqueeze(a: Any, dim: int) -> np.ndarray:
        a = np.asarray(a)
        d = dim % (a.ndim + 1)  # a reshape view: np.expand_dims's generality costs more
        return a.reshape(a.shape[:d] + (1,) + a.shape[d:])

    @staticmethod
    def squeeze(a: Any, dim: Any) -> np.ndarray:
        return np.squeeze(a, dim)

    matmul = staticmethod(np.matmul)
    det = staticmethod(linalg_kernels.det)
    inv = staticmethod(linalg_kernels.inv)
    solve = staticmethod(linalg_kernels.solve)
    adjugate = staticmethod(linalg_kernels.adjugate)
    matrix_exp = staticmethod(linalg_kernels.matrix_exp)
    where = staticmethod(np.where)
    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    sqrt = staticmethod(np.sqrt)
    abs = staticmethod(np.abs)

    @staticmethod
    def sign(a: Any) -> Any:
        """PyTorch's sign, as the tensor interpreter's: 0 for nan (NumPy's is nan)."""
        s = np.sign(a)
        return np.where(s == s, s, 0) if s.dtype.kind == "f" else s

    @staticmethod
    def sgn(a: Any) -> Any:
        """The sign as PyTorch's ``sgn`` (``SgnBackward0`` under create_graph)."""
        return NP.sign(a)

    @staticmethod
    def flip(a: Any, dims: tuple) -> np.ndarray:
        return np.flip(a, axis=dims)

    @staticmethod
    def cat(seq: list, dim: int) -> np.ndarray:
        return np.concatenate(seq, axis=dim)

    @staticmethod
    def cumsum(a: Any, dim: int) -> np.ndarray:
        # PyTorch's running sums accumulate float16 in float32, float32 in float64
        if type(a) is np.ndarray and a.dtype is HALF:
            return np.cumsum(a, axis=dim, dtype=_FLOAT32).astype(HALF)
        if type(a) is np.ndarray and a.dtype == _FLOAT32:
            return np.cumsum(a, axis=dim, dtype=np.float64).astype(_FLOAT32)
        return np.cumsum(a, axis=dim)

    @staticmethod
    def getitem(a: Any, key: Any) -> np.ndarray:
        return np.asarray(a[key])

    @staticmethod
    def index_put_zeros(
        shape: tuple, key: Any, g: Any, unique: bool = False, node: Any = None
    ) -> np.ndarray:
        """Zeros of ``shape`` with ``g`` added at ``key`` (repeated indices accumulate;
        ``unique`` promises there are none, so a plain assignment does; ``node`` names the
        node the tensor interpreter records, PyTorch's backward op of the indexing op)."""
        out = np.zeros(shape, dtype=np.asarray(g).dtype)
        if unique or _basic_key(key):  # (a basic key names each element once at most)
            out[key] = g  # copied in, as PyTorch's: a -0.0 keeps its sign
        else:
            np.add.at(out, key, g)
        return out

    @staticmethod
    def gather(a: Any, dim: int, index: np.ndarray) -> np.ndarray:
        """PyTorch's gather: the output has ``index``'s shape, which may be shorter than
        ``a``'s along the other dimensions (their leading entries are read); a 0-d ``a`` or
        ``index`` counts as 1-d."""
        a = np.asarray(a)
        if a.ndim == 0 or index.ndim == 0:
            return np.take(a.reshape(-1), index)
        if index.size == 0:
            return np.zeros(index.shape, dtype=a.dtype)
        a = a[tuple(slice(None) if d == dim else slice(n) for d, n in enumerate(index.shape))]
        return np.take_along_axis(a, index, axis=dim)

    @staticmethod
    def scatter_zeros(
        shape: tuple, dim: int, index: np.ndarray, g: Any, unique: bool = False
    ) -> np.ndarray:
        """Zeros of ``shape`` with ``g`` added along ``dim`` at ``index`` (gather's VJP;
        ``unique`` promises no position twice: PyTorch's scatter under create_graph)."""
        return scatter_add(np.zeros(shape, dtype=np.asarray(g).dtype), dim, index, g)

    @staticmethod
    def extremum(a: Any, dim: Any, keepdim: bool, pick: Any) -> np.ndarray:
        """The maximum (``pick`` is ``np.argmax``) or minimum over ``dim``."""
        reduce = np.max if pick is np.argmax else np.min
        return np.asarray(reduce(a, axis=dim, keepdims=keepdim))

    @staticmethod
    def masked_fill(a: Any, mask: Any, value: Any, node: Any = None) -> np.ndarray:
        """``value`` where ``mask``, ``a`` elsewhere (``where`` recorded as PyTorch's
        masked_fill under create_graph; ``node`` names the node the tensor interpreter
        records for a 0 ``value``, the op of PyTorch's formula: ``grad.scatter(dim, index,
        0)`` is ``ScatterBackward1``)."""
        return np.where(mask, value, a)

    @staticmethod
    def mul_scalar(a: Any, c: float) -> Any:
        """``a`` times the number ``c`` (PyTorch's mul.Scalar under create_graph)."""
        return a * c

    @staticmethod
    def div_scalar(a: Any, c: float) -> Any:
        """``a`` over the number ``c`` (PyTorch's div.Scalar under create_graph); float16 is
        divided in float32, as PyTorch's kernels divide it (NumPy would round ``c`` to float16
        first: 2049 to 2048)."""
        if type(a) is np.ndarray and a.dtype is HALF:
            return (a / np.float32(c)).astype(HALF)
        return a / c

    @staticmethod
    def eq(a: Any, b: Any) -> np.ndarray:
        return np.equal(a, b)

    @staticmethod
    def count(mask: Any, dim: Any = None, keepdim: bool = False) -> np.ndarray:
        """The number of True elements (a non-differentiable float count)."""
        return np.asarray(np.sum(mask, axis=dim, keepdims=keepdim), dtype=np.float64)

    @staticmethod
    def constant(a: np.ndarray) -> np.ndarray:
        """A non-differentiable array (a mask) in this namespace's representation."""
        return a

    @staticmethod
    def prod_others(a: np.ndarray, dim: Any) -> np.ndarray:
        """For each element, the product of the others in its reduction group (zeros too)."""
        if a.size == 0:  # no element: nothing to multiply (and no group to reshape by)
            return np.zeros_like(a)
        axes = tuple(range(a.ndim)) if dim is None else tuple(dim)
        rest = tuple(i for i in range(a.ndim) if i not in axes)
        moved = np.transpose(a, rest + axes)
        flat = moved.reshape(moved.shape[: len(rest)] + (-1,))
        ones = np.ones(flat.shape[:-1] + (1,), dtype=a.dtype)
        left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
        right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        others = (left * right).reshape(moved.shape)
        return np.transpose(others, np.argsort(rest + axes))

    @staticmethod
    def elementwise_vjp(
        prim: Any, i: int, args: tuple, out: Any, g: Any, params: tuple = ()
    ) -> np.ndarray:
        """``g * partial_i`` of an element-wise primitive (used by fused loss ops)."""
        return prim.vjp_kernel(i)(*args, out, g, *params)

    @staticmethod
    def elementwise(prim: Any, args: tuple, params: tuple = ()) -> np.ndarray:
        return prim.numeric(*args, *params)


INTERPRETERS.numpy = NP
