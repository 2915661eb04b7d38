"""The base class of :mod:`symgrad.distributions`, as ``torch.distributions.Distribution``.

A distribution's parameters are ordinary tensors, so ``log_prob``, ``entropy`` and ``rsample``
are recorded ops: their gradients, ``create_graph`` and closed forms come from the ops.
"""

from __future__ import annotations

import warnings
from typing import Any

from symgrad._data import Size
from symgrad.autograd import grad_mode
from symgrad.distributions import constraints
from symgrad.distributions.utils import _sum_rightmost as sum_rightmost  # noqa: F401
from symgrad.distributions.utils import broadcast_all as broadcast_all
from symgrad.distributions.utils import lazy_property
from symgrad.tensor import Tensor

__all__ = ["Distribution"]


class Distribution:
    """Base class of probability distributions.

    Parameters
    ----------
    batch_shape : Size
        The shape over which the parameters are batched.
    event_shape : Size
        The shape of one sample, without batching.
    validate_args : bool, optional
        Whether to check the parameters (here) and the values given to ``log_prob``, ``cdf``
        and ``icdf``; ``None`` takes the default (True, see ``set_default_validate_args``).

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Normal(symgrad.zeros(3), 1.0)
    >>> d.batch_shape, d.event_shape, d.sample((2,)).shape
    (symgrad.Size([3]), symgrad.Size([]), symgrad.Size([2, 3]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on (the default, as PyTorch) or off for all distributions.

        Examples
        --------
        >>> from symgrad.distributions import Distribution
        >>> Distribution.set_default_validate_args(True)
        """
        if value in (False, True):
            Distribution._validate_args = value
            return
        raise ValueError

    def __init__(
        self, batch_shape: Any = (), event_shape: Any = (), validate_args: Any = None
    ) -> None:
        self._batch_shape = batch_shape if isinstance(batch_shape, Size) else Size(batch_shape)
        self._event_shape = event_shape if isinstance(event_shape, Size) else Size(event_shape)
        # an explicit choice shadows the class-wide default for this instance only
        checking = self._validate_args if validate_args is None else validate_args
        if validate_args is not None:
            self._validate_args = validate_args
        if checking:
            self._validate_parameters()

    def _declared(self, what: str, advice: str) -> Any:
        # arg_constraints or support, or None (with a warning) when the class has none
        try:
            return getattr(self, what)
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `{what}`{advice}", stacklevel=4)
            return None

    def _validate_parameters(self) -> None:
        table = self._declared(
            "arg_constraints",
            ". Please set `arg_constraints = {}` or initialize the distribution with "
            "`validate_args=False` to turn off validation.",
        )
        for name, constraint in (table or {}).items():
            # a parameter computed lazily from the one given is not checked (nor computed)
            lazy = isinstance(getattr(type(self), name, None), lazy_property)
            if constraints.is_dependent(constraint) or (lazy and name not in self.__dict__):
                continue
            value = getattr(self, name)
            if not constraint._holds(value):
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A new distribution with its parameters expanded (not copied) to ``batch_shape``.

        Examples
        --------
        >>> import symgrad
        >>> symgrad.distributions.Normal(0.0, 1.0).expand((2, 3)).batch_shape
        symgrad.Size([2, 3])
        """
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of one sample, without batching."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """The constraint each parameter must satisfy, by parameter name."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The constraint the samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterized sample: gradients flow to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """``n`` samples (deprecated in PyTorch: use ``sample((n,))``)."""
        warnings.warn(
            "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All values of a discrete distribution along dimension 0 (batches in lock-step)."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, of shape ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``, of shape ``batch_shape``."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Any) -> None:
        """Raise ValueError unless ``value`` broadcasts with the batch and event shapes and
        lies in the support (what ``log_prob``, ``cdf`` and ``icdf`` check when validating)."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape, event = value.shape, self._event_shape
        if tuple(shape[len(shape) - len(event) :]) != tuple(event):
            raise ValueError(
                f"The right-most size of value must match event_shape: {shape} vs {event}."
            )
        expected = Size(tuple(self._batch_shape) + tuple(event))
        pairs = zip(tuple(shape)[::-1], tuple(expected)[::-1])
        if any(a != b and 1 not in (a, b) for a, b in pairs):
            raise ValueError(
                f"Value is not broadcastable with batch_shape+event_shape: {shape} vs {expected}."
            )
        support = self._declared(
            "support",
            " to enable sample validation. Please initialize the distribution with "
            "`validate_args=False` to turn off validation.",
        )
        if support is not None and not support._holds(value):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"
            )

    def _checked(self, value: Any) -> Any:
        """``value`` itself, once ``_validate_sample`` accepts it (when validating)."""
        validating = self._validate_args
        if validating:
            self._validate_sample(value)
        return value

    def _expanded_copy(
        self, cls: type, batch_shape: Any, _instance: Any, shared: tuple = (), grown: tuple = ()
    ) -> Any:
        """What most ``expand`` methods do: a ``cls`` of batch shape ``batch_shape`` that
        shares the attributes ``shared`` and holds each attribute of ``grown`` (a tensor or an
        inner distribution) expanded, keeping its dimensions to the right of the batch."""
        new = self._get_checked_instance(cls, _instance)
        batch = Size(batch_shape)
        width = len(self._batch_shape)
        for name in shared:
            setattr(new, name, getattr(self, name))
        for name in grown:
            if name not in self.__dict__:
                continue  # a lazy parameter not computed yet stays lazy in the copy too
            old = self.__dict__[name]
            extent = old.batch_shape if isinstance(old, Distribution) else old.shape
            setattr(new, name, old.expand(Size(tuple(batch) + tuple(extent)[width:])))
        new._batch_shape, new._event_shape = batch, self._event_shape
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        # expand builds the copy without calling __init__, which is only safe when the
        # subclass did not add constructor arguments of its own
        if _instance is not None:
            return _instance
        own = type(self)
        if own.__init__ is not cls.__init__:
            raise NotImplementedError(
                f"Subclass {own.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return own.__new__(own)

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        shown = []
        for name in names:
            value = self.__dict__[name]
            shown.append(f"{name}: {value if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(shown)})"
