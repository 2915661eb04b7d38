"""Dimension arguments PyTorch refuses where symgrad computed something: a dim named twice
(``squeeze``, ``count_nonzero``), ``keepdim`` without a dim (``max``, ``min``, ``median``), a
list of dims where one int is taken (``quantile``), a 0-d tensor's dim out of range
(``aminmax``), and ``logsumexp`` over no dims.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

from _torch_table import table_tests

RUNTIME, TYPE, INDEX = ("raises", "RuntimeError"), ("raises", "TypeError"), ("raises", "IndexError")
CASES = {
    "squeeze_twice": (lambda T: T.ones(1, 2).squeeze((0, 0)), RUNTIME),
    "squeeze_twice_negative": (lambda T: T.ones(1, 2).squeeze((0, -2)), RUNTIME),
    "squeeze_two": (lambda T: T.ones(1, 2, 1).squeeze((0, 2)), ([1.0, 1.0], "float32", None)),
    "count_nonzero_twice": (lambda T: T.count_nonzero(T.ones(2, 3), dim=(0, 0)), RUNTIME),
    "count_nonzero_two": (lambda T: T.count_nonzero(T.ones(2, 3), dim=(0, 1)), (6, "int64", None)),
    "max_keepdim": (lambda T: T.max(T.ones(2, 3), keepdim=True), TYPE),
    "min_keepdim": (lambda T: T.min(T.ones(2, 3), keepdim=True), TYPE),
    "median_keepdim": (lambda T: T.median(T.ones(2, 3), keepdim=True), TYPE),
    "max_dim_keepdim": (
        lambda T: T.max(T.tensor([[1.0, 3.0]]), 1, True).values,
        ([[3.0]], "float32", None),
    ),
    "quantile_dim_list": (lambda T: T.quantile(T.ones(2, 3), 0.5, dim=[0]), TYPE),
    "aminmax_zero_dim": (lambda T: T.aminmax(T.tensor(1.0), dim=1), INDEX),
    "aminmax_zero_dim_last": (
        lambda T: T.aminmax(T.tensor(1.0), dim=-1).max,
        (1.0, "float32", None),
    ),
    "logsumexp_no_dims": (lambda T: T.logsumexp(T.ones(2, 3), dim=()), RUNTIME),
    "logsumexp_zero_dim_no_dims": (
        lambda T: T.logsumexp(T.tensor(2.0), dim=()),
        (2.0, "float32", None),
    ),
}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
