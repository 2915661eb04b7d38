"""PyTorch's checks of the arguments of ``MultiheadAttention.forward``: the inputs' ranks, and
the masks' ranks, dtypes and shapes (PyTorch asserts some, so its ``AssertionError`` is what
callers catch; the others are ``RuntimeError``)."""

from __future__ import annotations

from typing import Any

from symgrad import dtypes
from symgrad.tensor import Tensor


def check_attention_arguments(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
    batch_first: bool,
    check_mask_shape: bool = True,
) -> None:
    """Raise PyTorch's error for inputs or masks that do not fit each other (the 2-D or
    batched 3-D ``attn_mask``'s shape only with ``check_mask_shape``)."""
    batched = _check_ranks(query, key, value, key_padding_mask, attn_mask)
    for name, mask in (("key_padding_mask", key_padding_mask), ("attn_mask", attn_mask)):
        if mask is not None and not (mask.dtype.is_floating_point or mask.dtype is dtypes.bool_):
            raise AssertionError(f"only bool and floating types of {name} are supported")
    tgt_len = query.shape[1 if batched and batch_first else 0]
    src_len = key.shape[1 if batched and batch_first else 0]
    bsz = query.shape[0 if batch_first else 1] if batched else 1
    if key_padding_mask is not None:
        shape = tuple(key_padding_mask.shape) if batched else (1, *key_padding_mask.shape)
        for d, size in enumerate((bsz, src_len)):
            if shape[d] != size:
                raise AssertionError(
                    f"Expected key_padded_mask.shape[{d}] to be {size}, but got {shape[d]}"
                )
    if attn_mask is not None:
        expected: Any = (tgt_len, src_len)
        if attn_mask.ndim == 3:
            expected = (bsz * num_heads, tgt_len, src_len)
            if not batched and tuple(attn_mask.shape) != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
                )
        if check_mask_shape and tuple(attn_mask.shape) != expected:
            raise RuntimeError(
                f"The shape of the {attn_mask.ndim}D attn_mask is {attn_mask.shape}, but should "
                f"be {expected}."
            )


def _check_ranks(query, key, value, key_padding_mask, attn_mask) -> bool:  # noqa: ANN001
    """Whether the call is batched (a 3-D query), after checking every argument's rank."""
    if query.ndim not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D "
            "query tensor"
        )
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
            f"{key.ndim}-D and {value.ndim}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
            f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor instead"
        )
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise AssertionError(
            f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
            f"{attn_mask.ndim}-D tensor instead"
        )
    return batched
