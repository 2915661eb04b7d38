"""PyTorch's semantics that finite differences cannot see: subgradients at kinks, result dtypes
and the errors raised for bad shapes and indices.

Expected values are written by hand from PyTorch's documented behaviour; where PyTorch is
importable, a second test confirms each expectation against it.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F


def _grads(T, fn, *values):
    """The gradients of ``fn(*inputs).sum()`` for float64 leaves holding ``values``."""
    xs = [T.tensor(v, dtype=T.float64, requires_grad=True) for v in values]
    fn(T, *xs).sum().backward()
    return [x.grad.detach().numpy() for x in xs]


def _assert_grads(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a, np.array(e), rtol=1e-15, atol=0)


# -- subgradients at kinks -------------------------------------------------------------------------
# (name, fn(T, *inputs), input values, expected gradients)
KINKS = [
    ("relu_at_0", lambda T, x: T.relu(x), ([-1.0, 0.0, 2.0],), [[0.0, 0.0, 1.0]]),
    ("F_relu_at_0", lambda T, x: T.nn.functional.relu(x), ([0.0],), [[0.0]]),
    ("abs_at_0", lambda T, x: T.abs(x), ([-1.0, 0.0, 2.0],), [[-1.0, 0.0, 1.0]]),
    ("sign_anywhere", lambda T, x: T.sign(x), ([-1.0, 0.0, 2.0],), [[0.0, 0.0, 0.0]]),
    ("leaky_relu_at_0", lambda T, x: T.nn.functional.leaky_relu(x, 0.1), ([0.0],), [[0.1]]),
    ("elu_at_0", lambda T, x: T.nn.functional.elu(x, 0.5), ([0.0],), [[0.5]]),
    (
        "clamp_at_bounds",
        lambda T, x: T.clamp(x, -0.5, 0.5),
        ([-1.0, -0.5, 0.0, 0.5, 1.0],),
        [[0.0, 1.0, 1.0, 1.0, 0.0]],
    ),
    ("clamp_min_at_bound", lambda T, x: x.clamp(min=0.5), ([0.0, 0.5, 1.0],), [[0.0, 1.0, 1.0]]),
    ("clamp_max_at_bound", lambda T, x: x.clamp(max=0.5), ([0.0, 0.5, 1.0],), [[1.0, 1.0, 0.0]]),
    (
        "clamp_tensor_min_tie",
        lambda T, x, m: T.clamp(x, min=m),
        ([0.5, 1.0, 0.0], [0.5, 0.5, 0.5]),
        [[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    ),
    (
        "clamp_tensor_max_tie",
        lambda T, x, m: T.clamp(x, max=m),
        ([0.5, 1.0, 0.0], [0.5, 0.5, 0.5]),
        [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]],
    ),
    (
        "maximum_tie",
        lambda T, x, y: T.maximum(x, y),
        ([1.0, 2.0, 3.0], [1.0, 1.0, 4.0]),
        [[0.5, 1.0, 0.0], [0.5, 0.0, 1.0]],
    ),
    (
        "minimum_tie",
        lambda T, x, y: T.minimum(x, y),
        ([1.0, 2.0, 3.0], [1.0, 1.0, 4.0]),
        [[0.5, 0.0, 1.0], [0.5, 1.0, 0.0]],
    ),
    ("amax_ties", lambda T, x: x.amax(), ([1.0, 3.0, 3.0, 2.0],), [[0.0, 0.5, 0.5, 0.0]]),
    (
        "amax_dim_ties",
        lambda T, x: x.amax(1),
        ([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]],),
        [[[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]]],
    ),
    (
        "amin_ties_keepdim",
        lambda T, x: x.amin(-1, keepdim=True),
        ([[0.0, 1.0, 0.0]],),
        [[[0.5, 0.0, 0.5]]],
    ),
    ("max_all_ties", lambda T, x: x.max(), ([1.0, 3.0, 3.0, 2.0],), [[0.0, 0.5, 0.5, 0.0]]),
    ("min_all_ties", lambda T, x: x.min(), ([1.0, 0.0, 0.0, 2.0],), [[0.0, 0.5, 0.5, 0.0]]),
    ("norm_inf_ties", lambda T, x: x.norm(p=float("inf")), ([-2.0, 1.0, 2.0],), [[-0.5, 0.0, 0.5]]),
    ("norm_at_0", lambda T, x: x.norm(), ([0.0, 0.0, 0.0],), [[0.0, 0.0, 0.0]]),
    (
        "norm_dim_zero_row",
        lambda T, x: x.norm(dim=1),
        ([[0.0, 0.0], [3.0, 4.0]],),
        [[[0.0, 0.0], [0.6, 0.8]]],
    ),
    ("pow_0_at_0", lambda T, x: x**0, ([0.0, 2.0],), [[0.0, 0.0]]),
    (
        "pow_tensor_exponent_at_0",
        lambda T, x, y: x**y,
        ([0.0, 0.0, 0.0], [0.0, 2.0, 1.0]),
        [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]],
    ),
    ("prod_one_zero", lambda T, x: x.prod(), ([0.0, 2.0, 3.0],), [[6.0, 0.0, 0.0]]),
    ("prod_two_zeros", lambda T, x: x.prod(), ([0.0, 0.0, 3.0],), [[0.0, 0.0, 0.0]]),
    (
        "l1_loss_tie",
        lambda T, x: T.nn.functional.l1_loss(x, T.zeros(2, dtype=T.float64)),
        ([0.0, 1.0],),
        [[0.0, 0.5]],
    ),
]


@pytest.mark.parametrize("name, fn, values, expected", KINKS, ids=[k[0] for k in KINKS])
def test_subgradient_at_kink(name, fn, values, expected):
    _assert_grads(_grads(symgrad, fn, *values), expected)


@pytest.mark.torch
@pytest.mark.parametrize("name, fn, values, expected", KINKS, ids=[k[0] for k in KINKS])
def test_kink_expectations_are_pytorchs(name, fn, values, expected):
    torch = pytest.importorskip("torch")
    _assert_grads(_grads(torch, fn, *values), expected)


@pytest.mark.parametrize("dim, keepdim", [(1, False), (-1, True), (0, False)])
def test_max_along_dim_sends_the_gradient_to_the_selected_index(dim, keepdim):
    data = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0], [5.0, -1.0, 5.0]])
    x = symgrad.tensor(data, dtype=symgrad.float64, requires_grad=True)
    values, indices = symgrad.max(x, dim, keepdim=keepdim)
    g = np.arange(1.0, 4.0).reshape(values.shape)
    values.backward(symgrad.tensor(g, dtype=symgrad.float64))
    d = dim % 2
    idx = indices.numpy() if keepdim else np.expand_dims(indices.numpy(), d)
    # the first of tied maxima, as NumPy's and PyTorch's CPU argmax choose
    np.testing.assert_array_equal(idx, np.expand_dims(np.argmax(data, axis=d), d))
    expected = np.zeros_like(data)
    np.put_along_axis(expected, idx, g if keepdim else np.expand_dims(g, d), axis=d)
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    assert indices.dtype is symgrad.int64


def test_min_along_dim_sends_the_gradient_to_the_selected_index():
    x = symgrad.tensor(
        [[1.0, 0.0, 0.0], [2.0, 2.0, 3.0]], dtype=symgrad.float64, requires_grad=True
    )
    values, indices = x.min(1)
    values.sum().backward()
    assert indices.tolist() == [1, 0]
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]


def test_where_gives_no_gradient_to_the_branch_not_taken():
    x = symgrad.tensor([-1.0, 2.0], requires_grad=True)
    y = symgrad.tensor([5.0, 7.0], requires_grad=True)
    symgrad.where(x > 0, x, y).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]
    assert y.grad.tolist() == [1.0, 0.0]


def test_variance_without_degrees_of_freedom_has_a_nan_gradient():
    x = symgrad.tensor([[1.0, 2.0]], dtype=symgrad.float64, requires_grad=True)
    with pytest.warns(UserWarning, match="degrees of freedom"):
        v = x[:, :1].var(1)
    v.sum().backward()
    assert np.isnan(v.item())
    assert np.isnan(x.grad[0, 0].item()) and x.grad[0, 1].item() == 0.0


@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_cross_entropy_with_every_target_ignored_is_nan_with_zero_gradient(label_smoothing):
    x = symgrad.tensor(
        [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], dtype=symgrad.float64, requires_grad=True
    )
    loss = F.cross_entropy(
        x, symgrad.tensor([2, 2]), ignore_index=2, label_smoothing=label_smoothing
    )
    loss.backward()
    assert np.isnan(loss.item())
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 1, 7])
def test_cross_entropy_records_log_softmax_and_nll_loss(reduction, ignore_index):
    # the common case is computed in one go: it must give what the two ops give one by one
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((5, 4))
    target = symgrad.tensor([0, 1, 3, 1, 2])

    def run(fn):
        x = symgrad.tensor(logits, requires_grad=True)
        loss = fn(x)
        loss.sum().backward()
        nll = loss.grad_fn
        names = (nll.name(), nll.next_functions[0][0].name())
        return loss.detach().numpy(), x.grad.numpy(), names

    fused = run(
        lambda x: F.cross_entropy(x, target, ignore_index=ignore_index, reduction=reduction)
    )
    stepwise = run(
        lambda x: F.nll_loss(
            F.log_softmax(x, 1), target, ignore_index=ignore_index, reduction=reduction
        )
    )
    np.testing.assert_array_equal(fused[0], stepwise[0])
    np.testing.assert_array_equal(fused[1], stepwise[1])
    assert fused[2] == stepwise[2] == ("NllLossBackward0", "LogSoftmaxBackward0")


@pytest.mark.parametrize("fn", [F.cross_entropy, F.nll_loss])
def test_class_losses_name_an_argument_that_is_not_a_tensor(fn):
    x = symgrad.zeros(3, 4)
    with pytest.raises(TypeError, match="argument 'target' must be a Tensor, not list"):
        fn(x, [0, 1, 2])
    with pytest.raises(TypeError, match="argument 'input' must be a Tensor, not list"):
        fn([[0.0] * 4] * 3, symgrad.tensor([0, 1, 2]))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize(
    "fn", [lambda x: symgrad.where(x > 0, x, 0.0), symgrad.relu], ids=["where", "relu"]
)
def test_a_masked_gradient_stays_zero_when_the_incoming_gradient_is_infinite(fn):
    x = symgrad.tensor([1.0, -1.0], requires_grad=True)
    fn(x).backward(symgrad.tensor([float("inf"), float("inf")]))
    assert x.grad.tolist() == [float("inf"), 0.0]


# -- result dtypes ---------------------------------------------------------------------------------
def _operands(T):
    return {
        "f32": T.ones(2),
        "f64": T.ones(2, dtype=T.float64),
        "i64": T.tensor([1, 2]),
        "i32": T.tensor([1, 2], dtype=T.int32),
        "b": T.tensor([True, False]),
    }


# (expression over the operands o and module T, expected dtype name)
DTYPES = [
    ("f32 * 2.5", lambda T, o: o["f32"] * 2.5, "float32"),
    ("2.5 * f32", lambda T, o: 2.5 * o["f32"], "float32"),
    ("f32 + 1", lambda T, o: o["f32"] + 1, "float32"),
    ("f32 ** 2.0", lambda T, o: o["f32"] ** 2.0, "float32"),
    ("2 ** f32", lambda T, o: 2 ** o["f32"], "float32"),
    ("f32 / 3", lambda T, o: o["f32"] / 3, "float32"),
    ("f32 + f64", lambda T, o: o["f32"] + o["f64"], "float64"),
    ("f64 * 2.5", lambda T, o: o["f64"] * 2.5, "float64"),
    ("i64 * 2.5", lambda T, o: o["i64"] * 2.5, "float32"),
    ("2.5 * i64", lambda T, o: 2.5 * o["i64"], "float32"),
    ("i32 * 2.5", lambda T, o: o["i32"] * 2.5, "float32"),
    ("i64 + 1", lambda T, o: o["i64"] + 1, "int64"),
    ("i64 * i64", lambda T, o: o["i64"] * o["i64"], "int64"),
    ("i32 + i64", lambda T, o: o["i32"] + o["i64"], "int64"),
    ("i64 / i64", lambda T, o: o["i64"] / o["i64"], "float32"),
    ("i64 ** 2", lambda T, o: o["i64"] ** 2, "int64"),
    ("i64 ** 0.5", lambda T, o: o["i64"] ** 0.5, "float32"),
    ("i64 + f32", lambda T, o: o["i64"] + o["f32"], "float32"),
    ("i64 + f64", lambda T, o: o["i64"] + o["f64"], "float64"),
    ("b + 1", lambda T, o: o["b"] + 1, "int64"),
    ("b * 1.5", lambda T, o: o["b"] * 1.5, "float32"),
    ("exp(i64)", lambda T, o: T.exp(o["i64"]), "float32"),
    ("sqrt(i64)", lambda T, o: T.sqrt(o["i64"]), "float32"),
    ("sigmoid(i64)", lambda T, o: T.sigmoid(o["i64"]), "float32"),
    ("sin(i64)", lambda T, o: T.sin(o["i64"]), "float32"),
    ("log(b)", lambda T, o: T.log(o["b"][:1]), "float32"),
    ("abs(i64)", lambda T, o: T.abs(o["i64"]), "int64"),
    ("-i64", lambda T, o: -o["i64"], "int64"),
    ("relu(i64)", lambda T, o: T.relu(o["i64"]), "int64"),
    ("clamp(i64, 0, 1)", lambda T, o: T.clamp(o["i64"], 0, 1), "int64"),
    ("clamp(i64, 0.5, 1.5)", lambda T, o: T.clamp(o["i64"], 0.5, 1.5), "float32"),
    ("maximum(i64, f32)", lambda T, o: T.maximum(o["i64"], o["f32"]), "float32"),
    ("where(b, f32, f64)", lambda T, o: T.where(o["b"], o["f32"], o["f64"]), "float64"),
    ("f32 > 0", lambda T, o: o["f32"] > 0, "bool"),
    ("i64 == i64", lambda T, o: o["i64"] == o["i64"], "bool"),
    ("f32 != 1", lambda T, o: o["f32"] != 1, "bool"),
    ("i64 < f32", lambda T, o: o["i64"] < o["f32"], "bool"),
    ("sum(i64)", lambda T, o: o["i64"].sum(), "int64"),
    ("sum(i32)", lambda T, o: o["i32"].sum(), "int64"),
    ("sum(b)", lambda T, o: o["b"].sum(), "int64"),
    ("sum(i64, 0)", lambda T, o: T.sum(o["i64"], 0), "int64"),
    ("sum(f32)", lambda T, o: o["f32"].sum(), "float32"),
    ("mean(f32)", lambda T, o: o["f32"].mean(), "float32"),
    ("softmax(f32)", lambda T, o: T.softmax(o["f32"], 0), "float32"),
    ("matmul(i64, i64)", lambda T, o: o["i64"] @ o["i64"], "int64"),
    ("cat(i64, f32)", lambda T, o: T.cat([o["i64"], o["f32"]]), "float32"),
    ("cat(f32, f64)", lambda T, o: T.cat([o["f32"], o["f64"]]), "float64"),
]


def _dtype_name(t) -> str:
    return str(t.dtype).rsplit(".", 1)[-1]


@pytest.mark.parametrize("name, fn, expected", DTYPES, ids=[d[0] for d in DTYPES])
def test_result_dtype(name, fn, expected):
    assert _dtype_name(fn(symgrad, _operands(symgrad))) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name, fn, expected", DTYPES, ids=[d[0] for d in DTYPES])
def test_dtype_expectations_are_pytorchs(name, fn, expected):
    torch = pytest.importorskip("torch")
    assert _dtype_name(fn(torch, _operands(torch))) == expected


def test_integer_tensor_with_float_follows_the_default_dtype():
    symgrad.set_default_dtype(symgrad.float64)
    assert (symgrad.tensor([1, 2]) * 2.5).dtype is symgrad.float64
    assert symgrad.exp(symgrad.tensor([1, 2])).dtype is symgrad.float64
    assert (symgrad.ones(2, dtype=symgrad.float32) * 2.5).dtype is symgrad.float32


def test_clamp_of_integers_with_float_bounds_keeps_the_fractions():
    assert symgrad.clamp(symgrad.tensor([0, 1, 5]), 0.5, 2.5).tolist() == [0.5, 1.0, 2.5]


def test_float32_gradients_stay_float32():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    (x * 2.5 + symgrad.exp(x)).sum().backward()
    assert x.grad.dtype is symgrad.float32


def test_gradient_reaching_a_float32_input_from_float64_math_is_float32():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    w = symgrad.tensor([0.5, 0.25], dtype=symgrad.float64)
    y = x * w
    assert y.dtype is symgrad.float64
    y.sum().backward()
    assert x.grad.dtype is symgrad.float32
    assert x.grad.tolist() == [0.5, 0.25]


# -- errors ----------------------------------------------------------------------------------------
def _t(*shape):
    return symgrad.ones(shape)


# (name, call, exception type, fragments the message must contain)
ERRORS = [
    ("matmul_inner", lambda: _t(2, 3) @ _t(4, 5), RuntimeError, ["[2, 3]", "[4, 5]"]),
    ("matmul_vectors", lambda: symgrad.matmul(_t(3), _t(4)), RuntimeError, ["3", "4"]),
    (
        "matmul_batch",
        lambda: symgrad.matmul(_t(2, 2, 3), _t(3, 3, 4)),
        RuntimeError,
        ["[2, 2, 3]", "[3, 3, 4]"],
    ),
    ("matmul_0d", lambda: symgrad.matmul(_t(), _t(3)), RuntimeError, ["1 dimension"]),
    ("mm_inner", lambda: symgrad.mm(_t(2, 3), _t(2, 3)), RuntimeError, ["[2, 3]"]),
    ("mm_rank", lambda: symgrad.mm(_t(2, 3), _t(3)), RuntimeError, ["2-D", "[3]"]),
    ("mv", lambda: symgrad.mv(_t(2, 3), _t(4)), RuntimeError, ["[2, 3]", "[4]"]),
    ("dot", lambda: symgrad.dot(_t(3), _t(4)), RuntimeError, ["3", "4"]),
    ("bmm_rank", lambda: symgrad.bmm(_t(2, 3), _t(3, 2)), RuntimeError, ["3-D", "[2, 3]"]),
    (
        "cat_sizes",
        lambda: symgrad.cat([_t(2, 3), _t(2, 4)]),
        RuntimeError,
        ["dimension 0", "[2, 3]", "[2, 4]"],
    ),
    ("cat_ndim", lambda: symgrad.cat([_t(2, 3), _t(3)], 0), RuntimeError, ["[2, 3]", "[3]"]),
    ("cat_empty", lambda: symgrad.cat([]), ValueError, ["non-empty"]),
    (
        "stack_sizes",
        lambda: symgrad.stack([_t(2, 3), _t(3, 2)]),
        RuntimeError,
        ["[2, 3]", "[3, 2]"],
    ),
    ("reshape", lambda: _t(2, 3).reshape(4), RuntimeError, ["'[4]'", "size 6"]),
    ("view_infer", lambda: _t(2, 3).view(-1, 4), RuntimeError, ["[-1, 4]", "size 6"]),
    ("expand", lambda: _t(2, 3).expand(4, 3), RuntimeError, ["[2, 3]", "[4, 3]"]),
    ("permute", lambda: _t(2, 3).permute(0, 0), RuntimeError, ["[0, 0]"]),
    ("split_sizes", lambda: _t(4).split([1, 2]), RuntimeError, ["sum exactly to 4", "[1, 2]"]),
    ("dim_out_of_range", lambda: _t(2, 3).sum(2), IndexError, ["[-2, 1]", "2"]),
    ("softmax_dim", lambda: _t(2, 3).softmax(-3), IndexError, ["[-2, 1]", "-3"]),
    (
        "masked_fill_float_mask",
        lambda: _t(2).masked_fill(_t(2), 0.0),
        RuntimeError,
        ["boolean masks", "mask with dtype float"],  # (PyTorch's C++ name of float32)
    ),
    (
        "masked_fill_mask_shape",
        lambda: _t(2, 3).masked_fill(symgrad.ones(4, dtype=symgrad.bool), 0.0),
        RuntimeError,
        ["[4]", "[2, 3]"],
    ),
    (
        "masked_fill_value_1d",
        lambda: _t(2).masked_fill(_t(2) > 0, _t(2)),
        RuntimeError,
        ["0-dimensional", "1 dimension"],
    ),
    (
        "masked_fill_value_text",
        lambda: _t(2).masked_fill(_t(2) > 0, "1"),
        TypeError,
        ["number or a 0-d Tensor", "str"],
    ),
    (
        "index_select_2d_index",
        lambda: symgrad.index_select(_t(3, 2), 0, symgrad.tensor([[0, 1]])),
        IndexError,
        ["vector", "[1, 2]"],
    ),
    (
        "index_select_float_index",
        lambda: symgrad.index_select(_t(3, 2), 0, _t(2)),
        RuntimeError,
        ["int32/int64", "float32"],
    ),
    ("norm_p", lambda: _t(3).norm("nuc"), RuntimeError, ["at least 2 dimensions"]),
    # PyTorch 2.13: RuntimeError (the inf norm of an empty tensor has no identity)
    ("norm_inf_empty", lambda: _t(0).norm(float("inf")), RuntimeError, ["norm", "dim"]),
    ("index_int", lambda: _t(3)[5], IndexError, ["5", "size 3"]),
    ("index_negative", lambda: _t(3, 2)[-4], IndexError, ["-4", "size 3"]),
    ("index_dim1", lambda: _t(3, 2)[:, 2], IndexError, ["2", "size 2"]),
    ("index_tensor", lambda: _t(3)[symgrad.tensor([0, 7])], IndexError, ["7", "size 3"]),
    ("index_too_many", lambda: _t(3)[0, 0], IndexError, ["too many indices"]),
    (
        "index_float_tensor",
        lambda: _t(3)[symgrad.tensor([0.0, 1.0])],
        IndexError,
        ["long", "bool", "float32"],
    ),
    ("index_float_number", lambda: _t(3)[1.0], IndexError, ["float"]),
    ("index_mask_shape", lambda: _t(3)[symgrad.tensor([True, False])], IndexError, ["3", "2"]),
    (
        "setitem_shape",
        lambda: _t(3, 2).__setitem__(slice(0, 2), _t(3)),
        RuntimeError,
        ["[3]", "[2, 2]"],
    ),
    (
        "gather_range",
        lambda: _t(2, 3).gather(1, symgrad.tensor([[0, 3]])),
        RuntimeError,
        ["out of bounds", "3"],
    ),
    (
        "where_condition",
        lambda: symgrad.where(_t(3), _t(3), _t(3)),
        RuntimeError,
        ["boolean", "float32"],
    ),
    ("mean_integer", lambda: symgrad.tensor([1, 2]).mean(), RuntimeError, ["floating point"]),
    (
        "cross_entropy_target",
        lambda: F.cross_entropy(_t(2, 3), symgrad.tensor([0, 3])),
        IndexError,
        ["3", "out of bounds"],
    ),
    (
        "nll_float_target",
        lambda: F.nll_loss(_t(2, 3), symgrad.tensor([0.0, 1.0])),
        RuntimeError,
        ["Long", "float32"],
    ),
    (
        "bce_range",
        lambda: F.binary_cross_entropy(symgrad.tensor([1.5]), symgrad.tensor([1.0])),
        RuntimeError,
        ["between 0 and 1"],
    ),
    (
        "bce_logits_shape",
        lambda: F.binary_cross_entropy_with_logits(_t(2, 3), _t(3)),
        ValueError,
        ["[3]", "[2, 3]"],
    ),
    (
        "reduction",
        lambda: F.mse_loss(_t(2), _t(2), reduction="avg"),
        ValueError,
        ["avg", "reduction"],
    ),
]


@pytest.mark.parametrize("name, call, kind, fragments", ERRORS, ids=[e[0] for e in ERRORS])
def test_error_message(name, call, kind, fragments):
    with pytest.raises(kind) as info:
        call()
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))


def test_broadcast_mismatch_is_a_runtime_error_naming_both_shapes():
    with pytest.raises(RuntimeError) as info:
        _t(2, 3) + _t(4)
    assert "3" in str(info.value) and "4" in str(info.value)


def test_mse_loss_warns_when_the_target_broadcasts():
    with pytest.warns(UserWarning, match="broadcasting"):
        F.mse_loss(_t(2, 3), _t(3))
