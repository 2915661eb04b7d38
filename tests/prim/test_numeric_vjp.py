"""A structural primitive's ``numeric_vjp`` (the engine's NumPy shortcut) gives ``vjp``'s
gradients on NumPy bit for bit: every fused loss, every reduction, with weights, broadcast
targets, float32 and float64, and gradients that hold inf and nan; the matrix products
(``mm``, ``addmm`` and linear) with every operand needing a gradient or not, row- and
column-major, ``softmax`` and ``log_softmax`` along every dim, and the calls the shortcut
leaves to the rule."""

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.ops import losses
from symgrad.prim.primitive import Primitive
from symgrad.prim.structural import Structural

REDUCTIONS = ("mean", "sum", "none")


def _inputs(dtype, unit=False, shape=(3, 4)):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    if unit:
        x = 1 / (1 + np.exp(-x))
    y = rng.uniform(0, 1, shape)
    return (
        symgrad.tensor(x.astype(dtype), requires_grad=True),
        symgrad.tensor(y.astype(dtype), requires_grad=True),
    )


def _losses(dtype, reduction):
    x, y = _inputs(dtype)
    p, t = _inputs(dtype, unit=True)
    w = symgrad.tensor(np.linspace(0.5, 2, 4).astype(dtype))
    pos = symgrad.tensor(np.linspace(1, 3, 4).astype(dtype), requires_grad=True)
    yield "bce_with_logits", F.binary_cross_entropy_with_logits(x, y, reduction=reduction)
    yield (
        "bce_with_logits weight",
        F.binary_cross_entropy_with_logits(x, y, weight=w, reduction=reduction),
    )
    yield (
        "bce_with_logits pos_weight",
        F.binary_cross_entropy_with_logits(x, y, pos_weight=pos, reduction=reduction),
    )
    yield "bce", F.binary_cross_entropy(p, t.detach(), reduction=reduction)
    yield "bce weight", F.binary_cross_entropy(p, t.detach(), weight=w, reduction=reduction)
    yield "mse", F.mse_loss(x, y, reduction=reduction)
    with pytest.warns(UserWarning, match="different to the input size"):
        broadcast = F.mse_loss(x, y[:1], reduction=reduction)
    yield "mse broadcast target", broadcast
    yield "smooth_l1", F.smooth_l1_loss(x, y, reduction=reduction, beta=0.5)
    yield "huber", F.huber_loss(x, y, reduction=reduction, delta=0.7)
    yield "soft_margin", F.soft_margin_loss(x, symgrad.sign(y.detach() - 0.5), reduction=reduction)


CASES = [
    (dtype, reduction, name)
    for dtype in (np.float32, np.float64)
    for reduction in REDUCTIONS
    for name, _ in _losses(dtype, reduction)
]


def _same_as_the_rule(node, dtype, shape=None):
    assert isinstance(node.prim, Structural) and node.prim.numeric_vjp is not None
    rng = np.random.default_rng(1)
    shape = _out_shape(node) if shape is None else shape
    g = rng.standard_normal(shape).astype(dtype)
    if g.size > 2:
        g.flat[0], g.flat[1] = np.inf, np.nan
    with np.errstate(all="ignore"):  # (as the engine runs the rules: inf - inf is nan)
        fast = node.prim.apply(node, [g], False)
        general = Primitive.apply(node.prim, node, [g], False)
    assert len(fast) == len(general)
    for a, b in zip(fast, general):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.shape == b.shape and a.dtype == b.dtype and a.strides == b.strides
            np.testing.assert_array_equal(a, b, strict=True)


def _out_shape(node):
    """The output shape of a node that saved no output (a product's, a loss's)."""
    if node._out is not None:
        return node._out.shape
    if node.prim.name in ("matmul", "addmm"):
        (m, _), (_, n) = node._meta[-2][0], node._meta[-1][0]
        return (m, n)
    shape, reduction = node.params["shape"], node.params["reduction"]
    return tuple(shape) if reduction == "none" else ()


@pytest.mark.parametrize("dtype,reduction,name", CASES)
def test_numeric_vjp_is_vjp_bit_for_bit(dtype, reduction, name):
    _same_as_the_rule(dict(_losses(dtype, reduction))[name].grad_fn, dtype)


def _products(dtype):
    rng = np.random.default_rng(2)

    def t(*shape, grad=True):
        return symgrad.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=grad)

    a, b, bias = t(4, 5), t(5, 3), t(3)
    yield "mm", symgrad.mm(a, b)
    yield "mm first only", symgrad.mm(a, t(5, 3, grad=False))
    yield "mm second only", symgrad.mm(t(4, 5, grad=False), b)
    yield "mm column-major", symgrad.mm(a, t(3, 5).t())
    yield "matmul vector", symgrad.matmul(t(5, grad=False), b).grad_fn.next_functions[0][0]
    yield "linear", F.linear(a, t(3, 5), bias)
    yield "linear no input grad", F.linear(t(4, 5, grad=False), t(3, 5), bias)
    yield "addmm row-major", symgrad.addmm(bias, a, b)
    yield "addmm bias row", symgrad.addmm(t(1, 3), a, b)
    yield "addmm bias matrix", symgrad.addmm(t(4, 3), a, b)
    yield "addmm bias column", symgrad.addmm(t(4, 1), a, b)
    yield "addmm scaled", symgrad.addmm(bias, a, b, beta=0.5, alpha=2.0)
    cube = t(3, 4, 5)
    for dim in (0, 1, -1):
        yield f"softmax dim {dim}", symgrad.softmax(cube, dim)
        yield f"log_softmax dim {dim}", symgrad.log_softmax(cube, dim)
    yield "softmax of a vector", symgrad.softmax(t(7), 0)
    yield "softmax of a number", symgrad.softmax(t(), 0)


PRODUCTS = [(dtype, name) for dtype in (np.float32, np.float64) for name, _ in _products(dtype)]


@pytest.mark.parametrize("dtype,name", PRODUCTS)
def test_products_numeric_vjp_is_vjp_bit_for_bit(dtype, name):
    made = dict(_products(dtype))[name]
    if isinstance(made, symgrad.Tensor):
        _same_as_the_rule(made.grad_fn, dtype, tuple(made.shape))
    else:  # a node inside a graph
        _same_as_the_rule(made, dtype)


def test_every_fused_loss_declares_a_numeric_vjp():
    fused = [v for v in vars(losses).values() if isinstance(v, Structural) and v.formula]
    assert len(fused) >= 7
    assert all(prim.numeric_vjp is not None for prim in fused)


def test_create_graph_still_records_the_rule():
    x, y = _inputs(np.float64)
    loss = F.binary_cross_entropy_with_logits(x, y)
    (gx,) = symgrad.autograd.grad(loss, x, create_graph=True)
    assert gx.grad_fn is not None
    (gx_plain,) = symgrad.autograd.grad(F.binary_cross_entropy_with_logits(x, y), x)
    np.testing.assert_array_equal(gx.detach().numpy(), gx_plain.numpy())


def _views(dtype):
    x = symgrad.tensor(np.arange(24.0, dtype=dtype).reshape(2, 3, 4), requires_grad=True)
    col = symgrad.tensor(np.arange(3.0, dtype=dtype).reshape(3, 1), requires_grad=True)
    yield "view", x.view(6, 4)
    yield "reshape of a transposed", x.transpose(0, 2).reshape(-1)
    yield "flatten", x.flatten()
    yield "squeeze", col.squeeze()
    yield "squeeze dim", col.squeeze(1)
    yield "squeeze dims", col.squeeze((1,))
    yield "squeeze_ of a product", symgrad.matmul(symgrad.ones(3, dtype=x.dtype), col)
    yield "t of a vector", col.view(3).t()
    v = symgrad.tensor(np.arange(6.0, dtype=dtype), requires_grad=True)
    with pytest.warns(UserWarning, match="resize_as is deprecated"):
        resized = v.resize_as(symgrad.ones(2, 3))
    yield "resize_as", resized


VIEWS = [(dtype, name) for dtype in (np.float32, np.float64) for name, _ in _views(dtype)]


@pytest.mark.parametrize("dtype,name", VIEWS)
def test_views_numeric_vjp_is_vjp_bit_for_bit(dtype, name):
    out = dict(_views(dtype))[name]
    _same_as_the_rule(out.grad_fn, dtype, tuple(out.shape))
