"""``nn.utils.parametrizations.orthogonal``: orthogonality for each map and shape, the
``base`` of the trivialization, assignment, errors, the Householder product, and a cross-check
of values and gradients against PyTorch (the buffer ``base`` copied where it is random)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.nn.utils.orthogonal import householder_product
from symgrad.nn.utils.parametrizations import orthogonal

MAPS = [None, "matrix_exp", "cayley", "householder"]
SHAPES = [(3, 3), (4, 2), (2, 4)]


def _linear(shape):
    return nn.Linear(shape[1], shape[0]).double()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("orthogonal_map", MAPS)
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_the_weight_is_orthogonal(shape, orthogonal_map, use_trivialization):
    lin = orthogonal(
        _linear(shape), orthogonal_map=orthogonal_map, use_trivialization=use_trivialization
    )
    # off the diagonal only: the Householder map reads the diagonal's signs as integers (as
    # PyTorch's does), so a diagonal moved into (-1, 1) zeroes a column
    off_diagonal = symgrad.tensor(1.0 - np.eye(*shape))
    with symgrad.no_grad():
        original = lin.parametrizations.weight.original
        original.add_(symgrad.randn(*shape, dtype=symgrad.float64) * off_diagonal)
    w = lin.weight.detach().numpy()
    small = min(shape)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-10)
    assert hasattr(lin.parametrizations.weight[0], "base") == use_trivialization


def test_registration_keeps_an_orthogonal_weight_and_resets_original():
    lin = _linear((2, 2))
    w = symgrad.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=symgrad.float64)
    with symgrad.no_grad():
        lin.weight.copy_(w)
    orthogonal(lin)
    np.testing.assert_allclose(lin.weight.detach().numpy(), w.numpy(), atol=1e-12)
    np.testing.assert_allclose(lin.parametrizations.weight.original.detach().numpy(), -np.eye(2))
    assert lin.weight.grad_fn.name() == "MmBackward0"


def test_assigning_a_matrix_stores_its_orthogonal_factor():
    lin = orthogonal(_linear((2, 2)))
    lin.weight = symgrad.tensor([[3.0, 0.0], [4.0, 5.0]], dtype=symgrad.float64)
    # the Q of the QR factorization with a positive diagonal in R
    np.testing.assert_allclose(lin.weight.detach().numpy(), [[0.6, -0.8], [0.8, 0.6]], atol=1e-12)


def test_householder_product_values():
    a = symgrad.tensor([[0.0], [1.0]], dtype=symgrad.float64)
    # v = (1, 1), tau = 1: the first column of I - v v^T
    q = householder_product(a, symgrad.tensor([1.0], dtype=symgrad.float64))
    np.testing.assert_allclose(q.numpy(), [[0.0], [-1.0]])


def test_errors():
    with pytest.raises(ValueError, match="Got a tensor of 1 dimensions"):
        orthogonal(_linear((2, 2)), name="bias")
    with pytest.raises(ValueError, match='one of "matrix_exp", "cayley", "householder"'):
        orthogonal(_linear((2, 2)), orthogonal_map="qr")
    with pytest.raises(ValueError, match="no parameter or buffer with name 'nope'"):
        orthogonal(_linear((2, 2)), name="nope")
    lin = orthogonal(_linear((3, 3)))
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        lin.weight = symgrad.zeros(2, 2, dtype=symgrad.float64)
    lin = orthogonal(_linear((3, 3)), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        lin.weight = symgrad.eye(3, dtype=symgrad.float64)


# -- against PyTorch ----------------------------------------------------------------------------
def test_householder_product_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, tau = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 3))
    expected = torch.linalg.householder_product(torch.tensor(a), torch.tensor(tau))
    got = householder_product(symgrad.tensor(a), symgrad.tensor(tau))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("orthogonal_map", MAPS)
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_against_torch(shape, orthogonal_map, use_trivialization):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    torch.manual_seed(0)
    t = torch.nn.Linear(shape[1], shape[0]).double()
    s = _linear(shape)
    s.load_state_dict({k: symgrad.tensor(v.numpy()) for k, v in t.state_dict().items()})
    options = {"orthogonal_map": orthogonal_map, "use_trivialization": use_trivialization}
    torch.nn.utils.parametrizations.orthogonal(t, **options)
    orthogonal(s, **options)
    tp, sp = t.parametrizations.weight, s.parametrizations.weight
    if shape[0] == shape[1] or not use_trivialization:  # no random completion of the base
        np.testing.assert_allclose(sp.original.detach().numpy(), tp.original.detach().numpy())
        if use_trivialization:
            np.testing.assert_allclose(sp[0].base.numpy(), tp[0].base.numpy(), atol=1e-10)
    moved = tp.original.detach().numpy() + 0.3 * rng.standard_normal(shape)
    with torch.no_grad():
        tp.original.copy_(torch.tensor(moved))
    with symgrad.no_grad():
        sp.original.copy_(symgrad.tensor(moved))
        if use_trivialization:
            sp[0].base.copy_(symgrad.tensor(tp[0].base.numpy()))
    x = rng.standard_normal((2, shape[1]))
    yt, ys = t(torch.tensor(x)), s(symgrad.tensor(x))
    np.testing.assert_allclose(ys.detach().numpy(), yt.detach().numpy(), atol=1e-10)
    assert s.weight.grad_fn.name() == type(t.weight.grad_fn).__name__
    yt.square().sum().backward()
    ys.square().sum().backward()
    np.testing.assert_allclose(sp.original.grad.numpy(), tp.original.grad.numpy(), atol=1e-9)


def test_batch_of_matrices_against_torch():
    torch = pytest.importorskip("torch")
    w = np.random.default_rng(2).standard_normal((2, 3, 3))
    t_module, s_module = torch.nn.Module(), nn.Module()
    t_module.weight = torch.nn.Parameter(torch.tensor(w))
    s_module.weight = nn.Parameter(symgrad.tensor(w))
    torch.nn.utils.parametrizations.orthogonal(t_module, orthogonal_map="cayley")
    orthogonal(s_module, orthogonal_map="cayley")
    expected = t_module.weight.detach().numpy()
    np.testing.assert_allclose(s_module.weight.detach().numpy(), expected, atol=1e-10)
