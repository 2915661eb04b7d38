"""``take``: PyTorch's one ``TakeBackward0`` node, its gradient summed over repeated
positions, and a compiled program that reads the positions afresh at every call."""

from __future__ import annotations

import numpy as np

import symgrad


def test_values_gradient_and_node() -> None:
    x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = symgrad.take(x, symgrad.tensor([[0, -1], [3, 0]]))
    assert y.grad_fn.name() == "TakeBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    np.testing.assert_array_equal(y.detach().numpy(), [[1.0, 4.0], [4.0, 1.0]])
    (y * symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[5.0, 0.0], [0.0, 5.0]])


def test_method_numbers_and_integers() -> None:
    assert symgrad.take(symgrad.tensor(5.0), symgrad.tensor([0, 0])).tolist() == [5.0, 5.0]
    assert symgrad.tensor([[1, 2]]).take(symgrad.tensor([1])).tolist() == [2]


def test_compiled_reads_the_positions_at_every_call() -> None:
    x = symgrad.tensor([10.0, 20.0, 30.0], requires_grad=True)
    f = symgrad.compile(lambda x, i: (symgrad.take(x, i) ** 2).sum())
    for positions in ([0, 1], [2, 2], [1, -3]):
        x.grad = None
        f(x, symgrad.tensor(positions)).backward()
        expected = np.zeros(3)
        for p in positions:
            expected[p] += 2 * x.detach().numpy()[p]
        np.testing.assert_array_equal(x.grad.numpy(), expected)
