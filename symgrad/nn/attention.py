"""``scaled_dot_product_attention`` of :mod:`symgrad.nn.functional`, composed of recorded ops
as PyTorch's reference ("math") implementation: ``softmax(q k^T * scale + bias) v``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import creation, dtypes, ops
from symgrad.autograd import grad_mode
from symgrad.backends import cuda
from symgrad.nn.attention_backends import SDPBackend, sdpa_kernel
from symgrad.nn.sparse import dropout
from symgrad.ops.derivatives import _scaled
from symgrad.ops.softmax_family import _safe_softmax, safe_softmax
from symgrad.prim import batching as _batching
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural, without_derivative
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["scaled_dot_product_attention", "SDPBackend", "sdpa_kernel"]


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """Attention of ``query`` ``(..., L, E)`` over ``key`` ``(..., S, E)`` and ``value``
    ``(..., S, Ev)``: ``softmax(query @ key^T * scale + bias) @ value`` with ``scale``
    ``1 / sqrt(E)`` by default; ``attn_mask`` is a boolean mask (False: not attended) or a
    float bias, ``is_causal`` hides the keys after each query; ``dropout_p`` drops attention
    weights; ``enable_gqa`` lets several query heads share a key/value head.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> q = k = symgrad.eye(2).unsqueeze(0)
    >>> v = symgrad.tensor([[[1.0], [3.0]]])
    >>> F.scaled_dot_product_attention(q, k, v, is_causal=True)
    tensor([[[1.0000],
             [2.3395]]])
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"scaled_dot_product_attention(): argument '{name}' must be Tensor, not "
                f"{type(t).__name__}"
            )
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query and key must have the same embedding size, "
            f"got {query.shape[-1]} and {key.shape[-1]}"
        )
    length, source = query.shape[-2], key.shape[-2]
    if scale is None:  # 1 / sqrt(E), infinite for E = 0 (whose output is empty)
        scale = 1 / math.sqrt(query.shape[-1]) if query.shape[-1] else math.inf
    if (
        attn_mask is not None
        and not is_causal
        and attn_mask.dtype not in (dtypes.bool_, dtypes.float32, query.dtype)
    ):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {attn_mask.dtype} and query.dtype: {query.dtype} instead."
        )
    flash = _flash_chosen(query, key, value, attn_mask, dropout_p, enable_gqa)
    if flash and _fused(query, key, value, attn_mask):
        return _fused_attention(query, key, value, attn_mask, is_causal, scale)
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key, value = _repeat_heads(key, groups), _repeat_heads(value, groups)
    # each factor scaled by sqrt(scale) (Scalar products, MulBackward1, as PyTorch's)
    factor = math.sqrt(scale)
    weights = ops.matmul(_scaled(query, factor), _scaled(key.transpose(-2, -1), factor))
    matmul_shape = tuple(weights.shape)
    if is_causal:
        hidden = np.triu(np.ones((length, source), dtype=bool), 1)
        weights = weights + _bias(creation.tensor(hidden, device=query.device), query)
    elif attn_mask is not None:
        if attn_mask.dtype == dtypes.bool_:
            weights = weights + _bias(attn_mask.logical_not(), query)
        else:
            weights = weights + attn_mask.to(query.dtype)
    if tuple(weights.shape) != tuple(matmul_shape):
        # (PyTorch adds the mask in place: it may not enlarge the scores)
        raise RuntimeError(
            f"output with shape {list(matmul_shape)} doesn't match the broadcast shape "
            f"{list(weights.shape)}"
        )
    weights = safe_softmax(weights, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return ops.matmul(weights, value)


def _bias(hidden: Tensor, query: Tensor) -> Tensor:
    """The additive mask PyTorch turns a boolean one into: -inf where ``hidden``, else 0."""
    zeros = creation.zeros(tuple(hidden.shape), dtype=query.dtype, device=query.device)
    return zeros.masked_fill(hidden, -math.inf)


def _repeat_heads(t: Tensor, groups: int) -> Tensor:
    """Each head of ``t`` (dimension -3) repeated ``groups`` times in place."""
    shape = tuple(t.shape)
    expanded = t.unsqueeze(-3).expand(*shape[:-3], shape[-3], groups, *shape[-2:])
    return expanded.reshape(*shape[:-3], shape[-3] * groups, *shape[-2:])


# -- PyTorch's fused CPU kernel -----------------------------------------------------------------
# Where PyTorch's CPU dispatcher picks its fused ("flash") kernel, one node
# (ScaledDotProductFlashAttentionForCpuBackward0) with edges to the query, key and value: the
# kernel allowed (not ruled out by sdpa_kernel), 4-d inputs of one batch size and head size
# (grouped heads with enable_gqa), each laid out with its last dimension contiguous, no
# dropout, a 2-d or 4-d mask needing no gradient, no empty sequence. Its gradient has no
# derivative in PyTorch (a second one raises; under sdpa_kernel(SDPBackend.MATH) it has one).


def _flash_chosen(
    query: Tensor, key: Tensor, value: Tensor, mask: Any, dropout_p: float, gqa: bool
) -> bool:
    """Whether PyTorch's CPU dispatcher picks its fused kernel, by its checks in their order
    (the mask's reads its last two sizes: PyTorch's IndexError for a mask of fewer)."""
    if not cuda.flash_sdp_enabled() or dropout_p > 0.0:
        return False
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        return False
    if not query.shape[0] == key.shape[0] == value.shape[0]:
        return False
    heads = (query.shape[1], key.shape[1], value.shape[1])
    if not (heads[0] == heads[1] == heads[2] or _grouped(heads, gqa)):
        return False
    if mask is not None and not _flash_mask(mask, query, key):
        return False
    if not query.shape[-1] == key.shape[-1] == value.shape[-1] > 0:
        return False
    return 0 not in (query.shape[-2], key.shape[-2])


def _grouped(heads: tuple, gqa: bool) -> bool:
    return gqa and heads[1] == heads[2] and heads[0] % heads[1] == 0


def _flash_mask(mask: Tensor, query: Tensor, key: Tensor) -> bool:
    """PyTorch's check of the mask for its fused kernel: 2-d, or 4-d of the query's batch
    and heads (or 1), its last two sizes the query's and key's lengths (or 1)."""
    if mask._requires_grad:
        return False
    if mask.ndim < 2:
        raise IndexError(
            "Dimension specified as -2 but tensor has no dimensions"
            if mask.ndim == 0
            else "Dimension out of range (expected to be in range of [-1, 0], but got -2)"
        )
    if mask.shape[-2] not in (query.shape[-2], 1) or mask.shape[-1] not in (key.shape[-2], 1):
        return False
    if mask.ndim == 2:
        return True
    batch, heads = query.shape[0], query.shape[1]
    return mask.ndim == 4 and mask.shape[0] in (1, batch) and mask.shape[1] in (1, heads)


def _fused(query: Tensor, key: Tensor, value: Tensor, mask: Any) -> bool:
    """Whether the fused kernel PyTorch picks records its node here (symgrad computes the
    same values by the composite where nothing is recorded)."""
    if not grad_mode.is_grad_enabled():
        return False
    if not (query._requires_grad or key._requires_grad or value._requires_grad):
        return False
    if _batching.any_batched(query, key, value):
        return False  # (inside vmap: the composite's rules)
    if any(type(t._data) is not np.ndarray for t in (query, key, value)):
        return False  # (meta tensors)
    return all(t._data.strides[-1] == t._data.itemsize for t in (query, key, value))


def _fused_attention(
    query: Tensor, key: Tensor, value: Tensor, mask: Any, is_causal: bool, scale: float
) -> Tensor:
    length, source = query.shape[-2], key.shape[-2]
    bias = None
    if is_causal:
        bias = np.where(np.triu(np.ones((length, source), dtype=bool), 1), -np.inf, 0.0)
    elif mask is not None:
        m = mask._data
        bias = np.where(m, 0.0, -np.inf) if m.dtype == np.bool_ else m.astype(np.float64)
    if bias is not None:
        bias = bias.astype(query.dtype.numpy)
    groups = query.shape[1] // key.shape[1]
    return _FLASH(query, key, value, bias=bias, scale=float(scale), groups=groups)


def _flash_kernel(xp: Any, q: Any, k: Any, v: Any, **params: Any) -> np.ndarray:
    """The forward on NumPy, its result laid out in memory as the query is (PyTorch's fused
    kernel writes it so: a permuted view of the heads of an attention layer is then a view
    again)."""
    out = np.empty_like(q)
    out[...] = _flash_forward(NP, q, k, v, **params)
    return out


def _heads_repeated(xp: Any, t: Any, groups: int) -> Any:
    """The key or value heads each repeated ``groups`` times in place (grouped queries)."""
    if groups == 1:
        return t
    b, h, s, e = t.shape
    spread = xp.expand(xp.unsqueeze(t, 2), (b, h, groups, s, e))
    return xp.reshape(spread, (b, h * groups, s, e))


def _attention_weights(xp: Any, q: Any, k: Any, bias: Any, scale: float) -> Any:
    scores = xp.mul_scalar(xp.matmul(q, xp.transpose(k, -2, -1)), scale)
    if bias is not None:
        scores = scores + xp.constant(bias)
    return _safe_softmax(xp, scores, -1)


def _flash_forward(xp: Any, q: Any, k: Any, v: Any, *, bias: Any, scale: float, groups: int):
    k, v = _heads_repeated(xp, k, groups), _heads_repeated(xp, v, groups)
    return xp.matmul(_attention_weights(xp, q, k, bias, scale), v)


def _flash_vjp(xp: Any, g: Any, c: Any) -> tuple:
    if xp is INTERPRETERS.tensor:  # create_graph: gradients without a derivative of their own
        return _not_differentiable_twice(g, c)
    q, k, v = c.inputs
    p = c.params
    groups, scale = p["groups"], p["scale"]
    kk, vv = _heads_repeated(xp, k, groups), _heads_repeated(xp, v, groups)
    w = _attention_weights(xp, q, kk, p["bias"], scale)
    dw = xp.matmul(g, xp.transpose(vv, -2, -1))
    ds = w * (dw - xp.sum(dw * w, -1, True))
    dq = xp.mul_scalar(xp.matmul(ds, kk), scale) if c.needs[0] else None
    dk = xp.mul_scalar(xp.matmul(xp.transpose(ds, -2, -1), q), scale) if c.needs[1] else None
    dv = xp.matmul(xp.transpose(w, -2, -1), g) if c.needs[2] else None
    if groups > 1:  # each key or value head's gradient summed over the queries sharing it
        b, h, s, e = k.shape
        dk = None if dk is None else xp.sum(xp.reshape(dk, (b, h, groups, s, e)), 2)
        dv = None if dv is None else xp.sum(xp.reshape(dv, (b, h, groups, s, e)), 2)
    return dq, dk, dv


def _not_differentiable_twice(g: Tensor, c: Any) -> tuple:
    """The gradients computed on NumPy, each the output of a node whose backward raises
    PyTorch's error (its backward kernel has no derivative)."""
    arrays = [t._data for t in c.inputs]
    found = _flash_vjp(NP, g._data, Ctx(arrays, None, c.shapes, c.needs, c.params))
    return tuple(
        None if r is None else _FLASH_BACKWARD(g, *c.inputs, values=np.asarray(r)) for r in found
    )


_FLASH = Structural(
    "scaled_dot_product_flash_attention_for_cpu",
    _flash_forward,
    _flash_vjp,
    saves=(0, 1, 2),
    backward="ScaledDotProductFlashAttentionForCpuBackward0",
    kernel=_flash_kernel,
)
_FLASH_BACKWARD = without_derivative("_scaled_dot_product_flash_attention_for_cpu_backward")
