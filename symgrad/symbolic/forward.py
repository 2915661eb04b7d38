"""The closed-form Jacobian-vector product ``J v`` of a traced computation."""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from symgrad.prim.exact import exact
from symgrad.symbolic.calculus import _check_inputs, _finish, _inputs
from symgrad.symbolic.names import is_symbolic, symbol_array_of
from symgrad.symbolic.replay import Replay
from symgrad.tensor import Tensor

__all__ = ["jvp"]


def jvp(y: Tensor, x: Any, v: Any, *, simplify: Any = False, as_float: bool = False) -> Any:
    """The derivative of ``y`` in the direction ``v`` of ``x``: ``J v``, of ``y``'s shape.

    ``x`` is a tensor or a list of tensors, ``v`` a tensor of ``x``'s shape (a list of them):
    its values, or its symbols when it has a name, so the direction may stay symbolic. Computed
    by one reverse replay with a symbolic incoming gradient ``u`` (``Jᵀu``), whose pairing with
    ``v`` is linear in ``u``: its coefficients are ``J v``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import jvp
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    >>> v = symgrad.tensor([0.5, -1.0], name="v")
    >>> jvp(x.sin() * 3, x, v)
    [3*v[0]*cos(x[0]), 3*v[1]*cos(x[1])]
    >>> jvp((x * x).sum(), x, symgrad.tensor([1.0, 0.0]))
    2*x[0]
    """
    if not isinstance(y, Tensor):
        raise TypeError(f"jvp()'s output must be a Tensor, got {type(y).__name__}")
    xs, single = _inputs(x)
    vs = [v] if single else list(v)
    if len(vs) != len(xs):
        raise ValueError(f"jvp(): {len(xs)} inputs but {len(vs)} directions")
    for i, (xi, vi) in enumerate(zip(xs, vs)):
        if not isinstance(vi, Tensor):
            raise TypeError(f"jvp(): direction {i} must be a Tensor, got {type(vi).__name__}")
        if tuple(vi.shape) != tuple(xi.shape):
            raise ValueError(
                f"jvp(): direction {i} has shape {list(vi.shape)}, its input {list(xi.shape)}"
            )
    _check_inputs(xs)
    replay = Replay(as_float=as_float)
    u = np.empty(y.shape, dtype=object)
    for index in np.ndindex(*y.shape):
        u[index] = sp.Dummy("u")
    grads = replay.adjoints(y, u, xs)
    pairing = sp.Integer(0)
    for g, vi in zip(grads, vs):
        if g is None:
            continue
        direction = _direction(vi)
        pairing += sum(
            (gi * di for gi, di in zip(np.asarray(g).flat, direction.flat)), sp.Integer(0)
        )
    out = np.empty(y.shape, dtype=object)
    for index in np.ndindex(*y.shape):
        out[index] = sp.diff(pairing, u[index])  # the pairing is linear in u
    return _finish(out, simplify)


def _direction(v: Tensor) -> np.ndarray:
    if is_symbolic(v) and v.name:
        return np.asarray(symbol_array_of(v), dtype=object).reshape(v.shape)
    values = v.detach().numpy()
    return np.vectorize(exact, otypes=[object])(values).reshape(v.shape)
