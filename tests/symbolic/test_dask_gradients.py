"""Compiled gradients over Dask arrays: lazy results, one task per chunk, and the same numbers
as the NumPy evaluation (per-chunk partial sums for the mean and the sum over samples)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.symbolic import compile_gradient, expression, lambdify

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


def _regression() -> tuple:
    """One sample's logistic loss: weights w, bias b, features x, target y."""
    w = symgrad.tensor([0.5, -1.0], requires_grad=True, name="w")
    b = symgrad.tensor(0.25, requires_grad=True, name="b")
    x = symgrad.tensor([1.0, 2.0], name="x")
    y = symgrad.tensor(1.0, name="y")
    return w, b, x, y, F.binary_cross_entropy_with_logits(x @ w + b, y)


def _data(n: int, chunk: int) -> tuple:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 2))
    Y = (rng.random(n) > 0.5).astype(np.float64)
    return X, Y, da.from_array(X, chunks=(chunk, 2)), da.from_array(Y, chunks=chunk)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_batch_reductions_match_numpy(reduction):
    w, b, x, y, loss = _regression()
    f = compile_gradient(loss, [w, b], batch=[x, y], reduction=reduction)
    X, Y, Xd, Yd = _data(1000, 300)  # four chunks, the last one short
    lazy = f([0.3, -0.2], 0.1, Xd, Yd)
    assert all(isinstance(g, da.Array) for g in lazy)
    if reduction == "none":
        assert lazy[0].chunks == ((300, 300, 300, 100), (2,))
    got = dask.compute(*lazy, scheduler="threads")
    for g, ref in zip(got, f([0.3, -0.2], 0.1, X, Y)):
        assert g.shape == ref.shape and g.dtype == ref.dtype
        np.testing.assert_allclose(g, ref, rtol=1e-12, atol=1e-15)


def test_mean_is_the_mean_over_all_chunks():
    w = symgrad.tensor(0.0, requires_grad=True, name="w")
    x = symgrad.tensor(0.0, name="x")
    f = compile_gradient(w * x, w, batch=[x])  # d/dw of mean(w * x) = mean(x)
    xs = da.arange(10.0, chunks=3)
    assert float(f(1.0, xs).compute()) == 4.5
    assert float(compile_gradient(w * x, w, batch=[x], reduction="sum")(1.0, xs).compute()) == 45


def test_gradient_by_the_data_stays_per_sample():
    w, b, x, y, loss = _regression()
    f = compile_gradient(loss, [w, x], batch=[x, y])
    assert [str(t.name) for t in f.extra_tensors] == ["b", "y"]
    X, Y, Xd, Yd = _data(500, 128)
    gw, gx = f([0.3, -0.2], Xd, 0.1, Yd)
    assert gx.chunks[0] == Xd.chunks[0]
    ref = f([0.3, -0.2], X, 0.1, Y)
    np.testing.assert_allclose(gw.compute(), ref[0], rtol=1e-12)
    np.testing.assert_allclose(gx.compute(), ref[1], rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_leading_dimensions_stay_lazy_and_keep_the_dtype(dtype):
    w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    f = compile_gradient((w.sin() * w).sum(), w)
    W = da.random.default_rng(1).standard_normal((1000, 2), chunks=(300, 1)).astype(dtype)
    lazy = f(W)
    assert isinstance(lazy, da.Array) and lazy.dtype == dtype
    assert lazy.chunks[0] == W.chunks[0]  # a sample's two values were joined into one chunk
    got = lazy.compute()
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, f(W.compute()))


def test_arguments_broadcast_like_numpy():
    u = symgrad.tensor(1.0, requires_grad=True, name="u")
    v = symgrad.tensor(2.0, name="v")
    f = lambdify([expression((u * v).exp()), expression(u - v)], [u, v])
    U = da.from_array(np.linspace(-1, 1, 12).reshape(4, 3), chunks=(2, 3))
    V = np.array([[0.5], [1.0], [1.5], [2.0]])  # broadcasts along the second dimension
    got = dask.compute(*f(U, V))
    for g, ref in zip(got, f(U.compute(), V)):
        np.testing.assert_allclose(g, ref, rtol=1e-15)


def test_shape_errors_are_reported_before_computing():
    w, b, x, y, loss = _regression()
    f = compile_gradient(loss, [w, b], batch=[x, y])
    with pytest.raises(ValueError, match=r"its shape must be \[N, 2\]"):
        f([0.3, -0.2], 0.1, da.ones((10, 3), chunks=5), da.ones(10, chunks=5))
    unknown = da.ones((10, 2), chunks=5)
    unknown = unknown[unknown[:, 0] > 0]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        f([0.3, -0.2], 0.1, unknown, da.ones(10, chunks=5))


@pytest.mark.slow
def test_ten_million_samples_on_a_local_scheduler():
    """Larger than one chunk by far: 10^7 samples in 10 chunks, evaluated in parallel."""
    w = symgrad.tensor([0.5, -1.0], requires_grad=True, name="w")
    x = symgrad.tensor([1.0, 2.0], name="x")
    y = symgrad.tensor(1.0, name="y")
    f = compile_gradient((x @ w - y) ** 2, w, batch=[x, y])
    n, chunk = 10**7, 10**6
    rng = da.random.default_rng(0)
    Xd = rng.standard_normal((n, 2), chunks=(chunk, 2))
    Yd = rng.standard_normal(n, chunks=chunk)
    assert Xd.numblocks == (10, 1)
    grad = f([0.3, -0.2], Xd, Yd)
    with _local_scheduler() as scheduler:
        got = grad.compute(scheduler=scheduler)
    X, Y = dask.compute(Xd, Yd)
    np.testing.assert_allclose(got, f([0.3, -0.2], X, Y), rtol=1e-10)


@contextlib.contextmanager
def _local_scheduler():
    """A local ``dask.distributed`` cluster's client when distributed is installed, else the
    threaded scheduler."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        yield "threads"
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster:
        with Client(cluster) as client:
            yield client


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_matrix_shaped_gradients(reduction):
    W = symgrad.tensor(np.ones((2, 3)), requires_grad=True, name="W")
    x = symgrad.tensor(np.ones(2), name="x")
    f = compile_gradient(((x @ W).tanh() ** 2).sum(), [W, x], batch=[x], reduction=reduction)
    X = np.random.default_rng(0).standard_normal((1000, 2))
    w = np.linspace(-1, 1, 6).reshape(2, 3)
    lazy = f(w, da.from_array(X, chunks=(256, 1)))  # a sample split over two chunks
    expected_w = (1000, 2, 3) if reduction == "none" else (2, 3)
    assert lazy[0].shape == expected_w and lazy[1].shape == (1000, 2)
    for g, ref in zip(dask.compute(*lazy), f(w, X)):
        np.testing.assert_allclose(g, ref, rtol=1e-12, atol=1e-15)
