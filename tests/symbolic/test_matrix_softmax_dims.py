"""softmax and log_softmax in matrix form along either dimension of a matrix: along the
columns (dim 0) they are the row functions of the transpose, transposed back, and along a
dimension of one element they are no vector's softmax. Values and gradients are PyTorch's
(stored here, float64)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import symbolic
from symgrad.prim.matrix_xp import MatrixFormError

from .test_matrix_form import evaluate

X = [[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]]
C = [[1.0, 0.0], [2.0, 1.0], [0.0, 3.0]]

# PyTorch 2.13: (softmax or log_softmax(X, dim) * C).sum() and its gradient by X
EXPECTED = {
    ("softmax", 0): (
        3.2982826022683462,
        [[-0.061219380127020315, -0.5778584466991282], [0.2700644547028583, -0.015556991038967743],
         [-0.20884507457583792, 0.5934154377380959]],
    ),
    ("softmax", 1): (
        4.944238278030938,
        [[0.19661193324148185, -0.19661193324148188], [0.14914645207033286, -0.14914645207033284],
         [-0.13552997919273643, 0.1355299791927359]],
    ),
    ("log_softmax", 0): (
        -8.347059576995086,
        [[-0.519441173166962, -1.0615517150889677], [1.078412342844505, 0.9471484521848423],
         [-0.5589711696775427, 0.11440326290412539]],
    ),
    ("log_softmax", 1): (
        -3.563263576187706,
        [[0.7310585786300049, -0.7310585786300049], [-0.45272342858093095, 0.45272342858093106],
         [-0.14227761953270035, 0.14227761953270024]],
    ),
}  # fmt: skip


def _tensors(lib):
    x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    return x, lib.tensor(C, dtype=lib.float64)


@pytest.mark.parametrize("name, dim", list(EXPECTED))
def test_matrix_form_along_each_dim_is_pytorchs(name, dim):
    x, c = _tensors(symgrad)
    x.name, c.name = "X", "C"
    y = (getattr(symgrad, name)(x, dim) * c).sum()
    value, grad = EXPECTED[(name, dim)]
    assert evaluate(symbolic.expression(y, form="matrix"), [x, c]).item() == pytest.approx(value)
    g = symbolic.gradient(y, x, form="matrix")
    np.testing.assert_allclose(evaluate(g, [x, c]), grad, rtol=1e-12, atol=1e-15)


def test_along_columns_reads_as_the_transposes_softmax():
    x, _ = _tensors(symgrad)
    x.name = "X"
    assert str(symbolic.expression(symgrad.softmax(x, 0), form="matrix")) == "softmax(X.T).T"


def test_along_a_dimension_of_one_element():
    v = symgrad.tensor([[1.0], [2.0], [0.5]], dtype=symgrad.float64, requires_grad=True, name="V")
    y = (symgrad.softmax(v, 1) * v).sum()  # every softmax is of one element: 1
    assert evaluate(symbolic.expression(y, form="matrix"), [v]).item() == pytest.approx(3.5)
    with pytest.raises(MatrixFormError, match="softmax along dim 1 of \\[3, 1\\]"):
        symbolic.gradient(y, v, form="matrix")
    assert list(symbolic.gradient(y, v)) == [1, 1, 1]


@pytest.mark.torch
@pytest.mark.parametrize("name, dim", list(EXPECTED))
def test_expected_values_are_pytorchs(name, dim):
    torch = pytest.importorskip("torch")
    x, c = _tensors(torch)
    y = (getattr(torch, name)(x, dim) * c).sum()
    (g,) = torch.autograd.grad(y, x)
    value, grad = EXPECTED[(name, dim)]
    assert y.item() == pytest.approx(value, rel=1e-14)
    np.testing.assert_allclose(g.numpy(), grad, rtol=1e-14)
