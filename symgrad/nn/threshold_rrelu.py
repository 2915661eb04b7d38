"""``threshold`` and ``rrelu`` of :mod:`symgrad.nn.functional`, each one element-wise
primitive under PyTorch's node names (``ThresholdBackward0``, ``RreluWithNoiseBackward0``;
``...Backward1`` in place), so closed forms show their piecewise formulas.

In training, ``rrelu`` scales each element at or below zero by its own slope drawn from
``U(lower, upper)`` with symgrad's generator (``manual_seed`` makes it reproducible; the numbers
are not PyTorch's); outside training it is ``leaky_relu`` with the slope ``(lower + upper) / 2``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import random
from symgrad._arguments import require_floating, require_numbers
from symgrad._data import check_fill
from symgrad.ops import activations as A
from symgrad.ops.inplace import inplace as _in_place
from symgrad.tensor import Tensor

__all__ = ["threshold", "threshold_", "rrelu", "rrelu_"]


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``value`` where ``input <= threshold``, else ``input`` (gradient 1 above the threshold,
    0 elsewhere; a nan stays nan).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.threshold(symgrad.tensor([-1.0, 0.5, 2.0]), 1.0, -5.0)
    tensor([-5., -5.,  2.])
    """
    return _thresholded(input, threshold, value, inplace)


def _thresholded(input: Tensor, threshold: float, value: float, inplace: bool) -> Tensor:
    if type(threshold) is not float or type(value) is not float:  # ("1" is no number)
        require_numbers("threshold", threshold=threshold, value=value)
    if isinstance(input, Tensor) and str(input.dtype) == "symgrad.bool":
        raise NotImplementedError(
            "\"threshold_cpu\" not implemented for 'Bool': convert the input with .float()"
        )
    params = (float(threshold), float(value))
    if isinstance(input, Tensor) and input.dtype.is_floating_point:
        for number in params:
            check_fill(number, input.dtype, "threshold")
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        # an integer tensor stays integer (value cast to it), as in PyTorch
        compute = lambda x: _int_threshold(x, *params)  # noqa: E731
    elif inplace:
        compute = lambda x: A.THRESHOLD_(x, params=params)  # noqa: E731
    else:
        return A.THRESHOLD(input, params=params)
    return _in_place(input, "threshold_", compute) if inplace else compute(input)


def _int_threshold(x: Tensor, threshold: float, value: float) -> Tensor:
    data = x._data
    return Tensor._make(np.where(data <= threshold, np.asarray(value).astype(data.dtype), data))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """``threshold(input, threshold, value, inplace=True)`` (node ``ThresholdBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([0.0, 3.0])
    >>> F.threshold_(x, 1.0, 2.0) is x, x
    (True, tensor([2., 3.]))
    """
    return _thresholded(input, threshold, value, inplace=True)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
    *,
    _generator: Any = None,
) -> Tensor:
    """Randomized leaky ReLU: ``input`` where positive, else ``input`` times a slope drawn from
    ``U(lower, upper)`` per element in ``training``, or ``(lower + upper) / 2`` outside it.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.rrelu(symgrad.tensor([-1.0, 2.0]), 0.2, 0.4)
    tensor([-0.3000,  2.0000])
    >>> _ = symgrad.manual_seed(0)
    >>> y = F.rrelu(symgrad.tensor([-1.0, -1.0]), 0.2, 0.4, training=True)
    >>> bool(((y <= -0.2) & (y >= -0.4)).all())
    True
    """
    if lower > upper:
        raise RuntimeError(
            f"Lower bound should be less than or equal to the upper bound (got lower={lower}, "
            f"upper={upper})"
        )
    if not training:
        require_floating(input, "leaky_relu_cpu")
        slope = (float((lower + upper) / 2),)
        if inplace:
            return _in_place(input, "rrelu_", lambda x: A.RRELU_(x, params=slope))
        return A.RRELU(input, params=slope)
    require_floating(input, "rrelu_with_noise_out_cpu")
    dtype, shape = input._data.dtype, tuple(input.shape)
    if (
        upper == lower and not input.is_meta
    ):  # one slope for all: nothing to draw, so a compiled program holds it
        noise = Tensor._make(np.full(shape, lower, dtype=dtype))
    else:
        # PyTorch's kernel: a float64 slope drawn for each element at or below zero, in
        # order; the others' noise is 1
        stream = random.numpy_generator(_generator, input)
        if input.is_meta:
            slopes = stream.uniform_fill(shape, dtype, lower, upper)
        else:
            low = input._data <= 0
            slopes = np.ones(shape, dtype)
            # (the bounds in the input's dtype, then float64 with two roundings: ATen's
            # activation file is built without fused multiply-adds)
            a, b = (float(np.asarray(v, dtype)) for v in (lower, upper))
            unit = stream.uniform_fill((int(low.sum()),), np.float64)
            slopes[low] = (unit * (b - a) + a).astype(dtype)
        noise = Tensor._make(slopes)
    if inplace:
        return _in_place(input, "rrelu_", lambda x: A.RRELU_WITH_NOISE_(x, noise))
    return A.RRELU_WITH_NOISE(input, noise)


def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """``rrelu(input, lower, upper, training, inplace=True)`` (node
    ``RreluWithNoiseBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([-2.0, 1.0])
    >>> F.rrelu_(x, 0.25, 0.25) is x, x
    (True, tensor([-0.5000,  1.0000]))
    """
    return rrelu(input, lower, upper, training, inplace=True)
