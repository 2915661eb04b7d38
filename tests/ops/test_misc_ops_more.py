"""mode, nanmedian, unique, logcumsumexp, scatter_reduce and index_put beyond the tables of
``test_misc_ops.py``: return types, signs of zeros, derivatives that PyTorch refuses, closed
forms, in-place versions, and random inputs against PyTorch (ties and nans included)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.autograd.forward_ad as fwAD

NAN = float("nan")


def test_return_types_print_as_pytorchs():
    r = symgrad.tensor([3.0, 1.0, 3.0]).mode()
    assert repr(r) == ("symgrad.return_types.mode(\nvalues=tensor(3.),\nindices=tensor(2))")
    assert (r.values.item(), r.indices.item()) == (3.0, 2)
    r = symgrad.tensor([[NAN, 2.0]]).nanmedian(1)
    assert type(r).__name__ == "nanmedian" and r.indices.tolist() == [1]
    assert isinstance(symgrad.unique(symgrad.tensor([1, 1]), return_counts=True), tuple)


def test_unique_keeps_the_zero_that_pytorchs_sort_puts_first():
    def signs(data):
        return np.signbit(symgrad.unique(symgrad.tensor(data)).numpy()).tolist()

    assert signs([-0.0, 0.0, 0.0]) == [True]
    assert signs([0.0, -0.0, 0.0]) == [False]
    # past 16 elements std::sort is no longer stable: the first zero in its order stands
    assert signs([1.0, -0.0, 2.0, 0.0] * 20) == [False, False, False]
    assert signs([1.0, 0.0, 2.0, -0.0] * 20) == [True, False, False]


def test_unique_inverse_of_nans_follows_pytorchs_sort():
    values, inverse, counts = symgrad.tensor([5.0, NAN, 3.0, NAN, 5.0] * 10).unique(
        return_inverse=True, return_counts=True
    )
    assert values.shape == (22,) and counts.tolist() == [10, 20] + [1] * 20
    assert inverse.tolist() == [
        1, 10, 0, 3, 1, 1, 7, 0, 9, 1, 1, 13, 0, 14, 1, 1, 17, 0, 19, 1, 1, 12, 0, 21, 1,
        1, 20, 0, 18, 1, 1, 16, 0, 15, 1, 1, 4, 0, 11, 1, 1, 8, 0, 6, 1, 1, 2, 0, 5, 1,
    ]  # fmt: skip


def test_unique_has_no_derivative():
    x = symgrad.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True)
    for op, call, node in [
        ("_unique2", lambda: x.unique(), "Unique2Backward0"),
        ("unique_dim", lambda: x.unique(dim=0), "UniqueDimBackward0"),
        ("unique_consecutive", lambda: x.unique_consecutive(dim=1), "UniqueConsecutiveBackward0"),
    ]:
        out = call()
        assert out.requires_grad and out.grad_fn.name() == node
        with pytest.raises(NotImplementedError, match=f"the derivative for '{op}'"):
            out.sum().backward()
    with symgrad.no_grad():
        assert not x.unique().requires_grad
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, symgrad.ones(2, 2))
        with pytest.raises(NotImplementedError, match="forward AD with _unique2"):
            symgrad.unique(dual)


def test_scatter_reduce_refusals():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    out = x.scatter_reduce(0, symgrad.tensor([0, 0, 1]), symgrad.tensor([5.0, -3.0, 7.0]), "max")
    with pytest.raises(RuntimeError, match="Expected 'reduce' to be one of"):
        out.sum().backward()
    src = symgrad.tensor([0.0, 0.0, 3.0], dtype=symgrad.float64, requires_grad=True)
    out = symgrad.ones(2, dtype=symgrad.float64).scatter_reduce(
        0, symgrad.tensor([1, 1, 1]), src, "prod"
    )
    (g,) = symgrad.autograd.grad(out.sum(), src, retain_graph=True)  # two zeros: 0
    assert g.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="Double backward is unsupported"):
        symgrad.autograd.grad(out.sum(), src, create_graph=True)


def test_in_place_versions_record_pytorchs_nodes():
    y = symgrad.zeros(3, requires_grad=True) * 1
    y.scatter_reduce_(0, symgrad.tensor([0, 0]), symgrad.tensor([3.0, 4.0]), "amax")
    assert y.tolist() == [4.0, 0.0, 0.0] and y.grad_fn.name() == "ScatterReduceBackward0"
    y.index_put_((symgrad.tensor([2]),), symgrad.tensor(5.0))
    assert y.tolist() == [4.0, 0.0, 5.0] and y.grad_fn.name() == "IndexPutBackward0"
    z = symgrad.zeros(3)
    assert symgrad.index_put_(z, (symgrad.tensor([1, 1]),), symgrad.tensor(1.0), True) is z
    assert z.tolist() == [0.0, 2.0, 0.0]
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        symgrad.zeros(2, requires_grad=True).index_put_((symgrad.tensor([0]),), symgrad.tensor(1.0))


def test_setitem_is_unaffected():
    y = symgrad.zeros(2, 3, requires_grad=True) * 1
    y[symgrad.tensor([0, 1]), 1:] = symgrad.ones(1, 1, 2)  # leading 1s and slices: setitem only
    assert y.tolist() == [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    assert y.grad_fn.name() == "torch::autograd::CopySlices"  # PyTorch's name
    y[1] = 2  # a number, cast to the tensor's dtype
    assert y[1].tolist() == [2.0, 2.0, 2.0]


def test_logcumsumexp_closed_form_and_second_derivative():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    (dx,) = symgrad.symbolic.gradient(symgrad.logcumsumexp(x, 0)[1], [x])
    assert [str(e) for e in dx] == [
        "exp(x[0])/(exp(x[0]) + exp(x[1]))",
        "exp(x[1])/(exp(x[0]) + exp(x[1]))",
    ]
    x = symgrad.tensor([0.5, -1.0, 2.0], dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad(symgrad.logcumsumexp(x, 0)[2], x, create_graph=True)
    softmax = np.exp(x.detach().numpy()) / np.exp(x.detach().numpy()).sum()
    np.testing.assert_allclose(g.detach().numpy(), softmax, rtol=1e-14)
    (h,) = symgrad.autograd.grad(g[0], x)
    np.testing.assert_allclose(h.numpy(), softmax[0] * (np.eye(3)[0] - softmax), rtol=1e-13)


# -- random inputs against PyTorch ----------------------------------------------------------------
def _same(ours, theirs) -> bool:
    if isinstance(ours, tuple):
        return len(ours) == len(theirs) and all(_same(a, b) for a, b in zip(ours, theirs))
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    return (
        a.shape == b.shape
        and a.dtype == b.dtype
        and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    )


def _ties(rng, shape, nans):
    a = rng.integers(-2, 3, shape).astype(np.float64)
    if nans:
        a[rng.random(shape) < 0.3] = NAN
    return a


def _calls(dim: int, keepdim: bool) -> list:
    return [
        ("mode", lambda T, t: T.mode(t, dim, keepdim)),
        ("nanmedian", lambda T, t: T.nanmedian(t, dim)),
        ("nanmedian_all", lambda T, t: T.nanmedian(t)),
        ("unique", lambda T, t: T.unique(t, return_inverse=True, return_counts=True)),
        ("unique_dim", lambda T, t: T.unique(t, dim=dim, return_inverse=True)),
        ("unique_consecutive", lambda T, t: T.unique_consecutive(t, return_counts=True)),
    ]


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(4))
def test_selection_and_unique_match_pytorch_on_ties(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    for trial in range(25):
        shape = tuple(int(n) for n in rng.integers(1, 5, 2)) + (int(rng.choice([3, 17, 40])),)
        a = _ties(rng, shape, nans=trial % 2 == 1)
        dim = int(rng.integers(-3, 3))
        for name, call in _calls(dim, trial % 3 == 0):
            ours = call(symgrad, symgrad.tensor(a))
            theirs = call(torch, torch.tensor(a))
            assert _same(ours, theirs), (name, a.tolist(), dim)


@pytest.mark.torch
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_matches_pytorch_with_ties(reduce):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(reduce))
    for trial in range(30):
        shape = tuple(int(n) for n in rng.integers(1, 5, 2))
        dim = int(rng.integers(0, 2))
        index_shape = list(shape)
        index_shape[dim] = int(rng.integers(0, 6))
        index = rng.integers(0, shape[dim], index_shape)
        a, s = _ties(rng, shape, trial % 4 == 0), _ties(rng, index_shape, False)
        g = rng.standard_normal(shape)
        include_self = trial % 2 == 0
        results = []
        for T in (symgrad, torch):
            x = T.tensor(a, requires_grad=True)
            src = T.tensor(s, requires_grad=True)
            out = T.scatter_reduce(x, dim, T.tensor(index), src, reduce, include_self=include_self)
            results.append((out, *T.autograd.grad(out, (x, src), T.tensor(g))))
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(
                ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-14
            )
