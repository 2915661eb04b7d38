"""ATen's native normalizations and dropout at the top level, which return what their
backward saves with the result: ``native_layer_norm`` and ``native_group_norm`` (output, mean,
reciprocal standard deviation), ``native_batch_norm`` (output, batch mean, batch inverse
standard deviation), ``native_dropout`` (output, boolean keep mask); and the deprecated norms
PyTorch keeps for TorchScript: ``frobenius_norm``, ``nuclear_norm`` and ``native_norm`` (sparse
tensors only in PyTorch, so it refuses every symgrad tensor, as PyTorch refuses a dense one).

The three normalizations are one node for all their outputs (``NativeLayerNormBackward0``,
``NativeGroupNormBackward0``, ``NativeBatchNormBackward0``), whose rule for the output is the
one of :mod:`symgrad.ops.normalization`. As in PyTorch, only group norm's statistics carry a
gradient; layer and batch norm return theirs as plain tensors.

Examples
--------
>>> import symgrad
>>> out, mean, rstd = symgrad.native_layer_norm(symgrad.tensor([[1.0, 3.0]]), [2], None, None, 0.0)
>>> out, mean, rstd
(tensor([[-1.,  1.]]), tensor([[2.]]), tensor([[1.]]))
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad import random
from symgrad._memory_format import target_strides
from symgrad.nn import normalization as _functional
from symgrad.ops import normalization as _rules
from symgrad.ops.norms import at_norm
from symgrad.prim.factorization import Factorization
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = [
    "native_layer_norm",
    "native_group_norm",
    "native_batch_norm",
    "native_dropout",
    "native_norm",
    "frobenius_norm",
    "nuclear_norm",
]


# -- the normalizations: one node, three outputs ------------------------------------------------
def _norm_kernel(x: np.ndarray, *affine: np.ndarray, **p: Any) -> tuple:
    xr = x if p["group"] is None else x.reshape(p["group"])
    axes = p["axes"]
    if p["stats"] is None:
        mean = xr.mean(axis=axes, keepdims=True)
        rstd = 1.0 / np.sqrt(((xr - mean) ** 2).mean(axis=axes, keepdims=True) + p["eps"])
        saved = (mean.reshape(p["stat_shape"]), rstd.reshape(p["stat_shape"]))
    else:
        mean, var = p["stats"]
        rstd = 1.0 / np.sqrt(var + p["eps"])
        saved = (np.zeros(0, x.dtype), np.zeros(0, x.dtype))  # PyTorch saves none in eval
    out = ((xr - mean) * rstd).reshape(x.shape)
    if p["has_w"]:
        out = out * affine[0].reshape(p["view"])
    if p["has_b"]:
        out = out + affine[-1].reshape(p["view"])
    return (out.astype(x.dtype, copy=False),) + tuple(s.astype(x.dtype) for s in saved)


def _norm_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    """The output's rule, plus (group norm) the statistics' own: ``d mean / dx = 1 / n`` and
    ``d rstd / dx = -rstd**3 (x - mean) / n``."""
    g, g_mean, g_rstd = grads
    p = c.params
    if g is None:
        x = c.inputs[0]
        g = xp.constant(np.zeros(c.shapes[0], getattr(x, "_data", x).dtype))
    result = list(_rules._vjp(xp, g, c))
    if (g_mean is None and g_rstd is None) or not c.needs[0]:
        return tuple(result)
    x, axes = c.inputs[0], p["axes"]
    xr = xp.reshape(x, p["group"])
    centred, rstd = _rules._stats(xp, xr, axes, p["eps"], None)
    n = math.prod(xr.shape[a] for a in axes)
    keep = tuple(1 if a in axes else s for a, s in enumerate(xr.shape))
    extra = None
    if g_mean is not None:
        extra = xp.reshape(g_mean, keep) / n + centred * 0.0
    if g_rstd is not None:
        term = xp.reshape(g_rstd, keep) * (rstd * rstd * rstd) * centred / (-n)
        extra = term if extra is None else extra + term
    result[0] = result[0] + xp.reshape(extra, tuple(x.shape))
    return tuple(result)


def _norm_node(backward: str, differentiable: tuple | None) -> Factorization:
    return Factorization(
        "native_norm",
        _norm_kernel,
        _norm_vjp,
        backward=backward,
        n_outputs=3,
        differentiable=differentiable,
    )


_LAYER = _norm_node("NativeLayerNormBackward0", (0,))
_GROUP = _norm_node("NativeGroupNormBackward0", None)
_BATCH = _norm_node("NativeBatchNormBackward0", (0,))


def _call(node: Factorization, input: Tensor, weight: Any, bias: Any, **params: Any) -> tuple:
    affine = tuple(t for t in (weight, bias) if t is not None)
    params.setdefault("group", None)
    params.setdefault("stats", None)
    return node(
        input,
        *affine,
        has_w=weight is not None,
        has_b=bias is not None,
        tie_bias=node is not _GROUP,
        **params,
    )


def _same_dtype(input: Tensor, *others: Any) -> None:
    if any(t is not None and t.dtype is not input.dtype for t in others):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def native_layer_norm(
    input: Tensor, normalized_shape: Any, weight: Tensor | None, bias: Tensor | None, eps: float
) -> tuple:
    """:func:`symgrad.nn.functional.layer_norm` with the mean and reciprocal standard
    deviation it normalized by (shape of ``input`` with the normalized dims 1; no gradient).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[1.0, 3.0], [2.0, 2.0]], requires_grad=True)
    >>> out, mean, rstd = symgrad.native_layer_norm(x, [2], None, None, 1e-5)
    >>> out.grad_fn.name(), mean.flatten(), mean.requires_grad
    ('NativeLayerNormBackward0', tensor([2., 2.]), False)
    """
    shape = _functional.check_layer_norm("native_layer_norm", input, normalized_shape, weight, bias)
    _same_dtype(input, weight, bias)
    _functional._floating(input, "LayerNormKernelImpl")
    k = len(shape)
    axes = tuple(range(input.ndim - k, input.ndim))
    stat_shape = tuple(input.shape[: input.ndim - k]) + (1,) * k
    return _call(
        _LAYER, input, weight, bias, axes=axes, eps=float(eps), view=tuple(shape),
        stat_shape=stat_shape,
    )  # fmt: skip


def native_group_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> tuple:
    """:func:`symgrad.nn.functional.group_norm` of an input of ``N * C * HxW`` elements, with
    each group's mean and reciprocal standard deviation, shape ``(N, group)`` (both carry a
    gradient, as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[[1.0], [3.0]]])
    >>> out, mean, rstd = symgrad.native_group_norm(x, None, None, 1, 2, 1, 1, 0.0)
    >>> out.flatten(), mean, rstd
    (tensor([-1.,  1.]), tensor([[2.]]), tensor([[1.]]))
    """
    if input.numel() != N * C * HxW:
        raise RuntimeError(
            "Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    if C % group:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={group}"
        )
    if input.ndim < 2 or tuple(input.shape[:2]) != (N, C):
        raise RuntimeError(
            f"native_group_norm: expected an input (N={N}, C={C}, ...), got {list(input.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != C):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(t.shape)} and input of shape "
                f"{list(input.shape)}"
            )
    _same_dtype(input, weight, bias)
    _functional._floating(input, "GroupNormKernelImpl")
    return _call(
        _GROUP, input, weight, bias, axes=(2,), eps=float(eps),
        view=_functional._channel_view(input), group=(N, group, -1 if input.numel() else 0),
        stat_shape=(N, group),
    )  # fmt: skip


def native_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> tuple:
    """:func:`symgrad.nn.functional.batch_norm` with the batch's mean and inverse standard
    deviation per channel (in ``training``; empty tensors otherwise, as PyTorch saves none);
    in ``training`` the running statistics, when given, are updated in place.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[1.0], [3.0]])
    >>> out, mean, invstd = symgrad.native_batch_norm(x, None, None, None, None, True, 0.1, 0.0)
    >>> out.flatten(), mean, invstd
    (tensor([-1.,  1.]), tensor([2.]), tensor([1.]))
    """
    if input.ndim < 2:
        raise RuntimeError(f"native_batch_norm needs an input (N, C, ...), got {input.ndim}-d")
    c = input.shape[1]
    for name, t in (("weight", weight), ("bias", bias)):
        _functional._check_channels(name, t, c)
    if not training and (running_mean is None or running_var is None):
        missing = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{missing} must be defined in evaluation mode")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        _functional._check_channels(name, t, c)
    _same_dtype(input, weight, bias, running_mean, running_var)
    _functional._floating(input, "batch_norm")
    view = _functional._channel_view(input)
    axes = (0,) + tuple(range(2, input.ndim))
    stats = None
    if not training:
        stats = (running_mean._data.reshape(view), running_var._data.reshape(view))
    else:
        update_running_stats(input, running_mean, running_var, axes, momentum)
    return _call(
        _BATCH, input, weight, bias, axes=axes, eps=float(eps), view=view, stats=stats,
        stat_shape=(c,),
    )  # fmt: skip


def update_running_stats(input: Tensor, mean: Any, var: Any, axes: tuple, momentum: float) -> None:
    """The running statistics' update in place, of each one given."""
    if mean is None and var is None:
        return
    scratch = np.zeros(input.shape[1], input._data.dtype)
    found = [t if t is not None else Tensor._make(scratch.copy()) for t in (mean, var)]
    _functional._update_running(input._data, found[0], found[1], axes, momentum)


# -- dropout that returns its mask ----------------------------------------------------------------
_DROPOUT = Structural(
    "native_dropout",
    lambda xp, x, factor: x * xp.constant(factor),
    lambda xp, g, c: (g * xp.constant(c.params["factor"]),),
    backward="NativeDropoutBackward0",
    jvp="linear",
)


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple:
    """Dropout returning ``(output, mask)``: in training (``train`` True or None) each
    element is kept with probability ``1 - p`` and scaled by ``1 / (1 - p)``, ``mask`` True
    where kept; otherwise the output is the input (still a ``NativeDropoutBackward0`` node)
    and the mask all True.

    Examples
    --------
    >>> import symgrad
    >>> out, mask = symgrad.native_dropout(symgrad.ones(3), 0.5, False)
    >>> out, mask
    (tensor([1., 1., 1.]), tensor([True, True, True]))
    """
    if not 0.0 <= 1.0 - p <= 1.0:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1.0 - p}")
    dtype = input._data.dtype
    if dtype.kind not in "fc":
        raise RuntimeError(
            "result type Float can't be cast to the desired output type "
            f"{_functional._type_name(input.dtype)}"
        )
    if train is False:
        keep = np.ones(tuple(input.shape), dtype=bool)
        factor = np.ones((), dtype)
    else:
        # PyTorch's native_dropout: a mask of probability 1 - p (rounded to float32), the
        # kept values scaled by 1 / (1 - p)
        p1m = float(np.float32(1.0 - p))
        stream = random.numpy_generator(None, input)
        draw = lambda s: stream.bernoulli_draws(s, p1m)  # noqa: E731
        strides = target_strides(input._data, None)  # (empty_like's mask: its memory order)
        keep = random.in_memory_order(draw, tuple(input.shape), strides)
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        factor = (keep * np.asarray(scale, dtype)).astype(dtype, copy=False)
    return _DROPOUT(input, factor=factor), Tensor._make(keep)


# -- the deprecated norms -------------------------------------------------------------------------
def native_norm(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """PyTorch's norm of sparse tensors; a dense (every symgrad) tensor is refused with
    PyTorch's ``NotImplementedError``: use :func:`symgrad.linalg.vector_norm`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.native_norm(symgrad.ones(2))
    Traceback (most recent call last):
    ...
    NotImplementedError: Could not run 'aten::native_norm' with arguments from the 'CPU' backend...
    """
    overload = "aten::native_norm" if len(args) + len(kwargs) <= 1 else (
        "aten::native_norm.ScalarOpt_dim_dtype"
    )  # fmt: skip
    raise NotImplementedError(
        f"Could not run '{overload}' with arguments from the 'CPU' backend. '{overload}' is "
        "only available for sparse tensors (SparseCPU); use symgrad.linalg.vector_norm"
    )


def _deprecated(name: str, instead: str) -> None:
    warnings.warn(
        f"at::{name} is deprecated and it is just left for JIT compatibility. It will be "
        f"removed in a future PyTorch release. Please use `{instead}` instead",
        UserWarning,
        stacklevel=3,
    )


def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """The 2-norm over ``dim`` (at most two dims; ``[]``: all of them), ATen's ``norm``
    (``NormBackward1``); deprecated in PyTorch, which warns.

    Examples
    --------
    >>> import warnings, symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.frobenius_norm(symgrad.tensor([[3.0, 4.0]]), [1])
    tensor([5.])
    """
    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) > 2:
        raise RuntimeError(
            f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead."
        )
    _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{_functional._type_name(input.dtype)} instead."
        )
    return at_norm(input, 2.0, dims if dims else list(range(input.ndim)), keepdim)


def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The sum of the singular values of the matrices over ``dim`` (default the last two);
    ``nuclear_norm(input, keepdim)`` also works, as in PyTorch; deprecated there, which warns.

    Examples
    --------
    >>> import warnings, symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.nuclear_norm(symgrad.tensor([[3.0, 0.0], [0.0, -4.0]]))
    tensor(7.)
    """
    from symgrad import linalg

    if isinstance(dim, bool):
        dim, keepdim = None, dim
    _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if dim is None:
        dim = (-2, -1)
    dims = tuple(dim)
    if input.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if len(dims) != 2:
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}"
        )
    return linalg.matrix_norm(input, "nuc", dims, keepdim)
