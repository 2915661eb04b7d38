"""The building blocks of PyTorch's ``SyncBatchNorm`` at the top level. PyTorch has kernels
for most of them on CUDA only, and a CPU tensor gets its ``NotImplementedError``; symgrad, on
the CPU, answers the same. ``batch_norm_update_stats`` runs on the CPU: the batch's mean and
biased variance per channel, with the running statistics updated in place.

Examples
--------
>>> import symgrad
>>> symgrad.batch_norm_update_stats(symgrad.tensor([[1.0], [3.0]]), None, None, 0.1)
(tensor([2.]), tensor([1.]))
"""

from __future__ import annotations

from typing import Any

from symgrad._arguments import require_tensor
from symgrad._aten_native import update_running_stats
from symgrad.nn import normalization as _functional
from symgrad.prim.factorization import Factorization
from symgrad.tensor import Tensor

__all__ = [
    "batch_norm_stats",
    "batch_norm_elemt",
    "batch_norm_gather_stats",
    "batch_norm_gather_stats_with_counts",
    "batch_norm_backward_reduce",
    "batch_norm_backward_elemt",
    "batch_norm_update_stats",
]


def _cuda_only(op: str) -> NotImplementedError:
    return NotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'CPU' backend. 'aten::{op}' is "
        "only available for the CUDA backend (a building block of SyncBatchNorm); on the CPU "
        "use symgrad.nn.functional.batch_norm"
    )


def batch_norm_stats(input: Tensor, eps: float) -> tuple:
    """The batch's mean and inverse standard deviation per channel, on CUDA in PyTorch; a CPU
    tensor raises PyTorch's ``NotImplementedError``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.batch_norm_stats(symgrad.ones(2, 1), 1e-5)
    Traceback (most recent call last):
    ...
    NotImplementedError: Could not run 'aten::batch_norm_stats' with arguments from the 'CPU'...
    """
    raise _cuda_only("batch_norm_stats")


def batch_norm_elemt(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    mean: Tensor,
    invstd: Tensor,
    eps: float,
) -> Tensor:
    """``(input - mean) * invstd * weight + bias`` per channel, on CUDA in PyTorch; a CPU
    tensor raises PyTorch's ``NotImplementedError``.

    Examples
    --------
    >>> import symgrad
    >>> m, s = symgrad.zeros(1), symgrad.ones(1)
    >>> symgrad.batch_norm_elemt(symgrad.ones(2, 1), None, None, m, s, 1e-5)
    Traceback (most recent call last):
    ...
    NotImplementedError: Could not run 'aten::batch_norm_elemt' with arguments from the 'CPU'...
    """
    raise _cuda_only("batch_norm_elemt")


def batch_norm_gather_stats(
    input: Tensor,
    mean: Tensor,
    invstd: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    momentum: float,
    eps: float,
    count: int,
) -> tuple:
    """The global mean and inverse standard deviation from each process's (equal counts),
    on CUDA in PyTorch; a CPU tensor raises PyTorch's ``NotImplementedError``.

    Examples
    --------
    >>> import symgrad
    >>> m, s = symgrad.zeros(2, 1), symgrad.ones(2, 1)
    >>> symgrad.batch_norm_gather_stats(symgrad.ones(2, 1), m, s, None, None, 0.1, 1e-5, 2)
    Traceback (most recent call last):
    ...
    NotImplementedError: Could not run 'aten::batch_norm_gather_stats' with arguments from the...
    """
    raise _cuda_only("batch_norm_gather_stats")


def batch_norm_gather_stats_with_counts(
    input: Tensor,
    mean: Tensor,
    invstd: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    momentum: float,
    eps: float,
    counts: Tensor,
) -> tuple:
    """:func:`batch_norm_gather_stats` with each process's count, on CUDA in PyTorch; a CPU
    tensor raises PyTorch's ``NotImplementedError``.

    Examples
    --------
    >>> import symgrad
    >>> m, s, n = symgrad.zeros(2, 1), symgrad.ones(2, 1), symgrad.tensor([2.0, 2.0])
    >>> symgrad.batch_norm_gather_stats_with_counts(symgrad.ones(2, 1), m, s, None, None,
    ...                                             0.1, 1e-5, n)
    Traceback (most recent call last):
    ...
    NotImplementedError: Could not run 'aten::batch_norm_gather_stats_with_counts' with...
    """
    raise _cuda_only("batch_norm_gather_stats_with_counts")


def batch_norm_backward_reduce(
    grad_out: Tensor,
    input: Tensor,
    mean: Tensor,
    invstd: Tensor,
    weight: Tensor | None,
    input_g: bool,
    weight_g: bool,
    bias_g: bool,
) -> tuple:
    """The per-channel sums of the batch norm backward, on CUDA in PyTorch; a CPU tensor
    raises PyTorch's ``NotImplementedError``.

    Examples
    --------
    >>> import symgrad
    >>> x, m, s = symgrad.ones(2, 1), symgrad.zeros(1), symgrad.ones(1)
    >>> symgrad.batch_norm_backward_reduce(x, x, m, s, None, True, True, True)
    Traceback (most recent call last):
    ...
    NotImplementedError: Could not run 'aten::batch_norm_backward_reduce' with arguments from...
    """
    raise _cuda_only("batch_norm_backward_reduce")


def batch_norm_backward_elemt(
    grad_out: Tensor,
    input: Tensor,
    mean: Tensor,
    invstd: Tensor,
    weight: Tensor | None,
    sum_dy: Tensor,
    sum_dy_xmu: Tensor,
    count: Tensor,
) -> Tensor:
    """The input's gradient of a synchronized batch norm, on CUDA in PyTorch; a CPU tensor
    raises PyTorch's ``NotImplementedError``.

    Examples
    --------
    >>> import symgrad
    >>> x, m, s, n = symgrad.ones(2, 1), symgrad.zeros(1), symgrad.ones(1), symgrad.tensor([2])
    >>> symgrad.batch_norm_backward_elemt(x, x, m, s, None, m, m, n)
    Traceback (most recent call last):
    ...
    NotImplementedError: Could not run 'aten::batch_norm_backward_elemt' with arguments from...
    """
    raise _cuda_only("batch_norm_backward_elemt")


def _no_derivative(xp: Any, grads: tuple, ctx: Any) -> tuple:
    raise RuntimeError("derivative for aten::batch_norm_update_stats is not implemented")


# PyTorch declares no derivative: both outputs share a node that raises when backward reaches it
_UPDATE_STATS = Factorization(
    "batch_norm_update_stats",
    lambda *arrays, stats: stats,
    _no_derivative,
    backward="NotImplemented",
    n_outputs=2,
)


def batch_norm_update_stats(
    input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, momentum: float
) -> tuple:
    """The batch's mean and biased variance per channel of (N, C, ...) (no derivative, as in
    PyTorch); the running statistics given are updated in place with ``momentum`` and the
    unbiased variance, as a batch norm in training does.

    Examples
    --------
    >>> import symgrad
    >>> mean, var = symgrad.zeros(1), symgrad.ones(1)
    >>> symgrad.batch_norm_update_stats(symgrad.tensor([[1.0], [3.0]]), mean, var, 0.5)
    (tensor([2.]), tensor([1.]))
    >>> mean, var
    (tensor([1.]), tensor([1.5000]))
    """
    if type(input) is not Tensor:
        require_tensor("batch_norm_update_stats", "input", 1, input)
    if momentum is None or isinstance(momentum, bool):
        raise TypeError(
            "batch_norm_update_stats(): argument 'momentum' (position 4) must be float, not "
            f"{type(momentum).__name__}"
        )
    if input.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got 1)"
        )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f'"batch_norm_update_stats_cpu" not implemented for '
            f"'{_functional._type_name(input.dtype)}'"
        )
    if input.numel() == 0:
        raise RuntimeError(
            "input tensor must have at least one element, but got input_sizes = "
            f"{list(input.shape)}"
        )
    running = tuple(t for t in (running_mean, running_var) if t is not None)
    if any(t.dtype is not input.dtype for t in running):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    data = input._data
    axes = (0,) + tuple(range(2, input.ndim))
    stats = (data.mean(axis=axes), data.var(axis=axes))
    update_running_stats(input, running_mean, running_var, axes, float(momentum))
    return _UPDATE_STATS(input, *running, stats=stats)
