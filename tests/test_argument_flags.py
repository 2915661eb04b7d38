"""Flags PyTorch's argument parser takes as a Python bool only: ``keepdim``, ``unbiased``,
``descending``, ``largest``, ``sorted``, ``return_inverse``, ``return_counts``,
``include_self``, ``as_tuple`` and ``stable`` given 1, 0, None or a NumPy bool raise TypeError
(``x.sum(0, 1)``, meant as a sum over dims 0 and 1, is no sum over dim 0 kept as 1); ``stable``
is keyword-only, and with it ``sort`` and ``argsort`` take their other arguments by keyword.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

import numpy as np
from _torch_table import table_tests

TYPE = ("raises", "TypeError")


def _x(T):
    return T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def _idx(T):
    return T.tensor([[0], [1]])


SUM0_KEPT = ([[2.0, -0.75, 1.25]], "float32", None)
ORDER = ([[1, 0, 2], [2, 1, 0]], "int64", None)
CASES = {
    "sum_0_1": (lambda T: _x(T).sum(0, 1), TYPE),
    "sum_0_True": (lambda T: _x(T).sum(0, True), SUM0_KEPT),
    "sum_keepdim_1": (lambda T: _x(T).sum(0, keepdim=1), TYPE),
    "sum_keepdim_None": (lambda T: _x(T).sum(0, keepdim=None), TYPE),
    "sum_keepdim_numpy": (lambda T: _x(T).sum(0, np.True_), TYPE),
    "sum_keepdims_1": (lambda T: _x(T).sum(axis=0, keepdims=1), TYPE),
    "torch_sum_0_1": (lambda T: T.sum(_x(T), 0, 1), TYPE),
    "mean_0_1": (lambda T: _x(T).mean(0, 1), TYPE),
    "prod_1_0": (lambda T: _x(T).prod(1, 0), TYPE),
    "amax_0_1": (lambda T: _x(T).amax(0, 1), TYPE),
    "argmax_0_1": (lambda T: _x(T).argmax(0, 1), TYPE),
    "all_0_1": (lambda T: _x(T).all(0, 1), TYPE),
    "max_0_1": (lambda T: _x(T).max(0, 1), TYPE),
    "max_0_True": (lambda T: _x(T).max(0, True).values, ([[1.5, 0.25, 2.0]], "float32", None)),
    "median_0_1": (lambda T: _x(T).median(0, 1), TYPE),
    "nanmedian_0_None": (lambda T: _x(T).nanmedian(0, None), TYPE),
    "kthvalue_keepdim_1": (lambda T: _x(T).kthvalue(1, 0, 1), TYPE),
    "logsumexp_0_1": (lambda T: _x(T).logsumexp(0, 1), TYPE),
    "norm_2_0_1": (lambda T: _x(T).norm(2, 0, 1), TYPE),
    "torch_norm_2_0_1": (lambda T: T.norm(_x(T), 2, 0, 1), TYPE),
    "quantile_keepdim_1": (lambda T: _x(T).quantile(0.5, 0, 1), TYPE),
    "aminmax_keepdim_1": (lambda T: _x(T).aminmax(dim=0, keepdim=1), TYPE),
    "std_0_1": (lambda T: _x(T).std(0, 1), TYPE),
    "var_0_None": (lambda T: _x(T).var(0, None), TYPE),
    "var_unbiased_1": (lambda T: _x(T).var(0, unbiased=1), TYPE),
    "std_unbiased_keepdim": (
        lambda T: _x(T).std(0, False, True),
        ([[0.5, 0.625, 1.375]], "float32", None),
    ),
    "var_mean_0_1": (lambda T: T.var_mean(_x(T), 0, 1), TYPE),
    "vector_norm_keepdim_1": (lambda T: T.linalg.vector_norm(_x(T), 2, 0, 1), TYPE),
    "vector_norm_axis": (
        lambda T: T.linalg.vector_norm(T.tensor([[3.0], [4.0]]), 2, axis=0, keepdims=True),
        ([[5.0]], "float32", None),
    ),
    "matrix_norm_keepdim_1": (lambda T: T.linalg.matrix_norm(_x(T), "fro", (0, 1), 1), TYPE),
    "special_logsumexp_0_1": (lambda T: T.special.logsumexp(_x(T), 0, 1), TYPE),
    "pairwise_distance_keepdim_1": (
        lambda T: T.nn.functional.pairwise_distance(_x(T), _x(T), 2, 1e-6, 1),
        TYPE,
    ),
    "topk_largest_1": (lambda T: _x(T).topk(2, largest=1), TYPE),
    "topk_sorted_None": (lambda T: _x(T).topk(2, sorted=None), TYPE),
    "unique_sorted_1": (lambda T: _x(T).unique(sorted=1), TYPE),
    "unique_consecutive_counts_1": (lambda T: _x(T).unique_consecutive(return_counts=1), TYPE),
    "scatter_reduce_include_self_1": (
        lambda T: _x(T).scatter_reduce(1, _idx(T), _x(T), "sum", include_self=1),
        TYPE,
    ),
    "nonzero_as_tuple_1": (lambda T: _x(T).nonzero(as_tuple=1), TYPE),
    "nonzero_as_tuple_None": (lambda T: T.nonzero(_x(T), as_tuple=None), TYPE),
    "sort_descending_None": (lambda T: _x(T).sort(descending=None), TYPE),
    "sort_1_stable": (lambda T: _x(T).sort(1, stable=True), TYPE),
    "sort_1_True_True": (lambda T: _x(T).sort(1, True, True), TYPE),
    "sort_stable_1": (lambda T: _x(T).sort(stable=1), TYPE),
    "sort_stable_None": (lambda T: _x(T).sort(stable=None).indices, ORDER),
    "sort_dim_stable": (lambda T: _x(T).sort(dim=1, stable=True).indices, ORDER),
    "torch_sort_1_stable": (lambda T: T.sort(_x(T), 1, stable=True), TYPE),
    "torch_sort_input_stable": (lambda T: T.sort(input=_x(T), stable=True).indices, ORDER),
    "argsort_1_stable": (lambda T: _x(T).argsort(1, stable=True), TYPE),
    "argsort_1_True_True": (lambda T: _x(T).argsort(1, True, True), TYPE),
    "argsort_stable_None": (lambda T: _x(T).argsort(stable=None), TYPE),
    "argsort_stable": (lambda T: _x(T).argsort(stable=True), ORDER),
    "torch_argsort_stable": (lambda T: T.argsort(_x(T), stable=True, dim=1), ORDER),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
