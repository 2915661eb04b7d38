"""Element-wise special functions and their first and second derivatives at the edges of
their domains (infinities, signed zeros, subnormal and huge numbers, poles), bit for bit as
PyTorch gives them.

Each case calls the same code with ``T`` either symgrad or torch and returns plain lists;
the expected lists are checked for symgrad always, and for PyTorch when it is installed.
"""

from __future__ import annotations

import math

import pytest

import symgrad

INF, NAN = math.inf, math.nan


def _derivatives(T, fn, values, dtype="float64", order=1):
    """``fn`` at ``values`` (order 0) or its ``order``-th derivative (1 or 2)."""
    x = T.tensor(values, dtype=getattr(T, dtype), requires_grad=order > 0)
    y = fn(T, x)
    if order == 0:
        return y.tolist()
    (g,) = T.autograd.grad(y.sum(), x, create_graph=order > 1)
    if order == 1:
        return g.tolist()
    (g2,) = T.autograd.grad(g.sum(), x)
    return g2.tolist()


TRIGAMMA_AT = [1.0, 0.5, -0.5, 2.0, 1e-45, 0.0, -0.0, -3.0, INF, 1e-8]

CASES = {
    # PyTorch's g / (x * ln 10) in float32: x * ln 10 overflows to inf near the top of the range
    "log10 log2 d1 float32": (
        lambda T: [
            _derivatives(T, op, [3.4e38, 1e38, 3.0, 0.007, 123.456, 5.5e-30], "float32")
            for op in (lambda T, x: T.log10(x), lambda T, x: T.log2(x))
        ],
        [
            [0.0, 4.3429448382909385e-39, 0.14476482570171356, 62.04206848144531]
            + [0.0035178079269826412, 7.896262856929906e28],
            [4.243221433077263e-39, 1.442695063038515e-38, 0.48089835047721863, 206.0992889404297]
            + [0.011685904115438461, 2.623081908681587e29],
        ],
    ),
    # PyTorch's ln 10 in float64 is 2.3025850929940456, an ulp below math.log(10)
    "log10 d1": (
        lambda T: _derivatives(T, lambda T, x: T.log10(x), [3.0, 7.0, 0.1, 123.456, 2.5]),
        [0.14476482730108395, 0.0620420688433217, 4.342944819032518]
        + [0.0035178078173863717, 0.17371779276130075],
    ),
    # PyTorch's (2 x erfcx(x) - 2 / sqrt(pi)) g, each step rounded to float32
    "erfcx d1 float32": (
        lambda T: _derivatives(
            T,
            lambda T, x: T.special.erfcx(x),
            [2.3899643421173096, 0.4811488091945648, 10.721721649169922, 3.918736457824707],
            "float32",
        ),
        [-0.0801398754119873, -0.5264770984649658, -0.004845261573791504, -0.033630967140197754],
    ),
    # max(a, b) + log1p(2**-|a - b|) / ln 2 with the multiply-add rounded once
    "logaddexp2": (
        lambda T: [
            T.logaddexp2(
                T.tensor([a], dtype=getattr(T, dtype)), T.tensor([b], dtype=getattr(T, dtype))
            ).item()
            for a, b in [(-1.0, -1.0), (INF, INF), (-INF, -INF), (3.0, -INF)]
            for dtype in ("float64", "float32")
        ],
        [-4.756597398230631e-17, -1.0601922895148164e-08, INF, INF, -INF, -INF, 3.0, 3.0],
    ),
    # Cephes' prefactor x^a exp(-x) / Gamma(a) is 0 once its logarithm is below -MAXLOG, so a
    # tiny a gives P = 0 (not the subnormal prefactor over a), and x = 1 takes the series
    "igamma tiny a": (
        lambda T: [
            getattr(T, name)(
                T.tensor([5e-324, 1e-320, 1e-310, 5e-324, 1e-300], dtype=T.float64),
                T.tensor([1.0, 0.5, 1.0, 1e-3, 1.0], dtype=T.float64),
            ).tolist()
            for name in ("igamma", "igammac")
        ],
        [
            [0.0, 0.0, 0.0, 0.0, 1.0000000000000238],
            [5e-324, 1.137e-320, 7.9659959929703e-311, 3.5e-323, 7.965995992970723e-301],
        ],
    ),
    "igamma tiny a float32": (
        lambda T: T.igamma(T.tensor([1e-45, 1e-40, 1e-45]), T.tensor([1.0, 0.3, 3.0])).tolist(),
        [0.0, 0.0, 1.0],
    ),
    # i1e(x) - sgn(x) i0e(x) differentiated as written (not exp(-|x|) I1(x), 0 * inf far out)
    "i0e d2": (
        lambda T: _derivatives(
            T, lambda T, x: T.special.i0e(x), [INF, -INF, 0.0, 1e30, -800.0, 5e-324], order=2
        ),
        [0.0, 0.0, 0.5, 0.0, 1.6541926215959957e-08, 1.5],
    ),
    # PyTorch's trigamma: the recurrence six steps up, then a short series (good to ~5e-10)
    "digamma d1": (
        lambda T: _derivatives(T, lambda T, x: T.digamma(x), TRIGAMMA_AT),
        [
            1.6449340676383375,
            4.934802202073678,
            8.934802200117687,
            0.6449340670881899,
            9.999999999999999e89,
            INF,
            INF,
            7.311989052578831e31,
            0.0,
            1.0000000000000004e16,
        ],
    ),
    "lgamma d2": (
        lambda T: _derivatives(T, lambda T, x: T.lgamma(x), TRIGAMMA_AT[:4], order=2),
        [1.6449340676383375, 4.934802202073678, 8.934802200117687, 0.6449340670881899],
    ),
    "digamma d1 float32": (
        lambda T: _derivatives(T, lambda T, x: T.digamma(x), TRIGAMMA_AT, "float32"),
        [
            1.644934058189392,
            4.934802055358887,
            8.934802055358887,
            0.6449340581893921,
            INF,
            INF,
            INF,
            1.7351287771234304e16,
            0.0,
            1.0000001346306048e16,
        ],
    ),
    "polygamma(1)": (
        lambda T: T.polygamma(1, T.tensor([1.0, 7.5, -2.25], dtype=T.float64)).tolist(),
        [1.6449340676383375, 0.14261589669891445, 19.379410511803624],
    ),
    # Cephes' zeta stops at its first negligible term: 1 at q = 1 and inf below for a huge s
    "zeta huge s": (
        lambda T: T.special.zeta(
            T.tensor([1e30] * 4 + [3.0], dtype=T.float64),
            T.tensor([1.0, 0.5, 5e-324, -0.5, 1.0], dtype=T.float64),
        ).tolist(),
        [1.0, INF, INF, INF, 1.202056903159594],
    ),
    "polygamma(2)": (
        lambda T: T.polygamma(2, T.tensor([1.0, 0.5, 0.0, -2.0, INF], dtype=T.float64)).tolist(),
        [-2.404113806319188, -16.828796644234316, -INF, -INF, NAN],
    ),
}


def _same(a, b) -> bool:
    """Equal bit for bit as floats: nan equals nan, and zeros keep their sign."""
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


@pytest.mark.parametrize("name", sorted(CASES))
def test_symgrad(name: str) -> None:
    run, expected = CASES[name]
    got = run(symgrad)
    assert _same(got, expected), got


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    run, expected = CASES[name]
    got = run(torch)
    assert _same(got, expected), got
