"""``symgrad.func``: torch.func's transforms, with PyTorch's values (as literals here, and
against torch.func when it is importable), return structures and errors."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import func, nn

X = [[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]]
Y = [1.0, 0.0, 2.0]
W = [0.3, -0.2]


def loss(T, w, x, y):
    return ((x @ w - y) ** 2).sum()


def cube(T, x):
    return (x**3).sum()


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _run(T, fn):
    """The same program on symgrad and torch."""
    return fn(T, T.func if T is not symgrad else func)


def _all(T, tf):
    w, x, y = (
        T.tensor(W, dtype=T.float64),
        T.tensor(X, dtype=T.float64),
        T.tensor(Y, dtype=T.float64),
    )
    xs = T.tensor([1.0, 2.0], dtype=T.float64)
    per_sample = tf.vmap(tf.grad(lambda w, x, y: loss(T, w, x, y)), in_dims=(None, 0, 0))(w, x, y)
    g, value = tf.grad_and_value(lambda w: loss(T, w, x, y))(w)
    ga, aux = tf.grad(lambda w: (loss(T, w, x, y), w.sum()), has_aux=True)(w)
    gw, gx = tf.grad(lambda w, x: (x @ w).sum(), argnums=(0, 1))(w, x)
    second = tf.grad(tf.grad(lambda t: t**3))(T.tensor(2.0, dtype=T.float64))
    out, vjp_fn = tf.vjp(lambda t: t.sin(), xs)
    (pulled,) = vjp_fn(T.ones(2, dtype=T.float64))
    _, pushed = tf.jvp(lambda t: t.sin() * t, (xs,), (T.tensor([1.0, -1.0], dtype=T.float64),))
    jr = tf.jacrev(lambda t: t.sin() * t.sum())(xs)
    jf = tf.jacfwd(lambda t: t.sin() * t.sum())(xs)
    h = tf.hessian(lambda t: cube(T, t) * t.prod())(xs)
    return dict(
        per_sample=per_sample,
        g=g,
        value=value,
        ga=ga,
        aux=aux,
        gw=gw,
        gx=gx,
        second=second,
        out=out,
        pulled=pulled,
        pushed=pushed,
        jr=jr,
        jf=jf,
        h=h,
    )


EXPECTED = {  # PyTorch 2.13's torch.func, float64
    "per_sample": [[-2.2, -4.4], [6.6, -2.1999999999999997], [-1.95, -1.95]],
    "g": [2.4499999999999993, -8.549999999999999],
    "value": 6.2225,
    "gw": [4.5, 1.5],
    "second": 12.0,
    "pulled": [0.5403023058681398, -0.4161468365471424],
    "pushed": [1.3817732906760363, -0.0770037537313969],
    "jr": [[2.4623779024123156, 0.8414709848078965], [0.9092974268256817, -0.33914308281574557]],
    "h": [[24.0, 36.0], [36.0, 48.0]],
}


@pytest.fixture(scope="module")
def ours():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _all(symgrad, func)


def test_values(ours):
    for key, want in EXPECTED.items():
        np.testing.assert_allclose(_np(ours[key]), want, rtol=1e-12, atol=1e-12, err_msg=key)
    np.testing.assert_allclose(_np(ours["jr"]), _np(ours["jf"]), rtol=1e-14)
    np.testing.assert_allclose(_np(ours["ga"]), EXPECTED["g"], rtol=1e-12)
    assert ours["gx"].shape == (3, 2) and float(ours["aux"]) == pytest.approx(0.1, abs=1e-15)


def test_against_torch(ours):
    torch = pytest.importorskip("torch")
    theirs = _all(torch, torch.func)
    for key, value in theirs.items():
        np.testing.assert_allclose(_np(ours[key]), _np(value), rtol=1e-12, atol=1e-14, err_msg=key)


def test_results_have_no_graph_unless_inputs_require_grad():
    x = symgrad.tensor([1.0, 2.0])
    g = func.grad(lambda t: (t**2).sum())(x)
    assert not g.requires_grad and g.grad_fn is None
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    g = func.grad(lambda t: (t**3).sum())(w)
    assert g.requires_grad
    g.sum().backward()  # d/dw sum(3 w^2) = 6 w
    np.testing.assert_allclose(w.grad.numpy(), [6.0, 12.0])


def test_errors_as_pytorch():
    x = symgrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        func.grad(lambda t: t * 2)(x)
    with pytest.raises(RuntimeError, match="output of function f should be a tuple"):
        func.grad(lambda t: t.sum(), has_aux=True)(x)
    with pytest.raises(ValueError, match="same size in the mapped dimension, got sizes \\[2, 3\\]"):
        func.vmap(lambda a, b: a + b)(symgrad.ones(2, 3), symgrad.ones(3, 3))
    with pytest.raises(ValueError, match="at least one non-None value in in_dims"):
        func.vmap(lambda a: a, in_dims=(None,))(x)
    with pytest.raises(ValueError, match="dimensionality 0"):
        func.vmap(lambda a: a)(symgrad.tensor(1.0))
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(lambda a: symgrad.randn(2) + a)(symgrad.ones(3, 2))
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        func.vmap(lambda a: a, randomness="sometimes")
    with pytest.raises(RuntimeError, match="Got argnum=3, but only 1 positional inputs"):
        func.grad(lambda t: t.sum(), argnums=3)(x)


def test_vmap_randomness_out_dims_and_nesting():
    symgrad.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = func.vmap(lambda a: symgrad.randn(2) + a, randomness="same")(symgrad.zeros(3, 2))
        different = func.vmap(lambda a: symgrad.randn(2) + a, randomness="different")(
            symgrad.zeros(3, 2)
        )
        outer = func.vmap(func.vmap(lambda a, b: a * b))(symgrad.ones(2, 3), symgrad.ones(2, 3) * 2)
        moved = func.vmap(lambda a: a * 2, out_dims=1)(symgrad.arange(6.0).reshape(3, 2))
        pair = func.vmap(lambda a: (a.sum(), a * 0))(symgrad.ones(4, 2))
    assert (same[0] == same[1]).all() and (same[1] == same[2]).all()
    assert not (different[0] == different[1]).all()
    assert outer.shape == (2, 3) and float(outer.sum()) == 12.0
    assert moved.tolist() == [[0.0, 4.0, 8.0], [2.0, 6.0, 10.0]]
    assert pair[0].tolist() == [2.0] * 4 and pair[1].shape == (4, 2)


def test_vmap_warns_once_that_it_loops(monkeypatch):
    monkeypatch.setattr(importlib.import_module("symgrad.func.vmap"), "_warned_loop", [False])
    ordered = symgrad.tensor([[2.0, 1.0], [0.0, 3.0]])
    with pytest.warns(UserWarning, match="batched tensor.*once per batch element"):
        out = func.vmap(lambda a: a.sort().values * symgrad.histc(a, 2, 0.0, 2.0)[1])(ordered)
    assert out.tolist() == [[2.0, 4.0], [0.0, 0.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        func.vmap(lambda a: a.sort().values * symgrad.histc(a, 2, 0.0, 2.0)[1])(ordered)
        func.vmap(lambda a: a)(symgrad.ones(2))  # batched: no loop, no warning


def test_functional_call_swaps_and_restores():
    symgrad.manual_seed(0)
    net = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
    before = {k: v.detach().clone() for k, v in net.named_parameters()}
    params = {k: symgrad.ones_like(v) for k, v in net.named_parameters()}
    out = func.functional_call(net, params, (symgrad.tensor([1.0, -1.0]),))
    np.testing.assert_allclose(out.detach().numpy(), [2 * np.tanh(1.0) + 1], rtol=1e-6)
    for k, v in net.named_parameters():
        assert (v.detach() == before[k]).all()
    grads = func.grad(lambda p, x: func.functional_call(net, p, (x,)).sum())(
        params, symgrad.tensor([1.0, -1.0])
    )
    assert set(grads) == set(params) and grads["2.bias"].tolist() == [1.0]
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): '0.bias', '2.bias', '2.weight'\\."):
        func.functional_call(net, {"0.weight": params["0.weight"]}, (symgrad.ones(2),), strict=True)
