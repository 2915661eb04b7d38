"""Forward-mode rules: each primitive's ``jvp`` against central differences of its forward.

Element-wise rules come from the SymPy partials (the fused ``g * partial`` kernels with the
tangent as ``g``), linear structural ops apply themselves to the tangent, and bilinear ones
follow the product rule.
"""

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.ops.affine import _addmm
from symgrad.ops.linalg import _MATMUL
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Ctx

RNG = np.random.default_rng(7)


def _arr(*shape, lo=-1.5, hi=1.5):
    return RNG.uniform(lo, hi, shape)


def _pos(*shape):
    return _arr(*shape, lo=0.4, hi=1.8)


# (name, f(*tensors) -> tensor, input arrays): every input takes a tangent
CASES = [
    ("exp", lambda x: x.exp(), [_arr(2, 3)]),
    ("sin", lambda x: x.sin(), [_arr(4)]),
    ("tanh", lambda x: x.tanh(), [_arr(2, 2)]),
    ("sigmoid", lambda x: x.sigmoid(), [_arr(3)]),
    ("log", lambda x: x.log(), [_pos(3)]),
    ("sqrt", lambda x: x.sqrt(), [_pos(2, 2)]),
    ("mul_broadcast", lambda x, y: x * y, [_arr(2, 3), _arr(3)]),
    ("div", lambda x, y: x / y, [_arr(3), _pos(3)]),
    ("pow_number", lambda x: x**3, [_arr(3)]),
    ("pow_tensor", lambda x, y: x**y, [_pos(3), _arr(3)]),
    ("maximum", lambda x, y: symgrad.maximum(x, y), [np.array([0.1, 1.0]), np.array([0.5, -1.0])]),
    ("softplus", lambda x: F.softplus(x, beta=1.5, threshold=2.0), [_arr(4)]),
    ("clamp", lambda x: x.clamp(-0.5, 0.5), [np.array([-1.0, -0.2, 0.3, 0.9])]),
    ("remainder", lambda x, y: x % y, [_arr(2, 3, lo=-4, hi=4), np.array([0.7, -0.9, 1.3])]),
    (
        "fmod",
        lambda x, y: symgrad.fmod(x, y),
        [_arr(2, 3, lo=-4, hi=4), np.array([0.7, -0.9, 1.3])],
    ),
    ("remainder_number", lambda x: x % -0.8, [_arr(4, lo=-3, hi=3)]),
    ("sum_dim", lambda x: x.sum(1), [_arr(2, 3)]),
    ("sum_all", lambda x: x.sum(), [_arr(2, 3)]),
    ("mean", lambda x: x.mean(0, keepdim=True), [_arr(2, 3)]),
    ("reshape", lambda x: x.reshape(3, 2), [_arr(2, 3)]),
    ("transpose", lambda x: x.transpose(0, 1), [_arr(2, 3)]),
    ("t", lambda x: x.t(), [_arr(2, 3)]),
    ("permute", lambda x: x.permute(2, 0, 1), [_arr(2, 3, 4)]),
    ("expand", lambda x: x.expand(3, 2), [_arr(1, 2)]),
    ("slice", lambda x: x[:, ::2], [_arr(3, 4)]),  # (one slice: one node)
    ("select", lambda x: x[1], [_arr(3, 4)]),
    ("advanced_index", lambda x: x[[0, 2, 2]], [_arr(3, 2)]),
    ("index_select", lambda x: x.index_select(1, symgrad.tensor([2, 0])), [_arr(2, 3)]),
    ("gather", lambda x: x.gather(1, symgrad.tensor([[0, 0], [1, 0]])), [_arr(2, 3)]),
    ("flip", lambda x: x.flip(0), [_arr(3, 2)]),
    ("squeeze", lambda x: x.squeeze(1), [_arr(2, 1, 3)]),
    ("unsqueeze", lambda x: x.unsqueeze(0), [_arr(3)]),
    ("cat", lambda x, y: symgrad.cat([x, y], 0), [_arr(2, 3), _arr(1, 3)]),
    ("stack", lambda x, y: symgrad.stack([x, y], 1), [_arr(2), _arr(2)]),
    ("clone", lambda x: x.clone(), [_arr(2)]),
    ("matmul_mm", lambda x, y: x @ y, [_arr(2, 3), _arr(3, 4)]),
    ("matmul_mv", lambda x, y: x @ y, [_arr(2, 3), _arr(3)]),
    ("matmul_batched", lambda x, y: symgrad.bmm(x, y), [_arr(2, 2, 3), _arr(2, 3, 2)]),
    # the primitive itself broadcasts a batch (vmap's rule calls it so)
    ("matmul_broadcast", lambda x, y: _MATMUL(x, y), [_arr(2, 2, 3), _arr(3, 2)]),
    # linear's node: addmm(bias, input, weight.t())
    ("addmm", lambda b, x, wt: _addmm(b, x, wt), [_arr(2), _arr(4, 3), _arr(3, 2)]),
    ("addmm_bias_matrix", lambda b, x, wt: _addmm(b, x, wt), [_arr(4, 1), _arr(4, 3), _arr(3, 2)]),
]


def _node_and_ctx(fn, arrays):
    xs = [symgrad.tensor(a, dtype=symgrad.float64, requires_grad=True) for a in arrays]
    out = fn(*xs)
    node = out.grad_fn
    assert node is not None
    # the node's inputs are the tensors given here, in order (each case records one node)
    leaves = [fn_.variable for fn_, _ in node._edges]  # (the primitive's inputs)
    assert len(leaves) == len(xs) and all(a is b for a, b in zip(leaves, xs))
    shapes = [a.shape for a in arrays]
    ctx = Ctx(list(arrays), out.detach().numpy(), shapes, [True] * len(arrays), node.params)
    return node, ctx


def _forward(node, arrays):
    (out,) = node.prim.outputs(NP, tuple(arrays), node.params)
    return np.asarray(out, dtype=np.float64)


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_jvp_matches_central_differences(name, fn, arrays):
    node, ctx = _node_and_ctx(fn, arrays)
    tangents = [RNG.standard_normal(a.shape) for a in arrays]
    jvp = np.asarray(node.prim.jvp(NP, tuple(tangents), ctx), dtype=np.float64)
    h = 1e-6
    plus = _forward(node, [a + h * t for a, t in zip(arrays, tangents)])
    minus = _forward(node, [a - h * t for a, t in zip(arrays, tangents)])
    expected = (plus - minus) / (2 * h)
    assert jvp.shape == expected.shape
    np.testing.assert_allclose(jvp, expected, rtol=1e-6, atol=1e-8)


MULTI_INPUT = [c for c in CASES if len(c[2]) > 1]


@pytest.mark.parametrize("name,fn,arrays", MULTI_INPUT, ids=[c[0] for c in MULTI_INPUT])
def test_jvp_with_one_tangent_missing(name, fn, arrays):
    """A missing tangent is zero: only the other inputs move."""
    node, ctx = _node_and_ctx(fn, arrays)
    tangents = [None] + [RNG.standard_normal(a.shape) for a in arrays[1:]]
    jvp = np.asarray(node.prim.jvp(NP, tuple(tangents), ctx), dtype=np.float64)
    h = 1e-6
    moved = [arrays[0]] + [a + h * t for a, t in zip(arrays[1:], tangents[1:])]
    back = [arrays[0]] + [a - h * t for a, t in zip(arrays[1:], tangents[1:])]
    expected = (_forward(node, moved) - _forward(node, back)) / (2 * h)
    np.testing.assert_allclose(np.broadcast_to(jvp, expected.shape), expected, rtol=1e-6, atol=1e-8)


def test_no_tangent_gives_no_tangent():
    node, ctx = _node_and_ctx(lambda x, y: x @ y, [_arr(2, 3), _arr(3, 2)])
    assert node.prim.jvp(NP, (None, None), ctx) is None


def test_an_op_without_a_forward_rule_says_so():
    x = symgrad.tensor(_arr(2, 3), requires_grad=True)
    node = x.logsumexp(1).grad_fn
    ctx = Ctx([x.detach().numpy()], None, [(2, 3)], [True], node.params)
    with pytest.raises(NotImplementedError, match="logsumexp has no forward-mode rule"):
        node.prim.jvp(NP, (np.ones((2, 3)),), ctx)
