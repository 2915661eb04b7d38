"""``addcmul`` and ``addcdiv``: ``input + value * tensor1 * tensor2`` and ``input + value *
tensor1 / tensor2`` as element-wise primitives of their own, so the graph records PyTorch's one
``AddcmulBackward0``/``AddcdivBackward0`` node with gradients to all three tensors."""

from __future__ import annotations

from symgrad.ops.elementwise import declare
from symgrad.prim.domains import Domain

__all__: list[str] = []

# PyTorch's kernels multiply the value into tensor1 first: (value * t1) * t2, (value * t1) / t2
ADDCMUL = declare(
    "addcmul",
    "x a b",
    lambda x, a, b, value: x + value * a * b,
    params="value",
    kernel=lambda x, a, b, value: x + value * a * b,
    backward="AddcmulBackward0",
    domain=Domain(params=((1.0,), (0.5,), (-2.0,))),
)
ADDCDIV = declare(
    "addcdiv",
    "x a b",
    lambda x, a, b, value: x + value * a / b,
    params="value",
    kernel=lambda x, a, b, value: x + value * a / b,
    backward="AddcdivBackward0",
    domain=Domain({"b": "nonzero"}, params=((1.0,), (0.5,), (-2.0,))),
)
