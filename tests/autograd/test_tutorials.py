"""The tutorial programs the project grew from print PyTorch's numbers.

Each program runs once with ``symgrad`` and, where PyTorch is importable, once with ``torch``
on the same input values; the numbers are also checked against hand-derived values.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import symgrad


def same_repr(ours, theirs):
    """Reprs agree once the module name and node addresses are set aside."""

    def norm(text):
        return re.sub(r" at 0x[0-9a-f]+", "", str(text)).replace("torch", "symgrad")

    assert norm(ours) == norm(theirs)


# -- a, b, c, d -> e with retain_grad ----------------------------------------------------------


def abcde_graph(lib):
    """Run the tutorial and return what it prints, line by line."""
    printed = []
    a = lib.tensor([2.0], requires_grad=True)
    b = lib.tensor([3.0], requires_grad=True)
    c = lib.tensor([5.0], requires_grad=True)
    d = lib.tensor([10.0], requires_grad=True)
    u = a * b
    t = lib.log(d)
    v = t * c
    t.retain_grad()
    e = u + v
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for stage in ("before", "after"):
            if stage == "after":
                e.backward()
            for tensor in (a, e, t):
                printed += [tensor.is_leaf, repr(tensor.grad_fn), repr(tensor.grad)]
    printed += [repr(e), a.grad.item(), b.grad.item(), c.grad.item(), d.grad.item()]
    warned = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    return printed, warned


def test_abcde_graph_hand_derived():
    printed, warned = abcde_graph(symgrad)
    a_before, e_before, t_before = printed[0:3], printed[3:6], printed[6:9]
    assert a_before == [True, "None", "None"]
    assert e_before[0] is False and e_before[1].startswith("<AddBackward0 object at 0x")
    assert e_before[2] == "None"
    assert t_before[0] is False and t_before[1].startswith("<LogBackward0 object at 0x")
    a_after, e_after, t_after = printed[9:12], printed[12:15], printed[15:18]
    assert a_after[2] == "tensor([3.])"  # de/da = b
    assert e_after[2] == "None"
    assert t_after[2] == "tensor([5.])"  # de/dt = c
    e_repr, da, db, dc, dd = printed[18:]
    assert e_repr == "tensor([17.5129], grad_fn=<AddBackward0>)"  # 6 + 5 log 10
    assert (da, db, dd) == (3.0, 2.0, 0.5)
    assert dc == pytest.approx(np.log(10.0), rel=1e-6)
    # reading e.grad warns (twice: before and after backward); t retains its grad
    assert len(warned) == 2 and all("not a leaf" in w for w in warned)


@pytest.mark.torch
def test_abcde_graph_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours, ours_warned = abcde_graph(symgrad)
    theirs, theirs_warned = abcde_graph(torch)
    assert len(ours) == len(theirs)
    for mine, pytorchs in zip(ours, theirs):
        same_repr(mine, pytorchs)
    assert len(ours_warned) == len(theirs_warned)


# -- (eye(5) + 1).pow(2) with backward(ones_like) twice and grad.zero_() ------------------------


def eye_program(lib):
    printed = []
    inp = lib.eye(5, requires_grad=True)
    out = (inp + 1).pow(2)
    out.backward(lib.ones_like(inp), retain_graph=True)
    printed.append(repr(inp.grad))
    out.backward(lib.ones_like(inp), retain_graph=True)
    printed.append(repr(inp.grad))
    inp.grad.zero_()
    out.backward(lib.ones_like(inp), retain_graph=True)
    printed.append(repr(inp.grad))
    return printed


def test_eye_program_hand_derived():
    # d/dinp of (inp + 1)^2 is 2 (inp + 1): 4 on the diagonal, 2 elsewhere
    first = 2 * (np.eye(5) + 1)
    expected = [first, 2 * first, first]
    printed = eye_program(symgrad)
    inp = symgrad.eye(5)
    for text, values in zip(printed, expected):
        assert text == repr(symgrad.tensor(values, dtype=inp.dtype))
    assert printed[0] == (
        "tensor([[4., 2., 2., 2., 2.],\n"
        "        [2., 4., 2., 2., 2.],\n"
        "        [2., 2., 4., 2., 2.],\n"
        "        [2., 2., 2., 4., 2.],\n"
        "        [2., 2., 2., 2., 4.]])"
    )


@pytest.mark.torch
def test_eye_program_matches_pytorch():
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(eye_program(symgrad), eye_program(torch)):
        same_repr(ours, theirs)


# -- the one-layer network with binary_cross_entropy_with_logits ---------------------------------


W_VALUES = np.array(
    [
        [0.3367, 0.1288, 0.2345],
        [0.2303, -1.1229, -0.1863],
        [2.2082, -0.6380, 0.4617],
        [0.2674, 0.5349, 0.8094],
        [1.1103, -1.6898, -0.9890],
    ],
    dtype=np.float32,
)
B_VALUES = np.array([0.9580, 1.3221, 0.8172], dtype=np.float32)


def network_program(lib):
    """The tutorial's network with fixed weights; returns the values it prints."""
    functional = lib.nn.functional
    x = lib.ones(5)
    y = lib.zeros(3)
    w = lib.tensor(W_VALUES, requires_grad=True)
    b = lib.tensor(B_VALUES, requires_grad=True)
    z = lib.matmul(x, w) + b
    loss = functional.binary_cross_entropy_with_logits(z, y)
    names = (type(z.grad_fn).__name__, type(loss.grad_fn).__name__)
    loss.backward(retain_graph=True)
    first = (w.grad.clone(), b.grad.clone())
    loss.backward(retain_graph=True)
    second = w.grad.clone()
    w.grad.zero_()
    zeroed = w.grad.clone()

    tracking = [(lib.matmul(x, w) + b).requires_grad]
    with lib.no_grad():
        tracking.append((lib.matmul(x, w) + b).requires_grad)
    tracking.append((lib.matmul(x, w) + b).detach().requires_grad)
    return {
        "names": names,
        "loss": loss.item(),
        "w.grad": first[0].numpy(),
        "b.grad": first[1].numpy(),
        "w.grad twice": second.numpy(),
        "w.grad zeroed": zeroed.numpy(),
        "tracking": tracking,
        "printed": [repr(first[0]), repr(first[1]), repr(second), repr(zeroed)],
    }


def test_network_hand_derived():
    result = network_program(symgrad)
    z = W_VALUES.astype(np.float64).sum(0) + B_VALUES
    sig = 1 / (1 + np.exp(-z))
    # with target 0 the loss is mean(softplus(z)), its gradient sigmoid(z) / 3 per logit
    assert result["names"] == ("AddBackward0", "BinaryCrossEntropyWithLogitsBackward0")
    assert result["loss"] == pytest.approx(np.mean(np.log1p(np.exp(z))), rel=1e-6)
    np.testing.assert_allclose(result["b.grad"], sig / 3, rtol=1e-6)
    np.testing.assert_allclose(result["w.grad"], np.tile(sig / 3, (5, 1)), rtol=1e-6)
    np.testing.assert_allclose(result["w.grad twice"], 2 * result["w.grad"], rtol=1e-6)
    np.testing.assert_array_equal(result["w.grad zeroed"], np.zeros((5, 3)))
    assert result["tracking"] == [True, False, False]


@pytest.mark.torch
def test_network_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours, theirs = network_program(symgrad), network_program(torch)
    assert ours["names"] == theirs["names"]
    assert ours["tracking"] == theirs["tracking"]
    assert ours["loss"] == pytest.approx(theirs["loss"], rel=1e-6)
    for key in ("w.grad", "b.grad", "w.grad twice", "w.grad zeroed"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-7)
    for mine, pytorchs in zip(ours["printed"], theirs["printed"]):
        same_repr(mine, pytorchs)


# -- requires_grad flows from any input ------------------------------------------------------------


def test_requires_grad_flows_from_any_input():
    x = symgrad.randn(3, 3)
    y = symgrad.randn(3, 3)
    z = symgrad.randn((3, 3), requires_grad=True)
    a = x + y
    b = a + z
    assert (a.requires_grad, b.requires_grad) == (False, True)
