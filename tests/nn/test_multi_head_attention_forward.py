"""``nn.functional.multi_head_attention_forward``: PyTorch's attention as a function of its
weights (packed or separate projections, bias and zero keys, masks, static keys and values,
unbatched inputs), values, weights, gradients and errors.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data (recorded from PyTorch 2.13), checked for symgrad always and
for PyTorch when it is installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests

E, HEADS, L, S, N = 4, 2, 3, 2, 2


def _arrays():
    rng = np.random.default_rng(7)
    return {
        "query": rng.standard_normal((L, N, E)),
        "key": rng.standard_normal((S, N, E)),
        "value": rng.standard_normal((S, N, E)),
        "in_w": rng.standard_normal((3 * E, E)) * 0.5,
        "in_b": rng.standard_normal(3 * E) * 0.1,
        "out_w": rng.standard_normal((E, E)) * 0.5,
        "out_b": rng.standard_normal(E) * 0.1,
        "bias_k": rng.standard_normal((1, 1, E)),
        "bias_v": rng.standard_normal((1, 1, E)),
        "static": rng.standard_normal((N * HEADS, S, E // HEADS)),
    }


def _attention(unbatched=False, **options):
    """Attention with the table's weights: the output's sum, the weights' sum, the gradient
    of the packed projection's sum, and the output's node."""

    def case(T):
        a = {k: T.tensor(v) for k, v in _arrays().items()}
        w = a["in_w"].requires_grad_()
        q, k, v = a["query"], a["key"], a["value"]
        if unbatched:
            q, k, v = q[:, 0], k[:, 0], v[:, 0]
        kwargs = dict(options)
        for name in ("bias_k", "bias_v", "static_k", "static_v"):
            if kwargs.get(name) is True:
                kwargs[name] = a["static" if name.startswith("static") else name]
        bias_k, bias_v = kwargs.pop("bias_k", None), kwargs.pop("bias_v", None)
        zero = kwargs.pop("add_zero_attn", False)
        if kwargs.get("use_separate_proj_weight"):
            kwargs.update(q_proj_weight=w[:E], k_proj_weight=w[E : 2 * E], v_proj_weight=w[2 * E :])
        for name in ("attn_mask", "key_padding_mask"):
            if name in kwargs:
                kwargs[name] = kwargs[name](T)
        out, weights = T.nn.functional.multi_head_attention_forward(
            q, k, v, E, HEADS, w, a["in_b"], bias_k, bias_v, zero, 0.0, a["out_w"],
            a["out_b"], **kwargs,
        )  # fmt: skip
        out.sum().backward()
        total = None if weights is None else (tuple(weights.shape), round(weights.sum().item(), 4))
        return (
            tuple(out.shape),
            round(out.sum().item(), 4),
            total,
            round(w.grad.abs().sum().item(), 4),
            type(out.grad_fn).__name__,
        )

    return case


def _causal(T):
    return T.triu(T.full((L, S), float("-inf"), dtype=T.float64), diagonal=1)


CASES = {
    "packed": (
        _attention(),
        ((3, 2, 4), 0.5611, ((2, 3, 2), 6.0), 12.3974, "ViewBackward0"),
    ),
    "unbatched": (
        _attention(unbatched=True),
        ((3, 4), -2.7553, ((3, 2), 3.0), 17.3295, "SqueezeBackward1"),
    ),
    "separate_weights": (
        _attention(use_separate_proj_weight=True),
        ((3, 2, 4), 0.5611, ((2, 3, 2), 6.0), 12.3974, "ViewBackward0"),
    ),
    "heads_apart": (
        _attention(average_attn_weights=False),
        ((3, 2, 4), 0.5611, ((2, 2, 3, 2), 12.0), 12.3974, "ViewBackward0"),
    ),
    "no_weights": (
        _attention(need_weights=False),
        ((3, 2, 4), 0.5611, None, 12.3974, "ViewBackward0"),
    ),
    "bias_kv": (
        _attention(bias_k=True, bias_v=True),
        ((3, 2, 4), -1.8691, ((2, 3, 3), 6.0), 12.9811, "ViewBackward0"),
    ),
    "zero_attn": (
        _attention(add_zero_attn=True),
        ((3, 2, 4), 0.2645, ((2, 3, 3), 6.0), 9.4187, "ViewBackward0"),
    ),
    "padding_mask": (
        _attention(key_padding_mask=lambda T: T.tensor([[False, True], [False, False]])),
        ((3, 2, 4), 0.7843, ((2, 3, 2), 6.0), 24.2548, "ViewBackward0"),
    ),
    "float_mask": (
        _attention(
            attn_mask=lambda T: T.tensor([[0.0, -1.0], [0.5, 0.0], [0.0, 0.0]], dtype=T.float64)
        ),
        ((3, 2, 4), 1.3016, ((2, 3, 2), 6.0), 13.1881, "ViewBackward0"),
    ),
    "causal": (
        _attention(attn_mask=_causal, is_causal=True),
        ((3, 2, 4), 1.6395, ((2, 3, 2), 6.0), 13.641, "ViewBackward0"),
    ),
    "static_kv": (
        _attention(static_k=True, static_v=True),
        ((3, 2, 4), -0.484, ((2, 3, 2), 6.0), 18.3465, "ViewBackward0"),
    ),
    # a float mask of another dtype than the query's, a mask of integers
    "float32_mask": (
        _attention(attn_mask=lambda T: T.zeros(L, S, dtype=T.float32)),
        ("raises", "RuntimeError"),
    ),
    "float32_padding": (
        _attention(key_padding_mask=lambda T: T.zeros(N, S, dtype=T.float32)),
        ("raises", "RuntimeError"),
    ),
    # the weights' product needs the merged mask in the query's dtype; attention without
    # weights takes a float mask of any float dtype
    "float32_mask_no_weights": (
        _attention(
            attn_mask=lambda T: T.tensor([[0.0, -1.0], [0.5, 0.0], [0.0, 0.0]]),
            need_weights=False,
        ),
        ((3, 2, 4), 1.3016, None, 13.1881, "ViewBackward0"),
    ),
    "float32_mask_float64_padding": (
        _attention(
            attn_mask=lambda T: T.tensor([[0.0, -1.0], [0.5, 0.0], [0.0, 0.0]]),
            key_padding_mask=lambda T: T.tensor([[0.0, -2.0], [0.0, 0.0]], dtype=T.float64),
        ),
        ((3, 2, 4), 1.4482, ((2, 3, 2), 6.0), 22.6064, "ViewBackward0"),
    ),
    # the causal hint alone (no padding, no weights) stands for the mask, left unchecked
    "causal_hint_drops_mask": (
        _attention(
            attn_mask=lambda T: T.zeros(2, 2, dtype=T.bool), is_causal=True, need_weights=False
        ),
        ((3, 2, 4), 1.6395, None, 13.641, "ViewBackward0"),
    ),
    "causal_hint_with_weights_checks_mask": (
        _attention(attn_mask=lambda T: T.zeros(2, 2, dtype=T.bool), is_causal=True),
        ("raises", "RuntimeError"),
    ),
    "int_mask": (
        _attention(attn_mask=lambda T: T.zeros(L, S, dtype=T.int64)),
        ("raises", "AssertionError"),
    ),
    "causal_without_mask": (_attention(is_causal=True), ("raises", "RuntimeError")),
    "wrong_embed_dim": (
        lambda T: T.nn.functional.multi_head_attention_forward(
            T.ones(3, 2, 4),
            T.ones(3, 2, 4),
            T.ones(3, 2, 4),
            6,
            2,
            T.ones(12, 4),
            None,
            None,
            None,
            False,
            0.0,
            T.ones(4, 4),
            None,
        ),  # fmt: skip
        ("raises", "AssertionError"),
    ),
}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
