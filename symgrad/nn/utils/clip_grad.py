"""Gradient clipping, as ``torch.nn.utils``: scale the gradients to a largest total norm
(:func:`clip_grad_norm_`) or clamp each entry (:func:`clip_grad_value_`)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.tensor import Tensor

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]


def _tensors(values: Any) -> list:
    """One tensor, or an iterable of them, as a list."""
    return [values] if isinstance(values, Tensor) else list(values)


def _grads(parameters: Iterable) -> list:
    return [p.grad for p in parameters if p.grad is not None]


def _vector_norm(t: Tensor, norm_type: float) -> Tensor:
    """``linalg.vector_norm``; a float16 tensor's summed in float32 and rounded once to
    float16, as PyTorch's CPU kernel does (mixed-precision training clips float16 grads)."""
    from symgrad import float16, float32, linalg

    if t.dtype is float16:
        return linalg.vector_norm(t.to(float32), norm_type).to(float16)
    return linalg.vector_norm(t, norm_type)


@no_grad()
def get_total_norm(
    tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach: Any = None
) -> Tensor:
    """The ``norm_type``-norm of all of ``tensors`` together (as if concatenated into one
    vector); ``tensor(0.)`` for none. With ``error_if_nonfinite``, an infinite or nan norm is
    a RuntimeError.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils import get_total_norm
    >>> get_total_norm([symgrad.tensor([3.0]), symgrad.tensor([4.0])])
    tensor(5.)
    """
    from symgrad import stack, tensor

    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    norms = [_vector_norm(t, norm_type) for t in tensors]
    total = _vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not bool(total.isfinite()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


@no_grad()
def clip_grads_with_norm_(
    parameters: Any, max_norm: float, total_norm: Tensor, foreach: Any = None
) -> None:
    """Scale the gradients of ``parameters`` in place by ``max_norm / (total_norm + 1e-6)``
    when that is below 1 (``total_norm`` as :func:`get_total_norm` gives it).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils import clip_grads_with_norm_
    >>> w = symgrad.tensor([1.0, 1.0], requires_grad=True)
    >>> w.grad = symgrad.tensor([3.0, 4.0])
    >>> clip_grads_with_norm_([w], 1.0, symgrad.tensor(5.0))
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    from symgrad import clamp

    max_norm = float(max_norm)  # (first, as PyTorch: a max_norm of None fails without grads too)
    grads = _grads(_tensors(parameters))
    if not grads:
        return
    coef = clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef.to(g.dtype))


def clip_grad_norm_(
    parameters: Any,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """Scale the gradients of ``parameters`` in place so that their total ``norm_type``-norm
    is at most ``max_norm``; returns the total norm before clipping.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils import clip_grad_norm_
    >>> w = symgrad.tensor([1.0, 1.0], requires_grad=True)
    >>> (w * symgrad.tensor([3.0, 4.0])).sum().backward()
    >>> clip_grad_norm_([w], max_norm=1.0)
    tensor(5.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    parameters = _tensors(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(
    parameters: Any,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """The old name of :func:`clip_grad_norm_`, which it calls after a FutureWarning (as
    PyTorch).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> from symgrad.nn.utils import clip_grad_norm
    >>> w = symgrad.tensor([1.0, 1.0], requires_grad=True)
    >>> w.grad = symgrad.tensor([3.0, 4.0])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     clip_grad_norm([w], max_norm=1.0)
    tensor(5.)
    """
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@no_grad()
def clip_grad_value_(parameters: Any, clip_value: float, foreach: Any = None) -> None:
    """Clamp every gradient entry of ``parameters`` into ``[-clip_value, clip_value]``, in
    place.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.utils import clip_grad_value_
    >>> w = symgrad.tensor([1.0, 1.0], requires_grad=True)
    >>> w.grad = symgrad.tensor([-3.0, 0.5])
    >>> clip_grad_value_(w, 1.0)
    >>> w.grad
    tensor([-1.0000,  0.5000])
    """
    clip_value = float(clip_value)
    for g in _grads(_tensors(parameters)):
        g.clamp_(min=-clip_value, max=clip_value)
