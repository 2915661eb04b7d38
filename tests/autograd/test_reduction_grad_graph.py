"""Under create_graph, a reduction over dims gives back its reduced dimensions with
unsqueeze nodes, as PyTorch's backward formulas do (they were one view node)."""

from __future__ import annotations

import pytest
from _graph_names import node_names

import symgrad


@pytest.mark.parametrize(
    "reduce",
    [
        lambda x: x.sum(1),
        lambda x: x.mean(1),
        lambda x: symgrad.logsumexp(x, 1),
        lambda x: x.sum((0, 2)),
    ],
)
def test_reduced_dims_come_back_as_unsqueezes(reduce) -> None:  # noqa: ANN001
    x = symgrad.rand(2, 3, 4, dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad((reduce(x) ** 2).sum(), x, create_graph=True)
    names = node_names(g)
    assert "UnsqueezeBackward0" in names and "ViewBackward0" not in names
    (gg,) = symgrad.autograd.grad(g.sum(), x)
    assert gg.shape == x.shape
