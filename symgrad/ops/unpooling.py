"""Max unpooling: the input written into zeros at given positions (the last write wins where
a position repeats); its VJP reads the gradient back at every position."""

from __future__ import annotations

from typing import Any

from symgrad._tracing import TRACE, data_params
from symgrad.prim.structural import Structural

__all__ = ["unpool"]


def _unpool_forward(xp: Any, x: Any, key: tuple, shape: tuple) -> Any:
    return xp.index_put_zeros(shape, key, x, True)


def _unpool_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (xp.getitem(g, c.params["key"]),)


_UNPOOLS: dict[str, Structural] = {}


def unpool(x: Any, key: tuple, shape: tuple, name: str, find: Any = None, indices: Any = None):
    """Zeros of ``shape`` with ``x`` written at ``key``, recorded as PyTorch's node ``name``;
    ``find(indices' values)`` gives ``key``, so a compiled program finds it afresh.

    Examples
    --------
    >>> import numpy as np
    >>> import symgrad
    >>> from symgrad.ops.unpooling import unpool
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = unpool(x, (np.array([0, 3]),), (4,), "MaxUnpool1DBackward0")
    >>> y.tolist(), y.grad_fn.name()
    ([1.0, 0.0, 0.0, 2.0], 'MaxUnpool1DBackward0')
    """
    prim = _UNPOOLS.get(name)
    if prim is None:
        prim = _UNPOOLS[name] = Structural(
            "unpool",
            _unpool_forward,
            _unpool_vjp,
            backward=name,
            jvp="linear",
            suggested=True,  # a channels-last image gives a channels-last one, as PyTorch's
        )
    result = prim(x, key=key, shape=tuple(shape))
    if find is not None and TRACE.log is not None:
        data_params(result, lambda a: {"key": find(a), "shape": tuple(shape)}, indices)
    return result
