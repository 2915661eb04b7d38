"""``nn.functional.multi_head_attention_forward``: PyTorch's attention of
:class:`~symgrad.nn.MultiheadAttention` as a function of its weights, composed of recorded ops
(so gradients and closed forms come from the ops).

One packed input projection ``in_proj_weight`` (queries, keys, values; or three separate
ones), heads split from the embedding, scores scaled by ``1/sqrt(head_dim)``, boolean masks
read as "not attended where True" (``attn_mask``, ``key_padding_mask``) and float masks added
to the scores, a bias key and value or a zero one per head appended where asked.
"""

from __future__ import annotations

import math
import warnings

from symgrad import creation, dtypes, ops
from symgrad.nn.attention import scaled_dot_product_attention
from symgrad.nn.attention_masks import check_attention_arguments
from symgrad.nn.pooling import pad
from symgrad.nn.sparse import dropout
from symgrad.ops.affine import linear
from symgrad.ops.softmax_family import softmax
from symgrad.tensor import Tensor

__all__ = ["multi_head_attention_forward"]


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple:
    """Attention of ``query`` ``(L, N, E)`` over ``key`` ``(S, N, Ek)`` and ``value``
    ``(S, N, Ev)`` (or unbatched ``(L, E)``, ``(S, Ek)``, ``(S, Ev)``) with ``num_heads``
    heads: ``(output, weights)``, the weights ``(N, L, S)`` averaged over the heads
    (``(N, num_heads, L, S)`` without ``average_attn_weights``; None without
    ``need_weights``). ``static_k``/``static_v`` ``(N * num_heads, S, E / num_heads)``
    replace the projected keys and values.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.ones(3, 2, 4)
    >>> w, b = symgrad.eye(4).repeat(3, 1), symgrad.zeros(12)
    >>> out, weights = F.multi_head_attention_forward(
    ...     x, x, x, 4, 2, w, b, None, None, False, 0.0, symgrad.eye(4), None)
    >>> out.shape, weights.shape
    (symgrad.Size([3, 2, 4]), symgrad.Size([2, 3, 3]))
    """
    # With the causal hint alone (no padding mask, no weights) PyTorch drops the mask given
    # unchecked: scaled_dot_product_attention builds the causal one itself.
    hint_only = is_causal and key_padding_mask is None and not need_weights
    check_attention_arguments(
        query, key, value, key_padding_mask, attn_mask, num_heads, False, not hint_only
    )
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    if embed_dim % num_heads:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    head_dim = embed_dim // num_heads
    if tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(
            f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
            f"{tuple(value.shape[:2])}"
        )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if hint_only:
        attn_mask = None
    q, k, v = _project(
        query, key, value, in_proj_weight, in_proj_bias, use_separate_proj_weight,
        (q_proj_weight, k_proj_weight, v_proj_weight),
    )  # fmt: skip
    if (
        attn_mask is not None
        and key_padding_mask is not None
        and attn_mask.dtype.is_floating_point != key_padding_mask.dtype.is_floating_point
    ):
        warnings.warn(
            "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same "
            "type for both instead.",
            UserWarning,
            stacklevel=2,
        )
    mask = _as_bias(attn_mask, q, "attn_mask")
    padding = _as_bias(key_padding_mask, q, "key_padding_mask")
    if mask is not None and mask.ndim == 2:
        mask = mask.unsqueeze(0)
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key or value.")
        k = ops.cat([k, bias_k.repeat(1, bsz, 1)])
        v = ops.cat([v, bias_v.repeat(1, bsz, 1)])
        mask, padding = _pad_column(mask), _pad_column(padding)
    elif (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, "key", bsz * num_heads, head_dim)
    v = _heads(v, static_v, "value", bsz * num_heads, head_dim)
    if add_zero_attn:
        zeros = creation.zeros(bsz * num_heads, 1, head_dim, dtype=q.dtype)
        k, v = ops.cat([k, zeros], dim=1), ops.cat([v, zeros], dim=1)
        mask, padding = _pad_column(mask), _pad_column(padding)
    src_len = k.shape[1]
    if padding is not None:
        if tuple(padding.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                f"{tuple(padding.shape)}"
            )
        padding = padding.view(bsz, 1, 1, src_len)
        padding = padding.expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        mask = padding if mask is None else mask + padding
    if need_weights:  # PyTorch's graph: the scaled queries' baddbmm (or bmm), softmax, bmm
        q_scaled = q * math.sqrt(1.0 / head_dim)
        if mask is not None:
            scores = ops.baddbmm(mask, q_scaled, k.transpose(-2, -1))
        else:
            scores = ops.bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(scores, -1)
        if dropout_p > 0.0 and training:
            weights = dropout(weights, p=dropout_p)
        out = ops.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
    else:  # by scaled_dot_product_attention on the heads' 4-d views, as PyTorch
        causal = is_causal and padding is None
        if causal:
            mask = None  # (the hint alone: the mask given is the causal one)
        elif mask is not None:
            if mask.shape[0] == 1 and mask.ndim == 3:
                mask = mask.unsqueeze(0)
            else:
                mask = mask.view(bsz, num_heads, -1, src_len)
        out = scaled_dot_product_attention(
            q.view(bsz, num_heads, tgt_len, head_dim),
            k.view(bsz, num_heads, src_len, head_dim),
            v.view(bsz, num_heads, src_len, head_dim),
            mask,
            dropout_p if training else 0.0,
            causal,
        )
        out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
        weights = None
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, embed_dim)
    if need_weights:
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        weights = weights.mean(dim=1) if average_attn_weights else weights
    else:
        weights = None
    if not batched:
        out = out.squeeze(1)
        weights = weights.squeeze(0) if weights is not None else None
    return out, weights


def _project(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    packed: Tensor | None,
    bias: Tensor | None,
    separate: bool,
    weights: tuple,
) -> tuple:
    """The queries, keys and values projected: by the packed ``in_proj_weight`` or, with
    ``use_separate_proj_weight``, by the three weights given."""
    if separate:
        if any(w is None for w in weights):
            raise AssertionError(
                "use_separate_proj_weight is True but q_proj_weight, k_proj_weight or "
                "v_proj_weight is None"
            )
        w_q, w_k, w_v = weights
    else:
        if packed is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        embed = query.shape[-1]
        if key is value and query is key:  # self-attention: one product, as PyTorch's
            return _unpacked(linear(query, packed, bias), 3, embed)
        if key is value:  # encoder-decoder attention: the queries', then keys' and values'
            w_q, w_kv = packed.split([embed, 2 * embed])
            b_q, b_kv = bias.split([embed, 2 * embed]) if bias is not None else (None, None)
            return (linear(query, w_q, b_q), *_unpacked(linear(key, w_kv, b_kv), 2, embed))
        w_q, w_k, w_v = packed.chunk(3)
    b_q, b_k, b_v = bias.chunk(3) if bias is not None else (None,) * 3
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def _unpacked(proj: Tensor, parts: int, embed: int) -> tuple:
    """The ``parts`` projections packed along the last dimension of ``proj``, each made
    contiguous as PyTorch's ``_in_projection_packed`` lays them out."""
    proj = proj.unflatten(-1, (parts, embed)).unsqueeze(0).transpose(0, -2).squeeze(-2)
    proj = proj.contiguous()
    return tuple(proj[i] for i in range(parts))


def _heads(t: Tensor, static: Tensor | None, name: str, rows: int, head_dim: int) -> Tensor:
    """Keys or values split into heads ``(N * num_heads, S, head_dim)``, or ``static`` ones."""
    if static is None:
        return t.reshape(t.shape[0], rows, head_dim).transpose(0, 1)
    if static.shape[0] != rows or static.shape[2] != head_dim:
        raise AssertionError(
            f"expecting static_{name} of shape ({rows}, S, {head_dim}), but got "
            f"{tuple(static.shape)}"
        )
    return static


def _as_bias(mask: Tensor | None, like: Tensor, name: str) -> Tensor | None:
    """A boolean mask (True: not attended) as an additive float mask of ``like``'s dtype; a
    float mask as it is, of any float dtype (scaled_dot_product_attention takes it, and the
    weights' fused product raises when it still differs from the query's after merging)."""
    if mask is None:
        return None
    if mask.dtype.is_floating_point:
        return mask
    if mask.dtype is not dtypes.bool_:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    zeros = creation.zeros(mask.shape, dtype=like.dtype)
    return zeros.masked_fill(mask, -math.inf)


def _pad_column(mask: Tensor | None) -> Tensor | None:
    """An additive mask with one more key, attended (PyTorch pads with a zero column)."""
    return None if mask is None else pad(mask, (0, 1))
