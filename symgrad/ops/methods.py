"""The Tensor's op methods and operators, bound from one table when :mod:`symgrad.ops` loads.

Most methods are the public function of the same name with the tensor as its first argument;
the table lists those by name and spells out only the methods that differ (aliases, reflected
operators, in-place versions, conversions).
"""

from __future__ import annotations

import warnings
from typing import Any

from symgrad import dtypes, legacy_types
from symgrad._arguments import deprecated_alpha, items_one_by_one, tensor_method
from symgrad._data import keyword_sizes
from symgrad._factory import require_size
from symgrad.ops import (
    arg_reductions,
    assembling,
    bitwise,
    copies,
    determinants,
    differences,
    distances,
    division,
    gathering,
    indexing,
    joining,
    linalg,
    mask_fill,
    masked_writes,
    math,
    math_special,
    matrix_functions,
    norms,
    older_decompositions,
    ordering,
    products,
    putting,
    python_protocols,
    reductions,
    rounding,
    sampling,
    scans,
    scatter_reductions,
    scattering,
    selection,
    shape,
    shape_inplace,
    slice_norms,
    softmax_family,
    special_functions,
    statistics,
    strided_views,
    summaries,
    tiling,
    triangular,
    uniques,
    variance,
    views,
)
from symgrad.ops import elementwise as E
from symgrad.ops.comparisons import operator_form
from symgrad.ops.indexing import getitem
from symgrad.ops.inplace import copy_, fill_, inplace, zero_
from symgrad.ops.method_names import _IN_PLACE_OPS, _SAME_NAME
from symgrad.ops.setitem import setitem
from symgrad.ops.shape import reshape, transpose
from symgrad.ops.transposed_properties import matrix_transposed, transposed
from symgrad.tensor import Tensor, bind_methods

__all__ = ["METHODS"]


_IN_PLACE = {"fill_": fill_, "zero_": zero_, "copy_": copy_}

_MODULES = (
    strided_views,
    masked_writes,
    determinants,
    older_decompositions,
    matrix_functions,
    products,
    scattering,
    scatter_reductions,
    summaries,
    tiling,
    math,
    math_special,
    division,
    rounding,
    reductions,
    arg_reductions,
    scans,
    variance,
    softmax_family,
    shape,
    copies,
    triangular,
    joining,
    linalg,
    norms,
    ordering,
    selection,
    indexing,
    mask_fill,
    gathering,
    uniques,
    putting,
    assembling,
    differences,
    slice_norms,
    statistics,
)


def _op(name: str) -> Any:
    """The public function ``name`` of the ops modules."""
    found = [getattr(m, name) for m in _MODULES if hasattr(m, name)] + [_IN_PLACE.get(name)]
    if found[0] is None:
        raise LookupError(f"no op named {name!r} to bind as a Tensor method")
    return found[0]


add, sub, mul, div, pow = (_op(n) for n in ("add", "sub", "mul", "div", "pow"))
neg, exp, clamp, masked_fill = (_op(n) for n in ("neg", "exp", "clamp", "masked_fill"))
_own = lambda t, device: t.device if device is None else device  # noqa: E731 (new_*: t's)


# -- operators --------------------------------------------------------------------------------
def _rtruediv(self: Tensor, other: Any) -> Tensor:
    if type(other) in (int, float):
        # number / x is x.reciprocal() * number in PyTorch (MulBackward0), integer x too
        return mul(_op("reciprocal")(self), other)
    return div(other, self)


def _operator(name: str, prim: Any) -> Any:
    """``self <op> other`` straight on the element-wise primitive (an operator has no
    keyword arguments: this is one call per ``x * y`` instead of three)."""

    def method(self: Tensor, other: Any) -> Tensor:
        return prim(self, other)

    method.__name__ = method.__qualname__ = name
    return method


def _reflected(op: Any) -> Any:
    def method(self: Tensor, other: Any) -> Tensor:
        return op(other, self)

    method.__name__ = f"__r{op.__name__}__"
    return method


# -- in place ---------------------------------------------------------------------------------
def add_(self: Tensor, other: Any, *deprecated: Any, alpha: Any = 1) -> Tensor:
    if deprecated:
        other, alpha = deprecated_alpha("add_", other, deprecated, alpha)
    return inplace(self, "add_", lambda x: add(x, other, alpha=alpha), other)


def sub_(self: Tensor, other: Any, *deprecated: Any, alpha: Any = 1) -> Tensor:
    if deprecated:
        other, alpha = deprecated_alpha("sub_", other, deprecated, alpha)
    return inplace(self, "sub_", lambda x: sub(x, other, alpha=alpha), other)


def mul_(self: Tensor, other: Any) -> Tensor:
    return inplace(self, "mul_", lambda x: mul(x, other), other)


def div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    return inplace(self, "div_", lambda x: div(x, other, rounding_mode=rounding_mode), other)


def pow_(self: Tensor, exponent: Any) -> Tensor:
    return inplace(self, "pow_", lambda x: pow(x, exponent), exponent)


def floor_divide_(self: Tensor, other: Any) -> Tensor:
    return inplace(self, "floor_divide_", lambda x: division.floor_divide(x, other), other)


def remainder_(self: Tensor, other: Any) -> Tensor:
    return inplace(self, "remainder_", lambda x: division.remainder(x, other), other)


def fmod_(self: Tensor, other: Any) -> Tensor:
    return inplace(self, "fmod_", lambda x: division.fmod(x, other), other)


def clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    return inplace(self, "clamp_", lambda x: clamp(x, min, max), min, max)


def neg_(self: Tensor) -> Tensor:
    return inplace(self, "neg_", neg)


def exp_(self: Tensor) -> Tensor:
    return inplace(self, "exp_", exp)


def sign_(self: Tensor) -> Tensor:
    return inplace(self, "sign_", _op("sign"))


def _in_place_of(name: str) -> Any:
    """``x.name_(*args)``: the op ``name`` written into ``x`` (PyTorch's node of the op)."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        op = _op(name)
        others = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
        return inplace(self, f"{name}_", lambda x: op(x, *args, **kwargs), *others)

    method.__name__ = f"{name}_"
    method.__doc__ = f"In-place :func:`{name}`."
    return method


def _new(name: str, make: Any) -> Any:
    """``x.new_zeros(size)`` and friends (``name``): ``x``'s dtype unless told otherwise."""

    def method(
        self: Tensor,
        *size: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        **keyword: Any,
    ) -> Tensor:
        require_size(name, size, keyword)
        if keyword:
            size = keyword_sizes(name, size, keyword, "size")
        d = dtype if dtype is not None else self.dtype
        return make(self, size, d, _own(self, device), requires_grad)

    return method


def _new_full(
    self: Tensor,
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    from symgrad import creation

    d = dtype if dtype is not None else self.dtype
    return creation.full(
        tuple(size), fill_value, dtype=d, device=_own(self, device), requires_grad=requires_grad
    )


def _new_tensor(
    self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    from symgrad import creation

    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        data = data.detach().numpy()
    d = dtype if dtype is not None else self.dtype
    return creation.tensor(data, dtype=d, device=_own(self, device), requires_grad=requires_grad)


def _factory(name: str) -> Any:
    def make(self: Tensor, size: tuple, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
        from symgrad import creation
        from symgrad._factory import _shape

        return getattr(creation, name)(
            _shape(size, f"new_{name}"), dtype=dtype, device=device, requires_grad=requires_grad
        )

    return _new(f"new_{name}", make)


def masked_fill_(self: Tensor, mask: Any, value: Any) -> Tensor:
    return inplace(self, "masked_fill_", lambda x: masked_fill(x, mask, value), mask, value)


# -- methods that differ from their function --------------------------------------------------
def _where(self: Tensor, condition: Any, other: Any) -> Tensor:
    return _op("where")(condition, self, other)


def _softmax(self: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    return _op("softmax")(self, dim, dtype)


def _log_softmax(self: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    return _op("log_softmax")(self, dim, dtype)


def _view_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, other.shape)


def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    return shape.expand(self, other.shape)


def _positive(self: Tensor) -> Tensor:
    return self


# -- conversions ------------------------------------------------------------------------------
def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """PyTorch's type name (``'torch.FloatTensor'``), or a conversion to ``dtype`` (a dtype, a
    legacy type such as ``symgrad.DoubleTensor``, or its name)."""
    if dtype is None:
        return legacy_types.type_name(self)
    return self.to(legacy_types.as_tensor_type(dtype))


def _converter(dtype: dtypes.dtype) -> Any:
    def convert(self: Tensor) -> Tensor:
        return self.to(dtype)

    convert.__doc__ = f"Convert to {dtype.name}."
    return convert


METHODS: dict[str, Any] = {name: _op(name) for name in _SAME_NAME}
METHODS.update(
    {
        "__add__": _operator("__add__", E.ADD),
        # addition and multiplication commute; PyTorch puts the tensor first, which
        # next_functions shows
        "__radd__": _operator("__radd__", E.ADD),
        "__sub__": math.subtract_operator,
        "__rsub__": _reflected(sub),
        "__mul__": _operator("__mul__", E.MUL),
        "__rmul__": _operator("__rmul__", E.MUL),
        "__truediv__": _operator("__truediv__", E.DIV),
        "__rtruediv__": _rtruediv,
        "__floordiv__": division.floor_divide,
        "__rfloordiv__": _reflected(division.floor_divide),
        "__mod__": division.remainder,
        "__rmod__": _reflected(division.remainder),
        "__imod__": remainder_,
        "__ifloordiv__": floor_divide_,
        "__pow__": pow,
        "__rpow__": _reflected(pow),
        "__matmul__": _op("matmul"),
        "__rmatmul__": _reflected(_op("matmul")),
        "__neg__": neg,
        "__pos__": _positive,
        "__abs__": _op("abs"),
        **{f"__{n}__": operator_form(_op(n)) for n in ("eq", "ne", "lt", "le", "gt", "ge")},
        "__getitem__": getitem,
        "__setitem__": setitem,
        "__iadd__": add_,
        "__isub__": sub_,
        "__imul__": mul_,
        "__itruediv__": div_,
        "__ipow__": pow_,
        "__contains__": python_protocols.contains,
        "__reversed__": python_protocols.reversed_,
        "clip": clamp,
        "swapaxes": transpose,
        "view": shape.view,
        "view_as": tensor_method(_view_as, "view_as"),
        "reshape_as": tensor_method(_view_as, "reshape_as"),
        "expand_as": tensor_method(_expand_as, "expand_as"),
        "where": _where,
        "softmax": _softmax,
        "log_softmax": _log_softmax,
        "T": property(transposed),
        "mT": property(matrix_transposed),
        "add_": add_,
        "sub_": sub_,
        "mul_": mul_,
        "div_": div_,
        "pow_": pow_,
        "floor_divide_": floor_divide_,
        "remainder_": remainder_,
        "fmod_": fmod_,
        "clamp_": clamp_,
        "clip_": clamp_,
        "neg_": neg_,
        "negative_": neg_,
        "exp_": exp_,
        "masked_fill_": masked_fill_,
        "sign_": sign_,
        **rounding.IN_PLACE,
        "repeat": tiling.repeat,
        "repeat_interleave": tiling.repeat_interleave_method,
        "new_zeros": _factory("zeros"),
        "new_ones": _factory("ones"),
        "new_empty": _factory("empty"),
        "new_full": _new_full,
        "new_tensor": _new_tensor,
        **{f"{name}_": _in_place_of(name) for name in _IN_PLACE_OPS},
        "type": _type,
        "float": _converter(dtypes.float32),
        "double": _converter(dtypes.float64),
        "long": _converter(dtypes.int64),
        "int": _converter(dtypes.int32),
        "bool": _converter(dtypes.bool_),
        "half": _converter(dtypes.float16),
        "byte": _converter(dtypes.uint8),
        "char": _converter(dtypes.int8),
        "short": _converter(dtypes.int16),
    }
)

METHODS.update({n: tensor_method(_op(n), n) for n in ("atan2", "arctan2", "hypot", "logaddexp")})
METHODS.update(
    {f"{n}_": tensor_method(_in_place_of(n), f"{n}_") for n in ("atan2", "arctan2", "hypot")}
)
METHODS.update(math_special.IN_PLACE_METHODS, **products.IN_PLACE_METHODS)
METHODS.update(special_functions.METHODS)
METHODS.update(views.METHODS)
METHODS.update(bitwise.METHODS)
METHODS.update(sampling.METHODS)
METHODS.update(shape_inplace.METHODS)
METHODS["dist"] = distances.dist
METHODS["unique_consecutive"] = uniques.unique_consecutive_method
for _name in ("squeeze", "squeeze_", "count_nonzero", "tile", "flip", "broadcast_to"):
    METHODS[_name] = items_one_by_one(_name, METHODS.get(_name) or _op(_name))


_FLIP_ITEMS = METHODS["flip"]


def _flip_method(self: Tensor, *dims: Any, **keyword: Any) -> Tensor:
    """``x.flip(0)``: the method takes one dim as an int, where ``flip(x, 0)`` refuses it."""
    if len(dims) == 1 and isinstance(dims[0], int):
        dims = ((dims[0],),)
    return _FLIP_ITEMS(self, *dims, **keyword)


_flip_method.__name__ = _flip_method.__qualname__ = "flip"
_flip_method.__doc__ = _FLIP_ITEMS.__doc__
_flip_method.__wrapped__ = _FLIP_ITEMS.__wrapped__  # type: ignore[attr-defined]
METHODS["flip"] = _flip_method
bind_methods(METHODS)
