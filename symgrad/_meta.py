"""The ``meta`` device: tensors that have a shape and a dtype but no values.

A meta tensor's array is a :class:`MetaArray`, a read-only array over zero pages that are
mapped but never committed (see :class:`_ZeroPages`): it costs no memory whatever its shape,
and has PyTorch's strides, so views, ``stride()`` and ``is_contiguous()`` (and with them the
``grad_fn`` names that depend on them) come out as for a CPU tensor. Where no such mapping can
be made it is a zero-stride view of one nan (zero for integers) instead.

Computing on meta arrays gives meta arrays of the result's shape and dtype, as PyTorch's meta
kernels do, and never a number:

- an element-wise ufunc runs once on zero-dimensional stand-ins, for the result's dtype, and
  its shape is the broadcast of the inputs' shapes (no work proportional to the size);
- ``matmul``'s shape comes from the shapes alone, reductions run on stand-ins shrunk along the
  reduced axes;
- any other NumPy function runs on the placeholder zeros, and its result is wrapped as a meta
  array again (the values computed are dropped);
- writes into a meta array (``out=``, item assignment, ``fill``, ``copyto``) change nothing;
- reading a value (``item``, ``float``, ``bool``, ``tolist``) raises PyTorch's errors, and so
  do functions whose result's shape depends on the values (``nonzero``, ``unique``, boolean
  masks that are meta themselves).

That is the first line of defence. The second is the op layer: kernels that convert their
inputs with ``np.asarray`` see the placeholder's plain zeros, so every primitive with a meta
input wraps its result as meta (:func:`meta_result`; ``Structural.record``, the element-wise
``Application``, factorizations) and every backward rule reached by a meta gradient is
skipped for meta gradients of the inputs' shapes (``meta_gradients``). A meta tensor meeting a
CPU tensor raises PyTorch's error there (:func:`check_devices`).
"""

from __future__ import annotations

import math
import mmap
import operator
import threading
from typing import Any

import numpy as np

from symgrad import _layout as layout

__all__ = [
    "SEEN",
    "MetaArray",
    "meta_array",
    "NO_DATA",
    "ITEM",
    "is_meta",
    "meta_result",
    "check_devices",
    "stand_in",
]

NO_DATA = "Cannot copy out of meta tensor; no data!"
ITEM = "Tensor.item() cannot be called on meta tensors"
_DATA_DEPENDENT = (
    "{name}: the shape of the result depends on the values, which a meta tensor does not "
    "have; compute on CPU tensors instead"
)
# NumPy functions that only look at or rearrange a meta array's shape: NumPy's own answer
_SHAPE_ONLY = frozenset(
    getattr(np, n)
    for n in (
        "shape",
        "ndim",
        "size",
        "broadcast_to",
        "reshape",
        "transpose",
        "moveaxis",
        "swapaxes",
        "expand_dims",
        "squeeze",
        "result_type",
        "may_share_memory",
        "shares_memory",
        "broadcast_arrays",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
        "iscomplexobj",
        "isrealobj",
    )
)
# functions whose result's shape (or whole answer) depends on the values
_DATA_FUNCTIONS = frozenset(
    getattr(np, n)
    for n in (
        "nonzero",
        "argwhere",
        "flatnonzero",
        "unique",
        "unique_values",
        "unique_counts",
        "unique_inverse",
        "unique_all",
        "extract",
        "bincount",
        "histogram",
        "array_equal",
        "array_equiv",
        "allclose",
    )
    if hasattr(np, n)
)


class _Seen:
    """Whether this process has made a meta array yet: until it has, no op need look for one
    among its inputs (a test on every op's path)."""

    __slots__ = ("any",)

    def __init__(self) -> None:
        self.any = False


SEEN = _Seen()


class MetaArray(np.ndarray):
    """A read-only array standing for values that do not exist: NumPy functions of it give
    meta arrays, reading a value raises."""

    def __array_finalize__(self, obj: Any) -> None:
        SEEN.any = True  # (NumPy calls this for every meta array made, views too)

    # -- computing: results are meta arrays of NumPy's shape and dtype ----------------------
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        out = kwargs.pop("out", None)
        with np.errstate(all="ignore"):
            if out is not None and not all(isinstance(o, MetaArray) for o in out):
                # a plain array written into: a kernel's temporary (the op wraps the result)
                return getattr(ufunc, method)(*_plain(inputs), out=_plain(out), **_plain(kwargs))
            if method == "__call__" and ufunc.signature is None:
                result = _elementwise(ufunc, inputs, kwargs)
            elif method == "__call__" and ufunc is np.matmul:
                result = _matmul(inputs, kwargs)
            elif method == "reduce":
                result = _reduce(ufunc, inputs, kwargs)
            elif method == "at":
                if not isinstance(inputs[0], MetaArray):
                    getattr(ufunc, method)(*_plain(inputs), **kwargs)
                return None
            else:
                result = _wrap(getattr(ufunc, method)(*_plain(inputs), **_plain(kwargs)))
        if out is not None:
            return out[0] if len(out) == 1 else out
        return result

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in _SHAPE_ONLY:  # views of a meta array are meta arrays
            return _as_meta_views(super().__array_function__(func, types, args, kwargs))
        if func in _DATA_FUNCTIONS:
            raise NotImplementedError(_DATA_DEPENDENT.format(name=func.__name__))
        if func is np.copyto:
            return None if isinstance(args[0], MetaArray) else func(*_plain(args), **kwargs)
        with np.errstate(all="ignore"):
            result = func(*_plain(args), **_plain(kwargs))
        return _wrap(result, func.__name__)

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: bool = False) -> Any:
        return meta_array(np.shape(array), array.dtype)

    def __getitem__(self, key: Any) -> Any:
        for k in key if isinstance(key, tuple) else (key,):
            if isinstance(k, MetaArray) and k.dtype == bool:
                raise NotImplementedError(_DATA_DEPENDENT.format(name="indexing with a mask"))
        result = super().__getitem__(_plain(key))
        if not isinstance(result, np.ndarray) or not _is_view(result):
            return meta_array(np.shape(result), result.dtype)
        return result

    def __setitem__(self, key: Any, value: Any) -> None:
        return None  # a meta tensor's values do not exist: writing them changes nothing

    def fill(self, value: Any) -> None:
        return None

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> MetaArray:
        return meta_array(self.shape, dtype)

    def copy(self, order: str = "C") -> MetaArray:
        # "K" keeps the memory order, as PyTorch's clone (preserve_format) does
        strides = layout.output_strides((self,), self.shape) if order == "K" else None
        return meta_array(self.shape, self.dtype, strides)

    __copy__ = copy

    def __deepcopy__(self, memo: Any) -> MetaArray:
        return meta_array(self.shape, self.dtype)

    def __reduce__(self) -> Any:
        return (meta_array, (self.shape, self.dtype))

    def flatten(self, order: str = "C") -> MetaArray:
        return meta_array((self.size,), self.dtype)

    def argmax(self, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        return _reduce_like(self, axis, keepdims, np.intp)

    def argmin(self, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        return _reduce_like(self, axis, keepdims, np.intp)

    def nonzero(self) -> Any:
        raise NotImplementedError(_DATA_DEPENDENT.format(name="nonzero"))

    def dot(self, other: Any, out: Any = None) -> Any:
        return np.dot(self, other)

    # -- reading values: PyTorch's errors ---------------------------------------------------
    def item(self, *args: Any) -> Any:
        if self.size != 1:
            raise RuntimeError(f"a Tensor with {self.size} elements cannot be converted to Scalar")
        raise RuntimeError(ITEM)

    def tolist(self) -> Any:
        raise NotImplementedError(NO_DATA)

    def tobytes(self, order: str = "C") -> bytes:
        raise NotImplementedError(NO_DATA)

    def __bool__(self) -> bool:
        if self.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self.size} values is ambiguous")
        raise RuntimeError(ITEM)

    def __float__(self) -> float:
        return self.item()

    __int__ = __complex__ = __index__ = __float__


class _ZeroPages:
    """Slices of one large read-only mapping of zero pages: an array over them has PyTorch's
    row-major strides, so views, ``stride()`` and ``is_contiguous()`` answer as for a CPU
    tensor, yet no memory is committed (reading maps the one shared zero page). Each array
    gets its own slice, so distinct meta tensors never seem to share memory."""

    CHUNK = 1 << 36  # address space, not memory

    def __init__(self) -> None:
        self.pages: np.ndarray | None = None
        self.used = 0
        self.failed = False
        self.lock = threading.Lock()

    def take(self, nbytes: int) -> np.ndarray | None:
        with self.lock:  # slices never overlap, whichever threads ask
            return None if self.failed else self._take(nbytes)

    def _take(self, nbytes: int) -> np.ndarray | None:
        if self.pages is None or self.used + nbytes > self.pages.size:
            try:
                size = max(self.CHUNK, nbytes)
                mapped = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
            except (OSError, ValueError, AttributeError, OverflowError):
                self.failed = True  # (no such mapping here: zero-stride arrays instead)
                return None
            self.pages, self.used = np.frombuffer(mapped, np.uint8), 0
        start = self.used
        self.used += -(-max(nbytes, 1) // 64) * 64
        return self.pages[start : start + nbytes]


_ZERO_PAGES = _ZeroPages()


def meta_array(shape: Any, dtype: Any, strides: tuple | None = None) -> MetaArray:
    """A meta array of ``shape`` and ``dtype`` (no memory committed), laid out with
    ``strides`` (in elements, over ``prod(shape)`` elements) or contiguous."""
    shape, dtype = tuple(int(n) for n in shape), np.dtype(dtype)
    size = math.prod(shape)
    pages = _ZERO_PAGES.take(size * dtype.itemsize) if size else None
    if pages is not None and strides is not None:
        byte_strides = tuple(s * dtype.itemsize for s in strides)
        flat = pages.view(dtype)
        return np.lib.stride_tricks.as_strided(flat, shape, byte_strides, writeable=False).view(
            MetaArray
        )
    if pages is not None:
        return pages.view(dtype).reshape(shape).view(MetaArray)
    if not size:
        return np.empty(shape, dtype).view(MetaArray)
    # a floating placeholder that leaks into a computation shows nan, never a plausible value
    fill = np.full((), np.nan if dtype.kind in "fc" else 0, dtype)
    return np.broadcast_to(fill, shape).view(MetaArray)


def is_meta(data: Any) -> bool:
    """Whether ``data`` (an array) stands for a meta tensor's values."""
    return isinstance(data, MetaArray)


def meta_result(out: Any) -> Any:
    """``out``, the result of an op with a meta input, as meta arrays (a tuple stays one)."""
    if isinstance(out, MetaArray):
        return out
    if isinstance(out, (tuple, list)):
        return type(out)(meta_result(o) for o in out)
    if out is None:
        return None
    return meta_array(np.shape(out), np.asarray(out).dtype)


def stand_in(data: Any) -> Any:
    """The values to derive an op's parameters from (an index, the ties of a median): a meta
    array's placeholder zeros as a plain array. Only the shapes of what is derived matter: the
    op's result on a meta tensor is meta, and its backward runs no rule."""
    return data.view(np.ndarray) if isinstance(data, MetaArray) else data


def check_devices(tensors: Any) -> bool:
    """Whether any of ``tensors`` is a meta tensor; PyTorch's RuntimeError when meta and CPU
    tensors meet (a CPU tensor of zero dimensions counts as a number, as in PyTorch)."""
    first = None
    meta = False
    for t in tensors:
        data = getattr(t, "_data", None)
        if not isinstance(data, np.ndarray):
            continue
        here = isinstance(data, MetaArray)
        if not here and data.ndim == 0:
            continue
        if first is None:
            first = here
        elif here != first:
            expected, other = ("meta", "cpu") if first else ("cpu", "meta")
            raise RuntimeError(
                f"Tensor on device {other} is not on the expected device {expected}!"
            )
        meta = meta or here
    return meta


# -- the rules ----------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """``value`` with its meta arrays seen as plain arrays (their placeholder values)."""
    if isinstance(value, MetaArray):
        return value.view(np.ndarray)
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _wrap(result: Any, name: str = "this function") -> Any:
    """``result`` of a NumPy function on placeholder values, as meta arrays."""
    if isinstance(result, (np.ndarray, np.generic)):
        return meta_array(np.shape(result), result.dtype)
    if isinstance(result, tuple):
        return tuple(_wrap(r, name) for r in result)
    if isinstance(result, list):
        return [_wrap(r, name) for r in result]
    if isinstance(result, (bool, int, float, complex)):
        raise NotImplementedError(_DATA_DEPENDENT.format(name=name))
    return result


def _as_meta_views(result: Any) -> Any:
    if isinstance(result, np.ndarray) and not isinstance(result, MetaArray):
        return result.view(MetaArray)
    if isinstance(result, (tuple, list)):
        return type(result)(_as_meta_views(r) for r in result)
    return result


def _is_view(array: np.ndarray) -> bool:
    return array.base is not None and not array.flags.writeable


def _stand_in(x: Any) -> Any:
    """A zero-dimensional array of ``x``'s dtype (numbers stay numbers: they promote weakly)."""
    if isinstance(x, np.ndarray):
        return np.zeros((), x.dtype)
    return x


def _elementwise(ufunc: Any, inputs: tuple, kwargs: dict) -> Any:
    shapes = [np.shape(x) for x in inputs]
    where = kwargs.pop("where", True)
    if where is not True:
        shapes.append(np.shape(where))
    shape = np.broadcast_shapes(*shapes)
    result = ufunc(*(_stand_in(x) for x in inputs), **kwargs)
    strides = layout.output_strides(inputs, shape)
    if isinstance(result, tuple):
        return tuple(meta_array(shape, np.result_type(r), strides) for r in result)
    return meta_array(shape, np.result_type(result), strides)


def _matmul(inputs: tuple, kwargs: dict) -> Any:
    """``matmul``'s result from the shapes alone (no work, no memory)."""
    a, b = inputs
    a_shape, b_shape = np.shape(a), np.shape(b)
    if not a_shape or not b_shape or a_shape[-1] != b_shape[-1 if len(b_shape) == 1 else -2]:
        # NumPy's error, found before any work
        return np.matmul(_plain(a), _plain(b), **kwargs)
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    shape = batch + a_shape[-2:-1] + (b_shape[-1:] if len(b_shape) > 1 else ())
    dtype = np.matmul(np.zeros((1, 1), np.result_type(a)), np.zeros((1, 1), np.result_type(b)))
    return meta_array(shape, dtype.dtype)


def _reduce(ufunc: Any, inputs: tuple, kwargs: dict) -> Any:
    x = inputs[0]
    shape = np.shape(x)
    small = list(shape)
    if kwargs.get("where", True) is True:
        # the result's shape does not depend on the length of a reduced axis
        axis = kwargs.get("axis", 0)
        axes = range(len(shape)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
        for a in axes:
            a = operator.index(a) % max(len(shape), 1)
            small[a] = min(small[a], 1)
    stand_in = np.broadcast_to(np.zeros((), np.result_type(x)), tuple(small))
    result = ufunc.reduce(stand_in, *inputs[1:], **_plain(kwargs))
    return meta_array(np.shape(result), np.result_type(result))


def _reduce_like(x: MetaArray, axis: Any, keepdims: bool, dtype: Any) -> MetaArray:
    if axis is None:
        shape: tuple = (1,) * x.ndim if keepdims else ()
    else:
        axis = operator.index(axis) % max(x.ndim, 1)
        shape = x.shape[:axis] + ((1,) if keepdims else ()) + x.shape[axis + 1 :]
    return meta_array(shape, dtype)
