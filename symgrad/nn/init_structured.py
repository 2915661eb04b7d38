"""The rest of ``torch.nn.init``: ``orthogonal_``, ``trunc_normal_``, ``eye_``, ``dirac_``,
``sparse_``, and the wrapper giving the deprecated names without the underscore."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from symgrad import creation
from symgrad._like import empty_like
from symgrad.autograd.grad_mode import no_grad
from symgrad.ops.decompositions import linalg_qr
from symgrad.ops.math import where
from symgrad.tensor import Tensor

__all__ = [
    "orthogonal_",
    "trunc_normal_",
    "eye_",
    "dirac_",
    "sparse_",
    "deprecated",
]


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """Fill ``tensor`` with a (semi-)orthogonal matrix (its trailing dimensions flattened),
    times ``gain``: the Q of a QR factorization of normal samples, with R's diagonal signs
    folded in so that Q is uniformly distributed (Saxe et al. 2013, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn import init
    >>> w = init.orthogonal_(symgrad.empty(3, 5))
    >>> bool(symgrad.allclose(w @ w.T, symgrad.eye(3), atol=1e-6))
    True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flat = creation.randn(rows, cols, dtype=tensor.dtype, generator=generator)
        if rows < cols:
            flat = flat.t()
        q, r = linalg_qr(flat)
        q = q * r.diagonal().sign()
        if rows < cols:
            q = q.t()
        tensor.copy_(q.reshape(tensor.shape) * gain)
    return tensor


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """Fill ``tensor`` with samples of N(``mean``, ``std``²) truncated to [``a``, ``b``],
    by PyTorch's rejection sampling (its draws, in its order): normal samples redrawn where
    they fall outside when the interval holds more than 0.3 of the mass, else uniform
    candidates in [``a``, ``b``] accepted with the normal density's ratio to its peak.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn import init
    >>> w = init.trunc_normal_(symgrad.empty(100), std=1.0, a=-0.5, b=0.5)
    >>> bool((w.abs() <= 0.5).all())
    True
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
            "values may be incorrect.",
            stacklevel=2,
        )

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if tensor.is_meta:
        return tensor
    with no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            _normal_within(tensor, mean, std, a, b, generator)
        else:
            _uniform_accepted(tensor, mean, std, a, b, generator)
    return tensor


def _normal_within(tensor: Tensor, mean: float, std: float, a: float, b: float, generator: Any):
    """Normal samples, those outside [a, b] (in the tensor's dtype) drawn again until none is."""
    lo = creation.tensor(a, dtype=tensor.dtype).item()
    hi = creation.tensor(b, dtype=tensor.dtype).item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < lo) | (result > hi)
        if not outside.any():
            break
        redrawn = empty_like(result).normal_(mean, std, generator=generator)
        result = where(outside, redrawn, result)
    if result is not tensor:
        tensor.copy_(result)


def _uniform_accepted(tensor: Tensor, mean: float, std: float, a: float, b: float, generator):
    """Uniform candidates in [a, b], each kept with probability exp(log density - log peak)."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2
    candidates = empty_like(tensor)
    accept = empty_like(tensor)

    def rejected(c: Tensor) -> Tensor:
        c.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        return accept.uniform_(generator=generator).log_().gt(c)

    tensor.uniform_(a, b, generator=generator)
    candidates.copy_(tensor)
    pending = rejected(candidates)
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        pending = where(pending, rejected(candidates), pending)
        if not pending.any():
            break
    tensor.copy_(result)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-dimensional ``tensor`` with the identity matrix (ones on the diagonal).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn import init
    >>> init.eye_(symgrad.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(creation.eye(*tensor.shape, dtype=tensor.dtype))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-dimensional convolution weight with the Dirac delta, so that the
    convolution keeps its inputs (as many channels as it can, in each of ``groups``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn import init
    >>> init.dirac_(symgrad.empty(2, 2, 3))[:, :, 1]
    tensor([[1., 0.],
            [0., 1.]])
    """
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(n // 2 for n in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d, *centre)] = 1
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Any = None) -> Tensor:
    """Fill a 2-dimensional ``tensor`` with samples of N(0, ``std``²), then zero
    ``ceil(sparsity * rows)`` random entries of each column (Martens 2010).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn import init
    >>> w = init.sparse_(symgrad.empty(4, 3), sparsity=0.5)
    >>> (w == 0).sum(0).tolist()
    [2, 2, 2]
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            # (PyTorch's permutations come from the default generator, even given `generator`)
            picked = creation.randperm(rows)[:zeros]
            tensor[picked, col] = 0
    return tensor


def deprecated(method: Callable) -> Callable:
    """``method`` under its old name (without the underscore), with PyTorch's FutureWarning."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return method(*args, **kwargs)

    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated: use :func:`{new_name}`."
    return deprecated_init
