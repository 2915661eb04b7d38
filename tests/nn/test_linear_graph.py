"""``F.linear`` records PyTorch's graph: ``AddmmBackward0(bias, input, TBackward0(weight))``
for a matrix input with a bias, ``MmBackward0(input, TBackward0(weight))`` without one, and
PyTorch's reshapes around them for other inputs; values, gradients and second derivatives,
and the weight's gradient kept without a copy. With PyTorch importable, every case is checked
against it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn


def tree(fn) -> str:
    """A node and what it leads to, compactly: ``AddmmBackward0(Acc, None, TBackward0(Acc))``."""
    if fn is None:
        return "None"
    name = type(fn).__name__
    if name == "AccumulateGrad":
        return "Acc"
    return f"{name}({', '.join(tree(f) for f, _ in fn.next_functions)})"


def _make(T, shape, requires_grad=True, layout=None, seed=0):
    """A float64 tensor of ``shape``; ``layout="transposed"`` makes it a non-contiguous view
    (its first two dimensions swapped), ``"strided"`` every other element of a longer vector,
    ``"t"`` the transpose of a matrix."""
    rng = np.random.default_rng(seed)
    if layout == "transposed":
        raw = rng.standard_normal((shape[1], shape[0], *shape[2:]))
        return T.tensor(raw, dtype=T.float64, requires_grad=requires_grad).transpose(0, 1)
    if layout == "strided":
        raw = rng.standard_normal(2 * shape[0])
        return T.tensor(raw, dtype=T.float64, requires_grad=requires_grad)[::2]
    if layout == "t":
        raw = rng.standard_normal(shape[::-1])
        return T.tensor(raw, dtype=T.float64, requires_grad=requires_grad).t()
    return T.tensor(rng.standard_normal(shape), dtype=T.float64, requires_grad=requires_grad)


ALL = "AddmmBackward0(Acc, Acc, TBackward0(Acc))"
FLAT = "ViewBackward0(AddmmBackward0(Acc, ViewBackward0(Acc), TBackward0(Acc)))"
FOLD = "UnsafeViewBackward0(MmBackward0(ViewBackward0(Acc), TBackward0(Acc)))"
COPIED = "UnsafeViewBackward0(CloneBackward0(TransposeBackward0(Acc)))"

# (input shape, input layout, weight shape, bias shape or None) -> PyTorch 2.13's graph
CASES = {
    "matrix": ((2, 3), None, (5, 3), (5,), ALL),
    "matrix_no_bias": ((2, 3), None, (5, 3), None, "MmBackward0(Acc, TBackward0(Acc))"),
    "vector": ((3,), None, (5, 3), (5,), FLAT),
    "vector_no_bias": (
        (3,),
        None,
        (5, 3),
        None,
        "SqueezeBackward4(MmBackward0(UnsqueezeBackward0(Acc), TBackward0(Acc)))",
    ),
    "batch3": ((4, 2, 3), None, (5, 3), (5,), FLAT),
    "batch3_no_bias": ((4, 2, 3), None, (5, 3), None, FOLD),
    "batch4": ((2, 2, 2, 3), None, (5, 3), (5,), FLAT),
    "batch4_no_bias": ((2, 2, 2, 3), None, (5, 3), None, FOLD),
    "bias_number": ((2, 3), None, (5, 3), (), ALL),
    "bias_matrix": ((2, 3), None, (5, 3), (2, 5), ALL),
    "bias_row": ((2, 3), None, (5, 3), (1, 5), ALL),
    "bias_column": ((2, 3), None, (5, 3), (2, 1), ALL),
    "bias_one": ((2, 3), None, (5, 3), (1,), ALL),
    "batch3_bias_one": ((4, 2, 3), None, (5, 3), (1,), FLAT),
    "vector_bias_number": (
        (3,),
        None,
        (5, 3),
        (),
        "AddBackward0(SqueezeBackward4(MmBackward0(UnsqueezeBackward0(Acc), TBackward0(Acc))), "
        "Acc)",
    ),
    "batch3_bias_number": ((4, 2, 3), None, (5, 3), (), f"AddBackward0({FOLD}, Acc)"),
    "batch3_bias_matrix": ((4, 2, 3), None, (5, 3), (2, 5), f"AddBackward0({FOLD}, Acc)"),
    "batch4_bias_matrix": ((3, 4, 2, 3), None, (5, 3), (2, 5), f"AddBackward0({FOLD}, Acc)"),
    "batch3_transposed": (
        (4, 2, 3),
        "transposed",
        (5, 3),
        (5,),
        f"AddBackward0(UnsafeViewBackward0(MmBackward0({COPIED}, TBackward0(Acc))), Acc)",
    ),
    "batch3_transposed_no_bias": (
        (4, 2, 3),
        "transposed",
        (5, 3),
        None,
        f"UnsafeViewBackward0(MmBackward0({COPIED}, TBackward0(Acc)))",
    ),
    "matrix_transposed": (
        (2, 3),
        "t",
        (5, 3),
        (5,),
        "AddmmBackward0(Acc, TBackward0(Acc), TBackward0(Acc))",
    ),
    "vector_strided": (
        (3,),
        "strided",
        (5, 3),
        (5,),
        "AddBackward0(SqueezeBackward4(MmBackward0(UnsqueezeBackward0(SliceBackward0(Acc)), "
        "TBackward0(Acc))), Acc)",
    ),
    "vector_weight": ((2, 3), None, (3,), None, "MvBackward0(Acc, TBackward0(Acc))"),
    "vector_weight_vector": ((3,), None, (3,), None, "DotBackward0(Acc, TBackward0(Acc))"),
    "vector_weight_number_bias": (
        (3,),
        None,
        (3,),
        (),
        "AddBackward0(DotBackward0(Acc, TBackward0(Acc)), Acc)",
    ),
    "vector_weight_batch3": (
        (4, 2, 3),
        None,
        (3,),
        None,
        "UnsafeViewBackward0(MvBackward0(ViewBackward0(Acc), TBackward0(Acc)))",
    ),
    "empty_rows": ((0, 3), None, (5, 3), (5,), ALL),
    "empty_batch3": ((0, 2, 3), None, (5, 3), (5,), FLAT),
    "no_features": ((2, 0), None, (5, 0), (5,), ALL),
}


def _inputs(T, case, flags=(True, True, True)):
    shape, layout, w_shape, b_shape, _ = CASES[case]
    x = _make(T, shape, flags[0], layout, seed=1)
    w = _make(T, w_shape, flags[1], seed=2)
    b = None if b_shape is None else _make(T, b_shape, flags[2], seed=3)
    return x, w, b


@pytest.mark.parametrize("case", sorted(CASES))
def test_graph_is_pytorchs(case):
    x, w, b = _inputs(symgrad, case)
    assert tree(F.linear(x, w, b).grad_fn) == CASES[case][-1]


# which inputs require grad -> the graph, for a matrix and for a batch of matrices
FLAGS = {
    (True, True, True): ("AddmmBackward0(Acc, Acc, TBackward0(Acc))", FLAT),
    (True, True, False): (
        "AddmmBackward0(None, Acc, TBackward0(Acc))",
        "ViewBackward0(AddmmBackward0(None, ViewBackward0(Acc), TBackward0(Acc)))",
    ),
    (True, False, True): (
        "AddmmBackward0(Acc, Acc, None)",
        "ViewBackward0(AddmmBackward0(Acc, ViewBackward0(Acc), None))",
    ),
    (True, False, False): (
        "AddmmBackward0(None, Acc, None)",
        "ViewBackward0(AddmmBackward0(None, ViewBackward0(Acc), None))",
    ),
    (False, True, True): (
        "AddmmBackward0(Acc, None, TBackward0(Acc))",
        "ViewBackward0(AddmmBackward0(Acc, None, TBackward0(Acc)))",
    ),
    (False, True, False): (
        "AddmmBackward0(None, None, TBackward0(Acc))",
        "ViewBackward0(AddmmBackward0(None, None, TBackward0(Acc)))",
    ),
    (False, False, True): (
        "AddmmBackward0(Acc, None, None)",
        "ViewBackward0(AddmmBackward0(Acc, None, None))",
    ),
    (False, False, False): ("None", "None"),
}


@pytest.mark.parametrize("flags", sorted(FLAGS))
@pytest.mark.parametrize("case", ["matrix", "batch3"])
def test_graph_for_each_input_requiring_grad(case, flags):
    x, w, b = _inputs(symgrad, case, flags)
    assert tree(F.linear(x, w, b).grad_fn) == FLAGS[flags][case == "batch3"]


def test_no_grad_records_nothing_and_a_batch_is_a_view_of_the_product():
    x, w, b = _inputs(symgrad, "batch3")
    with symgrad.no_grad():
        y = F.linear(x, w, b)
    assert y.grad_fn is None and y._base is not None and y.is_contiguous()


W = [[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]]
B = [0.5, 0.0, -1.0]


def _leaves(x):
    return (
        symgrad.tensor(x, dtype=symgrad.float64, requires_grad=True),
        symgrad.tensor(W, dtype=symgrad.float64, requires_grad=True),
        symgrad.tensor(B, dtype=symgrad.float64, requires_grad=True),
    )


def test_values_gradients_and_second_derivatives():
    x, w, b = _leaves([[1.0, 2.0]])
    y = F.linear(x, w, b)
    assert y.tolist() == [[1.5, 3.0, 3.0]]
    gx, gw, gb = symgrad.autograd.grad((y**2).sum(), (x, w, b), create_graph=True)
    assert gx.tolist() == [[9.0, 18.0]]
    assert gw.tolist() == [[3.0, 6.0], [6.0, 12.0], [6.0, 12.0]]
    assert gb.tolist() == [3.0, 6.0, 6.0]
    second = symgrad.autograd.grad(gx.sum(), (x, w, b))
    assert [s.tolist() for s in second] == [
        [[6.0, 12.0]],
        [[5.0, 7.0], [10.0, 14.0], [10.0, 14.0]],
        [2.0, 4.0, 4.0],
    ]


def test_batch_values_and_gradients():
    x, w, b = _leaves([[[1.0, 2.0]], [[0.0, -1.0]]])
    y = F.linear(x, w, b)
    assert y.tolist() == [[[1.5, 3.0, 3.0]], [[0.5, -1.0, -3.0]]]
    y.sum().backward()
    assert x.grad.tolist() == [[[2.0, 3.0]], [[2.0, 3.0]]]
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    assert b.grad.tolist() == [2.0, 2.0, 2.0]


def test_forward_mode_tangent():
    x, w, b = _leaves([[1.0, 2.0]])
    primals = (x.detach(), w.detach(), b.detach())
    tangents = (symgrad.ones(1, 2, dtype=symgrad.float64),) + tuple(
        symgrad.zeros_like(p) for p in primals[1:]
    )
    _, tangent = symgrad.func.jvp(F.linear, primals, tangents)
    assert tangent.tolist() == [[1.0, 2.0, 2.0]]  # the input's tangent times weight.T


def test_linear_module_records_addmm_over_the_transposed_weight():
    layer = nn.Linear(3, 2, dtype=symgrad.float64)
    y = layer(symgrad.ones(4, 3, dtype=symgrad.float64))
    assert tree(y.grad_fn) == "AddmmBackward0(Acc, None, TBackward0(Acc))"
    t_node = y.grad_fn.next_functions[2][0]
    assert t_node.next_functions[0][0].variable is layer.weight
    assert y.grad_fn.next_functions[0][0].variable is layer.bias


def test_the_weights_gradient_is_kept_without_a_copy():
    layer = nn.Linear(3, 2, dtype=symgrad.float64)
    x = symgrad.tensor(np.arange(12.0).reshape(4, 3))
    layer(x).sum().backward()
    g = layer.weight.grad._data
    assert g.base is None and g.flags.c_contiguous  # the product's own array
    first = np.tile(x.numpy().sum(0), (2, 1))
    np.testing.assert_array_equal(g, first)
    layer(x).sum().backward()
    assert layer.weight.grad._data is g  # accumulated in place
    np.testing.assert_array_equal(g, 2 * first)


def test_a_gradient_someone_else_holds_is_copied():
    """Through ``t()`` a leaf gets the array a rule made only when no one else refers to it."""
    from symgrad.ops.transposes import _SOLE, _whole_array

    held = np.arange(6.0).reshape(2, 3)
    assert _whole_array(held.T.T, _SOLE) is not held
    incoming = np.arange(6.0).reshape(2, 3).copy().T
    assert _whole_array(incoming.T, _SOLE) is incoming.base
    assert _whole_array(incoming, _SOLE) is incoming  # a transposed layout: kept a view


def test_a_user_transposed_weight_in_mm_gets_a_row_major_gradient():
    w = symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    x = symgrad.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    (x @ w).sum().backward()
    assert w.grad.tolist() == [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]
    v = symgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    (symgrad.ones(4, 2) @ v.t()).sum().backward()
    assert v.grad.tolist() == [[4.0, 4.0], [4.0, 4.0], [4.0, 4.0]]
    assert v.grad._data.flags.c_contiguous


@pytest.mark.parametrize("shape", [(), (3,)])
def test_t_of_a_vector_or_number_is_a_view_with_a_node(shape):
    x = symgrad.ones(shape, requires_grad=True)
    y = x.t()
    assert y.grad_fn.name() == "TBackward0" and y._base is x and y.shape == x.shape
    (y * 2).sum().backward()
    assert x.grad.tolist() == (2.0 if not shape else [2.0, 2.0, 2.0])


ERRORS = {
    "number_input": (lambda T: ((), (5, 3), (5,)), RuntimeError),
    "number_weight": (lambda T: ((3,), (), None), RuntimeError),
    "weight_3d": (lambda T: ((2, 3), (2, 5, 3), None), RuntimeError),
    "vector_weight_with_bias": (lambda T: ((2, 3), (3,), (5,)), RuntimeError),
    "sizes": (lambda T: ((2, 4), (5, 3), (5,)), RuntimeError),
    "sizes_no_bias": (lambda T: ((2, 4), (5, 3), None), RuntimeError),
    "sizes_batch3": ((lambda T: ((2, 2, 4), (5, 3), (5,))), RuntimeError),
    "sizes_vector": ((lambda T: ((4,), (5, 3), (5,))), RuntimeError),
    "sizes_vector_weight": ((lambda T: ((2, 4), (3,), None)), RuntimeError),
    "bias_size": ((lambda T: ((2, 3), (5, 3), (4,))), RuntimeError),
    "bias_size_batch3": ((lambda T: ((2, 2, 3), (5, 3), (4,))), RuntimeError),
    "bias_3d": ((lambda T: ((2, 3), (5, 3), (1, 2, 5))), RuntimeError),
    "bias_larger_than_output": ((lambda T: ((4, 2, 3), (5, 3), (3, 4, 2, 5))), RuntimeError),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    shapes, error = ERRORS[case]
    x, w, b = (None if s is None else _make(symgrad, s) for s in shapes(symgrad))
    with pytest.raises(error):
        F.linear(x, w, b)


@pytest.mark.parametrize("which", ["input", "bias"])
def test_dtype_mismatch_names_the_operands(which):
    x, w, b = _inputs(symgrad, "matrix")
    if which == "input":
        x = x.float()
    else:
        b = b.float()
    with pytest.raises(RuntimeError, match="mat1 and mat2" if which == "input" else "self and"):
        F.linear(x, w, b)


# -- against PyTorch ------------------------------------------------------------------------------


def _both(case, flags=(True, True, True)):
    torch = pytest.importorskip("torch")
    return [(T, *_inputs(T, case, flags)) for T in (symgrad, torch)]


def _numpy(t):
    return None if t is None else np.asarray(t.detach().numpy())


def _derivatives(T, x, w, b):
    """The output, the first derivatives of a weighted sum of its squares and the second
    derivatives of a weighted sum of those."""
    y = F.linear(x, w, b) if T is symgrad else T.nn.functional.linear(x, w, b)
    leaves = [t for t in (x, w, b) if t is not None and t.requires_grad]
    if not leaves:
        return y, [], []
    v = T.tensor(np.linspace(-1, 1, y.numel()).reshape(y.shape), dtype=T.float64)
    first = T.autograd.grad((y * y * v).sum(), leaves, create_graph=True)
    total = sum((g * g).sum() for g in first)
    second = T.autograd.grad(total, leaves, allow_unused=True)
    return y, first, second


@pytest.mark.parametrize("case", sorted(CASES))
def test_against_pytorch(case):
    (_, *ours), (torch, *theirs) = _both(case)
    assert tree(F.linear(*ours).grad_fn) == tree(torch.nn.functional.linear(*theirs).grad_fn)
    assert tree(F.linear(*ours).grad_fn) == CASES[case][-1]
    y, first, second = _derivatives(symgrad, *ours)
    ty, tfirst, tsecond = _derivatives(torch, *theirs)
    np.testing.assert_allclose(_numpy(y), _numpy(ty), rtol=1e-12, atol=1e-12)
    for a, b in zip(first + second, tfirst + tsecond):
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("flags", list(itertools.product([True, False], repeat=3)))
@pytest.mark.parametrize(
    "case", ["matrix", "vector", "batch3", "batch3_no_bias", "batch3_transposed"]
)
def test_against_pytorch_for_each_input_requiring_grad(case, flags):
    (_, *ours), (torch, *theirs) = _both(case, flags)
    y, first, second = _derivatives(symgrad, *ours)
    ty, tfirst, tsecond = _derivatives(torch, *theirs)
    assert tree(y.grad_fn) == tree(ty.grad_fn)
    np.testing.assert_allclose(_numpy(y), _numpy(ty), rtol=1e-12, atol=1e-12)
    for a, b in zip(first + second, tfirst + tsecond):
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_against_pytorch(case):
    torch = pytest.importorskip("torch")
    shapes, error = ERRORS[case]
    x, w, b = (None if s is None else _make(torch, s) for s in shapes(torch))
    with pytest.raises(error):
        torch.nn.functional.linear(x, w, b)


def test_linear_module_training_step_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    w, b = rng.standard_normal((2, 3)), rng.standard_normal(2)
    x = rng.standard_normal((5, 4, 3))
    grads = []
    for T in (symgrad, torch):
        layer = T.nn.Linear(3, 2, dtype=T.float64)
        with T.no_grad():
            layer.weight.copy_(T.tensor(w))
            layer.bias.copy_(T.tensor(b))
        out = layer(T.tensor(x, dtype=T.float64))
        out.tanh().sum().backward()
        grads.append((tree(out.grad_fn), _numpy(layer.weight.grad), _numpy(layer.bias.grad)))
    assert grads[0][0] == grads[1][0] == FLAT.replace("ViewBackward0(Acc)", "None", 1)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)
    np.testing.assert_allclose(grads[0][2], grads[1][2], rtol=1e-12)
