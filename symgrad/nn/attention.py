"""``scaled_dot_product_attention`` of :mod:`symgrad.nn.functional`, composed of recorded ops
as PyTorch's reference ("math") implementation: ``softmax(q k^T * scale + bias) v``."""

from __future__ import annotations

import math

import numpy as np

from symgrad import creation, dtypes, ops
from symgrad.nn.sparse import dropout
from symgrad.ops.derivatives import _scaled
from symgrad.ops.softmax_family import safe_softmax
from symgrad.tensor import Tensor

__all__ = ["scaled_dot_product_attention"]


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
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key, value = _repeat_heads(key, groups), _repeat_heads(value, groups)
    length, source = query.shape[-2], key.shape[-2]
    if scale is None:  # 1 / sqrt(E), infinite for E = 0 (whose output is empty)
        scale = 1 / math.sqrt(query.shape[-1]) if query.shape[-1] else math.inf
    # each factor scaled by sqrt(scale) (Scalar products, MulBackward1, as PyTorch's)
    factor = math.sqrt(scale)
    weights = ops.matmul(_scaled(query, factor), _scaled(key.transpose(-2, -1), factor))
    if is_causal:
        hidden = np.triu(np.ones((length, source), dtype=bool), 1)
        weights = weights + _bias(creation.tensor(hidden, device=query.device), query)
    elif attn_mask is not None:
        if attn_mask.dtype not in (dtypes.bool_, dtypes.float32, query.dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {attn_mask.dtype} and query.dtype: {query.dtype} instead."
            )
        if attn_mask.dtype == dtypes.bool_:
            weights = weights + _bias(attn_mask.logical_not(), query)
        else:
            weights = weights + attn_mask.to(query.dtype)
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
