"""Matrix products record PyTorch 2.13's graphs: ``matmul`` in every shape case (``mm``/``mv``
of a folded batch, or ``bmm`` of expanded operands, with PyTorch's views, transposes and
copies), and ``addmm``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm`` as one node each. The
expected graphs are written out, so they are checked without PyTorch; with it, each case is also
checked against PyTorch's graph, values, gradients and second derivatives."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import symgrad

try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from nn.test_linear_graph import tree
except ImportError:  # tests/ made a package itself
    from tests.nn.test_linear_graph import tree

# name -> (function, operand shapes, which require grad, keywords, PyTorch's graph)
CASES = {
    "dot": ("matmul", [(3,), (3,)], "TT", {}, "DotBackward0(Acc, Acc)"),
    "mv": ("matmul", [(2, 3), (3,)], "TT", {}, "MvBackward0(Acc, Acc)"),
    "vector_matrix": (
        "matmul",
        [(3,), (3, 4)],
        "TT",
        {},
        "SqueezeBackward4(MmBackward0(UnsqueezeBackward0(Acc), Acc))",
    ),
    "mm": ("matmul", [(2, 3), (3, 4)], "TT", {}, "MmBackward0(Acc, Acc)"),
    "batch_matrix": (
        "matmul",
        [(5, 2, 3), (3, 4)],
        "TT",
        {},
        "UnsafeViewBackward0(MmBackward0(ViewBackward0(Acc), Acc))",
    ),
    "batch_matrix_no_grad_right": (
        "matmul",
        [(5, 2, 3), (3, 4)],
        "TF",
        {},
        "UnsafeViewBackward0(MmBackward0(ViewBackward0(Acc), None))",
    ),
    "batch4_matrix": (
        "matmul",
        [(6, 5, 2, 3), (3, 4)],
        "TT",
        {},
        "UnsafeViewBackward0(MmBackward0(ViewBackward0(Acc), Acc))",
    ),
    "transposed_batch_matrix": (
        "matmul",
        [(5, 2, 3), (3, 4)],
        "TF",
        {"layout": "transposed"},
        (
            "UnsafeViewBackward0(BmmBackward0(ReshapeAliasBackward0(ExpandBackward0("
            "TransposeBackward0(Acc))), "
            "None))"
        ),
    ),
    "matrix_batch": (
        "matmul",
        [(2, 3), (5, 3, 4)],
        "TT",
        {},
        (
            "CloneBackward0(TransposeBackward0(UnsafeViewBackward0(MmBackward0("
            "UnsafeViewBackward0(CloneBackward0(TransposeBackward0(Acc))), "
            "TBackward0(Acc)))))"
        ),
    ),
    "matrix_batch_no_grad_left": (
        "matmul",
        [(2, 3), (5, 3, 4)],
        "FT",
        {},
        "UnsafeViewBackward0(BmmBackward0(None, ViewBackward0(ExpandBackward0(Acc))))",
    ),
    "batch_batch": (
        "matmul",
        [(5, 2, 3), (5, 3, 4)],
        "TT",
        {},
        (
            "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0(Acc)), "
            "ViewBackward0(ExpandBackward0(Acc))))"
        ),
    ),
    "broadcast_batches": (
        "matmul",
        [(5, 1, 2, 3), (4, 3, 4)],
        "TT",
        {},
        (
            "UnsafeViewBackward0(BmmBackward0(UnsafeViewBackward0(CloneBackward0(ExpandBackward0("
            "Acc))), "
            "UnsafeViewBackward0(CloneBackward0(ExpandBackward0(Acc)))))"
        ),
    ),
    "broadcast_batches_alias": (
        "matmul",
        [(5, 1, 2, 3), (1, 3, 4)],
        "TT",
        {},
        (
            "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0(Acc)), "
            "ReshapeAliasBackward0(ExpandBackward0(Acc))))"
        ),
    ),
    "batch4_batch4": (
        "matmul",
        [(2, 5, 2, 3), (2, 5, 3, 4)],
        "TT",
        {},
        (
            "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0(Acc)), "
            "ViewBackward0(ExpandBackward0(Acc))))"
        ),
    ),
    "batch_vector": (
        "matmul",
        [(5, 2, 3), (3,)],
        "TT",
        {},
        "UnsafeViewBackward0(MvBackward0(ViewBackward0(Acc), Acc))",
    ),
    "transposed_batch_vector": (
        "matmul",
        [(5, 2, 3), (3,)],
        "TF",
        {"layout": "transposed"},
        (
            "UnsafeViewBackward0(SqueezeBackward1(BmmBackward0(ReshapeAliasBackward0("
            "ExpandBackward0(TransposeBackward0(Acc))), "
            "None)))"
        ),
    ),
    "vector_batch": (
        "matmul",
        [(3,), (5, 3, 4)],
        "TT",
        {},
        (
            "UnsafeViewBackward0(MvBackward0(UnsafeViewBackward0(CloneBackward0("
            "TransposeBackward0(Acc))), "
            "Acc))"
        ),
    ),
    "vector_batch_no_grad_left": (
        "matmul",
        [(3,), (5, 3, 4)],
        "FT",
        {},
        "UnsafeViewBackward0(BmmBackward0(None, ViewBackward0(ExpandBackward0(Acc))))",
    ),
    "batch4_vector": (
        "matmul",
        [(2, 5, 2, 3), (3,)],
        "TT",
        {},
        "UnsafeViewBackward0(MvBackward0(ViewBackward0(Acc), Acc))",
    ),
    "vector_batch4": (
        "matmul",
        [(3,), (2, 5, 3, 4)],
        "TT",
        {},
        (
            "UnsafeViewBackward0(MvBackward0(UnsafeViewBackward0(CloneBackward0("
            "TransposeBackward0(Acc))), "
            "Acc))"
        ),
    ),
    "single_batch_left": (
        "matmul",
        [(1, 2, 3), (5, 3, 4)],
        "TT",
        {},
        (
            "CloneBackward0(TransposeBackward0(UnsafeViewBackward0(MmBackward0("
            "UnsafeViewBackward0(CloneBackward0(TransposeBackward0(Acc))), "
            "TBackward0(SqueezeBackward1(Acc))))))"
        ),
    ),
    "single_batch_right": (
        "matmul",
        [(5, 2, 3), (1, 3, 4)],
        "TT",
        {},
        "UnsafeViewBackward0(MmBackward0(ViewBackward0(Acc), SqueezeBackward1(Acc)))",
    ),
    "single_batch_right_no_grad": (
        "matmul",
        [(5, 2, 3), (1, 3, 4)],
        "TF",
        {},
        "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0(Acc)), None))",
    ),
    "single_batches": (
        "matmul",
        [(1, 2, 3), (1, 3, 4)],
        "TT",
        {},
        (
            "UnsafeViewBackward0(BmmBackward0(ViewBackward0(ExpandBackward0(Acc)), "
            "ViewBackward0(ExpandBackward0(Acc))))"
        ),
    ),
    "empty_batch": (
        "matmul",
        [(1, 0, 3), (5, 3, 4)],
        "TT",
        {},
        (
            "TransposeBackward0(UnsafeViewBackward0(MmBackward0(UnsafeViewBackward0("
            "CloneBackward0(TransposeBackward0(Acc))), "
            "TBackward0(SqueezeBackward1(Acc)))))"
        ),
    ),
    "fn_mm": ("mm", [(2, 3), (3, 4)], "TT", {}, "MmBackward0(Acc, Acc)"),
    "fn_bmm": ("bmm", [(5, 2, 3), (5, 3, 4)], "TT", {}, "BmmBackward0(Acc, Acc)"),
    "fn_mv": ("mv", [(2, 3), (3,)], "TT", {}, "MvBackward0(Acc, Acc)"),
    "fn_dot": ("dot", [(3,), (3,)], "TT", {}, "DotBackward0(Acc, Acc)"),
    "addmm": ("addmm", [(4,), (2, 3), (3, 4)], "TTT", {}, "AddmmBackward0(Acc, Acc, Acc)"),
    "addmm_matrix": ("addmm", [(2, 4), (2, 3), (3, 4)], "TTT", {}, "AddmmBackward0(Acc, Acc, Acc)"),
    "addmm_scaled": (
        "addmm",
        [(2, 1), (2, 3), (3, 4)],
        "TTT",
        {"beta": 0.5, "alpha": 2.0},
        "AddmmBackward0(Acc, Acc, Acc)",
    ),
    "addmm_beta0": (
        "addmm",
        [(), (2, 3), (3, 4)],
        "TTT",
        {"beta": 0.0},
        "AddmmBackward0(Acc, Acc, Acc)",
    ),
    "addmm_no_grad_input": (
        "addmm",
        [(4,), (2, 3), (3, 4)],
        "FTT",
        {},
        "AddmmBackward0(None, Acc, Acc)",
    ),
    "addmv": ("addmv", [(2,), (2, 3), (3,)], "TTT", {}, "AddmvBackward0(Acc, Acc, Acc)"),
    "addmv_scaled": (
        "addmv",
        [(1,), (2, 3), (3,)],
        "TTT",
        {"beta": -1.0, "alpha": 3.0},
        "AddmvBackward0(Acc, Acc, Acc)",
    ),
    "addr": ("addr", [(2, 3), (2,), (3,)], "TTT", {}, "AddrBackward0(Acc, Acc, Acc)"),
    "addr_scaled": (
        "addr",
        [(3,), (2,), (3,)],
        "TTT",
        {"beta": 2.0, "alpha": 0.5},
        "AddrBackward0(Acc, Acc, Acc)",
    ),
    "baddbmm": (
        "baddbmm",
        [(5, 2, 4), (5, 2, 3), (5, 3, 4)],
        "TTT",
        {},
        "BaddbmmBackward0(Acc, Acc, Acc)",
    ),
    "baddbmm_scaled": (
        "baddbmm",
        [(4,), (5, 2, 3), (5, 3, 4)],
        "TTT",
        {"beta": 0.5, "alpha": -2.0},
        "BaddbmmBackward0(Acc, Acc, Acc)",
    ),
    "addbmm": (
        "addbmm",
        [(2, 4), (5, 2, 3), (5, 3, 4)],
        "TTT",
        {},
        "AddbmmBackward0(Acc, Acc, Acc)",
    ),
    "addbmm_scaled": (
        "addbmm",
        [(4,), (5, 2, 3), (5, 3, 4)],
        "TTT",
        {"beta": 0.5, "alpha": -2.0},
        "AddbmmBackward0(Acc, Acc, Acc)",
    ),
    "addbmm_beta0_no_grad_batch1": (
        "addbmm",
        [(2, 1), (5, 2, 3), (5, 3, 4)],
        "TFT",
        {"beta": 0.0, "alpha": 3.0},
        "AddbmmBackward0(Acc, None, Acc)",
    ),
}


def _make(T, shape, requires_grad, layout, seed):
    """A float64 tensor; ``layout="transposed"`` makes a batch of transposed matrices."""
    rng = np.random.default_rng(seed)
    if layout == "transposed":
        raw = rng.standard_normal((shape[0], shape[2], shape[1]))
        return T.tensor(raw, dtype=T.float64, requires_grad=requires_grad).transpose(1, 2)
    return T.tensor(rng.standard_normal(shape), dtype=T.float64, requires_grad=requires_grad)


def _call(T, name):
    fn, shapes, flags, keywords, _ = CASES[name]
    keywords = dict(keywords)
    layout = keywords.pop("layout", None)
    xs = [
        _make(T, s, f == "T", layout if i == 0 else None, i)
        for i, (s, f) in enumerate(zip(shapes, flags))
    ]
    return xs, getattr(T, fn)(*xs, **keywords)


@pytest.mark.parametrize("name", sorted(CASES))
def test_graph_is_pytorchs(name):
    _, y = _call(symgrad, name)
    assert tree(y.grad_fn) == CASES[name][-1]


def test_operator_and_method_record_the_same_graph():
    a = symgrad.ones(5, 2, 3, requires_grad=True)
    b = symgrad.ones(3, 4, requires_grad=True)
    assert tree((a @ b).grad_fn) == tree(a.matmul(b).grad_fn) == CASES["batch_matrix"][-1]
    c = symgrad.ones(2, 4, requires_grad=True)
    assert tree(c.addmm(a[0], b).grad_fn) == "AddmmBackward0(Acc, SelectBackward0(Acc), Acc)"


def test_values_and_gradients_of_a_folded_batch():
    a = symgrad.tensor([[[1.0, 2.0]], [[3.0, 4.0]]], requires_grad=True)
    b = symgrad.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], requires_grad=True)
    y = a @ b
    assert y.tolist() == [[[1.0, 2.0, 3.0]], [[3.0, 4.0, 7.0]]]
    y.sum().backward()
    assert a.grad.tolist() == [[[2.0, 2.0]], [[2.0, 2.0]]]
    assert b.grad.tolist() == [[4.0, 4.0, 4.0], [6.0, 6.0, 6.0]]


def test_fused_values_gradients_and_scales():
    c = symgrad.tensor([1.0, float("nan")], requires_grad=True)
    m = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = symgrad.tensor([1.0, -1.0], requires_grad=True)
    y = symgrad.addmv(c, m, v, beta=0, alpha=2)  # beta 0: the input ignored, nan too
    assert y.tolist() == [-2.0, -2.0]
    y.sum().backward()
    assert c.grad.tolist() == [0.0, 0.0]
    assert m.grad.tolist() == [[2.0, -2.0], [2.0, -2.0]]
    assert v.grad.tolist() == [8.0, 12.0]
    r = symgrad.addr(symgrad.ones(2, 2), symgrad.tensor([1.0, 2.0]), v, beta=3)
    assert r.tolist() == [[4.0, 2.0], [5.0, 1.0]]


ERRORS = {
    "addmm_input": ("addmm", [(3, 4), (2, 3), (3, 4)]),
    "addmm_sizes": ("addmm", [(2, 4), (2, 3), (2, 4)]),
    "addmm_vector": ("addmm", [(2, 4), (3,), (3, 4)]),
    "addmv_input": ("addmv", [(3,), (2, 3), (3,)]),
    "addmv_vec": ("addmv", [(2,), (2, 3), (4,)]),
    "addr_matrix": ("addr", [(2, 3), (2, 1), (3,)]),
    "addr_input": ("addr", [(3, 2), (2,), (3,)]),
    "baddbmm_input": ("baddbmm", [(3, 4), (5, 2, 3), (5, 3, 4)]),
    "baddbmm_batch": ("baddbmm", [(5, 2, 4), (5, 2, 3), (4, 3, 4)]),
    "addbmm_input": ("addbmm", [(3, 4), (5, 2, 3), (5, 3, 4)]),
    "addbmm_batches": ("addbmm", [(2, 4), (5, 2, 3), (4, 3, 4)]),
    "addbmm_sizes": ("addbmm", [(2, 4), (5, 2, 3), (5, 2, 4)]),
    "addbmm_input_dims": ("addbmm", [(1, 2, 4), (5, 2, 3), (5, 3, 4)]),
    "bmm_batch": ("bmm", [(5, 2, 3), (4, 3, 4)]),
    "bmm_sizes": ("bmm", [(5, 2, 3), (5, 4, 4)]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    fn, shapes = ERRORS[name]
    with pytest.raises(RuntimeError):
        getattr(symgrad, fn)(*[symgrad.ones(*s) for s in shapes])


# -- against PyTorch ------------------------------------------------------------------------------


def _derivatives(T, xs, y):
    leaves = [x if x.is_leaf else x._base for x in xs if x.requires_grad]
    v = T.tensor(np.linspace(-1, 1, y.numel()).reshape(y.shape), dtype=T.float64)
    first = T.autograd.grad((y * y * v).sum(), leaves, create_graph=True)
    second = T.autograd.grad(sum((g * g).sum() for g in first), leaves, allow_unused=True)
    return [y, *first, *second]


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _call(symgrad, name), _call(torch, name)
    assert tree(ours[1].grad_fn) == tree(theirs[1].grad_fn)
    for a, b in zip(_derivatives(symgrad, *ours), _derivatives(torch, *theirs)):
        expected = None if b is None else b.detach().numpy()
        if expected is None:
            assert a is None or not a.detach().numpy().any()
            continue
        np.testing.assert_allclose(a.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_against_pytorch(name):
    torch = pytest.importorskip("torch")
    fn, shapes = ERRORS[name]
    with pytest.raises(RuntimeError):
        getattr(torch, fn)(*[torch.ones(*s) for s in shapes])


# -- F.bilinear's gradients and vander ------------------------------------------------------------

BILINEAR_SHAPES = {"batch": [(2, 3), (2, 4), (5, 3, 4)], "vectors": [(3,), (4,), (2, 3, 4)]}


def _bilinear_gradients(T, case):
    xs = [_make(T, s, True, None, i) for i, s in enumerate(BILINEAR_SHAPES[case])]
    y = T.nn.functional.bilinear(*xs)
    return T.autograd.grad((y * y).sum(), xs, create_graph=True)


def _top(fn, depth=2):
    """A node's name and, ``depth`` levels down, those of the nodes it leads to."""
    if fn is None or depth == 1:
        return type(fn).__name__
    return f"{type(fn).__name__}({', '.join(_top(f, depth - 1) for f, _ in fn.next_functions)})"


@pytest.mark.parametrize("case", sorted(BILINEAR_SHAPES))
def test_bilinear_gradients_are_trilinear_nodes(case):
    """With create_graph, each gradient is PyTorch's ``_trilinear`` of the incoming gradient
    and the two other inputs: a ``TrilinearBackward0`` node (under the inputs' view)."""
    g1, g2, gw = _bilinear_gradients(symgrad, case)
    trilinear = "TrilinearBackward0(ViewBackward0, AccumulateGrad, ViewBackward0)"
    assert _top(g1.grad_fn, 3) == f"ViewBackward0({trilinear})"
    assert _top(g2.grad_fn, 3) == f"ViewBackward0({trilinear})"
    assert _top(gw.grad_fn) == "TrilinearBackward0(ViewBackward0, ViewBackward0, ViewBackward0)"


@pytest.mark.parametrize("case", sorted(BILINEAR_SHAPES))
def test_bilinear_gradients_against_pytorch(case):
    torch = pytest.importorskip("torch")
    ours, theirs = _bilinear_gradients(symgrad, case), _bilinear_gradients(torch, case)
    for a, b in zip(ours, theirs):
        assert tree(a.grad_fn) == tree(b.grad_fn)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    xs = [_make(symgrad, s, True, None, i) for i, s in enumerate(BILINEAR_SHAPES[case])]
    assert symgrad.autograd.gradgradcheck(symgrad.nn.functional.bilinear, tuple(xs))


SUMMED = "ViewBackward0(SumBackward1(AddBackward0("
BIAS_SHAPES = {
    "batch": ([(2, 3), (2, 4), (5, 3, 4), (5,)], SUMMED),
    "batches": ([(6, 2, 3), (6, 2, 4), (5, 3, 4), (5,)], SUMMED),
    "vectors": ([(3,), (4,), (2, 3, 4), (2,)], "AddBackward0(MulBackward0("),
}


def _bias_derivatives(T, case):
    xs = [_make(T, s, True, None, i) for i, s in enumerate(BIAS_SHAPES[case][0])]
    y = T.nn.functional.bilinear(*xs)
    gb = T.autograd.grad((y * y).sum(), xs[3], create_graph=True)[0]
    return gb, [gb, *T.autograd.grad((gb**2).sum(), xs)]


@pytest.mark.parametrize("case", sorted(BIAS_SHAPES))
def test_bilinear_bias_gradient_graph(case):
    """The bias gradient is summed over the batch as PyTorch's ``at::sum_to`` sums it."""
    gb, _ = _bias_derivatives(symgrad, case)
    assert tree(gb.grad_fn).startswith(BIAS_SHAPES[case][1])


def test_bilinear_module_bias_gradient():
    m = symgrad.nn.Bilinear(3, 4, 5, dtype=symgrad.float64)
    y = m(symgrad.ones(2, 3, dtype=symgrad.float64), symgrad.ones(2, 4, dtype=symgrad.float64))
    (gb,) = symgrad.autograd.grad(y.pow(2).sum(), [m.bias], create_graph=True)
    assert tree(gb.grad_fn).startswith("ViewBackward0(SumBackward1(")


@pytest.mark.parametrize("case", sorted(BIAS_SHAPES))
def test_bilinear_bias_gradient_against_pytorch(case):
    torch = pytest.importorskip("torch")
    (ours, ours_all), (theirs, theirs_all) = (
        _bias_derivatives(symgrad, case),
        _bias_derivatives(torch, case),
    )
    assert tree(ours.grad_fn) == tree(theirs.grad_fn)
    for a, b in zip(ours_all, theirs_all):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)


def test_bilinear_0d_bias_error():
    x1, x2, w = symgrad.ones(2, 3), symgrad.ones(2, 4), symgrad.ones(5, 3, 4)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        symgrad.nn.functional.bilinear(x1, x2, w, symgrad.tensor(1.0))
    with pytest.raises(RuntimeError, match="bias size does not match weight size: got 2 but"):
        symgrad.nn.functional.bilinear(x1, x2, w, symgrad.ones(2, 5))


# PyTorch's torch.vander: ones, the column written into columns 1.., their running product
# written over them (CopySlices), flipped unless increasing
VANDER = (
    "CopySlices(CopySlices(None, UnsqueezeBackward0(Acc)), CumprodBackward0(SliceBackward0("
    "CopySlices(None, UnsqueezeBackward0(Acc)))))"
)
VANDER_CASES = {"square": {}, "N2": {"N": 2}, "increasing4": {"N": 4, "increasing": True}}


def test_vander_graph_and_gradient():
    """symgrad records PyTorch's graph, but its cumprod reads a copy of the columns it then
    overwrites, so its backward works where PyTorch's raises."""
    x = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = symgrad.vander(x)
    assert tree(y.grad_fn) == f"FlipBackward0({VANDER})"
    assert tree(symgrad.vander(x, increasing=True).grad_fn) == VANDER
    assert symgrad.vander(x, N=1).grad_fn is None and symgrad.vander(x, N=0).shape == (3, 0)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 5.0, 7.0]  # d/dx (x^2 + x + 1)
    x = symgrad.tensor([1.0, 2.0, 3.0], dtype=symgrad.float64, requires_grad=True)
    for keywords in VANDER_CASES.values():
        assert symgrad.autograd.gradgradcheck(functools.partial(symgrad.vander, **keywords), (x,))


def test_vander_on_the_meta_device():
    y = symgrad.vander(symgrad.empty(3, device="meta", requires_grad=True))
    assert y.device.type == "meta" and y.shape == (3, 3)


@pytest.mark.parametrize("case", sorted(VANDER_CASES))
def test_vander_against_pytorch(case):
    """PyTorch's graph names; values and derivatives of first and second order those of
    torch.linalg.vander (flipped), as torch.vander's own backward raises."""
    torch = pytest.importorskip("torch")
    keywords = VANDER_CASES[case]
    x = torch.tensor([0.5, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.vander(x, **keywords).sum().backward()
    ours = symgrad.tensor([0.5, -2.0, 3.0], dtype=symgrad.float64, requires_grad=True)
    y = symgrad.vander(ours, **keywords)
    assert tree(y.grad_fn) == tree(torch.vander(x, **keywords).grad_fn)
    n = keywords.get("N", 3)
    expected = torch.linalg.vander(x, N=n)
    expected = expected if keywords.get("increasing") else expected.flip(1)
    results = []
    for T, t, out in ((symgrad, ours, y), (torch, x, expected)):
        (g,) = T.autograd.grad((out * out).sum(), t, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), t)
        results.append([out.detach().numpy(), g.detach().numpy(), gg.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_bilinear_bias_errors_against_pytorch():
    torch = pytest.importorskip("torch")
    x1, x2, w = torch.ones(2, 3), torch.ones(2, 4), torch.ones(5, 3, 4)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        torch.nn.functional.bilinear(x1, x2, w, torch.tensor(1.0))
    with pytest.raises(RuntimeError, match="bias size does not match weight size: got 2 but"):
        torch.nn.functional.bilinear(x1, x2, w, torch.ones(2, 5))


def test_vander_under_vmap():
    x = symgrad.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=symgrad.float64)
    out = symgrad.func.vmap(symgrad.vander)(x)
    assert out.tolist() == [[symgrad.vander(row).tolist() for row in x]][0]
    assert out[1].tolist() == [[0.25, 0.5, 1.0], [1.0, -1.0, 1.0], [4.0, 2.0, 1.0]]


class TestVectorMatrixRecord:
    """A vector times a matrix is ``unsqueeze(0).mm(b).squeeze_(0)`` as in PyTorch, however it
    is recorded: the version, base and saved row behave as PyTorch's."""

    def test_version_base_and_saved_row(self):
        x = symgrad.ones(5)
        w = symgrad.ones(5, 3, requires_grad=True)
        r = symgrad.matmul(x, w)
        assert r.shape == (3,) and r._version == 1 and r._base is None
        row = r.grad_fn.next_functions[0][0]._saved_self
        assert row.shape == (1, 5) and row._base is x

    def test_changing_the_vector_after_the_product_is_refused(self):
        x = symgrad.ones(5)
        w = symgrad.ones(5, 3, requires_grad=True)
        r = symgrad.matmul(x, w)
        x.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            r.sum().backward()

    def test_no_grad_product_still_counts_the_squeeze(self):
        x = symgrad.ones(5)
        w = symgrad.ones(5, 3, requires_grad=True)
        with symgrad.no_grad():
            r = symgrad.matmul(x, w)
        assert r.grad_fn is None and r.shape == (3,) and r._version == 1
        np.testing.assert_array_equal(r.numpy(), [5.0, 5.0, 5.0])

    def test_gradient_of_the_matrix(self):
        x = symgrad.tensor([1.0, 2.0])
        w = symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        (symgrad.matmul(x, w) * symgrad.tensor([1.0, 0.0, -1.0])).sum().backward()
        np.testing.assert_array_equal(w.grad.numpy(), [[1.0, 0.0, -1.0], [2.0, 0.0, -2.0]])


# inner: tensordot over the last dimensions (a vector pair: a dot product), PyTorch's graphs
_MM = "ViewBackward0(MmBackward0(ViewBackward0(PermuteBackward0(Acc)), {}(PermuteBackward0(Acc))))"
INNER_CASES = {
    "matrices": ([(2, 3), (4, 3)], _MM.format("ReshapeAliasBackward0")),
    "vectors": (
        [(3,), (3,)],
        "ViewBackward0(DotBackward0(PermuteBackward0(Acc), PermuteBackward0(Acc)))",
    ),
    "matrix_vector": ([(2, 3), (3,)], _MM.format("ViewBackward0")),
    "matrix_batch": ([(2, 3), (5, 4, 3)], _MM.format("ReshapeAliasBackward0")),
    "scalar": ([(), (3,)], "MulBackward0(Acc, Acc)"),
}


def _inner_operands(T, shapes):
    rng = np.random.default_rng(5)
    return [T.tensor(rng.standard_normal(s), dtype=T.float64, requires_grad=True) for s in shapes]


@pytest.mark.parametrize("case", sorted(INNER_CASES))
def test_inner_graph_values_and_gradients(case):
    shapes, graph = INNER_CASES[case]
    a, b = _inner_operands(symgrad, shapes)
    y = symgrad.inner(a, b)
    assert tree(y.grad_fn) == graph
    expected = np.inner(a.detach().numpy(), b.detach().numpy())
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-12)
    assert y.shape == expected.shape == a.inner(b).shape
    (y * y).sum().backward()
    if a.ndim:  # d/da of sum(y^2): 2 y contracted with b over b's leading dimensions
        axes = (range(a.ndim - 1, y.ndim), range(b.ndim - 1))
        ga = 2 * np.tensordot(expected, b.detach().numpy(), axes=axes)
        np.testing.assert_allclose(a.grad.numpy(), ga, rtol=1e-12)


@pytest.mark.parametrize("case", sorted(INNER_CASES))
def test_inner_against_pytorch(case):
    torch = pytest.importorskip("torch")
    shapes, graph = INNER_CASES[case]
    results = []
    for T in (symgrad, torch):
        a, b = _inner_operands(T, shapes)
        y = T.inner(a, b)
        if T is torch:
            assert tree(y.grad_fn) == graph
        (y.sin().sum()).backward()
        results.append([y.detach().numpy(), a.grad.numpy(), b.grad.numpy()])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_inner_last_dimensions_must_match():
    with pytest.raises(RuntimeError, match=r"last dimension must match .* \[2, 3\] and \[2, 4\]"):
        symgrad.inner(symgrad.ones(2, 3), symgrad.ones(2, 4))
