"""Reading one batch element's value as a Python object inside ``vmap`` (``.item()``,
``float()``, ``if`` on a value, ``.tolist()``, ``.numpy()``): PyTorch's ``RuntimeError`` with its
message, never a silent per-element loop; and against ``torch.func.vmap`` when PyTorch is
installed."""

from __future__ import annotations

import pytest

import symgrad

ITEM = "calling .item\\(\\) on a Tensor. We don't support vmap over calling .item"
CONTROL = "use a Tensor in some data-dependent control flow. We don't support that yet"
UNDER_GRAD = "either \\(1\\) calling .item\\(\\) on a Tensor or \\(2\\) attempting to use"
STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"

# name -> (program of (T, x) for T symgrad or torch, x of shape (3, 2), message)
READS = {
    "item": (lambda T, x: T.func.vmap(lambda a: a * a.sum().item())(x), ITEM),
    "float": (lambda T, x: T.func.vmap(lambda a: a * float(a.sum()))(x), ITEM),
    "int": (lambda T, x: T.func.vmap(lambda a: a * int(a.sum()))(x), ITEM),
    "slice_by_value": (lambda T, x: T.func.vmap(lambda a: a[: int(a[0])])(x), ITEM),
    "format": (lambda T, x: T.func.vmap(lambda a: a * len(f"{a.sum():.2f}"))(x), ITEM),
    "if": (lambda T, x: T.func.vmap(lambda a: a if a.sum() > 2 else -a)(x), CONTROL),
    "bool_all": (lambda T, x: T.func.vmap(lambda a: a if (a > 0).all() else -a)(x), CONTROL),
    "equal_number": (
        lambda T, x: T.func.vmap(lambda a: a * (1 if a.sum() == 1 else 2))(x),
        CONTROL,
    ),
    "tolist": (lambda T, x: T.func.vmap(lambda a: T.tensor(a.tolist()))(x), STORAGE),
    "numpy": (lambda T, x: T.func.vmap(lambda a: T.from_numpy(a.numpy()))(x), STORAGE),
    "nested_item": (lambda T, x: T.func.vmap(T.func.vmap(lambda a: a * a.item()))(x), ITEM),
    "item_in_grad": (
        lambda T, x: T.func.vmap(T.func.grad(lambda a: a.sum() * a.sum().item()))(x),
        UNDER_GRAD,
    ),
    "if_in_grad": (
        lambda T, x: T.func.vmap(T.func.grad(lambda a: a.sum() if a.sum() > 2 else -a.sum()))(x),
        UNDER_GRAD,
    ),
    "item_in_jacrev": (
        lambda T, x: T.func.vmap(T.func.jacrev(lambda a: a * a.sum().item()))(x),
        UNDER_GRAD,
    ),
    "item_under_outer_grad": (
        lambda T, x: T.func.grad(lambda x: T.func.vmap(lambda a: a * a.sum().item())(x).sum())(x),
        ITEM,
    ),
    "item_requires_grad": (
        lambda T, x: T.func.vmap(lambda a: a * a.sum().item())(x.clone().requires_grad_()),
        ITEM,
    ),
}


def _x(T):
    return T.arange(6.0).reshape(3, 2)


@pytest.mark.parametrize("name", sorted(READS))
def test_reading_a_batched_value_is_pytorchs_error(name):
    program, message = READS[name]
    with pytest.raises(RuntimeError, match=message):
        program(symgrad, _x(symgrad))


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(READS))
def test_reading_a_batched_value_against_torch(name):
    torch = pytest.importorskip("torch")
    program, message = READS[name]
    with pytest.raises(RuntimeError) as theirs:
        program(torch, _x(torch))
    with pytest.raises(RuntimeError) as ours:
        program(symgrad, _x(symgrad))
    assert str(ours.value) == str(theirs.value)


def test_values_not_batched_and_shapes_are_still_read(no_loop):
    x = _x(symgrad)
    scaled = symgrad.func.vmap(lambda a, b: a * b.item(), in_dims=(0, None))(x, symgrad.tensor(2.0))
    assert scaled.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    assert symgrad.func.vmap(lambda a: a * len(a))(x).tolist() == [
        [0.0, 2.0],
        [4.0, 6.0],
        [8.0, 10.0],
    ]
    assert symgrad.func.vmap(lambda a: a[a.argmax()])(x).tolist() == [1.0, 3.0, 5.0]
    assert symgrad.func.jacrev(lambda a: a * a.sum().item())(x[0]).tolist() == [
        [1.0, 0.0],
        [0.0, 1.0],
    ]
