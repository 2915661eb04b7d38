"""The text ``repr`` gives of a tensor: the trailing items PyTorch adds after the values
(dtype, grad_fn or requires_grad, a forward-mode tangent), laid out by ``_printing``."""

from __future__ import annotations

from typing import Any

from symgrad import dtypes
from symgrad._meta import MetaArray
from symgrad._printing import format_tensor

TRANSFORM_TEXT: list = [None]  # set by symgrad.func.printing: the text inside transforms


def tensor_text(t: Any, prefix: str, contents: str | None = None) -> str:
    """``repr(t)``: ``prefix`` opens it (``"tensor("``, or a subclass's name) and
    ``contents`` stands in for the values when given (PyTorch's ``tensor_contents``).

    Examples
    --------
    >>> import symgrad
    >>> tensor_text(symgrad.ones(2, dtype=symgrad.float64), "tensor(")
    'tensor([1., 1.], dtype=symgrad.float64)'
    """
    hook = TRANSFORM_TEXT[0]
    if hook is not None:
        text = hook(t)
        if text is not None:
            return text
    return _text(t, prefix, contents, True, True)


def plain_text(t: Any, grad: bool) -> str:
    """``t`` as ``tensor(...)``: its values and dtype, with its ``grad_fn`` or
    ``requires_grad`` only if ``grad``, without a tangent (the values a transform wraps)."""
    return _text(t, "tensor(", None, grad, False)


def _text(t: Any, prefix: str, contents: str | None, grad: bool, tangent: bool) -> str:
    suffixes = []
    d = t.dtype
    # PyTorch names every non-default dtype of an empty or meta tensor, int64 and bool too
    implied = (
        (dtypes.get_default_dtype(),)
        if t._data.size == 0 or isinstance(t._data, MetaArray)
        else (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool_)
    )
    if d not in implied:
        suffixes.append(f"dtype={d!r}")
    if grad and t.grad_fn is not None:
        name = type(t.grad_fn).__name__
        if name == "CppFunction":  # (PyTorch's Identity node, say)
            name = t.grad_fn.name().rsplit("::", 1)[-1]
        suffixes.append(f"grad_fn=<{name}>")
    elif grad and t._requires_grad:
        suffixes.append("requires_grad=True")
    if tangent and t._fw is not None and t._fw[0].alive:  # a tangent of the present dual level
        value = t._fw[1]  # PyTorch prints a 0-d tangent as a number
        shown = value.item() if value.ndim == 0 else repr(value)
        suffixes.append(f"tangent={shown}")
    return format_tensor(t._data, suffixes, prefix, contents)
