"""Second derivatives of ``nn.functional`` ops as programs take them (a gradient penalty, a
Hessian-vector product): ``g = grad(f(x).sum(), x, create_graph=True)``, then the gradient
of ``(g * v).sum()``. Each case gives the first gradients' graphs (PyTorch's nodes and
edges) and the second derivatives, checked for symgrad always and for PyTorch when it is
installed."""

from __future__ import annotations

from _graph_names import graph
from _torch_table import table_tests

_X = [[-1.0, 0.0, 2.0], [0.0, -3.0, 0.5]]
_Y = [[0.5, 0.0, 1.0], [-2.0, 1.0, 3.0]]
_P = [[0.2, 0.5, 0.9], [0.7, 0.1, 0.4]]
_Q = [[0.0, 0.3, 1.0], [0.6, 0.2, 0.5]]


def _leaf(T, values):
    return T.tensor(values, dtype=T.float64, requires_grad=True)


def _second(T, f, *inputs, graphs=None):
    """The graphs of the first gradients (of those ``graphs`` picks, all by default) and the
    derivatives of ``sum(g_k * v_k)``, ``v_k = 1, 2, 3, ...``, by each input."""
    xs = [T.tensor(a, dtype=T.float64, requires_grad=True) for a in inputs]
    gs = T.autograd.grad(f(T, T.nn.functional, *xs).sum(), xs, create_graph=True)
    total = 0
    for g in gs:
        total = total + (g * T.arange(1, g.numel() + 1, dtype=g.dtype).reshape(g.shape)).sum()
    hs = T.autograd.grad(total, xs, allow_unused=True)
    picked = range(len(gs)) if graphs is None else graphs
    return tuple(graph(gs[k]) for k in picked), hs


def _first_graph(T, f, x):
    x = T.tensor(x, dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(f(T, T.nn.functional, x).sum(), x, create_graph=True)
    return graph(g), g.grad_fn.name()


def _graphs(T, f, *inputs, wrt=None):
    xs = [_leaf(T, a) for a in inputs]
    picked = [xs[k] for k in (range(len(xs)) if wrt is None else wrt)]
    gs = T.autograd.grad(f(T, T.nn.functional, *xs).sum(), picked, create_graph=True)
    return tuple(graph(g) for g in gs)


def _pointwise_loss(node: str) -> tuple:
    """The expected record of a point-wise loss's first gradients (by the input and the
    target): PyTorch's double-backward node with edges (grad_output, self, target), and zero
    values at the test's points."""
    edges = ((node, (None, (1, 0), (2, 0))), ("AccumulateGrad", ()), ("AccumulateGrad", ()))
    zeros = ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float64", None)
    return ((edges, edges), (zeros, zeros))


_CASES = {
    # PyTorch's double backward of prelu takes x >= 0 as positive (its kernel x > 0): at 0
    # the derivatives of the gradients by the weight and by x are 0, and by the incoming
    # gradient 1 (the weight's output of its node is output 1, symgrad's a node of its own)
    "prelu_at_zero": lambda T: _second(
        T, lambda T, F, x, w: F.prelu(x, w), _X, [0.25], graphs=(0,)
    ),
    "prelu_times_input": lambda T: _second(
        T, lambda T, F, x, w: F.prelu(x, w) * x, _X, [0.25], graphs=(0,)
    ),
    "prelu_channels_squared": lambda T: _second(
        T, lambda T, F, x, w: F.prelu(x, w) ** 2, _X, [0.5, -1.0, 2.0], graphs=(0,)
    ),
    # constant padding's gradient is constant_pad_nd of the gradient, cropping
    "constant_pad": lambda T: _second(T, lambda T, F, x: F.pad(x, (1, 2), value=2.0) ** 3, _X),
    "constant_pad_crop": lambda T: _second(T, lambda T, F, x: F.pad(x, (-1, 2, 1, 0)) ** 3, _X),
    # hardsigmoid_backward has no derivative: its gradient is a NotImplemented node with
    # edges to what requires grad (the incoming gradient, the input), an error when reached
    "hardsigmoid": lambda T: _second(T, lambda T, F, x: F.hardsigmoid(x * 3) * x, _X),
    "hardsigmoid_graph": lambda T: _first_graph(T, lambda T, F, x: F.hardsigmoid(x * 3), _X),
    "hardsigmoid_graph_squared": lambda T: _first_graph(
        T, lambda T, F, x: F.hardsigmoid(x) ** 2, _X
    ),
    "hardsigmoid_func_hessian": lambda T: T.func.hessian(
        lambda x: T.nn.functional.hardsigmoid(x).sum()
    )(T.tensor(_X[0])),
    # the losses' backward ops read (grad_output, self, target), in that order
    "mse_loss": lambda T: _second(T, lambda T, F, x, y: F.mse_loss(x, y), _X, _Y),
    "smooth_l1_loss": lambda T: _second(
        T, lambda T, F, x, y: F.smooth_l1_loss(x, y, reduction="sum", beta=0.5), _X, _Y
    ),
    "huber_loss": lambda T: _second(
        T, lambda T, F, x, y: F.huber_loss(x, y, reduction="none", delta=2.0), _X, _Y
    ),
    "binary_cross_entropy": lambda T: _second(
        T, lambda T, F, p, q: F.binary_cross_entropy(p, q, reduction="sum"), _P, _Q
    ),
    "binary_cross_entropy_weight": lambda T: _second(
        T,
        lambda T, F, p: F.binary_cross_entropy(p, T.tensor(_Q, dtype=p.dtype), weight=p[0]),
        _P,
    ),
    "soft_margin_loss": lambda T: _second(
        T, lambda T, F, x: F.soft_margin_loss(x, T.tensor([[1.0, -1.0, 1.0]] * 2)), _X
    ),
    # kl_div's target term is xlogy(target, target)
    "kl_div": lambda T: _second(
        T, lambda T, F, x, q: F.kl_div(x, q, reduction="none"), _X, _Q, graphs=()
    ),
    "kl_div_graph": lambda T: graph(
        T.nn.functional.kl_div(_leaf(T, _X), _leaf(T, _Q), reduction="none")
    ),
    # no double backward: NotImplemented nodes
    "multi_margin_loss": lambda T: _first_graph(
        T, lambda T, F, x: F.multi_margin_loss(x, T.tensor([2, 0]), p=2), _X
    ),
    "multi_margin_loss_second": lambda T: _second(
        T, lambda T, F, x: F.multi_margin_loss(x, T.tensor([2, 0])), _X
    ),
    "multilabel_margin_loss": lambda T: _first_graph(
        T, lambda T, F, x: F.multilabel_margin_loss(x * x, T.tensor([[1, -1, 0], [0, 2, -1]])), _X
    ),
    "multilabel_margin_loss_second": lambda T: _second(
        T, lambda T, F, x: F.multilabel_margin_loss(x, T.tensor([[1, -1, 0], [0, 2, -1]])), _X
    ),
    # pdist's and cdist's backward ops have no derivative (PyTorch's not_implemented)
    "pdist": lambda T: _first_graph(T, lambda T, F, x: F.pdist(x, p=3) ** 2, _X),
    "pdist_second": lambda T: _second(T, lambda T, F, x: F.pdist(x), _X),
    "cdist_graphs": lambda T: _graphs(
        T, lambda T, F, x, y: T.cdist(x, y) ** 2, _X, [[1.0, 2.0, 0.0], [0.5, 0.5, 0.5]]
    ),
    "cdist_batched": lambda T: _graphs(
        T, lambda T, F, x, y: T.cdist(x[None], y[None], p=1), _X, _Y, wrt=(1,)
    ),
    "cdist_second": lambda T: _second(T, lambda T, F, x, y: T.cdist(x, y, p=1.5), _X, _Y),
    # the matrix-product path's gradient has a derivative: finite where a distance is 0
    "cdist_matrix_product_second_at_zero": lambda T: _second(
        T,
        lambda T, F, x, y: T.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
        _X,
        [_X[1], [0.0, 0.0, 2.0]],
        graphs=(),
    ),
}

_EXPECTED: dict = {
    "prelu_at_zero": (
        (
            (
                ("PreluKernelBackwardBackward0", (None, (1, 0), (2, 0))),
                ("AccumulateGrad", ()),
                ("ViewBackward0", ((3, 0),)),
                ("AccumulateGrad", ()),
            ),
        ),
        (([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], "float64", None), ([6.0], "float64", None)),
    ),
    "prelu_times_input": (
        (
            (
                ("AddBackward0", ((1, 0), (2, 0))),
                ("MulBackward0", (None, (3, 0))),
                ("PreluKernelBackwardBackward0", ((4, 0), (5, 0), (6, 0))),
                ("PreluKernelBackward0", ((5, 0), (6, 0))),
                ("MulBackward0", (None, (5, 0))),
                ("AccumulateGrad", ()),
                ("ViewBackward0", ((7, 0),)),
                ("AccumulateGrad", ()),
            ),
        ),
        (([[-1.5, 2.5, 6.0], [5.0, -3.5, 12.0]], "float64", None), ([-32.0], "float64", None)),
    ),
    "prelu_channels_squared": (
        (
            (
                ("PreluKernelBackwardBackward0", ((1, 0), (2, 0), (3, 0))),
                ("MulBackward0", (None, (4, 0))),
                ("AccumulateGrad", ()),
                ("ViewBackward0", ((5, 0),)),
                ("MulBackward1", ((6, 0),)),
                ("AccumulateGrad", ()),
                ("PowBackward0", ((7, 0),)),
                ("PreluKernelBackward0", ((2, 0), (3, 0))),
            ),
        ),
        (
            ([[-1.5, -4.0, 6.0], [4.0, 34.0, 12.0]], "float64", None),
            ([0.0, 96.0, 0.0], "float64", None),
        ),
    ),
    "constant_pad": (
        (
            (
                ("ConstantPadNdBackward0", ((1, 0),)),
                ("MulBackward0", (None, (2, 0))),
                ("MulBackward1", ((3, 0),)),
                ("PowBackward0", ((4, 0),)),
                ("ConstantPadNdBackward0", ((5, 0),)),
                ("AccumulateGrad", ()),
            ),
        ),
        (([[-6.0, 0.0, 36.0], [0.0, -90.0, 18.0]], "float64", None),),
    ),
    "constant_pad_crop": (
        (
            (
                ("ConstantPadNdBackward0", ((1, 0),)),
                ("MulBackward0", (None, (2, 0))),
                ("MulBackward1", ((3, 0),)),
                ("PowBackward0", ((4, 0),)),
                ("ConstantPadNdBackward0", ((5, 0),)),
                ("AccumulateGrad", ()),
            ),
        ),
        (([[0.0, 0.0, 36.0], [0.0, -90.0, 18.0]], "float64", None),),
    ),
    "hardsigmoid": ("raises", "RuntimeError"),
    "hardsigmoid_graph": (
        (
            ("MulBackward0", ((1, 0), None)),
            ("NotImplemented", ((2, 0),)),
            ("MulBackward0", ((3, 0), None)),
            ("AccumulateGrad", ()),
        ),
        "MulBackward0",
    ),
    "hardsigmoid_graph_squared": (
        (
            ("NotImplemented", ((1, 0), (2, 0))),
            ("MulBackward0", (None, (3, 0))),
            ("AccumulateGrad", ()),
            ("MulBackward1", ((4, 0),)),
            ("PowBackward0", ((5, 0),)),
            ("HardsigmoidBackward0", ((2, 0),)),
        ),
        "torch::autograd::NotImplemented",
    ),
    "hardsigmoid_func_hessian": ("raises", "NotImplementedError"),
    "mse_loss": _pointwise_loss("MseLossBackwardBackward0"),
    "smooth_l1_loss": _pointwise_loss("SmoothL1LossBackwardBackward0"),
    "huber_loss": _pointwise_loss("HuberLossBackwardBackward0"),
    "binary_cross_entropy": (
        (
            (
                ("BinaryCrossEntropyBackwardBackward0", (None, (1, 0), (2, 0))),
                ("AccumulateGrad", ()),
                ("AccumulateGrad", ()),
            ),
            (
                ("MulBackward0", ((1, 0), None)),
                ("NegBackward0", ((2, 0),)),
                ("LogitBackward0", ((3, 0),)),
                ("AccumulateGrad", ()),
            ),
        ),
        (
            ([[-4.6875, 0.0, -29.6296], [3.6281, 49.3827, 2.0833]], "float64", None),
            ([[-6.25, -8.0, -33.3333], [-19.0476, -55.5556, -25.0]], "float64", None),
        ),
    ),
    "binary_cross_entropy_weight": ("raises", "RuntimeError"),
    "soft_margin_loss": (
        ((("SoftMarginLossBackwardBackward0", (None, (1, 0))), ("AccumulateGrad", ())),),
        (([[0.0328, 0.0833, 0.0525], [0.1667, 0.0376, 0.235]], "float64", None),),
    ),
    "kl_div": (
        (),
        (
            ([[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]], "float64", None),
            ([["nan", 4.6667, 0.0], [2.6667, 20.0, 6.0]], "float64", None),
        ),
    ),
    "kl_div_graph": (
        ("SubBackward0", ((1, 0), (2, 0))),
        ("XlogyBackward0", ((3, 0), (3, 0))),
        ("MulBackward0", ((3, 0), (4, 0))),
        ("AccumulateGrad", ()),
        ("AccumulateGrad", ()),
    ),
    "multi_margin_loss": (
        (("NotImplemented", ((1, 0),)), ("AccumulateGrad", ())),
        "torch::autograd::NotImplemented",
    ),
    "multi_margin_loss_second": ("raises", "RuntimeError"),
    "multilabel_margin_loss": (
        (
            ("AddBackward0", ((1, 0), (2, 0))),
            ("MulBackward0", ((3, 0), (4, 0))),
            ("MulBackward0", ((3, 0), (4, 0))),
            ("NotImplemented", ((5, 0),)),
            ("AccumulateGrad", ()),
            ("MulBackward0", ((4, 0), (4, 0))),
        ),
        "AddBackward0",
    ),
    "multilabel_margin_loss_second": ("raises", "RuntimeError"),
    "pdist": (
        (
            ("PdistBackwardBackward0", ((1, 0), (2, 0), (3, 0))),
            ("MulBackward0", (None, (4, 0))),
            ("AccumulateGrad", ()),
            ("PdistBackward0", ((2, 0),)),
            ("MulBackward1", ((5, 0),)),
            ("PowBackward0", ((3, 0),)),
        ),
        "PdistBackwardBackward0",
    ),
    "pdist_second": ("raises", "NotImplementedError"),
    "cdist_graphs": (
        (
            ("CdistBackwardBackward0", ((1, 0), (2, 0), (3, 0), (4, 0))),
            ("MulBackward0", (None, (5, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("CdistBackward0", ((2, 0), (3, 0))),
            ("MulBackward1", ((6, 0),)),
            ("PowBackward0", ((4, 0),)),
        ),
        (
            ("CdistBackwardBackward0", ((1, 0), (2, 0), (3, 0), (4, 0))),
            ("CloneBackward0", ((5, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("CloneBackward0", ((6, 0),)),
            ("TransposeBackward0", ((7, 0),)),
            ("TransposeBackward0", ((8, 0),)),
            ("MulBackward0", (None, (9, 0))),
            ("CdistBackward0", ((3, 0), (2, 0))),
            ("MulBackward1", ((10, 0),)),
            ("PowBackward0", ((8, 0),)),
        ),
    ),
    "cdist_batched": (
        (
            ("SqueezeBackward1", ((1, 0),)),
            ("CdistBackwardBackward0", (None, (2, 0), (3, 0), (4, 0))),
            ("UnsqueezeBackward0", ((5, 0),)),
            ("UnsqueezeBackward0", ((6, 0),)),
            ("CloneBackward0", ((7, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((8, 0),)),
            ("CdistBackward0", ((3, 0), (2, 0))),
        ),
    ),
    "cdist_second": ("raises", "NotImplementedError"),
    "cdist_matrix_product_second_at_zero": (
        (),
        (
            ([[0.0, -3.0, -3.0], [0.0, 0.0, 0.0]], "float64", None),
            ([[0.0, 0.0, 0.0], [0.0, 3.0, 3.0]], "float64", None),
        ),
    ),
}

CASES = {name: (fn, _EXPECTED.get(name)) for name, fn in _CASES.items()}
test_symgrad, test_table_is_pytorchs = table_tests(CASES)
