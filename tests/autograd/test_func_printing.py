"""Tensors printed inside the transforms of ``func`` read as PyTorch's wrappers:
``GradTrackingTensor(lvl=...)`` inside ``grad``, ``vjp``, ``jacrev``, ``jvp`` and ``jacfwd``,
``BatchedTensor(lvl=...)`` inside ``vmap``, nested by level (the transform running inside
another outermost), around the values with the caller's own autograd state; ``str`` and
f-strings give the same text. The expected texts are PyTorch's; when PyTorch is importable its
texts are compared too."""

from __future__ import annotations

import pytest

import symgrad


def _programs(T):
    """name -> a program of ``(T, seen)`` that appends the texts of tensors it prints."""
    func = T.func
    x = T.tensor([1.0, 2.0])

    def grad_input_and_results(seen):
        def f(t):
            y = t * 2
            seen.extend([repr(t), str(y), f"{y.sum()!r}", repr(x)])
            return y.sum()

        func.grad(f)(x)

    def input_that_requires_grad(seen):
        w = x.clone().requires_grad_()

        def f(t):
            seen.extend([repr(t), repr(t * 2), repr(w * 3)])
            return t.sum()

        func.grad(f)(w)

    def vjp_jacrev_jvp_jacfwd(seen):
        func.vjp(lambda t: seen.append(repr(t)) or t * 2, x)
        func.jacrev(lambda t: seen.append(repr(t)) or t * 2)(x)
        func.jvp(lambda t: seen.append(repr(t)) or seen.append(repr(t * 2)) or t, (x,), (x,))
        func.jacfwd(lambda t: seen.append(repr(t)) or t * 2)(x)

    def vmap_and_nested(seen):
        b = T.arange(4.0).reshape(2, 2)
        func.vmap(lambda t: seen.append(f"{t}") or t)(b)
        func.vmap(func.vmap(lambda t: seen.append(repr(t)) or t))(b)
        func.vmap(func.grad(lambda t: seen.append(repr(t)) or t.sum()))(b)
        func.grad(lambda t: func.vmap(lambda u: seen.append(repr(u)) or u)(t).sum())(b)

    def grad_of_grad_and_hessian(seen):
        func.grad(func.grad(lambda t: seen.append(repr(t)) or t**3))(T.tensor(2.0))
        func.hessian(lambda t: seen.append(repr(t)) or t.sin().sum())(x)

    def arguments_not_differentiated(seen):
        func.grad(lambda a, b: seen.append(repr(a)) or (a * b).sum(), argnums=1)(x, x)
        func.jacrev(lambda a, b: seen.append(repr(a)) or a * b, argnums=1)(x, x)
        func.jacfwd(lambda a, b: seen.append(repr(a)) or a * b, argnums=1)(x, x)
        b = T.arange(4.0).reshape(2, 2)
        func.vmap(func.grad(lambda a, c: seen.append(repr(a)) or (a * c).sum(), argnums=1))(b, b)

    def parameters(seen):
        weight = T.nn.Parameter(T.ones(2))
        func.grad(lambda w: seen.append(repr(w)) or w.sum())(weight)
        func.vmap(lambda w: seen.append(repr(w)) or w)(weight)

    def linearize_and_results(seen):
        first = []  # (PyTorch's linearize runs the function a second time, on duals)
        func.linearize(lambda t: first.append(repr(t)) or t * 2, x)
        seen.append(first[0])
        seen.append(repr(func.grad(lambda t: (t * t).sum())(x)))

    return {
        f.__name__: f
        for f in (
            grad_input_and_results,
            input_that_requires_grad,
            vjp_jacrev_jvp_jacfwd,
            vmap_and_nested,
            grad_of_grad_and_hessian,
            arguments_not_differentiated,
            parameters,
            linearize_and_results,
        )
    }


def _grad(level, value):
    inner = "\n".join("    " + line for line in value.splitlines())
    return f"GradTrackingTensor(lvl={level}, value=\n{inner}\n)"


def _batched(level, value):
    inner = "\n".join("    " + line for line in value.splitlines())
    return f"BatchedTensor(lvl={level}, bdim=0, value=\n{inner}\n)"


X = "tensor([1., 2.])"
B = "tensor([[0., 1.],\n        [2., 3.]])"
EXPECTED = {
    "grad_input_and_results": [
        _grad(1, X),
        _grad(1, "tensor([2., 4.])"),
        _grad(1, "tensor(6.)"),
        X,
    ],
    "input_that_requires_grad": [
        _grad(1, "tensor([1., 2.], requires_grad=True)"),
        _grad(1, "tensor([2., 4.], grad_fn=<MulBackward0>)"),
        _grad(1, "tensor([3., 6.], grad_fn=<MulBackward0>)"),
    ],
    "vjp_jacrev_jvp_jacfwd": [
        _grad(1, X),
        _grad(1, X),
        _grad(1, X),
        _grad(1, "tensor([2., 4.])"),
        _grad(2, X),
    ],
    "vmap_and_nested": [
        _batched(1, B),
        _batched(2, _batched(1, B)),
        _grad(2, _batched(1, B)),
        _batched(2, _grad(1, B)),
    ],
    "grad_of_grad_and_hessian": [_grad(2, _grad(1, "tensor(2.)")), _grad(3, _grad(2, X))],
    "arguments_not_differentiated": [
        _grad(1, X),
        _grad(1, X),
        _grad(2, X),
        _grad(2, _batched(1, B)),
    ],
    "parameters": [
        _grad(1, "Parameter containing:\ntensor([1., 1.], requires_grad=True)"),
        _batched(1, "Parameter containing:\ntensor([1., 1.], requires_grad=True)"),
    ],
    "linearize_and_results": [X, "tensor([2., 4.])"],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_texts(name):
    seen = []
    _programs(symgrad)[name](seen)
    assert seen == EXPECTED[name]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_texts_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    seen = []
    _programs(torch)[name](seen)
    assert seen == EXPECTED[name]
