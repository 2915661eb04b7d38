"""The Bessel, gamma-family and zeta primitives of ``torch.special`` with a derivative
(``i0``, ``i0e``, ``i1``, ``i1e``, ``erfcx``, ``polygamma``, ``mvlgamma``, ``igamma``,
``igammac``, ``zeta``), each a SymPy formula (``besseli``, ``polygamma``, ``lowergamma``,
``zeta``) with the partials PyTorch uses and the NumPy kernels of :mod:`symgrad.prim`.

Where PyTorch has no derivative (``igamma`` and ``igammac`` in their first argument,
``zeta`` in its first) the node is recorded and the backward pass raises
``NotImplementedError`` with PyTorch's message. The primitives are built directly, not
declared in the element-wise registry, because the registry's tests differentiate every input.

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([1.0], requires_grad=True)
>>> y = symgrad.i0(x)
>>> y.backward()
>>> x.grad  # I1(1)
tensor([0.5652])
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import invalid_combination, require_tensor
from symgrad._lazy import sympy as sp
from symgrad.ops.inplace import inplace
from symgrad.prim import bessel_functions as B
from symgrad.prim import gamma_functions as G
from symgrad.prim.elementwise import Elementwise
from symgrad.prim.incomplete_gamma import density
from symgrad.prim.special_functions import polygamma as _polygamma_kernel
from symgrad.prim.tangents import no_forward_rule
from symgrad.tensor import Tensor

__all__ = ["i0", "igamma", "igammac", "polygamma", "mvlgamma"]


def _not_implemented(what: str) -> Any:
    def vjp(*args: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")

    return vjp


def _sign(v: Any) -> Any:
    return np.sign(v)


I0 = Elementwise(
    "i0",
    "x",
    lambda x: sp.besseli(0, x),
    partials=lambda x: (sp.besseli(1, x),),
    kernel=B.modified_bessel_i0,
    vjp_kernels={0: lambda v, out, g: g * B.modified_bessel_i1(v)},
    promote="float",
    backward="I0Backward0",
)
I0E = Elementwise(
    "i0e",
    "x",
    lambda x: sp.exp(-sp.Abs(x)) * sp.besseli(0, x),
    # PyTorch: i1e(x) - sgn(x) i0e(x)
    partials=lambda x, out: (sp.exp(-sp.Abs(x)) * sp.besseli(1, x) - sp.sign(x) * out,),
    kernel=B.i0e,
    vjp_kernels={0: lambda v, out, g: g * (B.i1e(v) - _sign(v) * out)},
    exact=False,
    promote="float",
    backward="SpecialI0EBackward0",
)


def _tiny_safe(v: Any) -> tuple:
    """PyTorch's guard for i1's and i1e's gradients: where ``|x|`` is not above the dtype's
    epsilon (and at nan) the gradient is 1/2, the limit at 0, and x is read as epsilon."""
    eps = np.finfo(v.dtype).eps
    tiny = ~(np.abs(v) > eps)
    return tiny, np.where(tiny, eps, v)


def _i1_vjp(v: Any, out: Any, g: Any) -> Any:
    tiny, safe = _tiny_safe(v)
    return g * np.where(tiny, 0.5, B.modified_bessel_i0(safe) - out / safe)


def _i1e_vjp(v: Any, out: Any, g: Any) -> Any:
    tiny, safe = _tiny_safe(v)
    return g * np.where(tiny, 0.5, B.i0e(safe) - out * (_sign(safe) + 1 / safe))


I1 = Elementwise(
    "i1",
    "x",
    lambda x: sp.besseli(1, x),
    partials=lambda x, out: (
        sp.Piecewise((sp.Rational(1, 2), sp.Eq(x, 0)), (sp.besseli(0, x) - out / x, True)),
    ),
    kernel=B.modified_bessel_i1,
    vjp_kernels={0: _i1_vjp},
    exact=False,
    promote="float",
    backward="SpecialI1Backward0",
)
I1E = Elementwise(
    "i1e",
    "x",
    lambda x: sp.exp(-sp.Abs(x)) * sp.besseli(1, x),
    partials=lambda x, out: (
        sp.Piecewise(
            (sp.Rational(1, 2), sp.Eq(x, 0)),
            (sp.exp(-sp.Abs(x)) * sp.besseli(0, x) - out * (sp.sign(x) + 1 / x), True),
        ),
    ),
    kernel=B.i1e,
    vjp_kernels={0: _i1e_vjp},
    exact=False,
    promote="float",
    backward="SpecialI1EBackward0",
)
ERFCX = Elementwise(
    "erfcx",
    "x",
    lambda x: sp.exp(x**2) * sp.erfc(x),
    partials=lambda x, out: (2 * x * out - 2 / sp.sqrt(sp.pi),),
    kernel=G.erfcx,
    # PyTorch's (2 x out - 2 / sqrt(pi)) g, in the input's dtype step by step
    vjp_kernels={0: lambda v, out, g: (2.0 * v * out - 2.0 / math.sqrt(math.pi)) * g},
    promote="float",
    backward="SpecialErfcxBackward0",
)
POLYGAMMA = Elementwise(
    "polygamma",
    "x",
    lambda x, n: sp.polygamma(n, x),
    params="n",
    kernel=lambda v, n: _polygamma_kernel(n, v),
    promote="float",
    backward="PolygammaBackward0",
)
POLYGAMMA_INPLACE = Elementwise(
    "polygamma_",
    "x",
    lambda x, n: sp.polygamma(n, x),
    params="n",
    kernel=lambda v, n: _polygamma_kernel(n, v),
    promote="float",
    backward="PolygammaBackward1",
)


def _regularized_density(a: Any, x: Any) -> Any:
    """``x^(a - 1) exp(-x) / Gamma(a)``, as PyTorch writes it."""
    return sp.exp((a - 1) * sp.log(x) - x - sp.loggamma(a))


IGAMMA = Elementwise(
    "igamma",
    "a x",
    lambda a, x: sp.lowergamma(a, x) / sp.gamma(a),
    partials=lambda a, x: (
        sp.diff(sp.lowergamma(a, x) / sp.gamma(a), a),
        _regularized_density(a, x),
    ),
    kernel=G.igamma,
    vjp_kernels={
        0: _not_implemented("igamma: input"),
        1: lambda a, x, out, g: g * density(a, x),
    },
    exact=False,
    promote="float",
    backward="IgammaBackward0",
)
IGAMMAC = Elementwise(
    "igammac",
    "a x",
    lambda a, x: sp.uppergamma(a, x) / sp.gamma(a),
    partials=lambda a, x: (
        sp.diff(sp.uppergamma(a, x) / sp.gamma(a), a),
        -_regularized_density(a, x),
    ),
    kernel=G.igammac,
    vjp_kernels={
        0: _not_implemented("igammac: input"),
        1: lambda a, x, out, g: -g * density(a, x),
    },
    exact=False,
    promote="float",
    backward="IgammacBackward0",
)


def _zeta_dq(s: Any, q: Any, out: Any, g: Any) -> Any:
    return g * -s * G.zeta(s + 1, q)


def _zeta(name: str, backward: str, params: str = "") -> Elementwise:
    inputs = "s q".replace(params, "").strip()
    if params == "s":
        vjp_kernels = {0: lambda q, out, g, s: g * -s * G.zeta(s + 1.0, q)}
    elif params == "q":
        vjp_kernels = {0: _not_implemented("zeta")}
    else:
        vjp_kernels = {0: _not_implemented("zeta"), 1: _zeta_dq}
    kernel = (lambda q, s: G.zeta(s, q)) if params == "s" else G.zeta
    return Elementwise(
        name,
        inputs,
        lambda s, q: sp.zeta(s, q),
        params=params,
        kernel=kernel,
        vjp_kernels=vjp_kernels,
        exact=False,
        promote="float",
        backward=backward,
    )


ZETA = _zeta("zeta", "SpecialZetaBackward0")
ZETA_NUMBER_S = _zeta("zeta_number_s", "SpecialZetaBackward1", "s")
ZETA_NUMBER_Q = _zeta("zeta_number_q", "SpecialZetaBackward2", "q")
# PyTorch declares no forward-mode rule for these
for _prim in (IGAMMA, IGAMMAC, ZETA, ZETA_NUMBER_S, ZETA_NUMBER_Q):
    _prim.jvp = no_forward_rule("special_zeta" if "zeta" in _prim.name else _prim.name)


@functools.cache
def _mvlgamma(p: int) -> Elementwise:
    """The primitive of ``mvlgamma(x, p)`` for one ``p`` (its formula is a sum of p terms)."""

    def formula(x: Any) -> Any:
        half = sp.Rational(1, 2)
        total = sp.Add(*(sp.loggamma(x - j * half) for j in range(p)))
        return sp.Rational(p * (p - 1), 4) * sp.log(sp.pi) + total

    return Elementwise(
        f"mvlgamma_{p}",
        "x",
        formula,
        kernel=lambda v: G.mvlgamma(v, p),
        promote="float",
        backward="MvlgammaBackward0",
    )


# -- the public functions -------------------------------------------------------------------------
def _floating_only(kernel: str, dtype: dtypes.dtype) -> None:
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{dtype.scalar_type}'; convert the tensors "
            "with .float() or .double()"
        )


def i0(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 0, ``I0``; its derivative is
    ``I1``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.i0(symgrad.tensor([0.0, 1.0]))
    tensor([1.0000, 1.2661])
    """
    if type(input) is not Tensor:
        require_tensor("i0", "input", 1, input)
    return I0(input)


def _igamma(op: str, prim: Elementwise, input: Any, other: Any) -> Tensor:
    require_tensor(op, "input", 1, input)
    require_tensor(op, "other", 2, other)
    _floating_only(f"{prim.name}_cpu", dtypes.result_type(input, other))
    return prim(input, other)


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """The regularized lower incomplete gamma function ``P(input, other)``; differentiable in
    ``other`` only (as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.igamma(symgrad.tensor([1.0]), symgrad.tensor([1.0]))  # 1 - exp(-1)
    tensor([0.6321])
    """
    return _igamma("igamma", IGAMMA, input, other)


def igammac(input: Tensor, other: Tensor) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``;
    differentiable in ``other`` only (as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.igammac(symgrad.tensor([1.0]), symgrad.tensor([1.0]))  # exp(-1)
    tensor([0.3679])
    """
    return _igamma("igammac", IGAMMAC, input, other)


def _order(op: str, n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"{op}(n, x) does not support negative n.")
    return int(n)


def polygamma(n: int, input: Tensor) -> Tensor:
    """The ``n``-th derivative of the digamma function; its derivative is ``polygamma(n + 1,
    input)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.polygamma(1, symgrad.tensor([1.0]))  # pi^2 / 6
    tensor([1.6449])
    """
    n = _order("polygamma", n)
    require_tensor("polygamma", "input", 2, input)
    return POLYGAMMA(input, params=(n,))


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``: ``p (p - 1) / 4 log(pi) +
    sum_{j < p} lgamma(input - j / 2)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.mvlgamma(symgrad.tensor([2.5]), 2)
    tensor([0.8570])
    """
    require_tensor("mvlgamma", "input", 1, input)
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(
            f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}"
        )
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return _mvlgamma(int(p))(input)


_ZETA_SIGNATURES = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Number self, Tensor other, *, Tensor out = None",
    "Tensor self, Number other, *, Tensor out = None",
)


def zeta(input: Any, other: Any) -> Tensor:
    """Hurwitz's zeta function ``sum_k (other + k) ** -input`` (either may be a number, not
    both); differentiable in ``other`` only (as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.zeta(symgrad.tensor([2.0]), symgrad.tensor([1.0]))  # pi^2 / 6
    tensor([1.6449])
    """
    number = (int, float, np.number)
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return ZETA(input, other)
    if isinstance(input, number) and not isinstance(input, bool) and isinstance(other, Tensor):
        return ZETA_NUMBER_S(other, params=(float(input),))
    if isinstance(input, Tensor) and isinstance(other, number) and not isinstance(other, bool):
        return ZETA_NUMBER_Q(input, params=(float(other),))
    raise invalid_combination("special_zeta", (input, other), _ZETA_SIGNATURES)


# -- the Tensor methods ---------------------------------------------------------------------------
def _i0_(self: Tensor) -> Tensor:
    """In-place :func:`i0`."""
    return inplace(self, "i0_", I0)


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """``polygamma(n, self)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0]).polygamma(1)
    tensor([1.6449])
    """
    return polygamma(n, self)


def _polygamma_(self: Tensor, n: int) -> Tensor:
    """In-place ``polygamma(n, self)``."""
    n = _order("polygamma", n)
    return inplace(self, "polygamma_", lambda t: POLYGAMMA_INPLACE(t, params=(n,)))


def _mvlgamma_(self: Tensor, p: int) -> Tensor:
    """In-place :func:`mvlgamma`."""
    return inplace(self, "mvlgamma_", lambda t: mvlgamma(t, p))


def _igamma_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`igamma`."""
    return inplace(self, "igamma_", lambda t: igamma(t, other), other)


def _igammac_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`igammac`."""
    return inplace(self, "igammac_", lambda t: igammac(t, other), other)


METHODS = {
    "i0": i0,
    "i0_": _i0_,
    "igamma": igamma,
    "igamma_": _igamma_,
    "igammac": igammac,
    "igammac_": _igammac_,
    "polygamma": _polygamma_method,
    "polygamma_": _polygamma_,
    "mvlgamma": mvlgamma,
    "mvlgamma_": _mvlgamma_,
}
