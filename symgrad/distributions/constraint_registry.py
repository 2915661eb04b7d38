"""``biject_to`` and ``transform_to``: from a constraint to a transform that maps the
unconstrained reals onto it, as ``torch.distributions.constraint_registry``.

``biject_to(c)`` gives a bijection (for optimisation and change of variables);
``transform_to(c)`` may give a cheaper map that is not one-to-one (e.g. softmax onto the
simplex).

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import biject_to, constraints
>>> t = biject_to(constraints.unit_interval)
>>> t, t(symgrad.tensor([0.0]))
(SigmoidTransform(), tensor([0.5000]))
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from symgrad.distributions import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint classes to factories ``factory(constraint) -> Transform``.

    Examples
    --------
    >>> from symgrad.distributions import constraints, transforms
    >>> from symgrad.distributions.constraint_registry import ConstraintRegistry
    >>> registry = ConstraintRegistry()
    >>> @registry.register(constraints.positive)
    ... def _to_positive(constraint):
    ...     return transforms.SoftplusTransform()
    >>> registry(constraints.greater_than(0.0))
    SoftplusTransform()
    """

    def __init__(self) -> None:
        self._registry: dict = {}
        super().__init__()

    def register(self, constraint: Any, factory: Callable | None = None) -> Any:
        """Register ``factory`` for the class of ``constraint`` (a class or an instance);
        without ``factory``, a decorator."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(
                "Expected constraint to be either a Constraint subclass or instance, but got "
                f"{constraint}"
            )
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: Any) -> Any:
        """The transform the factory registered for ``type(constraint)`` builds."""
        factory = self._registry.get(type(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _identity(constraint: Any) -> Any:
    return transforms.identity_transform


def _above(constraint: Any) -> Any:
    # greater_than(b) and positive alike: exp, then shifted to start at the bound
    parts = [transforms.ExpTransform(), transforms.AffineTransform(constraint.lower_bound, 1)]
    return transforms.ComposeTransform(parts)


def _below(constraint: Any) -> Any:
    parts = [transforms.ExpTransform(), transforms.AffineTransform(constraint.upper_bound, -1)]
    return transforms.ComposeTransform(parts)


def _between(constraint: Any) -> Any:
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
        if low == 0 and high == 1:
            return transforms.SigmoidTransform()
    parts = [transforms.SigmoidTransform(), transforms.AffineTransform(low, high - low)]
    return transforms.ComposeTransform(parts)


def _independent(registry: ConstraintRegistry) -> Callable:
    def factory(constraint: Any) -> Any:
        base = registry(constraint.base_constraint)
        return transforms.IndependentTransform(base, constraint.reinterpreted_batch_ndims)

    return factory


def _cat(registry: ConstraintRegistry) -> Callable:
    def factory(constraint: Any) -> Any:
        parts = [registry(c) for c in constraint.cseq]
        return transforms.CatTransform(parts, constraint.dim, constraint.lengths)

    return factory


def _stack(registry: ConstraintRegistry) -> Callable:
    def factory(constraint: Any) -> Any:
        return transforms.StackTransform([registry(c) for c in constraint.cseq], constraint.dim)

    return factory


_BOTH = [
    (constraints.real, _identity),
    (constraints.greater_than, _above),
    (constraints.greater_than_eq, _above),
    (constraints.less_than, _below),
    (constraints.interval, _between),
    (constraints.half_open_interval, _between),
    (constraints.corr_cholesky, lambda c: transforms.CorrCholeskyTransform()),
]
for _constraint, _factory in _BOTH:
    biject_to.register(_constraint, _factory)
    transform_to.register(_constraint, _factory)
for _registry in (biject_to, transform_to):
    _registry.register(constraints.independent, _independent(_registry))
    _registry.register(constraints.cat, _cat(_registry))
    _registry.register(constraints.stack, _stack(_registry))

biject_to.register(constraints.simplex, lambda c: transforms.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: transforms.SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: transforms.LowerCholeskyTransform())
for _constraint in (constraints.positive_definite, constraints.positive_semidefinite):
    transform_to.register(_constraint, lambda c: transforms.PositiveDefiniteTransform())
