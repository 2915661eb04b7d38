"""A state loaded from an optimizer over parameters of other shapes: the step raises
PyTorch's RuntimeError from its tensor ops, whichever optimizer (not NumPy's ValueError from
a step computed on the arrays), and a fitting state keeps the fast step's numbers."""

from __future__ import annotations

import pytest

import symgrad

OPTIMIZERS = [
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "foreach": True}),
    ("Adam", {}),
    ("Adam", {"amsgrad": True}),
    ("AdamW", {"foreach": True}),
    ("Adadelta", {}),
    ("RMSprop", {"centered": True}),
]


def _loaded(lib, name, kwargs, shape):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    opt = getattr(lib.optim, name)([a], **kwargs)
    for _ in range(2):
        a.grad = lib.ones(2)
        opt.step()
    b = lib.ones(shape, requires_grad=True)
    other = getattr(lib.optim, name)([b], **kwargs)
    other.load_state_dict(opt.state_dict())
    b.grad = lib.ones(shape)
    return b, other


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS)
@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((3,), r"must match the size of tensor b \((2|3)\) at non-singleton dimension 0"),
        ((2, 2), r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"),
    ],
)
def test_a_state_of_other_shapes_raises_runtime_error(name, kwargs, shape, message):
    b, opt = _loaded(symgrad, name, kwargs, shape)
    with pytest.raises(RuntimeError, match=message):
        opt.step()


@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS)
def test_a_fitting_state_continues(name, kwargs):
    b, opt = _loaded(symgrad, name, kwargs, (2,))
    opt.step()
    assert b.shape == (2,) and all(v < 1.0 for v in b.tolist())


@pytest.mark.torch
@pytest.mark.parametrize(("name", "kwargs"), OPTIMIZERS)
def test_the_same_exception_type_as_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    for lib in (symgrad, torch):
        b, opt = _loaded(lib, name, kwargs, (3,))
        with pytest.raises(RuntimeError, match="must match the size of tensor"):
            opt.step()
    got, _ = _loaded(symgrad, name, kwargs, (2,))
    want, _ = _loaded(torch, name, kwargs, (2,))
    assert got.tolist() == want.tolist()
