"""What both kinds of primitive share: node names, edges, operands and gradient reduction.

An :class:`~symgrad.prim.elementwise.Elementwise` primitive is a SymPy expression of
scalar input symbols; a :class:`~symgrad.prim.structural.Structural` primitive is a
forward and a VJP rule written against an array namespace ``xp``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd.node import accumulator_of
from symgrad.tensor import Tensor

__all__ = ["camel", "edge", "input_records", "recorded", "as_operand", "reduce_to", "sum_to_numpy"]


def camel(name: str) -> str:
    """``log_softmax`` -> ``LogSoftmax`` (PyTorch's node-name spelling)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


_NO_EDGE = (None, 0)


def edge(t: Any) -> tuple:
    """The ``next_functions`` entry that leads from a node to its input ``t``."""
    if isinstance(t, Tensor) and t._requires_grad:
        fn = t.grad_fn
        return (accumulator_of(t), 0) if fn is None else (fn, t._output_nr)
    return (None, 0)


def input_records(inputs: tuple, keep: Any) -> tuple[list, list, list, list, list, Any]:
    """What a node records of its inputs: edges, saved values (tensors where ``keep`` says so,
    numbers always), their versions, their (shape, dtype), the constants (inputs that do not
    require grad, kept for the symbolic replay) and the leaves it holds (or None)."""
    # one pass over the inputs: this runs once per recorded op, so it is kept tight
    edges, saved, versions, meta, consts = [], [], [], [], []
    held = None
    for a, k in zip(inputs, keep):
        if type(a) is Tensor:
            if a._requires_grad:
                fn = a.grad_fn
                if fn is None:
                    edges.append((accumulator_of(a), 0))
                    held = [a] if held is None else held + [a]
                else:
                    edges.append((fn, a._output_nr))
                consts.append(None)
            else:
                edges.append(_NO_EDGE)
                consts.append(a)
            saved.append(a if k else None)
            versions.append(a._counter.value if k else None)
            meta.append((a._data.shape, a._data.dtype))
        else:
            edges.append(_NO_EDGE)
            saved.append(a)
            versions.append(None)
            meta.append(None)
            consts.append(a)
    return edges, saved, versions, meta, consts, held


def recorded(node_class: type, inputs: tuple, params: Any, out: np.ndarray) -> Tensor:
    """The tensor holding ``out`` with a new ``node_class`` node as its ``grad_fn``."""
    node = node_class(inputs, params, out)
    result = Tensor._make(out, node, True)
    if node._out is not None:  # the node saved its output: watch it for in-place changes
        node._out_version = (result._counter, 0)
    return result


def as_operand(value: Any, op: str) -> Any:
    """A Tensor or a real Python number; anything else is a clear TypeError."""
    if isinstance(value, (Tensor, bool, int, float, np.number, np.bool_)):
        return value
    if isinstance(value, np.ndarray):
        from symgrad.creation import as_tensor

        return as_tensor(value)
    raise TypeError(
        f"{op}(): expected Tensor or number arguments, got {type(value).__name__} ({value!r:.60})"
    )


def reduce_to(g: Any, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Sum a broadcast gradient back to ``shape`` and cast it to the input's dtype."""
    if type(g) is not np.ndarray:
        g = np.asarray(g)
    if g.shape != shape:
        g = sum_to_numpy(g, shape)
    if g.dtype != dtype:
        g = g.astype(dtype)
    return g


def sum_to_numpy(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Reduce ``g`` to ``shape`` by summing the dimensions broadcasting added or stretched."""
    if g.shape == shape:
        return g
    if g.ndim < len(shape) or any(n != 1 and n != m for n, m in zip(shape[::-1], g.shape[::-1])):
        return np.array(np.broadcast_to(g, shape))
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1
    )
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)
