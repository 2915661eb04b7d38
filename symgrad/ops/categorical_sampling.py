"""Draws of category indices and the in-place fills PyTorch code uses next to them:
``multinomial``, ``Tensor.multinomial``, ``Tensor.exponential_`` and ``Tensor.random_``.

The numbers come from symgrad's generators (:mod:`symgrad.random`): ``manual_seed`` or a
seeded ``Generator`` makes them reproducible, though not the same numbers as PyTorch's.
Nothing here is differentiable: indices carry no gradient, and a filled tensor loses its
history as any in-place fill does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops.inplace import inplace
from symgrad.random import (
    check_from_to,
    float_bounds,
    in_memory_order,
    layout_of,
    numpy_generator,
)
from symgrad.tensor import Tensor, bind_methods

__all__ = ["multinomial"]


def _probabilities(input: Tensor, num_samples: int, replacement: bool) -> np.ndarray:
    if not isinstance(input, Tensor):
        raise TypeError(
            f"multinomial(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    if input.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, got a tensor of {input.ndim} dims")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{input.dtype.scalar_type} (convert the weights with .float())"
        )
    if num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples (got {num_samples})")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            f"cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"({num_samples} > {categories}): pass replacement=True or draw fewer"
        )
    rows = 1 if input.ndim == 1 else input.shape[0]
    if categories == 0 and rows > 0:
        raise RuntimeError("multinomial(): cannot sample from a distribution with no categories")
    weights = np.asarray(input.detach().numpy(), dtype=np.float64).reshape(rows, categories)
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (weights.sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return weights


def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Any = None,
) -> Tensor:
    """Draw ``num_samples`` category indices from each row of non-negative weights ``input``
    (1-D, or 2-D for a batch of distributions; the weights need not sum to 1). Without
    ``replacement`` each index appears at most once per row.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.multinomial(symgrad.tensor([0.0, 0.0, 1.0]), 2, replacement=True)
    tensor([2, 2])
    >>> sorted(symgrad.multinomial(symgrad.tensor([1.0, 1.0, 1.0]), 3).tolist())
    [0, 1, 2]
    """
    weights = _probabilities(input, int(num_samples), replacement)
    rng = numpy_generator(generator)
    kind = input._data.dtype if input._data.dtype.kind == "f" else np.dtype(np.float64)
    weights = weights.astype(kind)
    if replacement and num_samples > 1:
        # PyTorch's kernel, row by row: the normalised running sums in the weights' dtype,
        # then for each float64 uniform the first category whose sum reaches it
        drawn = np.empty((weights.shape[0], num_samples), dtype=np.int64)
        for row, w in enumerate(weights):
            cumulative = np.cumsum(w, dtype=kind)
            cumulative = (cumulative / cumulative[-1]).astype(np.float64)
            u = rng.uniform_fill((num_samples,), np.float64)
            drawn[row] = np.searchsorted(cumulative, u, side="left")
        drawn = np.minimum(drawn, weights.shape[1] - 1)
    else:
        # PyTorch's exponential races: the largest w / E win (E ~ Exp(1) drawn in the weights'
        # shape), each category at most once; a zero weight never wins while a positive one
        # is left
        races = rng.exponential_fill(weights.shape, 1.0).astype(kind)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = (weights / races).astype(kind)
        drawn = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    drawn = drawn.astype(np.int64)
    return Tensor._make(drawn.reshape(num_samples) if input.ndim == 1 else drawn)


def _multinomial_method(
    self: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None
) -> Tensor:
    return multinomial(self, num_samples, replacement, generator=generator)


def _exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            f"exponential_ expects a floating point tensor, got {self.dtype.scalar_type}"
        )
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    stream = numpy_generator(generator, self)
    draw = lambda s: stream.exponential_fill(s, lambd)  # noqa: E731
    values = in_memory_order(draw, tuple(self.shape), layout_of(self))
    fill = Tensor._make(values.astype(self.dtype.numpy))
    return inplace(self, "exponential_", lambda x: fill.detach(), fill)


def _random_(self: Tensor, from_: Any = None, to: Any = None, *, generator: Any = None) -> Tensor:
    """Integers in ``[from_, to)``; ``random_(to)`` draws in ``[0, to)``; ``random_()`` in
    ``[0, 2**mantissa]`` for floating dtypes, the dtype's range for integers."""
    if to is None and from_ is not None:
        from_, to = 0, from_
    whole_dtype = from_ is None
    if whole_dtype:
        from_ = 0
        if self.dtype.is_floating_point:
            to = 2 ** (np.finfo(self.dtype.numpy).nmant + 1) + 1
        elif self.dtype is dtypes.bool_:
            to = 2
        else:
            to = int(np.iinfo(self.dtype.numpy).max) + 1
    if not from_ < to:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
        )
    from_, to = float_bounds(from_, to, self.dtype.numpy)
    check_from_to(from_, to, self.dtype.numpy)
    stream = numpy_generator(generator, self)
    draw = lambda s: stream.random_from_to(s, from_, to, whole_dtype)  # noqa: E731
    values = in_memory_order(draw, tuple(self.shape), layout_of(self))
    fill = Tensor._make(values.astype(self.dtype.numpy))
    return inplace(self, "random_", lambda x: fill.detach(), fill)


bind_methods(
    {"multinomial": _multinomial_method, "exponential_": _exponential_, "random_": _random_}
)
