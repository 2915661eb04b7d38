"""The primitive protocol: one Node class, and every primitive answering the same questions."""

import numpy as np
import sympy as sp

import symgrad
from symgrad.autograd.function import FunctionCtx
from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.ops import REGISTRY
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Primitive
from symgrad.prim.sympy_xp import SX, symbol_array


class Square(symgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g

    @staticmethod
    def symbolic(x):
        return x**2


def _graph():
    x = symgrad.tensor([[0.5, -1.0], [2.0, 0.3]], dtype=symgrad.float64, requires_grad=True)
    w = symgrad.tensor([1.5, -0.5], dtype=symgrad.float64, requires_grad=True)
    h = Square.apply((x @ w).tanh()) + x.sum(1) * 2
    return h.softmax(0).sum()


def _nodes(root):
    seen, stack = [], [root.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.append(node)
        stack.extend(fn for fn, _ in node.next_functions)
    return seen


def test_every_node_is_a_node_asking_its_primitive():
    nodes = _nodes(_graph())
    kinds = {type(n).__name__ for n in nodes}
    assert {"SumBackward0", "SoftmaxBackward0", "SquareBackward", "MvBackward0"} <= kinds
    for node in nodes:
        assert isinstance(node, Node)
        if isinstance(node, AccumulateGrad):
            continue
        assert isinstance(node.prim, Primitive)
        # a node's class only carries PyTorch's name: its behaviour is the one Node's
        own = set(vars(type(node))) - {"__module__", "__slots__", "__doc__"}
        assert own <= {"_function", "_primitive"}, (type(node).__name__, own)
        assert node.name() == node.prim.node_name(node.params, node._meta)


def test_the_node_classes_are_node_accumulategrad_functionctx_and_names():
    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    _graph()
    for cls in subclasses(Node):
        assert cls in (AccumulateGrad, FunctionCtx) or set(vars(cls)) <= {
            "__module__",
            "__slots__",
            "__doc__",
            "_function",
            "_primitive",
            "num_outputs",  # a split's node: how many pieces
        }, cls


def test_elementwise_forward_takes_parameters_by_name():
    pow_ = REGISTRY["pow"]
    x = np.array([1.5, -2.0])
    np.testing.assert_allclose(pow_.forward(NP, x, exponent=3), x**3)
    (s,) = symbol_array("s", ()).flat
    assert sp.simplify(pow_.forward(SX, np.array(s, dtype=object), exponent=3)[()] - s**3) == 0


def test_node_names_follow_the_call():
    x = symgrad.ones(2, 3, requires_grad=True)
    v = symgrad.ones(3, requires_grad=True)
    assert x.sum().grad_fn.name() == "SumBackward0"
    assert x.sum(1).grad_fn.name() == "SumBackward1"
    assert (x @ v).grad_fn.name() == "MvBackward0"
    assert (v @ v).grad_fn.name() == "DotBackward0"
    assert (x @ x.t()).grad_fn.name() == "MmBackward0"
    # a batch folded into one mm, viewed back, as in PyTorch
    assert (x.unsqueeze(0) @ x.t()).grad_fn.name() == "UnsafeViewBackward0"
    assert symgrad.bmm(x.unsqueeze(0), x.t().unsqueeze(0)).grad_fn.name() == "BmmBackward0"
