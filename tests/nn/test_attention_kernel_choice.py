"""``scaled_dot_product_attention`` records PyTorch's fused CPU node exactly where PyTorch's
dispatcher picks that kernel (the kernel allowed by ``sdpa_kernel``, 4-d inputs of one batch
size and head count or grouped heads with ``enable_gqa``, a 2-d or 4-d mask of fitting
sizes), else the composite's nodes, which have a second derivative; masks that do not fit
raise PyTorch's errors (a mask may not enlarge the scores, a 4-d call reads its mask's last
two sizes).

Each case runs with ``T`` either symgrad or torch; the table holds PyTorch 2.13's outcomes.
"""

from __future__ import annotations

import importlib

import numpy as np
from _torch_table import table_tests


def _t(T, *shape, grad=False):
    size = int(np.prod(shape))
    values = np.sin(np.arange(size) * 0.7).reshape(shape)
    return T.tensor(values, dtype=T.float32, requires_grad=grad)


def _attention(q_shape=(2, 2, 3, 4), k_shape=None, mask=None, grad=True, **options):
    def case(T):
        q = _t(T, *q_shape, grad=grad)
        k = _t(T, *(k_shape or q_shape))
        m = None if mask is None else T.zeros(mask)
        out = T.nn.functional.scaled_dot_product_attention(q, k, k, attn_mask=m, **options)
        return tuple(out.shape), None if out.grad_fn is None else out.grad_fn.name()

    return case


def _with_kernel(name):
    """Under sdpa_kernel(SDPBackend.<name>): the node and whether a second derivative runs."""

    def case(T):
        attention = importlib.import_module(T.__name__ + ".nn.attention")
        q = _t(T, 2, 2, 3, 4, grad=True)
        with attention.sdpa_kernel(getattr(attention.SDPBackend, name)):
            out = T.nn.functional.scaled_dot_product_attention(q, q, q)
        (g,) = T.autograd.grad(out.pow(2).sum(), q, create_graph=True)
        try:
            T.autograd.grad(g.pow(2).sum(), q)
        except RuntimeError:
            return out.grad_fn.name(), "no second derivative"
        return out.grad_fn.name(), "second derivative"

    return case


def _flash_switched_off(T):
    T.backends.cuda.enable_flash_sdp(False)
    try:
        return _attention(mask=(3,))(T)  # (the mask's sizes are not read then)
    finally:
        T.backends.cuda.enable_flash_sdp(True)


FLASH = "ScaledDotProductFlashAttentionForCpuBackward0"
MATH = "UnsafeViewBackward0"

CASES = {
    "fused_by_default": (_attention(), ((2, 2, 3, 4), FLASH)),
    "math_kernel": (_with_kernel("MATH"), (MATH, "second derivative")),
    "flash_kernel": (_with_kernel("FLASH_ATTENTION"), (FLASH, "no second derivative")),
    "flash_switched_off": (_flash_switched_off, ((2, 2, 3, 4), MATH)),
    "mask_2d": (_attention(mask=(3, 1)), ((2, 2, 3, 4), FLASH)),
    "mask_4d": (_attention(mask=(2, 1, 3, 3)), ((2, 2, 3, 4), FLASH)),
    "mask_3d": (_attention(mask=(2, 3, 3)), ((2, 2, 3, 4), MATH)),
    "heads_broadcast": (_attention(k_shape=(2, 1, 3, 4)), ((2, 2, 3, 4), MATH)),
    "grouped_heads": (_attention(k_shape=(2, 1, 3, 4), enable_gqa=True), ((2, 2, 3, 4), FLASH)),
    "mask_1d_4d_inputs": (_attention(mask=(3,), grad=False), ("raises", "IndexError")),
    "mask_0d_4d_inputs": (_attention(mask=(), grad=False), ("raises", "IndexError")),
    "mask_1d_3d_inputs": (_attention(q_shape=(2, 3, 4), mask=(3,)), ((2, 3, 4), MATH)),
    "mask_not_broadcasting": (_attention(mask=(5, 3, 3)), ("raises", "RuntimeError")),
    "mask_rows_wrong": (_attention(mask=(4, 3)), ("raises", "RuntimeError")),
    "mask_enlarging_2d": (_attention(q_shape=(3, 4), mask=(5, 3, 3)), ("raises", "RuntimeError")),
    "mask_enlarging_3d": (
        _attention(q_shape=(2, 3, 4), mask=(1, 2, 3, 3), grad=False),
        ("raises", "RuntimeError"),
    ),
}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
