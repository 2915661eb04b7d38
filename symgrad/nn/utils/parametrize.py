"""Parametrizations, as ``torch.nn.utils.parametrize``: a module's parameter or buffer
computed from an unconstrained one each time it is read.

After ``register_parametrization(layer, "weight", P())``, ``layer.weight`` is
``P()(layer.parametrizations.weight.original)``: the trained parameter is ``original``, and
``weight`` is a function of it (a symmetric, skew-symmetric or orthogonal matrix...).
Registering several parametrizations on one name chains them. Assigning ``layer.weight = X``
stores ``P().right_inverse(X)`` in ``original``. As in PyTorch, the module's class becomes a
subclass named ``Parametrized<Class>`` that holds ``weight`` as a property, until the last
parametrization is removed.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence
from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.container import ModuleDict, ModuleList
from symgrad.nn.modules.module import Module
from symgrad.nn.parameter import Parameter
from symgrad.tensor import Tensor

__all__ = [
    "register_parametrization",
    "remove_parametrizations",
    "is_parametrized",
    "cached",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
    "ParametrizationList",
]


class _Cache:
    """While :func:`cached` is active (``depth`` > 0): each parametrized tensor, computed
    once, by ``(id(module), name)``."""

    depth = 0
    values: dict = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Compute each parametrized tensor once inside the block and reuse it (say, a weight
    read at every step of a recurrent network); blocks nest.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import parametrize
    >>> class Doubled(nn.Module):
    ...     def forward(self, X):
    ...         return 2 * X
    >>> layer = nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(layer, "weight", Doubled())
    >>> layer.weight is layer.weight
    False
    >>> with parametrize.cached():
    ...     layer.weight is layer.weight
    True
    """
    _Cache.depth += 1
    try:
        yield
    finally:
        _Cache.depth -= 1
        if not _Cache.depth:
            _Cache.values = {}


def _register(module: Module, name: str, value: Tensor) -> None:
    """``value`` as a parameter of ``module`` if it is one, else as a buffer."""
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_values(original: Tensor, value: Tensor) -> None:
    """``original`` holds ``value``'s values from now on (the same tensor object: an
    optimizer holding it sees them); PyTorch's ``original.set_(value)``."""
    with no_grad():
        original.data = value.detach()


def _right_inverse_of(module: Module, value: Any, strict: bool) -> Any:
    """``module.right_inverse(value)``; where it has none, ``value`` (or with ``strict`` a
    RuntimeError, as assigning to the parametrized tensor needs every right inverse)."""
    inverse = getattr(module, "right_inverse", None)
    if inverse is None:
        if strict:
            raise RuntimeError(
                f"parametrization {type(module).__name__} does not implement right_inverse."
            )
        return value
    try:
        return inverse(value)
    except NotImplementedError:
        if strict:
            raise
        return value


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to ``original`` (or to
    ``original0``, ``original1``, ... where the first one's ``right_inverse`` returns
    several tensors). Made by :func:`register_parametrization`."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                new = _right_inverse_of(module, new, strict=False)
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                f"tuple...). Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype != original.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            _set_values(original, new)
            _register(self, "original", original)
        else:
            for i, value in enumerate(new):
                if not isinstance(value, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type "
                        f"{type(value).__name__}."
                    )
                value = value.detach()
                if isinstance(original, Parameter):
                    value = Parameter(value, original.requires_grad)
                value.requires_grad_(original.requires_grad)
                _register(self, f"original{i}", value)
        if not self.unsafe:
            _check_consistent(self(), shape, dtype, "")

    def right_inverse(self, value: Tensor) -> None:
        """Store ``value`` as the parametrized tensor: every parametrization's
        ``right_inverse``, last first, into ``original`` (in place)."""
        with no_grad():
            for module in reversed(self):
                value = _right_inverse_of(module, value, strict=True)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}"
                    )
                _set_values(self.original, value)
                return
            if not isinstance(value, Sequence) or len(value) != self.ntensors:
                raise ValueError(
                    f"'right_inverse' must return a sequence of {self.ntensors} tensors, as "
                    f"when the parametrization was registered. Got {type(value).__name__}"
                )
            for i, v in enumerate(value):
                _set_values(getattr(self, f"original{i}"), v)

    def forward(self) -> Tensor:
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _check_consistent(x: Any, shape: Any, dtype: Any, name: str) -> None:
    """Refuse a parametrization's result of another type, dtype or shape (unless unsafe)."""
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    what = f"module.{name}" if name else "original"
    if x.dtype != dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless "
            f"the `unsafe` flag is enabled.\n{what}.dtype: {dtype}\n"
            f"parametrization({what}).dtype: {x.dtype}"
        )
    if x.shape != shape:
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless "
            f"the `unsafe` flag is enabled.\n{what}.shape: {shape}\n"
            f"parametrization({what}).shape: {x.shape}"
        )


def _parametrized_class(module: Module) -> None:
    """Give ``module`` a class of its own, ``Parametrized<Class>``, to hold the properties."""
    cls = type(module)

    def __getstate__(self: Module) -> Any:
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(): "
            "save module.state_dict() and load it into a module parametrized the same way."
        )

    def __deepcopy__(self: Module, memo: dict) -> Module:
        replica = self.__new__(type(self))
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        return replica

    attrs = {"__getstate__": __getstate__, "__module__": cls.__module__}
    if not hasattr(cls, "__deepcopy__"):
        attrs["__deepcopy__"] = __deepcopy__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), attrs)


def _parametrized_property(name: str) -> property:
    def get(module: Module) -> Tensor:
        parametrization = module.parametrizations[name]
        if not _Cache.depth:
            return parametrization()
        key = (id(module), name)
        value = _Cache.values.get(key)
        if value is None:
            value = _Cache.values[key] = parametrization()
        return value

    def set_(module: Module, value: Tensor) -> None:
        module.parametrizations[name].right_inverse(value)

    return property(get, set_, doc=f"``{name}``, computed by its parametrizations.")


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make ``module.<tensor_name>`` (a parameter or buffer) the result of
    ``parametrization`` applied to ``module.parametrizations.<tensor_name>.original``; a
    second registration on the same name applies after the first. ``original`` starts as
    ``parametrization.right_inverse(tensor)`` when it has one, else as the tensor. Unless
    ``unsafe``, a parametrization must keep the tensor's shape and dtype (ValueError).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import parametrize
    >>> class Symmetric(nn.Module):
    ...     def forward(self, X):
    ...         return X.triu() + X.triu(1).transpose(-1, -2)
    >>> layer = nn.Linear(3, 3)
    >>> _ = parametrize.register_parametrization(layer, "weight", Symmetric())
    >>> type(layer).__name__, symgrad.equal(layer.weight, layer.weight.T)
    ('ParametrizedLinear', True)
    >>> [name for name, _ in layer.named_parameters()]
    ['bias', 'parametrizations.weight.original']
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_appended(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _parametrized_class(module)
            module.parametrizations = ModuleDict()
        setattr(type(module), tensor_name, _parametrized_property(tensor_name))
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized "
            f"element with name '{tensor_name}'"
        )
    return module


def _check_appended(module: Module, name: str, parametrization: Module) -> None:
    """A parametrization added to a chain keeps the tensor's shape and dtype, and so does
    its right inverse."""
    y = getattr(module, name)
    x = parametrization(y)
    _check_consistent(x, y.shape, y.dtype, name)
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        z = parametrization.right_inverse(x)
    except NotImplementedError:
        return
    if not isinstance(z, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(z).__name__}"
        )
    if z.dtype != y.dtype or z.shape != y.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype "
            f"and shape as module.{name}, unless the `unsafe` flag is enabled.\n"
            f"module.{name}: dtype {y.dtype}, shape {y.shape}\n"
            f"returned tensor: dtype {z.dtype}, shape {z.shape}"
        )


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has parametrizations (on ``tensor_name``, if given).

    Examples
    --------
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import parametrize
    >>> layer = nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(layer, "bias", nn.Identity())
    >>> parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "weight")
    (True, False)
    """
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Undo :func:`register_parametrization` on ``tensor_name``: it becomes a plain
    parameter (or buffer) again, the same tensor object as ``original``, holding the
    parametrized value (``leave_parametrized=True``) or ``original``'s own.

    Examples
    --------
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import parametrize
    >>> layer = nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(layer, "weight", nn.Identity())
    >>> _ = parametrize.remove_parametrizations(layer, "weight")
    >>> type(layer).__name__, [name for name, _ in layer.named_parameters()]
    ('Linear', ['bias', 'weight'])
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_values(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = (
            Parameter(value.detach(), value.requires_grad)
            if value.requires_grad
            else value.detach()
        )
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
            "parametrized in terms of a sequence of tensors."
        )
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before it was parametrized (``Linear`` for a
    ``ParametrizedLinear``).

    Examples
    --------
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import parametrize
    >>> layer = parametrize.register_parametrization(nn.Linear(2, 2), "bias", nn.Identity())
    >>> parametrize.type_before_parametrizations(layer).__name__
    'Linear'
    """
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Register on ``to_module`` the parametrizations of ``from_module`` (of ``tensor_name``
    only, when given), sharing their original tensors; a tensor ``to_module`` lacks is made
    from ``from_module``'s. Returns ``to_module``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad import nn
    >>> from symgrad.nn.utils import parametrize
    >>> class Twice(nn.Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    >>> _ = parametrize.register_parametrization(a, "weight", Twice())
    >>> b = parametrize.transfer_parametrizations_and_params(a, b)
    >>> bool(symgrad.equal(b.weight, a.weight)), type(b).__name__
    (True, 'ParametrizedLinear')
    """
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        originals = ["original"] if hasattr(source, "original") else []
        if not originals:
            while hasattr(source, f"original{len(originals)}"):
                originals.append(f"original{len(originals)}")
        for original in originals:
            setattr(target, original, getattr(source, original))
    return to_module
