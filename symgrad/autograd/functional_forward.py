"""The forward-mode parts of :mod:`symgrad.autograd.functional`: Jacobians column by column
(``strategy="forward-mode"``) and Jacobian-vector products, from tangents carried by dual
tensors (:mod:`symgrad.autograd.forward_ad`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad.autograd import dual, forward_ad
from symgrad.tensor import Tensor

__all__ = ["forward_jacobian", "forward_jvp", "check_forward_strategy"]


def check_forward_strategy(create_graph: bool, strict: bool, vectorize: bool, fn: str) -> None:
    """PyTorch's refusals of the combinations forward mode does not support."""
    if strict:
        raise RuntimeError(
            f'torch.autograd.functional.{fn}: `strict=True` and `strategy="forward-mode"` are '
            'not supported together (yet). Please either set `strict=False` or `strategy="reverse'
            '-mode"`.'
        )
    if create_graph:
        raise NotImplementedError(
            f'torch.autograd.functional.{fn}: `create_graph=True` and `strategy="forward-mode"` '
            "are not supported together (yet). Please either set `create_graph=False` or "
            '`strategy="reverse-mode"`.'
        )


def _tangents(outs: Any) -> tuple:
    outs = outs if isinstance(outs, tuple) else (outs,)
    result = []
    for o in outs:
        t = dual.tangent_of(o) if isinstance(o, Tensor) else None
        result.append(Tensor._make(np.zeros(o.shape, o._data.dtype)) if t is None else t)
    return tuple(result)


def forward_jacobian(func: Callable, xs: tuple, check: Callable) -> tuple[bool, tuple, list]:
    """``func``'s outputs at ``xs`` and its Jacobian blocks ``[i][j]`` (``outputs[i].shape +
    xs[j].shape``), one forward pass per element of each input (the tangent is that element's
    unit vector), and whether ``func`` returned a tuple; ``check(raw)`` checks what it returned.
    The blocks are not differentiable."""
    columns: list = [[] for _ in xs]
    outs = None
    with forward_ad.dual_level():
        for j, x in enumerate(xs):
            n = x.numel()
            for k in range(n):
                seed = np.zeros(n, dtype=x._data.dtype)
                seed[k] = 1
                tangent = Tensor._make(seed.reshape(x.shape))
                args = tuple(
                    forward_ad.make_dual(a, tangent) if i == j else a for i, a in enumerate(xs)
                )
                raw = func(*args)
                check(raw)
                columns[j].append(tuple(t._data for t in _tangents(raw)))
                if outs is None:
                    outs = raw
        if outs is None:  # no input has an element: one call for the outputs
            outs = func(*xs)
            check(outs)
        outs_t = outs if isinstance(outs, tuple) else (outs,)
        primal = tuple(forward_ad.unpack_dual(o).primal.detach() for o in outs_t)
    blocks = []
    for i, o in enumerate(primal):
        row = []
        for j, x in enumerate(xs):
            cols = [c[i] for c in columns[j]]
            data = np.stack(cols, axis=-1) if cols else np.zeros(tuple(o.shape) + (0,))
            row.append(Tensor._make(data.reshape(tuple(o.shape) + tuple(x.shape))))
        blocks.append(row)
    return isinstance(outs, tuple), primal, blocks


def forward_jvp(func: Callable, xs: tuple, vs: tuple, check: Callable) -> tuple[Any, tuple, tuple]:
    """``func(xs)`` and ``J v`` by forward mode: each input carries its ``v`` as tangent."""
    with forward_ad.dual_level():
        args = tuple(forward_ad.make_dual(x, v) for x, v in zip(xs, vs))
        raw = func(*args)
        check(raw)
        tangents = _tangents(raw)
    # the outputs themselves (their tangents end with the level), with their own grad_fn
    return raw, raw if isinstance(raw, tuple) else (raw,), tangents
