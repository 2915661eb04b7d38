"""``MultiheadAttention``, ``TransformerEncoderLayer`` and ``TransformerEncoder``: PyTorch's
layers, parameter names and initialisation, composed of recorded ops (so gradients and
closed forms come from the ops), and ``Transformer.generate_square_subsequent_mask``.

The attention is ``nn.functional.multi_head_attention_forward`` of the layer's weights
(:mod:`symgrad.nn.multi_head_attention`).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

from symgrad import creation, dtypes
from symgrad.autograd import grad_mode
from symgrad.backends import mha
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.activation import ReLU
from symgrad.nn.modules.container import ModuleList
from symgrad.nn.modules.linear import Linear
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.normalization import LayerNorm
from symgrad.nn.modules.pointwise import GELU
from symgrad.nn.modules.sparse import Dropout
from symgrad.nn.modules.transformer_fast_path import (
    attention_takes_fast_path,
    canonical_mask,
    encoder_layer_takes_fast_path,
)
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = [
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerEncoder",
]


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection of :class:`MultiheadAttention` (PyTorch's class name, shown in
    the module's repr)."""


class MultiheadAttention(Module):
    """Attention with ``num_heads`` heads over ``embed_dim`` features.

    Examples
    --------
    >>> import symgrad
    >>> attn = symgrad.nn.MultiheadAttention(8, 2, batch_first=True)
    >>> out, weights = attn(symgrad.ones(3, 5, 8), symgrad.ones(3, 5, 8), symgrad.ones(3, 5, 8))
    >>> out.shape, weights.shape
    (symgrad.Size([3, 5, 8]), symgrad.Size([3, 5, 5]))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(creation.empty(3 * embed_dim, embed_dim, dtype=dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(creation.empty(embed_dim, embed_dim, dtype=dtype))
            self.k_proj_weight = Parameter(creation.empty(embed_dim, self.kdim, dtype=dtype))
            self.v_proj_weight = Parameter(creation.empty(embed_dim, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(creation.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, dtype=dtype
        )
        if add_bias_kv:
            self.bias_k = Parameter(creation.empty(1, 1, embed_dim, dtype=dtype))
            self.bias_v = Parameter(creation.empty(1, 1, embed_dim, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple:
        fast = attention_takes_fast_path(self, query, key, value, (attn_mask, key_padding_mask))
        batch_first = self.batch_first and query.ndim == 3
        if batch_first:  # (one transpose for one tensor: self-attention stays self-attention)
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (t.transpose(1, 0) for t in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights or fast,
            attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal and not fast,
        )
        if fast:
            return out.transpose(1, 0).contiguous(), (weights if need_weights else None)
        return (out.transpose(1, 0) if batch_first else out), weights

    def merge_masks(self, attn_mask: Any, key_padding_mask: Any, query: Tensor) -> tuple:
        """PyTorch's masks of its fused kernel: ``(merged_mask, mask_type)``, the padding
        mask alone (type 1), or the attention mask expanded to ``(N, num_heads, L, L)``
        (type 2) plus the padding mask expanded alike when both are given; ``(None, None)``
        for none.

        Examples
        --------
        >>> import symgrad
        >>> attn = symgrad.nn.MultiheadAttention(4, 2, batch_first=True)
        >>> mask, kind = attn.merge_masks(symgrad.zeros(3, 3), None, symgrad.ones(2, 3, 4))
        >>> tuple(mask.shape), kind
        ((2, 2, 3, 3), 2)
        """
        merged, kind = None, None
        if key_padding_mask is not None:
            merged, kind = key_padding_mask, 1
        if attn_mask is not None:
            batch, length, _ = query.shape
            kind = 2
            if attn_mask.dim() == 3:
                merged = attn_mask.view(batch, -1, length, length)
            else:
                merged = attn_mask.view(1, 1, length, length)
                merged = merged.expand(batch, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                padding = key_padding_mask.view(batch, 1, 1, length)
                merged = merged + padding.expand(-1, self.num_heads, -1, -1)
        return merged, kind


def _activation(activation: Any) -> Any:
    if activation in ("relu", F.relu):
        return F.relu
    if activation in ("gelu", F.gelu):
        return F.gelu
    if isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with a residual connection and a
    LayerNorm (after it, or before it with ``norm_first``)."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)
        # PyTorch's flag for its fast path: 1 for relu, 2 for gelu, 0 for anything else
        act = self.activation
        self.activation_relu_or_gelu = (
            1
            if act is F.relu or isinstance(act, ReLU)
            else 2
            if act is F.gelu or isinstance(act, GELU)
            else 0
        )

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        padding = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", src.dtype, src_mask, "src_mask"
        )
        mask = canonical_mask(src_mask, "src_mask", src.dtype)
        # PyTorch's fused layer: the attention of the mask given, fully masked rows NaN
        fused = encoder_layer_takes_fast_path(self, src)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), mask, padding, is_causal, fused)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, mask, padding, is_causal, fused))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(
        self, x: Tensor, mask: Any, padding: Any, is_causal: bool, fused: bool = False
    ) -> Tensor:
        out = self.self_attn(
            x, x, x, attn_mask=mask, key_padding_mask=padding, need_weights=fused,
            is_causal=is_causal and not fused,
        )[0]  # fmt: skip
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` applied in turn, then ``norm`` if given.

    In evaluation with a ``src_key_padding_mask`` and nothing to record (PyTorch's inference
    fast path, where the padded positions are left out of a nested tensor), the padded
    positions of the layers' output are 0, as PyTorch gives them.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
    >>> encoder = nn.TransformerEncoder(layer, 2).eval()
    >>> padding = symgrad.tensor([[False, False, True]])
    >>> with symgrad.no_grad():
    ...     out = encoder(symgrad.randn(1, 3, 4), src_key_padding_mask=padding)
    >>> out[0, 2]
    tensor([0., 0., 0., 0.])
    """

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_fast_path(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(
                "enable_nested_tensor is True, but self.use_nested_tensor is False because "
                f"{why_not}",
                UserWarning,
                stacklevel=2,
            )
            self.use_nested_tensor = False

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        # PyTorch makes both masks additive here, so its layers see no mismatch to warn about
        padding = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", src.dtype, mask, "mask"
        )
        mask = canonical_mask(mask, "mask", src.dtype)
        valid = self._fast_path_positions(src, mask, padding)
        padding = padding if valid is None else ~valid
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=padding,
                        is_causal=bool(is_causal))  # fmt: skip
        if valid is not None:  # the padded positions of the nested tensor: 0
            out = out.masked_fill(~valid.unsqueeze(-1), 0.0)
        return self.norm(out) if self.norm is not None else out

    def _fast_path_positions(self, src: Tensor, mask: Any, padding: Any) -> Tensor | None:
        """On PyTorch's inference fast path, the positions that are not padding (a bool
        ``(N, S)`` tensor); None off it."""
        first = self.layers[0]
        if (
            not mha.get_fastpath_enabled()
            or not getattr(self, "use_nested_tensor", False)
            or first.training
            or src.dim() != 3
            or padding is None
            or mask is not None
        ):
            return None
        valid = ~padding if padding.dtype == dtypes.bool_ else padding == 0
        if self.mask_check and not bool((valid[:, 1:] <= valid[:, :-1]).all()):
            return None  # not left-aligned: no nested tensor
        if not self.mask_check:  # PyTorch's nested tensor: each row's first `count` positions
            valid = creation.arange(valid.shape[1]) < valid.sum(1, keepdim=True)
        if grad_mode.is_grad_enabled() and (
            src.requires_grad or any(p.requires_grad for p in first.parameters())
        ):
            return None
        return valid


def _why_no_fast_path(layer: Any) -> str:
    """PyTorch's reason why an encoder of copies of ``layer`` can't take the fast path ("" if
    it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    reasons = (
        (layer.norm_first, f"{name}.norm_first was True"),
        (
            not attn.batch_first,
            f"{name}.self_attn.batch_first was not True"
            "(use batch_first for better inference performance)",
        ),
        (not attn._qkv_same_embed_dim, f"{name}.self_attn._qkv_same_embed_dim was not True"),
        (attn.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
        (layer.norm1.eps != layer.norm2.eps, f"{name}.norm1.eps was not equal to {name}.norm2.eps"),
        (attn.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd"),
    )
    return next((why for failed, why in reasons if failed), "")
