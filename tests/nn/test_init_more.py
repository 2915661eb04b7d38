"""nn.init's structured fills (orthogonal_, trunc_normal_, eye_, dirac_, sparse_), the
deprecated names, and generators passed through."""

from __future__ import annotations

import warnings

import pytest

import symgrad
from symgrad.nn import init


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3, 3), (3, 3)])
def test_orthogonal(shape):
    w = init.orthogonal_(symgrad.empty(*shape), gain=2.0)
    flat = w.reshape(shape[0], -1)
    gram = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    assert symgrad.allclose(gram, 4.0 * symgrad.eye(gram.shape[0]), atol=1e-5)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        init.orthogonal_(symgrad.empty(3))


def test_eye_dirac_sparse_trunc_normal():
    assert init.eye_(symgrad.empty(2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.eye_(symgrad.empty(2, 3, 1))
    w = init.dirac_(symgrad.empty(4, 2, 3, 3), groups=2)
    assert w.sum((-1, -2)).tolist() == [[1, 0], [0, 1], [1, 0], [0, 1]]
    assert w[0, 0, 1, 1].item() == 1.0
    with pytest.raises(ValueError, match="divisible by groups"):
        init.dirac_(symgrad.empty(3, 2, 3), 2)
    assert (init.sparse_(symgrad.empty(5, 3), 0.3) == 0).sum(0).tolist() == [2, 2, 2]
    t = init.trunc_normal_(symgrad.empty(2000), 0.1, 1.0, -0.1, 0.3)
    assert bool(((t >= -0.1) & (t <= 0.3)).all())


def test_generators_make_fills_reproducible():
    g = symgrad.Generator()
    for fill in (init.normal_, init.uniform_, init.xavier_uniform_, init.kaiming_normal_,
                 init.orthogonal_, init.trunc_normal_):  # fmt: skip
        g.manual_seed(3)
        a = fill(symgrad.empty(3, 4), generator=g)
        g.manual_seed(3)
        assert (a == fill(symgrad.empty(3, 4), generator=g)).all(), fill.__name__


def test_sparse_draws_its_zeros_from_the_default_generator():
    # PyTorch's sparse_ draws the values from `generator` but each column's permutation from
    # the default generator (torch.randperm(rows) without it)
    symgrad.manual_seed(0)
    g = symgrad.Generator().manual_seed(3)
    w = init.sparse_(symgrad.empty(5, 2), 0.4, std=1.0, generator=g)
    assert (w == 0).tolist() == [[True, False], [False, False], [False, False], [False, True],
                                 [True, True]]  # fmt: skip
    assert [round(v, 4) for v in w.flatten().tolist()][1:4] == [0.1748, 0.089, -0.6137]
    assert symgrad.rand(2).tolist() == [0.455627977848053, 0.6323062777519226]
    assert symgrad.rand(1, generator=g).tolist() == [0.6483104228973389]


@pytest.mark.torch
def test_sparse_draws_as_pytorch():
    torch = pytest.importorskip("torch")
    for lib in (torch, symgrad):
        lib.manual_seed(1)
        g = lib.Generator().manual_seed(7)
        w = lib.nn.init.sparse_(lib.empty(6, 4), 0.5, generator=g)
        draws = [w.tolist(), lib.rand(3).tolist(), lib.rand(3, generator=g).tolist()]
        if lib is torch:
            expected = draws
    assert draws == expected


def test_deprecated_names():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        init.uniform(symgrad.empty(2))
        init.eye(symgrad.empty(2, 2))
    assert [w.category for w in caught] == [FutureWarning, FutureWarning]
    assert (
        str(caught[0].message)
        == "`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`."
    )


def test_names_match_pytorch():
    torch = pytest.importorskip("torch")
    ours = {n for n in dir(init) if not n.startswith("_") and callable(getattr(init, n))}
    theirs = {
        n
        for n in dir(torch.nn.init)
        if not n.startswith("_")
        and getattr(getattr(torch.nn.init, n), "__module__", "") == "torch.nn.init"
    }
    assert theirs <= ours
