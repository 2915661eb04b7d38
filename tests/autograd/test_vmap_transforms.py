"""The transforms built on ``vmap`` (``jacrev``, ``jacfwd``, ``hessian``) and the transforms
inside ``vmap``: one batched backward pass for a batch of cotangents, equal to the per-row
loop and to ``torch.func``, with no loop warning."""

from __future__ import annotations

import importlib
import warnings
from functools import partial

import numpy as np
import pytest

import symgrad
from symgrad import func
from symgrad.nn import functional as F

R = np.random.default_rng(1)
W, B = R.normal(size=(3, 4)), R.normal(size=3)


def predict(T, F, weight, bias, x):
    return F.linear(x, weight, bias).tanh()


@pytest.fixture
def no_loop(monkeypatch):
    monkeypatch.setattr(importlib.import_module("symgrad.func.vmap"), "_warned_loop", [False])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="vmap")  # symgrad's: not PyTorch's own
        yield


def _rows_of_jacobian(f, x):
    """The Jacobian row by row, with autograd.grad (the loop the transforms replace)."""
    x = x if x.requires_grad else x.detach().requires_grad_(True)
    y = f(x).reshape(-1)
    rows = [symgrad.autograd.grad(y[i], x, create_graph=True)[0] for i in range(y.numel())]
    return symgrad.stack(rows).reshape(*f(x).shape, *x.shape)


def _sym(*arrays):
    return [symgrad.tensor(a) for a in arrays]


def test_vmap_of_a_vjp_function_is_the_jacobian(no_loop):
    w, b, x = _sym(W, B, R.normal(size=4))
    _, vjp_fn = func.vjp(partial(predict, symgrad, F, w, b), x)
    (jac,) = func.vmap(vjp_fn)(symgrad.eye(3, dtype=symgrad.float64))
    expected = _rows_of_jacobian(partial(predict, symgrad, F, w, b), x)
    np.testing.assert_allclose(jac.numpy(), expected.detach().numpy(), rtol=1e-12)


def test_jacobians_and_hessians_have_plain_values(no_loop):
    x = symgrad.tensor([1.0, 2.0])
    cube = lambda x: x**3  # noqa: E731
    assert func.jacrev(cube)(x).tolist() == [[3.0, 0.0], [0.0, 12.0]]
    assert func.jacfwd(cube)(x).tolist() == [[3.0, 0.0], [0.0, 12.0]]
    assert func.hessian(lambda x: (x**3).sum())(x).tolist() == [[6.0, 0.0], [0.0, 12.0]]
    per_row = func.vmap(func.jacrev(lambda x: (x**2).sum(0)))(symgrad.tensor([[1.0], [3.0]]))
    assert per_row.tolist() == [[2.0], [6.0]]
    batch_hessians = func.vmap(func.hessian(lambda x: (x**3).sum()))(x.reshape(2, 1))
    assert batch_hessians.tolist() == [[[6.0]], [[12.0]]]


COMPOSITIONS = {
    "jacrev": lambda fn, T: fn.jacrev(partial(predict, T, T.nn.functional), argnums=2),
    "jacfwd": lambda fn, T: fn.jacfwd(partial(predict, T, T.nn.functional), argnums=2),
    "jacrev_argnums": lambda fn, T: fn.jacrev(partial(predict, T, T.nn.functional), argnums=(0, 1)),
    "hessian": lambda fn, T: fn.hessian(partial(predict, T, T.nn.functional), argnums=2),
    "jacrev_jacrev": lambda fn, T: fn.jacrev(
        fn.jacrev(partial(predict, T, T.nn.functional), argnums=2), argnums=2
    ),
    "jacfwd_jacfwd": lambda fn, T: fn.jacfwd(
        fn.jacfwd(partial(predict, T, T.nn.functional), argnums=2), argnums=2
    ),
    "vmap_jacrev": lambda fn, T: fn.vmap(
        fn.jacrev(partial(predict, T, T.nn.functional), argnums=2), in_dims=(None, None, 0)
    ),
    "vmap_hessian": lambda fn, T: fn.vmap(
        fn.hessian(partial(predict, T, T.nn.functional), argnums=2), in_dims=(None, None, 0)
    ),
    "vmap_vmap_grad": lambda fn, T: fn.vmap(
        fn.vmap(
            fn.grad(lambda w, b, x: predict(T, T.nn.functional, w, b, x).sum(), argnums=2),
            in_dims=(None, None, 0),
        ),
        in_dims=(None, None, 0),
    ),
    "jacrev_of_vmap": lambda fn, T: fn.jacrev(
        fn.vmap(partial(predict, T, T.nn.functional), in_dims=(None, None, 0)), argnums=2
    ),
}
BATCHED = {"vmap_jacrev": 1, "vmap_hessian": 1, "vmap_vmap_grad": 2, "jacrev_of_vmap": 1}


def _inputs(name):
    lead = {0: (), 1: (2,), 2: (2, 3)}[BATCHED.get(name, 0)]
    return W, B, R.normal(size=lead + (4,))


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_compositions_run_batched_and_equal_pytorchs(name, no_loop):
    torch = pytest.importorskip("torch")
    arrays = _inputs(name)
    ours = COMPOSITIONS[name](func, symgrad)(*_sym(*arrays))
    theirs = COMPOSITIONS[name](torch.func, torch)(*[torch.tensor(a) for a in arrays])
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_compositions_equal_the_row_loop(no_loop):
    w, b, x = _sym(W, B, R.normal(size=4))
    f = partial(predict, symgrad, F, w, b)
    rows = _rows_of_jacobian(f, x)
    np.testing.assert_allclose(func.jacrev(f)(x).numpy(), rows.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(func.jacfwd(f)(x).numpy(), rows.detach().numpy(), rtol=1e-12)
    xg = x.detach().requires_grad_(True)
    hess = _rows_of_jacobian(lambda x: _rows_of_jacobian(f, x), xg)
    np.testing.assert_allclose(func.hessian(f)(x).numpy(), hess.detach().numpy(), atol=1e-12)


def test_jacobian_in_chunks_of_the_basis(monkeypatch, no_loop):
    w, b, x = _sym(W, B, R.normal(size=4))
    f = partial(predict, symgrad, F, w, b)
    whole, forward = func.jacrev(f)(x), func.jacfwd(f)(x)
    monkeypatch.setattr(importlib.import_module("symgrad.func.batched"), "_BASIS_ELEMENTS", 2)
    np.testing.assert_array_equal(func.jacrev(f)(x).numpy(), whole.numpy())
    np.testing.assert_array_equal(func.jacfwd(f)(x).numpy(), forward.numpy())


def test_jacobian_with_aux_tuple_outputs_and_empty_shapes(no_loop):
    x = symgrad.tensor([1.0, 2.0])
    jac, aux = func.jacrev(lambda x: (x**2, x.sum()), has_aux=True)(x)
    assert jac.tolist() == [[2.0, 0.0], [0.0, 4.0]] and aux.item() == 3.0
    jac, aux = func.jacfwd(lambda x: (x**2, x.sum()), has_aux=True)(x)
    assert jac.tolist() == [[2.0, 0.0], [0.0, 4.0]] and aux.item() == 3.0
    a, b = func.jacrev(lambda x: (x * 2, (x**2).sum()))(x)
    assert a.tolist() == [[2.0, 0.0], [0.0, 2.0]] and b.tolist() == [2.0, 4.0]
    assert func.jacrev(lambda x: x[:0])(x).shape == (0, 2)
    assert func.jacfwd(lambda x: x * 2)(symgrad.zeros(0)).shape == (0, 0)


def test_a_transform_of_a_closure_over_a_batch_runs_batched(monkeypatch):
    monkeypatch.setattr(importlib.import_module("symgrad.func.vmap"), "_warned_loop", [False])
    w = symgrad.tensor([1.0, 2.0])
    xs = symgrad.tensor([[1.0, 0.0], [2.0, 3.0]])

    def per_sample(x):
        f = lambda w: (w * x).sin()  # noqa: E731 - closes over the batched x
        out, vjp_fn = func.vjp(f, w)
        _, jv = func.jvp(f, (w,), vjp_fn(symgrad.ones(2)))
        return func.grad(lambda w: f(w).sum() ** 2)(w) + jv

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = func.vmap(per_sample)(xs)
    assert not caught  # batched: no loop, no warning (an inner loop would hide an outer one)
    expected = symgrad.stack([per_sample(x) for x in xs])
    np.testing.assert_allclose(out.numpy(), expected.numpy())
