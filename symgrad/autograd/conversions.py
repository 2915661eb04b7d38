"""Conversions of a tensor that depend on grad mode (bound as :class:`~symgrad.Tensor` methods
when :mod:`symgrad.autograd` loads): while the graph records, ``numpy()`` of a tensor that
requires grad is refused and ``float()`` of one warns, as in PyTorch, since the values leave
the graph."""

from __future__ import annotations

import numpy as np

from symgrad import _user_warnings
from symgrad._tracing import TRACE, escape
from symgrad.autograd.grad_mode import _state
from symgrad.tensor import Tensor, bind_methods

__all__ = ["numpy"]


def numpy(self: Tensor, *, force: bool = False) -> np.ndarray:
    """The values as a NumPy array sharing memory; refused for a tensor that requires grad
    while grad mode is on (use ``t.detach().numpy()``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> x.detach().numpy()
    array([1., 2.], dtype=float32)
    >>> with symgrad.no_grad():
    ...     x.numpy()
    array([1., 2.], dtype=float32)
    """
    if type(force) is not bool:
        raise TypeError(f"numpy(): argument 'force' must be bool, not {type(force).__name__}")
    if TRACE.log is not None:
        escape(self, "numpy()")
    if self._requires_grad and not force and _state.enabled:
        raise RuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
            f"instead.\n(or call it under symgrad.no_grad(); this tensor has shape "
            f"{list(self.shape)})"
        )
    if type(self._data).__name__ == "MetaArray":
        raise TypeError(
            "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the "
            "tensor to host memory first."
        )
    # a new array object on the same memory each call, as PyTorch's (never the array the
    # tensor was made from by from_numpy or as_tensor)
    return self._data.view()


_SCALAR_WARNED: list = []


def warn_scalar_of_grad(t: Tensor) -> None:
    """PyTorch's warning, once per process, when a tensor that requires grad becomes a Python
    number while grad mode is on: ``float(t)``, or a tensor built from a list holding ``t``."""
    if t._requires_grad and _state.enabled and not _SCALAR_WARNED:
        _SCALAR_WARNED.append(True)
        _user_warnings.warn_at_user(
            "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
            "behavior.\nConsider using tensor.detach() first."
        )


def _float(self: Tensor) -> float:
    """``float(t)``; the first time ``t`` requires grad while grad mode is on, it warns."""
    warn_scalar_of_grad(self)
    return float(self._scalar())


_float.__name__ = "__float__"
bind_methods({"numpy": numpy, "__float__": _float})
_user_warnings.on_value_of_grad.append(warn_scalar_of_grad)  # a tensor built from a list
