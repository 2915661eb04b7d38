"""The base of :mod:`symgrad.distributions.transforms`: ``Transform`` (with its inverse and a
one-entry cache), ``ComposeTransform`` and ``identity_transform``.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions.transforms import ExpTransform
>>> t = ExpTransform()
>>> t.inv(t(symgrad.tensor([0.0, 2.0])))
tensor([0., 2.])
"""

from __future__ import annotations

import functools
import operator
from typing import Any

from symgrad.distributions import constraints
from symgrad.distributions.utils import _sum_rightmost, lazy_property
from symgrad.tensor import Tensor

__all__ = ["Transform", "ComposeTransform", "identity_transform"]


class Transform:
    """Base class of invertible maps with a computable log-determinant of the Jacobian.

    Subclasses define ``_call`` (and ``_inverse``), ``domain``, ``codomain``, ``bijective``,
    ``sign`` and ``log_abs_det_jacobian(x, y)``. With ``cache_size=1`` the last ``(x, y)``
    pair is remembered, so ``t.inv(t(x))`` returns ``x`` itself.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import ExpTransform
    >>> t = ExpTransform(cache_size=1)
    >>> x = symgrad.tensor([1.0])
    >>> t.inv(t(x)) is x, t.inv.inv is t, t.event_dim, t.sign
    (True, True, 0, 1)
    """

    bijective = False

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size in (0, 1):
            # the remembered (x, y) pair, or None while empty or uncached
            self._memo: tuple | None = None
            self._inv: Transform | None = None
            self._cache_size = cache_size
        else:
            raise ValueError("cache_size must be 0 or 1")

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_inv"] = None  # the inverse points back here: rebuilt on demand
        return state

    @property
    def event_dim(self) -> int:
        dims = {self.domain.event_dim, self.codomain.event_dim}
        if len(dims) > 1:
            raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")
        (only,) = dims
        return only

    @property
    def inv(self) -> Transform:
        """The inverse transform (``t.inv.inv is t``)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self) -> Any:
        """The sign of the Jacobian's determinant (for bijective univariate transforms)."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with the given cache size (itself when it already has it)."""
        if cache_size == self._cache_size:
            return self
        if type(self).__init__ is not Transform.__init__:
            # a subclass with its own constructor arguments must say how to copy itself
            raise NotImplementedError(f"{type(self)}.with_cache is not implemented")
        return type(self)(cache_size=cache_size)

    def _recached(self, cache_size: int, cls: type, *args: Any) -> Transform:
        # with_cache of a transform built from args: itself when the size already matches
        if cache_size == self._cache_size:
            return self
        return cls(*args, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = None  # type: ignore[assignment]

    def __call__(self, x: Tensor) -> Tensor:
        """``y = t(x)``."""
        return self._through_memo(x, forward=True)

    def _through_memo(self, given: Tensor, forward: bool) -> Tensor:
        # side 0 of the memo holds x, side 1 holds y; identity (not equality) is the key
        known, wanted = (0, 1) if forward else (1, 0)
        memo = self._memo
        if memo is not None and memo[known] is given:
            return memo[wanted]
        found = self._call(given) if forward else self._inverse(given)
        if self._cache_size:
            self._memo = (given, found) if forward else (found, given)
        return found

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |dy/dx|`` at the pair ``x``, ``y = t(x)``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__ + "()"

    def forward_shape(self, shape: Any) -> Any:
        """The output shape for an input of ``shape`` (the same, unless overridden)."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The input shape for an output of ``shape`` (the same, unless overridden)."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform, as returned by ``Transform.inv``.

    Examples
    --------
    >>> from symgrad.distributions.transforms import ExpTransform
    >>> ExpTransform().inv
    _InverseTransform(ExpTransform())
    """

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return self._inv.domain

    bijective = property(lambda self: self._inv.bijective)  # type: ignore[assignment]
    sign = property(lambda self: self._inv.sign)  # type: ignore[assignment]
    inv = property(lambda self: self._inv)  # type: ignore[assignment]

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._through_memo(x, forward=False)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> Any:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._inv.forward_shape(shape)


def _widen(constraint: Any, event_dim: int) -> Any:
    # a constraint read over event_dim dimensions (an independent one when wider)
    extra = event_dim - constraint.event_dim
    if extra < 0:
        raise AssertionError(f"event_dim {event_dim} must be >= {constraint.event_dim}")
    return constraints.independent(constraint, extra) if extra else constraint


def _chain_event_dim(parts: list, forward: bool) -> int:
    """Event dims a chain of transforms needs at its far end (output if forward, else input).

    Walking from the near end, each part turns ``n`` dims on its near side into ``n`` plus
    its own rank change on the far side, but never fewer than the far side's own rank.
    """
    ordered = parts if forward else parts[::-1]
    sides = [(p.domain, p.codomain) if forward else (p.codomain, p.domain) for p in ordered]
    dims = sides[0][0].event_dim
    for near, far in sides:
        dims = max(dims + far.event_dim - near.event_dim, far.event_dim)
    return dims


class ComposeTransform(Transform):
    """The transforms ``parts`` applied one after the other.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.transforms import (
    ...     AffineTransform, ComposeTransform, ExpTransform)
    >>> t = ComposeTransform([AffineTransform(0.0, 2.0), ExpTransform()])
    >>> x = symgrad.tensor([0.5])
    >>> t(x), t.log_abs_det_jacobian(x, t(x))
    (tensor([2.7183]), tensor([1.6931]))
    """

    def __init__(self, parts: list, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.parts = [p.with_cache(cache_size) if cache_size else p for p in parts]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = None  # type: ignore[assignment]

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        if self.parts:
            return _widen(self.parts[0].domain, _chain_event_dim(self.parts, forward=False))
        return constraints.real

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        if self.parts:
            return _widen(self.parts[-1].codomain, _chain_event_dim(self.parts, forward=True))
        return constraints.real

    @lazy_property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self) -> Any:  # type: ignore[override]
        return functools.reduce(operator.mul, (p.sign for p in self.parts), 1)

    @property
    def inv(self) -> Transform:
        if self._inv is None:
            self._inv = ComposeTransform([p.inv for p in self.parts[::-1]])
            self._inv._inv = self
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if cache_size == self._cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        return functools.reduce(lambda value, part: part(value), self.parts, x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            from symgrad import _like

            return _like.zeros_like(x)
        # the intermediate values between consecutive parts (the last one is y itself)
        inputs = [x]
        for part in self.parts[:-1]:
            inputs.append(part(inputs[-1]))
        outputs = inputs[1:] + [y]
        terms = []
        rank = self.domain.event_dim
        for part, a, b in zip(self.parts, inputs, outputs):
            # each part's own log-det covers its event dims; the extra ones are summed away
            terms.append(
                _sum_rightmost(part.log_abs_det_jacobian(a, b), rank - part.domain.event_dim)
            )
            rank = rank - part.domain.event_dim + part.codomain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape: Any) -> Any:
        return functools.reduce(lambda s, part: part.forward_shape(s), self.parts, shape)

    def inverse_shape(self, shape: Any) -> Any:
        return functools.reduce(lambda s, part: part.inverse_shape(s), self.parts[::-1], shape)

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])
