"""What the backward pass running on this thread is: one that reaches every leaf, or one
computing only some inputs' gradients (``grad()``, ``backward(inputs=...)``)."""

from __future__ import annotations

import threading

__all__ = ["CURRENT", "checkpoint_valid"]


class _Current(threading.local):
    partial = False  # the innermost pass on this thread computes only some inputs' gradients
    run = None  # the innermost pass running on this thread (the engine's _Run), if any


CURRENT = _Current()


def checkpoint_valid() -> bool:
    """Whether the backward pass running on this thread (if any) reaches every leaf: False in
    ``grad()`` and ``backward(inputs=...)``, where a reentrant checkpoint can't run.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.current_pass import checkpoint_valid
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> seen = []
    >>> h = x.register_hook(lambda g: seen.append(checkpoint_valid()))
    >>> (x * 2).sum().backward()
    >>> _ = symgrad.autograd.grad((x * 2).sum(), x)
    >>> seen
    [True, False]
    """
    return not CURRENT.partial
