"""The base of constraints: ``Constraint``, the dependent placeholders and
``independent``, shared by :mod:`symgrad.distributions.constraints` and its matrix module.

Examples
--------
>>> from symgrad.distributions.constraint_base import Constraint
>>> Constraint().event_dim
0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["Constraint", "is_dependent"]


class Constraint:
    """Base class of constraints: a region a value must lie in.

    ``is_discrete`` says whether the region is countable; ``event_dim`` is how many rightmost
    dimensions form one event, so ``check`` reduces over them.

    Examples
    --------
    >>> from symgrad.distributions.constraints import Constraint
    >>> Constraint.is_discrete, Constraint.event_dim
    (False, 0)
    """

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        """A boolean tensor of ``sample_shape + batch_shape``: which events lie in the set."""
        raise NotImplementedError

    def _holds(self, value: Tensor) -> bool:
        # what validation asks: whether every event lies in the set; the simple constraints
        # answer on the stored arrays, without recording ops (distributions call this per step)
        return bool(self.check(value).all())

    def __repr__(self) -> str:
        # PyTorch names the private class and shows it without its leading underscore
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder whose region depends on other parameters, so it cannot be checked.

    Calling it makes a copy that knows ``is_discrete`` and ``event_dim``.

    Examples
    --------
    >>> from symgrad.distributions import constraints
    >>> constraints.dependent(is_discrete=False, event_dim=1).event_dim
    1
    """

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented):
        # NotImplemented marks what is not known until the parameters are
        self._known = {"is_discrete": is_discrete, "event_dim": event_dim}

    def _static(self, name: str) -> Any:
        found = self._known[name]
        if found is NotImplemented:
            raise NotImplementedError(f".{name} cannot be determined statically")
        return found

    is_discrete = property(lambda self: self._static("is_discrete"))  # type: ignore[assignment]
    event_dim = property(lambda self: self._static("event_dim"))  # type: ignore[assignment]

    def __call__(
        self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
    ) -> _Dependent:
        asked = {"is_discrete": is_discrete, "event_dim": event_dim}
        merged = {k: self._known[k] if v is NotImplemented else v for k, v in asked.items()}
        return _Dependent(**merged)

    def check(self, x: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a dependent placeholder (one that cannot be checked).

    Examples
    --------
    >>> from symgrad.distributions import constraints
    >>> constraints.is_dependent(constraints.dependent), constraints.is_dependent(
    ...     constraints.real)
    (True, False)
    """
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A ``property`` that reads as a dependent constraint on the class and as the computed
    constraint on an instance (e.g. Uniform's support, an interval of its own bounds).

    Examples
    --------
    >>> from symgrad.distributions import constraints
    >>> class Box:
    ...     low, high = 0.0, 2.0
    ...     @constraints.dependent_property(is_discrete=False, event_dim=0)
    ...     def support(self):
    ...         return constraints.interval(self.low, self.high)
    >>> constraints.is_dependent(Box.support), Box().support
    (True, Interval(lower_bound=0.0, upper_bound=2.0))
    """

    def __init__(
        self,
        fn: Callable | None = None,
        *,
        is_discrete: Any = NotImplemented,
        event_dim: Any = NotImplemented,
    ) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Callable) -> _DependentProperty:  # type: ignore[override]
        return _DependentProperty(fn, **self._known)


class _IndependentConstraint(Constraint):
    """``base_constraint`` with ``reinterpreted_batch_ndims`` more dimensions read as part of
    the event: an event is valid when all its entries are.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> c = constraints.independent(constraints.positive, 1)
    >>> c, c.event_dim, c.check(symgrad.tensor([[1.0, 2.0], [1.0, -2.0]]))
    (IndependentConstraint(GreaterThan(lower_bound=0.0), 1), 1, tensor([ True, False]))
    """

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        n = reinterpreted_batch_ndims
        _require(
            isinstance(base_constraint, Constraint),
            f"base_constraint must be a Constraint, got {type(base_constraint).__name__}",
        )
        _require(
            isinstance(n, int), f"reinterpreted_batch_ndims must be an int, got {type(n).__name__}"
        )
        _require(n >= 0, f"reinterpreted_batch_ndims must be >= 0, got {n}")
        self.base_constraint, self.reinterpreted_batch_ndims = base_constraint, n

    # discrete as the base is; each reinterpreted batch dim joins the event
    is_discrete = property(lambda self: self.base_constraint.is_discrete)  # type: ignore
    event_dim = property(  # type: ignore[assignment]
        lambda self: self.reinterpreted_batch_ndims + self.base_constraint.event_dim
    )

    def check(self, value: Tensor) -> Tensor:
        per_entry = self.base_constraint.check(value)
        kept = per_entry.ndim - self.reinterpreted_batch_ndims
        if kept < 0:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.ndim}")
        if kept == per_entry.ndim:
            return per_entry
        # one row per event, valid when all of its entries are
        return per_entry.reshape(*per_entry.shape[:kept], -1).all(-1)

    def _holds(self, value: Tensor) -> bool:
        if value.ndim < self.reinterpreted_batch_ndims:
            return bool(self.check(value).all())  # raises PyTorch's error
        return self.base_constraint._holds(value)

    def __repr__(self) -> str:
        name = type(self).__name__[1:]
        return f"{name}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


def _require(ok: bool, message: str) -> None:
    # PyTorch checks these constructor arguments with assert (hence AssertionError)
    if not ok:
        raise AssertionError(message)


def _array(value: Any) -> Any:
    return value._data if isinstance(value, Tensor) else np.asarray(value)
