"""``gelu``, exact (erf) and tanh-approximated, with PyTorch's kernels: ``gelu_backward`` for the
gradient, and for the tanh form ``gelu_double_backward``'s formula for the second derivative
(which differs from the exact derivative in the last bits, and is a denormal, not 0, at 20).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad.ops.elementwise import declare
from symgrad.prim.kernels import _gelu_kernel, _gelu_partial

# PyTorch's kBeta (sqrt(2) * 2 / sqrt(pi) * 0.5) and kKappa of the tanh form
_K_BETA = 1.4142135623730951 * 1.1283791670955126 * 0.5
_K_KAPPA = 0.044715


def _tanh_second(v: Any, out: Any, g: Any, out2: Any) -> Any:
    """``g`` times PyTorch's second derivative of the tanh form: with ``u`` its inner
    argument, ``f = x / 2``, ``g' = 1 - tanh(u)**2`` and ``h = du/dx``, the sum
    ``f'gh + f'gh + f h g'' + f g h'`` in that order, ``g''`` from ``sech(u) = 1 / cosh(u)``."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        inner = _K_BETA * (v + _K_KAPPA * v**3)
        tanh = np.tanh(inner)
        sech = 1 / np.cosh(inner)
        f = 0.5 * v
        slope = 1 - tanh * tanh
        h = _K_BETA * (1 + 3 * _K_KAPPA * v * v)
        f_prime_gh = 0.5 * slope * h
        g_prime_fh = f * h * ((2 * sech) * (-sech * tanh) * h)
        h_prime_fg = f * slope * (6 * _K_KAPPA * v * _K_BETA)
        return g * (f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg)


GELU = declare(
    "gelu",
    "x",
    lambda x: x / 2 * (1 + sp.erf(x / sp.sqrt(2))),
    kernel=_gelu_kernel,
    partial_kernels={0: _gelu_partial},
    promote="float",
    half_backward="float32",
)
GELU_TANH = declare(
    "gelu_tanh",
    "x",
    lambda x: x / 2 * (1 + sp.tanh(sp.sqrt(2 / sp.pi) * (x + sp.Rational(44715, 1000000) * x**3))),
    backward="GeluBackward0",
    vjp_backward="GeluBackwardBackward0",
    vjp_partial_kernels={0: {0: _tanh_second}},
    promote="float",
    half_backward="float32",
)
