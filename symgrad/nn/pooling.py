"""Pooling and padding of :mod:`symgrad.nn.functional`, with PyTorch's output sizes
(``ceil_mode``), checks, return types and node names (1-d pooling is 2-d pooling of an
unsqueezed input, ending in ``SqueezeBackward1``, as in PyTorch)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import creation
from symgrad._memory_format import channels_last, channels_last_3d
from symgrad._meta import stand_in
from symgrad._tracing import TRACE, data_value
from symgrad.nn.convolution import expand_param
from symgrad.ops.pooling import (
    integer_average,
    max_positions,
    pick,
    pool_matrices,
    window_maximum,
)
from symgrad.prim import batching as _batching
from symgrad.tensor import Tensor

__all__ = [
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "pad",
]


def _out_size(n: int, k: int, p: int, s: int, dil: int, ceil: bool) -> int:
    """PyTorch's ``pooling_output_shape``: the last window must start inside the input or
    its left padding."""
    o = (n + 2 * p - dil * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def _setup(d: int, input: Tensor, kernel_size, stride, padding, dilation, ceil_mode, op) -> tuple:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"{op}: Expected {d + 1}D or {d + 2}D (batch mode) tensor with optional 0 dim batch "
            f"size for input, but got: {list(input.shape)}"
        )
    k = expand_param(kernel_size, d, "kernel_size", op)
    s = (
        k
        if stride is None or stride == [] or stride == ()
        else expand_param(stride, d, "stride", op)
    )
    p = expand_param(padding, d, "padding", op)
    dil = expand_param(dilation, d, "dilation", op)
    if any(v <= 0 for v in k):
        raise RuntimeError(f"{op}: kernel_size must be greater than zero, but got {list(k)}")
    if any(v == 0 for v in s):
        raise RuntimeError("stride should not be zero")
    if any(v < 0 for v in p):
        raise RuntimeError(f"pad must be non-negative, but got padding={list(p)}")
    if any(v <= 0 for v in dil):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation={list(dil)}")
    for kk, pp, dd in zip(k, p, dil):
        if pp > ((kk - 1) * dd + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={pp}, kernel_size={kk} and dilation={dd}"
            )
    if any(pp > kk // 2 for kk, pp in zip(k, p)):
        # PyTorch checks the kernel itself next, without its dilation.
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padding={list(p)} and kernel_size={list(k)}"
        )
    spatial = input.shape[-d:]
    if 0 in input.shape[-d - 1 :]:  # an empty batch is taken, no channels are not
        raise RuntimeError(
            f"{op}: Expected {d + 1}D or {d + 2}D (batch mode) tensor with optional 0 dim batch "
            f"size for input, and the other dimensions of positive length, but got: "
            f"{list(input.shape)}"
        )
    out = tuple(_out_size(*a, ceil_mode) for a in zip(spatial, k, p, s, dil))
    if any(o <= 0 for o in out):
        lead = input.shape[-d - 1]
        raise RuntimeError(
            f"Given input size: ({'x'.join(map(str, (lead, *spatial)))}). Calculated output size: "
            f"({'x'.join(map(str, (lead, *out)))}). Output size is too small"
        )
    return k, s, p, dil, out


def _max_pool(d, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    op = f"max_pool{d}d"
    k, s, p, dil, out = _setup(d, input, kernel_size, stride, padding, dilation, ceil_mode, op)
    _pooled_dtype(input, op, _INTEGERS)
    if type(input) is _batching.BatchedTensor:  # inside vmap: the windows of the whole batch
        return _batching.on_storage(
            input, lambda x: _max_pick(d, x, k, s, p, dil, out, return_indices)
        )
    shown = _shown(k, stride, s, p, ceil_mode) + (("dilation", dil),)
    return _max_pick(d, input, k, s, p, dil, out, return_indices, shown)


def _shown(k: tuple, stride: Any, s: tuple, p: tuple, ceil_mode: bool) -> tuple:
    """A pooling's arguments as its node shows them: the stride () when none was given."""
    given = stride is not None and stride != [] and stride != ()
    return (("kernel_size", k), ("stride", s if given else ()), ("padding", p)) + (
        ("ceil_mode", bool(ceil_mode)),
    )


def _max_pick(d, input, k, s, p, dil, out, return_indices, shown=()):
    """Each window's first maximum over the last ``d`` dimensions of ``input``."""
    spatial = input.shape[-d:]

    def find(x: np.ndarray) -> tuple:
        return max_positions(d, x, k, s, p, dil, out)

    key, positions = find(input._data)
    apart = all(ss >= dd * (kk - 1) + 1 for kk, ss, dd in zip(k, s, dil))  # windows apart
    name = f"MaxPool{d}DWithIndicesBackward0"
    result = pick(
        input, key, name, lambda a: find(a)[0], reads_input=True, unique=apart, shown=shown
    )
    if not return_indices:
        return result

    def flat_index(a: np.ndarray) -> np.ndarray:
        at = find(a)[1]
        return np.asarray(np.ravel_multi_index(at, spatial) if at[0].size else at[0], np.int64)

    indices = _found(flat_index, input)
    if input.ndim in (4, 5) and not result._data.flags.c_contiguous:  # (laid out as the values)
        fmt = channels_last if input.ndim == 4 else channels_last_3d
        indices = indices.contiguous(memory_format=fmt)
    return result, indices


def _found(find: Any, input: Tensor) -> Tensor:
    """The indices ``find(input's values)`` gives, found afresh by a compiled program."""
    indices = creation.tensor(find(stand_in(input._data)), device=input.device)
    if TRACE.log is not None:
        data_value(indices, find, input)
    return indices


def _window_maxima(input: Tensor, index: list, name: str, shown: tuple = ()) -> tuple:
    """Each window's first maximum over the last ``len(index)`` dimensions of ``input``
    (windows as :func:`window_maximum` takes them), recorded as node ``name`` (showing the
    arguments ``shown``), and its flat position in the plane."""
    spatial = input.shape[-len(index) :]

    def flat(a: np.ndarray) -> np.ndarray:
        positions = window_maximum(a, index)[1]
        at = positions[0]
        for n, p in zip(spatial[1:], positions[1:]):
            at = at * n + p
        return np.asarray(at, dtype=np.int64)

    key = window_maximum(input._data, index)[0]
    find = lambda a: window_maximum(a, index)[0]  # noqa: E731
    result = pick(input, key, name, find, reads_input=True, shown=shown)
    return result, _found(flat, input)


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each ``kernel_size`` window of an ``(N, C, H, W)`` or ``(C, H, W)``
    input (``stride`` defaults to the kernel size; padding counts as ``-inf``). The gradient
    goes to each window's first maximum; ``return_indices`` also gives their flat positions
    in the ``H * W`` plane.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.max_pool2d(symgrad.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
) -> Any:
    """3-d max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _as_2d(value: Any, fill: int) -> Any:
    if isinstance(value, (list, tuple)):
        return (fill, *value) if len(value) == 1 else value
    return (fill, value)


def max_pool1d(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
) -> Any:
    """1-d max pooling of ``(N, C, L)`` or ``(C, L)`` (2-d pooling of ``input.unsqueeze(-2)``,
    as PyTorch)."""
    if not isinstance(input, Tensor) or input.ndim not in (2, 3):
        shape = list(input.shape) if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got {shape}")
    if not return_indices:  # PyTorch's own 1-d kernel, for floating inputs only
        _pooled_dtype(input, "max_pool1d_impl", ())
    # PyTorch's 1-d pooling passes the kernel as the 2-d stride when none is given
    stride = _as_2d(kernel_size if stride is None or stride in ([], ()) else stride, 1)
    out = _max_pool(
        2,
        input.unsqueeze(-2),
        _as_2d(kernel_size, 1),
        stride,
        _as_2d(padding, 0),
        _as_2d(dilation, 1),
        ceil_mode,
        return_indices,
    )
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
) -> tuple:
    """:func:`max_pool1d` with its indices, always: ``(maxima, indices)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.max_pool1d_with_indices(symgrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)
    (tensor([[3., 2.]]), tensor([[1, 2]]))
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
) -> tuple:
    """:func:`max_pool2d` with its indices, always: ``(maxima, indices)``, the indices flat
    positions in the ``H * W`` plane.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.max_pool2d_with_indices(symgrad.tensor([[[1.0, 4.0], [3.0, 2.0]]]), 2)
    (tensor([[[4.]]]), tensor([[[1]]]))
    """
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False
) -> tuple:
    """:func:`max_pool3d` with its indices, always: ``(maxima, indices)``, the indices flat
    positions in the ``D * H * W`` volume.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.max_pool3d_with_indices(symgrad.arange(8.0).reshape(1, 2, 2, 2), 2)
    (tensor([[[[7.]]]]), tensor([[[[7]]]]))
    """
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode, True)


# -- average pooling ------------------------------------------------------------------------------
def _avg_matrix(n, k, p, s, o, include_pad: bool, divisor: Any) -> np.ndarray:
    m = np.zeros((o, n))
    for i in range(o):
        start = i * s - p
        end = min(start + k, n + p)
        lo, hi = max(start, 0), min(end, n)
        div = divisor if divisor is not None else (end - start if include_pad else hi - lo)
        m[i, lo:hi] = 1.0 / div
    return m


def _avg_pool(
    d, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    op = f"avg_pool{d}d"
    if isinstance(input, Tensor) and input.ndim < d + 1:  # PyTorch reads input.size(-d - 1)
        if d == 3:  # its 3-d kernel checks the rank first
            raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
        if input.ndim == 0:
            raise IndexError(f"Dimension specified as {-d - 1} but tensor has no dimensions")
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-input.ndim}, "
            f"{input.ndim - 1}], but got {-d - 1})"
        )
    k, s, p, _, out = _setup(d, input, kernel_size, stride, padding, 1, ceil_mode, op)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    matrices = []
    for i, (n, kk, pp, ss, o) in enumerate(zip(input.shape[-d:], k, p, s, out)):
        divisor = None if divisor_override is None else (divisor_override if i == 0 else 1)
        matrices.append(_avg_matrix(n, kk, pp, ss, o, count_include_pad, divisor))
    if d == 3 and input.dtype.scalar_type == "Half":  # PyTorch's 3-d kernel has no float16
        raise NotImplementedError("\"avg_pool3d_out_frame\" not implemented for 'Half'")
    if not input.dtype.is_floating_point:
        _pooled_dtype(input, "avg_pool3d_out_frame" if d == 3 else "avg_pool2d", ("Long",))
        data = integer_average(input._data, tuple(matrices))
        return creation.tensor(data, device=input.device)
    shown = _shown(k, stride, s, p, ceil_mode) + (
        ("count_include_pad", bool(count_include_pad)),
        ("divisor_override", divisor_override),
    )
    name = f"AvgPool{d}DBackward0"
    return pool_matrices(input, tuple(matrices), name, reads_input=True, shown=shown)


_INTEGERS = ("Byte", "Char", "Short", "Int", "Long")


def _pooled_dtype(input: Tensor, kernel: str, integers: tuple) -> None:
    """PyTorch's error for a kernel without a version for the dtype: ``integers`` it has."""
    if input.dtype.is_floating_point or input.dtype.scalar_type in integers:
        return
    raise NotImplementedError(
        f"\"{kernel}\" not implemented for '{input.dtype.scalar_type}': convert the input "
        "with .float()"
    )


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each window (zero padding counted in the divisor unless
    ``count_include_pad=False``; ``divisor_override`` replaces the divisor).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.avg_pool2d(symgrad.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]])
    """
    return _avg_pool(
        2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def avg_pool3d(
    input,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
) -> Tensor:
    """3-d average pooling."""
    return _avg_pool(
        3, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def avg_pool1d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True
) -> Tensor:
    """1-d average pooling of ``(N, C, L)`` or ``(C, L)``."""
    if not isinstance(input, Tensor) or input.ndim not in (2, 3):
        shape = list(input.shape) if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {shape}")
    # PyTorch's 1-d pooling passes the kernel as the 2-d stride when none is given
    stride = _as_2d(kernel_size if stride is None or stride in ([], ()) else stride, 1)
    out = _avg_pool(
        2,
        input.unsqueeze(-2),
        _as_2d(kernel_size, 1),
        stride,
        _as_2d(padding, 0),
        ceil_mode,
        count_include_pad,
        None,
    )
    return out.squeeze(-2)


from symgrad.nn.padding import pad  # noqa: E402 - (functional's names from here too)
