"""Forward-mode rules of the ``nn.functional`` structural primitives (normalizations, ``glu``,
``embedding``) against central differences of their forward, as in ``test_jvp``."""

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.prim.numpy_xp import NP

from .test_jvp import _arr, _forward, _node_and_ctx

RNG = np.random.default_rng(11)
_MEAN, _VAR = symgrad.tensor([0.1, -0.2, 0.3]), symgrad.tensor([0.5, 1.5, 2.0])

CASES = [
    ("layer_norm", lambda x: F.layer_norm(x, (4,)), [_arr(3, 4)]),
    (
        "layer_norm_affine",
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        [_arr(3, 4), _arr(4), _arr(4)],
    ),
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [_arr(2, 4, 3), _arr(4), _arr(4)]),
    (
        "batch_norm_train",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        [_arr(5, 3), _arr(3), _arr(3)],
    ),
    (
        "batch_norm_eval",
        lambda x, w: F.batch_norm(x, _MEAN.double(), _VAR.double(), w),
        [_arr(4, 3, 2), _arr(3)],
    ),
    ("glu", lambda x: F.glu(x, 0), [_arr(4, 3)]),
    ("embedding", lambda w: F.embedding(symgrad.tensor([[2, 0], [2, 1]]), w), [_arr(3, 2)]),
]


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_jvp_matches_central_differences(name, fn, arrays):
    node, ctx = _node_and_ctx(fn, arrays)
    tangents = [RNG.standard_normal(a.shape) for a in arrays]
    jvp = np.asarray(node.prim.jvp(NP, tuple(tangents), ctx), dtype=np.float64)
    h = 1e-6
    plus = _forward(node, [a + h * t for a, t in zip(arrays, tangents)])
    minus = _forward(node, [a - h * t for a, t in zip(arrays, tangents)])
    np.testing.assert_allclose(jvp, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name,fn,arrays", CASES[1:5], ids=[c[0] for c in CASES[1:5]])
def test_jvp_with_the_input_tangent_missing(name, fn, arrays):
    node, ctx = _node_and_ctx(fn, arrays)
    tangents = [None] + [RNG.standard_normal(a.shape) for a in arrays[1:]]
    jvp = np.asarray(node.prim.jvp(NP, tuple(tangents), ctx), dtype=np.float64)
    h = 1e-6
    moved = [arrays[0]] + [a + h * t for a, t in zip(arrays[1:], tangents[1:])]
    back = [arrays[0]] + [a - h * t for a, t in zip(arrays[1:], tangents[1:])]
    expected = (_forward(node, moved) - _forward(node, back)) / (2 * h)
    np.testing.assert_allclose(np.broadcast_to(jvp, expected.shape), expected, rtol=1e-6, atol=1e-8)
