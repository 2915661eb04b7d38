"""``unpack_dual(t).primal`` as PyTorch gives it: outside a dual level ``t`` itself; inside
one a new view of ``t`` (tangent or not), recorded where it requires grad as PyTorch's
``Identity`` node (``type(...).__name__`` is ``CppFunction``), whose edge is ``t``'s node."""

from __future__ import annotations

import importlib

import pytest

import symgrad


def _describe(p, src):
    g = p.grad_fn
    node = None
    if g is not None:
        edges = [(None if f is None else type(f).__name__, n) for f, n in g.next_functions]
        node = (type(g).__name__, g.name(), edges)
    return {
        "same": p is src,
        "view_of_src": p._base is src,
        "is_view": p._is_view(),
        "requires_grad": p.requires_grad,
        "is_leaf": p.is_leaf,
        "node": node,
        "text": repr(p).replace("symgrad.", "torch."),
    }


def _cases(T):
    fw = importlib.import_module(T.__name__ + ".autograd.forward_ad")
    plain = T.tensor([1.0, 2.0])
    found = {"outside": _describe(fw.unpack_dual(plain).primal, plain)}
    leaf = T.tensor([1.0, 2.0], requires_grad=True)
    with fw.dual_level():
        found["no_tangent"] = _describe(fw.unpack_dual(plain).primal, plain)
        found["leaf_no_tangent"] = _describe(fw.unpack_dual(leaf).primal, leaf)
        d = fw.make_dual(leaf, T.tensor([1.0, 0.0]))
        found["dual"] = _describe(fw.unpack_dual(d).primal, d)
        y = d * 3
        found["op_of_dual"] = _describe(fw.unpack_dual(y).primal, y)
        p = fw.unpack_dual(plain).primal
        p.add_(1)  # a view: the change is the tensor's
        found["writes_through"] = (plain.tolist(), plain._version)
        fw.unpack_dual(leaf).primal.sum().backward()
        found["backward"] = leaf.grad.tolist()
    return found


IDENTITY = ("CppFunction", "torch::autograd::Identity")
EXPECTED = {
    "outside": {
        "same": True,
        "view_of_src": False,
        "is_view": False,
        "requires_grad": False,
        "is_leaf": True,
        "node": None,
        "text": "tensor([1., 2.])",
    },
    "no_tangent": {
        "same": False,
        "view_of_src": True,
        "is_view": True,
        "requires_grad": False,
        "is_leaf": True,
        "node": None,
        "text": "tensor([1., 2.])",
    },
    "leaf_no_tangent": {
        "same": False,
        "view_of_src": True,
        "is_view": True,
        "requires_grad": True,
        "is_leaf": False,
        "node": (*IDENTITY, [("AccumulateGrad", 0)]),
        "text": "tensor([1., 2.], grad_fn=<Identity>)",
    },
    "dual": {
        "same": False,
        "view_of_src": False,  # a view of the dual's base, the leaf
        "is_view": True,
        "requires_grad": True,
        "is_leaf": False,
        "node": (*IDENTITY, [("ViewBackward0", 0)]),
        "text": "tensor([1., 2.], grad_fn=<Identity>)",
    },
    "op_of_dual": {
        "same": False,
        "view_of_src": True,
        "is_view": True,
        "requires_grad": True,
        "is_leaf": False,
        "node": (*IDENTITY, [("MulBackward0", 0)]),
        "text": "tensor([3., 6.], grad_fn=<Identity>)",
    },
    "writes_through": ([2.0, 3.0], 1),
    "backward": [1.0, 1.0],
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_primal(case):
    assert _cases(symgrad)[case] == EXPECTED[case]


@pytest.mark.torch
def test_primal_as_pytorch():
    torch = pytest.importorskip("torch")
    assert _cases(torch) == EXPECTED
