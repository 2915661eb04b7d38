"""``MultiheadAttention`` and ``TransformerEncoderLayer`` where PyTorch runs its fused
inference kernels (evaluation, batch-first self-attention, nothing to record): the output is
contiguous, ``is_causal`` is ignored for the mask given, and a fully masked row is NaN even
without weights; where it does not (masks of floats for the attention alone, a gradient to
record, an activation other than relu or gelu), a fully masked row attends to nothing (0).

Each case runs with ``T`` either symgrad or torch; the table holds PyTorch 2.13's outcomes.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests

PADDING = [[True, True, True], [False, True, False]]  # the first sequence all padding
MASK = [[False, True, True], [False, False, True], [True, True, True]]  # the last row masked


def _x(T):
    return T.tensor(np.random.default_rng(0).standard_normal((2, 3, 8)), dtype=T.float32)


def _rows(out):
    """Per output row: whether it is NaN, else its first value to 4 places."""
    return [
        "nan" if bool(row.isnan().any()) else round(row[0].item(), 4) + 0.0
        for row in out.detach().reshape(-1, out.shape[-1])
    ]


def _attention(grad=False, **options):
    def case(T):
        T.manual_seed(0)
        attn = T.nn.MultiheadAttention(8, 2, batch_first=True).eval()
        x = _x(T)
        kwargs = {k: v(T) if callable(v) else v for k, v in options.items()}
        with T.set_grad_enabled(grad):
            out, weights = attn(x, x, x, **kwargs)
        return out.is_contiguous(), _rows(out), weights is None

    return case


def _layer(silu=False, **options):
    def case(T):
        T.manual_seed(0)
        activation = T.nn.functional.silu if silu else "relu"
        layer = T.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=activation)
        kwargs = {k: v(T) for k, v in options.items()}
        with T.no_grad():
            return _rows(layer.eval()(_x(T), **kwargs))

    return case


def _padding(T):
    return T.tensor(PADDING)


def _float_padding(T):
    return T.zeros(2, 3).masked_fill(T.tensor(PADDING), float("-inf"))


def _mask(T):
    return T.tensor(MASK)


def _causal_hint_ignored(T):
    """On the fast path the mask given rules, causal hint or not."""
    plain = _attention(attn_mask=lambda T: T.zeros(3, 3, dtype=T.bool), need_weights=False)
    hinted = _attention(
        attn_mask=lambda T: T.zeros(3, 3, dtype=T.bool), need_weights=False, is_causal=True
    )
    return plain(T) == hinted(T)


def _merged(attn_mask=None, padding=None):
    def case(T):
        attn = T.nn.MultiheadAttention(8, 2, batch_first=True)
        kwargs = [None if m is None else m(T) for m in (attn_mask, padding)]
        merged, kind = attn.merge_masks(*kwargs, _x(T))
        if merged is None:
            return None, kind
        total = merged.sum().item()
        return tuple(merged.shape), str(merged.dtype).rsplit(".")[-1], str(total), kind

    return case


CASES = {
    "merge_no_masks": (_merged(), (None, None)),
    "merge_padding": (_merged(padding=_padding), ((2, 3), "bool", "4", 1)),
    "merge_mask": (_merged(attn_mask=_mask), ((2, 2, 3, 3), "bool", "24", 2)),
    "merge_both": (_merged(attn_mask=_mask, padding=_padding), ((2, 2, 3, 3), "bool", "32", 2)),
    "merge_float_3d": (
        _merged(attn_mask=lambda T: T.ones(4, 3, 3), padding=_float_padding),
        ((2, 2, 3, 3), "float32", "-inf", 2),
    ),
    "fast_padding_no_weights": (
        _attention(key_padding_mask=_padding, need_weights=False),
        (True, ("nan", "nan", "nan", 0.1125, -0.1015, -0.1474), True),
    ),
    "fast_padding_weights": (
        _attention(key_padding_mask=_padding),
        (True, ("nan", "nan", "nan", 0.1125, -0.1015, -0.1474), False),
    ),
    "fast_mask_no_weights": (
        _attention(attn_mask=_mask, need_weights=False),
        (True, (-0.0212, -0.0488, "nan", 0.0633, -0.001, "nan"), True),
    ),
    "float_padding_not_fast": (
        _attention(key_padding_mask=_float_padding, need_weights=False),
        (False, (0.0, 0.0, 0.0, 0.1125, -0.1015, -0.1474), True),
    ),
    "recorded_not_fast": (
        _attention(grad=True, key_padding_mask=_padding, need_weights=False),
        (False, (0.0, 0.0, 0.0, 0.1125, -0.1015, -0.1474), True),
    ),
    "fast_causal_hint_ignored": (_causal_hint_ignored, True),
    "fast_causal_hint_without_mask": (
        _attention(is_causal=True, need_weights=False),
        (True, (-0.097, -0.0955, -0.1007, 0.0906, -0.0592, -0.091), True),
    ),
    "layer_float_padding": (
        _layer(src_key_padding_mask=_float_padding),
        ("nan", "nan", "nan", 2.0512, -0.5158, -1.774),
    ),
    "layer_mask": (_layer(src_mask=_mask), (-0.3044, 0.2633, "nan", 1.9543, -0.4343, "nan")),
    "layer_silu_mask_not_fused": (
        _layer(silu=True, src_mask=_mask),
        (-0.3493, 0.2152, -0.931, 1.9394, -0.4398, -1.9879),
    ),
    "layer_int_mask": (
        _layer(src_mask=lambda T: T.zeros(3, 3, dtype=T.int64)),
        ("raises", "AssertionError"),
    ),
}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
