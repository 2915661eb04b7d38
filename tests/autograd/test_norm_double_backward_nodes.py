"""Layer and batch norm under ``create_graph``: PyTorch differentiates their backward as one
node (``NativeLayerNormBackwardBackward0``, ``NativeBatchNormBackwardBackward0``) whose outputs
are the input's, the weight's and the bias's gradients (outputs 0, 1 and 2) and whose edges are
those of its arguments (grad_out, input, mean, rstd, weight, bias for the layer norm; grad_out,
input, weight, running_mean, running_var for the batch norm). The second derivatives through it
are unchanged. And a layer norm saves its bias: changing it in place before backward is
PyTorch's error.

Each case runs with ``T`` either symgrad or torch and is reduced to plain data: the table holds
the expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

from _torch_table import table_tests, values

_X = [[1.0, -2.0, 0.5], [0.0, 3.0, 1.0], [2.0, 0.5, -1.0]]
_V = [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.5, -1.5, 1.0]]


def _leaf(T, data):
    return T.tensor(data, dtype=T.float64, requires_grad=True)


def _node(t):
    """The name of ``t``'s node, its output number and its edges' names."""
    fn = t.grad_fn
    edges = tuple(None if n is None else type(n).__name__ for n, _ in fn.next_functions)
    return type(fn).__name__, t.output_nr, edges


def _first_and_second(T, norm, *, weight=True, bias=True):
    """The first gradients (create_graph) of ``(norm(x, w, b) * v).sum()``, their nodes, and
    the second derivative of ``(gx * v).sum()`` by x and by the weight."""
    x = _leaf(T, _X)
    w = _leaf(T, [1.5, -1.0, 2.0]) if weight else None
    b = _leaf(T, [0.1, 0.2, 0.3]) if bias else None
    v = T.tensor(_V, dtype=T.float64)
    leaves = [t for t in (x, w, b) if t is not None]
    grads = T.autograd.grad((norm(T, x, w, b) * v).sum(), leaves, create_graph=True)
    shown = [_node(g) for g in grads]
    same = all(g.grad_fn is grads[0].grad_fn for g in grads)
    second = T.autograd.grad((grads[0] * v).sum(), leaves[:2], allow_unused=True)
    return (
        shown,
        same,
        [values(g.detach().tolist()) for g in grads],
        [None if s is None else values(s.tolist()) for s in second],
    )


def _layer(T, x, w, b):
    return T.nn.functional.layer_norm(x, (3,), w, b)


def _batch(T, x, w, b):
    return T.nn.functional.batch_norm(x, None, None, w, b, training=True)


def _batch_eval(T, x, w, b):
    mean, var = T.tensor([0.5, 0.0, 1.0], dtype=T.float64), T.tensor([2.0, 1.0, 0.5])
    return T.nn.functional.batch_norm(x, mean, var.double(), w, b, training=False)


def _bias_changed(T, norm):
    """backward after the bias was changed in place: the gradient, or PyTorch's error."""
    x, b = _leaf(T, _X), _leaf(T, [0.1, 0.2, 0.3])
    y = norm(T, x, _leaf(T, [1.0, 1.0, 1.0]), b).sum()
    with T.no_grad():
        b.add_(1.0)
    y.backward()
    return b.grad


_LN = "NativeLayerNormBackwardBackward0"
_BN = "NativeBatchNormBackwardBackward0"
_ACC = "AccumulateGrad"

CASES = {
    "layer_norm": (
        lambda T: _first_and_second(T, _layer),
        (
            (
                (_LN, 0, (None, _ACC, None, None, _ACC, _ACC)),
                (_LN, 1, (None, _ACC, None, None, _ACC, _ACC)),
                (_LN, 2, (None, _ACC, None, None, _ACC, _ACC)),
            ),
            True,
            (
                ((-1.8743, -0.3749, 2.2491), (-1.7754, -0.8877, 2.6631), (-0.034, 0.068, -0.034)),
                (2.5704, -2.1258, -0.2353),
                (0.5, 1.0, 6.0),
            ),
            (
                ((0.1195, 1.6733, -1.7928), (2.4421, -2.1077, -0.3344), (0.3005, -0.499, 0.1985)),
                (0.4893, 1.352, 5.623),
            ),
        ),
    ),
    "layer_norm_weight_only": (
        lambda T: _first_and_second(T, _layer, bias=False),
        (
            (
                (_LN, 0, (None, _ACC, None, None, _ACC, None)),
                (_LN, 1, (None, _ACC, None, None, _ACC, None)),
            ),
            True,
            (
                ((-1.8743, -0.3749, 2.2491), (-1.7754, -0.8877, 2.6631), (-0.034, 0.068, -0.034)),
                (2.5704, -2.1258, -0.2353),
            ),
            (
                ((0.1195, 1.6733, -1.7928), (2.4421, -2.1077, -0.3344), (0.3005, -0.499, 0.1985)),
                (0.4893, 1.352, 5.623),
            ),
        ),
    ),
    "layer_norm_bias_only": (
        lambda T: _first_and_second(T, _layer, weight=False),
        (
            (
                (_LN, 0, (None, _ACC, None, None, None, _ACC)),
                (_LN, 2, (None, _ACC, None, None, None, _ACC)),
            ),
            True,
            (
                ((-0.676, -0.1352, 0.8112), (-0.8591, -0.4295, 1.2886), (0.6124, -1.2247, 0.6124)),
                (0.5, 1.0, 6.0),
            ),
            (
                (
                    (-0.4666, 0.5015, -0.0349),
                    (1.4727, -0.8744, -0.5983),
                    (-0.7144, -0.4082, 1.1227),
                ),
                None,
            ),
        ),
    ),
    "batch_norm_training": (
        lambda T: _first_and_second(T, _batch),
        (
            (
                (_BN, 0, (None, _ACC, _ACC, None, None)),
                (_BN, 1, (None, _ACC, _ACC, None, None)),
                (_BN, 2, (None, _ACC, _ACC, None, None)),
            ),
            True,
            (
                (
                    (1.5309, -0.4491, 1.8103),
                    (-0.7655, -0.4491, -1.3577),
                    (-0.7654, 0.8981, -0.4526),
                ),
                (1.8371, -1.8371, 1.765),
                (0.5, 1.0, 6.0),
            ),
            (
                ((-2.2963, -0.7634, -2.8547), (2.105, 0.2245, 1.0095), (0.1913, 0.5389, 1.8451)),
                (1.2758, 2.4699, 1.1314),
            ),
        ),
    ),
    "batch_norm_eval": (
        lambda T: _first_and_second(T, _batch_eval),
        (
            (
                (_BN, 0, (None, _ACC, _ACC, None, None)),
                (_BN, 1, (None, _ACC, _ACC, None, None)),
                (_BN, 2, (None, _ACC, _ACC, None, None)),
            ),
            True,
            (
                ((1.0607, -2.0, 8.4852), (-1.0607, -0.5, 5.6568), (0.5303, 1.5, 2.8284)),
                (1.2374, -3.25, -4.9497),
                (0.5, 1.0, 6.0),
            ),
            (None, (1.591, 6.5, 19.7988)),
        ),
    ),
    "layer_norm_bias_changed_in_place": (
        lambda T: _bias_changed(T, _layer),
        ("raises", "RuntimeError"),
    ),
    "batch_norm_bias_changed_in_place": (
        lambda T: _bias_changed(T, _batch),
        ([3.0, 3.0, 3.0], "float64", None),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
