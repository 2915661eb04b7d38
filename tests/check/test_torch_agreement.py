"""gradcheck's verdicts equal ``torch.autograd.gradcheck``'s on the same functions and inputs
(correct and wrong custom Functions, kinks, detached outputs), in both modes; likewise for
gradgradcheck. Skipped where PyTorch is not installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad

from . import functions as fn

pytestmark = pytest.mark.torch

ROWS = [[0.3, -1.2, 0.8], [1.5, 0.7, -0.4]]
COLUMN = [0.4, 1.1, -0.6]

# name: (function of the module T, input values); inputs are float64 leaves requiring grad
CASES = {
    "mul_sin": (lambda T: fn.mul_sin(T).apply, [ROWS, COLUMN]),
    "mul_sin_off_1_percent": (lambda T: fn.mul_sin(T, 0.01).apply, [ROWS, COLUMN]),
    "cube": (lambda T: fn.cube(T).apply, [COLUMN]),
    "cube_off_1e-7": (lambda T: fn.cube(T, 1e-7).apply, [COLUMN]),
    "cube_off_1_percent": (lambda T: fn.cube(T, 0.01).apply, [COLUMN]),
    "softsign": (lambda T: fn.softsign(T).apply, [ROWS]),
    "softsign_off_by_0.01": (lambda T: fn.softsign(T, 0.01).apply, [ROWS]),
    "swapped": (lambda T: fn.swapped(T).apply, [COLUMN, [1.0, 2.0, 3.0]]),
    "sum_and_scale": (lambda T: fn.sum_and_scale(T).apply, [COLUMN]),
    "sum_and_scale_off": (lambda T: fn.sum_and_scale(T, 0.01).apply, [COLUMN]),
    "ignores_grad_output": (lambda T: fn.ignores_grad_output(T).apply, [COLUMN]),
    "ones_when_zero": (lambda T: fn.ones_when_zero(T).apply, [COLUMN]),
    "relu_at_its_kink": (lambda T: lambda x: x.relu(), [[0.0, 1.0]]),
    "half_detached": (lambda T: lambda x: x * x.detach(), [COLUMN]),
    "builtin_composite": (lambda T: lambda x, y: (x @ y).tanh().sum(), [ROWS, COLUMN]),
    "detached_cube": (lambda T: fn.detached_cube(T).apply, [COLUMN]),  # wrong only second order
}


def verdict(T, name: str, fast_mode: bool, check=None) -> bool:
    make, values = CASES[name]
    inputs = tuple(T.tensor(v, dtype=T.float64, requires_grad=True) for v in values)
    check = check or T.autograd.gradcheck
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's notes about undefined-gradient checking
        return check(make(T), inputs, raise_exception=False, fast_mode=fast_mode)


@pytest.mark.parametrize("fast_mode", [False, True], ids=["full", "fast"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_verdicts_match_pytorch(name, fast_mode):
    torch = pytest.importorskip("torch")
    assert verdict(symgrad, name, fast_mode) == verdict(torch, name, fast_mode)


def test_the_cases_include_both_verdicts():
    # otherwise the agreement above would prove little
    verdicts = {verdict(symgrad, name, False) for name in CASES}
    assert verdicts == {True, False}


SECOND_ORDER = ["mul_sin", "cube", "builtin_composite", "detached_cube"]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradgradcheck_verdicts_match_pytorch(name):
    torch = pytest.importorskip("torch")
    ours = verdict(symgrad, name, False, symgrad.autograd.gradgradcheck)
    assert ours == verdict(torch, name, False, torch.autograd.gradgradcheck)
    assert ours == (name != "detached_cube")


def test_pytorch_agrees_on_the_same_numbers():
    # the Jacobians themselves, not only the verdicts: symgrad's engine equals PyTorch's
    torch = pytest.importorskip("torch")
    x, y = (symgrad.tensor(v, dtype=symgrad.float64, requires_grad=True) for v in [ROWS, COLUMN])
    tx, ty = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in [ROWS, COLUMN])
    ours = symgrad.autograd.grad(fn.mul_sin(symgrad).apply(x, y).sum(), [x, y])
    theirs = torch.autograd.grad(fn.mul_sin(torch).apply(tx, ty).sum(), [tx, ty])
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-15)
