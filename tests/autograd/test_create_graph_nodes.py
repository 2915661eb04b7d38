"""The graphs that ``create_graph=True`` records, as programs inspect them: the node names of
a first gradient and of its ``next_functions``, when the incoming gradient requires grad
(PyTorch's backward formulas then record their own ops: ``MulBackward1`` for deg2rad,
``NegBackward0`` for ``1 - x``, a two-edge ``WhereBackward0`` for where and clamp); and the
module paths and import paths of the classes programs touch.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, node names, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

from functools import partial

from _graph_names import name_tree as _names
from _torch_table import table_tests

_X = (-1.0, 0.25, 1.3)


def _grad(T, f, x=_X, incoming_requires_grad=True):
    """The first gradient of ``f`` at ``x`` (by an incoming gradient of ones that requires
    grad), the names of its graph, and its derivative along ``v = (1, 2, 3)``."""
    x = T.tensor(x, dtype=T.float64, requires_grad=True)
    y = f(T, x)
    ones = T.ones(tuple(y.shape), dtype=T.float64, requires_grad=incoming_requires_grad)
    (g,) = T.autograd.grad(y, x, ones, create_graph=True)
    v = T.arange(1.0, 4.0, dtype=T.float64)
    (h,) = T.autograd.grad((g * v).sum(), x, allow_unused=True)
    return g.detach(), _names(g.grad_fn), h


def _zeros(T):
    return T.zeros(3, dtype=T.float64)


_GRAPH_CASES = {
    "frac": lambda T, x: x.frac(),
    "deg2rad": lambda T, x: x.deg2rad(),
    "rad2deg": lambda T, x: T.rad2deg(x),
    "number_minus": lambda T, x: 1 - x * x,
    "rsub": lambda T, x: T.rsub(x, 2.0),
    "rsub_alpha": lambda T, x: T.rsub(x, 2.0, alpha=3),
    "rsub_tensor_alpha": lambda T, x: T.rsub(x, x * x, alpha=3),
    "add_alpha": lambda T, x: T.add(x * x, x, alpha=3),
    "sub_alpha": lambda T, x: T.sub(x * x, x, alpha=3),
    "sub_alpha_first": lambda T, x: T.sub(x, x * x, alpha=3),
    "subtract_number_alpha": lambda T, x: T.subtract(x * x, 2.0, 3),
    "where_input": lambda T, x: T.where(x > 0, x * x, _zeros(T)),
    "where_other": lambda T, x: T.where(x > 0, _zeros(T), x * x),
    "where_broadcast": lambda T, x: T.where(T.tensor([[True], [False]]), x * x, 1.0),
    "clamp_tensor_min": lambda T, x: T.clamp(x * x, min=_zeros(T) + 0.5),
    "clamp_tensor_max": lambda T, x: T.clamp(x * x, max=_zeros(T) + 0.5),
    "clamp_by_bound": lambda T, x: T.clamp(_zeros(T), min=x * x),
    "clamp_tensor_both": lambda T, x: T.clamp(x, min=_zeros(T) - 0.5, max=_zeros(T) + 0.5),
    "logaddexp": lambda T, x: T.logaddexp(x, x * 2),
    "logaddexp2": lambda T, x: T.logaddexp2(x, x * 2),
    "copysign_number": lambda T, x: T.copysign(x * x, -1.0),
    "copysign_tensor": lambda T, x: T.copysign(x * x, x.flip(0)),
    # gradients of selections: masked_fill, index_put and scatter_add into zeros (no edge)
    "masked_fill": lambda T, x: (x * x).masked_fill(x > 0, 0.0),
    "index": lambda T, x: (x * x)[[0, 2]],
    "gather": lambda T, x: (x * x).gather(0, T.tensor([2, 0])),
    "index_select": lambda T, x: (x * x).index_select(0, T.tensor([0, 2])),
    # squeeze's gradient unsqueezes each removed dim; nothing removed: the gradient itself
    "squeeze_all": lambda T, x: (x * x).reshape(1, 3, 1).squeeze(),
    "squeeze_dims": lambda T, x: (x * x).reshape(1, 3, 1).squeeze((-1, 0)),
    "squeeze_dim": lambda T, x: (x * x).reshape(3, 1).squeeze(1),
    "squeeze_nothing": lambda T, x: (x * x).squeeze(0),
    # formulas that broadcast the unsqueezed gradient (no expand), exponent - 1 as sub.Scalar
    "prod": lambda T, x: (x + 2).prod(),
    "prod_dim": lambda T, x: (x + 2).reshape(1, 3).prod(1),
    "logsumexp": lambda T, x: x.reshape(1, 3).logsumexp(1),
    "pow_tensor": lambda T, x: T.pow(x.abs() + 1, x),
    "addcmul": lambda T, x: T.addcmul(x, x, x * x, value=2),
    "addcmul_value_1": lambda T, x: T.addcmul(x, x, x.flip(0)),
    "addcdiv": lambda T, x: T.addcdiv(x, x, x * x + 1, value=2),
}

_GRAPH_EXPECTED = {
    "frac": (([1.0, 1.0, 1.0], "float64", None), None, None),
    "deg2rad": (
        ([0.0175, 0.0175, 0.0175], "float64", None),
        ("MulBackward1", (("AccumulateGrad", ()),)),
        None,
    ),
    "rad2deg": (
        ([57.2958, 57.2958, 57.2958], "float64", None),
        ("MulBackward1", (("AccumulateGrad", ()),)),
        None,
    ),
    "number_minus": (
        ([2.0, -0.5, -2.6], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (("NegBackward0", ("AccumulateGrad",)), ("AccumulateGrad", ()))),
                ("MulBackward0", (("NegBackward0", ("AccumulateGrad",)), ("AccumulateGrad", ()))),
            ),
        ),
        ([-2.0, -4.0, -6.0], "float64", None),
    ),
    "rsub": (
        ([-1.0, -1.0, -1.0], "float64", None),
        ("NegBackward0", (("AccumulateGrad", ()),)),
        None,
    ),
    "rsub_alpha": (
        ([-3.0, -3.0, -3.0], "float64", None),
        ("MulBackward1", (("NegBackward0", (("AccumulateGrad", ()),)),)),
        None,
    ),
    "rsub_tensor_alpha": (
        ([-5.0, -2.5, -0.4], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "AddBackward0",
                    (
                        ("MulBackward1", ("NegBackward0",)),
                        ("MulBackward0", ("AccumulateGrad", "AccumulateGrad")),
                    ),
                ),
                ("MulBackward0", (("AccumulateGrad", ()), ("AccumulateGrad", ()))),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "add_alpha": (
        ([1.0, 3.5, 5.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "AddBackward0",
                    (
                        ("MulBackward1", ("AccumulateGrad",)),
                        ("MulBackward0", ("AccumulateGrad", "AccumulateGrad")),
                    ),
                ),
                ("MulBackward0", (("AccumulateGrad", ()), ("AccumulateGrad", ()))),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "sub_alpha": (
        ([-5.0, -2.5, -0.4], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "AddBackward0",
                    (
                        ("MulBackward1", ("NegBackward0",)),
                        ("MulBackward0", ("AccumulateGrad", "AccumulateGrad")),
                    ),
                ),
                ("MulBackward0", (("AccumulateGrad", ()), ("AccumulateGrad", ()))),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "sub_alpha_first": (
        ([7.0, -0.5, -6.8], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "AddBackward0",
                    (("AccumulateGrad", ()), ("MulBackward0", ("MulBackward1", "AccumulateGrad"))),
                ),
                ("MulBackward0", (("MulBackward1", ("NegBackward0",)), ("AccumulateGrad", ()))),
            ),
        ),
        ([-6.0, -12.0, -18.0], "float64", None),
    ),
    "subtract_number_alpha": (
        ([-2.0, 0.5, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (("AccumulateGrad", ()), ("AccumulateGrad", ()))),
                ("MulBackward0", (("AccumulateGrad", ()), ("AccumulateGrad", ()))),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "where_input": (
        ([0.0, 0.5, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("WhereBackward0", ("AccumulateGrad", None)), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("WhereBackward0", ("AccumulateGrad", None)), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([0.0, 4.0, 6.0], "float64", None),
    ),
    "where_other": (
        ([-2.0, 0.0, 0.0], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("WhereBackward0", (None, "AccumulateGrad")), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("WhereBackward0", (None, "AccumulateGrad")), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 0.0, 0.0], "float64", None),
    ),
    "where_broadcast": (
        ([-2.0, 0.5, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (("ViewBackward0", ("SumBackward1",)), ("AccumulateGrad", ()))),
                ("MulBackward0", (("ViewBackward0", ("SumBackward1",)), ("AccumulateGrad", ()))),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "clamp_tensor_min": (
        ([-2.0, 0.0, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("WhereBackward0", ("AccumulateGrad", None)), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("WhereBackward0", ("AccumulateGrad", None)), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 0.0, 6.0], "float64", None),
    ),
    "clamp_tensor_max": (
        ([0.0, 0.5, 0.0], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("WhereBackward0", ("AccumulateGrad", None)), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("WhereBackward0", ("AccumulateGrad", None)), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([0.0, 4.0, 0.0], "float64", None),
    ),
    "clamp_by_bound": (
        ([-2.0, 0.5, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("WhereBackward0", ("AccumulateGrad", None)), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("WhereBackward0", ("AccumulateGrad", None)), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "clamp_tensor_both": (
        ([0.0, 1.0, 0.0], "float64", None),
        ("WhereBackward0", (("AccumulateGrad", ()), None)),
        None,
    ),
    "logaddexp": (
        ([1.2689, 1.5622, 1.7858], "float64", None),
        (
            "AddBackward0",
            (
                ("DivBackward0", (("AccumulateGrad", ()), ("AddBackward1", ("ExpBackward0",)))),
                ("MulBackward0", (("DivBackward0", ("AccumulateGrad", "AddBackward1")), None)),
            ),
        ),
        ([0.1966, 0.4923, 0.5049], "float64", None),
    ),
    "logaddexp2": (
        ([1.3333, 1.5432, 1.7112], "float64", None),
        (
            "AddBackward0",
            (
                ("DivBackward0", (("AccumulateGrad", ()), ("AddBackward1", ("PowBackward2",)))),
                ("MulBackward0", (("DivBackward0", ("AccumulateGrad", "AddBackward1")), None)),
            ),
        ),
        ([0.154, 0.344, 0.4271], "float64", None),
    ),
    "copysign_number": (
        ([2.0, -0.5, -2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (
                        ("MulBackward0", ("AccumulateGrad", "MaskedFillBackward0")),
                        ("AccumulateGrad", ()),
                    ),
                ),
                (
                    "MulBackward0",
                    (
                        ("MulBackward0", ("AccumulateGrad", "MaskedFillBackward0")),
                        ("AccumulateGrad", ()),
                    ),
                ),
            ),
        ),
        ([-2.0, -4.0, -6.0], "float64", None),
    ),
    "copysign_tensor": (
        ([-2.0, 0.5, -2.6], "float64", None),
        (
            "AddBackward0",
            (
                ("AddBackward0", (None, ("MulBackward0", ("MulBackward0", "AccumulateGrad")))),
                (
                    "MulBackward0",
                    (
                        ("MulBackward0", ("AccumulateGrad", "MaskedFillBackward0")),
                        ("AccumulateGrad", ()),
                    ),
                ),
            ),
        ),
        ([2.0, 4.0, -6.0], "float64", None),
    ),
    "masked_fill": (
        ([-2.0, 0.0, 0.0], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("MaskedFillBackward0", ("AccumulateGrad",)), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("MaskedFillBackward0", ("AccumulateGrad",)), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 0.0, 0.0], "float64", None),
    ),
    "index": (
        ([-2.0, 0.0, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("IndexPutImplBackward0", (None, "AccumulateGrad")), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("IndexPutImplBackward0", (None, "AccumulateGrad")), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 0.0, 6.0], "float64", None),
    ),
    "gather": (
        ([-2.0, 0.0, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("ScatterAddBackward0", (None, "AccumulateGrad")), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("ScatterAddBackward0", (None, "AccumulateGrad")), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 0.0, 6.0], "float64", None),
    ),
    "index_select": (
        ([-2.0, 0.0, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("IndexAddBackward0", (None, "AccumulateGrad")), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("IndexAddBackward0", (None, "AccumulateGrad")), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 0.0, 6.0], "float64", None),
    ),
    "squeeze_all": (
        ([-2.0, 0.5, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("ViewBackward0", ("UnsqueezeBackward0",)), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("ViewBackward0", ("UnsqueezeBackward0",)), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "squeeze_dims": (
        ([-2.0, 0.5, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("ViewBackward0", ("UnsqueezeBackward0",)), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("ViewBackward0", ("UnsqueezeBackward0",)), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "squeeze_dim": (
        ([-2.0, 0.5, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("ViewBackward0", ("UnsqueezeBackward0",)), ("AccumulateGrad", ())),
                ),
                (
                    "MulBackward0",
                    (("ViewBackward0", ("UnsqueezeBackward0",)), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "squeeze_nothing": (
        ([-2.0, 0.5, 2.6], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (("AccumulateGrad", ()), ("AccumulateGrad", ()))),
                ("MulBackward0", (("AccumulateGrad", ()), ("AccumulateGrad", ()))),
            ),
        ),
        ([2.0, 4.0, 6.0], "float64", None),
    ),
    "prod": (
        ([7.425, 3.3, 2.25], "float64", None),
        (
            "MulBackward0",
            (
                ("AccumulateGrad", ()),
                (
                    "DivBackward0",
                    (
                        ("ProdBackward0", ("AddBackward0",)),
                        ("AddBackward0", ("AccumulateGrad", None)),
                    ),
                ),
            ),
        ),
        ([13.35, 6.3, 4.25], "float64", None),
    ),
    "prod_dim": (
        ([7.425, 3.3, 2.25], "float64", None),
        (
            "ViewBackward0",
            (
                (
                    "MulBackward0",
                    (
                        ("UnsqueezeBackward0", ("AccumulateGrad",)),
                        ("DivBackward0", ("UnsqueezeBackward0", "ViewBackward0")),
                    ),
                ),
            ),
        ),
        ([13.35, 6.3, 4.25], "float64", None),
    ),
    "logsumexp": (
        ([0.0691, 0.2413, 0.6896], "float64", None),
        (
            "ViewBackward0",
            (
                (
                    "MulBackward0",
                    (
                        ("UnsqueezeBackward0", ("AccumulateGrad",)),
                        ("ExpBackward0", ("SubBackward0",)),
                    ),
                ),
            ),
        ),
        ([-0.112, -0.1497, 0.2617], "float64", None),
    ),
    "pow_tensor": (
        ([0.5966, 0.4474, 4.1285], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "MulBackward0",
                    (("AccumulateGrad", ()), ("WhereBackward0", (None, "MulBackward0"))),
                ),
                (
                    "MulBackward0",
                    (
                        ("WhereBackward0", (None, "MulBackward0")),
                        ("SgnBackward0", ("AccumulateGrad",)),
                    ),
                ),
            ),
        ),
        ([0.3368, 3.4239, 22.8427], "float64", None),
    ),
    "addcmul": (
        ([7.0, 1.375, 11.14], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "AddBackward0",
                    (
                        ("AddBackward0", ("AccumulateGrad", "MulBackward0")),
                        ("MulBackward0", ("MulBackward0", "AccumulateGrad")),
                    ),
                ),
                (
                    "MulBackward0",
                    (("MulBackward0", ("AccumulateGrad", "MulBackward1")), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([-12.0, 6.0, 46.8], "float64", None),
    ),
    "addcmul_value_1": (
        ([3.6, 1.5, -1.0], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "AddBackward0",
                    (("AccumulateGrad", ()), ("MulBackward0", ("AccumulateGrad", "MulBackward1"))),
                ),
                ("FlipBackward0", (("MulBackward0", ("AccumulateGrad", "MulBackward1")),)),
            ),
        ),
        ([6.0, 4.0, 2.0], "float64", None),
    ),
    "addcdiv": (
        ([1.0, 2.6609, 0.8093], "float64", None),
        (
            "AddBackward0",
            (
                (
                    "AddBackward0",
                    (
                        ("AddBackward0", ("AccumulateGrad", "MulBackward0")),
                        ("MulBackward0", ("MulBackward0", "AccumulateGrad")),
                    ),
                ),
                (
                    "MulBackward0",
                    (("MulBackward0", ("NegBackward0", "DivBackward0")), ("AccumulateGrad", ())),
                ),
            ),
        ),
        ([1.0, -4.898, -1.0499], "float64", None),
    ),
}

test_graph_names, test_graph_names_are_pytorchs = table_tests(
    {k: (partial(_grad, f=f), _GRAPH_EXPECTED[k]) for k, f in _GRAPH_CASES.items()}
)


# -- module paths: type(obj).__module__ past the package name, as programs print or pickle them
def _home(T, make):
    """``type(obj).__module__`` without the package's name, and the class is found there."""
    import importlib

    cls = make(T)
    cls = cls if isinstance(cls, type) else type(cls)
    found = getattr(importlib.import_module(cls.__module__), cls.__qualname__, None)
    package, _, rest = cls.__module__.partition(".")
    return rest if package == T.__name__ else cls.__module__, cls.__qualname__, found is cls


def _custom_function_node(T):
    class Double(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Double.apply(T.ones(2, requires_grad=True)).grad_fn


def _sgd(T):
    return T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)


_HOME_CASES = {
    "Size": (lambda T: T.Size([2]), ""),
    "device": (lambda T: T.device("cpu"), ""),
    "finfo": (lambda T: T.finfo(T.float32), ""),
    "iinfo": (lambda T: T.iinfo, ""),
    "layout": (lambda T: T.strided, ""),
    "RemovableHandle": (lambda T: T.ones(1, requires_grad=True).register_hook(abs), "utils.hooks"),
    "detect_anomaly": (lambda T: T.autograd.detect_anomaly, "autograd.anomaly_mode"),
    "Node": (lambda T: T.autograd.graph.Node, "autograd.graph"),
    "UntypedStorage": (lambda T: T.ones(2).untyped_storage(), "storage"),
    "TypedStorage": (lambda T: T.TypedStorage, "storage"),
    "TorchVersion": (lambda T: T.__version__, "torch_version"),
}
_NODE_CASES = {
    "MulBackward0": lambda T: (T.ones(2, requires_grad=True) * 2).grad_fn,
    "SumBackward0": lambda T: T.ones(2, requires_grad=True).sum().grad_fn,
    "AccumulateGrad": lambda T: (T.ones(2, requires_grad=True) * 2).grad_fn.next_functions[0][0],
}
_HOME_CASES |= {
    "GELU": (lambda T: T.nn.GELU(), "nn.modules.activation"),
    "LeakyReLU": (lambda T: T.nn.LeakyReLU(), "nn.modules.activation"),
    "SiLU": (lambda T: T.nn.SiLU, "nn.modules.activation"),
    "MultiheadAttention": (lambda T: T.nn.MultiheadAttention, "nn.modules.activation"),
    "PReLU": (lambda T: T.nn.PReLU, "nn.modules.activation"),
    "BatchNorm2d": (lambda T: T.nn.BatchNorm2d(3), "nn.modules.batchnorm"),
    "SyncBatchNorm": (lambda T: T.nn.SyncBatchNorm, "nn.modules.batchnorm"),
    "ConvTranspose2d": (lambda T: T.nn.ConvTranspose2d, "nn.modules.conv"),
    "LazyConv2d": (lambda T: T.nn.LazyConv2d, "nn.modules.conv"),
    "Dropout": (lambda T: T.nn.Dropout(), "nn.modules.dropout"),
    "Dropout2d": (lambda T: T.nn.Dropout2d, "nn.modules.dropout"),
    "MaxPool2d": (lambda T: T.nn.MaxPool2d(2), "nn.modules.pooling"),
    "AdaptiveAvgPool2d": (lambda T: T.nn.AdaptiveAvgPool2d, "nn.modules.pooling"),
    "ZeroPad2d": (lambda T: T.nn.ZeroPad2d, "nn.modules.padding"),
    "Flatten": (lambda T: T.nn.Flatten(), "nn.modules.flatten"),
    "Unflatten": (lambda T: T.nn.Unflatten, "nn.modules.flatten"),
    "SmoothL1Loss": (lambda T: T.nn.SmoothL1Loss(), "nn.modules.loss"),
    "KLDivLoss": (lambda T: T.nn.KLDivLoss, "nn.modules.loss"),
    "CTCLoss": (lambda T: T.nn.CTCLoss, "nn.modules.loss"),
    "RMSNorm": (lambda T: T.nn.RMSNorm, "nn.modules.normalization"),
    "LocalResponseNorm": (lambda T: T.nn.LocalResponseNorm, "nn.modules.normalization"),
    "EmbeddingBag": (lambda T: T.nn.EmbeddingBag, "nn.modules.sparse"),
    "LazyLinear": (lambda T: T.nn.LazyLinear, "nn.modules.linear"),
    "ParameterList": (lambda T: T.nn.ParameterList, "nn.modules.container"),
    "Transformer": (lambda T: T.nn.Transformer, "nn.modules.transformer"),
    "PixelShuffle": (lambda T: T.nn.PixelShuffle, "nn.modules.pixelshuffle"),
    "CosineSimilarity": (lambda T: T.nn.CosineSimilarity, "nn.modules.distance"),
    "Unfold": (lambda T: T.nn.Unfold, "nn.modules.fold"),
    "ChannelShuffle": (lambda T: T.nn.ChannelShuffle, "nn.modules.channelshuffle"),
    "Normal": (lambda T: T.distributions.Normal(0.0, 1.0), "distributions.normal"),
    "Categorical": (lambda T: T.distributions.Categorical, "distributions.categorical"),
    "Bernoulli": (lambda T: T.distributions.Bernoulli, "distributions.bernoulli"),
    "Uniform": (lambda T: T.distributions.Uniform, "distributions.uniform"),
    "Independent": (lambda T: T.distributions.Independent, "distributions.independent"),
    "Beta": (lambda T: T.distributions.Beta, "distributions.beta"),
    "StudentT": (lambda T: T.distributions.StudentT, "distributions.studentT"),
    "ExpTransform": (lambda T: T.distributions.ExpTransform, "distributions.transforms"),
    "MultivariateNormal": (
        lambda T: T.distributions.MultivariateNormal,
        "distributions.multivariate_normal",
    ),
    "AdamW": (lambda T: T.optim.AdamW, "optim.adamw"),
    "Adadelta": (lambda T: T.optim.Adadelta, "optim.adadelta"),
    "Adamax": (lambda T: T.optim.Adamax, "optim.adamax"),
    "NAdam": (lambda T: T.optim.NAdam, "optim.nadam"),
    "RAdam": (lambda T: T.optim.RAdam, "optim.radam"),
    "Rprop": (lambda T: T.optim.Rprop, "optim.rprop"),
    "ReduceLROnPlateau": (
        lambda T: T.optim.lr_scheduler.ReduceLROnPlateau(_sgd(T)),
        "optim.lr_scheduler",
    ),
    "OneCycleLR": (lambda T: T.optim.lr_scheduler.OneCycleLR, "optim.lr_scheduler"),
    "CyclicLR": (lambda T: T.optim.lr_scheduler.CyclicLR, "optim.lr_scheduler"),
    "LinearLR": (lambda T: T.optim.lr_scheduler.LinearLR, "optim.lr_scheduler"),
    "SequentialLR": (lambda T: T.optim.lr_scheduler.SequentialLR, "optim.lr_scheduler"),
}

test_node_classes, test_node_classes_are_pytorchs = table_tests(
    {
        name: (partial(_home, make=make), ("builtins", name, False))
        for name, make in _NODE_CASES.items()
    }
    | {
        "custom_function": (
            partial(_home, make=_custom_function_node),
            ("autograd.function", "DoubleBackward", False),
        )
    }
)

test_module_paths, test_module_paths_are_pytorchs = table_tests(
    {
        name: (partial(_home, make=make), (module, name, True))
        for name, (make, module) in _HOME_CASES.items()
    }
)


def _imported(T, path, name):
    """``from <T>.<path> import <name>``: the object's kind, or the exception's type."""
    import importlib

    obj = getattr(importlib.import_module(f"{T.__name__}.{path}"), name)
    if isinstance(obj, type):
        return "class"
    return "function" if callable(obj) and hasattr(obj, "__code__") else "alias"


_IMPORT_CASES = {
    ("nn.modules.flatten", "Flatten"): "class",
    ("nn.modules.pixelshuffle", "PixelUnshuffle"): "class",
    ("nn.modules.distance", "PairwiseDistance"): "class",
    ("nn.modules.fold", "Fold"): "class",
    ("nn.modules.channelshuffle", "ChannelShuffle"): "class",
    ("nn.modules.activation", "GELU"): "class",
    ("nn.modules.activation", "MultiheadAttention"): "class",
    ("nn.modules.conv", "_ConvTransposeNd"): "class",
    ("nn.modules.pooling", "_MaxPoolNd"): "class",
    ("nn.modules.pooling", "_AvgPoolNd"): "class",
    ("nn.modules.loss", "_Loss"): "class",
    ("nn.modules.loss", "_WeightedLoss"): "class",
    ("nn.modules.conv", "_ConvNd"): "class",
    ("nn.modules.batchnorm", "_BatchNorm"): "class",
    ("nn.modules.utils", "_pair"): "function",
    ("nn.modules.normalization", "RMSNorm"): "class",
    ("nn.modules.transformer", "Transformer"): "class",
    ("nn.modules.linear", "LazyLinear"): "class",
    ("optim.adamw", "AdamW"): "class",
    ("optim.rprop", "Rprop"): "class",
    ("optim.optimizer", "Optimizer"): "class",
    ("optim.lr_scheduler", "_LRScheduler"): "class",
    ("autograd.function", "FunctionCtx"): "class",
    ("autograd.variable", "Variable"): "class",
    ("autograd.anomaly_mode", "detect_anomaly"): "class",
    ("autograd.anomaly_mode", "set_detect_anomaly"): "class",
    ("utils.hooks", "RemovableHandle"): "class",
    ("types", "_size"): "alias",
    ("types", "Number"): "alias",
    ("types", "Device"): "alias",
    ("nn.common_types", "_size_2_t"): "alias",
    ("nn.common_types", "_size_any_t"): "alias",
    ("nn.common_types", "_ratio_2_t"): "alias",
}

test_import_paths, test_import_paths_are_pytorchs = table_tests(
    {
        f"{path}.{name}": (partial(_imported, path=path, name=name), kind)
        for (path, name), kind in _IMPORT_CASES.items()
    }
)
