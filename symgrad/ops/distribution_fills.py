"""More random draws PyTorch code uses: ``poisson`` and the in-place fills
``Tensor.geometric_``, ``Tensor.cauchy_`` and ``Tensor.log_normal_``.

The numbers come from symgrad's generators (:mod:`symgrad.random`): reproducible under
``manual_seed`` or a seeded ``Generator``, though not PyTorch's numbers. A fill loses the
tensor's history as any in-place fill does; ``poisson``'s gradient is zero
(``PoissonBackward0``), as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.inplace import inplace
from symgrad.ops.sampling import _floating, _sample
from symgrad.random import numpy_generator
from symgrad.tensor import Tensor, bind_methods

__all__ = ["poisson"]


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Poisson counts with the rates ``input`` (element by element), in ``input``'s floating
    dtype. The gradient is zero (``PoissonBackward0``), as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.poisson(symgrad.tensor([0.0, 0.0]))
    tensor([0., 0.])
    >>> symgrad.poisson(symgrad.full((2, 3), 4.0)).shape
    symgrad.Size([2, 3])
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson(): argument 'input' must be Tensor, not {type(input).__name__}")
    _floating(input, "poisson_cpu")
    rates = input._data
    if type(rates) is np.ndarray and not bool((rates >= 0).all()):
        raise RuntimeError(
            "invalid Poisson rate, expected rate to be non-negative: every rate must be >= 0 "
            "(nan is not a rate)"
        )
    with np.errstate(invalid="ignore"):
        counts = numpy_generator(generator, input).poisson(np.nan_to_num(rates, posinf=0.0))
    # PyTorch's count for an infinite rate: the int64 minimum, as a float
    counts = np.where(np.isinf(rates), float(np.iinfo(np.int64).min), counts)
    return _sample((input,), counts.astype(input.dtype.numpy), "PoissonBackward0")


def _fill(self: Tensor, name: str, values: np.ndarray) -> Tensor:
    fill = Tensor._make(np.asarray(values).astype(self.dtype.numpy))
    return inplace(self, name, lambda x: fill.detach(), fill)


def _continuous(self: Tensor, name: str) -> None:
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            f"{name} distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {self.dtype.numpy.name}: convert with .float()"
        )


def _geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """The number of Bernoulli(``p``) trials up to the first success, in place."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    values = numpy_generator(generator, self).geometric(p, tuple(self.shape))
    return _fill(self, "geometric_", values)


def _cauchy_(
    self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None
) -> Tensor:
    """Cauchy samples of location ``median`` and scale ``sigma``, in place."""
    _continuous(self, "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    values = median + sigma * numpy_generator(generator, self).standard_cauchy(tuple(self.shape))
    return _fill(self, "cauchy_", values)


def _log_normal_(
    self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None
) -> Tensor:
    """``exp`` of normal samples of ``mean`` and ``std``, in place."""
    _floating(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    values = numpy_generator(generator, self).lognormal(mean, std, tuple(self.shape))
    return _fill(self, "log_normal_", values)


bind_methods({"geometric_": _geometric_, "cauchy_": _cauchy_, "log_normal_": _log_normal_})
