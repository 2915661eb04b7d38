"""More random draws PyTorch code uses: ``poisson``, ``binomial`` and the in-place fills
``Tensor.geometric_``, ``Tensor.cauchy_`` and ``Tensor.log_normal_``.

The numbers come from symgrad's generators (:mod:`symgrad.random`): reproducible under
``manual_seed`` or a seeded ``Generator``, though not PyTorch's numbers. A fill loses the
tensor's history as any in-place fill does; ``poisson``'s gradient is zero
(``PoissonBackward0``) and ``binomial`` has none (a ``NotImplemented`` node), as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._cpu_generator import CpuStream
from symgrad._cpu_rejection import binomial_draws, poisson_draws
from symgrad.ops.inplace import inplace
from symgrad.ops.sampling import _floating, _sample
from symgrad.prim.structural import Structural
from symgrad.random import in_memory_order, layout_of, numpy_generator
from symgrad.tensor import Tensor, bind_methods

__all__ = ["poisson", "binomial"]


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
    rng = numpy_generator(generator, input)
    if type(rng) is CpuStream:  # PyTorch's counts, element by element in row-major order
        # (an infinite rate gives the int64 minimum, as PyTorch's conversion of its count)
        drawn = poisson_draws(rng, np.asarray(rates, dtype=np.float64).ravel().tolist())
        counts = np.asarray(drawn, dtype=np.float64).reshape(np.shape(rates))
    else:  # a meta tensor: nothing drawn
        counts = np.zeros(np.shape(rates))
    return _sample((input,), counts.astype(input.dtype.numpy), "PoissonBackward0")


def _no_derivative(xp: Any, g: Any, ctx: Any) -> tuple:
    raise RuntimeError("derivative for aten::binomial is not implemented")


# PyTorch declares no derivative: a node that raises when backward reaches it
_BINOMIAL = Structural(
    "binomial",
    lambda xp, *tensors, out: xp.constant(out),
    _no_derivative,
    backward="NotImplemented",
)


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """The number of successes in ``count`` trials of success probability ``prob`` (element
    by element, broadcast), in ``count``'s floating dtype, PyTorch's draws: a count or
    probability at or below 0 gives 0, a probability at or above 1 the count itself (nan
    for a nan probability or count, where PyTorch's sampler never returns). No derivative,
    as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.binomial(symgrad.tensor([5.0, 5.0, 0.0]), symgrad.tensor([0.0, 1.0, 0.5]))
    tensor([0., 5., 0.])
    """
    for position, (name, t) in enumerate((("count", count), ("prob", prob))):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"binomial(): argument '{name}' (position {position + 1}) must be Tensor, not "
                f"{type(t).__name__}"
            )
    if not count.dtype.is_floating_point:
        raise ValueError(
            "binomial only supports floating-point dtypes for count, got: "
            f"{count.dtype.scalar_type}"
        )
    if count.dtype is dtypes.float16:
        raise NotImplementedError(
            f"\"binomial_cpu\" not implemented for '{count.dtype.scalar_type}'"
        )
    if prob.dtype is not count.dtype:
        raise RuntimeError(
            f"Found dtype {prob.dtype.scalar_type} but expected {count.dtype.scalar_type}"
        )
    n, p = np.broadcast_arrays(count._data, prob._data)
    rng = numpy_generator(generator, count)
    if type(rng) is CpuStream:  # PyTorch's counts, element by element in row-major order
        single = count.dtype is dtypes.float32
        flat = [np.asarray(a, dtype=np.float64).ravel().tolist() for a in (n, p)]
        draws = np.asarray(binomial_draws(rng, *flat, single), np.float64).reshape(n.shape)
    else:  # a meta tensor: nothing drawn
        draws = np.zeros(n.shape)
    out = draws.astype(count.dtype.numpy)
    if not (count._requires_grad or prob._requires_grad):
        return Tensor._make(out)
    return _BINOMIAL(count, prob, out=out)


def _in_order(self: Tensor, draw: Any) -> np.ndarray:
    """``draw(shape)`` for ``self``'s elements in its memory order (PyTorch's fill order)."""
    return in_memory_order(draw, tuple(self.shape), layout_of(self))


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
    stream = numpy_generator(generator, self)
    values = _in_order(self, lambda s: stream.geometric_fill(s, p))
    return _fill(self, "geometric_", values)


def _cauchy_(
    self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None
) -> Tensor:
    """Cauchy samples of location ``median`` and scale ``sigma``, in place."""
    _continuous(self, "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    stream = numpy_generator(generator, self)
    values = _in_order(self, lambda s: stream.cauchy_fill(s, median, sigma))
    return _fill(self, "cauchy_", values)


def _log_normal_(
    self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None
) -> Tensor:
    """``exp`` of normal samples of ``mean`` and ``std``, in place."""
    _floating(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    stream = numpy_generator(generator, self)
    values = _in_order(self, lambda s: stream.log_normal_fill(s, mean, std))
    return _fill(self, "log_normal_", values)


bind_methods({"geometric_": _geometric_, "cauchy_": _cauchy_, "log_normal_": _log_normal_})
