"""The functions of ``torch.special`` that PyTorch does not differentiate: the Bessel
functions ``J``, ``Y``, ``I``, ``K`` of orders 0 and 1, the spherical ``j0``, Airy's ``Ai``
and the orthogonal polynomials. Their results never require grad (PyTorch records no node for
them), whatever their inputs; integer inputs give the default floating dtype.

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([1.0], requires_grad=True)
>>> symgrad.special.bessel_j0(x).requires_grad
False
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import invalid_combination, require_tensor
from symgrad.prim import bessel_functions as B
from symgrad.prim import orthogonal_polynomials as P
from symgrad.tensor import Tensor

_UNARY = {
    "airy_ai": ("Airy's function ``Ai``.", "0.0", "tensor([0.3550])"),
    "bessel_j0": ("The Bessel function of the first kind of order 0.", "1.0", "tensor([0.7652])"),
    "bessel_j1": ("The Bessel function of the first kind of order 1.", "1.0", "tensor([0.4401])"),
    "bessel_y0": ("The Bessel function of the second kind of order 0.", "1.0", "tensor([0.0883])"),
    "bessel_y1": ("The Bessel function of the second kind of order 1.", "1.0", "tensor([-0.7812])"),
    "modified_bessel_i0": ("The modified Bessel function ``I0``.", "1.0", "tensor([1.2661])"),
    "modified_bessel_i1": ("The modified Bessel function ``I1``.", "1.0", "tensor([0.5652])"),
    "modified_bessel_k0": ("The modified Bessel function ``K0``.", "1.0", "tensor([0.4210])"),
    "modified_bessel_k1": ("The modified Bessel function ``K1``.", "1.0", "tensor([0.6019])"),
    "scaled_modified_bessel_k0": ("``exp(x) K0(x)``.", "1.0", "tensor([1.1445])"),
    "scaled_modified_bessel_k1": ("``exp(x) K1(x)``.", "1.0", "tensor([1.6362])"),
    "spherical_bessel_j0": ("``sin(x) / x``, 1 at 0.", "0.0", "tensor([1.])"),
}
_POLYNOMIALS = {
    "chebyshev_polynomial_t": (
        "Chebyshev's ``T_n`` (first kind).",
        "tensor([-0.5000])",
    ),
    "chebyshev_polynomial_u": (
        "Chebyshev's ``U_n`` (second kind).",
        "tensor([0.])",
    ),
    "chebyshev_polynomial_v": (
        "Chebyshev's ``V_n`` (third kind).",
        "tensor([-1.])",
    ),
    "chebyshev_polynomial_w": (
        "Chebyshev's ``W_n`` (fourth kind).",
        "tensor([1.])",
    ),
    "shifted_chebyshev_polynomial_t": ("Chebyshev's ``T_n(2x - 1)``.", "tensor([-1.])"),
    "shifted_chebyshev_polynomial_u": ("Chebyshev's ``U_n(2x - 1)``.", "tensor([-1.])"),
    "shifted_chebyshev_polynomial_v": ("Chebyshev's ``V_n(2x - 1)``.", "tensor([-1.])"),
    "shifted_chebyshev_polynomial_w": ("Chebyshev's ``W_n(2x - 1)``.", "tensor([-1.])"),
    "hermite_polynomial_h": ("Hermite's ``H_n`` (physicists').", "tensor([-1.])"),
    "hermite_polynomial_he": (
        "Hermite's ``He_n`` (probabilists').",
        "tensor([-0.7500])",
    ),
    "laguerre_polynomial_l": ("Laguerre's polynomial ``L_n``.", "tensor([0.1250])"),
    "legendre_polynomial_p": ("Legendre's polynomial ``P_n``.", "tensor([-0.1250])"),
}
__all__ = [*_UNARY, *_POLYNOMIALS]


def _result(data: np.ndarray) -> Tensor:
    return Tensor._make(np.asarray(data))


def _floating(dtype: dtypes.dtype) -> np.dtype:
    if not dtype.is_floating_point:
        dtype = dtypes.get_default_dtype()
    return dtype.numpy


def _unary(name: str, kernel: Callable) -> Callable:
    doc, arg, shown = _UNARY[name]

    def op(input: Tensor) -> Tensor:
        require_tensor(f"special_{name}", "input", 1, input)
        dtype = _floating(input.dtype)
        with np.errstate(all="ignore"):
            return _result(kernel(input._data.astype(dtype)).astype(dtype))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{doc} Not differentiable: the result never requires grad (as in PyTorch)."
        "\n\n    Examples\n    --------\n    >>> import symgrad\n"
        f"    >>> symgrad.special.{name}(symgrad.tensor([{arg}]))\n    {shown}\n"
    )
    return op


_SIGNATURES = (
    "Tensor x, Tensor n, *, Tensor out = None",
    "Number x, Tensor n, *, Tensor out = None",
    "Tensor x, Number n, *, Tensor out = None",
)


def _polynomial(name: str, kernel: Callable) -> Callable:
    doc, shown = _POLYNOMIALS[name]

    def op(input: Any, n: Any) -> Tensor:
        tensors = [a for a in (input, n) if isinstance(a, Tensor)]
        numbers = all(
            isinstance(a, Tensor) or (isinstance(a, (int, float)) and not isinstance(a, bool))
            for a in (input, n)
        )
        if not tensors or not numbers:
            raise invalid_combination(f"special_{name}", (input, n), _SIGNATURES)
        dtype = _floating(dtypes.result_type(input, n))
        x = input._data.astype(dtype) if isinstance(input, Tensor) else np.asarray(input, dtype)
        degree = n._data if isinstance(n, Tensor) else np.asarray(n)
        try:
            shape = np.broadcast_shapes(x.shape, degree.shape)
        except ValueError:
            raise RuntimeError(
                f"{name}: the shapes {tuple(x.shape)} and {tuple(degree.shape)} do not broadcast"
            ) from None
        return _result(np.broadcast_to(kernel(x, degree), shape).astype(dtype))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"{doc} Of degree ``n`` (a tensor or a number, truncated to an integer; 0 for a "
        "negative degree). Not differentiable: the result never requires grad."
        "\n\n    Examples\n    --------\n    >>> import symgrad\n"
        f"    >>> symgrad.special.{name}(symgrad.tensor([0.5]), 2)\n    {shown}\n"
    )
    return op


airy_ai = _unary("airy_ai", B.airy_ai)
bessel_j0 = _unary("bessel_j0", B.bessel_j0)
bessel_j1 = _unary("bessel_j1", B.bessel_j1)
bessel_y0 = _unary("bessel_y0", B.bessel_y0)
bessel_y1 = _unary("bessel_y1", B.bessel_y1)
modified_bessel_i0 = _unary("modified_bessel_i0", B.modified_bessel_i0)
modified_bessel_i1 = _unary("modified_bessel_i1", B.modified_bessel_i1)
modified_bessel_k0 = _unary("modified_bessel_k0", B.modified_bessel_k0)
modified_bessel_k1 = _unary("modified_bessel_k1", B.modified_bessel_k1)
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0", B.scaled_modified_bessel_k0)
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1", B.scaled_modified_bessel_k1)
spherical_bessel_j0 = _unary("spherical_bessel_j0", B.spherical_bessel_j0)
chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", P.chebyshev_polynomial_t)
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", P.chebyshev_polynomial_u)
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", P.chebyshev_polynomial_v)
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", P.chebyshev_polynomial_w)
shifted_chebyshev_polynomial_t = _polynomial(
    "shifted_chebyshev_polynomial_t", P.shifted_chebyshev_polynomial_t
)
shifted_chebyshev_polynomial_u = _polynomial(
    "shifted_chebyshev_polynomial_u", P.shifted_chebyshev_polynomial_u
)
shifted_chebyshev_polynomial_v = _polynomial(
    "shifted_chebyshev_polynomial_v", P.shifted_chebyshev_polynomial_v
)
shifted_chebyshev_polynomial_w = _polynomial(
    "shifted_chebyshev_polynomial_w", P.shifted_chebyshev_polynomial_w
)
hermite_polynomial_h = _polynomial("hermite_polynomial_h", P.hermite_polynomial_h)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", P.hermite_polynomial_he)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", P.laguerre_polynomial_l)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", P.legendre_polynomial_p)
