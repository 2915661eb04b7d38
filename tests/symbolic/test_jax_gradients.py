"""Compiled gradients exported to JAX: the NumPy backend's numbers, under ``jax.jit`` too; and
the errors for an unknown backend."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.symbolic import compile_gradient

# float32 (JAX's default) against the NumPy backend's float64
TOL = dict(rtol=2e-5, atol=1e-6)

LOSSES = {
    "bce_with_logits": lambda z, y: F.binary_cross_entropy_with_logits(z, y),
    "cross_entropy": lambda z, y: F.cross_entropy(z.reshape(1, 4), symgrad.tensor([2])),
    "softplus_tanh": lambda z, y: (F.softplus(z) * y.tanh()).sum(),
    "mse_sigmoid": lambda z, y: F.mse_loss(z.sigmoid(), y),
    "erf_abs": lambda z, y: (z.erf() * y + z.abs()).sum(),
}


def _leaves() -> tuple:
    z = symgrad.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True, name="z")
    y = symgrad.tensor([1.0, 0.0, 0.5, 1.0], name="y")
    return z, y


def test_unknown_backend_lists_the_choices():
    z, y = _leaves()
    with pytest.raises(
        ValueError, match="backend must be one of 'numpy', 'jax', 'symengine', got 'torch'"
    ):
        compile_gradient((z * y).sum(), z, backend="torch")


def test_missing_jax_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_jax(name, *args, **kwargs):
        if name == "jax" or name.startswith("jax."):
            raise ImportError("No module named 'jax'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_jax)
    z, y = _leaves()
    with pytest.raises(ImportError, match=r"pip install 'symgrad\[jax\]'"):
        compile_gradient((z * y).sum(), z, backend="jax")


def test_missing_dask_says_how_to_install(monkeypatch):
    import builtins

    from symgrad.symbolic.chunked import require_dask

    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "dask" or name.startswith("dask."):
            raise ImportError("No module named 'dask'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(ImportError, match=r"pip install 'symgrad\[dask\]'"):
        require_dask()


@pytest.mark.parametrize("case", sorted(LOSSES))
def test_jax_matches_numpy_under_jit(case):
    jax = pytest.importorskip("jax")
    z, y = _leaves()
    loss = LOSSES[case](z, y)
    f_np = compile_gradient(loss, z)
    f_jax = compile_gradient(loss, z, backend="jax")
    assert [t.name for t in f_jax.extra_tensors] == [t.name for t in f_np.extra_tensors]
    args = [np.array([0.3, -2.0, 1.5, 4.0])] + [t.numpy() for t in f_np.extra_tensors]
    expected = f_np(*args)
    eager = f_jax(*args)
    assert isinstance(eager, jax.Array)
    np.testing.assert_allclose(np.asarray(eager), expected, **TOL)
    jitted = jax.jit(f_jax)(*args)
    np.testing.assert_allclose(np.asarray(jitted), expected, **TOL)


def test_stable_at_extreme_logits():
    jax = pytest.importorskip("jax")
    z, y = _leaves()
    f = compile_gradient(F.binary_cross_entropy_with_logits(z, y), z, backend="jax")
    targets = np.array([1.0, 0.0, 1.0, 0.0])
    got = np.asarray(jax.jit(f)(np.array([1000.0, -1000.0, 0.0, 50.0]), targets))
    # (sigmoid(z) - y) / 4, no inf / inf at either end
    np.testing.assert_allclose(got, [0.0, 0.0, -0.125, 0.25], atol=1e-7)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_batch_under_jit_and_vmap(reduction):
    jax = pytest.importorskip("jax")
    w = symgrad.tensor([0.5, -1.0], requires_grad=True, name="w")
    x = symgrad.tensor([1.0, 2.0], name="x")
    y = symgrad.tensor(1.0, name="y")
    loss = F.binary_cross_entropy_with_logits(x @ w, y)
    args = [
        np.array([0.3, -0.2]),
        np.random.default_rng(0).standard_normal((64, 2)),
        (np.arange(64) % 2).astype(np.float64),
    ]
    f_np = compile_gradient(loss, w, batch=[x, y], reduction=reduction)
    f_jax = compile_gradient(loss, w, batch=[x, y], reduction=reduction, backend="jax")
    expected = f_np(*args)
    np.testing.assert_allclose(np.asarray(jax.jit(f_jax)(*args)), expected, **TOL)
    if reduction == "none":  # the per-sample gradients, as vmap of the one-sample gradient
        one = compile_gradient(loss, w, backend="jax")
        per = jax.vmap(one, in_axes=(None, 0, 0))(*args)
        np.testing.assert_allclose(np.asarray(per), expected, **TOL)


def test_composes_with_jax_transformations():
    jax = pytest.importorskip("jax")
    w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    f = compile_gradient((w.sin() * w).sum(), w, backend="jax")
    # the gradient is pure JAX: its own derivative (the Hessian's diagonal here) comes from JAX
    jac = jax.jacfwd(f)(np.array([0.5, 1.0], np.float32))
    expected = [2 * np.cos(v) - v * np.sin(v) for v in (0.5, 1.0)]
    np.testing.assert_allclose(np.diag(np.asarray(jac)), expected, rtol=1e-5)


def test_wrong_shape_is_a_clear_error():
    pytest.importorskip("jax")
    z, y = _leaves()
    f = compile_gradient((z * y).sum(), z, backend="jax")
    with pytest.raises(ValueError, match=r"argument 0 must have shape \[4\]"):
        f(np.ones(3), np.ones(4))
