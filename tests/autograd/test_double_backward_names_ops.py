"""Under ``create_graph=True`` the first gradient of more ops is recorded with the ops of
PyTorch's own formulas, so its node has PyTorch's name (plain expected names, checked against
PyTorch when it is installed), and the second derivatives agree with finite differences and
with PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from _torch_table import table_tests

import symgrad

_RNG = np.random.default_rng(11)
X = _RNG.standard_normal((3, 4))
X_POSITIVE = np.abs(X) + 0.5
X_UNIT = _RNG.random((3, 4)) * 0.8 + 0.1
IMAGE = _RNG.standard_normal((1, 4, 2, 2))
IMAGE_WIDE = _RNG.standard_normal((1, 1, 4, 4))
OTHER = X + 1.0
X_ZEROS = X.copy()
X_ZEROS[0, 1] = X_ZEROS[1, 2] = X_ZEROS[2, 0] = X_ZEROS[2, 3] = 0.0


def _index(T, values):
    return T.tensor(values)


# name: (program of x, x, the first gradient's node when the program's output is squared)
PROGRAMS = {
    "glu": (lambda T, x: T.nn.functional.glu(x), X, "GluBackwardBackward0"),
    "glu_dim0": (lambda T, x: T.nn.functional.glu(x, 0), X.T.copy(), "GluBackwardBackward0"),
    "cumprod_zeros": (lambda T, x: x.cumprod(1), X_ZEROS, "CopySlices"),
    "cumprod_zeros_dim0": (lambda T, x: x.cumprod(0), X_ZEROS, "CopySlices"),
    "cumprod": (lambda T, x: x.cumprod(1), X, "DivBackward0"),
    "as_strided": (lambda T, x: x.as_strided((2, 2), (1, 2), 1), X, "AsStridedBackward0"),
    "as_strided_overlapping": (
        lambda T, x: (x * 1).as_strided((3, 2), (1, 1)),
        X,
        "MulBackward0",
    ),
    "median": (lambda T, x: x.median(), X, "MaskedFillBackward1"),
    "nanmedian": (lambda T, x: x.nanmedian(), X, "MaskedFillBackward1"),
    "pixel_shuffle": (
        lambda T, x: T.nn.functional.pixel_shuffle(x, 2),
        IMAGE,
        "PixelUnshuffleBackward0",
    ),
    "pixel_unshuffle": (
        lambda T, x: T.nn.functional.pixel_unshuffle(x, 2),
        IMAGE_WIDE,
        "PixelShuffleBackward0",
    ),
    "channel_shuffle": (
        lambda T, x: T.nn.functional.channel_shuffle(x, 2),
        IMAGE,
        "ChannelShuffleBackward0",
    ),
    "index_add_alpha": (
        lambda T, x: x[:2].index_add(0, _index(T, [1, 1, 0]), x, alpha=2),
        X[:, :3],
        "AddBackward0",
    ),
    "special_entr": (lambda T, x: T.special.entr(x), X_POSITIVE, "MulBackward0"),
    "special_log_ndtr": (lambda T, x: T.special.log_ndtr(x), X, "MulBackward0"),
    "special_ndtri": (lambda T, x: T.special.ndtri(x), X_UNIT, "MulBackward0"),
    "xlogy_number_other": (lambda T, x: T.xlogy(x, 2.5), X, "XlogyBackward2"),
    "xlogy_number_other_negative": (lambda T, x: T.xlogy(x, -1.5), X, "MaskedFillBackward0"),
    "nextafter": (lambda T, x: T.nextafter(x, T.tensor(OTHER)), X, "WhereBackward0"),
}


def _set_into_zeros(T, x):
    y = T.zeros(3, 4, dtype=T.float64)
    y[1:, :2] = x
    return y


def _set_constant(T, x):
    y = x.clone()
    y[1:, :2] = 0.5
    return y


PROGRAMS["setitem_value"] = (_set_into_zeros, X[:2, :2].copy(), "CloneBackward0")
PROGRAMS["setitem_base"] = (_set_constant, X, "CopySlices")


INDEX = [[0, 1, 0, 1], [1, 1, 0, 0]]
SOURCE = X_POSITIVE[1:] * 2

PROGRAMS["scatter_reduce_mean_source"] = (
    lambda T, x: T.tensor(X_POSITIVE).scatter_reduce(0, T.tensor(INDEX), x, "mean"),
    X_POSITIVE[1:].copy(),
    "DivBackward0",
)
for _reduce in ("sum", "mean", "amax", "prod"):
    PROGRAMS[f"scatter_reduce_{_reduce}_exclude_self"] = (
        lambda T, x, r=_reduce: x.scatter_reduce(
            0, T.tensor(INDEX), T.tensor(SOURCE), r, include_self=False
        ),
        X_POSITIVE,
        "ScatterBackward1",
    )


def _squared_gradient(T, name):
    program, data, _ = PROGRAMS[name]
    x = T.tensor(data, dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(program(T, x).pow(2).sum(), x, create_graph=True)
    return g, x


def _first_gradient_node(name):
    return lambda T: type(_squared_gradient(T, name)[0].grad_fn).__name__


test_first_gradient_node, test_first_gradient_node_is_pytorchs = table_tests(
    {name: (_first_gradient_node(name), expected) for name, (_, _, expected) in PROGRAMS.items()}
)


def _second_derivative(T, name):
    g, x = _squared_gradient(T, name)
    weights = T.tensor(np.linspace(-1.0, 1.0, g.numel()).reshape(tuple(g.shape)))
    (h,) = T.autograd.grad((g * weights).sum(), x)
    return h.detach().numpy()


# (xlogy of a negative number is nan but at 0)
@pytest.mark.parametrize("name", [n for n in PROGRAMS if n != "xlogy_number_other_negative"])
def test_second_derivatives_agree_with_finite_differences(name):
    program, data, _ = PROGRAMS[name]
    x = symgrad.tensor(data, dtype=symgrad.float64, requires_grad=True)
    assert symgrad.autograd.gradgradcheck(lambda t: program(symgrad, t).pow(2), (x,))


@pytest.mark.torch
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_second_derivatives_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(
        _second_derivative(symgrad, name), _second_derivative(torch, name), rtol=1e-10, atol=1e-10
    )
