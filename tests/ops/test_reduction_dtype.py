"""Reductions and scans asked for a wider ``dtype=`` convert their input inside their own node,
as PyTorch 2.13 does: ``x.sum(dtype=torch.float64)`` of a float32 ``x`` records
``SumBackward0`` reading ``x``'s ``AccumulateGrad`` (no ``ToCopyBackward0``), saves ``x``
itself, computes in float64 and gives ``x`` a float32 gradient; an integer ``dtype=`` of a
tensor that requires grad is PyTorch's RuntimeError.

Each case is reduced to plain data (values, dtype, grad_fn name, graph, or the exception's
type), checked for symgrad always and for PyTorch when it is installed."""

from __future__ import annotations

import pytest
from _graph_names import graph
from _torch_table import table_tests


def _x(T):
    return T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], requires_grad=True)


def _record(T, f):
    """The result's graph, the result, and the float32 gradient of its sum."""
    x = _x(T)
    y = f(T, x)
    (g,) = T.autograd.grad(y.sum(), x)
    return graph(y), y, g


def _saved(T, f):
    """The names and values of the ``_saved_*`` attributes of the result's node."""
    node = f(T, _x(T)).grad_fn
    names = sorted(a for a in dir(node) if a.startswith("_saved_"))
    return names, [getattr(node, a) for a in names]


_F64 = "float64"
_ONES = [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


def _one_node(name):
    return ((name, ((1, 0),)), ("AccumulateGrad", ()))


_OPS = {
    "sum": (
        lambda T, x: x.sum(dtype=T.float64),
        "SumBackward0",
        21.5,
        _ONES,
    ),
    "sum_dim": (
        lambda T, x: T.sum(x, 0, dtype=T.float64),
        "SumBackward1",
        [5.0, 7.0, 9.5],
        _ONES,
    ),
    "mean": (
        lambda T, x: x.mean(1, keepdim=True, dtype=T.float64),
        "MeanBackward1",
        [[2.0], [5.1667]],
        [[0.3333] * 3] * 2,
    ),
    "prod": (
        lambda T, x: x.prod(dtype=T.float64),
        "ProdBackward0",
        780.0,
        [[780.0, 390.0, 260.0], [195.0, 156.0, 120.0]],
    ),
    "nansum": (
        lambda T, x: T.nansum(x, 1, dtype=T.float64),
        "NansumBackward0",
        [6.0, 15.5],
        _ONES,
    ),
    "cumsum": (
        lambda T, x: T.cumsum(x, 0, dtype=T.float64),
        "CumsumBackward0",
        [[1.0, 2.0, 3.0], [5.0, 7.0, 9.5]],
        [[2.0, 2.0, 2.0], _ONES[0]],
    ),
    "cumprod": (
        lambda T, x: x.cumprod(1, dtype=T.float64),
        "CumprodBackward0",
        [[1.0, 2.0, 6.0], [4.0, 20.0, 130.0]],
        [[9.0, 4.0, 2.0], [38.5, 30.0, 20.0]],
    ),
    "vector_norm": (
        lambda T, x: T.linalg.vector_norm(x, dtype=T.float64),
        "LinalgVectorNormBackward0",
        9.8615,
        [[0.1014, 0.2028, 0.3042], [0.4056, 0.507, 0.6591]],
    ),
    "vector_norm_1": (
        lambda T, x: T.linalg.vector_norm(x, 1, dim=0, dtype=T.float64),
        "LinalgVectorNormBackward0",
        [5.0, 7.0, 9.5],
        _ONES,
    ),
    "norm_fro": (
        lambda T, x: T.linalg.matrix_norm(x, dtype=T.float64),
        "LinalgVectorNormBackward0",
        9.8615,
        [[0.1014, 0.2028, 0.3042], [0.4056, 0.507, 0.6591]],
    ),
    "tensor_norm": (
        lambda T, x: x.norm(3, dim=1, dtype=T.float64),
        "LinalgVectorNormBackward0",
        [3.3019, 7.7397],
        [[0.0917, 0.3669, 0.8255], [0.2671, 0.4173, 0.7053]],
    ),
}

CASES = {
    name: (
        lambda T, f=f: _record(T, f),
        (_one_node(node), (value, _F64, node), (grad, "float32", None)),
    )
    for name, (f, node, value, grad) in _OPS.items()
}
for _name, _kind in (("sum", "Long"), ("cumsum", "Long"), ("prod", "Int"), ("nansum", "Long")):
    CASES[f"{_name}_integer_dtype_of_grad"] = (
        lambda T, n=_name, k=_kind: getattr(_x(T), n)(
            *([0] if n.startswith("cum") else []),
            dtype=T.int64 if k == "Long" else T.int32,
        ),
        ("raises", "RuntimeError"),
    )
CASES["mean_integer_dtype"] = (lambda T: _x(T).mean(dtype=T.int64), ("raises", "RuntimeError"))


def _without_grad(T):
    with T.no_grad():
        return _x(T).sum(dtype=T.float64), _x(T).prod(dtype=T.int32)


CASES["no_grad"] = (_without_grad, ((21.5, _F64, None), (720, "int32", None)))
CASES["integer_input"] = (
    lambda T: (
        T.arange(5).sum(dtype=T.float32),
        T.arange(5).cumsum(0, dtype=T.float32),
        T.arange(1, 5).prod(dtype=T.float32),
        T.arange(5).mean(dtype=T.float32),
        T.tensor([1.7, 2.6]).cumsum(0, dtype=T.int32),
    ),
    (
        (10.0, "float32", None),
        ([0.0, 1.0, 3.0, 6.0, 10.0], "float32", None),
        (24.0, "float32", None),
        (2.0, "float32", None),
        ([1, 3], "int32", None),
    ),
)
CASES["narrower_dtype"] = (
    lambda T: _record(T, lambda T, x: x.double().sum(dtype=T.float32))[1:],
    ((21.5, "float32", "SumBackward0"), (_ONES, "float32", None)),
)
CASES["saved_prod"] = (
    lambda T: _saved(T, lambda T, x: x.prod(dtype=T.float64)),
    (
        ("_saved_result", "_saved_self"),
        ((780.0, _F64, "ProdBackward0"), ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], "float32", None)),
    ),
)
CASES["saved_nansum"] = (
    lambda T: _saved(T, lambda T, x: x.nansum(dtype=T.float64)),
    (
        ("_saved_dim", "_saved_keepdim", "_saved_self"),
        (None, False, ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], "float32", None)),
    ),
)
CASES["saved_vector_norm"] = (
    lambda T: _saved(T, lambda T, x: T.linalg.vector_norm(x, dtype=T.float64))[1][-1],
    ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], "float32", None),
)

CASES["nanmean"] = (
    lambda T: _record(T, lambda T, x: T.nanmean(x, 1, True, dtype=T.float64))[1:],
    (([[2.0], [5.1667]], _F64, "DivBackward0"), ([[0.3333] * 3] * 2, "float32", None)),
)
CASES["nanmean_integer_dtype"] = (
    lambda T: _x(T).nanmean(dtype=T.int64),
    ("raises", "RuntimeError"),
)
for _name, _call in (
    ("mean", lambda T, o: T.mean(T.ones(3), 0, dtype=T.float64, out=o)),
    ("nansum", lambda T, o: T.nansum(T.ones(3), dtype=T.float64, out=o)),
    ("nanmean", lambda T, o: T.nanmean(T.ones(3), dtype=T.float64, out=o)),
):
    CASES[f"{_name}_dtype_other_than_out"] = (
        lambda T, c=_call: c(T, T.empty(())),
        ("raises", "RuntimeError"),
    )
CASES["nansum_in_out_dtype"] = (
    lambda T: T.nansum(T.tensor([1e8, 1.0, -1e8]), out=T.empty((), dtype=T.float64)),
    (1.0, _F64, None),
)

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


def _exact_gradients(T):
    """Gradients whose last bits show the dtype each backward computes in: cumsum's and
    cumprod's in the input's (the incoming float64 gradient rounded first), a 2-norm's over
    every element in the input's too (the norm rounded as it meets the float32 input)."""
    x = T.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    g = T.tensor([0.1, 0.2, 0.3, 0.7, 1e-9], dtype=T.float64)
    out = []
    for y, v in (
        (x.cumsum(0, dtype=T.float64), g),
        (x.cumprod(0, dtype=T.float64), g),
        (T.linalg.vector_norm(x, dtype=T.float64), g[0]),
    ):
        (gx,) = T.autograd.grad(y, x, v)
        out.append(gx.tolist())
    return out


_EXACT = [
    [1.2999999523162842, 1.2000000476837158, 1.0, 0.699999988079071, 9.999999717180685e-10],
    [19.100000381469727, 9.5, 6.199999809265137, 4.199999809265137, 2.3999998433055225e-08],
    [
        0.013483998365700245,
        0.02696799673140049,
        0.04045199230313301,
        0.05393599346280098,
        0.06741999089717865,
    ],
]


def test_exact_gradients():
    import symgrad

    assert _exact_gradients(symgrad) == _EXACT


@pytest.mark.torch
def test_exact_gradients_are_pytorchs():
    torch = pytest.importorskip("torch")
    assert _exact_gradients(torch) == _EXACT


def test_formulas_of_a_converting_node():
    import symgrad

    x = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    node = x.prod(dtype=symgrad.float64).grad_fn
    assert str(node.expression) == "x[0]*x[1]*x[2]"
    assert str(node.local_derivatives[0][2]) == "x[0]*x[1]*g"
