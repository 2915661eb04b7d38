"""``sum_to_size`` (and so every gradient summed to a broadcast operand's shape under
``create_graph``) records PyTorch's ``at::sum_to``: ``SumBackward0`` to a 0-d shape, else
``SumBackward1`` with ``keepdim`` over the dimensions that shrink, then ``ViewBackward0`` where
leading dimensions are dropped."""

from __future__ import annotations

import math

import pytest

import symgrad

try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from nn.test_linear_graph import tree
except ImportError:  # tests/ made a package itself
    from tests.nn.test_linear_graph import tree

# (input shape, target shape) -> PyTorch's graph
GRAPHS = {
    ((2, 5), ()): "SumBackward0(Acc)",
    ((2, 5), (1,)): "ViewBackward0(SumBackward1(Acc))",
    ((2, 5), (1, 1)): "SumBackward1(Acc)",
    ((2, 5), (5,)): "ViewBackward0(SumBackward1(Acc))",
    ((2, 5), (1, 5)): "SumBackward1(Acc)",
    ((2, 5), (2, 1)): "SumBackward1(Acc)",
    ((2, 5), (2, 5)): "Acc",
    ((3, 1, 5), (1, 5)): "ViewBackward0(SumBackward1(Acc))",
    ((3, 1, 5), (1, 1, 5)): "SumBackward1(Acc)",
}


def _graph(T, shape, target):
    x = T.ones(*shape, dtype=T.float64, requires_grad=True)
    y = x.sum_to_size(target)
    return y, (tree(y.grad_fn) if y.grad_fn is not None else "Acc")


@pytest.mark.parametrize("shapes", sorted(GRAPHS), ids=str)
def test_graph(shapes):
    y, graph = _graph(symgrad, *shapes)
    assert graph == GRAPHS[shapes]
    assert tuple(y.shape) == shapes[1]
    assert y.sum().item() == math.prod(shapes[0])  # every one counted once


@pytest.mark.parametrize("target", [(3,), (1, 2, 5), (2, 5, 1)], ids=str)
def test_not_expandable(target):
    with pytest.raises(RuntimeError, match=r"is not expandable to size \{\[2, 5\]\}"):
        symgrad.ones(2, 5).sum_to_size(target)


def test_create_graph_gradient_of_a_broadcast_operand():
    x = symgrad.ones(3, 2, 5, dtype=symgrad.float64, requires_grad=True)
    b = symgrad.ones(2, 1, dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad(((x + b) ** 2).sum(), [b], create_graph=True)
    assert tree(g.grad_fn).startswith("ViewBackward0(SumBackward1(")
    assert g.tolist() == [[60.0], [60.0]]


@pytest.mark.parametrize("shapes", sorted(GRAPHS), ids=str)
def test_against_pytorch(shapes):
    torch = pytest.importorskip("torch")
    assert _graph(symgrad, *shapes)[1] == _graph(torch, *shapes)[1]


def test_expand_to_its_own_shape_is_a_view_as_in_pytorch():
    # PyTorch: expand, expand_as and broadcast_to always give a new view with ExpandBackward0
    x = symgrad.tensor([[1.0, 2.0]], requires_grad=True)
    for y in (x.expand(1, 2), x.expand_as(x), symgrad.broadcast_to(x, (1, 2)), x.expand(-1, -1)):
        assert y is not x and y._base is x and y.grad_fn.name() == "ExpandBackward0"
    y = x.expand(1, 2)
    z = (x * 1).expand(1, 2)
    with symgrad.no_grad():
        z.add_(1)  # a view: the base sees the change and its version moves with it
    assert z._version == z._base._version == 1
    (y * symgrad.tensor([[3.0, 4.0]])).sum().backward()
    assert x.grad.tolist() == [[3.0, 4.0]]
