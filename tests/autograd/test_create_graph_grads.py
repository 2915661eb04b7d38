"""The ``.grad`` a ``backward(create_graph=True)`` leaves is recorded as PyTorch records it:
a leaf's first gradient is a copy (``CopyBackwards``, edges ``(None, the gradient's node)``),
later ones are added out of place (``AddBackward0``); a retained non-leaf gradient is a clone
(``CloneBackward0``); a constant gradient stays unrecorded. PyTorch warns (once) about the
reference cycle such a ``.grad`` makes."""

from __future__ import annotations

import warnings

import pytest

import symgrad


def _names(node):
    if node is None:
        return None
    return type(node).__name__, [
        None if n is None else type(n).__name__ for n, _ in node.next_functions
    ]


def _run(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = lib.tensor([1.0, 2.0], requires_grad=True)
        (z**2).sum().backward(create_graph=True)
        first = _names(z.grad.grad_fn), z.grad.tolist()
        (z**2).sum().backward(create_graph=True)
        second = _names(z.grad.grad_fn), z.grad.tolist()
        penalty = (z.grad**2).sum()
        z.grad = None
        penalty.backward()
        third = z.grad.tolist()
        y = z * 2
        y.retain_grad()
        (y**2).sum().backward(create_graph=True)
        retained = _names(y.grad.grad_fn), y.grad.tolist()
        v = lib.ones(2, requires_grad=True)
        (v * 3).sum().backward(create_graph=True)
        constant = _names(v.grad.grad_fn), v.grad.requires_grad
    return first, second, third, retained, constant


def test_recorded_grads():
    first, second, third, retained, constant = _run(symgrad)
    assert first == (("CopyBackwards", [None, "MulBackward0"]), [2.0, 4.0])
    assert second == (("AddBackward0", ["CopyBackwards", "MulBackward0"]), [4.0, 8.0])
    assert third == [32.0, 64.0]
    assert retained == (("CloneBackward0", ["MulBackward0"]), [4.0, 8.0])
    assert constant == (None, False)


def test_the_reference_cycle_warning():
    z = symgrad.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        symgrad.autograd.roots._warned_cycle = False
        (z**2).sum().backward(create_graph=True)
        (z**2).sum().backward(create_graph=True)
        symgrad.autograd.grad((z**2).sum(), z, create_graph=True)
    messages = [str(w.message) for w in caught if "reference cycle" in str(w.message)]
    assert len(messages) == 1
    assert messages[0].startswith("Using backward() with create_graph=True will create a ")


def test_against_torch():
    torch = pytest.importorskip("torch")
    assert _run(symgrad) == _run(torch)
