"""Max unpooling of :mod:`symgrad.nn.functional`: the partial inverse of max pooling, each
value written at its flat index in zeros of the unpooled size (``MaxUnpool2DBackward0``,
``MaxUnpool3DBackward0``; 1-d unpooling is 2-d unpooling of ``input.unsqueeze(-1)`` ending in
``SqueezeBackward1``, as PyTorch). The gradient of each value is the incoming gradient read
at its index, also where an index repeats (where the forward keeps the last value written)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad._meta import stand_in
from symgrad.nn.convolution import expand_param
from symgrad.ops.unpooling import unpool
from symgrad.tensor import Tensor

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _output_size(input: Any, d: int, k: tuple, s: tuple, p: tuple, output_size: Any) -> list:
    """PyTorch's unpooled size: the default one, or ``output_size`` within a stride of it."""
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'size'")
    spatial = input.shape[input.ndim - d :] if input.ndim >= d else input.shape
    default = [(n - 1) * ss + kk - 2 * pp for n, kk, ss, pp in zip(spatial, k, s, p)]
    if output_size is None:
        sizes = default
    else:
        if len(output_size) == d + 2:
            output_size = output_size[2:]
        if len(output_size) != d:
            raise ValueError(
                f"output_size should be a sequence containing {d} or {d + 2} elements, but it "
                f"has a length of '{len(output_size)}'"
            )
        for i, (o, n, ss) in enumerate(zip(output_size, default, s)):
            if not n - ss < o < n + ss:
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {i} must be between {n - ss} '
                    f"and {n + ss})"
                )
        sizes = [int(o) for o in output_size]
    for i, o in enumerate(sizes):
        if o < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{i}]={o}"
            )
    return sizes


def _check(d: int, input: Tensor, indices: Any, stride: tuple) -> None:
    """PyTorch's checks of ``max_unpool2d``/``max_unpool3d``, in its order."""
    op = f"max_unpooling{d}d"
    if not isinstance(indices, Tensor):
        require_tensor(f"max_unpool{d}d", "indices", 2, indices)
    if indices.dtype.name != "int64":
        got = f" but got: {indices.dtype.scalar_type}" if d == 2 else ""
        raise RuntimeError(f"elements in indices should be type int64{got}")
    if input.ndim not in (d + 1, d + 2):
        raise RuntimeError(
            f"Input to {op} should be a {d + 1}d or {d + 2}d Tensor, but got a tensor with "
            f"{input.ndim} dimensions."
        )
    if input.shape != indices.shape:
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{op}_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                f"dimensions, but got {list(input.shape)} with dimension {i} being empty."
            )
    if d == 3 and any(ss <= 0 for ss in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"max_unpool{d}d\" not implemented for '{input.dtype.scalar_type}'"
        )


def _stride_and_sizes(d: int, input, kernel_size, stride, padding, output_size) -> tuple:
    """The stride of ``max_unpool{d}d`` and the sizes of its output planes."""
    op = f"max_unpool{d}d"
    k = expand_param(kernel_size, d, "kernel_size", op)
    s = k if stride is None else expand_param(stride, d, "stride", op)
    p = expand_param(padding, d, "padding", op)
    return s, _output_size(input, d, k, s, p, output_size)


def _unpool(d: int, input, indices, kernel_size, stride, padding, output_size) -> Tensor:
    s, sizes = _stride_and_sizes(d, input, kernel_size, stride, padding, output_size)
    return _unpool_at(d, input, indices, s, sizes)


def _unpool_at(d: int, input: Tensor, indices: Any, stride: tuple, sizes: list) -> Tensor:
    """``input`` written at ``indices`` into planes of ``sizes``."""
    _check(d, input, indices, stride)
    volume = int(np.prod(sizes))
    lead = input.shape[:-d]

    def find(at: np.ndarray) -> tuple:
        bad = (at < 0) | (at >= volume)
        if bad.any():  # the last one, as PyTorch's kernel on one thread reports
            raise RuntimeError(
                f"Found an invalid max index: {at[bad].flat[-1]} (output volumes are of size "
                f"{'x'.join(map(str, sizes))})"
            )
        grids = np.meshgrid(*[np.arange(n) for n in input.shape], indexing="ij", sparse=True)
        return tuple(grids[: len(lead)]) + np.unravel_index(at, sizes)

    key = find(stand_in(indices._data))
    return unpool(
        input, key, lead + tuple(sizes), f"MaxUnpool{d}DBackward0", find=find, indices=indices
    )


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The partial inverse of :func:`max_pool2d`: zeros of the unpooled ``(H, W)`` size
    (``(H_in - 1) * stride - 2 * padding + kernel_size``, or ``output_size`` within a stride
    of it) with each value of ``input`` at its flat index from ``indices``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> values, indices = F.max_pool2d(symgrad.tensor([[[1.0, 4.0], [3.0, 2.0]]]), 2,
    ...                                return_indices=True)
    >>> F.max_unpool2d(values, indices, 2)
    tensor([[[0., 4.],
             [0., 0.]]])
    """
    return _unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The partial inverse of :func:`max_pool3d` over ``(D, H, W)`` (see
    :func:`max_unpool2d`).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[[[5.0]]]])
    >>> F.max_unpool3d(x, symgrad.tensor([[[[6]]]]), 2)
    tensor([[[[0., 0.],
              [0., 0.]],
    <BLANKLINE>
             [[0., 0.],
              [5., 0.]]]])
    """
    return _unpool(3, input, indices, kernel_size, stride, padding, output_size)


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The partial inverse of :func:`max_pool1d` over ``L`` (see :func:`max_unpool2d`).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.max_unpool1d(symgrad.tensor([[3.0, 2.0]]), symgrad.tensor([[1, 2]]), 2)
    tensor([[0., 3., 2., 0.]])
    """
    s, sizes = _stride_and_sizes(1, input, kernel_size, stride, padding, output_size)
    if not isinstance(indices, Tensor):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'unsqueeze'")
    out = _unpool_at(2, input.unsqueeze(-1), indices.unsqueeze(-1), s + (1,), sizes + [1])
    return out.squeeze(-1)
