"""Layer, group and batch normalization: one node each, as PyTorch's native kernels
(``NativeLayerNormBackward0``, ``NativeGroupNormBackward0``, ``NativeBatchNormBackward0``).

One rule serves the three: the input, seen in the shape ``group`` (group norm's
``(N, G, -1)``; the input's own shape otherwise), is centred and scaled by its mean and biased
variance over ``axes``, or by given statistics (batch norm in evaluation), then multiplied by
the weight and shifted by the bias, both seen in the shape ``view``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._memory_format import in_suggested_format, row_major
from symgrad.ops import elementwise as E
from symgrad.ops.norm_gradients import batch_edges, layer_edges, tied_gradients
from symgrad.prim import batching, blocks
from symgrad.prim.numpy_xp import (
    HALF,
    NP,
    half_in_float32,
    half_rule_in_float32,
    sum_to_numpy,
    widen,
)
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["native_norm"]


def _stats(xp: Any, xr: Any, axes: tuple, eps: float, stats: Any, saved: bool = False) -> tuple:
    """``(x - mean, 1 / sqrt(var + eps))`` over ``axes``, or with the given statistics;
    ``saved``: from the mean and ``1 / std`` rounded to float16 (see ``_as_saved``)."""
    if stats is not None:
        mean, var = stats
        return xr - xp.constant(mean), xp.constant(1 / np.sqrt(var + eps))
    n = math.prod(xr.shape[a] for a in axes)
    mean = xp.sum(xr, axes, True) / n
    centred = xr - mean
    var = xp.sum(centred * centred, axes, True) / n
    rstd = xp.elementwise(E.RSQRT, (var + eps,))
    if saved:
        mean, rstd = _as_saved(mean), _as_saved(rstd)
        centred = xr - mean
    return centred, rstd


def _as_saved(a: np.ndarray) -> np.ndarray:
    """A float32 statistic of float16 data as PyTorch's float16 backward reads it: its native
    norms save the mean and ``1 / std`` in the input's dtype."""
    return a.astype(HALF).astype(np.float32)


def _forward(
    xp: Any, x: Any, *affine: Any, axes, eps, group, view, stats, has_w, has_b, saved=False
) -> Any:
    xr = x if group is None else xp.reshape(x, group)
    centred, rstd = _stats(xp, xr, axes, eps, stats, saved)
    out = centred * rstd
    if group is not None:
        out = xp.reshape(out, x.shape)
    if has_w:
        out = out * xp.reshape(affine[0], view)
    if has_b:
        out = out + xp.reshape(affine[-1], view)
    return out


def _kernel(
    x: Any, *affine: Any, axes, eps, group, view, stats, has_w, has_b, tie_bias, saved=False
) -> Any:
    """The forward on NumPy: a layer norm over the last axis of a large array in blocks of
    whole rows on every core (``blocks.rows``: the same operations on each row, so the same
    values), as PyTorch shares the rows among its threads; ``_forward`` otherwise. ``saved``:
    normalized by the statistics rounded to float16 (see ``_as_saved``)."""
    params = dict(axes=axes, eps=eps, group=group, view=view, stats=stats, saved=saved)
    if not saved and _per_channel(x, x, params):
        return _channel_forward(x, affine, has_w, has_b, axes, eps, view)
    big = getattr(x, "size", 0) >= blocks.EAGER_MIN
    if big and group is None and stats is None and not saved and _trailing(x, axes):
        flat = [np.ascontiguousarray(a).reshape(-1) for a in affine]
        w = flat[0] if has_w else None
        b = flat[-1] if has_b else None
        out = blocks.rows(lambda rows: _normalized_rows(rows, eps, w, b), (x,))
        if out is not None:
            return out
    return _forward(NP, x, *affine, has_w=has_w, has_b=has_b, **params)


def _trailing(x: Any, axes: tuple) -> bool:
    """Whether ``axes`` is the last axis of the array ``x`` alone (a layer norm over one
    dimension: NumPy sums over several axes in another order than over one row of them)."""
    ndim = getattr(x, "ndim", 0)
    return ndim > 0 and tuple(axes) == (ndim - 1,)


def _normalized_rows(rows: np.ndarray, eps: float, w: Any, b: Any) -> np.ndarray:
    """``_forward``'s steps on a block of rows, each normalized over its own values."""
    out = _xhat_rows(rows, eps)
    if w is not None:
        out = out * w
    if b is not None:
        out = out + b
    return out


def _numeric_vjp(g: Any, arrays: list, out: Any, needs: list, params: dict, meta: tuple) -> Any:
    """``_vjp`` on NumPy for a layer norm over the last axis of a large array: the input's
    gradient in blocks of whole rows on every core, the weight's and the bias's (sums over the
    rows) as the rule computes them, from the normalized input recomputed in blocks of rows.
    None (the rule) for anything else."""
    x = arrays[0]
    has_w, has_b, eps, view = params["has_w"], params["has_b"], params["eps"], params["view"]
    if _per_channel(g, x, params):
        return _channel_vjp(g, x, arrays[1] if has_w else None, needs, params, meta)
    if (
        getattr(x, "size", 0) < blocks.EAGER_MIN
        or params["group"] is not None
        or params["stats"] is not None
        or type(g) is not np.ndarray
        or type(x) is not np.ndarray
        or g.shape != x.shape
        or not _trailing(x, params["axes"])
    ):
        return None
    saved = g.dtype is HALF
    if saved:  # float32 from the saved statistics, as the rule (the engine rounds the result)
        g, x, arrays = widen(g), widen(x), widen(arrays)
    w = np.ascontiguousarray(arrays[1]).reshape(-1) if has_w else None
    grads: list = []
    if needs[0]:
        gx = blocks.rows(lambda gr, xr: _input_gradient_rows(gr, xr, eps, w, saved), (g, x))
        if gx is None:
            return None
        grads.append(gx)
    else:
        grads.append(None)
    if has_w:
        if needs[1]:
            xhat = blocks.rows(lambda xr: _xhat_rows(xr, eps, saved), (x,))
            if xhat is None:
                return None
            grads.append(sum_to_numpy(g * xhat, view).reshape(meta[1][0]))
        else:
            grads.append(None)
    if has_b:
        grads.append(sum_to_numpy(g, view).reshape(meta[-1][0]) if needs[-1] else None)
    return grads


def _per_channel(g: Any, x: Any, params: dict) -> bool:
    """Whether the norm is a batch norm in training on float32 or float64 arrays: each
    channel (dimension 1) normalized over every other dimension by its own statistics."""
    return (
        type(x) is np.ndarray
        and type(g) is np.ndarray
        and x.dtype in _CHANNEL_DTYPES
        and g.dtype == x.dtype
        and g.shape == x.shape
        and x.ndim >= 2
        and params["group"] is None
        and params["stats"] is None
        and tuple(params["axes"]) == (0,) + tuple(range(2, x.ndim))
    )


_CHANNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _channel_forward(x: np.ndarray, affine: tuple, has_w, has_b, axes, eps, view) -> Any:
    """A batch norm in training as PyTorch's kernel: the statistics as the rule's, then
    ``x * a + c`` with, per channel, ``a = w / std`` and ``c = b - mean * a`` (two passes
    instead of the rule's three, into one new array)."""
    n = x.size // x.shape[1] if x.size else 0
    mean = x.sum(axis=axes, keepdims=True) / max(n, 1)
    centred = x - mean
    var = np.multiply(centred, centred, out=centred).sum(axis=axes, keepdims=True) / max(n, 1)
    a = E.RSQRT.numeric(var + eps)
    if has_w:
        a = a * affine[0].reshape(view)
    c = -mean * a
    if has_b:
        c = affine[-1].reshape(view) + c
    out = np.multiply(x, a, out=centred)
    return np.add(out, c, out=out)


def _channel_vjp(g: np.ndarray, x: np.ndarray, w: Any, needs: list, params: dict, meta) -> list:
    """A batch norm's gradients as PyTorch's kernel computes them, in fewer passes than the
    rule: per channel the sums ``sum(g)`` (the bias's gradient) and
    ``dot = sum((x - mean) * g)`` (times ``1 / std`` the weight's), then
    ``(g - sum(g) / n - (x - mean) * dot / (n * var_eps)) / std * w``."""
    axes = tuple(params["axes"])
    n = x.size // x.shape[1] if x.size else 0
    centred, rstd = _stats(NP, x, axes, params["eps"], None)
    total = g.sum(axis=axes, keepdims=True)
    dot = np.multiply(centred, g).sum(axis=axes, keepdims=True)
    grads: list = [None]
    if needs[0]:
        k = dot * rstd * rstd / max(n, 1)
        gx = np.multiply(centred, k, out=centred)  # (x - mean) * k, in the centred array
        np.subtract(g - total / max(n, 1), gx, out=gx)
        scale = rstd if w is None else rstd * w.reshape(params["view"])
        grads[0] = np.multiply(gx, scale, out=gx)
    if params["has_w"]:
        grads.append((dot * rstd).reshape(meta[1][0]) if needs[1] else None)
    if params["has_b"]:
        grads.append(total.reshape(meta[-1][0]) if needs[-1] else None)
    return grads


def _stats_rows(rows: np.ndarray, eps: float, saved: bool = False) -> tuple:
    """``_stats``'s steps on a block of rows: each row's ``(x - mean, 1 / sqrt(var + eps))``."""
    n = rows.shape[-1]
    mean = rows.sum(axis=-1, keepdims=True) / n
    centred = rows - mean
    var = (centred * centred).sum(axis=-1, keepdims=True) / n
    rstd = E.RSQRT.numeric(var + eps)
    if saved:
        mean, rstd = _as_saved(mean), _as_saved(rstd)
        centred = rows - mean
    return centred, rstd


def _xhat_rows(rows: np.ndarray, eps: float, saved: bool = False) -> np.ndarray:
    """The normalized rows."""
    centred, rstd = _stats_rows(rows, eps, saved)
    return centred * rstd


def _input_gradient_rows(
    g: np.ndarray, rows: np.ndarray, eps: float, w: Any, saved: bool = False
) -> np.ndarray:
    """``_vjp``'s input gradient on a block of rows (each row's own sums)."""
    n = rows.shape[-1]
    centred, rstd = _stats_rows(rows, eps, saved)
    xhat = centred * rstd
    gxhat = g * w if w is not None else g
    mean_g = gxhat.sum(axis=-1, keepdims=True) / n
    mean_gx = (gxhat * xhat).sum(axis=-1, keepdims=True) / n
    return rstd * (gxhat - mean_g - xhat * mean_gx)


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = c.params
    x, axes, group, view = c.inputs[0], p["axes"], p["group"], p["view"]
    xr = x if group is None else xp.reshape(x, group)
    saved = p.get("saved", False) and p.get("half_stats", True)
    centred, rstd = _stats(xp, xr, axes, p["eps"], p["stats"], saved)
    xhat = centred * rstd
    shape = tuple(x.shape)
    grads = []
    gxhat = g * xp.reshape(c.inputs[1], view) if p["has_w"] else g
    if c.needs[0]:
        if group is not None:
            gxhat = xp.reshape(gxhat, group)
        if p["stats"] is None:
            n = math.prod(xr.shape[a] for a in axes)
            mean_g = xp.sum(gxhat, axes, True) / n
            mean_gx = xp.sum(gxhat * xhat, axes, True) / n
            gx = rstd * (gxhat - mean_g - xhat * mean_gx)
        else:
            gx = gxhat * rstd
        grads.append(gx if group is None else xp.reshape(gx, shape))
    else:
        grads.append(None)
    if p["has_w"]:
        if c.needs[1]:
            xh = xhat if group is None else xp.reshape(xhat, shape)
            grads.append(xp.reshape(xp.sum_to_size(g * xh, view), c.shapes[1]))
        else:
            grads.append(None)
    if p["has_b"]:
        gb = g
        if xp is INTERPRETERS.tensor and p["tie_bias"]:
            # PyTorch differentiates its backward as one node: the bias's gradient depends on
            # the input there too (with a zero derivative), so it requires grad with it
            gb = g + (xhat if group is None else xp.reshape(xhat, shape)) * 0.0
        grads.append(xp.reshape(xp.sum_to_size(gb, view), c.shapes[-1]) if c.needs[-1] else None)
    return tuple(grads)


def _jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """The forward rule: the normalization's Jacobian is symmetric, so the tangent of the
    normalized input is the VJP's formula applied to the input's tangent."""
    p = c.params
    x, axes, group, view = c.inputs[0], p["axes"], p["group"], p["view"]
    shape = tuple(x.shape)
    xr = x if group is None else xp.reshape(x, group)
    centred, rstd = _stats(xp, xr, axes, p["eps"], p["stats"])
    xhat = centred * rstd
    out = None
    if tangents[0] is not None:
        t = tangents[0] if group is None else xp.reshape(tangents[0], group)
        if p["stats"] is None:
            n = math.prod(xr.shape[a] for a in axes)
            mean_t = xp.sum(t, axes, True) / n
            mean_tx = xp.sum(t * xhat, axes, True) / n
            out = rstd * (t - mean_t - xhat * mean_tx)
        else:
            out = t * rstd
        if group is not None:
            out = xp.reshape(out, shape)
        if p["has_w"]:
            out = out * xp.reshape(c.inputs[1], view)
    xh = xhat if group is None else xp.reshape(xhat, shape)
    if p["has_w"] and tangents[1] is not None:
        term = xh * xp.reshape(tangents[1], view)
        out = term if out is None else out + term
    if p["has_b"] and tangents[-1] is not None:
        term = xp.expand(xp.reshape(tangents[-1], view), shape)
        out = term if out is None else out + term
    return out


def _batch_rule(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """Inside ``vmap``: each element normalized over its own ``axes`` (shifted past the batch);
    a batched weight or bias is seen in ``view`` with the batch in front."""
    x, *affine = args
    size = batching.batch_size(args, level)
    p = batching.unwrap_level(x, level, size)
    new = dict(params, axes=tuple(a + 1 for a in params["axes"]))
    if params["group"] is not None:
        new["group"] = (size,) + tuple(params["group"])
    if any(batching.is_batched(a, level) for a in affine):
        view = tuple(params["view"])
        new["view"] = (size,) + (1,) * (p.ndim - 1 - len(view)) + view
        affine = [batching.unwrap_level(a, level, size) for a in affine]
    return prim(p, *affine, **new)


def _node(
    backward: str,
    saved_forward: bool = False,
    rows: bool = False,
    saves: tuple = (0, 1),
    tied: Any = None,
) -> Structural:
    """float16 is computed in float32 and rounded once, forward and backward, as PyTorch's
    kernels; where they save the statistics in float16 (``half_stats``: no float32 parameter
    along), the backward reads them rounded, and the batch norm (``saved_forward``) also
    normalizes by them. The result is row-major (``rows``: a layer norm's) or in the format
    the input suggests (channels-last stays so). ``saves``: the inputs PyTorch's node saves
    (an in-place change of one breaks the backward); ``tied``: the edges of the one node
    PyTorch differentiates the backward as (see :func:`_tied`), if it does."""

    def kernel(
        xp: Any, *args: Any, half_stats: bool, saved: bool = False, saved_as=(), **params: Any
    ) -> Any:
        out = _kernel(*args, saved=saved and half_stats and saved_forward, **params)
        return row_major(out) if rows else in_suggested_format(out, args[0])

    rule = half_rule_in_float32(_vjp, saved=True)
    return Structural(
        "native_norm",
        lambda xp, *args, tie_bias, half_stats, saved_as=(), **params: _forward(
            xp, *args, **params
        ),
        rule
        if tied is None
        else tied_gradients(rule, backward.replace("Backward0", "BackwardBackward0"), tied),
        kernel=half_in_float32(kernel, saved=True),
        numeric_vjp=_numeric_vjp,
        saves=saves,
        backward=backward,
        jvp=_jvp,
        batch=_batch_rule,
        edges=_affine_edges,
    )


def _affine_edges(node: Any) -> tuple:
    """PyTorch's edges (input, weight, bias): None for a weight or bias left out."""
    has_w, has_b = node.params["has_w"], node.params["has_b"]
    return (0, 1 if has_w else None, (1 + has_w) if has_b else None)


_NODES = {
    # PyTorch's layer norm saves its bias too
    "layer": _node("NativeLayerNormBackward0", rows=True, saves=(0, 1, 2), tied=layer_edges),
    "group": _node("NativeGroupNormBackward0"),
    "batch": _node("NativeBatchNormBackward0", saved_forward=True, tied=batch_edges),
}


def native_norm(
    kind: str,
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    *,
    axes: tuple,
    eps: float,
    view: tuple,
    group: tuple | None = None,
    stats: tuple | None = None,
    running: tuple = (),
    shown: tuple = (),
) -> Tensor:
    """Normalize ``input`` over ``axes`` (of its ``group`` shape) and apply weight and bias;
    ``stats`` = (mean, var) arrays to use instead of the input's own (no gradient);
    ``running``: the running statistics a batch norm in training updates; ``shown``: the
    arguments the node shows as PyTorch's saves them, as ``(name, value)`` pairs."""
    affine = tuple(t for t in (weight, bias) if t is not None)
    # PyTorch saves the statistics in the parameters' dtype: float32 in mixed precision
    half_stats = all(t.dtype is not dtypes.float32 for t in affine + tuple(running))
    dtype = input.dtype.numpy
    if stats is not None:
        stats = tuple(np.asarray(s, dtype=dtype) for s in stats)
    if weight is None:  # (the saved input after the input is then the bias)
        shown += (("weight", None),)
    if kind == "layer":  # PyTorch's layer norm keeps the bias too
        shown += (("bias", bias),)
    return _NODES[kind](
        input,
        *affine,
        axes=axes,
        eps=float(eps),
        group=group,
        view=view,
        stats=stats,
        has_w=weight is not None,
        has_b=bias is not None,
        tie_bias=kind != "group",  # PyTorch's group norm backward leaves the bias's alone
        half_stats=half_stats,
        **({"saved_as": shown} if shown else {}),
    )
