"""float16 reductions and scans accumulate in float32 and round once, as PyTorch's CPU kernels.

The expected values are NumPy's: float16 data widened to float32 (or float64, for a gradient
whose formula here differs from the one computed), reduced, and rounded to float16. Where the
order of the operations differs from symgrad's, a result may be one float16 unit in the last
place (ulp) away."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad

H, F32, F64 = np.float16, np.float32, np.float64
F = symgrad.nn.functional


def _half(data, requires_grad=True):
    return symgrad.tensor(np.asarray(data, dtype=H), requires_grad=requires_grad)


def _gradient(x, y, g):
    y.backward(symgrad.tensor(np.asarray(g, dtype=H)))
    assert x.grad.dtype is symgrad.float16
    return x.grad.numpy()


def _values(t):
    return t.detach().numpy() if isinstance(t, symgrad.Tensor) else t


def _exact(got, want):
    got = _values(got)
    assert got.dtype == H
    np.testing.assert_array_equal(got, np.asarray(want).astype(H))


def _within_ulp(got, want, ulps=1):
    """``got`` (float16) at most ``ulps`` float16 steps from ``want`` (any float dtype)."""
    got = _values(got)
    assert got.dtype == H
    want = np.asarray(want, dtype=F64)
    step = np.spacing(np.abs(want.astype(H))).astype(F64)
    assert np.all(np.abs(got.astype(F64) - want) <= ulps * step), np.max(np.abs(got - want))


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(H)


# -- sums and means --------------------------------------------------------------------------------
def test_sum_along_a_leading_dim():
    out = symgrad.ones(2000, 4, dtype=symgrad.float16).mul(0.99).sum(0)
    _exact(out, np.sum(np.full((2000, 4), H(0.99)), 0, dtype=F32))
    assert float(out[0]) == 1980.0


def test_sum_over_several_dims():
    a = _data((30, 70, 9))
    _exact(_half(a, False).sum((0, 2)), a.sum((0, 2), dtype=F32))
    _exact(_half(a, False).sum(1, keepdim=True), a.sum(1, keepdims=True, dtype=F32))


def test_gradient_summed_back_over_broadcast_rows():
    b, g = _half(np.ones(4)), _data((3000, 4))
    _exact(_gradient(b, b.expand(3000, 4), g), g.sum(0, dtype=F32))


def test_mean_divides_the_float32_sum():
    a = _data((2049, 3)) + H(4)
    x = _half(a)
    out = x.mean(0)
    _exact(out, a.sum(0, dtype=F32) / F32(2049))
    # the gradient is g / 2049, not g / float16(2049) = g / 2048
    _exact(_gradient(x, out, np.ones(3)), np.full((2049, 3), F32(1) / F32(2049)))


# -- scans ---------------------------------------------------------------------------------------
def test_cumsum_and_its_gradient():
    x = symgrad.ones(3000, dtype=symgrad.float16, requires_grad=True)
    out = x.cumsum(0)
    assert float(out[-1].detach()) == 3000.0
    _exact(out, np.cumsum(np.ones(3000, F32)))
    _exact(_gradient(x, out, np.ones(3000)), np.arange(3000, 0, -1, dtype=F32))


def test_cumsum_along_a_leading_dim():
    a = _data((2500, 3))
    _exact(_half(a, False).cumsum(0), np.cumsum(a, 0, dtype=F32))


def test_cumprod_and_its_gradient():
    a = np.full(2000, H(1.001))
    x = _half(a)
    out = x.cumprod(0)
    _exact(out, np.cumprod(a, dtype=F32))
    assert abs(float(out[-1].detach()) - 7.04) < 0.01
    g = _data(2000) + H(1)
    # no zeros: sum_{j >= i} g_j out_j / x_i, with the float16 outputs the backward reads
    running = out.detach().numpy().astype(F64)
    want = np.cumsum((g * running)[::-1])[::-1] / a
    _within_ulp(_gradient(x, out, g), want, ulps=2)


def test_logcumsumexp_and_its_gradient():
    x = symgrad.zeros(3000, dtype=symgrad.float16, requires_grad=True)
    out = x.logcumsumexp(0)
    _exact(out, np.logaddexp.accumulate(np.zeros(3000, F32)))
    # d out_i / d x_j = exp(x_j - out_i) for j <= i, with the float16 outputs
    decay = np.exp(-out.detach().numpy().astype(F64))
    _within_ulp(_gradient(x, out, np.ones(3000)), np.cumsum(decay[::-1])[::-1])


# -- variance ------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["var", "std"])
def test_variance_along_a_leading_dim(op):
    a = _data((2000, 4)) * H(3) + H(5)
    x = _half(a)
    out = getattr(x, op)(0)
    wide = a.astype(F32)
    var = ((wide - wide.sum(0) / 2000) ** 2).sum(0) / 1999
    _exact(out, var if op == "var" else np.sqrt(var))
    exact = a.astype(F64)
    centred = exact - exact.mean(0)
    want = 2 * centred / 1999
    if op == "std":  # d std = d var / (2 std), with the float16 std the backward reads
        want = want / (2 * out.detach().numpy().astype(F64))
    _within_ulp(_gradient(x, out, np.ones(4)), want)


def test_var_mean_and_std_mean():
    a = _data((2000, 4)) + H(5)
    wide = a.astype(F32)
    mean = wide.sum(0) / 2000
    var = ((wide - mean) ** 2).sum(0) / 1999
    v, m = symgrad.var_mean(_half(a), 0)
    _exact(v, var)
    _exact(m, mean)
    s, m = symgrad.std_mean(_half(a), 0)
    _exact(s, np.sqrt(var))
    _exact(m, mean)


# -- the softmax family ----------------------------------------------------------------------------
def _softmax(a, dim):
    e = np.exp(a - a.max(dim, keepdims=True))
    if dim not in (-1, a.ndim - 1):  # PyTorch's kernel rounds the exponentials to float16 first
        return e.astype(H).astype(F32) / e.sum(dim, keepdims=True)
    return e / e.sum(dim, keepdims=True)


def _log_softmax(a, dim):
    shifted = a - a.max(dim, keepdims=True)
    total = np.exp(shifted).sum(dim, keepdims=True)
    if dim in (-1, a.ndim - 1):  # PyTorch's kernel keeps the sum and its log in float16
        return shifted - np.log(total.astype(H))
    return shifted - np.log(total)


@pytest.mark.parametrize("shape,dim", [((2000, 4), 0), ((4, 2000), 1), ((64, 2048), 1)])
def test_softmax_and_its_gradient(shape, dim):
    a, g = _data(shape) * H(2), _data(shape, 1)
    x = _half(a)
    out = x.softmax(dim)
    _exact(out, _softmax(a.astype(F32), dim))
    o, g32 = out.detach().numpy().astype(F32), g.astype(F32)
    _exact(_gradient(x, out, g), o * (g32 - (g32 * o).sum(dim, keepdims=True)))


@pytest.mark.parametrize("shape,dim", [((2000, 4), 0), ((4, 2000), 1), ((64, 2048), 1)])
def test_log_softmax_and_its_gradient(shape, dim):
    a, g = _data(shape) * H(2), _data(shape, 1)
    x = _half(a)
    out = x.log_softmax(dim)
    _exact(out, _log_softmax(a.astype(F32), dim))
    o, g32 = out.detach().numpy().astype(F32), g.astype(F32)
    _exact(_gradient(x, out, g), g32 - np.exp(o) * g32.sum(dim, keepdims=True))


def test_logsumexp_sums_its_exponentials_in_float32():
    a = _data((2000, 4)) * H(2)
    m = a.max(0)
    terms = np.exp(a - m)  # float16, as PyTorch's exp of a float16 tensor
    _exact(_half(a, False).logsumexp(0), np.log(terms.sum(0, dtype=F32).astype(H)) + m)


# -- normalization ---------------------------------------------------------------------------------
def _layer_norm(a, axes, eps=1e-5, saved=False):
    """The normalized ``a`` and ``1 / std``; ``saved``: from the mean and ``1 / std`` rounded to
    float16, as PyTorch saves them for the backward of a float16 input."""
    mean = a.mean(axes, keepdims=True)
    rstd = 1 / np.sqrt(((a - mean) ** 2).mean(axes, keepdims=True) + eps)
    if saved:
        mean, rstd = mean.astype(H).astype(F64), rstd.astype(H).astype(F64)
    return (a - mean) * rstd, rstd


def _layer_norm_input_gradient(g, a, axes):
    xhat, rstd = _layer_norm(a, axes, saved=True)
    mean_g, mean_gx = g.mean(axes, keepdims=True), (g * xhat).mean(axes, keepdims=True)
    return rstd * (g - mean_g - xhat * mean_gx)


def _within_row_ulp(got, want):
    """``got`` at most one float16 ulp of its row's largest value from ``want``: the terms of
    a normalization's gradient cancel, so a small result carries the error of the large ones."""
    got, want = _values(got), np.asarray(want, dtype=F64)
    assert got.dtype == H
    step = np.spacing(np.abs(want).max(-1, keepdims=True).astype(H)).astype(F64)
    assert np.all(np.abs(got.astype(F64) - want) <= step)


@pytest.mark.parametrize("shape", [(4, 2000), (2000, 4), (8, 1024)])
def test_layer_norm_and_its_gradients(shape):
    a, g = _data(shape) * H(3) + H(2), _data(shape, 1)
    w = _half(np.linspace(0.5, 1.5, shape[-1]))
    b = _half(np.linspace(-1, 1, shape[-1]))
    x = _half(a)
    out = F.layer_norm(x, shape[-1:], w, b)
    wide, g64 = a.astype(F64), g.astype(F64)
    xhat = _layer_norm(wide, -1)[0]
    _within_row_ulp(out, xhat * w.detach().numpy() + b.detach().numpy())
    gx = _gradient(x, out, g)
    _within_row_ulp(gx, _layer_norm_input_gradient(g64 * w.detach().numpy(), wide, -1))
    _within_ulp(w.grad, (g64 * _layer_norm(wide, -1, saved=True)[0]).sum(0))
    _exact(b.grad, g.sum(0, dtype=F32))


def test_group_norm_and_its_gradient():
    a, g = _data((2, 4, 1500)) + H(1), _data((2, 4, 1500), 1)
    x = _half(a)
    out = F.group_norm(x, 2)
    groups = a.astype(F64).reshape(2, 2, -1)
    _within_ulp(out, _layer_norm(groups, -1)[0].reshape(a.shape))
    want = _layer_norm_input_gradient(g.astype(F64).reshape(2, 2, -1), groups, -1)
    _within_row_ulp(_gradient(x, out, g).reshape(2, 2, -1), want)


# -- other dtypes keep their own arithmetic --------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wider_dtypes_reduce_in_their_own_dtype(dtype):
    a = np.random.default_rng(0).standard_normal((700, 5)).astype(dtype)
    x = symgrad.tensor(a)
    np.testing.assert_array_equal(x.sum(0).numpy(), a.sum(0))
    # running sums accumulate in float64, as PyTorch's (float32's rounded once per element)
    np.testing.assert_array_equal(
        x.cumsum(0).numpy(), np.cumsum(a, 0, dtype=np.float64).astype(dtype)
    )
    np.testing.assert_array_equal(x.mean(0).numpy(), a.sum(0) / 700)
    assert x.var(0).dtype is symgrad.tensor(a[:1]).dtype


# -- PyTorch, when installed -----------------------------------------------------------------------
_CASES = {
    "sum0": (lambda t, x: x.sum(0), (2000, 4)),
    "mean0": (lambda t, x: x.mean(0), (2049, 4)),
    "cumsum0": (lambda t, x: x.cumsum(0), (3000, 2)),
    "cumprod0": (lambda t, x: x.cumprod(0), (2000, 2)),
    "logcumsumexp0": (lambda t, x: x.logcumsumexp(0), (2000, 2)),
    "var0": (lambda t, x: x.var(0), (2000, 4)),
    "std1": (lambda t, x: x.std(1), (4, 2000)),
    "logsumexp0": (lambda t, x: x.logsumexp(0), (2000, 4)),
    "softmax0": (lambda t, x: x.softmax(0), (2000, 4)),
    "softmax1": (lambda t, x: x.softmax(1), (4, 2000)),
    "log_softmax0": (lambda t, x: x.log_softmax(0), (2000, 4)),
    "log_softmax1": (lambda t, x: x.log_softmax(1), (4, 2000)),
    "layer_norm": (lambda t, x: t.nn.functional.layer_norm(x, (2000,)), (4, 2000)),
}


# gradients whose terms cancel: within a float16 step of the largest one
_CANCELLING = {"softmax0", "softmax1", "layer_norm"}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(_CASES))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")
    op, shape = _CASES[name]
    a = _data(shape) * H(2)
    if name == "cumprod0":  # factors near 1, so the products stay in range
        a = (1 + a.astype(F32) / 1000).astype(H)
    results = []
    for lib in (symgrad, torch):
        x = lib.tensor(a, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = op(lib, x)
        y.backward(lib.tensor(np.abs(_data(tuple(y.shape), 1))))
        assert x.grad.dtype == lib.float16
        results.append((y.detach().numpy(), x.grad.numpy()))
    (ours, our_grad), (theirs, their_grad) = results
    _within_ulp(ours, theirs)
    if name == "logcumsumexp0":  # PyTorch's backward works on logarithms held in float16
        np.testing.assert_allclose(our_grad, their_grad, rtol=1e-2)
    elif name in _CANCELLING:
        step = np.spacing(np.abs(their_grad).max())
        assert np.all(np.abs(our_grad.astype(F64) - their_grad) <= step)
    else:
        _within_ulp(our_grad, their_grad, ulps=2)
