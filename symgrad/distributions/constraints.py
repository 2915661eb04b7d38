"""Constraints: the sets a distribution's parameters and samples live in, as
``torch.distributions.constraints``.

A constraint's ``check(value)`` returns a boolean tensor over the batch: one entry per event,
where the event is the rightmost ``event_dim`` dimensions of ``value``.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import constraints
>>> constraints.positive
GreaterThan(lower_bound=0.0)
>>> constraints.positive.check(symgrad.tensor([-1.0, 2.0]))
tensor([False,  True])
"""

from __future__ import annotations

import operator
from typing import Any

from symgrad.tensor import Tensor

__all__ = [
    "Constraint",
    "MixtureSameFamilyConstraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "independent",
    "integer_interval",
    "interval",
    "half_open_interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_semidefinite",
    "positive_definite",
    "positive_integer",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


from symgrad.distributions.constraint_base import (
    Constraint,
    _array,
    _Dependent,
    _DependentProperty,
    _IndependentConstraint,
    is_dependent,
)
from symgrad.distributions.constraints_matrix import (
    _Cat,
    _CorrCholesky,
    _LowerCholesky,
    _LowerTriangular,
    _Multinomial,
    _OneHot,
    _PositiveDefinite,
    _PositiveSemidefinite,
    _Simplex,
    _Square,
    _Stack,
    _Symmetric,
)
from symgrad.distributions.mixture_constraint import MixtureSameFamilyConstraint


class _Boolean(Constraint):
    """The values 0 and 1.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.boolean.check(symgrad.tensor([0.0, 1.0, 0.5]))
    tensor([ True,  True, False])
    """

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)

    def _holds(self, value: Tensor) -> bool:
        x = _array(value)
        return bool(((x == 0) | (x == 1)).all())


class _Bounded(Constraint):
    # a set cut out by comparing values with its bounds: ``_tests`` pairs each bound's name with
    # the comparison a value must pass (value first); discrete sets hold whole numbers only.
    # The repr is the class name and its bounds, e.g. Interval(lower_bound=0.0, upper_bound=1.0)
    _tests: tuple = ()

    def _inside(self, value: Any, bound: Any) -> Any:
        # ``bound`` maps each stored bound: unchanged for tensor checks, to arrays for _holds
        inside = value % 1 == 0 if self.is_discrete else None
        for name, compare in self._tests:
            passes = compare(value, bound(getattr(self, name)))
            inside = passes if inside is None else inside & passes
        return inside

    def check(self, value: Tensor) -> Tensor:
        return self._inside(value, lambda b: b)

    def _holds(self, value: Tensor) -> bool:
        return bool(self._inside(_array(value), _array).all())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)}" for name, _ in self._tests)
        return f"{type(self).__name__[1:]}({shown})"


class _LowerBounded(_Bounded):
    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound
        super().__init__()


class _UpperBounded(_Bounded):
    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound
        super().__init__()


class _TwoBounded(_Bounded):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        super().__init__()


class _IntegerInterval(_TwoBounded):
    """Integers in ``[lower_bound, upper_bound]``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.integer_interval(0, 3).check(symgrad.tensor([0.0, 3.0, 1.5, 4.0]))
    tensor([ True,  True, False, False])
    """

    is_discrete = True
    _tests = (("lower_bound", operator.ge), ("upper_bound", operator.le))


class _IntegerLessThan(_UpperBounded):
    """Integers at most ``upper_bound``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions.constraints import _IntegerLessThan
    >>> _IntegerLessThan(2).check(symgrad.tensor([2.0, 2.5, 3.0]))
    tensor([ True, False, False])
    """

    is_discrete = True
    _tests = (("upper_bound", operator.le),)
    _holds = Constraint._holds  # validation goes through check: it has no array shortcut


class _IntegerGreaterThan(_LowerBounded):
    """Integers at least ``lower_bound`` (``nonnegative_integer``, ``positive_integer``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.nonnegative_integer.check(symgrad.tensor([0.0, 2.0, -1.0, 0.5]))
    tensor([ True,  True, False, False])
    """

    is_discrete = True
    _tests = (("lower_bound", operator.ge),)


class _Real(Constraint):
    """The extended real line: every value but nan.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.real.check(symgrad.tensor([float("inf"), float("nan")]))
    tensor([ True, False])
    """

    def check(self, value: Tensor) -> Tensor:
        return value == value  # nan is the one value unequal to itself

    def _holds(self, value: Tensor) -> bool:
        x = _array(value)
        return bool((x == x).all())


class _GreaterThan(_LowerBounded):
    """Values strictly above ``lower_bound`` (``positive`` is ``greater_than(0.0)``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.greater_than(1.0).check(symgrad.tensor([1.0, 1.5]))
    tensor([False,  True])
    """

    _tests = (("lower_bound", operator.gt),)


class _GreaterThanEq(_LowerBounded):
    """Values at or above ``lower_bound`` (``nonnegative`` is ``greater_than_eq(0.0)``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.nonnegative.check(symgrad.tensor([-0.5, 0.0]))
    tensor([False,  True])
    """

    _tests = (("lower_bound", operator.ge),)


class _LessThan(_UpperBounded):
    """Values strictly below ``upper_bound``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.less_than(1.0).check(symgrad.tensor([0.5, 1.0]))
    tensor([ True, False])
    """

    _tests = (("upper_bound", operator.lt),)


class _Interval(_TwoBounded):
    """The closed interval ``[lower_bound, upper_bound]`` (``unit_interval`` is ``[0, 1]``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.unit_interval.check(symgrad.tensor([0.0, 1.0, 1.5]))
    tensor([ True,  True, False])
    """

    _tests = (("lower_bound", operator.ge), ("upper_bound", operator.le))


class _HalfOpenInterval(_TwoBounded):
    """The interval ``[lower_bound, upper_bound)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.half_open_interval(0.0, 1.0).check(symgrad.tensor([0.0, 1.0]))
    tensor([ True, False])
    """

    _tests = (("lower_bound", operator.ge), ("upper_bound", operator.lt))


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
