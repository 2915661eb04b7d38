"""A tensor with a history changed in place where no graph records it (under no_grad, through
``.data`` or ``detach()``): backward() differentiates the formula that made it at its new
values, which no closed form expresses, so closed forms refuse the nodes that read it after
the change (naming it) and stay as they were for the nodes that read it before."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad import symbolic

X = sp.Symbol("x", real=True)


def _changed_under_no_grad():
    x = symgrad.tensor(2.0, requires_grad=True, name="x")
    y = x * 2
    with symgrad.no_grad():
        y.mul_(3)
    return x, y, (y * y).sum()


def test_backward_uses_the_new_values_with_the_old_formulas_derivative():
    x, _, z = _changed_under_no_grad()
    z.backward()
    assert z.item() == 144.0  # y = 12
    assert x.grad.item() == 48.0  # 2 * y * dy/dx = 2 * 12 * 2


@pytest.mark.parametrize("form", ["expression", "gradient", "compile_gradient", "jacobian"])
def test_closed_forms_refuse_a_tensor_read_after_an_unrecorded_change(form):
    x, _, z = _changed_under_no_grad()
    call = {
        "expression": lambda: symbolic.expression(z),
        "gradient": lambda: symbolic.gradient(z, [x]),
        "compile_gradient": lambda: symbolic.compile_gradient(z, [x]),
        "jacobian": lambda: symbolic.jacobian(z, [x]),
    }[form]
    with pytest.raises(ValueError, match=r"MulBackward0.*changed in place by mul_.*no_grad"):
        call()


def test_the_matrix_form_refuses_it_too():
    x, _, z = _changed_under_no_grad()
    with pytest.raises(ValueError, match="changed in place"):
        symbolic.expression(z, form="matrix")


@pytest.mark.parametrize("how", ["data", "detach"])
def test_a_change_through_an_alias_is_refused(how):
    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    y = x * 2
    alias = y.data if how == "data" else y.detach()
    alias.add_(1)
    z = (y * y).sum()
    with pytest.raises(ValueError, match="changed in place by add_"):
        symbolic.gradient(z, [x])


def test_a_view_read_again_after_the_change_is_refused():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    y = x * 2
    v = y[0]
    with symgrad.no_grad():
        y.zero_()
    with pytest.raises(ValueError, match="changed in place by zero_"):
        symbolic.expression(v * x[0])


def test_nodes_that_read_the_tensor_before_the_change_keep_their_closed_forms():
    x = symgrad.tensor(2.0, requires_grad=True, name="x")
    y = x * 2
    before = y * y
    with symgrad.no_grad():
        y.mul_(3)
    assert symbolic.expression(before) == 4 * X**2
    assert symbolic.gradient(before, [x]) == [8 * X]
    # a leaf changed under no_grad (a parameter update) stays its symbol
    with symgrad.no_grad():
        x.add_(1)
    assert symbolic.gradient((x * x).sum(), [x]) == [2 * X]


def test_a_recorded_change_is_in_the_closed_forms():
    x = symgrad.tensor(2.0, requires_grad=True, name="x")
    y = x * 2
    y.mul_(3)
    z = (y * y).sum()
    assert symbolic.expression(z) == 36 * X**2
    assert symbolic.gradient(z, [x]) == [72 * X]


@pytest.mark.torch
def test_expected_values_are_pytorchs():
    torch = pytest.importorskip("torch")
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 2
    with torch.no_grad():
        y.mul_(3)
    z = (y * y).sum()
    z.backward()
    assert (z.item(), x.grad.item()) == (144.0, 48.0)
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 2
    y.mul_(3)
    (g,) = torch.autograd.grad((y * y).sum(), x)
    np.testing.assert_allclose(g.item(), 72 * 2.0)
