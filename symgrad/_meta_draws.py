"""The random draws of meta tensors: arrays of each draw's shape and dtype, no values."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._meta import MetaArray, meta_array

__all__ = ["META_DRAWS"]


class _MetaDraws:
    """What a NumPy generator answers for a meta tensor: arrays of the draw's shape with no
    values (nothing is drawn, so the generator's state does not move, as in PyTorch)."""

    def random(self, shape: Any = ()) -> MetaArray:
        return meta_array(np.broadcast_shapes(shape), np.float64)

    standard_normal = random

    def integers(self, low: Any, high: Any = None, size: Any = ()) -> MetaArray:
        return meta_array(np.broadcast_shapes(size), np.int64)

    def permutation(self, n: int) -> MetaArray:
        return meta_array((n,), np.int64)

    randperm = permutation

    # PyTorch's samplers (symgrad._cpu_generator.CpuStream): (shape, dtype or parameters...)
    def uniform_fill(self, shape: Any, dtype: Any = np.float64, *params: Any) -> MetaArray:
        kind = dtype if isinstance(dtype, (type, np.dtype)) else np.float64
        return meta_array(np.broadcast_shapes(shape), kind)

    normal_fill = exponential_fill = cauchy_fill = log_normal_fill = uniform_fill
    geometric_fill = uniform_fill

    def random_from_to(self, shape: Any, low: Any, high: Any, wide: bool = True) -> MetaArray:
        return meta_array(np.broadcast_shapes(shape), np.int64)

    def bernoulli_draws(self, shape: Any, p: Any) -> MetaArray:
        return meta_array(np.broadcast_shapes(shape), np.bool_)


META_DRAWS = _MetaDraws()
