"""Pooling at its edges as PyTorch: the padding a dilated max pooling accepts.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import pytest
from _torch_table import run

import symgrad

F = lambda T: T.nn.functional  # noqa: E731
RAISES = ("raises", "RuntimeError")
ROW = [[[float(i) for i in range(9)]]]  # (1, 1, 9)


CASES = {
    # PyTorch checks the padding against half the effective kernel (with its dilation)
    # and then against half the kernel itself
    "max_pool1d_dilated_padding_over_half": (
        lambda T: F(T).max_pool1d(T.tensor(ROW), 3, padding=2, dilation=2),
        RAISES,
    ),
    "max_pool1d_dilated_padding_over_half_with_indices": (
        lambda T: F(T).max_pool1d(T.tensor(ROW), 3, 1, 2, 2, return_indices=True),
        RAISES,
    ),
    "max_pool2d_dilated_padding_over_half": (
        lambda T: F(T).max_pool2d(T.ones(1, 1, 9, 9), 3, padding=(0, 2), dilation=2),
        RAISES,
    ),
    "max_pool3d_dilated_padding_over_half": (
        lambda T: F(T).max_pool3d(T.ones(1, 1, 5, 5, 5), 3, padding=2, dilation=2),
        RAISES,
    ),
    "MaxPool2d_dilated_padding_over_half": (
        lambda T: T.nn.MaxPool2d(3, padding=2, dilation=3)(T.ones(1, 9, 9)),
        RAISES,
    ),
    "max_pool1d_dilated_padding_half": (
        lambda T: F(T).max_pool1d(T.tensor(ROW), 4, padding=2, dilation=2),
        ([[[4.0, 8.0]]], "float32", None),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_symgrad_matches_the_expected_data(name):
    fn, expected = CASES[name]
    assert run(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_pytorch_gives_the_same_data(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert run(torch, fn) == expected
