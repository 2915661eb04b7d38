"""Normalization and distances of :mod:`symgrad.nn.functional`: ``layer_norm``,
``group_norm``, ``batch_norm`` (one node each, with PyTorch's argument checks), and
``normalize``, ``cosine_similarity``, ``pairwise_distance`` as PyTorch composes them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import int_tuple, require_float, require_tensor_arguments
from symgrad._silent import cast
from symgrad._tracing import TRACE, write
from symgrad.ops.copies import clamped_copy
from symgrad.ops.derivatives import _shifted
from symgrad.ops.normalization import native_norm
from symgrad.ops.norms import at_norm
from symgrad.prim import batching as _batching
from symgrad.tensor import Tensor

__all__ = [
    "layer_norm",
    "group_norm",
    "batch_norm",
    "normalize",
    "cosine_similarity",
    "pairwise_distance",
]


def _floating(input: Tensor, kernel: str) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f'"{kernel}" not implemented for {input.dtype!r}: normalize a floating tensor'
        )


def _check_parameter_dtypes(input: Tensor, *params: Tensor | None) -> None:
    """PyTorch's CPU rule for a norm's parameters: all of the input's dtype, or all float32
    with a float16 input (then computed in float32)."""
    defined = [p for p in params if p is not None]
    if not defined:
        return
    if defined[0].dtype != input.dtype:
        if any(p.dtype != dtypes.float32 for p in defined):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype != dtypes.float16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for p in defined[1:]:
        if p.dtype != defined[0].dtype:
            raise RuntimeError(
                f"expected scalar type {defined[0].dtype.scalar_type} but found "
                f"{p.dtype.scalar_type}"
            )


def _verify_batch_size(size: Any) -> None:
    if math.prod(size[:1] + size[2:]) == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )


def check_layer_norm(
    op: str, input: Tensor, normalized_shape: Any, weight: Tensor | None, bias: Tensor | None
) -> list:
    """PyTorch's checks of a layer norm's arguments (``op`` names the function in the
    TypeError); the normalized shape as a list."""
    shape = list(int_tuple(op, "normalized_shape", normalized_shape, 2))
    k = len(shape)
    if not k:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(t.shape)} and normalized_shape = {shape}"
            )
    if input.ndim < k or list(input.shape[input.ndim - k :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={shape}, expected input with shape [*, "
            f"{', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    return shape


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize over the last ``len(normalized_shape)`` dims (biased variance), then
    ``* weight + bias`` (one ``NativeLayerNormBackward0`` node).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.layer_norm(symgrad.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    shape = check_layer_norm("layer_norm", input, normalized_shape, weight, bias)
    k = len(shape)
    _check_parameter_dtypes(input, weight, bias)
    _floating(input, "LayerNormKernelImpl")
    axes = tuple(range(input.ndim - k, input.ndim))
    return native_norm("layer", input, weight, bias, axes=axes, eps=eps, view=tuple(shape))


def _channel_view(input: Tensor) -> tuple:
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each of ``num_groups`` groups of channels of (N, C, ...) over its channels
    and positions, then scale and shift per channel (one ``NativeGroupNormBackward0`` node).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.group_norm(symgrad.tensor([[1.0, 3.0]]), 1)
    tensor([[-1.0000,  1.0000]])
    """
    if input.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    n, c = input.shape[0], input.shape[1]
    _verify_batch_size([n * c // num_groups, num_groups] + list(input.shape[2:]))
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(t.shape)} and input of shape "
                f"{list(input.shape)}"
            )
    _check_parameter_dtypes(input, weight, bias)
    _floating(input, "GroupNormKernelImpl")
    group = (n, num_groups, -1) if input.numel() else (n, num_groups, 0)
    return native_norm(
        "group", input, weight, bias, axes=(2,), eps=eps, view=_channel_view(input), group=group
    )


def _check_channels(name: str, t: Tensor | None, c: int) -> None:
    if t is not None and t.numel() != c:
        raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
    *,
    _aten: bool = False,
) -> Tensor:
    """Normalize each channel of (N, C, ...) by the batch's statistics (``training``; the
    running statistics are then updated in place: ``(1 - momentum) * running + momentum *
    batch``, with the unbiased variance) or by the running statistics.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> mean, var = symgrad.zeros(1), symgrad.ones(1)
    >>> F.batch_norm(symgrad.tensor([[1.0], [3.0]]), mean, var, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    >>> mean, var
    (tensor([0.2000]), tensor([1.1000]))
    """
    # (``_aten``: torch.batch_norm, which skips the checks of the functional op's Python layer)
    if training and not _aten:
        if input.ndim == 0:
            raise IndexError("tuple index out of range (batch_norm needs an input (N, C, ...))")
        _verify_batch_size(input.shape)  # PyTorch's message shows a Size (a list for group norm)
    if training and eps <= 0.0 and not _aten:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if momentum is None or isinstance(momentum, bool):
        raise TypeError(
            "batch_norm(): argument 'momentum' (position 7) must be float, not "
            f"{type(momentum).__name__}"
        )
    if input.numel() == 0:
        return _empty_batch_norm(input, weight, bias)
    if input.ndim < 2:
        named = (("running_mean", running_mean), ("running_var", running_var))
        if _aten:  # ATen checks the affine parameters first, against no channels
            named = (("weight", weight), ("bias", bias), *named)
        for name, t in named:
            if t is not None:
                raise RuntimeError(f"{name} should contain 0 elements not {t.numel()}")
        if _aten and input.ndim == 0:
            raise RuntimeError("batch_norm needs an input (N, C, ...), but got a 0-d tensor")
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(input.ndim, 1)}, "
            f"{max(input.ndim, 1) - 1}], but got 1)"
        )
    c = input.shape[1]
    if not training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    # PyTorch checks the running statistics' sizes before the affine parameters'
    named = ("running_mean", running_mean), ("running_var", running_var)
    for name, t in (*named, ("weight", weight), ("bias", bias)):
        _check_channels(name, t, c)
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    _floating(input, "batch_norm")
    view = _channel_view(input)
    axes = (0,) + tuple(range(2, input.ndim))
    if running_mean is not None and _batching.any_batched(input, running_mean, running_var):
        found = _batched_running(
            input, running_mean, running_var, weight, bias, training, momentum, eps
        )
        if found is not None:
            return found
    _check_parameter_dtypes(input, weight, bias, running_mean, running_var)
    shown = (("running_mean", running_mean), ("running_var", running_var))
    if not training:
        stats = (running_mean._data.reshape(view), running_var._data.reshape(view))
        return native_norm(
            "batch", input, weight, bias, axes=axes, eps=eps, view=view, stats=stats, shown=shown
        )
    running: tuple = ()
    if running_mean is not None:
        _update_running(input._data, running_mean, running_var, axes, momentum)
        running = (running_mean, running_var)
    return native_norm(
        "batch", input, weight, bias, axes=axes, eps=eps, view=view, running=running, shown=shown
    )


_NOT_BATCHED = (
    "Batch norm got a batched tensor as input while the running_mean or running_var, which will "
    "be updated in place, were not batched.\nIf you are using a module and do not need eval "
    "mode, please set `track_running_stats` to be False.If you are using a prebuilt module and "
    "do not need eval mode, please see the functorch website for resources on how to patch "
    "your module to work with vmap"
)


def _batched_running(
    input: Tensor,
    mean: Tensor,
    var: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    """``batch_norm`` with running statistics inside ``vmap``, as PyTorch's rule: in training a
    batched input needs batched statistics, and each element updates its own in place; in
    evaluation each element is normalized by its own statistics. None where the statistics are
    not batched (the usual path serves)."""
    level = max(t._level for t in (input, mean, var) if type(t) is _batching.BatchedTensor)
    stats = [_batching.is_batched(t, level) for t in (mean, var)]
    if training and _batching.is_batched(input, level) and not all(stats):
        raise _batching.Refused(_NOT_BATCHED)
    if not any(stats):
        return None
    if not all(stats):
        raise _batching.Unbatchable("batch_norm with only one of its running statistics batched")
    if training:
        size = _batching.batch_size((input, mean, var), level)
        x = _batching.unwrap_level(input, level, size)
        m, v = mean._physical, var._physical
        if any(type(t) is _batching.BatchedTensor for t in (x, m, v)):
            raise _batching.Unbatchable("batch_norm's running statistics in nested vmaps")
        _update_running(x._data, m, v, (1,) + tuple(range(3, x.ndim)), momentum)
        return batch_norm(input, None, None, weight, bias, True, momentum, eps)
    view = (-1,) + (1,) * (input.ndim - 2)
    out = (input - mean.detach().reshape(view)) * (var.detach().reshape(view) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(view)
    return out if bias is None else out + bias.reshape(view)


def _empty_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """PyTorch's answer for an empty input: a copy (so the graph stays connected), times
    the first weight, plus the first bias."""
    out = input.clone()
    if weight is not None:
        out = out * weight[0]
    if bias is not None:
        out = out + bias[0]
    return out


def _update_running(
    data: np.ndarray, mean: Tensor, var: Tensor, axes: tuple, momentum: float
) -> None:
    """PyTorch's update of the running statistics, in place."""
    n = math.prod(data.shape[a] for a in axes)
    if data.dtype == np.float16:  # PyTorch's kernel computes in float32, rounding once
        data = data.astype(np.float32)
    with np.errstate(all="ignore"):  # (inf and nan are PyTorch's statistics too)
        batch_mean = data.mean(axis=axes)
        batch_var = (
            data.var(axis=axes) * (n / (n - 1)) if n > 1 else np.full_like(batch_mean, np.nan)
        )
    if TRACE.log is not None:
        write(mean, "updating the running statistics (a module in training mode)")
    # written in place without a version bump, as PyTorch's kernel does
    for running, batch in ((mean, batch_mean), (var, batch_var)):
        stored = running._data
        work = stored.astype(np.float32) if stored.dtype == np.float16 else stored
        with np.errstate(all="ignore"):
            new = (1 - momentum) * work + momentum * batch.astype(work.dtype)
        np.copyto(running._data, cast(new, stored.dtype))


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """``input / max(norm(input, p, dim), eps)`` (PyTorch's composition, ``DivBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.normalize(symgrad.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    from symgrad.ops.out import div  # the division that takes out=

    return div(input, denom, out=out)


def _as_float(t: Tensor, dtype: Any) -> Tensor:
    return t if t.dtype is dtype else t.to(dtype)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``<x1, x2> / (max(|x1|, eps) * max(|x2|, eps))`` along ``dim``, computed as PyTorch:
    each normalized first (the clamp passes the gradient through), then summed.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.cosine_similarity(symgrad.tensor([[1.0, 0.0]]), symgrad.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        require_tensor_arguments("cosine_similarity", "x1 x2", x1, x2)
    common = dtypes.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {_type_name(common)}"
        )
    x1, x2 = _as_float(x1, common), _as_float(x2, common)
    shape = _broadcast(x1, x2)
    if tuple(x1.shape) != tuple(x2.shape):  # PyTorch's expand_outplace: both, once they differ
        x1, x2 = x1.expand(shape), x2.expand(shape)
    norms = [clamped_copy(x.norm(2, dim, keepdim=True), eps) for x in (x1, x2)]
    return ((x1 / norms[0]) * (x2 / norms[1])).sum(dim)


def _type_name(dtype: Any) -> str:
    names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "bool": "Bool"}
    t = str(dtype).split(".")[-1]
    return names.get(t, t.capitalize())


def _broadcast(x1: Tensor, x2: Tensor) -> tuple:
    try:
        return np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    except ValueError:
        a, b = tuple(x1.shape), tuple(x2.shape)
        n = max(len(a), len(b))
        a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
        k = next(i for i in range(n - 1, -1, -1) if a[i] != b[i] and 1 not in (a[i], b[i]))
        raise RuntimeError(
            f"The size of tensor a ({a[k]}) must match the size of tensor b ({b[k]}) at "
            f"non-singleton dimension {k}"
        ) from None


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """``norm(x1 - x2 + eps, p)`` along the last dim (ATen's ``norm``, ``NormBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.pairwise_distance(symgrad.tensor([[3.0, 4.0]]), symgrad.zeros(1, 2), eps=0.0)
    tensor([5.])
    """
    if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
        require_tensor_arguments("pairwise_distance", "x1 x2", x1, x2)
    if type(p) is not float:
        require_float("pairwise_distance", "p", p)
    last = max(x1.ndim, x2.ndim) - 1
    d = x1 - x2
    # ATen adds eps as a Scalar (AddBackward1)
    d = _shifted(d, eps) if d.dtype.is_floating_point else d + eps
    return at_norm(d, p, last, keepdim)
