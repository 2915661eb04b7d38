"""Argument forms as PyTorch 2.13 takes them: ``x.split(split_size=...)``, the matrix norms of
``x.norm('nuc')`` / ``x.norm('fro')`` and ``x.to(None, dtype)``."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

# -- split --------------------------------------------------------------------------------------


def test_split_method_takes_split_size_by_keyword():
    v = symgrad.arange(10.0, requires_grad=True)
    pieces = v.split(split_size=3)
    assert [p.tolist() for p in pieces] == [
        [0.0, 1.0, 2.0],
        [3.0, 4.0, 5.0],
        [6.0, 7.0, 8.0],
        [9.0],
    ]
    assert pieces[0].grad_fn.name() == "SplitBackward0"
    pieces = v.split(split_size=[3, 7], dim=0)
    assert [p.shape for p in pieces] == [(3,), (7,)]
    assert pieces[0].grad_fn.name() == "SplitWithSizesBackward0"
    m = symgrad.arange(6.0).reshape(2, 3)
    assert [p.tolist() for p in m.split(split_size=2, dim=1)] == [
        [[0.0, 1.0], [3.0, 4.0]],
        [[2.0], [5.0]],
    ]


def test_split_function_takes_split_size_or_sections_by_keyword():
    v = symgrad.arange(10.0)
    assert [p.shape for p in symgrad.split(v, split_size_or_sections=4)] == [(4,), (4,), (2,)]
    assert [p.shape for p in symgrad.split(v, split_size_or_sections=[3, 7])] == [(3,), (7,)]
    assert [p.shape for p in symgrad.split(v, 5)] == [(5,), (5,)]


def test_split_without_a_size():
    with pytest.raises(TypeError, match="split_size"):
        symgrad.arange(4.0).split()


# -- norm with a string p -----------------------------------------------------------------------
M = [[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]


def _nuclear(a):
    return float(np.linalg.svd(np.asarray(a), compute_uv=False).sum())


@pytest.mark.parametrize(
    "call", [lambda m: m.norm("nuc"), lambda m: m.norm(p="nuc"), lambda m: symgrad.norm(m, "nuc")]
)
def test_nuclear_norm_value_and_gradient(call):
    m = symgrad.tensor(M, requires_grad=True)
    out = call(m)
    assert out.shape == ()
    assert out.item() == pytest.approx(_nuclear(M), rel=1e-6)
    assert out.grad_fn.name() == "SumBackward1"
    out.backward()
    u, _, vt = np.linalg.svd(np.asarray(M), full_matrices=False)
    np.testing.assert_allclose(m.grad.numpy(), u @ vt, rtol=1e-5, atol=1e-6)


def test_nuclear_norm_dims_keepdim_and_dtype():
    b = symgrad.arange(24.0).reshape(2, 3, 4)
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(
        b.norm("nuc", dim=(1, 2)).numpy(), [_nuclear(a[0]), _nuclear(a[1])], rtol=1e-5
    )
    np.testing.assert_allclose(
        b.norm("nuc", dim=(-1, 0)).numpy(), [_nuclear(a[:, i, :].T) for i in range(3)], rtol=1e-5
    )
    assert b.norm("nuc", dim=(2, 0), keepdim=True).shape == (1, 3, 1)
    m = symgrad.tensor(M)
    assert m.norm("nuc", keepdim=True).shape == (1, 1)
    out = m.norm("nuc", dtype=symgrad.float64)
    assert out.dtype == symgrad.float64
    assert out.item() == pytest.approx(_nuclear(M))
    assert symgrad.zeros(0, 3).norm("nuc").item() == 0.0


def test_frobenius_norm():
    m = symgrad.tensor(M, requires_grad=True)
    out = m.norm("fro")
    assert out.item() == pytest.approx(float(np.sqrt(np.sum(np.square(M)))))
    assert out.grad_fn.name() == "LinalgVectorNormBackward0"
    out.backward()
    np.testing.assert_allclose(m.grad.numpy(), np.asarray(M) / out.item(), rtol=1e-6)
    assert m.norm("fro", dim=1).shape == (2,)
    b = symgrad.ones(2, 3, 4)
    assert b.norm("fro").item() == pytest.approx(np.sqrt(24.0))
    assert m.norm(dtype=symgrad.float64).dtype == symgrad.float64
    assert m.norm(1, dtype=symgrad.float64).item() == 22.0


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: symgrad.ones(3).norm("nuc"), "at least 2 dimensions"),
        (lambda: symgrad.ones(2, 3, 4).norm("nuc"), "dim must be a 2-tuple. Got 0 1 2"),
        (lambda: symgrad.ones(2, 3).norm("nuc", dim=0), "dim must be a 2-tuple. Got 0"),
        (lambda: symgrad.ones(2, 3, 4).norm("fro", dim=(0, 1, 2)), "dim must be a 2-tuple"),
        (lambda: symgrad.ones(2, 3).norm("inf"), "Order inf not supported"),
        (lambda: symgrad.ones(2, 3).norm("foo"), "Order foo not supported"),
        (lambda: symgrad.ones(2, 2, dtype=symgrad.int64).norm("nuc"), "floating point"),
    ],
)
def test_bad_matrix_norms(call, fragment):
    with pytest.raises(RuntimeError, match=fragment):
        call()


# -- to(None, dtype) ----------------------------------------------------------------------------


def test_to_with_device_none_positional():
    t = symgrad.ones(2, requires_grad=True)
    out = t.to(None, symgrad.float64)
    assert out.dtype == symgrad.float64
    assert out.grad_fn.name() == "ToCopyBackward0"
    assert t.to(None, symgrad.float64, False, True).dtype == symgrad.float64
    assert t.to(None, dtype=symgrad.float64).dtype == symgrad.float64
    assert t.to(None) is t
    assert t.to(None, symgrad.float32) is t


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((None, False, True), {}),
        (("cpu", False, True), {}),
        (("cpu",), {"device": "cpu"}),
        ((None,), {"device": "cpu"}),
        ((None, symgrad.float64), {"dtype": symgrad.float64}),
        ((None, "cpu"), {}),
    ],
)
def test_to_device_signature_refuses(args, kwargs):
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        symgrad.ones(2).to(*args, **kwargs)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_permute_without_dims_is_a_type_error(shape: tuple) -> None:
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "dims"'):
        symgrad.ones(shape).permute()
    assert symgrad.ones(2, 3).permute(1, 0).shape == (3, 2)
    assert symgrad.ones(()).permute(()).shape == ()
