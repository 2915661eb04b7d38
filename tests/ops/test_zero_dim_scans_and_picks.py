"""Scans and picks along the one implied dimension of a 0-d tensor record one node on it, as
PyTorch 2.13 does (``CumsumBackward0`` reading ``AccumulateGrad``, no reshape nodes around),
with the element itself as value and 0 as index.

Each case is reduced to plain data (values, dtype, grad_fn name, graph, or the exception's
type), checked for symgrad always and for PyTorch when it is installed."""

from __future__ import annotations

from _graph_names import graph
from _torch_table import table_tests


def _scalar(T):
    return T.tensor(2.0, dtype=T.float64, requires_grad=True)


def _record(T, f):
    """The result's graph, its value and shape, and the gradient and second derivative of
    ``3 * result``."""
    x = _scalar(T)
    y = f(T, x)
    (g,) = T.autograd.grad(y * 3, x, create_graph=True)
    return graph(y), y, tuple(y.shape), g


_OPS = {
    "cumsum": lambda T, x: T.cumsum(x, 0),
    "cumprod": lambda T, x: T.cumprod(x, -1),
    "cummax": lambda T, x: T.cummax(x, 0).values,
    "cummin": lambda T, x: T.cummin(x, 0).values,
    "sort": lambda T, x: T.sort(x, descending=True).values,
    "topk": lambda T, x: T.topk(x, 1).values,
    "kthvalue": lambda T, x: T.kthvalue(x, 1, keepdim=True).values,
    "median": lambda T, x: T.median(x, 0).values,
    "max": lambda T, x: T.max(x, 0, keepdim=True).values,
    "min": lambda T, x: T.min(x, -1).values,
}
_NODES = {
    "cumsum": "CumsumBackward0",
    "cumprod": "CumprodBackward0",
    "cummax": "CummaxBackward0",
    "cummin": "CumminBackward0",
    "sort": "SortBackward0",
    "topk": "TopkBackward0",
    "kthvalue": "KthvalueBackward0",
    "median": "MedianBackward1",
    "max": "MaxBackward0",
    "min": "MinBackward0",
}

CASES = {
    name: (
        lambda T, f=f: _record(T, f),
        (
            ((_NODES[name], ((1, 0),)), ("AccumulateGrad", ())),
            (2.0, "float64", _NODES[name]),
            (),
            (3.0, "float64", None),
        ),
    )
    for name, f in _OPS.items()
}
CASES["indices"] = (
    lambda T: [
        r.indices
        for r in (
            T.sort(_scalar(T)),
            T.topk(_scalar(T), 1),
            T.max(_scalar(T), 0),
            T.cummax(_scalar(T), 0),
        )
    ],
    ((0, "int64", None),) * 4,
)
CASES["topk_of_none"] = (
    lambda T: T.topk(_scalar(T), 0),
    ((2.0, "float64", "TopkBackward0"), (0, "int64", None)),
)
CASES["int_cumsum"] = (lambda T: T.cumsum(T.tensor(3, dtype=T.int32), 0), (3, "int64", None))

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
