"""When PyTorch's inference fast paths run: the fused ``_native_multi_head_attention`` of a
:class:`MultiheadAttention` and the fused ``_transformer_encoder_layer_fwd`` of a
:class:`TransformerEncoderLayer` (in evaluation, with nothing to record).

Their results differ from the composed ops' in ways a program can see: the attention's output
is contiguous, ``is_causal`` is ignored (the mask given is used), and the softmax of a fully
masked row is NaN, with or without weights (``scaled_dot_product_attention`` gives it 0). The
layers compute these results from the same recorded ops, choosing them with these tests.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from symgrad import creation, dtypes
from symgrad.autograd import grad_mode
from symgrad.backends import mha

__all__ = ["canonical_mask", "attention_takes_fast_path", "encoder_layer_takes_fast_path"]


def canonical_mask(
    mask: Any, name: str, dtype: Any, other: Any = None, other_name: str = ""
) -> Any:
    """PyTorch's ``_canonical_mask``: a boolean mask (True: not attended) as an additive mask
    of ``dtype``, a float mask as it is; a warning when ``other`` (a mask) has another dtype.

    Examples
    --------
    >>> import symgrad
    >>> canonical_mask(symgrad.tensor([True, False]), "mask", symgrad.float32)
    tensor([-inf, 0.])
    """
    if mask is None:
        return None
    if not (mask.dtype.is_floating_point or mask.dtype is dtypes.bool_):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and other.dtype is not mask.dtype:
        warnings.warn(
            f"Support for mismatched {name} and {other_name} is deprecated. Use same type for "
            "both instead.",
            UserWarning,
            stacklevel=3,
        )
    if mask.dtype.is_floating_point:
        return mask
    return creation.zeros(mask.shape, dtype=dtype).masked_fill(mask, -math.inf)


def _needs_grad(tensors: tuple) -> bool:
    return grad_mode.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


def attention_takes_fast_path(attn: Any, query: Any, key: Any, value: Any, masks: tuple) -> bool:
    """Whether PyTorch's ``MultiheadAttention.forward`` calls its fused kernel here."""
    if any(m is not None and m.dtype.is_floating_point for m in masks):
        return False
    if not mha.get_fastpath_enabled() or query.dim() != 3 or not (query is key is value):
        return False
    weight, bias = attn.in_proj_weight, attn.in_proj_bias
    if weight is None or bias is None or not (query.dtype == weight.dtype == bias.dtype):
        return False
    plain = attn.bias_k is None and attn.bias_v is None and not attn.add_zero_attn
    if attn.training or attn.num_heads % 2 or not attn.batch_first or not plain:
        return False
    return not _needs_grad((query, weight, bias, attn.out_proj.weight, attn.out_proj.bias))


def encoder_layer_takes_fast_path(layer: Any, src: Any) -> bool:
    """Whether PyTorch's ``TransformerEncoderLayer.forward`` calls its fused kernel here."""
    attn = layer.self_attn
    if not mha.get_fastpath_enabled() or src.dim() != 3 or layer.training:
        return False
    if not attn.batch_first or attn.in_proj_bias is None or not attn._qkv_same_embed_dim:
        return False
    if not layer.activation_relu_or_gelu or layer.norm1.eps != layer.norm2.eps:
        return False
    if attn.num_heads % 2 or any(_has_forward_hooks(m) for m in layer.modules()):
        return False
    tensors = [src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight]
    tensors.append(attn.out_proj.bias)
    for module in (layer.norm1, layer.norm2, layer.linear1, layer.linear2):
        tensors += [module.weight, module.bias]
    return not _needs_grad(tuple(tensors))


def _has_forward_hooks(module: Any) -> bool:
    return bool(len(module._forward_hooks) + len(module._forward_pre_hooks))
