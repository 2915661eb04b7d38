"""The legacy cross-channel local response normalization behind ``nn.CrossMapLRN2d``: a
custom :class:`~symgrad.autograd.Function`, as in PyTorch, so its node is
``CrossMapLRN2dBackward`` and its numbers are PyTorch's own.

PyTorch's forward sums the squares over a running window of channels that never drops
channel 0 (a quirk kept from the Lua original), while its backward uses the centred window of
``size`` channels; both are reproduced as they are, so gradients match PyTorch's rather than
the forward's exact derivative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd.function import Function
from symgrad.tensor import Tensor

__all__ = ["CrossMapLRN2d"]


def _window_sums(squares: np.ndarray, size: int) -> np.ndarray:
    """PyTorch's running sums over dim 1: channel ``c`` sums channels ``0 .. c + pre - 1``
    less channels ``1 .. c - pre`` (``pre = (size - 1) // 2 + 1``)."""
    channels = squares.shape[1]
    pre = int((size - 1) / 2 + 1)
    totals = np.cumsum(squares, axis=1)
    c = np.arange(channels)
    sums = totals[:, np.minimum(c + pre - 1, channels - 1)]
    dropped = c - pre
    later = dropped >= 1
    sums[:, later] -= totals[:, dropped[later]] - totals[:, :1]
    return sums


def _centred_sums(ratio: np.ndarray, size: int) -> np.ndarray:
    """For channel ``c``, the sum of ``ratio`` over channels ``c - s .. c - s + size - 1``,
    ``s = int(size - (size - 1) / 2)``, zero outside (PyTorch's backward window)."""
    channels = ratio.shape[1]
    shift = int(size - (size - 1) / 2)
    zeros = np.zeros_like(ratio[:, :1])
    totals = np.concatenate([zeros, np.cumsum(ratio, axis=1)], axis=1)
    c = np.arange(channels)
    low = np.clip(c - shift, 0, channels)
    high = np.clip(c - shift + size, 0, channels)
    return totals[:, high] - totals[:, low]


class CrossMapLRN2d(Function):
    """``input * (k + alpha / size * window sum of input**2) ** -beta`` over the channels of
    a 4-d input (see the module docstring for PyTorch's windows)."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any, input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1
    ) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        x = np.asarray(input._data)
        dtype = x.dtype
        scale = _window_sums(x * x, size) * dtype.type(alpha / size) + dtype.type(k)
        out = (scale ** dtype.type(-beta) * x).astype(dtype, copy=False)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        ctx.scale = scale.astype(dtype, copy=False)
        output = Tensor._make(out)
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple:  # type: ignore[override]
        input, output = ctx.saved_tensors
        channels = input.shape[1]
        if ctx.size == 1:
            # PyTorch's backward narrows its padded buffer one channel too far for size 1
            raise RuntimeError(
                f"start (1) + length ({channels}) exceeds dimension size ({channels})."
            )
        x, out, g = (np.asarray(t._data) for t in (input, output, grad_output))
        scale, dtype = ctx.scale, x.dtype
        ratio = g * out / scale
        factor = dtype.type(2 * ctx.alpha * ctx.beta / ctx.size)
        grad = scale ** dtype.type(-ctx.beta) * g - factor * x * _centred_sums(ratio, ctx.size)
        return Tensor._make(grad.astype(dtype, copy=False)), None, None, None, None
