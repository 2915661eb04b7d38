"""A product's node checks only the factors its needed gradients read: changing, in place, a
factor whose partner needs no gradient breaks nothing (PyTorch saves it only for the partner's
gradient); changing one that is read is PyTorch's error. The expected outcomes are PyTorch
2.13's, recorded below, and compared with PyTorch itself where it is installed."""

from __future__ import annotations

import pytest

import symgrad
import symgrad.nn.functional as F

# (name, function, shapes, inputs that require grad) -> per input changed in place: error?
CASES = {
    ("mm", (1,)): (True, False),
    ("mm", (0,)): (False, True),
    ("mm", (0, 1)): (True, True),
    ("vecmat", (1,)): (True, False),
    ("vecmat", (0,)): (False, True),
    ("bmm", (1,)): (True, False),
    ("mv", (0,)): (False, True),
    ("dot", (1,)): (True, False),
    ("linear", (2,)): (False, True, False),
    ("linear", (1, 2)): (False, True, True),
    ("addmm", (0, 1)): (False, False, True),
    ("addmv", (0, 1)): (False, False, True),
}
FUNCTIONS = {
    "mm": (lambda T: T.mm, [(2, 3), (3, 4)]),
    "vecmat": (lambda T: T.matmul, [(3,), (3, 4)]),
    "bmm": (lambda T: T.bmm, [(2, 2, 3), (2, 3, 4)]),
    "mv": (lambda T: T.mv, [(2, 3), (3,)]),
    "dot": (lambda T: T.dot, [(3,), (3,)]),
    "linear": (lambda T: lambda b, x, w: T.nn.functional.linear(x, w, b), [(4,), (2, 3), (4, 3)]),
    "addmm": (lambda T: T.addmm, [(4,), (2, 3), (3, 4)]),
    "addmv": (lambda T: T.addmv, [(2,), (2, 3), (3,)]),
}


def _outcomes(T, name, which):
    make, shapes = FUNCTIONS[name]
    f = make(T)
    errors = []
    for changed in range(len(shapes)):
        ts = [T.ones(*s, dtype=T.float64, requires_grad=i in which) for i, s in enumerate(shapes)]
        out = f(*ts).sum()
        with T.no_grad():
            ts[changed].add_(1)
        try:
            out.backward()
            errors.append(False)
        except RuntimeError as exc:
            assert "modified by an inplace operation" in str(exc)
            errors.append(True)
    return tuple(errors)


@pytest.mark.parametrize(("name", "which"), list(CASES))
def test_only_a_factor_a_needed_gradient_reads_is_checked(name, which):
    assert _outcomes(symgrad, name, which) == CASES[name, which]


@pytest.mark.parametrize(("name", "which"), list(CASES))
def test_the_expected_outcomes_are_pytorchs(name, which):
    torch = pytest.importorskip("torch")
    assert _outcomes(torch, name, which) == CASES[name, which]


def test_a_layer_s_weight_may_change_before_backward_when_its_data_needs_no_gradient():
    x = symgrad.ones(2, 3, dtype=symgrad.float64)
    w = symgrad.ones(4, 3, dtype=symgrad.float64, requires_grad=True)
    loss = F.linear(x, w).sum()
    with symgrad.no_grad():
        w.mul_(5.0)
    loss.backward()  # x's gradient, which would read w, is not needed
    assert w.grad.tolist() == [[2.0, 2.0, 2.0]] * 4
