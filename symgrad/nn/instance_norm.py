"""``instance_norm`` of :mod:`symgrad.nn.functional`, composed as ATen composes it: the input
viewed as one sample of ``N * C`` channels, batch normalization (one
``NativeBatchNormBackward0`` node) with the weight, bias and running statistics repeated per
sample, and the running statistics averaged back over the samples."""

from __future__ import annotations

import math

import numpy as np

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.normalization import batch_norm
from symgrad.tensor import Tensor

__all__ = ["instance_norm"]


def _repeated(t: Tensor | None, times: int) -> Tensor | None:
    return None if t is None else t.repeat(times)


def _repeated_stat(t: Tensor | None, times: int, dtype: np.dtype) -> Tensor | None:
    """A writable copy of a running statistic, repeated, in the input's ``dtype`` (batch_norm
    updates it in place; PyTorch's instance norm takes statistics of any floating dtype)."""
    return None if t is None else Tensor._make(np.tile(t._data, times).astype(dtype))


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel of each sample of ``input`` (N, C, ...) over its positions,
    then ``* weight + bias`` per channel. With ``use_input_stats=False`` the running
    statistics normalize instead; otherwise, when given, they move towards the mean over the
    samples of each instance's mean and unbiased variance (``momentum``), in place.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[[1.0, 3.0], [0.0, 4.0]]])
    >>> F.instance_norm(x)
    tensor([[[-1.0000,  1.0000],
             [-1.0000,  1.0000]]])
    >>> mean, var = symgrad.zeros(2), symgrad.ones(2)
    >>> _ = F.instance_norm(x, mean, var)
    >>> mean, var
    (tensor([0.2000, 0.2000]), tensor([1.1000, 1.7000]))
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"instance_norm(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    size = list(input.shape)
    if use_input_stats and math.prod(size[2:]) == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {input.shape}"
        )
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    if input.ndim < 2:
        raise ValueError(f"instance_norm expects an input (N, C, ...), got input size {size}")
    b, c = size[:2]
    shaped = input.contiguous().view(1, b * c, *size[2:])
    dtype = input._data.dtype
    mean, var = _repeated_stat(running_mean, b, dtype), _repeated_stat(running_var, b, dtype)
    out = batch_norm(
        shaped,
        mean,
        var,
        _repeated(weight, b),
        _repeated(bias, b),
        use_input_stats,
        momentum,
        eps,
    )
    with no_grad():
        for running, repeated in ((running_mean, mean), (running_var, var)):
            if running is not None and use_input_stats:
                running.copy_(repeated.view(b, c).mean(0))
    return out.view(size)
