"""The special functions of ``torch.special`` added with symgrad.ops.special_functions and
special_values (and the top-level ``i0``, ``igamma``, ``igammac``, ``polygamma``,
``mvlgamma`` and their methods).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values to 4 decimals, dtype, grad_fn name, gradients, or the exception's type): the table
holds the expected data, checked for symgrad always and for PyTorch when it is installed. The
kernels' accuracy is checked against mpmath (40 digits) and, over wide ranges, against PyTorch.
"""

from __future__ import annotations

import math

import pytest
from _torch_table import NAN, run

import symgrad

INF = math.inf
F32, F64 = "float32", "float64"


def _number(v):
    """nan as ``'nan'``; 4 decimals, or 10 significant digits for large values."""
    if math.isnan(v):
        return NAN
    return round(v, 4) if abs(v) < 1e6 else float(f"{v:.10g}")


def _x(T, values=(0.0, 0.5, -1.5, 3.0)):
    return T.tensor(list(values), dtype=T.float64, requires_grad=True)


def _backward(T, make, values=(0.0, 0.5, -1.5, 3.0)):
    """``make(x)`` and ``x``'s gradient after backward of its sum."""
    x = _x(T, values)
    out = make(T, x)
    out.sum().backward()
    return out, x.grad


def _edges(T, name, values=(0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-300)):
    return getattr(T.special, name)(T.tensor(list(values), dtype=T.float64))


def _poly(T, name, x, n):
    return getattr(T.special, name)(T.tensor(x, dtype=T.float64), T.tensor(n, dtype=T.float64))


POS = (0.25, 1.0, 2.5, 7.0)


CASES = {
    "i0": (
        lambda T: _backward(T, lambda T, x: T.i0(x)),
        (
            ([1.0, 1.0635, 1.6467, 4.8808], F64, "I0Backward0"),
            ([0.0, 0.2579, -0.9817, 3.9534], F64, None),
        ),
    ),
    "special_i0": (
        lambda T: _backward(T, lambda T, x: T.special.i0(x)),
        (
            ([1.0, 1.0635, 1.6467, 4.8808], F64, "I0Backward0"),
            ([0.0, 0.2579, -0.9817, 3.9534], F64, None),
        ),
    ),
    "i0_method": (
        lambda T: _backward(T, lambda T, x: x.i0()),
        (
            ([1.0, 1.0635, 1.6467, 4.8808], F64, "I0Backward0"),
            ([0.0, 0.2579, -0.9817, 3.9534], F64, None),
        ),
    ),
    "i0_": (
        lambda T: _backward(T, lambda T, x: (x * 1).i0_()),
        (
            ([1.0, 1.0635, 1.6467, 4.8808], F64, "I0Backward0"),
            ([0.0, 0.2579, -0.9817, 3.9534], F64, None),
        ),
    ),
    "i0e": (
        lambda T: _backward(T, lambda T, x: T.special.i0e(x)),
        (
            ([1.0, 0.645, 0.3674, 0.243], F64, "SpecialI0EBackward0"),
            ([0.0, -0.4886, 0.1484, -0.0462], F64, None),
        ),
    ),
    "i1": (
        lambda T: _backward(T, lambda T, x: T.special.i1(x)),
        (
            ([0.0, 0.2579, -0.9817, 3.9534], F64, "SpecialI1Backward0"),
            ([0.5, 0.5477, 0.9923, 3.563], F64, None),
        ),
    ),
    "i1e": (
        lambda T: _backward(T, lambda T, x: T.special.i1e(x)),
        (
            ([0.0, 0.1564, -0.219, 0.1968], F64, "SpecialI1EBackward0"),
            ([0.5, 0.1758, 0.0024, -0.0194], F64, None),
        ),
    ),
    "erfcx": (
        lambda T: _backward(T, lambda T, x: T.special.erfcx(x)),
        (
            ([1.0, 0.6157, 18.6539, 0.179], F64, "SpecialErfcxBackward0"),
            ([-1.1284, -0.5127, -57.09, -0.0544], F64, None),
        ),
    ),
    "erfcx_far": (
        lambda T: T.special.erfcx(
            T.tensor([-30.0, -26.0, 30.0, 1e10, float("INF")], dtype=T.float64)
        ),
        ([INF, 7.657724931e293, 0.0188, 0.0, 0.0], F64, None),
    ),
    "i0_int": (lambda T: T.i0(T.tensor([0, 1, 2])), ([1.0, 1.2661, 2.2796], F32, None)),
    "i0_number": (lambda T: T.i0(1.0), ("raises", "TypeError")),
    "i0e_edges": (lambda T: _edges(T, "i0e"), ([1.0, 1.0, 0.0, 0.0, NAN, 1.0], F64, None)),
    "i1_edges": (lambda T: _edges(T, "i1"), ([0.0, 0.0, NAN, NAN, NAN, 0.0], F64, None)),
    "i1e_edges": (lambda T: _edges(T, "i1e"), ([0.0, 0.0, 0.0, -0.0, NAN, 0.0], F64, None)),
    "erfcx_edges": (lambda T: _edges(T, "erfcx"), ([1.0, 1.0, 0.0, INF, NAN, 1.0], F64, None)),
    "polygamma_0": (
        lambda T: _backward(T, lambda T, x: T.polygamma(0, x), POS),
        (
            ([-4.2275, -0.5772, 0.7032, 1.8728], F64, "PolygammaBackward0"),
            ([17.1973, 1.6449, 0.4904, 0.1535], F64, None),
        ),
    ),
    "polygamma_1": (
        lambda T: _backward(T, lambda T, x: T.special.polygamma(1, x), POS),
        (
            ([17.1973, 1.6449, 0.4904, 0.1535], F64, "PolygammaBackward0"),
            ([-129.3277, -2.4041, -0.2362, -0.0235], F64, None),
        ),
    ),
    "polygamma_3": (
        lambda T: _backward(T, lambda T, x: T.polygamma(3, x), POS),
        (
            ([1538.7821, 6.4939, 0.2239, 0.0072], F64, "PolygammaBackward0"),
            ([-24584.3754, -24.8863, -0.3138, -0.0033], F64, None),
        ),
    ),
    "polygamma_method": (
        lambda T: _backward(T, lambda T, x: x.polygamma(2), POS),
        (
            ([-129.3277, -2.4041, -0.2362, -0.0235], F64, "PolygammaBackward0"),
            ([1538.7821, 6.4939, 0.2239, 0.0072], F64, None),
        ),
    ),
    "polygamma_": (
        lambda T: _backward(T, lambda T, x: (x * 1).polygamma_(2), POS),
        (
            ([-129.3277, -2.4041, -0.2362, -0.0235], F64, "PolygammaBackward1"),
            ([1538.7821, 6.4939, 0.2239, 0.0072], F64, None),
        ),
    ),
    "polygamma_poles": (
        lambda T: T.polygamma(
            2, T.tensor([0.0, -1.0, -2.5, float("INF"), float("nan")], dtype=T.float64)
        ),
        ([-INF, -INF, -0.1082, NAN, NAN], F64, None),
    ),
    "polygamma_negative_n": (lambda T: T.polygamma(-1, _x(T)), ("raises", "RuntimeError")),
    "polygamma_float_n": (lambda T: T.polygamma(1.0, _x(T)), ("raises", "TypeError")),
    "mvlgamma_1": (
        lambda T: _backward(T, lambda T, x: T.mvlgamma(x, 1), POS),
        (
            ([1.288, 0.0, 0.2847, 6.5793], F64, "MvlgammaBackward0"),
            ([-4.2275, -0.5772, 0.7032, 1.8728], F64, None),
        ),
    ),
    "mvlgamma_3": (
        lambda T: _backward(T, lambda T, x: T.special.multigammaln(x + 1, 3), POS),
        (
            ([3.1101, 1.5963, 3.8959, 24.3559], F64, "MvlgammaBackward0"),
            ([-5.5408, -0.1179, 2.7291, 5.8352], F64, None),
        ),
    ),
    "mvlgamma_method": (
        lambda T: _backward(T, lambda T, x: x.mvlgamma(2), POS),
        (
            ([3.45, 1.1447, 0.857, 12.8142], F64, "MvlgammaBackward0"),
            ([-1.3133, -2.5407, 1.1259, 3.6657], F64, None),
        ),
    ),
    "mvlgamma_": (
        lambda T: _backward(T, lambda T, x: (x * 1).mvlgamma_(2), POS),
        (
            ([3.45, 1.1447, 0.857, 12.8142], F64, "MvlgammaBackward0"),
            ([-1.3133, -2.5407, 1.1259, 3.6657], F64, None),
        ),
    ),
    "mvlgamma_p0": (lambda T: T.mvlgamma(_x(T, POS), 0), ("raises", "RuntimeError")),
    "igamma_x": (
        lambda T: _backward(
            T, lambda T, x: T.igamma(T.tensor([0.5, 1.0, 2.0, 5.0], dtype=T.float64), x), POS
        ),
        (
            ([0.5205, 0.6321, 0.7127, 0.827], F64, "IgammaBackward0"),
            ([0.8788, 0.3679, 0.2052, 0.0912], F64, None),
        ),
    ),
    "igammac_x": (
        lambda T: _backward(
            T, lambda T, x: T.igammac(T.tensor([0.5, 1.0, 2.0, 5.0], dtype=T.float64), x), POS
        ),
        (
            ([0.4795, 0.3679, 0.2873, 0.173], F64, "IgammacBackward0"),
            ([-0.8788, -0.3679, -0.2052, -0.0912], F64, None),
        ),
    ),
    "gammainc": (
        lambda T: T.special.gammainc(
            T.tensor([0.5, 1.0, 2.0, 30.0]), T.tensor([2.0, 1.0, 0.1, 25.0])
        ),
        ([0.9545, 0.6321, 0.0047, 0.1821], F32, None),
    ),
    "gammaincc": (
        lambda T: T.special.gammaincc(
            T.tensor([0.5, 1.0, 2.0, 30.0]), T.tensor([2.0, 1.0, 0.1, 25.0])
        ),
        ([0.0455, 0.3679, 0.9953, 0.8179], F32, None),
    ),
    "igamma_a_grad": (
        lambda T: _backward(
            T, lambda T, a: T.igamma(a, T.tensor([1.0, 1.0, 1.0, 1.0], dtype=T.float64)), POS
        ),
        ("raises", "NotImplementedError"),
    ),
    "igammac_a_grad": (
        lambda T: _backward(
            T, lambda T, a: T.igammac(a, T.tensor([1.0, 1.0, 1.0, 1.0], dtype=T.float64)), POS
        ),
        ("raises", "NotImplementedError"),
    ),
    "igamma_method": (
        lambda T: _backward(
            T, lambda T, x: T.tensor([1.0, 2.0, 3.0, 4.0], dtype=T.float64).igamma(x), POS
        ),
        (
            ([0.2212, 0.2642, 0.4562, 0.9182], F64, "IgammaBackward0"),
            ([0.7788, 0.3679, 0.2565, 0.0521], F64, None),
        ),
    ),
    "igamma_": (
        lambda T: T.tensor([1.0, 2.0, 3.0, 4.0]).igamma_(T.tensor([1.0, 1.0, 1.0, 1.0])),
        ([0.6321, 0.2642, 0.0803, 0.019], F32, None),
    ),
    "igammac_": (
        lambda T: T.tensor([1.0, 2.0, 3.0, 4.0]).igammac_(T.tensor([1.0, 1.0, 1.0, 1.0])),
        ([0.3679, 0.7358, 0.9197, 0.981], F32, None),
    ),
    "igamma_inplace_grad": (
        lambda T: _backward(
            T, lambda T, x: T.tensor([1.0, 2.0, 3.0, 4.0], dtype=T.float64).igamma_(x), POS
        ),
        (
            ([0.2212, 0.2642, 0.4562, 0.9182], F64, "IgammaBackward0"),
            ([0.7788, 0.3679, 0.2565, 0.0521], F64, None),
        ),
    ),
    "igamma_edges": (
        lambda T: T.igamma(
            T.tensor([0.0, 0.0, 1.0, float("INF"), float("nan"), -1.0, 2.0, float("nan")]),
            T.tensor([0.0, 1.0, 0.0, 1.0, 0.0, 1.0, float("INF"), float("INF")]),
        ),
        ([NAN, 1.0, 0.0, 0.0, 0.0, NAN, 1.0, 1.0], F32, None),
    ),
    "igammac_edges": (
        lambda T: T.igammac(
            T.tensor([0.0, 0.0, 1.0, float("INF"), float("nan"), -1.0, 2.0, float("nan")]),
            T.tensor([0.0, 1.0, 0.0, 1.0, 0.0, 1.0, float("INF"), float("INF")]),
        ),
        ([NAN, 0.0, 1.0, 1.0, 1.0, NAN, 0.0, 0.0], F32, None),
    ),
    "igamma_int": (
        lambda T: T.igamma(T.tensor([1, 2]), T.tensor([1, 2])),
        ("raises", "NotImplementedError"),
    ),
    "igamma_number": (lambda T: T.special.gammainc(T.tensor([1.0]), 2.0), ("raises", "TypeError")),
    "zeta_q": (
        lambda T: _backward(
            T, lambda T, q: T.special.zeta(T.tensor([2.0, 3.0, 4.5, 2.0], dtype=T.float64), q), POS
        ),
        (
            ([17.1973, 1.2021, 0.0219, 0.1535], F64, "SpecialZetaBackward0"),
            ([-129.3277, -3.247, -0.0356, -0.0235], F64, None),
        ),
    ),
    "zeta_number_s": (
        lambda T: _backward(T, lambda T, q: T.special.zeta(2.0, q), POS),
        (
            ([17.1973, 1.6449, 0.4904, 0.1535], F64, "SpecialZetaBackward1"),
            ([-129.3277, -2.4041, -0.2362, -0.0235], F64, None),
        ),
    ),
    "zeta_s": (
        lambda T: _backward(
            T,
            lambda T, s: T.special.zeta(s + 1.5, T.tensor([1.0, 2.0, 3.0, 4.0], dtype=T.float64)),
            POS,
        ),
        ("raises", "NotImplementedError"),
    ),
    "zeta_number_q": (
        lambda T: _backward(T, lambda T, s: T.special.zeta(s + 1.5, 2.0), POS),
        ("raises", "NotImplementedError"),
    ),
    "zeta_values": (
        lambda T: T.special.zeta(
            T.tensor([2.0, 1.0, 0.5, 3.0, 3.5, 2.0, float("INF"), float("INF")]),
            T.tensor([1.0, 1.0, 1.0, -2.5, -2.5, -2.0, 1.0, 0.5]),
        ),
        ([1.6449, INF, NAN, 0.0541, NAN, INF, 1.0, INF], F32, None),
    ),
    "zeta_numbers": (lambda T: T.special.zeta(2.0, 3.0), ("raises", "TypeError")),
    "bessel_j0": (
        lambda T: T.special.bessel_j0(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([1.0, 0.7652, -0.0484, -0.2459, 0.0074], F64, None),
    ),
    "bessel_j1": (
        lambda T: T.special.bessel_j1(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([0.0, 0.4401, -0.4971, 0.0435, 0.126], F64, None),
    ),
    "bessel_y0": (
        lambda T: T.special.bessel_y0(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([-INF, 0.0883, NAN, 0.0557, 0.1259], F64, None),
    ),
    "bessel_y1": (
        lambda T: T.special.bessel_y1(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([-INF, -0.7812, NAN, 0.249, -0.0058], F64, None),
    ),
    "modified_bessel_i0": (
        lambda T: T.special.modified_bessel_i0(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([1.0, 1.2661, 3.2898, 2815.7166, 1.489477479e16], F64, None),
    ),
    "modified_bessel_i1": (
        lambda T: T.special.modified_bessel_i1(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([0.0, 0.5652, -2.5167, 2670.9883, 1.470739616e16], F64, None),
    ),
    "modified_bessel_k0": (
        lambda T: T.special.modified_bessel_k0(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([INF, 0.421, NAN, 0.0, 0.0], F64, None),
    ),
    "modified_bessel_k1": (
        lambda T: T.special.modified_bessel_k1(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([INF, 0.6019, NAN, 0.0, 0.0], F64, None),
    ),
    "scaled_modified_bessel_k0": (
        lambda T: T.special.scaled_modified_bessel_k0(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([INF, 1.1445, NAN, 0.3916, 0.1976], F64, None),
    ),
    "scaled_modified_bessel_k1": (
        lambda T: T.special.scaled_modified_bessel_k1(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([INF, 1.6362, NAN, 0.4108, 0.2], F64, None),
    ),
    "spherical_bessel_j0": (
        lambda T: T.special.spherical_bessel_j0(_x(T, (0.0, 1.0, -2.5, 10.0, 40.0))),
        ([1.0, 0.8415, 0.2394, -0.0544, 0.0186], F64, None),
    ),
    "airy_ai": (
        lambda T: T.special.airy_ai(_x(T, (0.0, 1.0, -2.5, 10.0, -40.0))),
        ([0.355, 0.1353, -0.1123, 0.0, -0.0459], F64, None),
    ),
    "bessel_j0_edges": (
        lambda T: _edges(T, "bessel_j0"),
        ([1.0, 1.0, NAN, NAN, NAN, 1.0], F64, None),
    ),
    "bessel_y1_edges": (
        lambda T: _edges(T, "bessel_y1"),
        ([-INF, -INF, NAN, NAN, NAN, -6.366197724e299], F64, None),
    ),
    "modified_bessel_i0_edges": (
        lambda T: _edges(T, "modified_bessel_i0"),
        ([1.0, 1.0, NAN, NAN, NAN, 1.0], F64, None),
    ),
    "modified_bessel_k1_edges": (
        lambda T: _edges(T, "modified_bessel_k1"),
        ([INF, INF, 0.0, NAN, NAN, 1e300], F64, None),
    ),
    "scaled_modified_bessel_k0_edges": (
        lambda T: _edges(T, "scaled_modified_bessel_k0"),
        ([INF, INF, 0.0, NAN, NAN, 690.8915], F64, None),
    ),
    "airy_ai_edges": (
        lambda T: _edges(T, "airy_ai"),
        ([0.355, 0.355, NAN, NAN, NAN, 0.355], F64, None),
    ),
    "spherical_bessel_j0_edges": (
        lambda T: _edges(T, "spherical_bessel_j0"),
        ([1.0, 1.0, 0.0, 0.0, NAN, 1.0], F64, None),
    ),
    "bessel_int": (lambda T: T.special.bessel_j0(T.tensor([0, 1])), ([1.0, 0.7652], F32, None)),
    "bessel_float32": (
        lambda T: T.special.modified_bessel_k0(T.tensor([0.5, 2.0])),
        ([0.9244, 0.1139], F32, None),
    ),
    "bessel_number": (lambda T: T.special.bessel_j0(1.0), ("raises", "TypeError")),
    "chebyshev_t": (
        lambda T: _poly(
            T, "chebyshev_polynomial_t", [0.3, -1.0, 1.0, 2.0, 0.3, 0.3], [3, 3, 3, 4, 10, -1]
        ),
        ([-0.792, -1.0, 1.0, 97.0, 0.9955, 0.0], F64, None),
    ),
    "chebyshev_u": (
        lambda T: _poly(
            T, "chebyshev_polynomial_u", [0.3, -1.0, 1.0, 2.0, 0.3, 0.3], [3, 3, 3, 4, 10, -1]
        ),
        ([-0.984, -4.0, 4.0, 209.0, 1.0252, 0.0], F64, None),
    ),
    "chebyshev_v": (
        lambda T: _poly(
            T, "chebyshev_polynomial_v", [0.3, -1.0, 1.0, 2.0, 0.3, 0.3], [3, 3, 3, 4, 10, -1]
        ),
        ([-0.344, -7.0, 1.0, 153.0, 0.9262, 0.0], F64, None),
    ),
    "chebyshev_w": (
        lambda T: _poly(
            T, "chebyshev_polynomial_w", [0.3, -1.0, 1.0, 2.0, 0.3, 0.3], [3, 3, 3, 4, 10, -1]
        ),
        ([-1.624, -1.0, 7.0, 265.0, 1.1243, 0.0], F64, None),
    ),
    "shifted_t": (
        lambda T: _poly(
            T,
            "shifted_chebyshev_polynomial_t",
            [0.3, 0.0, 1.0, 2.0, 0.3, 0.3],
            [3, 3, 3, 4, 10, -1],
        ),
        ([0.944, -1.0, 1.0, 577.0, 0.5623, 0.0], F64, None),
    ),
    "shifted_u": (
        lambda T: _poly(
            T,
            "shifted_chebyshev_polynomial_u",
            [0.3, 0.0, 1.0, 2.0, 0.3, 0.3],
            [3, 3, 3, 4, 10, -1],
        ),
        ([1.088, -4.0, 4.0, 1189.0, 0.2015, 0.0], F64, None),
    ),
    "shifted_v": (
        lambda T: _poly(
            T,
            "shifted_chebyshev_polynomial_v",
            [0.3, 0.0, 1.0, 2.0, 0.3, 0.3],
            [3, 3, 3, 4, 10, -1],
        ),
        ([1.448, -7.0, 1.0, 985.0, -0.7008, 0.0], F64, None),
    ),
    "shifted_w": (
        lambda T: _poly(
            T,
            "shifted_chebyshev_polynomial_w",
            [0.3, 0.0, 1.0, 2.0, 0.3, 0.3],
            [3, 3, 3, 4, 10, -1],
        ),
        ([0.728, -1.0, 7.0, 1393.0, 1.1037, 0.0], F64, None),
    ),
    "hermite_h": (
        lambda T: _poly(
            T, "hermite_polynomial_h", [0.3, -1.0, 1.0, 2.0, 0.3, 0.3], [3, 3, 0, 4, 600, -1]
        ),
        ([-3.384, 4.0, 1.0, 76.0, NAN, 0.0], F64, None),
    ),
    "hermite_he": (
        lambda T: _poly(
            T, "hermite_polynomial_he", [0.3, -1.0, 1.0, 2.0, 0.3, 0.3], [3, 3, 0, 4, 600, -1]
        ),
        ([-0.873, 2.0, 1.0, -5.0, NAN, 0.0], F64, None),
    ),
    "laguerre_l": (
        lambda T: _poly(
            T, "laguerre_polynomial_l", [0.3, -1.0, 0.0, 2.0, 0.3, 0.3], [3, 3, 3, 4, 10, -1]
        ),
        ([0.2305, 5.6667, 1.0, 0.3333, -0.449, 0.0], F64, None),
    ),
    "legendre_p": (
        lambda T: _poly(
            T, "legendre_polynomial_p", [0.3, -1.0, 1.0, 2.0, 0.3, 0.3], [3, 3, 3, 4, 10, -1]
        ),
        ([-0.3825, -1.0, 1.0, 55.375, 0.2515, 0.0], F64, None),
    ),
    "polynomial_number_n": (
        lambda T: T.special.chebyshev_polynomial_t(T.tensor([0.5, 2.0]), 3),
        ([-1.0, 26.0], F32, None),
    ),
    "polynomial_number_x": (
        lambda T: T.special.legendre_polynomial_p(0.5, T.tensor([2, 3])),
        ([-0.125, -0.4375], F32, None),
    ),
    "polynomial_int_n": (
        lambda T: T.special.hermite_polynomial_h(T.tensor([0.5], dtype=T.float64), T.tensor([3])),
        ([-5.0], F64, None),
    ),
    "polynomial_ints": (
        lambda T: T.special.hermite_polynomial_he(T.tensor([2]), T.tensor([3])),
        ([2.0], F32, None),
    ),
    "polynomial_numbers": (
        lambda T: T.special.chebyshev_polynomial_t(0.5, 3),
        ("raises", "TypeError"),
    ),
    "polynomial_grad": (
        lambda T: T.special.chebyshev_polynomial_t(_x(T), 3),
        ([-0.0, -1.0, -9.0, 99.0], F64, None),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_table(name):
    fn, expected = CASES[name]
    assert run(symgrad, fn, _number) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert run(torch, fn, _number) == expected
