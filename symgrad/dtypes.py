"""Data types, the default dtype and PyTorch's type-promotion rules.

A :class:`dtype` wraps a NumPy dtype. Promotion follows PyTorch, not NumPy: operands are ranked
in three tiers (tensors with dimensions, zero-dimensional tensors, Python numbers) and a lower
tier only changes the result when it brings a higher *category* (bool < integer < floating).
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

__all__ = [
    "dtype",
    "float16",
    "float32",
    "float64",
    "int32",
    "int64",
    "bool_",
    "uint8",
    "int8",
    "int16",
    "uint16",
    "uint32",
    "uint64",
    "get_default_dtype",
    "set_default_dtype",
    "promote_types",
    "result_type",
]

_BOOL, _INT, _FLOAT = 0, 1, 2


class dtype:  # noqa: N801 - the PyTorch name
    """A tensor element type, printed as ``symgrad.float32`` and friends.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.float64
    symgrad.float64
    >>> symgrad.float32.is_floating_point
    True
    """

    __slots__ = ("name", "numpy", "category", "itemsize")

    def __init__(self, name: str, numpy_dtype: type) -> None:
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        kind = self.numpy.kind
        self.category = _FLOAT if kind == "f" else _BOOL if kind == "b" else _INT
        self.itemsize = self.numpy.itemsize

    @property
    def is_floating_point(self) -> builtins.bool:
        return self.category == _FLOAT

    @property
    def is_signed(self) -> builtins.bool:
        return self.numpy.kind in "if"

    @property
    def is_complex(self) -> builtins.bool:
        return False

    @property
    def scalar_type(self) -> str:
        """PyTorch's C++ name of the type, as its messages and type names use it
        (``Float``, ``Double``, ``Long``, ...)."""
        return _SCALAR_TYPES[self.name]

    def __repr__(self) -> str:
        return f"symgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name if self.name != "bool" else "bool_"


_SCALAR_TYPES = {
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
    "int32": "Int",
    "int64": "Long",
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
}
float16 = dtype("float16", np.float16)
float32 = dtype("float32", np.float32)
float64 = dtype("float64", np.float64)
int32 = dtype("int32", np.int32)
int64 = dtype("int64", np.int64)
bool_ = dtype("bool", np.bool_)
uint8 = dtype("uint8", np.uint8)
int8 = dtype("int8", np.int8)
int16 = dtype("int16", np.int16)
# PyTorch's "limited support" unsigned types: made, converted, compared for equality,
# multiplied and summed, but promoted with nothing but themselves and the floating types
uint16 = dtype("uint16", np.uint16)
uint32 = dtype("uint32", np.uint32)
uint64 = dtype("uint64", np.uint64)
LIMITED = (uint16, uint32, uint64)

# the element-wise ops PyTorch computes on them, and its kernels' names in the errors of the rest
_LIMITED_OPS = frozenset({"mul", "bitwise_and", "bitwise_or", "bitwise_xor"})
_KERNEL_NAMES = {"add": "add_stub", "sub": "add_stub", "pow": "pow", "clamp": "clamp_scalar_cpu"}


def check_limited(d: dtype, op: str) -> None:
    """PyTorch's NotImplementedError for an element-wise ``op`` it lacks on uint16/32/64."""
    if op not in _LIMITED_OPS:
        raise NotImplementedError(
            f"\"{_KERNEL_NAMES.get(op, op + '_cpu')}\" not implemented for '{d.scalar_type}'; "
            "convert the tensor with .long() or .float() first"
        )


_ALL = (float16, float32, float64, int32, int64, bool_, uint8, int8, int16, *LIMITED)
_BY_NUMPY = {d.numpy: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_default = [float32]


def get_default_dtype() -> dtype:
    """Return the dtype of floating tensors made without a ``dtype=`` (float32 at start).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.get_default_dtype()
    symgrad.float32
    """
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype (``symgrad.float32`` or ``symgrad.float64``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_default_dtype(symgrad.float64)
    >>> symgrad.tensor([1.5]).dtype
    symgrad.float64
    >>> symgrad.set_default_dtype(symgrad.float32)
    """
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(
            f"{'' if isinstance(d, dtype) else 'invalid dtype object: '}only floating-point "
            f"types are supported as the default type (got {d!r}; give symgrad.float32 or "
            "symgrad.float64)"
        )
    _default[0] = d


def as_dtype(
    value: object, op: str | None = None, name: str = "dtype", position: int | None = None
) -> dtype:
    """Argument ``name`` of ``op`` (at ``position``, if positional) as a :class:`dtype`: a
    symgrad dtype, or Python's ``float``, ``int`` or ``bool`` (float64, int64, bool), the types
    PyTorch takes; anything else, a dtype's name or a NumPy dtype included, is PyTorch's
    TypeError.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.zeros(1, dtype=float).dtype
    symgrad.float64
    """
    if isinstance(value, dtype):
        return value
    if value is builtins.float:
        return float64  # PyTorch maps the Python type float to float64
    if value is builtins.int:
        return int64
    if value is builtins.bool:
        return bool_
    if value is builtins.complex:
        known = ", ".join(d.name for d in _ALL)
        raise TypeError(f"unsupported dtype complex; symgrad supports {known}")
    where = "" if position is None else f" (position {position})"
    raise TypeError(
        f"{f'{op}(): ' if op else ''}argument '{name}'{where} must be torch.dtype, not "
        f"{type(value).__name__}{_hint(value)}"
    )


def _hint(value: object) -> str:
    """The symgrad dtype a name or NumPy dtype stands for, as a suggestion."""
    if isinstance(value, str):
        found = _BY_NAME.get(value)
    else:
        try:
            found = _BY_NUMPY.get(np.dtype(value))  # type: ignore[call-overload]
        except TypeError:
            found = None
    return "" if found is None else f" (give symgrad.{found.name} for {value!r})"


def named(name: str) -> dtype:
    """The dtype called ``name`` (``"float32"``), or a clear TypeError."""
    found = _BY_NAME.get(name)
    if found is None:
        known = ", ".join(d.name for d in _ALL)
        raise TypeError(f"unsupported dtype {name!r}; symgrad supports {known}")
    return found


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The symgrad dtype of a NumPy array's dtype, or a clear TypeError."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        known = ", ".join(d.name for d in _ALL)
        raise TypeError(
            f"can't convert a NumPy array of dtype {np_dtype}; symgrad supports {known}"
        )
    return found


# the C++ type of each dtype, as PyTorch names dtypes in some messages
_CPP_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
}


def cpp_name(d: dtype) -> str:
    """The C++ type PyTorch's messages name ``d`` by (``long int`` for int64)."""
    return _CPP_NAMES.get(d.name, d.name)


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to (PyTorch's ``promote_types``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.promote_types(symgrad.float32, symgrad.int64)
    symgrad.float32
    """
    if type(a) is not dtype or type(b) is not dtype:
        a = as_dtype(a, "promote_types", "type1", 1)
        b = as_dtype(b, "promote_types", "type2", 2)
    if a is b:
        return a
    if (a in LIMITED or b in LIMITED) and _FLOAT not in (a.category, b.category):
        raise RuntimeError(
            "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
            f"{a.scalar_type} and {b.scalar_type}; convert one of them with .to(dtype)"
        )
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.numpy.kind != b.numpy.kind and a.category == _INT:
        # unsigned with signed: a signed type holding both ranges (uint8 with int8 is int16)
        unsigned, signed = (a, b) if a.numpy.kind == "u" else (b, a)
        return signed if signed.itemsize > unsigned.itemsize else int16
    return a if a.itemsize >= b.itemsize else b


def _scalar_dtype(value: object) -> dtype:
    if isinstance(value, builtins.bool):
        return bool_
    if isinstance(value, np.bool_):  # no Python bool: PyTorch reads it as a float (its __float__)
        return get_default_dtype()
    if isinstance(value, numbers.Integral):
        return int64
    if isinstance(value, numbers.Real):
        return get_default_dtype()
    raise TypeError(f"expected a Tensor or a real number, got {type(value).__name__}")


def result_type(*operands: object) -> dtype:
    """The dtype of an element-wise op on ``operands`` (Tensors and Python numbers).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.result_type(symgrad.ones(2), 2.5)
    symgrad.float32
    >>> symgrad.result_type(symgrad.ones(2, dtype=symgrad.int64), 2.5)
    symgrad.float32
    """
    tiers: list[dtype | None] = [None, None, None]
    for op in operands:
        d = getattr(op, "dtype", None)
        if isinstance(d, dtype):
            tier = 0 if op.ndim else 1
        else:
            tier, d = 2, _scalar_dtype(op)
        tiers[tier] = d if tiers[tier] is None else promote_types(tiers[tier], d)
    result = None
    for tier, d in enumerate(tiers):
        if d is None:
            continue
        if result is None:
            result = d
        elif d.category > result.category:
            # a lower tier only lifts the category; a float Python number gives the default
            result = get_default_dtype() if (tier == 2 and d.category == _FLOAT) else d
    return result if result is not None else get_default_dtype()
