"""What the backward pass running on this thread is: one that reaches every leaf, or one
computing only some inputs' gradients (``grad()``, ``backward(inputs=...)``)."""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["CURRENT", "checkpoint_valid", "edge_needs"]


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


def edge_needs(node: Any) -> list:
    """For each of ``node``'s edges whether the running pass wants its gradient: every edge
    to a node in a pass that reaches every leaf, only those leading to an input asked for in
    ``grad()`` and ``backward(inputs=...)`` (PyTorch computes no other, so a derivative it
    lacks is no error there).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.current_pass import edge_needs
    >>> a = symgrad.tensor([1.0], requires_grad=True)
    >>> b = symgrad.tensor([2.0], requires_grad=True)
    >>> y = a * b
    >>> edge_needs(y.grad_fn)
    [True, True]
    """
    run = CURRENT.run if CURRENT.partial else None
    if run is None or run.useful is None:
        return [fn is not None for fn, _ in node._edges]
    useful, targets = run.useful, run.targets
    return [fn is not None and (fn in useful or (fn, nr) in targets) for fn, nr in node._edges]
