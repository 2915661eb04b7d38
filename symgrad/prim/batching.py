"""Batching rules: how a primitive runs on a batch of inputs at once, for ``vmap``.

Inside ``vmap`` a mapped input is a :class:`BatchedTensor`: a *logical* tensor (the one the
mapped function sees, one element of the batch) held by a *physical* tensor whose dimension 0
runs over the batch. The function's Python code sees the logical shape; when it reaches a
primitive that declares a batching rule, the rule rewrites the call for the physical tensors
(an element-wise op aligns them, a reduction shifts its ``dim``, ``matmul`` lifts vectors to
matrices) and runs the primitive once on the whole batch, recording the graph on the physical
tensors as usual. A primitive without a rule runs once per element of the batch (and says so
once); reading a batched tensor's array raises :class:`Unbatchable`, and ``vmap`` then runs the
whole function once per element instead.

Levels: each running ``vmap`` has a level (1 for the outermost). A nested ``vmap`` wraps
batched tensors in batched tensors, the inner level outside, so the physical array of a
tensor batched at levels 1 and 2 has the batch of level 1 first; each level's rule calls the
primitive on the level below. :func:`unwrap_level` and :func:`wrap_level` move one level's
batch between the batched form and a plain leading dimension: the differentiating transforms
use them to run on the physical tensors, where a batch of gradients is one gradient.
"""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from symgrad import _tensor_text
from symgrad._data import Size
from symgrad.autograd.transforms_running import KINDS
from symgrad.tensor import Tensor

__all__ = [
    "BatchedTensor",
    "Unbatchable",
    "STATE",
    "batch_size",
    "is_batched",
    "broadcasting_op",
    "physical",
    "unwrap_level",
    "wrap_level",
    "storage",
    "on_storage",
    "on_values",
    "any_batched",
    "per_batch",
    "Refused",
    "refuse_dynamic_shape",
]


class Unbatchable(Exception):
    """An operation inside ``vmap`` that has no batching rule (the caller loops instead)."""


class Refused(RuntimeError):
    """An error of the mapped function that ``vmap`` reports as it is, instead of trying
    the per-element loop (PyTorch's refusals, such as batch norm's running statistics)."""


def refuse_dynamic_shape(op: str) -> None:
    """PyTorch's refusal of an op whose result's shape depends on each element's values."""
    raise Refused(
        "vmap: We do not support batching operators that can output dynamic shape. Attempted "
        f"to vmap over {op}. Please file an issue at https://github.com/pytorch/pytorch/issues "
        "if you need this feature."
    )


class _State:
    __slots__ = ("depth", "levels")

    def __init__(self) -> None:
        self.depth = 0
        self.levels: list = []  # each running vmap's level among all running transforms


STATE = _State()
_DATA = Tensor.__dict__["_data"]  # the slot of the physical array, bypassing the refusal


class _LogicalArray:
    """What a batched tensor shows as its array: the logical ``shape``, ``ndim``, ``size`` and
    ``dtype`` that op wrappers check; its values are refused (:class:`Unbatchable`)."""

    __slots__ = ("_physical",)

    def __init__(self, physical: Any) -> None:
        self._physical = physical

    @property
    def shape(self) -> tuple:
        return tuple(self._physical.shape)[1:]

    @property
    def ndim(self) -> int:
        return self._physical.ndim - 1

    @property
    def size(self) -> int:
        return Size(self.shape).numel()

    @property
    def dtype(self) -> Any:
        return _DATA.__get__(_innermost(self._physical)).dtype

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise Unbatchable("an operation read the values of a batched tensor")

    def __getattr__(self, name: str) -> Any:
        raise Unbatchable(f"an operation read the array attribute {name!r} of a batched tensor")


def storage(t: Any) -> tuple:
    """``(array, batch sizes)``: the array holding a tensor's values, and the sizes of the
    batch dimensions in front of its logical ones (none for a plain tensor)."""
    depth = 0
    while isinstance(t, BatchedTensor):
        t, depth = t._physical, depth + 1
    array = _DATA.__get__(t)
    return array, tuple(array.shape[:depth])


def on_storage(t: Any, fn: Any) -> Any:
    """``fn`` of the plain tensor holding a batched tensor's values (its batch dimensions in
    front, see :func:`storage`), whose results have the same batch dimensions in front: those
    results batched again as ``t`` is. For an op whose key is found from the values (max
    pooling), computed once for the whole batch."""
    if not isinstance(t, BatchedTensor):
        return fn(t)
    out = on_storage(t._physical, fn)
    if isinstance(out, tuple):
        return tuple(BatchedTensor(o, t._level) for o in out)
    return BatchedTensor(out, t._level)


def on_values(t: Any, fn: Any, dim: Any) -> Any:
    """A function of a batched tensor's values only (``any``, ``all``, ``count_nonzero``) on
    the whole batch at once: ``fn(array, axis)`` of the array holding the values, with
    ``axis`` the logical ``dim`` (an int, a tuple of them, or None for all) counted past the
    batch dimensions in front; the result keeps them in front and is batched again."""
    _, batch = storage(t)
    k, n = len(batch), t.ndim
    if dim is None:
        axis: Any = tuple(range(k, k + n))
    elif isinstance(dim, (tuple, list)):
        axis = tuple(k + d % max(n, 1) for d in dim)
    else:
        axis = k + dim % max(n, 1)
    return on_storage(t, lambda p: Tensor._make(np.asarray(fn(_DATA.__get__(p), axis))))


def _innermost(t: Any) -> Any:
    while isinstance(t, BatchedTensor):
        t = t._physical
    return t


def _refuse(self: Any) -> Any:
    return _LogicalArray(self._physical)


class BatchedTensor(Tensor):
    """One element of a batch, standing for ``physical[i]`` for every ``i`` at once.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import vmap
    >>> vmap(lambda x: (x * x).sum())(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([ 5., 25.])
    """

    __slots__ = ("_physical", "_level")

    _data = property(_refuse)  # type: ignore[assignment]

    def __init__(self, physical: Tensor, level: int) -> None:  # noqa: D107
        self._physical = physical
        self._level = level
        self._requires_grad = physical.requires_grad
        self.grad_fn = None
        self._output_nr = 0
        self._name = None
        self._origin = None
        self._fw = None

    @property
    def shape(self) -> Size:
        return Size(tuple(self._physical.shape)[1:])

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self) -> int:
        return self._physical.ndim - 1

    def dim(self) -> int:
        return self.ndim

    def numel(self) -> int:
        return self.shape.numel()

    @property
    def dtype(self) -> Any:
        return self._physical.dtype

    @property
    def requires_grad(self) -> bool:
        return self._physical.requires_grad

    def detach(self) -> BatchedTensor:
        """The batch cut from the graph."""
        return BatchedTensor(self._physical.detach(), self._level)

    # reading one element's value: PyTorch's refusals, never the per-element loop (a Python
    # number or branch taken from one element can't stand for the others)
    def item(self) -> Any:
        raise Refused(self._read_message(_ITEM))

    def __bool__(self) -> bool:
        raise Refused(self._read_message(_CONTROL_FLOW))

    def __float__(self) -> float:
        raise Refused(self._read_message(_ITEM))

    __int__ = __index__ = __complex__ = __float__  # type: ignore[assignment]

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:  # PyTorch formats a 0-d tensor as its item()
            raise Refused(self._read_message(_ITEM))
        return super().__format__(spec)

    def tolist(self) -> Any:
        raise Refused(_NO_STORAGE)

    def numpy(self, *, force: bool = False) -> Any:
        raise Refused(_NO_STORAGE)

    def _read_message(self, message: str) -> str:
        """PyTorch's message: under a differentiating transform running inside this tensor's
        ``vmap``, one naming every cause."""
        start = STATE.levels[self._level - 1] if self._level <= len(STATE.levels) else 0
        return _READ_UNDER_GRAD if "grad" in KINDS[start:] else message

    def __repr__(self) -> str:
        # PyTorch's text, with the levels of all running transforms (symgrad.func.printing)
        text = _tensor_text.TRANSFORM_TEXT[0] and _tensor_text.TRANSFORM_TEXT[0](self)
        if text:
            return text
        # the batch is always dim 0 of the physical tensor here
        value = textwrap.indent(repr(self._physical), " " * 4)
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{value}\n)"


_ITEM = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling "
    ".item() on a Tensor, please try to rewrite what you're doing with other operations. If "
    "error is occurring somewhere inside PyTorch internals, please file a bug report."
)
_CONTROL_FLOW = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. "
    "We don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues ."
)
_READ_UNDER_GRAD = (
    "vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting to use "
    "a Tensor in some data-dependent control flow or (3) encountering this error in PyTorch "
    "internals. For (1): we don't support vmap over calling .item() on a Tensor, please try to "
    "rewrite what you're doing with other operations. For (2): we don't support data-dependent "
    "control flow in vmap yet, please file an issue at "
    "https://github.com/pytorch/pytorch/issues . For (3): please file an issue."
)
_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"


def physical(t: Any, level: int) -> Any:
    """The physical tensor of a batched tensor of ``level`` (anything else as it is)."""
    if isinstance(t, BatchedTensor) and t._level == level:
        return t._physical
    return t


def unwrap_level(t: Any, level: int, size: int) -> Any:
    """``t`` with the batch of ``level`` as a plain leading dimension of its logical shape (the
    tensor as the levels below ``level`` see it); a tensor not batched at ``level`` is
    repeated ``size`` times."""
    if isinstance(t, BatchedTensor) and t._level >= level:
        if t._level == level:
            return t._physical
        inner = unwrap_level(t._physical, level, size)  # logical (size, t's batch, ...)
        return BatchedTensor(inner.transpose(0, 1), t._level)
    if not isinstance(t, Tensor):
        return t
    return t.unsqueeze(0).expand((size,) + tuple(t.shape))


def wrap_level(t: Any, level: int) -> Any:
    """The inverse of :func:`unwrap_level`: ``t``'s leading dimension becomes the batch of
    ``level`` (inside the batches of the levels above it)."""
    if isinstance(t, BatchedTensor) and t._level > level:
        return BatchedTensor(wrap_level(t._physical.transpose(0, 1), level), t._level)
    if not isinstance(t, Tensor):
        return t
    return BatchedTensor(t, level)


def _top_level(args: tuple) -> int | None:
    levels = [a._level for a in args if isinstance(a, BatchedTensor)]
    return max(levels) if levels else None


def batch_size(args: Any, level: int) -> int:
    """The batch size of ``level``, from the first of ``args`` batched there."""
    return next(a._physical.shape[0] for a in args if is_batched(a, level))


def is_batched(t: Any, level: int) -> bool:
    """Whether ``t`` is a batched tensor of ``level``."""
    return isinstance(t, BatchedTensor) and t._level == level


def broadcasting_op(fn: Any, args: tuple) -> Any:
    """``fn(*args)`` for a function that broadcasts element by element (a comparison), with
    some ``args`` batched: ``fn`` of the aligned physical operands, batched again."""
    level = _top_level(args)
    return BatchedTensor(fn(*_aligned(args, level)), level)


def _logical_ndim(a: Any, level: int) -> int:
    if isinstance(a, BatchedTensor) and a._level == level:
        return a._physical.ndim - 1
    return a.ndim if isinstance(a, Tensor) else 0


def _aligned(args: tuple, level: int) -> list:
    """Physical operands that broadcast as the logical ones do: a batched operand gets size-1
    dimensions after its batch dimension up to the result's number of dimensions."""
    n = max(_logical_ndim(a, level) for a in args)
    out = []
    for a in args:
        if isinstance(a, BatchedTensor) and a._level == level:
            p = a._physical
            k = p.ndim - 1
            if k < n:
                p = p.reshape((p.shape[0],) + (1,) * (n - k) + tuple(p.shape[1:]))
            out.append(p)
        else:
            out.append(a)
    return out


def any_batched(*args: Any) -> bool:
    """Whether some of ``args`` are batched tensors (only ever inside ``vmap``)."""
    if not STATE.depth:
        return False
    for a in args:
        if type(a) is BatchedTensor:
            return True
    return False


def per_batch(fn: Any, *args: Any) -> Any:
    """``fn`` called once on the top ``vmap`` level's physical tensors: each of ``args`` that
    is a tensor gets that level's batch as a leading dimension (one not batched there is
    repeated along it, as a view), and ``fn``, which counts its dimensions one further, gives
    results with the batch in front: those are batched again (a tuple or named tuple of them
    keeps its type). Lower levels stay batched, so ``fn``'s own ops batch them in turn."""
    level = _top_level(args)
    size = batch_size(args, level)
    return _rewrap(fn(*[unwrap_level(a, level, size) for a in args]), level)


def _rewrap(out: Any, level: int) -> Any:
    if isinstance(out, tuple):
        items = [_rewrap(o, level) for o in out]
        return type(out)(*items) if hasattr(out, "_fields") else tuple(items)
    return BatchedTensor(out, level) if isinstance(out, Tensor) else out
