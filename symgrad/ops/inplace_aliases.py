"""The in-place comparisons (``x.eq_(y)``: 1 or 0 written in ``x``'s dtype) and the other
in-place spellings PyTorch offers (``multiply_``, ``subtract_``, ``divide_``,
``true_divide_``, ``absolute_``, ``sgn_``, ``logical_not_``, ``heaviside_``).

A comparison written into a tensor that requires grad is recorded, as in PyTorch, by a node
of the comparison (``EqBackward0`` for a number, ``EqBackward1`` for a tensor) whose gradient
is 0 for every input. ``logical_not_`` is not differentiable: PyTorch writes the values and
keeps the tensor's history (its gradient flows on as before the write).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd import grad_mode
from symgrad.ops import linalg, math, math_special, quantiles
from symgrad.ops.inplace import inplace, write_values
from symgrad.ops.methods import METHODS as _BOUND
from symgrad.ops.methods import div_, mul_, sub_
from symgrad.ops.reflected_sub import subtract
from symgrad.prim.primitive import camel
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor, bind_methods

__all__: list[str] = []


def _zeros_vjp(xp: Any, g: Any, ctx: Any) -> tuple:
    """PyTorch's ``zeros_like`` for every input of an in-place comparison."""
    return tuple(
        xp.constant(np.zeros(shape)) if need else None for shape, need in zip(ctx.shapes, ctx.needs)
    )


def _zeros_jvp(xp: Any, tangents: tuple, ctx: Any) -> Any:
    return xp.constant(np.zeros(ctx.shapes[0]))


def _compared(ufunc: Any) -> Any:
    def forward(xp: Any, a: Any, b: Any = None, other: Any = None) -> Any:
        return np.asarray(ufunc(a, other if b is None else b)).astype(np.asarray(a).dtype)

    return forward


def _comparison_prims(name: str, ufunc: Any) -> tuple:
    """The node of ``name_`` with a number (``...Backward0``) and with a tensor (``...1``)."""
    forward = _compared(ufunc)
    number = Structural(
        f"{name}_", forward, _zeros_vjp, backward=f"{camel(name)}Backward0", jvp=_zeros_jvp
    )
    tensor = Structural(
        f"{name}_", forward, _zeros_vjp, backward=f"{camel(name)}Backward1", jvp=_zeros_jvp
    )
    return number, tensor


def _compare_in_place(name: str, ufunc: Any, prims: tuple, called: str) -> Any:
    """The method ``called`` (``eq_``, ``greater_``): ``name``'s comparison in place."""
    op = getattr(math, name)
    number, tensor = prims

    def compute(x: Tensor, other: Any) -> Tensor:
        values = op(x, other)  # PyTorch's checks of the operands, and the values
        if not grad_mode.recording():
            return values
        if isinstance(other, Tensor):
            return tensor(x, other)
        return number(x, other=other)

    def method(self: Tensor, other: Any) -> Tensor:
        return inplace(self, called, lambda x: compute(x, other), other)

    method.__name__ = method.__qualname__ = called
    method.__doc__ = (
        f"Write ``self.{called[:-1]}(other)`` into ``self`` as 1 and 0 of its dtype.\n\n"
        f">>> import symgrad\n>>> symgrad.tensor([1.0, 2.0, 3.0]).{called}(2)\n"
        f"tensor([{', '.join(f'{int(ufunc(v, 2))}.' for v in (1, 2, 3))}])"
    )
    return method


_COMPARISONS = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}
_PRIMS = {name: _comparison_prims(name, ufunc) for name, ufunc in _COMPARISONS.items()}
# PyTorch's other names, recorded as the comparison they name
_CALLED = {
    **{name: name for name in _COMPARISONS},
    "greater": "gt",
    "greater_equal": "ge",
    "less": "lt",
    "less_equal": "le",
    "not_equal": "ne",
}


def _true_divide_(self: Tensor, other: Any) -> Tensor:
    return div_(self, other)


def _subtract_(self: Tensor, other: Any, *number_alpha: Any, alpha: Any = None) -> Tensor:
    """``sub_``; with ``other`` a number, ``alpha`` may come by position (node ``SubBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([0.25, 0.75])
    >>> x.subtract_(0.5, 2)
    tensor([-0.7500, -0.2500])
    """
    if not number_alpha:
        return sub_(self, other, alpha=1 if alpha is None else alpha)
    return inplace(self, "sub_", lambda x: subtract(x, other, *number_alpha, alpha=alpha), other)


def _logical_not_(self: Tensor) -> Tensor:
    return write_values(self, "logical_not_", math.logical_not)


def _sgn_(self: Tensor) -> Tensor:
    return inplace(self, "sgn_", math_special.sgn)


def _logaddexp2(self: Tensor, other: Any) -> Tensor:
    """``log2(2 ** self + 2 ** other)``, ``other`` a tensor.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([3.0]).logaddexp2(symgrad.tensor([3.0]))
    tensor([4.])
    """
    math_special.require_tensor("logaddexp2", "other", 1, other)
    return math_special.logaddexp2(self, other)


def _heaviside_(self: Tensor, values: Any) -> Tensor:
    return inplace(
        self, "heaviside_", lambda x: quantiles.heaviside_values(x, values, "heaviside_"), values
    )


METHODS: dict[str, Any] = {
    f"{called}_": _compare_in_place(name, _COMPARISONS[name], _PRIMS[name], f"{called}_")
    for called, name in _CALLED.items()
}
METHODS.update(
    {
        "multiply_": mul_,
        "subtract_": _subtract_,
        "divide_": div_,
        "true_divide_": _true_divide_,
        "absolute": math.abs,
        "absolute_": _BOUND["abs_"],
        "sgn": math_special.sgn,
        "angle": math_special.angle,
        "vdot": linalg.vdot,
        "ger": linalg.ger,
        "sgn_": _sgn_,
        "logical_not_": _logical_not_,
        "heaviside_": _heaviside_,
        "logaddexp2": _logaddexp2,
    }
)
bind_methods(METHODS)
