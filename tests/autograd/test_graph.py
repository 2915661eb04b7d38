"""The recorded graph: leaves, ``grad_fn`` node classes named as PyTorch names them,
``next_functions`` and ``AccumulateGrad``."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F


def structure(node):
    """``(class name, [(child structure, output index), ...])``, or None for no edge."""
    if node is None:
        return None
    return (type(node).__name__, [(structure(n), i) for n, i in node.next_functions])


ACC = ("AccumulateGrad", [])


def test_user_made_tensors_are_leaves():
    a = symgrad.tensor([2.0], requires_grad=True)
    b = symgrad.tensor([2.0])
    assert a.is_leaf and b.is_leaf
    assert a.grad_fn is None and b.grad_fn is None


def test_results_of_ops_on_tensors_requiring_grad_are_not_leaves():
    a = symgrad.tensor([2.0], requires_grad=True)
    y = a * 3
    assert not y.is_leaf and y.requires_grad and y.grad_fn is not None


def test_results_of_ops_on_constants_are_leaves():
    y = symgrad.tensor([2.0]) * 3
    assert y.is_leaf and not y.requires_grad and y.grad_fn is None


def test_one_input_requiring_grad_is_enough():
    x, y = symgrad.randn(3, 3), symgrad.randn(3, 3)
    z = symgrad.randn((3, 3), requires_grad=True)
    a = x + y
    b = a + z
    assert not a.requires_grad and b.requires_grad


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda a, b: a + b, "AddBackward0"),
        (lambda a, b: a - b, "SubBackward0"),
        (lambda a, b: a * b, "MulBackward0"),
        (lambda a, b: a / b, "DivBackward0"),
        (lambda a, b: a.log(), "LogBackward0"),
        (lambda a, b: a.exp(), "ExpBackward0"),
        (lambda a, b: a.pow(2), "PowBackward0"),
        (lambda a, b: a**2, "PowBackward0"),
        (lambda a, b: a.mm(b.t()), "MmBackward0"),
        (lambda a, b: a @ b.t(), "MmBackward0"),
        (lambda a, b: a.sum(), "SumBackward0"),
        (lambda a, b: a.mean(), "MeanBackward0"),
        (lambda a, b: -a, "NegBackward0"),
        (lambda a, b: a.sigmoid(), "SigmoidBackward0"),
        (lambda a, b: a.t(), "TBackward0"),
        (lambda a, b: a.clone(), "CloneBackward0"),
        (lambda a, b: a.double(), "ToCopyBackward0"),
        (
            lambda a, b: F.binary_cross_entropy_with_logits(a, b.detach()),
            "BinaryCrossEntropyWithLogitsBackward0",
        ),
    ],
)
def test_grad_fn_class_names(make, name):
    a = symgrad.rand(2, 2, requires_grad=True)
    b = symgrad.rand(2, 2, requires_grad=True)
    node = make(a, b).grad_fn
    assert type(node).__name__ == name
    assert node.name() == name
    assert repr(node).startswith(f"<{name} object at 0x")


def test_accumulate_grad_node_of_a_leaf():
    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    node, index = (a * 2).grad_fn.next_functions[0]
    assert type(node).__name__ == "AccumulateGrad" and index == 0
    assert node.variable is a
    assert node.next_functions == ()


def test_a_leaf_has_one_accumulate_grad_node_while_the_graph_lives():
    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    y, z = a * 2, a * 3
    assert y.grad_fn.next_functions[0][0] is z.grad_fn.next_functions[0][0]


def test_inputs_that_do_not_require_grad_have_no_edge():
    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    assert structure((a + symgrad.ones(2)).grad_fn) == ("AddBackward0", [(ACC, 0), (None, 0)])
    assert structure((a + 2).grad_fn) == ("AddBackward0", [(ACC, 0), (None, 0)])


def test_reflected_operators_put_the_tensor_first_as_pytorch():
    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    assert structure((2 + a).grad_fn) == ("AddBackward0", [(ACC, 0), (None, 0)])
    assert structure((2 * a).grad_fn) == ("MulBackward0", [(ACC, 0), (None, 0)])


def test_next_functions_of_the_tutorial_graph():
    # e = a * b + log(d) * c, as in the tutorial the project grew from
    a, b, c, d = (symgrad.tensor([v], requires_grad=True) for v in (2.0, 3.0, 5.0, 10.0))
    e = a * b + symgrad.log(d) * c
    assert structure(e.grad_fn) == (
        "AddBackward0",
        [
            (("MulBackward0", [(ACC, 0), (ACC, 0)]), 0),
            (("MulBackward0", [(("LogBackward0", [(ACC, 0)]), 0), (ACC, 0)]), 0),
        ],
    )
    mul = e.grad_fn.next_functions[0][0]
    assert mul.next_functions[0][0].variable is a and mul.next_functions[1][0].variable is b


def test_next_functions_of_matmul_and_sum():
    w = symgrad.ones(3, 2, requires_grad=True)
    y = symgrad.ones(4, 3).mm(w).sum()
    assert structure(y.grad_fn) == ("SumBackward0", [(("MmBackward0", [(None, 0), (ACC, 0)]), 0)])


def test_next_functions_name_the_output_index_of_multi_output_nodes():
    class Split(symgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + 2 * g2

    x = symgrad.tensor([1.0], requires_grad=True)
    first, second = Split.apply(x)
    y = first + second
    (n0, i0), (n1, i1) = y.grad_fn.next_functions
    assert n0 is n1 and (i0, i1) == (0, 1)


def test_pow_by_a_number_has_one_edge_as_pytorch():
    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    assert structure((a**2).grad_fn) == ("PowBackward0", [(ACC, 0)])


def test_bce_with_logits_has_pytorchs_two_edges():
    z = symgrad.tensor([0.5, -0.5], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(z, symgrad.zeros(2))
    expected = ("BinaryCrossEntropyWithLogitsBackward0", [(ACC, 0), (None, 0)])
    assert structure(loss.grad_fn) == expected


@pytest.mark.torch
def test_structure_matches_pytorch_on_a_small_network():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.ones(4, 5)
        w = lib.ones(5, 3, requires_grad=True)
        b = lib.zeros(3, requires_grad=True)
        h = (x.mm(w) + b).sigmoid()
        return structure((h.log() * h).exp().sum().grad_fn)

    assert run(symgrad) == run(torch)


def test_graph_is_rebuilt_by_every_forward_run():
    w = symgrad.tensor([1.0, -1.0], requires_grad=True)
    names = []
    for use_exp in (True, False):
        y = w.exp() if use_exp else w * w  # Python control flow picks the graph
        names.append(type(y.grad_fn).__name__)
        y.sum().backward()
    assert names == ["ExpBackward0", "MulBackward0"]
    np.testing.assert_allclose(w.grad.numpy(), np.exp([1.0, -1.0]) + [2.0, -2.0], rtol=1e-6)
