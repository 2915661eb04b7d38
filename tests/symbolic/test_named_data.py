"""Named data stays symbolic: a tensor computed from named tensors without a grad_fn (they
need no gradient) keeps the op as its provenance, so closed forms, derivations and compiled
gradients show it in the names, never as a number; grad_fn and requires_grad stay PyTorch's."""

from __future__ import annotations

import numpy as np
import sympy as sp

import symgrad
import symgrad.nn.functional as F
from symgrad import symbolic


def _symbols(*names):
    return sp.symbols(" ".join(names), real=True)


def test_a_term_of_named_data_is_not_folded_into_a_number():
    w = symgrad.tensor(0.3, requires_grad=True, name="w")
    y = symgrad.tensor(1.0, name="y")
    L = y * w + (1 - y) * w**2
    W, Y = _symbols("w", "y")
    assert sp.simplify(symbolic.expression(L) - (Y * W + (1 - Y) * W**2)) == 0
    # the gradient at y = 0 is 2w = 0.6 (folded into a number it was 0)
    f = symbolic.compile_gradient(L, [w])
    assert [str(symbol) for _, symbol in f.arguments] == ["w", "y"]
    np.testing.assert_allclose(f(0.3, 0.0)[0], 0.6)
    np.testing.assert_allclose(f(0.3, 1.0)[0], 1.0)


def test_sums_and_products_of_named_data_stay_in_their_names():
    m = symgrad.tensor(2.0, name="m")
    g = symgrad.tensor(9.81, name="g")
    l = symgrad.tensor(1.5, name="l")  # noqa: E741 - the pendulum's length
    th = symgrad.tensor(0.2, requires_grad=True, name="th")
    M, G, LL, TH = _symbols("m", "g", "l", "th")
    assert symbolic.expression(m + g) == M + G
    energy = m * g * l * symgrad.cos(th)
    assert sp.simplify(symbolic.expression(energy) - M * G * LL * sp.cos(TH)) == 0
    (dth,) = symbolic.gradient(energy, [th])
    assert sp.simplify(sp.sympify(dth) + M * G * LL * sp.sin(TH)) == 0


def test_a_named_probability_target_stays_in_cross_entropy():
    z = symgrad.tensor([[0.1, 0.2, 0.3]], requires_grad=True, name="z")
    y = symgrad.tensor([[0.2, 0.3, 0.5]], name="y")
    loss = F.cross_entropy(z, y, label_smoothing=0.1)
    assert {s.name.partition("[")[0] for s in symbolic.expression(loss).free_symbols} == {"y", "z"}
    # compiled for another target, the gradient is backward's for that target
    other = np.array([[1.0, 0.0, 0.0]])
    f = symbolic.compile_gradient(loss, [z])
    z2 = symgrad.tensor(z.detach().numpy(), requires_grad=True)
    F.cross_entropy(z2, symgrad.tensor(other), label_smoothing=0.1).backward()
    np.testing.assert_allclose(f(z.detach().numpy(), other)[0], z2.grad.numpy(), rtol=1e-6)


def test_autograd_state_stays_pytorchs_and_unnamed_data_records_nothing():
    y = symgrad.tensor([1.0, 2.0], name="y")
    d = 1 - y
    assert d.grad_fn is None and not d.requires_grad and d.is_leaf
    assert d._origin is not None  # the provenance is not a grad_fn
    plain = symgrad.tensor([1.0, 2.0])
    assert (plain * 2)._origin is None  # no named input: nothing kept
    w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    with symgrad.no_grad():
        detached = w * y  # made from a tensor requiring grad under no_grad: plain data
    assert detached._origin is None and detached.grad_fn is None


def test_derived_data_used_twice_is_one_subexpression():
    x = symgrad.tensor(0.5, requires_grad=True, name="x")
    a = symgrad.tensor(2.0, name="a")
    scale = a * a + 1
    f = scale * x + scale * x**2
    X, A = _symbols("x", "a")
    assert sp.expand(symbolic.expression(f) - ((A**2 + 1) * (X + X**2))) == 0


def test_derivations_and_pictures_show_the_op_that_made_the_data():
    from symgrad.viz import draw

    w = symgrad.tensor(0.3, requires_grad=True, name="w")
    y = symgrad.tensor(1.0, name="y")
    L = y * w + (1 - y) * w**2
    text = str(symbolic.derivation(L, [w]))
    assert "v3 = 1 - y" in text and "v4 = v2*v3" in text
    assert "2*w*(1 - y) + y" in text
    source = draw(L).source
    assert "v3 = 1 - y" in source and "v4 = v2*v3" in source and "<TD>0</TD>" not in source
    m = symgrad.tensor(2.0, name="m")
    g = symgrad.tensor(9.81, name="g")
    assert "y = g + m" in draw(m + g).source  # a result with no grad_fn at all
