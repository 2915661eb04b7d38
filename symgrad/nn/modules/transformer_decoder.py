"""``TransformerDecoderLayer``, ``TransformerDecoder`` and the encoder-decoder ``Transformer``:
PyTorch's layers, submodule names, initialisation and arithmetic, composed of recorded ops (so
gradients and closed forms come from the ops)."""

from __future__ import annotations

import copy
import math
from typing import Any

from symgrad import creation, ops
from symgrad.nn import functional as F
from symgrad.nn import init
from symgrad.nn.modules.container import ModuleList
from symgrad.nn.modules.linear import Linear
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.normalization import LayerNorm
from symgrad.nn.modules.sparse import Dropout
from symgrad.nn.modules.transformer import (
    MultiheadAttention,
    TransformerEncoder,
    TransformerEncoderLayer,
    _activation,
)
from symgrad.tensor import Tensor

__all__ = ["TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


class TransformerDecoderLayer(Module):
    """Self-attention over the target, attention over the encoder's ``memory``, then a
    feed-forward block; each with a residual connection and a LayerNorm (after it, or before
    it with ``norm_first``).

    Examples
    --------
    >>> import symgrad
    >>> layer = symgrad.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    >>> layer(symgrad.ones(3, 4, 8), symgrad.ones(3, 5, 8)).shape
    symgrad.Size([3, 4, 8])
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kwargs = {"dropout": dropout, "batch_first": batch_first, "bias": bias, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, **kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, **kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def __setstate__(self, state: dict) -> None:
        # As PyTorch's: a copy (TransformerDecoder clones its layer) of a layer whose
        # activation is a module computes with relu; the module stays listed in its repr.
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(
            x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
        )
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x: Tensor, mask: Any, padding: Any, is_causal: bool) -> Tensor:
        out = self.self_attn(
            x, x, x, attn_mask=mask, key_padding_mask=padding, is_causal=bool(is_causal),
            need_weights=False,
        )[0]  # fmt: skip
        return self.dropout1(out)

    def _mha_block(self, x: Tensor, mem: Tensor, mask: Any, padding: Any, causal: bool) -> Tensor:
        out = self.multihead_attn(
            x, mem, mem, attn_mask=mask, key_padding_mask=padding, is_causal=bool(causal),
            need_weights=False,
        )[0]  # fmt: skip
        return self.dropout2(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` applied in turn to the target (each attending
    to ``memory``), then ``norm`` if given.

    Examples
    --------
    >>> import symgrad
    >>> layer = symgrad.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16)
    >>> decoder = symgrad.nn.TransformerDecoder(layer, 2)
    >>> decoder(symgrad.ones(4, 1, 8), symgrad.ones(5, 1, 8)).shape
    symgrad.Size([4, 1, 8])
    """

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        out = tgt
        for layer in self.layers:
            out = layer(
                out,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=bool(tgt_is_causal),
                memory_is_causal=memory_is_causal,
            )
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """PyTorch's encoder-decoder model: a :class:`TransformerEncoder` over ``src`` and a
    :class:`TransformerDecoder` over ``tgt`` attending to the encoder's output, each ending in
    a LayerNorm; every parameter of two or more dimensions starts Xavier-uniform.

    Examples
    --------
    >>> import symgrad
    >>> model = symgrad.nn.Transformer(8, 2, 1, 1, dim_feedforward=16, batch_first=True)
    >>> model(symgrad.ones(2, 5, 8), symgrad.ones(2, 3, 8)).shape
    symgrad.Size([2, 3, 8])
    >>> symgrad.nn.Transformer.generate_square_subsequent_mask(3)
    tensor([[0., -inf, -inf],
            [0., 0., -inf],
            [0., 0., 0.]])
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = F.relu,
        custom_encoder: Any = None,
        custom_decoder: Any = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)  # fmt: skip
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(*layer_args, dtype=dtype)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(*layer_args, dtype=dtype)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batch = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch] != tgt.shape[batch]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """An ``(sz, sz)`` float mask: 0 on and below the diagonal, ``-inf`` above."""
        return ops.triu(creation.full((sz, sz), -math.inf, dtype=dtype), diagonal=1)
