"""``einsum`` records PyTorch 2.13's graph: each operand's diagonals, new dimensions and one
permute to the common order, then PyTorch's pairwise products (``mul``, or permute, reshape,
``bmm``, view, permute), and a final view or sum. The expected graphs are written out, so they
are checked without PyTorch; with it, against PyTorch's graphs, the shapes ``bmm`` multiplies
(which operand goes left), values and gradients. Three operands or more follow opt_einsum's
contraction path when it is installed, as PyTorch does."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from nn.test_linear_graph import tree
except ImportError:  # tests/ made a package itself
    from tests.nn.test_linear_graph import tree

# (equation, operand shapes, PyTorch's graph)
CASES = [
    (
        "ij,jk->ik",
        [(2, 3), (3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))))))"
        ),
    ),
    (
        "ij,jk",
        [(2, 3), (3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))))))"
        ),
    ),
    (
        "ij,jk->ki",
        [(2, 3), (3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ReshapeAliasBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ReshapeAliasBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))))))"
        ),
    ),
    (
        "i,ij->j",
        [(3,), (3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(Acc)))))))"
        ),
    ),
    (
        "ij,j->i",
        [(3, 4), (4,)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(Acc))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))))))"
        ),
    ),
    (
        "bhqd,bhkd->bhqk",
        [(2, 3, 4, 5), (2, 3, 6, 5)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ReshapeAliasBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))))))"
        ),
    ),
    (
        "bhqk,bhkd->bhqd",
        [(2, 3, 4, 6), (2, 3, 6, 5)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))))))"
        ),
    ),
    (
        "bqhd,bkhd->bhqk",
        [(2, 4, 3, 5), (2, 6, 3, 5)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(UnsafeViewBackward0("
            "CloneBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))), "
            "UnsafeViewBackward0(CloneBackward0(PermuteBackward0(PermuteBackward0("
            "UnsqueezeBackward0(Acc)))))))))"
        ),
    ),
    (
        "bij,bjk->bik",
        [(2, 3, 4), (2, 4, 5)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))))))"
        ),
    ),
    ("ii->i", [(3, 3)], "PermuteBackward0(PermuteBackward0(DiagonalBackward0(Acc)))"),
    ("ii", [(3, 3)], "SumBackward1(PermuteBackward0(PermuteBackward0(DiagonalBackward0(Acc))))"),
    ("ij->", [(2, 3)], "SumBackward1(PermuteBackward0(Acc))"),
    ("ij->i", [(2, 3)], "SumBackward1(PermuteBackward0(Acc))"),
    ("ij->ji", [(2, 3)], "PermuteBackward0(Acc)"),
    (
        "i,j->ij",
        [(2,), (3,)],
        (
            "MulBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)), "
            "PermuteBackward0(UnsqueezeBackward0(Acc)))"
        ),
    ),
    (
        "i,i->",
        [(3,), (3,)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(Acc))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(Acc)))))))"
        ),
    ),
    ("ij,ij->ij", [(2, 3), (2, 3)], "MulBackward0(PermuteBackward0(Acc), PermuteBackward0(Acc))"),
    (
        "ii,ij->j",
        [(3, 3), (3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ReshapeAliasBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(PermuteBackward0("
            "DiagonalBackward0(Acc)))))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(Acc)))))))"
        ),
    ),
    (
        "i,j->",
        [(3,), (4,)],
        (
            "ViewBackward0(MulBackward0(SumBackward1(PermuteBackward0(UnsqueezeBackward0(Acc))), "
            "SumBackward1(PermuteBackward0(UnsqueezeBackward0(Acc)))))"
        ),
    ),
    (
        "...ij,...jk->...ik",
        [(5, 2, 3), (5, 3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))))))"
        ),
    ),
    (
        "...ij,jk->...ik",
        [(5, 2, 3), (3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc)))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0("
            "UnsqueezeBackward0(Acc)))))))))"
        ),
    ),
    (
        "...ij,...jk",
        [(2, 5, 2, 3), (5, 3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(UnsafeViewBackward0("
            "CloneBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(Acc))))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0("
            "UnsqueezeBackward0(Acc)))))))))"
        ),
    ),
    (
        "...i,...i->...",
        [(2, 1, 3), (1, 4, 3)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(Acc))), "
            "ReshapeAliasBackward0(PermuteBackward0(PermuteBackward0(Acc)))))))"
        ),
    ),
    (
        "b...,b...->b",
        [(2, 3, 4), (2, 3, 4)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(PermuteBackward0(Acc))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(Acc)))))))"
        ),
    ),
    (
        "bn,anm,bm->ba",
        [(2, 3), (4, 3, 5), (2, 5)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ViewBackward0("
            "PermuteBackward0(MulBackward0(PermuteBackward0(UnsqueezeBackward0(UnsqueezeBackward0("
            "Acc))), "
            "PermuteBackward0(UnsqueezeBackward0(UnsqueezeBackward0(Acc)))))), "
            "UnsafeViewBackward0(CloneBackward0(PermuteBackward0(PermuteBackward0("
            "UnsqueezeBackward0(Acc)))))))))"
        ),
    ),
    (
        "ab,bc,cd->ad",
        [(2, 3), (3, 4), (4, 5)],
        (
            "ViewBackward0(PermuteBackward0(ViewBackward0(BmmBackward0(ReshapeAliasBackward0("
            "PermuteBackward0(PermuteBackward0(UnsqueezeBackward0(UnsqueezeBackward0(Acc))))), "
            "ReshapeAliasBackward0(PermuteBackward0(PermuteBackward0(ViewBackward0(BmmBackward0("
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0("
            "UnsqueezeBackward0(Acc))))), "
            "ViewBackward0(PermuteBackward0(PermuteBackward0(UnsqueezeBackward0("
            "UnsqueezeBackward0(Acc))))))))))))))"
        ),
    ),
]

try:
    import opt_einsum  # noqa: F401

    PATHS = True
except ImportError:
    PATHS = False


def _operands(T, shapes):
    return [
        T.tensor(np.random.default_rng(i).standard_normal(s), dtype=T.float64, requires_grad=True)
        for i, s in enumerate(shapes)
    ]


def _cases():
    for equation, shapes, graph in CASES:
        marks = [] if len(shapes) < 3 or PATHS else [pytest.mark.skip("opt_einsum's path")]
        yield pytest.param(equation, shapes, graph, id=equation, marks=marks)


@pytest.mark.parametrize("equation,shapes,graph", _cases())
def test_graph_is_pytorchs(equation, shapes, graph):
    assert tree(symgrad.einsum(equation, *_operands(symgrad, shapes)).grad_fn) == graph


def test_values_and_gradients():
    a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = symgrad.tensor([[0.0, 1.0], [1.0, 0.0]], requires_grad=True)
    y = symgrad.einsum("ij,jk->ik", a, b)
    assert y.tolist() == [[2.0, 1.0], [4.0, 3.0]]
    (y * y).sum().backward()
    assert a.grad.tolist() == [[2.0, 4.0], [6.0, 8.0]]
    assert b.grad.tolist() == [[28.0, 20.0], [40.0, 28.0]]
    assert symgrad.einsum("ii", a).item() == 5.0


def test_a_size_mismatch_is_pytorchs_error():
    with pytest.raises(RuntimeError, match="subscript j has size 4 for operand 1"):
        symgrad.einsum("ij,jk->ik", symgrad.ones(2, 3), symgrad.ones(4, 2))
    with pytest.raises(RuntimeError, match="invalid subscript"):
        symgrad.einsum("ij,j1->i", symgrad.ones(2, 3), symgrad.ones(3, 1))


def _bmm_shapes(fn, found):
    """The shapes of the operands of each ``bmm`` in the graph, depth first."""
    stack = [fn]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if type(node).__name__ == "BmmBackward0":
            found.append(tuple(tuple(t.shape) for t in (node._saved_self, node._saved_mat2)))
        stack.extend(f for f, _ in reversed(node.next_functions))
    return found


@pytest.mark.parametrize("equation,shapes,graph", _cases())
def test_against_pytorch(equation, shapes, graph):
    torch = pytest.importorskip("torch")
    results = []
    for T in (symgrad, torch):
        xs = _operands(T, shapes)
        y = T.einsum(equation, *xs)
        graph, shapes_multiplied = tree(y.grad_fn), _bmm_shapes(y.grad_fn, [])
        grads = T.autograd.grad((y * y).sum(), xs)
        results.append((graph, shapes_multiplied, y, grads))
    (g1, s1, y1, d1), (g2, s2, y2, d2) = results
    assert g1 == g2 == graph
    assert s1 == s2
    np.testing.assert_allclose(y1.detach().numpy(), y2.detach().numpy(), rtol=1e-12)
    for a, b in zip(d1, d2):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
