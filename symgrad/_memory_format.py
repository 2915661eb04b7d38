"""Memory formats: the order in which a tensor's elements lie in memory, as PyTorch names them.

A symgrad tensor is a NumPy array, so a ``channels_last`` tensor is an array allocated in NHWC
order and viewed as NCHW: its ``stride()`` is PyTorch's. The rules here are PyTorch's own
(``c10/core/MemoryFormat.h``, ``TensorImpl``'s contiguity flags, ``empty_like``): which strides a
format gives a shape, when strides count as a format, and what ``preserve_format`` keeps.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import _layout
from symgrad._meta import is_meta, meta_array

__all__ = [
    "memory_format",
    "contiguous_format",
    "preserve_format",
    "channels_last",
    "channels_last_3d",
    "legacy_contiguous_format",
    "checked",
    "format_strides",
    "is_contiguous_as",
    "suggest",
    "element_strides",
    "target_strides",
    "empty_strided",
    "copy_strided",
    "grad_strides",
    "laid_out_for",
]


class memory_format:  # noqa: N801 - the PyTorch name
    """How a tensor's elements are laid out in memory: ``contiguous_format`` (row-major),
    ``channels_last`` (NHWC for a 4-D tensor), ``channels_last_3d`` (NDHWC for a 5-D one), or
    ``preserve_format`` (whatever the input tensor has). Like PyTorch's, its four values are the
    only ones: the class makes no new ones.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.channels_last, isinstance(symgrad.channels_last, symgrad.memory_format)
    (symgrad.channels_last, True)
    >>> symgrad.empty(2, 3, 4, 5, memory_format=symgrad.channels_last).stride()
    (60, 1, 15, 3)
    """

    __slots__ = ("name",)

    def __new__(cls, *args: Any, **kwargs: Any) -> memory_format:
        raise TypeError("cannot create 'symgrad.memory_format' instances")

    @classmethod
    def _named(cls, name: str) -> memory_format:
        fmt = object.__new__(cls)
        fmt.name = name
        return fmt

    def __repr__(self) -> str:
        return f"symgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name  # the module's constant of that name: the same object after loading


contiguous_format = memory_format._named("contiguous_format")
preserve_format = memory_format._named("preserve_format")
channels_last = memory_format._named("channels_last")
channels_last_3d = memory_format._named("channels_last_3d")
legacy_contiguous_format = contiguous_format  # PyTorch's other name of it (the same object)

# PyTorch's words for the formats in its messages
_CPP_NAMES = {
    contiguous_format: "Contiguous",
    preserve_format: "Preserve",
    channels_last: "ChannelsLast",
    channels_last_3d: "ChannelsLast3d",
}
# the dimensions of a channels-last format from innermost to outermost, by its rank
_CHANNELS_LAST = {channels_last: (4, (1, 3, 2, 0)), channels_last_3d: (5, (1, 4, 3, 2, 0))}


def checked(value: Any, fn: str, none: bool = True) -> memory_format | None:
    """``value`` when it is a memory format (or None where ``none``), else PyTorch's TypeError
    for argument ``memory_format`` of ``fn``."""
    if isinstance(value, memory_format) or (value is None and none):
        return value
    raise TypeError(
        f"{fn}(): argument 'memory_format' must be symgrad.memory_format, not "
        f"{type(value).__name__}"
    )


def format_strides(fmt: memory_format, shape: tuple) -> tuple:
    """The strides, in elements, of a new tensor of ``shape`` laid out as ``fmt``; a
    channels-last format of the wrong rank raises PyTorch's RuntimeError."""
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    if fmt is contiguous_format:
        strides, step = [0] * len(shape), 1
        for d in reversed(range(len(shape))):
            strides[d] = step
            step *= max(shape[d], 1)
        return tuple(strides)
    rank, order = _CHANNELS_LAST[fmt]
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    strides, step = [0] * rank, 1
    for d in order:  # no max(size, 1) here: PyTorch's channels-last strides of an empty shape
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def is_contiguous_as(shape: tuple, strides: tuple, fmt: memory_format) -> bool:
    """Whether ``strides`` lay ``shape`` out as the channels-last ``fmt`` (PyTorch's
    ``is_contiguous(memory_format=...)``; dimensions of size 1 may have any stride)."""
    rank, order = _CHANNELS_LAST[fmt]
    if len(shape) != rank:
        return False
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _strides_like(shape: tuple, strides: tuple, order: tuple) -> bool:
    """PyTorch's ``is_channels_last_strides_2d``/``_3d``: whether strides grow along ``order``,
    with its fallbacks to row-major for ambiguous layouts (N111, a trivial C dimension)."""
    if strides[1] == 0:
        return False
    smallest = 0
    for d in order:
        if shape[d] == 0 or strides[d] < smallest:
            return False
        if d == 0 and smallest == strides[1]:
            return False
        smallest = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest(shape: tuple, strides: tuple) -> memory_format:
    """The format whose layout ``strides`` follow (PyTorch's ``suggest_memory_format``)."""
    for fmt, (rank, order) in _CHANNELS_LAST.items():
        if len(shape) == rank and _strides_like(shape, strides, order):
            return fmt
    return contiguous_format


def element_strides(array: np.ndarray) -> tuple:
    """An array's strides in elements, as ``Tensor.stride()`` gives them."""
    if array.size == 0:
        rank = array.ndim
        fmt = channels_last if rank == 4 else channels_last_3d if rank == 5 else None
        own = tuple(s // array.itemsize for s in array.strides)
        # an empty array keeps strides only when made channels-last here (NumPy gives zeros)
        if fmt is not None and own == format_strides(fmt, array.shape):
            return own
        return format_strides(contiguous_format, array.shape)
    return tuple(s // array.itemsize for s in array.strides)


def target_strides(array: np.ndarray, fmt: memory_format | None) -> tuple | None:
    """The strides of a copy of ``array`` made in ``fmt``: for ``preserve_format`` (or None)
    ``array``'s own strides where its elements fill a block, else the dense strides of the same
    order of dimensions (PyTorch's ``empty_like``); None for the values of a batched tensor
    (vmap), which have no layout to keep."""
    if fmt is not None and fmt is not preserve_format:
        return format_strides(fmt, array.shape)
    if not isinstance(array, np.ndarray):
        return None
    strides = element_strides(array)
    if _layout.is_dense(array.shape, strides):
        return strides
    return _layout.dense_strides(array.shape, strides)


def empty_strided(shape: tuple, dtype: Any, strides: tuple) -> np.ndarray:
    """A new writable array of ``shape`` and ``dtype`` with ``strides`` (in elements, dense)."""
    dtype = np.dtype(dtype)
    flat = np.empty(math.prod(shape), dtype)
    byte_strides = tuple(s * dtype.itemsize for s in strides)
    # a view of ``flat`` itself, so that saving finds the memory (and the views sharing it)
    return np.ndarray(shape, dtype, buffer=flat, strides=byte_strides)


def copy_strided(array: np.ndarray, strides: tuple, dtype: Any = None) -> np.ndarray:
    """A copy of ``array`` (cast to ``dtype``) laid out with ``strides``; of a meta array, a
    meta array."""
    dtype = array.dtype if dtype is None else dtype
    if is_meta(array):
        return meta_array(array.shape, dtype, strides)
    out = empty_strided(array.shape, dtype, strides)
    np.copyto(out, array, casting="unsafe")
    return out


def laid_out_as_inputs(out: np.ndarray, inputs: Any) -> np.ndarray:
    """``out``, the result of an element-wise op of ``inputs`` (arrays and numbers), or a copy
    of it laid out as PyTorch's ``TensorIterator`` lays it out: NumPy breaks ties between inputs
    of different layouts (``x + x.t()``) by row-major order where PyTorch follows the first, and
    a kernel of several NumPy steps (``lerp``, ``addcmul``) may lose the layout altogether.
    Row-major inputs give a row-major result in both, so only other inputs cost a look.

    Examples
    --------
    >>> x = np.zeros((2, 3)).T
    >>> laid_out_as_inputs(x + np.ones((3, 2)), (x, 1.0)).strides  # x's layout, not NumPy's
    (8, 24)
    """
    if type(out) is not np.ndarray or out.ndim < 2 or out.size == 0:
        return out
    if all(type(x) is not np.ndarray or x.flags.c_contiguous for x in inputs):
        return out
    if out.flags.c_contiguous and all(type(x) is not np.ndarray or _row_ordered(x) for x in inputs):
        return out  # (every input's dimensions in row-major order: a slice x[:, t], a row)
    strides = _layout.output_strides(inputs, out.shape)
    if strides is None or strides == element_strides(out):
        return out
    return copy_strided(out, strides)


def _row_ordered(x: np.ndarray) -> bool:
    """Whether ``x``'s dimensions are in row-major order, gaps allowed (``x[:, t]`` of a
    row-major array): PyTorch then lays a result out row-major, as NumPy does. Dimensions of
    one element and broadcast ones (stride 0) order nothing."""
    last = None
    for n, s in zip(x.shape, x.strides):
        if n > 1 and s != 0:
            if s < 0 or (last is not None and s > last):
                return False
            last = s
    return True


def row_major(array: Any) -> Any:
    """``array``, or a copy of it laid out row by row where it is not (a reduction's result,
    which PyTorch allocates row-major whatever its input's layout); anything else as it is.

    Examples
    --------
    >>> row_major(np.zeros((2, 3)).T.sum(axis=(), keepdims=True)).strides
    (16, 8)
    """
    if type(array) is np.ndarray and not array.flags.c_contiguous:
        return array.copy(order="C")
    return array


def rows_kernel(kernel: Any) -> Any:
    """``kernel`` whose result is row-major whatever its input's layout, as PyTorch allocates
    it for a few element-wise ops (``pow(2.0, x)``, ``logsigmoid``)."""

    def rows(*args: Any) -> Any:
        return row_major(kernel(*args))

    return rows


def laid_out_like(out: Any, input: Any) -> Any:
    """``out``, of ``input``'s shape, or a copy of it laid out as ``input`` is (as
    ``empty_like(input)``, PyTorch's ``preserve_format``); anything else as it is.

    Examples
    --------
    >>> x = np.zeros((2, 3)).T
    >>> laid_out_like(np.sort(x, axis=0), x).strides
    (8, 24)
    """
    if (
        type(out) is not np.ndarray
        or type(input) is not np.ndarray
        or input.flags.c_contiguous
        or out.shape != input.shape
    ):
        return out
    strides = target_strides(input, None)
    if strides is None or strides == element_strides(out):
        return out
    return copy_strided(out, strides)


def in_suggested_format(out: Any, *inputs: Any, ranks: tuple = (4, 5)) -> Any:
    """``out`` or a copy of it in the memory format its ``inputs`` suggest: channels-last
    where one of them of ``out``'s rank is laid out so (a batch norm's or a pooling's input, a
    convolution's input or weight), else row-major (PyTorch's ``suggest_memory_format``);
    ``out`` of another rank than ``ranks`` is row-major.

    Examples
    --------
    >>> x = np.zeros((1, 2, 3, 4)).transpose(0, 1, 3, 2)
    >>> in_suggested_format(x + 1, x).strides  # row-major, not the input's order
    (192, 96, 24, 8)
    >>> y = np.zeros((1, 3, 4, 2)).transpose(0, 3, 1, 2)  # channels-last
    >>> in_suggested_format(np.zeros((1, 2, 2, 2)), y).strides
    (64, 8, 32, 16)
    """
    if type(out) is not np.ndarray or out.ndim not in ranks:
        return row_major(out)
    for a in inputs:
        if type(a) is np.ndarray and a.ndim == out.ndim and not a.flags.c_contiguous:
            fmt = suggest(a.shape, element_strides(a))
            if fmt is not contiguous_format:
                strides = format_strides(fmt, out.shape)
                return out if strides == element_strides(out) else copy_strided(out, strides)
    return row_major(out)


def in_common_format(out: Any, inputs: Any, *, keep: bool = False) -> Any:
    """``out``, joined from ``inputs`` (``cat``), or a copy of it in the memory format they
    all suggest (channels-last where they all are so), row-major where they disagree or
    suggest no other (PyTorch's ``cat``). ``keep``: ``out``'s own layout where they agree
    (``stack``'s, whose result has a dimension more).

    Examples
    --------
    >>> x = np.zeros((2, 3)).T
    >>> in_common_format(np.concatenate([x, x]), [x, x]).strides  # (6, 2) row-major
    (16, 8)
    """
    arrays = [a for a in inputs if type(a) is np.ndarray]
    if type(out) is not np.ndarray or all(a.flags.c_contiguous for a in arrays):
        return out
    formats = {suggest(a.shape, element_strides(a)) for a in arrays}
    fmt = formats.pop() if len(formats) == 1 else contiguous_format
    if fmt is contiguous_format:
        return row_major(out)
    if keep:
        return out
    strides = format_strides(fmt, out.shape)
    return out if strides == element_strides(out) else copy_strided(out, strides)


def kept_layout(values: Any, array: Any) -> Any:
    """``values``, an in-place op's new values of ``array``, laid out as ``array`` is (an
    in-place op never changes a tensor's strides in PyTorch); anything else as it is.

    Examples
    --------
    >>> x = np.zeros((2, 3))
    >>> kept_layout(np.broadcast_to(np.ones(3), (2, 3)) * 1, x).strides
    (24, 8)
    """
    if type(values) is not np.ndarray or type(array) is not np.ndarray:
        return values
    if values.strides == array.strides or values.shape != array.shape:
        return values
    strides = element_strides(array)
    if not _layout.is_dense(array.shape, strides) or strides == element_strides(values):
        return values
    return copy_strided(values, strides)


def grad_strides(variable: np.ndarray) -> tuple:
    """The strides of a leaf's new ``.grad`` (PyTorch's AccumulateGrad layout contract): the
    leaf's own where its elements fill a block, else row-major."""
    strides = element_strides(variable)
    if _layout.is_dense(variable.shape, strides):
        return strides
    return format_strides(contiguous_format, variable.shape)


def laid_out_for(g: np.ndarray, variable: np.ndarray) -> np.ndarray:
    """``g``, or a copy of it laid out as a gradient of ``variable`` must be (PyTorch's
    ``obeys_layout_contract``: the same strides but along dimensions of size 1)."""
    if type(variable) is not np.ndarray or (g.flags.c_contiguous and variable.flags.c_contiguous):
        return g
    wanted = grad_strides(variable)
    own = element_strides(g)
    for n, mine, theirs in zip(g.shape, own, wanted):
        # along a dimension of size 1 any stride will do, but 0 (a broadcast view)
        broken = mine == 0 if n == 1 else mine != theirs
        if broken:
            return copy_strided(g, wanted)
    return g
