"""Under ``create_graph=True`` the gradients of reductions, norms, activations and losses are
recorded with the ops of PyTorch's own backward formulas: the graph of the first gradient has
PyTorch's nodes (plain expected trees, checked against PyTorch when it is importable), and
the second and third derivatives agree with finite differences and with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])

_RNG = np.random.default_rng(7)
X = _RNG.standard_normal((3, 4))
X_ZERO_ROW = np.vstack([np.zeros((1, 4)), X[1:]])
Y = _RNG.standard_normal((3, 4))
PROBABILITIES = _RNG.random((3, 4)) * 0.8 + 0.1
WEIGHT = _RNG.standard_normal((5, 4))
BIAS = _RNG.standard_normal(5)
X_WIDE = X.copy()
X_WIDE[0, :] = [30.0, -30.0, 100.0, 0.0]
X_ORIGIN, Y_ORIGIN = X.copy(), Y.copy()
X_ORIGIN[0, 0] = Y_ORIGIN[0, 0] = 0.0
X_TIED, Y_TIED = X.copy(), Y.copy()
X_TIED[0, 0] = Y_TIED[0, 0]
X_TIED[1, 1] = Y_TIED[2, 2] = np.nan
BATCH_A = _RNG.standard_normal((2, 3, 4))
BATCH_B = _RNG.standard_normal((2, 4, 2))
TIES = np.array([[1.0, 3.0, 3.0, -2.0], [0.5, 0.5, -1.0, -1.0], [2.0, -4.0, 1.5, 3.0]])


def _vector_norm(order, **kw):
    return lambda T, x: T.linalg.vector_norm(x, order, **kw) * x.sum(1)


# program, inputs (the gradient is taken for the first), the first gradient's graph: each
# node's name indented under the node that uses it (None: an input without a graph), 4 deep
# (only the top node where PyTorch's dedicated backward node of two inputs orders them
# otherwise)
CASES = {
    "mean": (
        lambda T, x: x.mean() * x,
        [X],
        """
        AddBackward0
          MulBackward0
            None
            MeanBackward0
              AccumulateGrad
          DivBackward1
            ExpandBackward0
              SumBackward0
        """,
    ),
    "mean_dim": (
        lambda T, x: x.mean(1, keepdim=True) * x,
        [X],
        """
        AddBackward0
          MulBackward0
            None
            MeanBackward1
              AccumulateGrad
          DivBackward1
            ExpandBackward0
              SumBackward1
        """,
    ),
    "norm": (
        lambda T, x: x.norm(),
        [X_ZERO_ROW],
        """
        MulBackward0
          None
          MaskedFillBackward0
            DivBackward0
              AccumulateGrad
              LinalgVectorNormBackward0
        """,
    ),
    "vector_norm_2_dim": (
        _vector_norm(2, dim=1),
        [X_ZERO_ROW],
        """
        AddBackward0
          ExpandBackward0
            UnsqueezeBackward0
              MulBackward0
          MulBackward0
            UnsqueezeBackward0
              MulBackward0
            MaskedFillBackward0
              DivBackward0
        """,
    ),
    "vector_norm_1": (
        _vector_norm(1, dim=1),
        [X],
        """
        AddBackward0
          ExpandBackward0
            UnsqueezeBackward0
              MulBackward0
          MulBackward0
            SgnBackward0
              AccumulateGrad
            UnsqueezeBackward0
              MulBackward0
        """,
    ),
    "vector_norm_inf": (
        _vector_norm(float("inf"), dim=1),
        [X],
        """
        AddBackward0
          ExpandBackward0
            UnsqueezeBackward0
              MulBackward0
          MulBackward0
            SgnBackward0
              AccumulateGrad
            MulBackward0
              DivBackward0
              None
        """,
    ),
    "vector_norm_3": (
        _vector_norm(3, dim=1),
        [X_ZERO_ROW],
        """
        AddBackward0
          ExpandBackward0
            UnsqueezeBackward0
              MulBackward0
          MulBackward0
            MulBackward0
              AccumulateGrad
              PowBackward0
            MaskedFillBackward0
              DivBackward0
        """,
    ),
    "vector_norm_1_5": (
        _vector_norm(1.5, dim=1),
        [X_ZERO_ROW],
        """
        AddBackward0
          ExpandBackward0
            UnsqueezeBackward0
              MulBackward0
          MulBackward0
            MulBackward0
              SgnBackward0
              PowBackward0
            MaskedFillBackward0
              DivBackward0
        """,
    ),
    "vector_norm_0_5": (
        _vector_norm(0.5, dim=1),
        [X],
        """
        AddBackward0
          ExpandBackward0
            UnsqueezeBackward0
              MulBackward0
          MulBackward0
            MulBackward0
              MulBackward0
              UnsqueezeBackward0
            PowBackward0
              UnsqueezeBackward0
        """,
    ),
    "dist": (
        lambda T, x, y: T.dist(x, y),
        [X, Y],
        """
        MulBackward0
          None
          MaskedFillBackward0
            DivBackward0
              SubBackward0
              DistBackward0
        """,
    ),
    "var": (
        lambda T, x: x.var(),
        [X],
        """
        MulBackward0
          None
          SubBackward0
            AccumulateGrad
            MeanBackward0
              AccumulateGrad
        """,
    ),
    "var_dim_correction_0": (
        lambda T, x: x.var(1, correction=0),
        [X],
        """
        MulBackward0
          None
          SubBackward0
            AccumulateGrad
            MeanBackward1
              AccumulateGrad
        """,
    ),
    "var_1d_dim": (
        lambda T, x: x[0].var(0) * x,
        [X],
        """
        AddBackward0
          MulBackward0
            None
            VarBackward0
              SelectBackward0
          SelectBackwardBackward0
            MulBackward0
              MulBackward1
              SubBackward0
        """,
    ),
    "std": (
        lambda T, x: x.std(),
        [X],
        """
        MulBackward0
          MulBackward1
            MaskedFillBackward0
              DivBackward0
          SubBackward0
            AccumulateGrad
            MeanBackward0
              AccumulateGrad
        """,
    ),
    "std_dim": (
        lambda T, x: x.std(0),
        [X],
        """
        MulBackward0
          MulBackward1
            UnsqueezeBackward0
              MaskedFillBackward0
          SubBackward0
            AccumulateGrad
            MeanBackward1
              AccumulateGrad
        """,
    ),
    "std_mean": (
        lambda T, x: T.std_mean(x, 1)[0] * T.std_mean(x, 1)[1],
        [X],
        """
        AddBackward0
          DivBackward1
            ExpandBackward0
              UnsqueezeBackward0
          MulBackward0
            MulBackward1
              UnsqueezeBackward0
            SubBackward0
              AccumulateGrad
              MeanBackward1
        """,
    ),
    "max": (
        lambda T, x: x.max() * x,
        [TIES],
        """
        AddBackward0
          MulBackward0
            None
            MaxBackward1
              AccumulateGrad
          MaskedFillBackward1
            None
            DivBackward0
              SumBackward0
              None
        """,
    ),
    "min_0d": (
        lambda T, x: x[0, 0].min() * x,
        [X],
        """
        AddBackward0
          MulBackward0
            None
            MinBackward1
              SelectBackward0
          SelectBackwardBackward0
            SelectBackwardBackward0
              MaskedFillBackward1
        """,
    ),
    "max_dim": (
        lambda T, x: x.max(1).values * x.sum(1),
        [TIES],
        """
        AddBackward0
          ExpandBackward0
            UnsqueezeBackward0
              MulBackward0
          ScatterBackward0
            None
            UnsqueezeBackward0
              MulBackward0
        """,
    ),
    "min_dim_keepdim": (
        lambda T, x: x.min(0, keepdim=True)[0] * x,
        [TIES],
        """
        AddBackward0
          MulBackward0
            None
            MinBackward0
              AccumulateGrad
          ScatterBackward0
            None
            SumBackward1
              MulBackward0
        """,
    ),
    "amax_dim": (
        lambda T, x: x.amax(1) * x.sum(1),
        [TIES],
        """
        AddBackward0
          ExpandBackward0
            UnsqueezeBackward0
              MulBackward0
          MulBackward0
            DivBackward0
              ViewBackward0
              None
            None
        """,
    ),
    "amax_keepdim": (
        lambda T, x: x.amax(1, keepdim=True) * x,
        [TIES],
        """
        AddBackward0
          MulBackward0
            None
            AmaxBackward0
              AccumulateGrad
          MulBackward0
            DivBackward0
              SumBackward1
              None
            None
        """,
    ),
    "amin": (
        lambda T, x: x.amin() * x,
        [TIES],
        """
        AddBackward0
          MulBackward0
            None
            AminBackward0
              AccumulateGrad
          MulBackward0
            DivBackward0
              ViewBackward0
              None
            None
        """,
    ),
    "amin_dims": (
        lambda T, x: x.amin((0, 1)) * x,
        [TIES],
        """
        AddBackward0
          MulBackward0
            None
            AminBackward0
              AccumulateGrad
          MulBackward0
            DivBackward0
              ViewBackward0
              None
            None
        """,
    ),
    "silu": (
        lambda T, x: T.nn.functional.silu(x),
        [X_WIDE],
        """
        MulBackward0
          MulBackward0
            None
            SigmoidBackward0
              AccumulateGrad
          AddBackward1
            MulBackward0
              AccumulateGrad
              SubBackward0
        """,
    ),
    "mish": (
        lambda T, x: T.nn.functional.mish(x),
        [X_WIDE],
        """
        MulBackward0
          None
          AddBackward0
            TanhBackward0
              Log1PBackward0
            MulBackward0
              MulBackward0
              SubBackward0
        """,
    ),
    "gelu_tanh": (
        lambda T, x: T.nn.functional.gelu(x, approximate="tanh"),
        [X],
        "GeluBackwardBackward0",
    ),
    "binary_cross_entropy": (
        lambda T, x, y: T.nn.functional.binary_cross_entropy(x, y),
        [PROBABILITIES, PROBABILITIES[::-1].copy()],
        "BinaryCrossEntropyBackwardBackward0",
    ),
    "atan2": (
        lambda T, x, y: T.atan2(x, y),
        [X_ORIGIN, Y_ORIGIN],
        """
        MulBackward0
          MulBackward0
            None
            AccumulateGrad
          MaskedFillBackward0
            ReciprocalBackward0
              AddBackward0
        """,
    ),
    "atan2_other": (
        lambda T, y, x: T.atan2(x, y),
        [Y_ORIGIN, X_ORIGIN],
        """
        MulBackward0
          MulBackward0
            None
            NegBackward0
              AccumulateGrad
          MaskedFillBackward0
            ReciprocalBackward0
              AddBackward0
        """,
    ),
    "hypot": (
        lambda T, x, y: T.hypot(x, y),
        [X, Y],
        """
        DivBackward0
          MulBackward0
            None
            AccumulateGrad
          HypotBackward0
            AccumulateGrad
            AccumulateGrad
        """,
    ),
    "maximum": (
        lambda T, x, y: T.maximum(x, y).pow(2),
        [X_TIED, Y_TIED],
        """
        MaskedFillBackward0
          WhereBackward0
        """,
    ),
    "maximum_other": (
        lambda T, y, x: T.maximum(x, y).pow(2),
        [Y_TIED, X_TIED],
        """
        MaskedFillBackward0
          WhereBackward0
        """,
    ),
    "minimum": (
        lambda T, x, y: T.minimum(x, y).pow(2),
        [X_TIED, Y_TIED],
        """
        MaskedFillBackward0
          WhereBackward0
        """,
    ),
    "fmax": (
        lambda T, x, y: T.fmax(x, y).pow(2),
        [X_TIED, Y_TIED],
        """
        MaskedFillBackward0
          MulBackward0
            None
            MulBackward1
              PowBackward0
        """,
    ),
    "fmin_other": (
        lambda T, y, x: T.fmin(x, y).pow(2),
        [Y_TIED, X_TIED],
        """
        MaskedFillBackward0
          MulBackward0
            None
            MulBackward1
              PowBackward0
        """,
    ),
    "linear_bias": (
        lambda T, b, x, w: T.nn.functional.linear(x, w, b).pow(2),
        [BIAS, X, WEIGHT],
        """
        ViewBackward0
          SumBackward1
            MulBackward0
              None
              MulBackward1
        """,
    ),
    "addmm_scaled_input": (
        lambda T, b, x, w: T.addmm(b, x, w.t(), beta=0.5, alpha=2).pow(2),
        [BIAS, X, WEIGHT],
        """
        ViewBackward0
          SumBackward1
            MulBackward1
              MulBackward0
        """,
    ),
    "addmm_scaled_mat1": (
        lambda T, x, b, w: T.addmm(b, x, w.t(), beta=0.5, alpha=2).pow(2),
        [X, BIAS, WEIGHT],
        """
        MulBackward1
          MmBackward0
            MulBackward0
              None
              MulBackward1
            TBackward0
              TBackward0
        """,
    ),
    "matrix_vector": (
        lambda T, a, v: (a @ v[:4]).pow(2),
        [X, BIAS],
        """
        MulBackward0
          ViewBackward0
            MulBackward0
              None
              MulBackward1
          SliceBackward0
            AccumulateGrad
        """,
    ),
    "matrix_vector_vector": (
        lambda T, v, a: T.mv(a, v[:4]).pow(2),
        [BIAS, X],
        """
        SliceBackwardBackward0
          MvBackward0
            TBackward0
              AccumulateGrad
            MulBackward0
              None
              MulBackward1
        """,
    ),
    "dot": (
        lambda T, u, v: (u @ v).pow(3),
        [BIAS, BIAS[::-1].copy()],
        """
        MulBackward0
          MulBackward0
            None
            MulBackward1
              PowBackward0
          AccumulateGrad
        """,
    ),
    "embedding": (
        lambda T, w: T.nn.functional.embedding(T.tensor([[1, 2, 1], [0, 4, 2]]), w).pow(2),
        [WEIGHT],
        """
        EmbeddingDenseBackwardBackward0
          MulBackward0
            None
            MulBackward1
              PowBackward0
        """,
    ),
    "index_select": (
        lambda T, x: x.index_select(1, T.tensor([0, 2, 2])).pow(2),
        [X],
        "IndexAddBackward0",
    ),
    "lerp": (
        lambda T, x, y: T.lerp(x, y, 0.3).pow(2),
        [X, Y],
        """
        MulBackward1
          MulBackward0
            None
            MulBackward1
              PowBackward0
        """,
    ),
    "lerp_end": (
        lambda T, y, x: T.lerp(x, y, 0.3).pow(2),
        [Y, X],
        """
        MulBackward1
          MulBackward0
            None
            MulBackward1
              PowBackward0
        """,
    ),
    "lerp_tensor": (
        lambda T, x, y: T.lerp(x, y, y.detach()).pow(2),
        [X, Y],
        """
        MulBackward0
          MulBackward0
            None
            MulBackward1
              PowBackward0
          None
        """,
    ),
    "lerp_weight": (
        lambda T, w, x: T.lerp(x.detach(), x.detach() * 2, w).pow(2),
        [X, Y],
        """
        MulBackward0
          MulBackward0
            None
            MulBackward1
              PowBackward0
          None
        """,
    ),
    # ATen's Scalar subtraction and wrapped-number ``1 - t`` in their formulas
    "acosh": (
        lambda T, x: (x * x + 1.5).acosh(),
        [X],
        """
        AddBackward0
          MulBackward0
            MulBackward0
              None
              RsqrtBackward0
            AccumulateGrad
          MulBackward0
            MulBackward0
              None
              RsqrtBackward0
            AccumulateGrad
        """,
    ),
    "logit": (
        lambda T, x: (x.sigmoid() * 0.9).logit(),
        [X],
        """
        SigmoidBackwardBackward0
          MulBackward0
            WhereBackward0
              DivBackward0
              None
            None
          SigmoidBackward0
            AccumulateGrad
        """,
    ),
    "lerp_tensor_weight": (
        lambda T, x, y, w: T.lerp(x, y, w) * x,
        [X, Y, PROBABILITIES],
        """
        AddBackward0
          MulBackward0
            None
            LerpBackward1
              AccumulateGrad
              AccumulateGrad
              AccumulateGrad
          MulBackward0
            MulBackward0
              None
              AccumulateGrad
            SubBackward0
              None
              AccumulateGrad
        """,
    ),
    # bmm's gradient is bmm products (BmmBackward0), not matmul's batched reshapes
    "bmm": (
        lambda T, a, b: T.bmm(a, b) * a.sum(2, keepdim=True),
        [BATCH_A, BATCH_B],
        """
        AddBackward0
          ExpandBackward0
            SumBackward1
              MulBackward0
          BmmBackward0
            MulBackward0
              None
              SumBackward1
            TransposeBackward0
              AccumulateGrad
        """,
    ),
    # rrelu in training: its backward op's edges are the gradient and the input (the result
    # in place), none to the drawn slopes
    "rrelu_training": (
        lambda T, x: (T.manual_seed(0), T.nn.functional.rrelu(x * x.sum(), training=True))[1],
        [X],
        """
        AddBackward0
          MulBackward0
            RreluWithNoiseBackwardBackward0
              None
              MulBackward0
            SumBackward0
              AccumulateGrad
          ExpandBackward0
            SumBackward0
              MulBackward0
        """,
    ),
    "rrelu_training_in_place": (
        lambda T, x: (
            T.manual_seed(0),
            T.nn.functional.rrelu(x * x.sum(), training=True, inplace=True),
        )[1],
        [X],
        """
        AddBackward0
          MulBackward0
            RreluWithNoiseBackwardBackward0
              None
              RreluWithNoiseBackward1
            SumBackward0
              AccumulateGrad
          ExpandBackward0
            SumBackward0
              MulBackward0
        """,
    ),
    # a gradient of the singular values alone: PyTorch's svd_backward shortcut, U scaled by
    # them (columns for a wide matrix, Vh's rows for a tall one) times Vh
    "nuclear_norm": (
        lambda T, x: T.linalg.matrix_norm(x, "nuc") * x,
        [X],
        """
        AddBackward0
          MulBackward0
            None
            SumBackward1
              LinalgSvdBackward0
                PermuteBackward0
          PermuteBackward0
            MmBackward0
              MulBackward0
                LinalgSvdBackward0
                UnsqueezeBackward0
              LinalgSvdBackward0
                PermuteBackward0
        """,
    ),
}


def _tree(node, depth=4, indent=0):
    if node is None:
        return ["  " * indent + "None"]
    lines = ["  " * indent + type(node).__name__]
    if depth > 1:
        for child, _ in node.next_functions:
            lines += _tree(child, depth - 1, indent + 1)
    return lines


def _inputs(lib, arrays, dtype="float64"):
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


def _first(lib, name, dtype="float64"):
    fn, arrays, _ = CASES[name]
    xs = _inputs(lib, arrays, dtype)
    (g,) = lib.autograd.grad(fn(lib, *xs).sum(), xs[0], create_graph=True)
    return xs, g


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(CASES))
def test_first_gradient_graph_is_pytorchs(lib, name):
    _, g = _first(lib, name)
    lines = [line for line in CASES[name][2].splitlines() if line.strip()]
    indents = [len(line) - len(line.lstrip()) for line in lines]
    depth = 1 + (max(indents) - min(indents)) // 2  # as deep as the expected tree goes
    expected = [line.strip() for line in lines]
    assert [line.strip() for line in _tree(g.grad_fn, depth)] == expected


def _derivatives(lib, name, dtype):
    """The first gradient, the second (of the sum of the first, for every input), and the
    third (of the sum of the second, for the first input), as arrays."""
    xs, g = _first(lib, name, dtype)
    seconds = lib.autograd.grad(g.sum(), xs, create_graph=True, allow_unused=True)
    h = seconds[0]
    third = None
    if h is not None and h.requires_grad:
        (third,) = lib.autograd.grad(h.sum(), xs[0], allow_unused=True)
    arrays = [g] + list(seconds) + [third]
    # (PyTorch's zero gradients are ZeroTensors, which convert only with force=True)
    return [None if a is None else a.detach().numpy(force=True).copy() for a in arrays]


NOT_SMOOTH = (TIES, X_TIED, Y_TIED)  # (ties, where the extrema are not differentiable; nans)


@pytest.mark.parametrize(
    "name", sorted(n for n in CASES if not any(a is b for a in CASES[n][1] for b in NOT_SMOOTH))
)
def test_second_derivative_agrees_with_finite_differences(name):
    fn, arrays, _ = CASES[name]
    step = 1e-6

    def first_sum(shifted):
        xs = _inputs(symgrad, [shifted] + arrays[1:])
        (g,) = symgrad.autograd.grad(fn(symgrad, *xs).sum(), xs[0], create_graph=True)
        return float(g.detach().sum())

    h = _derivatives(symgrad, name, "float64")[1]
    base = arrays[0]
    for index in [4, base.size - 1]:  # (two elements, by their flat position)
        up, down = base.copy(), base.copy()
        up.flat[index] += step
        down.flat[index] -= step
        estimate = (first_sum(up) - first_sum(down)) / (2 * step)
        np.testing.assert_allclose(h.flat[index], estimate, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives_of_every_order_agree_with_pytorch(name, dtype):
    ours, theirs = _derivatives(symgrad, name, dtype), _derivatives(torch, name, dtype)
    tol = 1e-10 if dtype == "float64" else 1e-5
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_binary_cross_entropy_target_gradient_is_minus_logit_unclamped(lib):
    # -logit(x): inf at x = 0 and -inf at x = 1 (the loss's log clamp does not apply)
    x = lib.tensor([0.0, 1.0, 0.25], dtype=lib.float64)
    y = lib.tensor([0.2, 0.5, 0.5], dtype=lib.float64, requires_grad=True)
    lib.nn.functional.binary_cross_entropy(x, y, reduction="sum").backward()
    np.testing.assert_allclose(y.grad.numpy(), [np.inf, -np.inf, np.log(3.0)], rtol=1e-12)


# the second derivative's graph: PyTorch differentiates tanh's, sigmoid's and softplus's
# backward ops by their own formulas (the order of those dedicated nodes' inputs is not
# compared)
SECOND = {
    "softplus": (
        lambda T, x: T.nn.functional.softplus(x, beta=2.0, threshold=3.0),
        ["MulBackward1", "MulBackward0"],
    ),
    "tanh": (lambda T, x: x.tanh(), ["TanhBackwardBackward0", "MulBackward0", "TanhBackward0"]),
    "sigmoid": (
        lambda T, x: x.sigmoid(),
        ["SigmoidBackwardBackward0", "MulBackward0", "SigmoidBackward0"],
    ),
}


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivative_graph_is_pytorchs(lib, name):
    fn, expected = SECOND[name]
    x = lib.tensor(X, requires_grad=True)
    (g,) = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), x, create_graph=True)
    top = h.grad_fn
    inputs = sorted(type(n).__name__ for n, _ in top.next_functions if n is not None)
    assert [type(top).__name__] + inputs == expected[:1] + sorted(expected[1:])
    (third,) = lib.autograd.grad(h.sum(), x)
    step = 1e-6
    up = lib.autograd.grad(fn(lib, x + step).sum(), x, create_graph=True)[0]
    down = lib.autograd.grad(fn(lib, x - step).sum(), x, create_graph=True)[0]
    up = lib.autograd.grad(up.sum(), x)[0]
    down = lib.autograd.grad(down.sum(), x)[0]
    np.testing.assert_allclose(third.numpy(), ((up - down) / (2 * step)).numpy(), rtol=1e-5)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_singular_values_gradient_of_a_tall_matrix_is_pytorchs(lib):
    # svd_backward's shortcut for a tall matrix scales Vh's rows: U @ (gS[:, None] * Vh)
    x = lib.tensor(X.T, requires_grad=True)
    (g,) = lib.autograd.grad(lib.linalg.svdvals(x).sum(), x, create_graph=True)
    assert [line.strip() for line in _tree(g.grad_fn, 3)] == [
        "MmBackward0",
        "LinalgSvdBackward0",
        "AccumulateGrad",
        "MulBackward0",
        "None",
        "LinalgSvdBackward0",
    ]
