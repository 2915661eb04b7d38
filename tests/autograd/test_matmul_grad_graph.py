"""Under create_graph, the gradients of mm, linear and t() transpose matrices with t(), as
PyTorch's formulas do (TBackward0 nodes; they were TransposeBackward0, with a ViewBackward0
reshaping to the same shape)."""

from __future__ import annotations

from _graph_names import node_names

import symgrad


def test_linear_double_backward_nodes_and_values() -> None:
    x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=symgrad.float64, requires_grad=True)
    w = symgrad.tensor([[0.5, -1.0], [2.0, 1.0]], dtype=symgrad.float64, requires_grad=True)
    y = (symgrad.nn.functional.linear(x, w, w[0]) ** 3).sum()
    g1, g2 = symgrad.autograd.grad(y, (x, w), create_graph=True)
    names = node_names(g1) | node_names(g2)
    assert "TBackward0" in names and "TransposeBackward0" not in names
    # the bias's gradient is PyTorch's sum_to: a sum keeping the dims, then a view
    assert {"SumBackward1", "ViewBackward0"} <= names
    hx, hw = symgrad.autograd.grad((g1**2).sum() + (g2**2).sum(), (x, w))
    # PyTorch 2.13's values
    assert hx.tolist() == [[271813.5, 184077.0], [2059164.0, 1397448.0]]
    assert hw.tolist() == [[-152685.0, 812862.0], [2922885.0, 3766338.0]]


def test_mm_double_backward_nodes() -> None:
    x = symgrad.rand(3, 4, dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad(((x @ x.T) ** 2).sum(), x, create_graph=True)
    names = node_names(g)
    assert "TBackward0" in names and "MmBackward0" in names
    assert not names & {"TransposeBackward0", "ViewBackward0"}
