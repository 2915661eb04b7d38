"""``compile_gradient(loss, xs, batch=...)``: one sample's gradient compiled once, evaluated
over a batch; per-sample, summed and mean gradients against ``backward()`` of the batched
loss."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.symbolic import compile_gradient

N, D = 300, 3


def _data(dtype=np.float64):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, D)).astype(dtype)
    X[0] = [400.0, -300.0, 200.0]  # logits of +-1150, far beyond exp's float64 range
    X[1] = [-400.0, 300.0, -200.0]
    Y = (rng.uniform(size=N) > 0.5).astype(dtype)
    Y[0], Y[1] = 0.0, 1.0
    return X, Y, np.array([1.5, -0.5, 2.0], dtype), np.array(0.25, dtype)


def _one_sample_logistic(dtype=symgrad.float64):
    """The logistic loss of ONE sample (x, y), traced with named tensors."""
    w = symgrad.tensor([0.1, 0.2, 0.3], dtype=dtype, requires_grad=True, name="w")
    b = symgrad.tensor(0.0, dtype=dtype, requires_grad=True, name="b")
    x = symgrad.tensor([1.0, 2.0, 3.0], dtype=dtype, name="x")
    y = symgrad.tensor(1.0, dtype=dtype, name="y")
    return F.binary_cross_entropy_with_logits(x @ w + b, y), w, b, x, y


def _engine(X, Y, w, b, reduction, dtype=symgrad.float64):
    """Gradients of the batched loss by backward()."""
    wt = symgrad.tensor(w, dtype=dtype, requires_grad=True)
    bt = symgrad.tensor(b, dtype=dtype, requires_grad=True)
    Xt = symgrad.tensor(X, dtype=dtype, requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(
        Xt @ wt + bt, symgrad.tensor(Y, dtype=dtype), reduction=reduction
    )
    loss.backward()
    return wt.grad.numpy(), bt.grad.numpy(), Xt.grad.numpy()


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_batch_gradient_is_the_gradient_of_the_reduced_loss(reduction):
    loss, w, b, x, y = _one_sample_logistic()
    f = compile_gradient(loss, [w, b], batch=[x, y], reduction=reduction)
    assert [t.name for t in f.extra_tensors] == ["x", "y"]
    assert f.batch_arguments == [2, 3] and f.reduction == reduction
    X, Y, w0, b0 = _data()
    gw, gb = f(w0, b0, X, Y)
    want_w, want_b, _ = _engine(X, Y, w0, b0, reduction)
    assert gw.shape == (D,) and gb.shape == () and isinstance(gb, np.ndarray)
    np.testing.assert_allclose(gw, want_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gb, want_b, rtol=1e-12, atol=1e-14)


def test_mean_is_the_default_reduction():
    loss, w, b, x, y = _one_sample_logistic()
    X, Y, w0, b0 = _data()
    default = compile_gradient(loss, [w, b], batch=[x, y])
    assert default.reduction == "mean"
    mean = compile_gradient(loss, [w, b], batch=[x, y], reduction="mean")
    for got, want in zip(default(w0, b0, X, Y), mean(w0, b0, X, Y)):
        np.testing.assert_array_equal(got, want)


def test_per_sample_gradients_match_one_backward_per_sample():
    loss, w, b, x, y = _one_sample_logistic()
    f = compile_gradient(loss, [w, b], batch=[x, y], reduction="none")
    X, Y, w0, b0 = _data()
    gw, gb = f(w0, b0, X, Y)
    assert gw.shape == (N, D) and gb.shape == (N,)
    for i in (0, 1, 2, N - 1):
        want_w, want_b, _ = _engine(X[i : i + 1], Y[i : i + 1], w0, b0, "sum")
        np.testing.assert_allclose(gw[i], want_w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gb[i], want_b, rtol=1e-12, atol=1e-14)
    # the samples with logits of +-1150 have gradient (sigmoid(z) - y) x = +-x exactly
    np.testing.assert_array_equal(gw[0], X[0])
    np.testing.assert_array_equal(gw[1], -X[1])


def test_per_sample_gradients_by_hand():
    w = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True, name="w")
    x = symgrad.tensor([1.0, 1.0], dtype=symgrad.float64, name="x")
    y = symgrad.tensor(0.0, dtype=symgrad.float64, name="y")
    f = compile_gradient((x @ w - y) ** 2, w, batch=[x, y], reduction="none")
    got = f([1.0, 2.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [0.0, 0.0, 3.0])
    np.testing.assert_array_equal(got, [[2.0, 0.0], [0.0, 4.0], [0.0, 0.0]])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gradient_of_the_batch_itself_is_per_sample(reduction):
    loss, w, b, x, y = _one_sample_logistic()
    f = compile_gradient(loss, [w, x], batch=[x, y], reduction=reduction)
    X, Y, w0, b0 = _data()
    gw, gx = f(w0, X, b0, Y)
    assert gx.shape == (N, D)
    engine_reduction = "sum" if reduction == "none" else reduction
    want_w, _, want_x = _engine(X, Y, w0, b0, engine_reduction)
    np.testing.assert_allclose(gx, want_x, rtol=1e-12, atol=1e-14)
    if reduction != "none":
        np.testing.assert_allclose(gw, want_w, rtol=1e-12, atol=1e-14)


def test_float32_batch():
    loss, w, b, x, y = _one_sample_logistic(symgrad.float32)
    f = compile_gradient(loss, [w, b], batch=[x, y])
    X, Y, w0, b0 = _data(np.float32)
    gw, gb = f(w0, b0, X, Y)
    assert gw.dtype == gb.dtype == np.float32
    want_w, want_b, _ = _engine(X, Y, w0, b0, "mean", symgrad.float32)
    np.testing.assert_allclose(gw, want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb, want_b, rtol=1e-5, atol=1e-6)


def test_one_compiled_function_serves_any_batch_size():
    loss, w, b, x, y = _one_sample_logistic()
    f = compile_gradient(loss, [w, b], batch=[x, y], reduction="sum")
    X, Y, w0, b0 = _data()
    for n in (1, 7, N):
        want_w, _, _ = _engine(X[:n], Y[:n], w0, b0, "sum")
        np.testing.assert_allclose(f(w0, b0, X[:n], Y[:n])[0], want_w, rtol=1e-12, atol=1e-14)
    gw, gb = f(w0, b0, X[:0], Y[:0])
    np.testing.assert_array_equal(gw, np.zeros(D))
    assert gb == 0.0


def test_batch_errors_say_what_is_wrong():
    loss, w, b, x, y = _one_sample_logistic()
    with pytest.raises(ValueError, match="batch"):
        compile_gradient(loss, [w, b], reduction="sum")
    with pytest.raises(ValueError, match="reduction must be one of"):
        compile_gradient(loss, [w, b], batch=[x, y], reduction="average")
    unused = symgrad.tensor([1.0], name="unused")
    with pytest.raises(ValueError, match="'unused' is not an argument"):
        compile_gradient(loss, [w, b], batch=[x, unused])
    with pytest.raises(TypeError, match="batch= takes tensors"):
        compile_gradient(loss, [w, b], batch=[x, "y"])
    with pytest.raises(ValueError, match="no tensor"):
        compile_gradient(loss, [w, b], batch=[])
    f = compile_gradient(loss, [w, b], batch=[x, y])
    X, Y, w0, b0 = _data()
    with pytest.raises(ValueError, match=r"argument 2 holds a batch .* \[N, 3\]"):
        f(w0, b0, X[0], Y)
    with pytest.raises(ValueError, match="argument 0 is shared by all samples"):
        f(np.stack([w0, w0]), b0, X, Y)
    with pytest.raises(ValueError, match="don't broadcast"):
        f(w0, b0, X, Y[:10])
