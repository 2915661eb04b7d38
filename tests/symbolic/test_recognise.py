"""The fast ``simplify=True``: the forms people know (the logistic function and its derivative,
log-sum-exp, factored sums), equal to the unsimplified result at random points and never
longer; ``simplify="full"`` is SymPy's ``simplify``."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
import symgrad.nn.functional as F
from symgrad import symbolic
from symgrad.prim.special import logsumexp, sigmoid
from symgrad.symbolic import symbols
from symgrad.symbolic.recognise import recognise


def _t(values, name, grad=False):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=grad, name=name)


def _data():
    X = _t([[1.0, 2.0], [3.0, -4.0], [0.5, 1.0]], "X")
    w = _t([0.1, -0.2], "w", grad=True)
    b = _t(0.3, "b", grad=True)
    y = _t([1.0, 0.0, 1.0], "y")
    return X, w, b, y


def _same_everywhere(a, b, names, seed=0):
    """a and b agree at random points (exact SymPy evaluation to 30 digits)."""
    rng = np.random.default_rng(seed)
    free = sorted(sp.sympify(a).free_symbols | sp.sympify(b).free_symbols, key=str)
    assert free, "nothing to evaluate"
    for _ in range(5):
        point = {s: sp.Float(rng.uniform(-1.5, 1.5), 30) for s in free}
        diff = sp.N((sp.sympify(a) - sp.sympify(b)).xreplace(point), 30)
        assert abs(float(diff)) < 1e-20, (names, point)


def _logistic_losses():
    X, w, b, y = _data()
    z = X @ w + b
    manual = (-(y * z.sigmoid().log() + (1 - y) * (1 - z.sigmoid()).log())).mean()
    return {
        "with_logits": F.binary_cross_entropy_with_logits(z, y),
        "probabilities": F.binary_cross_entropy(z.sigmoid(), y),
        "written_out": manual,
    }, (X, w, b, y)


@pytest.mark.parametrize("name", ["with_logits", "written_out"])
def test_logistic_gradient_reads_sigmoid_minus_target(name):
    losses, (X, w, b, y) = _logistic_losses()
    plain = symbolic.gradient(losses[name], w)
    short = symbolic.gradient(losses[name], w, simplify=True)
    Xs, ys, ws, bs = symbols(X), symbols(y), symbols(w), symbols(b)
    expected = sum(
        Xs[i, 0] * (sigmoid(Xs[i, 0] * ws[0] + Xs[i, 1] * ws[1] + bs) - ys[i]) / 3 for i in range(3)
    )
    assert sp.expand(short[0] - expected) == 0  # the very terms, not only equal values
    for p, s in zip(plain, short):
        _same_everywhere(p, s, name)
        assert sp.count_ops(s) <= sp.count_ops(p)
    assert sp.count_ops(short[0]) < sp.count_ops(plain[0]) / 2


def test_probabilities_keep_pytorchs_clamps_and_are_never_longer():
    # binary_cross_entropy of probabilities clamps as PyTorch does (log at -100, the
    # denominator at 1e-12): the clamps stay, so no sigmoid(u) - y, but never longer
    losses, (X, w, b, y) = _logistic_losses()
    plain = symbolic.gradient(losses["probabilities"], w)
    short = symbolic.gradient(losses["probabilities"], w, simplify=True)
    assert short[0].has(sp.Max) and short[0].has(sigmoid)
    for p, s in zip(plain, short):
        assert sp.count_ops(s) <= sp.count_ops(p)
        _same_everywhere(p, s, "probabilities")


def test_expressions_are_never_longer():
    losses, _ = _logistic_losses()
    for name, loss in losses.items():
        plain, short = symbolic.expression(loss), symbolic.expression(loss, simplify=True)
        assert sp.count_ops(short) <= sp.count_ops(plain), name
        _same_everywhere(plain, short, name)


def test_sigmoid_derivative_and_tanh_derivative():
    p = _t(0.3, "p", grad=True)
    P = symbols(p)
    assert symbolic.gradient(p.sigmoid(), p, simplify=True) == sigmoid(P) * (1 - sigmoid(P))
    assert symbolic.gradient(p.tanh(), p, simplify=True) == 1 - sp.tanh(P) ** 2


def test_log_sum_exp_is_named():
    X, w, _, _ = _data()
    e = symbolic.expression(symgrad.logsumexp(X @ w, 0), simplify=True)
    assert isinstance(e, logsumexp) and len(e.args) == 3
    _same_everywhere(e, symbolic.expression(symgrad.logsumexp(X @ w, 0)), "lse")


def test_shared_parts_across_a_jacobian_and_hessian():
    x = _t([0.5, -1.0], "x", grad=True)
    J = symbolic.jacobian(x.sigmoid(), x, simplify=True)
    s = [sigmoid(v) for v in symbols(x)]
    assert J == sp.Matrix([[s[0] * (1 - s[0]), 0], [0, s[1] * (1 - s[1])]])
    H = symbolic.hessian(x.sigmoid().sum(), x, simplify=True)
    _same_everywhere(H[0, 0], symbolic.hessian(x.sigmoid().sum(), x)[0, 0], "hessian")
    assert H[0, 1] == 0


def test_simplify_full_and_bad_values():
    p = _t(0.3, "p", grad=True)
    full = symbolic.gradient(p.sigmoid(), p, simplify="full")
    assert not full.has(sigmoid)  # SymPy's own simplify, on the exponentials
    _same_everywhere(full, symbolic.gradient(p.sigmoid(), p), "full")
    with pytest.raises(ValueError, match="simplify must be True, False or 'full'"):
        symbolic.gradient(p.sigmoid(), p, simplify="fast")


def test_recognise_on_plain_sympy():
    u, y = sp.symbols("u y")
    assert recognise(1 / (1 + sp.exp(-u))) == sigmoid(u)
    e = -y / 3 + sp.Rational(1, 3) - sp.exp(-u) / (3 * (sp.exp(-u) + 1))
    assert sp.expand(recognise(e) - (sigmoid(u) - y) / 3) == 0
    assert recognise(sp.Integer(3)) == 3


def test_assignment_form_names_shared_parts_in_the_familiar_form():
    X, w, b, y = _data()
    loss = F.binary_cross_entropy_with_logits(X @ w + b, y)
    definitions, (gw, gb) = symbolic.gradient(loss, [w, b], cse=True, simplify=True)
    plain, _ = symbolic.gradient(loss, [w, b], cse=True)
    by_name = {str(s): e for s, e in definitions}
    s0 = sigmoid([s for s, _ in definitions if str(s) == "v2[0]"][0])
    assert sp.expand(by_name["g2[0]"] - (s0 - symbols(y)[0]) / 3) == 0
    assert "log(sigmoid(v2[0]))" in str(by_name["v3"])
    for (s, short), (_, long) in zip(definitions, plain):
        assert sp.count_ops(short) <= sp.count_ops(long), s
        if short.free_symbols:
            _same_everywhere(short, long, str(s))
