"""A leaf whose ``requires_grad`` is switched off after the graph recorded it gets no
``.grad`` from that graph: PyTorch's AccumulateGrad checks the flag when it runs (freezing a
parameter between forward and backward, ``detach_()`` of a leaf)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad


def _two_leaves(T):
    a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([3.0, 4.0], dtype=T.float64, requires_grad=True)
    return a, b


def _frozen_after_forward(T, turn_off):
    a, b = _two_leaves(T)
    y = (a * b).sum()
    turn_off(a)
    y.backward()
    return a.grad, b.grad


@pytest.mark.parametrize(
    "turn_off",
    [
        lambda t: t.requires_grad_(False),
        lambda t: t.detach_(),
        lambda t: setattr(t, "requires_grad", False),
    ],
    ids=["requires_grad_", "detach_", "attribute"],
)
def test_frozen_leaf_gets_no_grad(turn_off):
    ga, gb = _frozen_after_forward(symgrad, turn_off)
    assert ga is None
    assert gb.tolist() == [1.0, 2.0]


def test_frozen_leaf_of_a_one_node_graph_gets_no_grad():
    # a compiled function's node leads straight to the leaves (the engine's shortcut)
    a, b = _two_leaves(symgrad)
    f = symgrad.compile(lambda a, b: (a * b).sum())
    y = f(a, b)
    a.requires_grad_(False)
    y.backward()
    assert a.grad is None
    assert b.grad.tolist() == [1.0, 2.0]


def test_frozen_leaf_keeps_the_grad_it_had_and_its_hooks_still_run():
    a, b = _two_leaves(symgrad)
    (a * b).sum().backward()
    calls = []
    a.register_post_accumulate_grad_hook(lambda t: calls.append(1))
    y = (a * b).sum()
    a.requires_grad_(False)
    y.backward()
    assert a.grad.tolist() == [3.0, 4.0]  # from the first pass only
    assert b.grad.tolist() == [2.0, 4.0]
    assert calls == [1]  # PyTorch runs the post-accumulate hook all the same


def test_autograd_grad_of_other_inputs_still_works():
    a, b = _two_leaves(symgrad)
    y = (a * b).sum()
    a.requires_grad_(False)
    (gb,) = symgrad.autograd.grad(y, [b])
    assert gb.tolist() == [1.0, 2.0]


@pytest.mark.torch
@pytest.mark.parametrize("how", ["requires_grad_", "detach_"])
def test_as_pytorch(how):
    torch = pytest.importorskip("torch")
    results = []
    for T in (symgrad, torch):
        ga, gb = _frozen_after_forward(
            T, lambda t: getattr(t, how)() if how == "detach_" else t.requires_grad_(False)
        )
        results.append((ga, np.asarray(gb.tolist())))
    assert results[0][0] is None and results[1][0] is None
    np.testing.assert_array_equal(results[0][1], results[1][1])
