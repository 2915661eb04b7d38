"""The standard normal distribution's functions of ``torch.special``, one node each as
PyTorch records them: ``log_ndtr`` (``SpecialLogNdtrBackward0``, finite far into the lower
tail), ``ndtri`` (``SpecialNdtriBackward0``, accurate down to the smallest probabilities),
``entr`` (``SpecialEntrBackward0``), each a SymPy formula with PyTorch's derivative and a
NumPy kernel of :mod:`symgrad.prim.normal_functions`; and ``ndtr``, which PyTorch composes
as ``(1 + erf(x / sqrt 2)) * 0.5`` from its Scalar overloads (``MulBackward1``,
``AddBackward1``).

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([-40.0, 0.0], dtype=symgrad.float64, requires_grad=True)
>>> y = symgrad.special.log_ndtr(x)
>>> y
tensor([-8.0461e+02, -6.9315e-01], dtype=symgrad.float64,
       grad_fn=<SpecialLogNdtrBackward0>)
>>> y.sum().backward()
>>> x.grad
tensor([40.0250,  0.7979], dtype=symgrad.float64)
"""

from __future__ import annotations

import math
from typing import Any

from symgrad import dtypes
from symgrad._lazy import sympy as sp
from symgrad.ops.derivatives import _scaled, _shifted
from symgrad.ops.math import erf
from symgrad.prim import normal_functions as N
from symgrad.prim.elementwise import Elementwise
from symgrad.tensor import Tensor

__all__ = ["entr", "log_ndtr", "ndtr", "ndtri"]

LOG_NDTR = Elementwise(
    "log_ndtr",
    "x",
    lambda x: sp.log(sp.erfc(-x / sp.sqrt(2)) / 2),
    # PyTorch's: the normal density over the CDF, from the result
    partials=lambda x, out: (sp.exp(-(out + x**2 / 2)) / sp.sqrt(2 * sp.pi),),
    kernel=N.log_ndtr,
    exact=False,
    promote="float",
    backward="SpecialLogNdtrBackward0",
)
NDTRI = Elementwise(
    "ndtri",
    "x",
    lambda x: sp.sqrt(2) * sp.erfinv(2 * x - 1),
    partials=lambda x, out: (sp.sqrt(2 * sp.pi) * sp.exp(out**2 / 2),),
    kernel=N.ndtri,
    exact=False,
    promote="float",
    backward="SpecialNdtriBackward0",
)
ENTR = Elementwise(
    "entr",
    "x",
    lambda x: sp.Piecewise((-x * sp.log(x), x > 0), (0, sp.Eq(x, 0)), (-sp.oo, True)),
    partials=lambda x: (-(1 + sp.log(x)),),  # PyTorch's, also where it is not defined
    kernel=N.entr,
    exact=False,
    promote="float",
    backward="SpecialEntrBackward0",
)


def log_ndtr(input: Tensor) -> Tensor:
    """``log(ndtr(input))``, finite where the CDF underflows (``log_ndtr(-40)`` is about
    ``-804.6``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.log_ndtr(symgrad.tensor([0.0, -40.0]))
    tensor([-6.9315e-01, -8.0461e+02])
    """
    return LOG_NDTR(input)


def ndtri(input: Tensor) -> Tensor:
    """The inverse of the standard normal CDF (``-inf`` at 0, ``inf`` at 1, nan outside).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.ndtri(symgrad.tensor([0.5, 0.975, 1e-30]))
    tensor([  0.0000,   1.9600, -11.4640])
    """
    return NDTRI(input)


def entr(input: Tensor) -> Tensor:
    """``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` below 0.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.entr(symgrad.tensor([0.0, 0.5, -1.0]))
    tensor([0.0000, 0.3466,   -inf])
    """
    return ENTR(input)


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, ``(1 + erf(x / sqrt 2)) / 2``, as PyTorch composes it.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.special.ndtr(symgrad.tensor([0.0, 1.0]))
    tensor([0.5000, 0.8413])
    """
    x: Any = input
    if isinstance(x, Tensor) and not x.dtype.is_floating_point:  # (PyTorch's promotion)
        x = x.to(dtypes.get_default_dtype())
    return _scaled(_shifted(erf(_scaled(x, math.sqrt(0.5))), 1.0), 0.5)
