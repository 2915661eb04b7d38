"""Transforms that change how dimensions are read: ``IndependentTransform`` (more event
dimensions) and ``ReshapeTransform`` (a new event shape).

Examples
--------
>>> import symgrad
>>> from symgrad.distributions.transforms import ReshapeTransform
>>> ReshapeTransform((4,), (2, 2)).inverse_shape((2, 2))
symgrad.Size([4])
"""

from __future__ import annotations

import math
from typing import Any

from symgrad._data import Size
from symgrad.distributions import constraints
from symgrad.distributions.transform_base import Transform
from symgrad.distributions.utils import _sum_rightmost
from symgrad.tensor import Tensor

__all__ = ["IndependentTransform", "ReshapeTransform"]


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dimensions read
    as one event: the values are unchanged, ``log_abs_det_jacobian`` sums over them.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import ExpTransform, IndependentTransform
    >>> t = IndependentTransform(ExpTransform(), 1)
    >>> x = symgrad.tensor([[1.0, 2.0]])
    >>> t.log_abs_det_jacobian(x, t(x)), t.event_dim
    (tensor([3.]), 1)
    """

    def __init__(
        self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0
    ) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size
        )

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    bijective = property(lambda self: self.base_transform.bijective)  # type: ignore[assignment]
    sign = property(lambda self: self.base_transform.sign)  # type: ignore[assignment]

    def _call(self, x: Tensor) -> Tensor:
        if x.ndim < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.ndim < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape: Any) -> Any:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dimensions to ``out_shape`` (Jacobian 1).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import ReshapeTransform
    >>> t = ReshapeTransform((4,), (2, 2))
    >>> t(symgrad.zeros(3, 4)).shape, t.forward_shape((3, 4))
    (symgrad.Size([3, 2, 2]), symgrad.Size([3, 2, 2]))
    """

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        batch = tuple(x.shape[: x.ndim - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))

    def _inverse(self, y: Tensor) -> Tensor:
        batch = tuple(y.shape[: y.ndim - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x.new_zeros(tuple(x.shape[: x.ndim - len(self.in_shape)]))

    def _reshaped(self, shape: Any, source: Size, target: Size) -> Size:
        if len(shape) < len(source):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(source)
        if tuple(shape[cut:]) != tuple(source):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {source}")
        return Size(tuple(shape[:cut]) + tuple(target))

    def forward_shape(self, shape: Any) -> Any:
        return self._reshaped(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._reshaped(shape, self.out_shape, self.in_shape)
