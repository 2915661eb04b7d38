"""PyTorch's TypeErrors for an argument that is not a tensor where only a tensor is taken
(``torch.exp(2.0)``, ``torch.maximum(t, 2.0)``, ``t.dot(None)``).

The checks run only on the failing path: a caller tests ``type(x) is not Tensor`` first (one
test per argument on the common path) and calls these, which let a subclass (a
``Parameter``, a batched tensor) through and refuse anything else.
"""

from __future__ import annotations

import numbers
import operator
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.tensor import Tensor


def require_tensor(op: str, name: str, position: int, value: Any) -> None:
    """PyTorch's TypeError for a non-tensor where only a tensor is accepted."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type(value).__name__}"
        )


def require_tensors(op: str, input: Any, other_name: str, other: Any) -> None:
    """:func:`require_tensor` for both arguments of a function ``op(input, other_name)``."""
    require_tensor(op, "input", 1, input)
    require_tensor(op, other_name, 2, other)


def tensor_method(
    function: Callable,
    op: str,
    other_name: str = "other",
    doc: str | None = None,
    only: bool = False,
) -> Callable:
    """The method ``self.op(other)`` of the two-tensor ``function``: PyTorch counts the
    method's argument from 1, the function's from 2 (``doc``: its docstring, else the
    function's); ``only``: ``other`` is all the method takes (``function`` a primitive, which
    would take more arguments as inputs)."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if only and len(args) + len(kwargs) != 1:
            raise TypeError(
                f"{op}() takes 1 argument ({other_name}) but {len(args) + len(kwargs)} were given"
            )
        if args:
            other, args = args[0], args[1:]
        elif other_name in kwargs:  # by PyTorch's name: x.mm(mat2=y)
            other = kwargs.pop(other_name)
        else:
            raise TypeError(f'{op}() missing 1 required positional arguments: "{other_name}"')
        if type(other) is not Tensor:
            require_tensor(op, other_name, 1, other)
        return function(self, other, *args, **kwargs)

    method.__name__ = method.__qualname__ = op
    method.__doc__ = function.__doc__ if doc is None else doc
    method.__wrapped__ = function  # (its parameters: symgrad._numpy_keywords reads them)
    return method


def invalid_combination(op: str, args: tuple, signatures: tuple) -> TypeError:
    """PyTorch's TypeError for arguments that match none of ``op``'s ``signatures``."""
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    expected = "".join(f"\n * ({s})" for s in signatures)
    return TypeError(
        f"{op}() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:{expected}"
    )


_COMPARISON = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, Number other, *, Tensor out = None",
)
_CLAMP = (
    "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
    "Tensor input, Number min = None, Number max = None, *, Tensor out = None",
)
_MAX_MIN = (
    "Tensor input, *, Tensor out = None",
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None",
)
_COMPARISONS = "eq ne lt le gt ge greater greater_equal less less_equal not_equal".split()
# PyTorch's overloads of the functions whose first argument is a tensor in every overload
_SIGNATURES = {
    **dict.fromkeys(_COMPARISONS, _COMPARISON),
    "clamp": _CLAMP,
    "clip": _CLAMP,
    "clamp_min": tuple(
        f"Tensor input, {k} min, *, Tensor out = None" for k in ("Tensor", "Number")
    ),
    "clamp_max": tuple(
        f"Tensor input, {k} max, *, Tensor out = None" for k in ("Tensor", "Number")
    ),
    "max": _MAX_MIN,
    "min": _MAX_MIN,
    "searchsorted": tuple(
        f"Tensor sorted_sequence, {kind}, *, bool out_int32 = False, bool right = False, "
        "str side = None, Tensor sorter = None, Tensor out = None"
        for kind in ("Tensor input", "Number self")
    ),
    "repeat_interleave": (
        "Tensor input, Tensor repeats, int dim = None, *, int output_size = None",
        "Tensor repeats, *, int output_size = None",
        "Tensor input, int repeats, int dim = None, *, int output_size = None",
    ),
    "prod": (
        "Tensor input, *, torch.dtype dtype = None",
        "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, "
        "Tensor out = None",
    ),
    "squeeze": ("Tensor input", "Tensor input, int dim", "Tensor input, tuple of ints dim"),
    "squeeze_": ("", "int dim", "tuple of ints dim"),
    "squeeze_copy": tuple(
        f"Tensor input, {d}*, Tensor out = None" for d in ("", "int dim, ", "tuple of ints dim, ")
    ),
    "where": (
        "Tensor condition",
        "Tensor condition, Tensor input, Tensor other, *, Tensor out = None",
        "Tensor condition, Number self, Tensor other",
        "Tensor condition, Tensor input, Number other",
        "Tensor condition, Number self, Number other",
    ),
}


class _Omitted:
    """The default of an argument PyTorch's overloads leave out, where None is not
    accepted (``x.squeeze()`` but not ``x.squeeze(None)``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<omitted>"


OMITTED: Any = _Omitted()


def check_keepdim(op: str, dim: Any, keepdim: Any) -> None:
    """PyTorch's TypeError for ``keepdim`` without ``dim``: its overload without dim has none."""
    if dim is OMITTED and keepdim:
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got (keepdim=bool, ): "
            "keepdim needs dim (dim=None keeps every dimension as 1)"
        )


def other_overload(op: str, dim: Any, keepdim: Any, other: Any) -> Any:
    """``other`` of PyTorch's overload ``op(input, other=tensor)`` of a reduction ``op`` (``max``,
    ``min``) that also takes ``dim`` there; its TypeError beside a dim or keepdim, or for a
    non-tensor ``other``."""
    if dim is not OMITTED or keepdim is not False or not isinstance(other, Tensor):
        raise TypeError(
            f"{op}() received an invalid combination of arguments: other= takes a tensor and "
            f"no dim or keepdim ({op}(input, other=tensor))"
        )
    return other


def require_tensor_input(op: str, input: Any, *rest: Any) -> None:
    """PyTorch's TypeError for a non-tensor first argument of ``op``, a function with several
    overloads, none of which takes a number there; ``rest`` the other arguments as given
    (trailing Nones are defaults, left out)."""
    if not isinstance(input, Tensor):
        raise no_overload(op, input, *rest)


def no_overload(op: str, *given: Any, none_given: bool = False) -> TypeError:
    """PyTorch's TypeError for arguments ``given`` that match none of ``op``'s overloads
    (trailing Nones are defaults, left out, unless ``none_given``)."""
    given_list = list(given)
    while len(given_list) > 1 and given_list[-1] is None and not none_given:
        given_list.pop()
    return invalid_combination(op, tuple(given_list), _SIGNATURES[op])


def require_int(op: str, name: str, value: Any) -> None:
    """PyTorch's TypeError for an argument that must be an int (a float or a bool is not, nor
    a tensor but a one-element integer one); PyTorch names the position only for a positional
    argument, this names none."""
    if isinstance(value, Tensor):
        if value.numel() == 1 and value.dtype.category == 1:
            return
    elif not isinstance(value, bool) and hasattr(type(value), "__index__"):
        return
    raise TypeError(f"{op}(): argument '{name}' must be int, not {type(value).__name__}")


def int_value(
    op: str, name: str, value: Any, position: int | None = None, sized: bool = False
) -> int:
    """An argument PyTorch reads as an int, as a Python int: an int, a NumPy integer or a 0-d
    integer tensor (a one-element one too if ``sized``: PyTorch's SymInt arguments); PyTorch's
    TypeError for anything else (a bool, a float, a list)."""
    if type(value) is int:
        return value
    if isinstance(value, Tensor):
        ok = value.dtype.category == 1 and (value.ndim == 0 or (sized and value.numel() == 1))
    else:
        ok = not isinstance(value, (bool, np.bool_)) and hasattr(type(value), "__index__")
    if not ok:
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{op}(): argument '{name}'{where} must be int, not {type(value).__name__}")
    return operator.index(value)


def require_tensor_sequence(values: tuple) -> None:
    """PyTorch's TypeError for a non-tensor among the tensors of ``op(*tensors)``."""
    for k, value in enumerate(values):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"expected Tensor as element {k} in argument 0, but got {type(value).__name__}"
            )


def require_bool(op: str, name: str, value: Any) -> None:
    """PyTorch's TypeError for an argument that must be a bool (a number is not)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{op}(): argument '{name}' must be bool, not {type(value).__name__}")


def require_python_bool(op: str, name: str, value: Any, position: int | None = 1) -> None:
    """PyTorch's TypeError for a flag that must be a Python bool (NumPy's bool is not one);
    ``position`` None: the argument was given by keyword."""
    if not isinstance(value, bool):
        where = f"'{name}'" if position is None else f"'{name}' (position {position})"
        raise TypeError(f"{op}(): argument {where} must be bool, not {type(value).__name__}")


def require_float(op: str, name: str, value: Any) -> None:
    """PyTorch's TypeError for an argument that must be a float: a real number or a
    one-element tensor is one, anything else (a longer tensor, a tuple, a string) is not."""
    if isinstance(value, Tensor):
        if value.numel() == 1:
            return
    elif isinstance(value, (numbers.Real, np.bool_)):
        return
    raise TypeError(f"{op}(): argument '{name}' must be float, not {type(value).__name__}")


def require_numbers(op: str, **values: Any) -> None:
    """PyTorch's TypeError for a scalar argument (``beta``, ``alpha``) that is not a Number:
    a Python or NumPy number, or a 0-d tensor; a list or a 1-element vector is not one."""
    for name, value in values.items():
        if type(value) in (int, float) or isinstance(value, (numbers.Number, np.bool_)):
            continue
        if isinstance(value, Tensor) and value.ndim == 0:
            continue
        raise TypeError(
            f"{op}(): argument '{name}' must be Number, not {type(value).__name__} (give an "
            "int or a float)"
        )


def items_one_by_one(name: str, function: Any) -> Any:
    """The method ``name`` of ``function(input, items)``, which also takes the items one by
    one (``x.squeeze(0, 1)``, ``x.tile(2, 1)``, ``x.flip(0, 1)``), as PyTorch's methods do."""

    def method(self: Tensor, *items: Any, **keyword: Any) -> Any:
        if len(items) > 1:
            items = (items,)
        return function(self, *items, **keyword)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = function.__doc__
    method.__wrapped__ = function  # (its parameters: symgrad._numpy_keywords reads them)
    return method


def deprecated_alpha(op: str, alpha: Any, rest: tuple, alpha_keyword: Any) -> tuple:
    """``(other, alpha)`` of PyTorch's deprecated overload ``add(input, alpha, other)`` (old
    optimizers' ``p.add_(-lr, grad)``), with its UserWarning; its TypeError when ``rest``
    holds more than ``other`` or ``alpha`` is not a number or was also given by keyword."""
    if len(rest) != 1 or alpha_keyword != 1 or not isinstance(alpha, (numbers.Number, np.number)):
        given = ", ".join(type(a).__name__ for a in (alpha, *rest))
        raise TypeError(
            f"{op}() received an invalid combination of arguments - got ({given}), but "
            f"expected (Tensor other, *, Number alpha = 1)"
        )
    warnings.warn(
        f"This overload of {op} is deprecated:\n\t{op}(Number alpha, Tensor other)\n"
        f"Consider using one of the following signatures instead:\n\t{op}(Tensor other, *, "
        "Number alpha = 1)",
        UserWarning,
        stacklevel=3,
    )
    return rest[0], alpha


def require_tensor_arguments(op: str, names: str, *values: Any) -> None:
    """:func:`require_tensor` for each of ``values``, the arguments ``names`` (space-separated,
    in PyTorch's order, counted from 1) of ``op``."""
    for position, (name, value) in enumerate(zip(names.split(), values), 1):
        require_tensor(op, name, position, value)


def require_ints(op: str, name: str, values: Any) -> None:
    """PyTorch's TypeError for an argument that must be an int or a sequence of ints
    (``roll``'s shifts, ``split``'s sizes): a float or a bool is neither."""
    items = values if isinstance(values, (tuple, list)) else (values,)
    for value in items:
        if isinstance(value, (bool, np.bool_)) or not hasattr(type(value), "__index__"):
            raise TypeError(
                f"{op}(): argument '{name}' must be tuple of ints, not {type(values).__name__}"
            )


def int_tuple(op: str, name: str, values: Any, position: int) -> tuple:
    """A tuple-of-ints argument (``normalized_shape``) as a tuple of Python ints; PyTorch's
    TypeError for anything but a tuple or list of ints (a lone int, a float among them)."""
    if not isinstance(values, (tuple, list)):
        raise TypeError(
            f"{op}(): argument '{name}' (position {position}) must be tuple of ints, not "
            f"{type(values).__name__}"
        )
    for pos, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not hasattr(type(value), "__index__"):
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be tuple of ints, but "
                f"found element of type {type(value).__name__} at pos {pos}"
            )
    return tuple(operator.index(v) for v in values)


def require_floating(input: Any, kernel: str) -> None:
    """PyTorch's NotImplementedError for a floating-only kernel (``elu_cpu``, ``GeluKernelImpl``)
    given an integer or bool tensor."""
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        name = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char"}
        t = str(input.dtype).split(".")[-1]
        raise NotImplementedError(
            f'"{kernel}" not implemented for {name.get(t, t.capitalize())!r}: convert the input '
            "with .float() or .double()"
        )


def require_same_dtype(input: Any, other: Any, what: str = "the other tensor") -> None:
    """PyTorch's error for ``other`` (a weight, a second operand) of another dtype than
    ``input``, where its kernel takes one dtype only (no promotion)."""
    if other is not None and other.dtype is not input.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype.scalar_type} but found "
            f"{other.dtype.scalar_type}\n(give {what} the input's dtype)"
        )
