"""``torch.special``: PyTorch's names for special functions, each the symgrad op of the same
meaning (so gradients and closed forms come from those ops).

Examples
--------
>>> import symgrad
>>> symgrad.special.expit(symgrad.tensor([0.0]))
tensor([0.5000])
>>> symgrad.special.ndtr(symgrad.tensor([0.0]))
tensor([0.5000])
"""

from __future__ import annotations

import math
from typing import Any

import symgrad
from symgrad._arguments import require_tensor as _require_tensor
from symgrad.ops import elementwise_special as _elementwise_special
from symgrad.ops import special_functions, special_values
from symgrad.ops.derivatives import _scaled, _shifted
from symgrad.ops.out import add_out as _add_out
from symgrad.ops.special_values import *  # noqa: F403
from symgrad.tensor import Tensor

__all__ = [
    "expit",
    "logit",
    "erf",
    "erfc",
    "erfinv",
    "gammaln",
    "digamma",
    "psi",
    "xlogy",
    "xlog1py",
    "entr",
    "ndtr",
    "ndtri",
    "log_ndtr",
    "expm1",
    "exp2",
    "log1p",
    "sinc",
    "round",
    "logsumexp",
    "softmax",
    "log_softmax",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "erfcx",
    "gammainc",
    "gammaincc",
    "polygamma",
    "multigammaln",
    "zeta",
    *special_values.__all__,
]

erf, erfc, erfinv = symgrad.erf, symgrad.erfc, symgrad.erfinv
gammaln = symgrad.lgamma
digamma = psi = symgrad.digamma
xlogy = symgrad.xlogy
expm1, exp2, log1p, sinc = symgrad.expm1, symgrad.exp2, symgrad.log1p, symgrad.sinc
logsumexp = symgrad.logsumexp
logit = symgrad.logit
i0, polygamma, zeta = symgrad.i0, symgrad.polygamma, special_functions.zeta
gammainc, gammaincc, multigammaln = symgrad.igamma, symgrad.igammac, symgrad.mvlgamma


def _one_tensor(name: str, prim: Any, input: Any) -> Tensor:
    if type(input) is not Tensor:
        _require_tensor(f"special_{name}", "input", 1, input)
    return prim(input)


def i0e(input: Tensor) -> Tensor:
    """``exp(-|input|) I0(input)``; its derivative is ``i1e(x) - sgn(x) i0e(x)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.i0e(symgrad.tensor([0.0, 1.0]))
    tensor([1.0000, 0.4658])
    """
    return _one_tensor("i0e", special_functions.I0E, input)


def i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 1, ``I1``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.i1(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.5652])
    """
    return _one_tensor("i1", special_functions.I1, input)


def i1e(input: Tensor) -> Tensor:
    """``exp(-|input|) I1(input)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.i1e(symgrad.tensor([0.0, 1.0]))
    tensor([0.0000, 0.2079])
    """
    return _one_tensor("i1e", special_functions.I1E, input)


def erfcx(input: Tensor) -> Tensor:
    """The scaled complementary error function ``exp(input ** 2) erfc(input)``, accurate
    where ``erfc`` underflows.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.erfcx(symgrad.tensor([0.0, 30.0]))
    tensor([1.0000, 0.0188])
    """
    return _one_tensor("erfcx", special_functions.ERFCX, input)


def expit(input: Tensor) -> Tensor:
    """The logistic sigmoid ``1 / (1 + exp(-input))``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.expit(symgrad.tensor([0.0, 2.0]))
    tensor([0.5000, 0.8808])
    """
    return symgrad.sigmoid(input)


def xlog1py(input: Any, other: Any) -> Tensor:
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.xlog1py(symgrad.tensor([0.0, 2.0]), symgrad.tensor([1.0, 1.0]))
    tensor([0.0000, 1.3863])
    """
    x = input if isinstance(input, Tensor) else symgrad.tensor(input)
    y = other if isinstance(other, Tensor) else symgrad.tensor(other)
    return _elementwise_special.XLOG1PY(x, y)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001 - PyTorch's name
    """``symgrad.round`` with ``decimals`` (PyTorch's overload with decimals even for 0, so
    its node is ``RoundBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.round(symgrad.tensor([1.26, 2.5], requires_grad=True), decimals=1)
    tensor([1.3000, 2.5000], grad_fn=<RoundBackward1>)
    """
    return symgrad.round(input, decimals=decimals)


def entr(input: Tensor) -> Tensor:
    """``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` below 0 (one ``SpecialEntrBackward0``
    node, PyTorch's derivative ``-(1 + log x)``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.entr(symgrad.tensor([0.0, 0.5, -1.0]))
    tensor([0.0000, 0.3466,   -inf])
    """
    return _elementwise_special.ENTR(input)


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, ``(1 + erf(x / sqrt 2)) * 0.5`` as PyTorch composes it (its
    Scalar overloads: ``MulBackward1``, ``AddBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.ndtr(symgrad.tensor([0.0, 1.0]))
    tensor([0.5000, 0.8413])
    """
    x: Any = input
    if isinstance(x, Tensor) and not x.dtype.is_floating_point:  # (PyTorch's promotion)
        x = x.to(symgrad.get_default_dtype())
    return _scaled(_shifted(symgrad.erf(_scaled(x, math.sqrt(0.5))), 1.0), 0.5)


def ndtri(input: Tensor) -> Tensor:
    """The inverse of the standard normal CDF (``-inf`` at 0, ``inf`` at 1, nan outside),
    accurate for the smallest probabilities and near one half.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.ndtri(symgrad.tensor([0.5, 0.975, 1e-30]))
    tensor([  0.0000,   1.9600, -11.4640])
    """
    return _elementwise_special.NDTRI(input)


def log_ndtr(input: Tensor) -> Tensor:
    """``log(ndtr(input))``, finite where the CDF underflows (one ``SpecialLogNdtrBackward0``
    node, its gradient the normal density over the CDF).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.log_ndtr(symgrad.tensor([0.0, -40.0]))
    tensor([-6.9315e-01, -8.0461e+02])
    """
    return _elementwise_special.LOG_NDTR(input)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``symgrad.softmax``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.softmax(symgrad.tensor([0.0, 0.0]), 0)
    tensor([0.5000, 0.5000])
    """
    return symgrad.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``symgrad.log_softmax``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.log_softmax(symgrad.tensor([0.0, 0.0]), 0)
    tensor([-0.6931, -0.6931])
    """
    return symgrad.log_softmax(input, dim, dtype=dtype)


# out= on the functions PyTorch gives it to
_add_out(
    globals(),
    "airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 digamma entr erf erfc erfcx erfinv exp2 "
    "expit expm1 gammainc gammaincc gammaln i0 i0e i1 i1e log1p log_ndtr logit "
    "modified_bessel_i0 modified_bessel_i1 modified_bessel_k0 modified_bessel_k1 "
    "multigammaln ndtr ndtri polygamma psi scaled_modified_bessel_k0 scaled_modified_bessel_k1 "
    "sinc spherical_bessel_j0 xlog1py xlogy zeta logsumexp".split(),
)
_add_out(globals(), ["round"], exact=True)

# NumPy's keyword names for dim and keepdim, and keepdim as a bool only, as PyTorch's parser
from symgrad._numpy_keywords import install as _install_numpy_keywords  # noqa: E402

_install_numpy_keywords(None, globals())
