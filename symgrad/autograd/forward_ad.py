"""Forward-mode automatic differentiation, as ``torch.autograd.forward_ad``.

Inside a :class:`dual_level`, a tensor made with :func:`make_dual` carries a tangent, and every
op computes its output's tangent from its inputs' (the Jacobian-vector product, from each
primitive's forward rule); :func:`unpack_dual` reads it back.

Examples
--------
>>> import symgrad
>>> import symgrad.autograd.forward_ad as fwAD
>>> x = symgrad.tensor([1.0, 2.0])
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(x, symgrad.tensor([1.0, 0.0])) ** 2
...     fwAD.unpack_dual(y).tangent
tensor([2., 0.])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from symgrad import _layout, _memory_format
from symgrad.autograd import dual
from symgrad.autograd.dual import STATE, Level
from symgrad.tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
    "dual_level",
]


def enter_dual_level() -> int:
    """Enter a new dual level and return its index (0: one level at a time, as in PyTorch).

    Examples
    --------
    >>> import symgrad.autograd.forward_ad as fwAD
    >>> fwAD.enter_dual_level()
    0
    >>> fwAD.exit_dual_level()
    """
    if STATE.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    STATE.level = Level(0)
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Leave the dual level ``level`` (the present one by default); every tangent of it is
    dropped."""
    if level is None:
        level = -1 if STATE.level is None else STATE.level.index
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if STATE.level is None or level != STATE.level.index:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    STATE.level.alive = False
    STATE.level = None


def _check_level(level: int | None, op: str) -> None:
    if level is None:
        if STATE.level is None:
            raise RuntimeError(
                "Trying to create a dual Tensor for forward AD but no level exists, make sure "
                "to enter_dual_level() first."
            )
        return
    if STATE.level is None or level != STATE.level.index:
        if level >= 0 and STATE.level is None:
            raise RuntimeError(
                "Trying to access a forward AD level with an invalid index. This index was "
                "either not created or is already deleted."
            )
        raise RuntimeError(f"Invalid level given to {op}")


def _check_floating(t: Tensor, what: str = "primal") -> None:
    """PyTorch's ValueError for a primal or tangent of forward mode that is not floating
    point (forward-mode transforms raise it before running the function)."""
    if not t.dtype.is_floating_point:
        raise ValueError(f"Expected {what} to be floating point or complex, but got: {t.dtype}")


def _laid_out_as(tangent: Tensor, primal: Tensor) -> Tensor:
    """``tangent``, or a copy of it with ``primal``'s strides where those differ (a dense
    primal), as PyTorch stores a tangent (recorded, for a tangent that requires grad)."""
    if type(tangent) is not Tensor or type(primal) is not Tensor:  # (batched: no layout)
        return tangent
    strides = primal.stride()
    if tangent.stride() == strides or not _layout.is_dense(tuple(primal.shape), strides):
        return tangent
    if not tangent.requires_grad:
        return Tensor._make(_memory_format.copy_strided(tangent._data, strides))
    empty = _memory_format.empty_strided(tuple(primal.shape), tangent._data.dtype, strides)
    return Tensor._make(empty).copy_(tangent)


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A tensor with ``tensor``'s values (a view of it) and ``tangent`` as its tangent.

    ``tangent`` must have ``tensor``'s shape; both must be floating point. The result is a
    view of ``tensor`` (so its gradients flow back to ``tensor`` in reverse mode).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(symgrad.tensor([3.0]), symgrad.tensor([1.0]))
    ...     fwAD.unpack_dual(d.exp()).tangent
    tensor([20.0855])
    """
    _check_level(level, "_make_dual")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError(
            "make_dual(): expected Tensors for the primal and the tangent, got "
            f"{type(tensor).__name__} and {type(tangent).__name__}"
        )
    _check_floating(tensor, "primal")
    _check_floating(tangent, "tangent")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if dual.tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            "same level 0 is not supported."
        )
    if dual.tangent_of(tangent) is not None:
        raise RuntimeError(
            "Setting a forward grad that itself has a forward gradient at the same level 0 is "
            "not supported."
        )
    with dual.disabled():
        result = tensor.view(tensor.shape)
        tangent = _laid_out_as(tangent, tensor)
    dual.set_tangent(result, tangent)
    dual.mark_dual(result)  # its tangent is its own, not shared with its base's views
    return result


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the ``primal`` values and the ``tangent`` (or
    None)."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """``tensor``'s values (a view without the tangent) and its tangent at ``level``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.autograd.forward_ad as fwAD
    >>> fwAD.unpack_dual(symgrad.ones(1))
    UnpackedDualTensor(primal=tensor([1.]), tangent=None)
    """
    if not isinstance(tensor, Tensor):
        if dual.STATE.level is not None:  # (outside a level PyTorch passes it through)
            raise TypeError(
                "_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                f"{type(tensor).__name__}"
            )
        return UnpackedDualTensor(tensor, None)
    if dual.STATE.level is None:  # (outside a level PyTorch gives the tensor itself)
        return UnpackedDualTensor(tensor, None)
    tangent = dual.tangent_of(tensor) if not dual.STATE.off else None
    if tangent is not None and level is not None:  # PyTorch checks the level of a dual only
        _check_level(level, "_fw_primal")
    # inside a level, a new view of the values, as PyTorch's, tangent or not
    return UnpackedDualTensor(tensor._fw_primal(level), tangent)


class dual_level:
    """A context manager for one dual level: tangents live inside it and are dropped on exit;
    as a decorator, the function runs inside one.

    Examples
    --------
    >>> import symgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level() as level:
    ...     level
    0
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def inside(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return func(*args, **kwargs)

        return inside
