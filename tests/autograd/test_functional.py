"""``symgrad.autograd.functional`` against PyTorch's ``torch.autograd.functional``: values,
return structures and exception types, kept as plain expected values and checked against
PyTorch when it is importable."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])


def flat(x: Any) -> Any:
    """Nested tuples of tensors as nested lists of rounded numbers."""
    if isinstance(x, (tuple, list)):
        return [flat(i) for i in x]
    if hasattr(x, "detach"):
        return np.round(x.detach().numpy(), 8).tolist()
    return x


def outcome(fn, T) -> Any:
    try:
        return flat(fn(T, T.autograd.functional))
    except Exception as exc:  # the type is what is compared
        return type(exc).__name__


def _x(T):
    return T.tensor([1.0, 2.0, 3.0], dtype=T.float64)


def _f(x):
    return x**2 * 2


CASES = {
    "jacobian": (lambda T, F: F.jacobian(_f, _x(T)), [[4.0, 0, 0], [0, 8.0, 0], [0, 0, 12.0]]),
    "jacobian of two inputs and two outputs": (
        lambda T, F: F.jacobian(
            lambda x, y: (x.sum() * y, (x * x).sum()),
            (_x(T), T.tensor([0.5, -1.0], dtype=T.float64)),
        ),
        [
            [[[0.5, 0.5, 0.5], [-1.0, -1.0, -1.0]], [[6.0, 0.0], [0.0, 6.0]]],
            [[2.0, 4.0, 6.0], [0.0, 0.0]],
        ],
    ),
    "jacobian of a matrix function": (
        lambda T, F: F.jacobian(lambda m: m.t() @ m, T.tensor([[1.0, 2.0], [3.0, 4.0]])),
        [
            [[[2.0, 0.0], [6.0, 0.0]], [[2.0, 1.0], [4.0, 3.0]]],
            [[[2.0, 1.0], [4.0, 3.0]], [[0.0, 4.0], [0.0, 8.0]]],
        ],
    ),
    "hessian": (
        lambda T, F: F.hessian(lambda x: (x**3).sum() + x.prod(), _x(T)),
        [[6.0, 3.0, 2.0], [3.0, 12.0, 1.0], [2.0, 1.0, 18.0]],
    ),
    "vjp": (
        lambda T, F: F.vjp(_f, _x(T), T.tensor([1.0, -1.0, 0.5], dtype=T.float64)),
        [[2.0, 8.0, 18.0], [4.0, -8.0, 6.0]],
    ),
    "jvp": (
        lambda T, F: F.jvp(_f, _x(T), T.tensor([1.0, -1.0, 0.5], dtype=T.float64)),
        [[2.0, 8.0, 18.0], [4.0, -8.0, 6.0]],
    ),
    "hvp": (
        lambda T, F: F.hvp(
            lambda x: (x**3).sum(), _x(T), T.tensor([1.0, 0.0, 2.0], dtype=T.float64)
        ),
        [36.0, [6.0, 0.0, 36.0]],
    ),
    "vhp of a scalar input": (lambda T, F: F.vhp(lambda x: x**3, T.tensor(2.0)), [8.0, 12.0]),
    "unused input gives zeros": (
        lambda T, F: F.jacobian(lambda x, y: x * 2, (_x(T)[:2], T.tensor([3.0]))),
        [[[2.0, 0.0], [0.0, 2.0]], [[0.0], [0.0]]],
    ),
    "strict refuses an unused input": (
        lambda T, F: F.jacobian(lambda x, y: x * 2, (_x(T), T.tensor([3.0])), strict=True),
        "RuntimeError",
    ),
    "v is needed for a vector output": (lambda T, F: F.vjp(_f, _x(T)), "RuntimeError"),
    "v of the wrong shape": (
        lambda T, F: F.vjp(_f, _x(T), T.ones(2, dtype=T.float64)),
        "RuntimeError",
    ),
    "a list is not a tuple of inputs": (lambda T, F: F.jacobian(_f, [_x(T)]), "TypeError"),
    "an output that is not a tensor": (lambda T, F: F.jacobian(lambda x: 3.0, _x(T)), "TypeError"),
    "hessian of a vector function": (lambda T, F: F.hessian(_f, _x(T)), "RuntimeError"),
    "an unknown strategy": (
        lambda T, F: F.jacobian(_f, _x(T), strategy="sideways"),
        "AssertionError",
    ),
    "results leave the graph": (
        lambda T, F: [
            F.jacobian(_f, _x(T).requires_grad_()).requires_grad,
            F.jacobian(_f, _x(T), create_graph=True).requires_grad,
        ],
        [False, True],
    ),
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_as_pytorch(name, lib):
    fn, expected = CASES[name]
    assert outcome(fn, lib) == expected


def test_a_jacobian_with_create_graph_can_be_differentiated_again():
    x = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True)
    jac = symgrad.autograd.functional.jacobian(lambda t: t**3, x, create_graph=True)
    jac.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])  # d/dx of 3x^2 on the diagonal


def _ones(T, n):
    return T.ones(n, dtype=T.float64)


# name -> (call of (T, F), PyTorch's message, with the library's name for its Size)
V_ERRORS = {
    "vjp v of a tensor output": (
        lambda T, F: F.vjp(lambda x: x.sin(), _x(T), _ones(T, 2)),
        "v has invalid size: should be {T}.Size([3]) but got {T}.Size([2]).",
    ),
    "vjp v of a tuple output": (
        lambda T, F: F.vjp(lambda x: (x, x), _x(T), (_ones(T, 3), _ones(T, 2))),
        "Entry 1 in v has invalid size: should be {T}.Size([3]) but got {T}.Size([2]).",
    ),
    "vjp v tuple too short": (
        lambda T, F: F.vjp(lambda x: (x, x), _x(T), (_ones(T, 3),)),
        "v is a tuple of invalid length: should be 2 but got 1.",
    ),
    "vjp two v for one output": (
        lambda T, F: F.vjp(lambda x: x.sin(), _x(T), (_ones(T, 3), _ones(T, 3))),
        "The given v should contain a single Tensor.",
    ),
    "jvp v of a tensor input": (
        lambda T, F: F.jvp(lambda x: x.sin(), _x(T), _ones(T, 2)),
        "v has invalid size: should be {T}.Size([3]) but got {T}.Size([2]).",
    ),
    "jvp v of a tuple input": (
        lambda T, F: F.jvp(lambda x: x.sin(), (_x(T),), (_ones(T, 2),)),
        "Entry 0 in v has invalid size: should be {T}.Size([3]) but got {T}.Size([2]).",
    ),
    "hvp v of a tensor input": (
        lambda T, F: F.hvp(lambda x: (x**3).sum(), _x(T), _ones(T, 2)),
        "v has invalid size: should be {T}.Size([3]) but got {T}.Size([2]).",
    ),
    "vhp v tuple too short": (
        lambda T, F: F.vhp(lambda a, b: (a * b).sum(), (_x(T), _x(T)), (_ones(T, 3),)),
        "v is a tuple of invalid length: should be 2 but got 1.",
    ),
}


@pytest.mark.parametrize("name", sorted(V_ERRORS))
def test_v_that_does_not_fit_is_pytorchs_error(name):
    call, message = V_ERRORS[name]
    with pytest.raises(RuntimeError) as caught:
        call(symgrad, symgrad.autograd.functional)
    assert str(caught.value) == message.format(T="symgrad")


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(V_ERRORS))
def test_v_that_does_not_fit_against_torch(name):
    torch = pytest.importorskip("torch")
    call, message = V_ERRORS[name]
    with pytest.raises(RuntimeError) as caught:
        call(torch, torch.autograd.functional)
    assert str(caught.value) == message.format(T="torch")
