"""Forward mode's formulas where they are PyTorch's own: copysign's tangent (only the
magnitude's, so a zero keeps its sign and a tangent of the sign alone gives none), frexp's
mantissa (the tangent scaled by 2**-exponent), nansum's (the tangents of the values that are
not nan), scatter_reduce's amax and amin (the mean of the tied tangents), and the ops PyTorch
declares no forward-mode rule for, whose NotImplementedError names the ATen op.

Each scenario runs against a library ``T`` and gives an outcome: plain Python values, or the
exception's type and the start of its message; PyTorch's outcomes are compared when importable.
"""

from __future__ import annotations

import importlib
import math
import warnings

import pytest

import symgrad


def _fw(T):
    return importlib.import_module(T.__name__ + ".autograd.forward_ad")


def _tangent(T, f, primal, tangent):
    """The tangent of ``f`` at a dual of ``primal`` (float64) with ``tangent``: a list, or
    None where the output has none."""
    fw = _fw(T)
    with fw.dual_level():
        d = fw.make_dual(T.tensor(primal, dtype=T.float64), T.tensor(tangent, dtype=T.float64))
        t = fw.unpack_dual(f(T, d)).tangent
        return None if t is None else t.tolist()


def _signs(values):
    """Each number's sign bit as well as its value (-0.0 and 0.0 differ)."""
    return [[(v, math.copysign(1.0, v)) for v in row] for row in values]


def copysign_keeps_a_zero_tangents_sign(T):
    x, t = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], [[1.0, 0.0, -1.0], [2.0, 1.0, 0.5]]
    return _signs(_tangent(T, lambda T, d: T.copysign(d, -d.flip(1)), x, t))


def copysign_of_a_dual_sign_alone(T):
    return _tangent(
        T,
        lambda T, d: T.copysign(T.tensor([1.0, -2.0], dtype=T.float64), d),
        [3.0, -1.0],
        [1.0, 1.0],
    )


def frexp_mantissa(T):
    return _tangent(T, lambda T, d: T.frexp(d).mantissa, [0.0384, 3.0, -0.75], [1.0, 1.0, 1.0])


NAN = float("nan")


def nansum_leaves_out_the_nan_values(T):
    return _tangent(T, lambda T, d: T.nansum(d), [1.0, NAN, 3.0], [1.0, 1.0, 1.0])


def nanmean_leaves_out_the_nan_values(T):
    return _tangent(T, lambda T, d: T.nanmean(d), [1.0, NAN, 3.0], [1.0, 1.0, 1.0])


def nansum_keeps_a_nan_tangent_of_a_value(T):
    return math.isnan(_tangent(T, lambda T, d: T.nansum(d), [1.0, 2.0, 3.0], [1.0, NAN, 1.0]))


def scatter_amax_averages_the_tied_tangents(T):
    x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64)
    index = T.tensor([1, 1, 2])
    f = lambda T, d: x.scatter_reduce(0, index, d, "amax", include_self=False)  # noqa: E731
    return _tangent(T, f, [2.0, 2.0, 3.0], [1.0, 3.0, 5.0])


def scatter_amin_counts_the_input_where_included(T):
    src = T.tensor([1.0, 5.0, 2.0], dtype=T.float64)
    f = lambda T, d: d.scatter_reduce(0, T.tensor([0, 1, 2]), src, "amin")  # noqa: E731
    return _tangent(T, f, [1.0, 2.0, 3.0], [10.0, 20.0, 30.0])


def _refused(f, shape=(3, 3)):
    def scenario(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch.cholesky's deprecation)
            fw = _fw(T)
            with fw.dual_level():
                x = T.arange(1.0, 1.0 + math.prod(shape), dtype=T.float64).reshape(shape) / 10
                return f(T, fw.make_dual(x, T.ones(shape, dtype=T.float64))).tolist()

    scenario.__name__ = f.__name__
    return scenario


def cdist(T, d):
    return T.cdist(d, T.zeros(2, 3, dtype=T.float64))


def cdist_matrix_product_path(T, d):
    return T.cdist(d.repeat(10, 1), T.zeros(30, 3, dtype=T.float64))


def pdist(T, d):
    return T.nn.functional.pdist(d)


def igamma_of_the_input(T, d):
    return T.igamma(d, T.ones(3, 3, dtype=T.float64))


def igammac_of_the_other(T, d):
    return T.igammac(T.ones(3, 3, dtype=T.float64), d)


def zeta_of_q(T, d):
    return T.special.zeta(3.0, d)


def conv_tbc(T, d):
    w = T.ones(1, 3, 2, dtype=T.float64)
    return T.conv_tbc(d.reshape(3, 1, 3), w, T.ones(2, dtype=T.float64))


def embedding_bag(T, d):
    return T.nn.functional.embedding_bag(T.tensor([0, 2]), d, T.tensor([0]))


def grid_sample(T, d):
    grid = T.zeros(1, 1, 1, 2, dtype=T.float64)
    return T.nn.functional.grid_sample(d.reshape(1, 1, 3, 3), grid, align_corners=False)


def index_reduce(T, d):
    return d.index_reduce(0, T.tensor([0, 2]), T.ones(2, 3, dtype=T.float64), "prod")


def segment_reduce(T, d):
    return T.segment_reduce(d, "sum", lengths=T.tensor([1, 2]))


def multi_margin_loss(T, d):
    return T.nn.functional.multi_margin_loss(d, T.tensor([0, 1, 2]))


def multilabel_margin_loss(T, d):
    return T.nn.functional.multilabel_margin_loss(d, T.tensor([[0, -1, 1]] * 3))


def ctc_loss(T, d):
    lp = d.reshape(3, 1, 3).log_softmax(2)
    return T.nn.functional.ctc_loss(lp, T.tensor([[1]]), T.tensor([3]), T.tensor([1]))


def older_cholesky(T, d):
    return T.cholesky(d @ d.mT + T.eye(3, dtype=T.float64))


def ormqr(T, d):
    return T.ormqr(d, T.ones(3, dtype=T.float64), T.ones(3, 2, dtype=T.float64))


def rrelu_in_place(T, d):
    return T.nn.functional.rrelu_(d - 0.5)


def float32_lstm(T, d):
    T.manual_seed(0)
    return T.nn.LSTM(3, 2)(d.float().reshape(3, 1, 3))[0]


def heaviside(T, d):
    return T.heaviside(d, T.tensor(0.5, dtype=T.float64))


def heaviside_in_place(T, d):
    return (d * 1).heaviside_(T.tensor(0.5, dtype=T.float64))


def ldl_factor(T, d):
    return T.linalg.ldl_factor(d @ d.mT + T.eye(3, dtype=T.float64)).LD


def ldl_solve(T, d):
    LD, pivots = T.linalg.ldl_factor(T.eye(3, dtype=T.float64) * 2)
    return T.linalg.ldl_solve(LD, pivots, d)


def scatter_with_reduce(T, d):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the deprecated reduce argument)
        return d.scatter(0, T.tensor([[0, 1]]), T.ones(1, 2, dtype=T.float64), reduce="add")


def _no_derivative(op):
    return (
        "NotImplementedError",
        f"Trying to use forward AD with aten::{op} that does not support it.",
    )


def _no_rule(op):
    return (
        "NotImplementedError",
        f"Trying to use forward AD with {op} that does not support it because it has not been "
        "implemented yet.",
    )


EXPECTED = {
    copysign_keeps_a_zero_tangents_sign: (
        "ok",
        [
            [(-1.0, -1.0), (-0.0, -1.0), (1.0, 1.0)],
            [(-2.0, -1.0), (-1.0, -1.0), (-0.5, -1.0)],
        ],
    ),
    copysign_of_a_dual_sign_alone: ("ok", None),
    frexp_mantissa: ("ok", [16.0, 0.25, 1.0]),
    nansum_leaves_out_the_nan_values: ("ok", 2.0),
    nanmean_leaves_out_the_nan_values: ("ok", 1.0),
    nansum_keeps_a_nan_tangent_of_a_value: ("ok", True),
    # (the input's entry, equal to the result but left out, is not counted: the gradient's
    # split counts it)
    scatter_amax_averages_the_tied_tangents: ("ok", [0.0, 2.0, 5.0]),
    scatter_amin_counts_the_input_where_included: ("ok", [5.0, 20.0, 0.0]),
    _refused(cdist): _no_rule("_cdist_forward"),
    _refused(cdist_matrix_product_path): _no_rule("_euclidean_dist"),
    _refused(pdist): _no_rule("_pdist_forward"),
    _refused(igamma_of_the_input): _no_rule("igamma"),
    _refused(igammac_of_the_other): _no_rule("igammac"),
    _refused(zeta_of_q): _no_rule("special_zeta"),
    _refused(conv_tbc): _no_rule("conv_tbc"),
    _refused(embedding_bag): _no_rule("_embedding_bag"),
    _refused(grid_sample): _no_rule("grid_sampler_2d"),
    _refused(index_reduce): _no_rule("index_reduce"),
    _refused(segment_reduce): _no_rule("segment_reduce"),
    _refused(multi_margin_loss): _no_rule("multi_margin_loss"),
    _refused(multilabel_margin_loss): _no_rule("multilabel_margin_loss_forward"),
    _refused(ctc_loss): _no_rule("_ctc_loss"),
    _refused(older_cholesky): _no_rule("cholesky"),
    _refused(ormqr): _no_rule("ormqr"),
    _refused(rrelu_in_place): _no_rule("rrelu_with_noise_"),
    _refused(float32_lstm): _no_rule("mkldnn_rnn_layer"),
    _refused(heaviside): _no_derivative("heaviside"),
    _refused(heaviside_in_place): _no_derivative("heaviside_"),
    _refused(ldl_factor): _no_derivative("linalg_ldl_factor_ex"),
    _refused(ldl_solve): _no_derivative("linalg_ldl_solve"),
    _refused(scatter_with_reduce): _no_derivative("scatter"),
}
SCENARIOS = list(EXPECTED)


def _outcome(scenario, T):
    try:
        return ("ok", scenario(T))
    except Exception as exc:  # noqa: BLE001 - the outcome records any error
        return (type(exc).__name__, str(exc))


def _check(outcome, expected, library):
    assert outcome[0] == expected[0], (library, outcome)
    if outcome[0] == "ok":
        assert outcome[1] == expected[1], (library, outcome)
    else:
        assert outcome[1].startswith(expected[1]), (library, outcome)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_symgrad(scenario):
    _check(_outcome(scenario, symgrad), EXPECTED[scenario], "symgrad")


@pytest.mark.torch
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_pytorch(scenario):
    torch = pytest.importorskip("torch")
    _check(_outcome(scenario, torch), EXPECTED[scenario], "torch")


def _conv_tbc(T, x):
    return T.conv_tbc(
        x.reshape(3, 1, 2), T.ones(1, 2, 1, dtype=T.float64), T.ones(1, dtype=T.float64)
    )


def test_a_float64_lstm_has_tangents():
    """Only the fused float32 layer has no forward rule, as in PyTorch."""
    fw = symgrad.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(symgrad.ones(4, 1, 3, dtype=symgrad.float64), symgrad.ones(4, 1, 3))
        out = symgrad.nn.LSTM(3, 2).double()(x)[0]
        assert fw.unpack_dual(out).tangent.shape == (4, 1, 2)


def test_functional_jvp_computes_without_a_forward_rule():
    """autograd.functional.jvp takes the reverse-mode way through an op with no forward rule,
    as PyTorch's always does: conv_tbc's tangent is J v, its bias added once."""
    x = symgrad.arange(6.0, dtype=symgrad.float64)
    out, tangent = symgrad.autograd.functional.jvp(lambda x: _conv_tbc(symgrad, x), x, x * 0 + 1)
    assert out.flatten().tolist() == [2.0, 6.0, 10.0]
    assert tangent.flatten().tolist() == [2.0, 2.0, 2.0]


@pytest.mark.torch
def test_functional_jvp_computes_without_a_forward_rule_as_pytorch():
    torch = pytest.importorskip("torch")
    x = torch.arange(6.0, dtype=torch.float64)
    out, tangent = torch.autograd.functional.jvp(lambda x: _conv_tbc(torch, x), x, x * 0 + 1)
    assert out.flatten().tolist() == [2.0, 6.0, 10.0]
    assert tangent.flatten().tolist() == [2.0, 2.0, 2.0]
