"""where's gradient under create_graph is a WhereBackward0 node, as PyTorch's (it was
WhereBackwardBackward1 and 2)."""

from __future__ import annotations

import symgrad


def test_where_gradient_nodes() -> None:
    x = symgrad.tensor([0.5, 2.0], requires_grad=True)
    (g,) = symgrad.autograd.grad((symgrad.where(x > 1, x, 2 * x) ** 2).sum(), x, create_graph=True)
    assert g.tolist() == [4.0, 4.0]
    assert [type(f).__name__ for f, _ in g.grad_fn.next_functions] == [
        "WhereBackward0",
        "MulBackward0",
    ]
    (gg,) = symgrad.autograd.grad(g.sum(), x)
    assert gg.tolist() == [8.0, 2.0]
